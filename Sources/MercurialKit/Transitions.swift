import Foundation

/// A transition from one title to the next, as Core Image's transition filters
/// make one (`CIDissolveTransition`, `CIFlashTransition`, `CISwipeTransition`,
/// `CIRippleTransition`): a pure function of the first image, the second image and
/// a time from 0 (the first image, exactly) to 1 (the second, exactly), like a
/// filter's `inputTime`.
///
/// Positions are canvas pixels, x to the right and y down (as point lights take
/// them). A `center` left out is the canvas's centre and an `extent` left out is
/// the whole canvas: Core Image's defaults are the centre (150, 150) of a 300×300
/// extent, and this keeps that relation on any canvas.
public enum Transition: Sendable, Equatable {
    case dissolve
    case flash(Flash)
    case swipe(Swipe)
    case ripple(Ripple)

    /// CIFlashTransition: the first image blows out to `color` in a flash that grows
    /// from `center` with light rays (striations), then the second image fades in.
    public struct Flash: Sendable, Equatable {
        public var center: SIMD2<Double>? = nil
        public var extent: Extent? = nil
        /// Core Image's default colour (1, 0.8, 0.6).
        public var color = RGBColor(r: 1, g: 0.8, b: 0.6)
        /// How far the rays reach, as a multiple of the flash's core radius.
        public var maxStriationRadius = 2.58
        public var striationStrength = 0.5
        public var striationContrast = 1.375
        /// The share of the time the flash grows; the rest is the fade to the second image.
        public var fadeThreshold = 0.85
        public init() {}
    }

    /// CISwipeTransition: an edge at `angle` (radians, counter-clockwise from +x as
    /// on a screen, so π/2 swipes upwards) crosses the extent, leaving the second
    /// image behind it; a band `width` pixels wide behind the edge is tinted with
    /// `color` at `opacity` (0 by default: no tint).
    public struct Swipe: Sendable, Equatable {
        public var extent: Extent? = nil
        public var color = RGBColor.white
        public var angle = 0.0
        public var width = 300.0
        public var opacity = 0.0
        public init() {}
    }

    /// CIRippleTransition: a ring `width` pixels wide expands from `center`,
    /// displacing the image outwards by up to `scale` / 2 pixels (a negative scale
    /// pulls it inwards); the second image is left in its wake.
    public struct Ripple: Sendable, Equatable {
        public var center: SIMD2<Double>? = nil
        public var extent: Extent? = nil
        public var width = 100.0
        public var scale = 50.0
        public init() {}
    }

    /// A rectangle in canvas pixels.
    public struct Extent: Sendable, Equatable {
        public var x: Double, y: Double, width: Double, height: Double
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x; self.y = y; self.width = width; self.height = height
        }
    }

    /// The transition's frame at `time` from `first` to `second` (the same size), into `out`.
    public func render(from first: Image<RGBA8>, to second: Image<RGBA8>, time: Double, into out: inout Image<RGBA8>) {
        switch self {
        case .dissolve: Transitions.dissolve(first, second, time: time, into: &out)
        case .flash(let f): Transitions.flash(first, second, time: time, flash: f, into: &out)
        case .swipe(let s): Transitions.swipe(first, second, time: time, swipe: s, into: &out)
        case .ripple(let r): Transitions.ripple(first, second, time: time, ripple: r, into: &out)
        }
    }
}

/// The transitions' pixel loops. Each mixes in premultiplied alpha: a transparent
/// pixel's colour never bleeds into the mix, and a half-transparent title fades as
/// Core Image (which works premultiplied) would fade it.
public enum Transitions {
    /// A linear cross-fade: (1 − t)·first + t·second.
    public static func dissolve(_ first: Image<RGBA8>, _ second: Image<RGBA8>, time: Double,
                                into out: inout Image<RGBA8>) {
        if copyEndpoint(first, second, time: time, into: &out) { return }
        let w = Float(time)
        forEachRow(first, second, &out) { _, a, b, o, width in
            for x in 0..<width { o[x] = mix(a[x], b[x], w) }
        }
    }

