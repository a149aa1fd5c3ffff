import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

extension CLIErrorCase {
    /// Bad `vine` blocks: `file:line:column` errors before anything is drawn.
    static let vine: [CLIErrorCase] = {
        func bad(_ name: String, _ vine: String, canvas: Bool = true, _ fragments: [String]) -> CLIErrorCase {
            CLIErrorCase(name: "vine: " + name, arguments: ["render", "--params", "s.json"],
                         setup: [.text("s.json", "{\"text\": \"Hi\"\(canvas ? ", \"width\": 300, \"height\": 200" : ""),\n \"vine\": \(vine)}")],
                         fragments: fragments)
        }
        return [
            bad("unknown key", #"{"leafsize": 3}"#, ["s.json:2:", "unknown key \"leafsize\" in \"vine\"", "did you mean \"leafSize\"?"]),
            bad("width out of range", #"{"width": 0}"#, ["s.json:2:", "\"vine.width\" is 0, out of range 1…200"]),
            bad("angles reversed", #"{"branchAngle": [60, 20]}"#, ["s.json:2:", "[60, 20]", "lower bound first"]),
            bad("one-point path", #"{"path": [[1, 2]]}"#, ["s.json:2:", "has 1 points", "give 2 to 4096"]),
            bad("unknown path word", #"{"path": "zigzag"}"#, ["s.json:2:", "\"underline\", \"arc\" or an array"]),
            bad("point not a pair", #"{"path": [[1, 2], [3]]}"#, ["s.json:2:", "must be [x, y]"]),
            bad("chance over 1", #"{"branchChance": 2}"#, ["\"vine.branchChance\" is 2, out of range 0…1"]),
            bad("not an object", #""underline""#, ["s.json:2:", "\"vine\" must be an object"]),
            bad("no canvas", #"{"seed": 3}"#, canvas: false, ["a vine needs the canvas's \"width\" and \"height\""]),
        ]
    }()
}
