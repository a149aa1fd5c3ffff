import Testing
@testable import MercurialKit

/// The one "over" every composite goes through, and its one rounding.
@Suite struct PixelStackTests {
    @Test func overIsPorterDuffInStraightAlpha() {
        let p = RGBA8(r: 200, g: 100, b: 0, a: 128), b = RGBA8(r: 0, g: 50, b: 250, a: 100)
        #expect(PixelStack.over(p, .clear) == p)
        #expect(PixelStack.over(RGBA8(r: 1, g: 2, b: 3, a: 255), b) == RGBA8(r: 1, g: 2, b: 3, a: 255))
        #expect(PixelStack.over(.clear, b) == b)
        let o = PixelStack.over(p, b)
        let pa = 128.0 / 255, ba = 100.0 / 255
        #expect(abs(Double(o.a) - (pa + ba * (1 - pa)) * 255) <= 1)
        let red = (200 * pa + 0 * ba * (1 - pa)) / (pa + ba * (1 - pa))
        #expect(abs(Double(o.r) - red) <= 1, "\(o)")
    }

    /// Over an opaque pixel (a title over its backdrop's colour), each level is the exact
    /// blend rounded to the nearest: (f·a + g·(255 − a)) / 255, which is never a half; the
    /// stack's floats rounded once give the same level as the integers `over` takes there.
    @Test func overAnOpaquePixelRoundsTheExactBlendToTheNearestLevel() {
        var wrong: [String] = []
        for a in 1...254 {
            for f in stride(from: 0, through: 255, by: 3) {
                for g in stride(from: 0, through: 255, by: 5) {
                    let top = RGBA8(r: UInt8(f), g: 0, b: 0, a: UInt8(a)), bottom = RGBA8(r: UInt8(g), g: 0, b: 0, a: 255)
                    let o = PixelStack.over(top, bottom)
                    let stacked = PixelStack.pixel(PixelStack.over(PixelStack.premultiplied(top), PixelStack.premultiplied(bottom)))
                    let exact = (f * a + g * (255 - a) + 127) / 255
                    if o.r != exact || o.a != 255 || stacked != o, wrong.count < 5 {
                        wrong.append("\(f) at \(a) over \(g): \(o.r), stacked \(stacked.r), not \(exact)")
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }
}
