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
        return [
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
