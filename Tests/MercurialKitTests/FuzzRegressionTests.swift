import Foundation
import Testing
@testable import MercurialKit

/// Inputs the fuzzers found (Fixtures/fuzz/README.md says what each did): each must
/// now end in a clear error or a bounded result, at once.
@Suite struct FuzzRegressionTests {
    @Test func fontWithHugeGlyphsIsRefusedWithoutRasterisingThem() {
        var layout = TextLayout(text: "Ag fi ✈ لا", fontPath: fixture("fuzz/font-oom-huge-glyphs.ttf"))
        layout.size = 24
        let start = ContinuousClock.now
        do {
            let result = try TextMask.render(layout, margin: 4)
            Issue.record("rendered a \(result.mask.width)×\(result.mask.height) mask")
        } catch {
            #expect(error.message.contains("over the limit of 16384 px a side"), "\(error.message)")
        }
        // Rasterising the glyphs took about 30 s and 2 GB; only their bounds are read now.
        #expect(start.duration(to: .now) < .seconds(5))
    }
}
