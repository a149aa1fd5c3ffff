import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

extension CLIErrorCase {
    /// Issue 31's fourth hostile wave: what trapped (SIGILL, nothing on stderr) or was
    /// taken silently is now a clear error before any frame.
    static let fourthWave: [CLIErrorCase] = {
        let huge = "cubicBezier(0.5, 1e300, 0.5, -1e300)"
        func animated(_ name: String, _ scene: String, _ fragments: [String]) -> CLIErrorCase {
            CLIErrorCase(name: "fourth wave: " + name, arguments: ["animate", "s.json", "-o", "out.apng"],
                         setup: [.text("s.json", scene)], fragments: fragments, output: .mustNotExist("out.apng"))
        }
        let refused = ["has y1 or y2 outside -5…5", "off the canvas"]
        func track(_ key: String, _ from: Double, _ to: Double, layers: Bool = false) -> String {
            let text = layers ? #""layers": [{"name": "a", "text": "Hi"}, {"name": "b", "text": "there", "below": "a"}]"# : #""text": "Hi""#
            return """
                {\(text), "width": 300, "height": 200, "backgroundGradient": {"colors": ["#000000", "#ffffff"]},
                 "animation": {"duration": 1, "fps": 5, "tracks": {"\(key)": [
                    {"t": 0, "value": \(from), "timing": "\(huge)"}, {"t": 1, "value": \(to)}]}}}
                """
        }
        func slip(_ name: String, _ arguments: [String], _ fragments: [String], status: Status = .usage,
                  output: Output = .mustNotExist("title.png")) -> CLIErrorCase {
            CLIErrorCase(name: "newcomer: " + name, arguments: arguments, setup: [.text("s.json", #"{"text": "Hi"}"#)],
                         status: status, fragments: fragments, output: output)
        }
        let listing = "did you mean 'mercurial materials', 'mercurial fonts' or 'mercurial params'?"
        return [
            slip("version as a word", ["version"], ["'version' is not a command", "did you mean 'mercurial --version'?",
                                                    "mercurial render -- version"]),
            slip("list as a word", ["list"], ["'list' is not a command", listing]),
            slip("ls as a word", ["ls"], [listing]),
            slip("a command cut short", ["anim", "s.json"], ["'anim' is not a command", "did you mean 'mercurial animate'?"]),
            slip("two words unquoted", ["Hello", "world"], ["'world'", #"a title of several words goes in quotes: mercurial render "Hello world""#]),
            slip("three words unquoted after render", ["render", "Hello", "big", "world", "-o", "t.png"],
                 [#"goes in quotes: mercurial render "Hello big world""#], output: .mustNotExist("t.png")),
            slip("a scene file that is not there", ["render", "scene.json"],
                 ["scene file 'scene.json' does not exist; check its name", "mercurial render --set 'text=scene.json'"], status: .ours),
            slip("a scene file that is not there, as the default command", ["scnee.json", "-o", "t.png"],
                 ["scene file 'scnee.json' does not exist"], status: .ours, output: .mustNotExist("t.png")),
            slip("render to .webm", ["render", "Hi", "-o", "out.webm"],
                 ["output 'out.webm' ends in .webm (WebM), but render writes .png, .jpg (or .jpeg) and .webp stills; name it e.g. 'out.png'", "mercurial animate SCENE.json -o out.webm"],
                 status: .ours, output: .mustNotExist("out.webm")),
            slip("render to .gif", ["render", "Hi", "-o", "card.GIF"], ["output 'card.GIF' ends in .gif (GIF)", "name it e.g. 'card.png'"],
                 status: .ours, output: .mustNotExist("card.GIF")),
            slip("render --emit to .gif", ["render", "Hi", "--emit", "color,height", "-o", "t.gif"], ["'t.gif' ends in .gif (GIF)"],
                 status: .ours, output: .mustNotExist("t.gif")),
            slip("shading to .jpg", ["shading", "-o", "s.jpg"], ["output 's.jpg' ends in .jpg (JPEG), but shading writes PNG only"],
                 status: .ours, output: .mustNotExist("s.jpg")),
            slip("watch to .gif", ["watch", "s.json", "-o", "w.gif"], ["output 'w.gif' ends in .gif (GIF), but watch writes .png, .jpg (or .jpeg) and .webp stills"],
                 status: .ours, output: .mustNotExist("w.gif")),
            slip("render over the scene as .json", ["render", "Hi", "-o", "s2.json"], ["'s2.json' ends in .json (JSON)"],
                 status: .ours, output: .mustNotExist("s2.json")),
            animated("an overshooting slide", """
                {"text": "Hello", "width": 300, "height": 200, "animation": {"duration": 1, "fps": 5},
                 "in": {"type": "slide", "side": "left", "distance": 240, "duration": 0.5, "timing": "\(huge)"}}
                """, ["s.json:2:", "timing 'cubicBezier(0.5, 1e300, 0.5, -1e300)'"] + refused),
            animated("an overshooting rise", """
                {"text": "Hello", "width": 300, "height": 200, "animation": {"duration": 2, "fps": 5},
                 "in": {"type": "reveal", "style": "rise", "duration": 0.5, "timing": "\(huge)"}}
                """, ["s.json:2:"] + refused),
            animated("an overshooting drop going out", """
                {"text": "Hello", "width": 300, "height": 200, "animation": {"duration": 2, "fps": 5},
                 "out": {"type": "reveal", "style": "drop", "duration": 0.5, "timing": "cubicBezier(0, 6, 1, 1)"}}
                """, ["s.json:2:", "cubicBezier(0, 6, 1, 1)"] + refused),
            animated("an overshooting track on offset.x", track("offset.x", -1000, 1000), ["s.json:3:"] + refused),
            animated("an overshooting track on layers[0].offset.x", track("layers[0].offset.x", -1000, 1000, layers: true),
                     ["s.json:3:"] + refused),
            animated("an overshooting track on the gradient's start", track("backgroundGradient.startPoint.x", -10, 10),
                     ["s.json:3:"] + refused),
        ]
    }()
}
