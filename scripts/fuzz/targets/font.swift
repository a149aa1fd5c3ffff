// libFuzzer target `font`: a font file (--font PATH) and rasterising text in it.
//
// The input is written to a scratch file and TextMask.render lays out a short
// text with Latin (a kerning pair, the fi ligature), a symbol and Arabic (the
// lam-alef ligature, right to left) at 24 px: FreeType opens the face,
// HarfBuzz shapes, FreeType rasterises every glyph, the glyphs are drawn into
// a mask. Errors are expected; crashes, leaks and hangs are findings.

@testable import MercurialKit

let fontPath = fuzzScratchFolder + "/font.ttf"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzSample()
    writeFuzzInput(data, size, to: fontPath)
    var layout = TextLayout(text: "Ag fi ✈ لا", fontPath: fontPath)
    layout.size = 24
    // The fuzzed font alone: fallback would draw what it lacks from installed fonts.
    layout.fallback = false
    do {
        let result = try TextMask.render(layout, margin: 4)
        let ink = result.mask.inkBounds(threshold: 0)
        // Not the mask's size: rewarding new sizes breeds ever larger masks, slow
        // to draw under ASan (sizes are the png target's business).
        fuzzFeedback(feedbackValue("mask", ink == nil ? "blank" : "ink",
                                   result.warnings.map(\.message).joined(separator: "\n")))
    } catch {
        fuzzFeedback(feedbackValue("error", error.message))
    }
    return 0
}