    /// CIFlashTransition. Up to `fadeThreshold` the flash grows: a core that reaches
    /// the extent's farthest corner, rays from the centre out to `maxStriationRadius`
    /// times the core, and at the end the whole extent in the flash colour (the
    /// peak). After it, the peak fades into the second image. Outside the extent,
    /// the titles dissolve.
    public static func flash(_ first: Image<RGBA8>, _ second: Image<RGBA8>, time: Double, flash: Transition.Flash,
                             into out: inout Image<RGBA8>) {
        if copyEndpoint(first, second, time: time, into: &out) { return }
        let area = Area(flash.extent, center: flash.center, width: first.width, height: first.height)
        let color = RGBA8(opaque: flash.color)
        let threshold = flash.fadeThreshold
        // s: how far the flash has grown (1 at the peak); u: how far the fade to the second image has gone.
        let s = Float(threshold > 0 ? min(time / threshold, 1) : 1)
        let u = Float(time > threshold ? (time - threshold) / max(1 - threshold, 1e-9) : 0)
        let fade = u * u * (3 - 2 * u)
        let blowOut = smoothstep(0.55, 1, s)
        let rayReach = Float(max(flash.maxStriationRadius, 1e-6))
        // The rays' strength at each of `rayAngles` angles: the pattern, sharpened by the contrast.
        let strength = Float(flash.striationStrength), contrast = Float(flash.striationContrast)
        let rays = (0..<rayAngles).map { k -> Float in
            let n = striation(Float(k) / Float(rayAngles) * 2 * Float.pi - Float.pi)
            return strength * min(max(0.5 + (n - 0.5) * (1 + contrast), 0), 1)
        }
        // Past `lit` (in units of the reach) neither the core nor a ray reaches: the flash is `blowOut` there.
        let lit = max(s, rayReach * s, 1e-6)
        let litSquared = lit * lit * area.reach * area.reach
        let perReach = 1 / area.reach, perCore = 1 / max(s, 1e-6), perRay = 1 / max(rayReach * s, 1e-6)
        let perAngle = Float(rayAngles) / (2 * Float.pi)
        rays.withUnsafeBufferPointer { rays in
            forEachPixel(first, second, &out, area: area, time: time) { x, y, a, b in
                let dx = Float(x) + 0.5 - area.cx, dy = Float(y) + 0.5 - area.cy
                let squared = dx * dx + dy * dy
                var amount = blowOut
                if blowOut < 1 && squared < litSquared {
                    // The core: full at the centre, gone at radius s; the rays fade out to rayReach · s.
                    let d = squared.squareRoot() * perReach
                    let core = max(0, 1 - d * perCore)
                    let k = Int((fastAtan2(dy, dx) + Float.pi) * perAngle) & (rayAngles - 1)
                    let ray = rays[k] * max(0, 1 - d * perRay)
                    amount = min(1, core * core * (3 - 2 * core) + ray + blowOut)
                }
                let peak = mix(a, color, amount)
                return fade > 0 ? mix(peak, b, fade) : peak
            }
        }
    }

    /// CISwipeTransition. The edge's position along the swipe's direction runs from
    /// the extent's near side (t = 0) to its far side plus the band (t = 1), so that
    /// the band has left the extent at the end. Outside the extent, the titles dissolve.
    public static func swipe(_ first: Image<RGBA8>, _ second: Image<RGBA8>, time: Double, swipe: Transition.Swipe,
                             into out: inout Image<RGBA8>) {
        if copyEndpoint(first, second, time: time, into: &out) { return }
        let area = Area(swipe.extent, center: nil, width: first.width, height: first.height)
        let (dx, dy) = (Float(cos(swipe.angle)), Float(-sin(swipe.angle)))
        let (near, far) = area.projectionRange(dx, dy)
        let band = Float(max(swipe.width, 1e-3))
        let edge = near + Float(time) * (far - near + band)
        let tint = RGBA8(opaque: swipe.color), opacity = Float(swipe.opacity)
        forEachPixel(first, second, &out, area: area, time: time) { x, y, a, b in
            let along = (Float(x) + 0.5) * dx + (Float(y) + 0.5) * dy
            // Behind the edge (along < edge) is the second image; one pixel of anti-aliasing.
            let behind = min(max(edge - along + 0.5, 0), 1)
            var p = behind >= 1 ? b : behind <= 0 ? a : mix(a, b, behind)
            if opacity > 0 && along < edge && along > edge - band {
                p = mix(p, tint, opacity * (1 - (edge - along) / band))
            }
            return p
        }
    }

