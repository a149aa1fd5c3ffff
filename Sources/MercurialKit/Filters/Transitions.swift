import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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
    /// For many frames of one transition, `prepared(width:height:)` once and render with that.
    public func render(from first: Image<RGBA8>, to second: Image<RGBA8>, time: Double, into out: inout Image<RGBA8>) {
        render(from: first, to: second, time: time, polar: nil, into: &out)
    }

    func render(from first: Image<RGBA8>, to second: Image<RGBA8>, time: Double, polar: Transitions.Polar?,
                into out: inout Image<RGBA8>) {
        switch self {
        case .dissolve: Transitions.dissolve(first, second, time: time, into: &out)
        case .flash(let f): Transitions.flash(first, second, time: time, flash: f, polar: polar, into: &out)
        case .swipe(let s): Transitions.swipe(first, second, time: time, swipe: s, into: &out)
        case .ripple(let r): Transitions.ripple(first, second, time: time, ripple: r, into: &out)
        }
    }

    /// This transition with what it reuses on every frame of a `width` × `height`
    /// canvas worked out once: for a flash, each pixel's distance from the centre and
    /// its ray's angle (6 bytes a pixel, only up to 3840 × 2160; larger canvases work
    /// them out row by row on every frame).
    public func prepared(width: Int, height: Int) -> Prepared {
        var polar: Transitions.Polar? = nil
        if case .flash(let f) = self {
            polar = Transitions.Polar(Transitions.Area(f.extent, center: f.center, width: width, height: height),
                                      width: width, height: height)
        }
        return Prepared(transition: self, polar: polar)
    }

    /// A transition ready to render many frames of one canvas size (see `prepared(width:height:)`).
    /// Immutable once made, so it may be shared.
    public struct Prepared: Sendable {
        public let transition: Transition
        let polar: Transitions.Polar?

        /// The same frame as `transition.render`, from the tables when they fit the images.
        public func render(from first: Image<RGBA8>, to second: Image<RGBA8>, time: Double, into out: inout Image<RGBA8>) {
            transition.render(from: first, to: second, time: time, polar: polar, into: &out)
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
        self.flash(first, second, time: time, flash: flash, polar: nil, into: &out)
    }

    /// The flash, with each pixel's distance and angle taken from `polar` when it was made for this canvas.
    static func flash(_ first: Image<RGBA8>, _ second: Image<RGBA8>, time: Double, flash: Transition.Flash,
                      polar: Polar?, into out: inout Image<RGBA8>) {
        if copyEndpoint(first, second, time: time, into: &out) { return }
        let area = Area(flash.extent, center: flash.center, width: first.width, height: first.height)
        let polar = polar.flatMap { $0.fits(area, first.width, first.height) ? $0 : nil }
        let color = RGBA8(opaque: flash.color)
        let threshold = flash.fadeThreshold
        // s: how far the flash has grown (1 at the peak); u: how far the fade to the second image has gone.
        let s = Float(threshold > 0 ? min(time / threshold, 1) : 1)
        let u = Float(time > threshold ? (time - threshold) / max(1 - threshold, 1e-9) : 0)
        let fade = u * u * (3 - 2 * u)
        // The fade only starts once the flash has grown (s = 1, so blowOut = 1): until then a pixel
        // is the first image mixed towards the colour, after it the colour mixed towards the second.
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
        let perCore = 1 / max(s, 1e-6), perRay = 1 / max(rayReach * s, 1e-6)
        let width = first.width
        rays.withUnsafeBufferPointer { rays in
            Polar.withRows(polar) { distances, angles in
                forEachRow(in: area, first, second, &out, time: time) { y, a, b, o, columns in
                    if blowOut >= 1 {
                        for x in columns { o[x] = fade > 0 ? mix(color, b[x], fade) : color }
                        return
                    }
                    // Only pixels within `lit` of the centre need their distance and angle.
                    let dy = Float(y) + 0.5 - area.cy
                    let near = circleCover(litSquared.squareRoot(), dy: dy, cx: area.cx, width: width).clamped(to: columns)
                    @inline(__always) func beyond(_ xs: Range<Int>) {
                        if blowOut > 0 { for x in xs { o[x] = mix(a[x], color, blowOut) } } else { copy(a, o, xs) }
                    }
                    beyond(columns.lowerBound..<near.lowerBound)
                    beyond(near.upperBound..<columns.upperBound)
                    if near.isEmpty { return }
                    @inline(__always) func shade(_ d: UnsafePointer<Float>, _ k: UnsafePointer<UInt16>) {
                        for x in near {
                            let dx = Float(x) + 0.5 - area.cx
                            var amount = blowOut
                            if dx * dx + dy * dy < litSquared {
                                // The core: full at the centre, gone at radius s; the rays fade out to rayReach · s.
                                let core = max(0, 1 - d[x] * perCore)
                                let ray = rays[Int(k[x])] * max(0, 1 - d[x] * perRay)
                                amount = min(1, core * core * (3 - 2 * core) + ray + blowOut)
                            }
                            o[x] = mix(a[x], color, amount)
                        }
                    }
                    if let distances, let angles {
                        shade(distances + y * width, angles + y * width)
                    } else {
                        // No table (a one-off frame, or a canvas too large for one): this row's, for `near` only.
                        withUnsafeTemporaryAllocation(of: Float.self, capacity: width) { d in
                            withUnsafeTemporaryAllocation(of: UInt16.self, capacity: width) { k in
                                guard let d = d.baseAddress, let k = k.baseAddress else { return }
                                Polar.fillRow(y, near, area, d, k)
                                shade(d, k)
                            }
                        }
                    }
                }
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
        forEachRow(in: area, first, second, &out, time: time) { y, a, b, o, columns in
            let across = (Float(y) + 0.5) * dy
            for x in columns {
                let along = (Float(x) + 0.5) * dx + across
                // Behind the edge (along < edge) is the second image; one pixel of anti-aliasing.
                let behind = min(max(edge - along + 0.5, 0), 1)
                var p = behind >= 1 ? b[x] : behind <= 0 ? a[x] : mix(a[x], b[x], behind)
                if opacity > 0 && along < edge && along > edge - band {
                    p = mix(p, tint, opacity * (1 - (edge - along) / band))
                }
                o[x] = p
            }
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
                forEachRow(in: area, first, second, &out, time: time) { y, a, b, o, columns in
                    // Outside the ring's outer side the first image, inside its inner side the second:
                    // copied. Only the pixels near the ring (`ringed`, less the `within` part) are sampled.
                    let dy = Float(y) + 0.5 - area.cy
                    let ringed = circleCover(inner + ring, dy: dy, cx: area.cx, width: width).clamped(to: columns)
                    let within = circleInterior(inner, dy: dy, cx: area.cx, width: width).clamped(to: ringed)
                    copy(a, o, columns.lowerBound..<ringed.lowerBound)
                    copy(a, o, ringed.upperBound..<columns.upperBound)
                    copy(b, o, within)
                    @inline(__always) func sampleRing(_ xs: Range<Int>) {
                        for x in xs {
                            let dx = Float(x) + 0.5 - area.cx
                            let d = (dx * dx + dy * dy).squareRoot()
                            let across = (d - inner) / ring
                            if across >= 1 { o[x] = a[x]; continue }
                            if across <= 0 { o[x] = b[x]; continue }
                            let push = scale / 2 * sinf(Float.pi * across)
                            let k = d > 0 ? (d - push) / d : 1
                            let sx = area.cx + dx * k - 0.5, sy = area.cy + dy * k - 0.5
                            let p = sample(whole1, width, height, sx, sy)
                            let q = sample(whole2, width, height, sx, sy)
                            let w = 1 - across
                            o[x] = straight(p + (q - p) * (w * w * (3 - 2 * w)))
                        }
                    }
                    sampleRing(ringed.lowerBound..<within.lowerBound)
                    sampleRing(within.upperBound..<ringed.upperBound)
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

    /// Runs `inside(y, firstRow, secondRow, outRow, columns)` for every row that crosses
    /// `area`, with the columns inside it (in bands on every core); every pixel outside
    /// `area` is set to the two titles dissolved at `time`.
    static func forEachRow(in area: Area, _ first: Image<RGBA8>, _ second: Image<RGBA8>, _ out: inout Image<RGBA8>,
                           time: Double,
                           _ inside: (Int, UnsafePointer<RGBA8>, UnsafePointer<RGBA8>, UnsafeMutablePointer<RGBA8>, Range<Int>) -> Void) {
        let outside = Float(time)
        let rows = area.rows(first.height), columns = area.columns(first.width)
        forEachRow(first, second, &out) { y, a, b, o, width in
            guard rows.contains(y), !columns.isEmpty else { return dissolveRow(a, b, o, 0..<width, outside) }
            dissolveRow(a, b, o, 0..<columns.lowerBound, outside)
            dissolveRow(a, b, o, columns.upperBound..<width, outside)
            inside(y, a, b, o, columns)
        }
    }

    /// Row `o`'s pixels in `xs`: rows `a` and `b` dissolved, `w` of the way to `b`.
    @inline(__always)
    static func dissolveRow(_ a: UnsafePointer<RGBA8>, _ b: UnsafePointer<RGBA8>, _ o: UnsafeMutablePointer<RGBA8>,
                            _ xs: Range<Int>, _ w: Float) {
        for x in xs { o[x] = mix(a[x], b[x], w) }
    }

    /// Row `o`'s pixels in `xs` copied from row `a`.
    @inline(__always)
    static func copy(_ a: UnsafePointer<RGBA8>, _ o: UnsafeMutablePointer<RGBA8>, _ xs: Range<Int>) {
        if !xs.isEmpty { (o + xs.lowerBound).update(from: a + xs.lowerBound, count: xs.count) }
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
        // Clear and opaque pixels (most of a title's) take the same values the general case
        // below gives them, without the division: the opaque one's colour at the mixed alpha.
        if p.a == 0 && q.a == 0 { return .clear }
        if p.a == 0 && q.a == 255 { return atAlpha(q, 255 * w) }
        if p.a == 255 && q.a == 0 { return atAlpha(p, 255 + (0 - 255) * w) }
        let a = premultiplied(p), b = premultiplied(q)
        return straight(a + (b - a) * w)
    }

    /// Opaque `p`'s colour at `alpha` (0…255), as `straight` rounds it.
    @inline(__always)
    static func atAlpha(_ p: RGBA8, _ alpha: Float) -> RGBA8 {
        alpha >= 0.5 ? RGBA8(r: p.r, g: p.g, b: p.b, a: UInt8(min(alpha, 255) + 0.5)) : .clear
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

    /// Columns `0..<width` that may hold a pixel (centre x + 0.5) within `radius` of
    /// (`cx`, the row at `dy` from the centre): every pixel outside them is surely farther
    /// (by 2 pixels of margin, so a pixel's own test decides the edge).
    static func circleCover(_ radius: Float, dy: Float, cx: Float, width: Int) -> Range<Int> {
        let r = radius + 2
        let h2 = r * r - dy * dy
        guard radius.isFinite, radius > -2, h2 > 0 else { return 0..<0 }
        let h = h2.squareRoot()
        return column(cx - h - 0.5, width, -1)..<column(cx + h - 0.5, width, 2)
    }

    /// Columns `0..<width` whose pixels all lie surely nearer than `radius` (by 2 pixels
    /// of margin) to (`cx`, the row at `dy` from the centre); empty when there are none.
    static func circleInterior(_ radius: Float, dy: Float, cx: Float, width: Int) -> Range<Int> {
        let r = radius - 2
        let h2 = r * r - dy * dy
        guard r.isFinite, r > 0, h2 > 0 else { return 0..<0 }
        let h = h2.squareRoot()
        let lo = column(cx - h - 0.5, width, 2), hi = column(cx + h - 0.5, width, -1)
        return lo < hi ? lo..<hi : 0..<0
    }

    /// `x`'s whole part plus `offset`, within 0…`width`.
    @inline(__always)
    static func column(_ x: Float, _ width: Int, _ offset: Int) -> Int {
        // A NaN (a NaN centre) widens a cover to the whole row and empties an interior.
        guard !x.isNaN else { return offset < 0 ? 0 : width }
        let f = x.rounded(.down)
        let c = f < -4 ? -4 : f > Float(width) + 4 ? width + 4 : Int(f)
        return min(max(c + offset, 0), width)
    }

    /// Each pixel's distance from a flash's centre (in reaches) and its ray's index
    /// (0..<`rayAngles`), worked out once for many frames of one canvas.
    struct Polar: Sendable {
        let width: Int, height: Int
        let cx: Float, cy: Float, reach: Float
        let distances: [Float]
        let angles: [UInt16]
        /// The largest canvas tabulated (3840 × 2160, 50 MB); larger ones work rows out per frame.
        static let maximumPixels = 3840 * 2160

        init?(_ area: Area, width: Int, height: Int) {
            let count = width * height
            guard count > 0, count <= Self.maximumPixels else { return nil }
            self.width = width; self.height = height
            cx = area.cx; cy = area.cy; reach = area.reach
            // Every element is written by `fillRow`, so the arrays start uninitialised.
            var angles: [UInt16] = []
            distances = [Float](unsafeUninitializedCapacity: count) { d, dCount in
                angles = [UInt16](unsafeUninitializedCapacity: count) { k, kCount in
                    if let d = d.baseAddress, let k = k.baseAddress {
                        parallelBands(height, minimumBand: 8) { rows in
                            for y in rows { Self.fillRow(y, 0..<width, area, d + y * width, k + y * width) }
                        }
                    }
                    kCount = count
                }
                dCount = count
            }
            self.angles = angles
        }

        /// Whether this table was made for `area` on a `width` × `height` canvas.
        func fits(_ area: Area, _ width: Int, _ height: Int) -> Bool {
            self.width == width && self.height == height && cx == area.cx && cy == area.cy && reach == area.reach
        }

        /// Row `y`'s distances and ray indices for the columns `xs`, into `d` and `k` (indexed by x).
        @inline(__always)
        static func fillRow(_ y: Int, _ xs: Range<Int>, _ area: Area,
                            _ d: UnsafeMutablePointer<Float>, _ k: UnsafeMutablePointer<UInt16>) {
            let dy = Float(y) + 0.5 - area.cy
            let perReach = 1 / area.reach, perAngle = Float(rayAngles) / (2 * Float.pi)
            for x in xs {
                let dx = Float(x) + 0.5 - area.cx
                d[x] = (dx * dx + dy * dy).squareRoot() * perReach
                k[x] = UInt16(truncatingIfNeeded: Int((fastAtan2(dy, dx) + Float.pi) * perAngle) & (rayAngles - 1))
            }
        }

        /// `body` with the table's base pointers, or with nil for no table.
        static func withRows(_ polar: Polar?, _ body: (UnsafePointer<Float>?, UnsafePointer<UInt16>?) -> Void) {
            guard let polar else { return body(nil, nil) }
            polar.distances.withUnsafeBufferPointer { d in
                polar.angles.withUnsafeBufferPointer { k in body(d.baseAddress, k.baseAddress) }
            }
        }
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

        /// The rows whose pixels' centres lie between y0 and y1 (as `contains` decides).
        func rows(_ height: Int) -> Range<Int> { Self.span(y0, y1, height) }

        /// The columns whose pixels' centres lie between x0 and x1 (as `contains` decides).
        func columns(_ width: Int) -> Range<Int> { Self.span(x0, x1, width) }

        /// The i in 0..<n with lo ≤ i + 0.5 < hi.
        static func span(_ lo: Float, _ hi: Float, _ n: Int) -> Range<Int> {
            guard !lo.isNaN, !hi.isNaN else { return 0..<0 }
            let start = first(atLeast: lo, n), end = first(atLeast: hi, n)
            return start < end ? start..<end : 0..<0
        }

        /// The first i in 0...n with i + 0.5 ≥ bound (n when there is none).
        static func first(atLeast bound: Float, _ n: Int) -> Int {
            let guess = (bound - 0.5).rounded(.up)
            var i = guess <= 0 ? 0 : guess >= Float(n) ? n : Int(guess)
            while i > 0 && Float(i - 1) + 0.5 >= bound { i -= 1 }
            while i < n && !(Float(i) + 0.5 >= bound) { i += 1 }
            return i
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
