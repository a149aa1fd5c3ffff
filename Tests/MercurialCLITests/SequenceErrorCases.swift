import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

extension CLIErrorCase {
    /// Bad sequences: one `error:` line each, before any frame, and no output.
    static let sequence: [CLIErrorCase] = {
        func bad(_ name: String, _ scene: String, _ fragments: [String], setup: [Setup] = []) -> CLIErrorCase {
            CLIErrorCase(name: "sequence: " + name, arguments: ["animate", "s.json", "-o", "out.webm"],
                         setup: [.text("s.json", scene)] + setup, fragments: fragments, output: .mustNotExist("out.webm"))
        }
        /// Two steps, the first with `transition`.
        func steps(_ transition: String) -> String {
            "{\n  \"sequence\": [\n    {\"scene\": {\"text\": \"A\", \"size\": 30}, \"transition\": \(transition)},\n    {\"scene\": {\"text\": \"B\", \"size\": 30}}\n  ]\n}\n"
        }
        return [
            bad("unknown transition type", steps(#"{"type": "flsh"}"#),
                ["s.json:3:", "unknown transition type \"flsh\"", "did you mean \"flash\"?"]),
            bad("negative duration", steps(#"{"type": "dissolve", "duration": -1}"#),
                ["s.json:3:", "duration\" is -1, out of range 0.001…3600"]),
            bad("fade threshold out of range", steps(#"{"type": "flash", "fadeThreshold": 2}"#),
                ["s.json:3:", "fadeThreshold\" is 2, out of range 0…1"]),
            bad("ripple scale out of range", steps(#"{"type": "ripple", "scale": 80}"#),
                ["s.json:3:", "scale\" is 80, out of range -50…50"]),
            bad("swipe width out of range", steps(#"{"type": "swipe", "width": 0}"#),
                ["s.json:3:", "width\" is 0, out of range 0.1…800"]),
            bad("centre that is not a point", steps(#"{"type": "flash", "center": [1]}"#),
                ["s.json:3:", "must be a point [x, y]"]),
            bad("another type's input", steps(#"{"type": "swipe", "fadeThreshold": 1}"#),
                ["s.json:3:", "unknown key \"fadeThreshold\"", "known keys:", "angle"]),
            bad("misspelt input", steps(#"{"type": "swipe", "angel": 1}"#),
                ["s.json:3:", "unknown key \"angel\"", "did you mean \"angle\"?"]),
            bad("missing scene file", "{\"sequence\": [{\"scene\": \"nowhere/a.json\"}]}",
                ["s.json:1:", "scene file 'nowhere/a.json' does not exist"]),
            bad("a step naming the sequence itself", "{\"sequence\": [{\"scene\": \"s.json\"}]}",
                ["s.json:1:", "this sequence's own file"]),
            bad("a step naming the sequence through a link", "{\"sequence\": [{\"scene\": \"again.json\"}]}",
                ["s.json:1:", "this sequence's own file"], setup: [.symlink("again.json", to: "s.json")]),
            bad("a step naming a FIFO (never waited on)", "{\"sequence\": [{\"scene\": \"pipe.json\"}]}",
                ["s.json:1:", "'pipe.json' is a named pipe"], setup: [.fifo("pipe.json")]),
            bad("a step scene that is not a path or an object", "{\"sequence\": [{\"scene\": 42}]}",
                ["s.json:1:", "must be a scene file's path or a scene object", "not a number"]),
            bad("a shared material that is not a name", "{\"material\": 3, \"sequence\": [{\"scene\": {\"text\": \"A\"}}]}",
                ["s.json:1:", "\"material\" must be a material name or path, not a number"]),
            bad("a step whose scene holds a sequence", "{\"sequence\": [{\"scene\": \"inner.json\"}]}",
                ["inner.json:1:", "sequences do not nest"],
                setup: [.text("inner.json", "{\"sequence\": [{\"scene\": \"s.json\"}]}")]),
            bad("an inline step holding a sequence", "{\"sequence\": [{\"scene\": {\"sequence\": []}}]}",
                ["s.json:1:", "sequences do not nest"]),
            bad("a transition after the last title", "{\"sequence\": [{\"scene\": {\"text\": \"A\"}, \"transition\": {\"type\": \"dissolve\"}}]}",
                ["s.json:1:", "the last step has a \"transition\""]),
            bad("an empty sequence", "{\"sequence\": []}", ["s.json:1:", "non-empty array of steps"]),
            bad("a step without a scene", "{\"sequence\": [{\"hold\": 1}]}", ["s.json:1:", "needs \"scene\""]),
            bad("a negative hold", "{\"sequence\": [{\"scene\": {\"text\": \"A\"}, \"hold\": -1}]}",
                ["s.json:1:", "hold\" is -1, out of range 0…3600"]),
            bad("a misspelt step key", "{\"sequence\": [{\"scene\": {\"text\": \"A\"}, \"hodl\": 2}]}",
                ["s.json:1:", "unknown key \"hodl\"", "did you mean \"hold\"?"]),
            bad("a duration for the whole sequence", "{\"animation\": {\"duration\": 3}, \"sequence\": [{\"scene\": {\"text\": \"A\"}}]}",
                ["s.json:1:", "takes only \"fps\", \"loop\" and \"quality\""]),
            bad("titles that cannot share a canvas",
                "{\"sequence\": [{\"scene\": {\"text\": \"A\", \"width\": 300, \"height\": 100}}, {\"scene\": {\"text\": \"Bee\", \"size\": 200}}]}",
                ["title 1 of the sequence cannot share the", "canvas"]),
            bad("a bad key inside a step's scene", "{\"sequence\": [{\"scene\": {\"text\": \"A\", \"radiu\": 3}}]}",
                ["s.json:1:", "did you mean \"radius\"?"]),
            bad("too many frames", "{\"animation\": {\"fps\": 240}, \"sequence\": [{\"scene\": {\"text\": \"A\"}, \"hold\": 3600}]}",
                ["over the limit of 216000"]),
            CLIErrorCase(name: "sequence: rendered as a still", arguments: ["render", "--params", "s.json"],
                         setup: [.text("s.json", "{\"sequence\": [{\"scene\": {\"text\": \"A\"}}]}")],
                         fragments: ["s.json:1:", "only 'mercurial animate' and 'mercurial watch' render"]),
        ]
    }()
}