    /// CIRippleTransition without its optional shading image. The ring's middle
    /// runs from −width/2 (t = 0) to the extent's farthest corner plus width/2
    /// (t = 1). Across the ring a pixel shows the images sampled `scale`/2 · sin(πx)
    /// pixels nearer the centre (x: 0 at the ring's inner side, 1 at its outer), so
    /// what lies under the ring is pushed outwards, and the second image takes over
    /// from the first from its outer side to its inner. Inside the ring is the second
    /// image, outside it the first; outside the extent the titles dissolve.
    public static func ripple(_ first: Image<RGBA8>, _ second: Image<RGBA8>, time: Double, ripple: Transition.Ripple,
                              into out: inout Image<RGBA8>) {
        if copyEndpoint(first, second, time: time, into: &out) { return }
        let area = Area(ripple.extent, center: ripple.center, width: first.width, height: first.height)
        let ring = Float(max(ripple.width, 1e-3))
        let middle = -ring / 2 + Float(time) * (area.reach + ring)
        let inner = middle - ring / 2
        let scale = Float(ripple.scale)
        let width = first.width, height = first.height
        first.withUnsafeBufferPointer { whole1 in
            second.withUnsafeBufferPointer { whole2 in
                forEachPixel(first, second, &out, area: area, time: time) { x, y, a, b in
                    let dx = Float(x) + 0.5 - area.cx, dy = Float(y) + 0.5 - area.cy
                    let d = (dx * dx + dy * dy).squareRoot()
                    let across = (d - inner) / ring
                    if across >= 1 { return a }
                    if across <= 0 { return b }
                    let push = scale / 2 * sinf(Float.pi * across)
                    let k = d > 0 ? (d - push) / d : 1
                    let sx = area.cx + dx * k - 0.5, sy = area.cy + dy * k - 0.5
                    let p = sample(whole1, width, height, sx, sy)
                    let q = sample(whole2, width, height, sx, sy)
                    let w = 1 - across
                    return straight(p + (q - p) * (w * w * (3 - 2 * w)))
                }
            }
        }
    }

    // MARK: - Helpers

    /// At t ≤ 0 the first image and at t ≥ 1 the second, copied exactly; true when it did.
    static func copyEndpoint(_ first: Image<RGBA8>, _ second: Image<RGBA8>, time: Double,
                             into out: inout Image<RGBA8>) -> Bool {
        precondition(first.width == second.width && first.height == second.height
                     && out.width == first.width && out.height == first.height,
                     "a transition's images must have one size: \(first.width)×\(first.height), \(second.width)×\(second.height), \(out.width)×\(out.height)")
        if time <= 0 { out = first; return true }
        if time >= 1 || time.isNaN { out = second; return true }
        return false
    }

    /// Runs `body(y, firstRow, secondRow, outRow, width)` for every row, in bands on every core.
    static func forEachRow(_ first: Image<RGBA8>, _ second: Image<RGBA8>, _ out: inout Image<RGBA8>,
                           _ body: (Int, UnsafePointer<RGBA8>, UnsafePointer<RGBA8>, UnsafeMutablePointer<RGBA8>, Int) -> Void) {
        let width = first.width
        first.withUnsafeBufferPointer { a in
            second.withUnsafeBufferPointer { b in
                out.withUnsafeMutableBufferPointer { o in
                    guard let a = a.baseAddress, let b = b.baseAddress, let o = o.baseAddress else { return }
                    parallelBands(first.height, minimumBand: 8) { rows in
                        for y in rows { body(y, a + y * width, b + y * width, o + y * width, width) }
                    }
                }
            }
        }
    }

    /// Sets every pixel of `out`: inside `area` to `inside(x, y, first's pixel, second's
    /// pixel)`, outside it to the two titles dissolved at `time`.
    @inline(__always)
    static func forEachPixel(_ first: Image<RGBA8>, _ second: Image<RGBA8>, _ out: inout Image<RGBA8>, area: Area,
                             time: Double, _ inside: (Int, Int, RGBA8, RGBA8) -> RGBA8) {
        let outside = Float(time)
        forEachRow(first, second, &out) { y, a, b, o, width in
            for x in 0..<width {
                o[x] = area.contains(x, y) ? inside(x, y, a[x], b[x]) : mix(a[x], b[x], outside)
            }
        }
    }

    /// `p` and `q` mixed in premultiplied alpha, `w` of the way to `q`.
    @inline(__always)
    static func mix(_ p: RGBA8, _ q: RGBA8, _ w: Float) -> RGBA8 {
        if w <= 0 { return p }
        if w >= 1 { return q }
        if p.a == 255 && q.a == 255 {
            // Opaque over opaque: integer arithmetic with the weight in 1/65536ths.
            let k = UInt32(w * 65536 + 0.5), j = 65536 - k
            @inline(__always) func lerp(_ f: UInt8, _ g: UInt8) -> UInt8 {
                UInt8(truncatingIfNeeded: (UInt32(f) * j + UInt32(g) * k + 32768) >> 16)
            }
            return RGBA8(r: lerp(p.r, q.r), g: lerp(p.g, q.g), b: lerp(p.b, q.b), a: 255)
        }
        let a = premultiplied(p), b = premultiplied(q)
        return straight(a + (b - a) * w)
    }

