import Foundation
import Testing
@testable import MercurialEditor
@testable import MercurialKit
import MercurialTestSupport

/// Issue 31, item 3: the editor's server died (SIGILL) on an `in` whose curve overshot to
/// 1e300, set from the page, then a text change and a move of the playhead. The curve
/// is refused with the file's message, and the largest allowed overshoot renders every frame.
@Suite(.serialized) struct EditorOvershootTests {
    static let scene = #"{"text": "Hi", "size": 40, "width": 320, "height": 120, "animation": {"duration": 1, "fps": 10}}"#

    @Test func anOvershootingCurveIsRefusedAndTheServerGoesOn() async throws {
        try await EditorFixture.with(sceneJSON: Self.scene) { (editor: EditorFixture) async throws in
            let huge = #"{"type": "slide", "side": "left", "distance": 240, "duration": 0.5, "timing": "cubicBezier(0.5, 1e300, 0.5, -1e300)"}"#
            let refused = try await EditorListTests.set(editor, "in", huge)
            #expect(refused.status == 422 && refused.text.contains("y1 or y2 outside -5…5"), "\(refused.text)")
            #expect(try await EditorListTests.set(editor, "text", "Hello").status == 200)
            #expect(try await editor.set(EditorSession.playheadKey, "2").status == 200)
            try await eventually("frame 2 on screen") { await editor.session.frame?.playhead == 2 }
            #expect(await editor.session.lastError == nil)

            // The steepest curve allowed, over the longest slide and rise: every frame renders.
            let steep = "cubicBezier(0.5, 5, 0.5, -5)"
            #expect(try await EditorListTests.set(editor, "in",
                #"{"type": "slide", "side": "left", "distance": 100000, "duration": 0.5, "timing": "\#(steep)"}"#).status == 200)
            #expect(try await EditorListTests.set(editor, "out",
                #"{"type": "reveal", "style": "rise", "distance": 100000, "duration": 0.2, "stagger": 0.05, "timing": "\#(steep)"}"#).status == 200)
            for frame in 0..<10 {
                #expect(try await editor.set(EditorSession.playheadKey, "\(frame)").status == 200)
                try await eventually("frame \(frame) on screen") { await editor.session.frame?.playhead == frame }
                #expect(await editor.session.lastError == nil, "frame \(frame)")
            }
            #expect(try await editor.get("/api/state").status == 200)
        }
    }
}
