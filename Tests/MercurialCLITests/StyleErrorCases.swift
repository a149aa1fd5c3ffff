import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

extension CLIErrorCase {
    /// Bad layer styles: `file:line:column` errors with the range or did-you-mean, before anything is drawn.
    static let styles: [CLIErrorCase] = {
        func bad(_ name: String, _ key: String, _ block: String, canvas: String = "300, \"height\": 200",
                 _ fragments: [String]) -> CLIErrorCase {
            CLIErrorCase(name: "styles: " + name, arguments: ["render", "--params", "s.json"],
                         setup: [.text("s.json", "{\"text\": \"Hi\", \"width\": \(canvas),\n \"\(key)\": \(block)}")],
                         fragments: fragments)
        }
        return [
            bad("unknown key", "dropShadow", #"{"distnce": 3}"#,
                ["s.json:2:", "unknown key \"distnce\" in \"dropShadow\"", "did you mean \"distance\"?"]),
            bad("negative distance", "dropShadow", #"{"distance": -4}"#, ["s.json:2:", "\"dropShadow.distance\" is -4, out of range 0…4096"]),
            bad("negative size", "outerGlow", #"{"size": -1}"#, ["s.json:2:", "\"outerGlow.size\" is -1, out of range 0…250"]),
            bad("spread over 100", "dropShadow", #"{"spread": 150}"#, ["s.json:2:", "\"dropShadow.spread\" is 150, out of range 0…100"]),
            bad("unknown stroke position", "stroke", #"{"position": "outsde"}"#,
                ["s.json:2:", "\"stroke.position\" must be", "did you mean \"outside\"?"]),
            bad("stroke position not a word", "stroke", #"{"position": 3}"#,
                ["s.json:2:", "\"stroke.position\" must be \"outside\", \"inside\" or \"center\""]),
            bad("stroke colour near \"material\"", "stroke", #"{"color": "materail"}"#,
                ["s.json:2:", "unknown \"stroke.color\" \"materail\"", "did you mean \"material\"?"]),
            bad("stroke colour neither a colour nor \"material\"", "stroke", #"{"color": 7}"#,
                ["s.json:2:", "\"stroke.color\" is a number, not a colour", "\"material\""]),
            bad("zero stroke width", "stroke", #"{"width": 0}"#, ["s.json:2:", "\"stroke.width\" is 0, out of range 0.5…250"]),
            bad("choke not a number", "innerShadow", #"{"choke": "lots"}"#, ["s.json:2:", "\"innerShadow.choke\""]),
            bad("shadow larger than the canvas", "dropShadow", #"{"distance": 400, "size": 100}"#,
                ["\"dropShadow\" reaches 500 px", "300×200 canvas", "smaller distance or size"]),
            bad("glow larger than the canvas", "outerGlow", #"{"size": 250}"#, canvas: "200, \"height\": 100",
                ["\"outerGlow\" reaches 250 px", "200×100 canvas", "smaller size"]),
            CLIErrorCase(name: "styles: a shadow too far to draw in bands",
                         arguments: ["render", "Far too wide", "--size", "2700", "--set", "dropShadow.distance=4096",
                                     "--set", "dropShadow.angle=90"],
                         status: .limit, fragments: ["\"dropShadow\" reaches too far to draw in bands", "at most 64 M values",
                                     "use a smaller distance or size"]),
        ]
    }()
}