    /// (r·a, g·a, b·a, a) in 0…255.
    @inline(__always)
    static func premultiplied(_ p: RGBA8) -> SIMD4<Float> {
        let a = Float(p.a) / 255
        return SIMD4(Float(p.r) * a, Float(p.g) * a, Float(p.b) * a, Float(p.a))
    }

    /// A premultiplied colour back to a straight-alpha pixel, rounded.
    @inline(__always)
    static func straight(_ v: SIMD4<Float>) -> RGBA8 {
        let alpha = min(max(v.w, 0), 255)
        guard alpha >= 0.5 else { return .clear }
        let k = 255 / alpha
        @inline(__always) func byte(_ c: Float) -> UInt8 { UInt8(min(max(c * k, 0), 255) + 0.5) }
        return RGBA8(r: byte(v.x), g: byte(v.y), b: byte(v.z), a: UInt8(alpha + 0.5))
    }

    /// Bilinear sample (premultiplied) at pixel coordinates (x, y), the edges extended.
    @inline(__always)
    static func sample(_ image: UnsafeBufferPointer<RGBA8>, _ width: Int, _ height: Int,
                       _ x: Float, _ y: Float) -> SIMD4<Float> {
        let fx = min(max(x, 0), Float(width - 1)), fy = min(max(y, 0), Float(height - 1))
        let x0 = Int(fx), y0 = Int(fy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let tx = fx - Float(x0), ty = fy - Float(y0)
        let top = premultiplied(image[y0 * width + x0]) * (1 - tx) + premultiplied(image[y0 * width + x1]) * tx
        let bottom = premultiplied(image[y1 * width + x0]) * (1 - tx) + premultiplied(image[y1 * width + x1]) * tx
        return top * (1 - ty) + bottom * ty
    }

    /// How many angles the flash's rays are tabulated at (a power of two).
    static let rayAngles = 4096

    /// atan2(y, x) to within 1e-5 radians, several times faster than `atan2f`.
    @inline(__always)
    static func fastAtan2(_ y: Float, _ x: Float) -> Float {
        let ax = abs(x), ay = abs(y)
        let a = min(ax, ay) / max(max(ax, ay), 1e-30)
        let q = a * a
        var r = ((-0.0464964749 * q + 0.15931422) * q - 0.327622764) * q * a + a
        if ay > ax { r = Float.pi / 2 - r }
        if x < 0 { r = Float.pi - r }
        return y < 0 ? -r : r
    }

    /// The flash's rays: a fixed pattern of the angle in 0…1 (sines of whole
    /// frequencies, so it closes up at ±π).
    @inline(__always)
    static func striation(_ angle: Float) -> Float {
        let v = 0.5 * sinf(7 * angle + 1.3) + 0.3 * sinf(13 * angle + 0.4) + 0.2 * sinf(29 * angle + 2.1)
        return 0.5 + 0.5 * v
    }

    @inline(__always)
    static func smoothstep(_ lo: Float, _ hi: Float, _ x: Float) -> Float {
        let t = min(max((x - lo) / (hi - lo), 0), 1)
        return t * t * (3 - 2 * t)
    }

    /// The extent and centre in pixels, and the distance from the centre to the extent's farthest corner.
    struct Area {
        let x0: Float, y0: Float, x1: Float, y1: Float
        let cx: Float, cy: Float
        let reach: Float

        init(_ extent: Transition.Extent?, center: SIMD2<Double>?, width: Int, height: Int) {
            let e = extent ?? Transition.Extent(x: 0, y: 0, width: Double(width), height: Double(height))
            x0 = Float(e.x); y0 = Float(e.y); x1 = Float(e.x + e.width); y1 = Float(e.y + e.height)
            let c = center ?? SIMD2(e.x + e.width / 2, e.y + e.height / 2)
            let (cx, cy) = (Float(c.x), Float(c.y))
            self.cx = cx; self.cy = cy
            var farthest: Float = 1
            for (x, y) in [(x0, y0), (x1, y0), (x0, y1), (x1, y1)] {
                farthest = max(farthest, ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot())
            }
            reach = farthest
        }

        /// Whether pixel (x, y)'s centre lies inside.
        @inline(__always)
        func contains(_ x: Int, _ y: Int) -> Bool {
            let px = Float(x) + 0.5, py = Float(y) + 0.5
            return px >= x0 && px < x1 && py >= y0 && py < y1
        }

        /// The smallest and largest of the corners' positions along (dx, dy).
        func projectionRange(_ dx: Float, _ dy: Float) -> (Float, Float) {
            let p = [x0 * dx + y0 * dy, x1 * dx + y0 * dy, x0 * dx + y1 * dy, x1 * dx + y1 * dy]
            return (p.min() ?? 0, p.max() ?? 0)
        }
    }
}
