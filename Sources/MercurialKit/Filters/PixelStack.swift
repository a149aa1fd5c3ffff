/// The one way pixels are stacked: Porter and Duff's "over" in premultiplied alpha, and the
/// one rounding from a stack's floats to an 8-bit straight-alpha pixel. Every composite goes
/// through these: a title over its backdrop (`CanvasCompositor`), its layer styles under and
/// over it (`LayerStyles.drawn`), a reveal's letters over each other (`LetterMap`), physics
/// letters (`DynamicTitle`) and layers over the layers below (`LayeredTitle`). (A shaded
/// colour is made 8-bit before it is stacked by `unitByte`, which truncates v·255 + 0.5: it
/// differs from `level` only where float error puts a value within a hair of a half, so the
/// two are kept apart rather than change the pixel corpus for nothing a viewer could see.)
enum PixelStack {
    /// `top` over `bottom`, premultiplied (colour times alpha; alpha 0…1).
    @inline(__always)
    static func over(_ top: SIMD4<Float>, _ bottom: SIMD4<Float>) -> SIMD4<Float> {
        top + bottom * (1 - top.w)
    }

    /// An 8-bit straight-alpha pixel as an entry of the stack.
    @inline(__always)
    static func premultiplied(_ p: RGBA8) -> SIMD4<Float> {
        let a = Float(p.a) * (1 / 255)
        return SIMD4(Float(p.r) * (a / 255), Float(p.g) * (a / 255), Float(p.b) * (a / 255), a)
    }

    /// The one rounding: a premultiplied stack's pixel as 8-bit straight alpha, each
    /// channel to the nearest level (clear where no alpha is left).
    @inline(__always)
    static func pixel(_ v: SIMD4<Float>) -> RGBA8 {
        guard v.w > 0 else { return .clear }
        let c = v / v.w * 255
        return RGBA8(r: level(c.x), g: level(c.y), b: level(c.z), a: level(v.w * 255))
    }

    /// A straight colour (0…1) with coverage `alpha`, nothing under it: the same rounding.
    @inline(__always)
    static func pixel(_ c: RGBColor, alpha: Float) -> RGBA8 {
        RGBA8(r: level(c.r * 255), g: level(c.g * 255), b: level(c.b * 255), a: level(alpha * 255))
    }

    /// The one rounding: `x` (0…255) to the nearest level, halves up.
    @inline(__always)
    static func level(_ x: Float) -> UInt8 { UInt8(min(max(x, 0), 255).rounded()) }

    /// 8-bit straight-alpha `top` over `bottom` (either may be transparent): the stack's
    /// "over", rounded once; `top` as it is where it is opaque or `bottom` clear, `bottom` where `top` is clear.
    @inline(__always)
    static func over(_ top: RGBA8, _ bottom: RGBA8) -> RGBA8 {
        if top.a == 255 || bottom.a == 0 { return top }
        if top.a == 0 { return bottom }
        if bottom.a == 255 {
            // Over an opaque pixel (a title over its backdrop) the stack's level is (f·a + g·(255 − a)) / 255,
            // never a half: its nearest level, worked out in integers (the same pixel, faster).
            let a = UInt32(top.a), ia = 255 - a
            @inline(__always) func mix(_ f: UInt8, _ g: UInt8) -> UInt8 { UInt8((UInt32(f) * a + UInt32(g) * ia + 127) / 255) }
            return RGBA8(r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a: 255)
        }
        return pixel(over(premultiplied(top), premultiplied(bottom)))
    }

    /// `count` pixels of `source` laid over `target`'s, one by one.
    @inline(__always)
    static func paint(_ source: UnsafePointer<RGBA8>, over target: UnsafeMutablePointer<RGBA8>, count: Int) {
        for x in 0..<count { target[x] = over(source[x], target[x]) }
    }
}
