import Foundation
import Testing
import MercurialTestSupport

extension CLIErrorCase {
    /// A word that is not one of a key's or a flag's choices: the choices, and a did-you-mean
    /// for a slip, on the one line (in a scene file, at its `file:line:column`).
    static let choices: [CLIErrorCase] = {
        func scene(_ name: String, _ json: String, _ fragments: [String]) -> CLIErrorCase {
            CLIErrorCase(name: "choices: " + name, arguments: ["animate", "s.json"],
                         setup: [.text("s.json", "{\"text\": \"Hi\", \"animation\": {\"duration\": 1},\n" + json + "}")],
                         fragments: ["s.json:2:"] + fragments)
        }
        let anchors = "top-left, top, top-right, left, center, right, bottom-left, bottom or bottom-right"
        return [
            CLIErrorCase(name: "choices: --anchor lists its nine points", arguments: ["render", "Hi", "--anchor", "middle"],
                         status: .usage, fragments: ["'middle'", "'top-left', 'top', 'top-right', 'left', 'center', 'right', 'bottom-left', 'bottom' or 'bottom-right'"]),
            CLIErrorCase(name: "choices: --anchor slip", arguments: ["render", "Hi", "--anchor", "botom-left"],
                         status: .usage, fragments: ["'bottom-right'", "Did you mean 'bottom-left'?"]),
            CLIErrorCase(name: "choices: --in slip", arguments: ["animate", "s.json", "--in", "fad"],
                         setup: [.text("s.json", #"{"text": "Hi", "animation": {"duration": 1}}"#)],
                         status: .usage, fragments: ["'reveal'", "Did you mean 'fade'?"]),
            CLIErrorCase(name: "choices: --set anchor slip", arguments: ["render", "Hi", "--set", "anchor=botom-left"],
                         fragments: [anchors, "did you mean 'bottom-left'?"]),
            CLIErrorCase(name: "choices: --set bevel slip", arguments: ["render", "Hi", "--set", "bevel=dwn"],
                         fragments: ["use up or down", "did you mean 'down'?"]),
            CLIErrorCase(name: "a negative offset after a space", arguments: ["render", "Hi", "--offset", "-20,0"],
                         status: .usage, fragments: ["Missing value for '--offset", "goes after an equals sign: --offset=-20,0"]),
            CLIErrorCase(name: "--set in.duration", arguments: ["animate", "s.json", "--set", "in.duration=1"],
                         setup: [.text("s.json", #"{"text": "Hi", "animation": {"duration": 1}}"#)],
                         fragments: ["'in.duration' is not a parameter", "set in the scene file or with animate's --in PRESET"]),
            scene("anchor", #""anchor": "botom-left""#, [anchors, "did you mean \"bottom-left\"?"]),
            scene("slide side", #""in": {"type": "slide", "side": "lft"}"#,
                  ["\"in.side\" must be \"left\", \"right\", \"top\" or \"bottom\"", "did you mean \"left\"?"]),
            scene("reveal style", #""out": {"type": "reveal", "style": "rize"}"#, ["\"out.style\"", "did you mean \"rise\"?"]),
            scene("in timing", #""in": {"type": "fade", "timing": "easeOutt"}"#,
                  ["timing 'easeOutt' is not known", "did you mean 'easeOut'?"]),
            scene("stroke position", #""stroke": {"position": "outsde"}"#,
                  ["\"stroke.position\" must be \"outside\", \"inside\" or \"center\"", "did you mean \"outside\"?"]),
        ]
    }()
}
