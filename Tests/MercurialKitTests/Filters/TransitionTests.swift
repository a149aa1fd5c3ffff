import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Two test "titles" of one size: the first reddish, the second bluish, each with
/// opaque, half-transparent and clear pixels (and a clear pixel whose colour is not
/// black, which must never show).
func transitionPair(width: Int = 96, height: Int = 48) -> (Image<RGBA8>, Image<RGBA8>) {
    var a = Image(width: width, height: height, repeating: RGBA8.clear)
    var b = a
    for y in 0..<height {
        for x in 0..<width {
            let alphaA: UInt8 = x % 7 == 0 ? 0 : (y % 5 == 0 ? 128 : 255)
            let alphaB: UInt8 = y % 6 == 0 ? 0 : (x % 4 == 0 ? 64 : 255)
            a[x, y] = RGBA8(r: 200, g: UInt8(x * 255 / width), b: 30, a: alphaA)
            b[x, y] = RGBA8(r: 20, g: UInt8(y * 255 / height), b: 220, a: alphaB)
            if alphaA == 0 { a[x, y] = RGBA8(r: 250, g: 250, b: 0, a: 0) }
        }
    }
    return (a, b)
}

func premultiplied(_ p: RGBA8) -> SIMD4<Double> {
    let a = Double(p.a) / 255
    return SIMD4(Double(p.r) * a, Double(p.g) * a, Double(p.b) * a, Double(p.a))
}

struct TransitionTests {
    static let all: [(String, Transition)] = {
        var flash = Transition.Flash()
        flash.color = RGBColor(r: 1, g: 1, b: 1)
        var swipe = Transition.Swipe()
        swipe.angle = 0.7
        swipe.width = 20
        swipe.opacity = 0.5
        var ripple = Transition.Ripple()
        ripple.width = 30
        ripple.scale = 20
        var extentFlash = Transition.Flash()
        extentFlash.extent = Transition.Extent(x: 10, y: 5, width: 40, height: 30)
        return [("dissolve", .dissolve), ("flash", .flash(flash)), ("swipe", .swipe(swipe)), ("ripple", .ripple(ripple)),
                ("flash with an extent", .flash(extentFlash)), ("default swipe", .swipe(Transition.Swipe())),
                ("default ripple", .ripple(Transition.Ripple()))]
    }()

    func run(_ t: Transition, _ a: Image<RGBA8>, _ b: Image<RGBA8>, _ time: Double) -> Image<RGBA8> {
        var out = Image(width: a.width, height: a.height, repeating: RGBA8.clear)
        t.render(from: a, to: b, time: time, into: &out)
        return out
    }

    @Test(arguments: all.indices)
    func endpointsAreTheTitlesExactly(_ i: Int) {
        let (name, t) = Self.all[i]
        let (a, b) = transitionPair()
        let atStart = run(t, a, b, 0).pixels == a.pixels, atEnd = run(t, a, b, 1).pixels == b.pixels
        #expect(atStart, "\(name) at t = 0 is the first title")
        #expect(atEnd, "\(name) at t = 1 is the second title")
        // Just inside the ends, nearly the titles (no jump at either end): the mean difference is small.
        for (time, target) in [(0.001, a), (0.999, b)] {
            let out = run(t, a, b, time)
            var total = 0.0
            for (p, q) in zip(out.pixels, target.pixels) {
                let d = premultiplied(p) - premultiplied(q)
                total += abs(d.x) + abs(d.y) + abs(d.z) + abs(d.w)
            }
            #expect(total / Double(out.count * 4) < 4, "\(name) at t = \(time): mean difference \(total / Double(out.count * 4))")
        }
    }

    @Test func dissolveAtHalfIsThePremultipliedAverage() {
        let (a, b) = transitionPair()
        let out = run(.dissolve, a, b, 0.5)
        var worst = 0.0
        for i in 0..<out.count {
            let expected = (premultiplied(a.pixels[i]) + premultiplied(b.pixels[i])) / 2
            let d = premultiplied(out.pixels[i]) - expected
            worst = max(worst, abs(d.x), abs(d.y), abs(d.z), abs(d.w))
        }
        #expect(worst <= 1, "largest difference from the average: \(worst)")
        // Opaque over opaque: the plain average of the colours, ±1.
        let i = 1 * a.width + 1   // x = 1, y = 1: both opaque
        #expect(a.pixels[i].a == 255 && b.pixels[i].a == 255)
        let p = out.pixels[i]
        #expect(abs(Int(p.r) - (Int(a.pixels[i].r) + Int(b.pixels[i].r)) / 2) <= 1)
        #expect(abs(Int(p.b) - (Int(a.pixels[i].b) + Int(b.pixels[i].b)) / 2) <= 1)
        // A clear pixel's (yellow) colour does not bleed in: the result is the other pixel's colour at half alpha.
        let j = 0 * a.width + 7   // x = 7: clear in the first, y = 0: clear in the second too
        let k = 1 * a.width + 7   // x = 7, y = 1: clear in the first, opaque in the second
        #expect(out.pixels[j].a == 0)
        #expect(same(out.pixels[k], RGBA8(r: b.pixels[k].r, g: b.pixels[k].g, b: b.pixels[k].b, a: 128)))
    }

    @Test func swipeAtHalfSplitsTheCanvasAtTheExpectedLine() {
        let (a, b) = transitionPair()
        var swipe = Transition.Swipe()
        swipe.width = 16
        // Angle 0 swipes left to right: the edge is at 0 + 0.5 · (96 + 16) = 56.
        let out = run(.swipe(swipe), a, b, 0.5)
        for y in 0..<a.height {
            for x in 0..<a.width where x < 55 || x > 56 {
                let expected = x < 55 ? b[x, y] : a[x, y]
                if out[x, y] != expected { Issue.record("(\(x), \(y)): \(out[x, y]) ≠ \(expected)"); return }
            }
        }
        // π/2 swipes upwards: the edge is at y = 48 − 0.5 · (48 + 16) = 16, the second title below it.
        swipe.angle = Double.pi / 2
        let up = run(.swipe(swipe), a, b, 0.5)
        for y in 0..<a.height where y < 15 || y > 16 {
            for x in 0..<a.width {
                let expected = y > 16 ? b[x, y] : a[x, y]
                if up[x, y] != expected { Issue.record("(\(x), \(y)): \(up[x, y]) ≠ \(expected)"); return }
            }
        }
    }

    @Test func swipeBandTintsBehindTheEdge() {
        let black = Image(width: 96, height: 8, repeating: RGBA8(r: 0, g: 0, b: 0, a: 255))
        var swipe = Transition.Swipe()
        swipe.width = 16
        swipe.opacity = 1
        swipe.color = .white
        let out = run(.swipe(swipe), black, black, 0.5)   // edge at x = 56
        #expect(out[55, 4].r > 230, "just behind the edge: nearly the band's colour, \(out[55, 4])")
        #expect(out[48, 4].r > 100 && out[48, 4].r < 155, "half way across the band: half tinted, \(out[48, 4])")
        #expect(out[30, 4].r == 0 && out[60, 4].r == 0, "outside the band: untouched")
    }

    @Test func flashAtItsPeakIsTheFlashColourAndGrowsFromTheCentre() {
        let (a, b) = transitionPair()
        var flash = Transition.Flash()   // Core Image's defaults: colour (1, 0.8, 0.6), fade threshold 0.85
        let colour = RGBA8(r: 255, g: 204, b: 153, a: 255)
        let peak = run(.flash(flash), a, b, flash.fadeThreshold)
        #expect(peak[48, 24] == colour, "centre at the peak: \(peak[48, 24])")
        #expect(peak[2, 2] == colour, "corner at the peak: \(peak[2, 2])")
        // Early on only the centre is lit: the centre is the flash colour, a corner still the first title.
        let early = run(.flash(flash), a, b, 0.1)
        #expect(early[48, 24] == colour)
        #expect(early[1, 1] == a[1, 1], "corner early: \(early[1, 1]) vs \(a[1, 1])")
        // The rays: at one radius, some angles are lit far more than others.
        let rays = run(.flash(flash), a, b, 0.35)
        let lit = (0..<72).map { k -> Int in
            let angle = Double(k) * .pi / 36
            let p = rays[48 + Int(30 * cos(angle)), 24 + Int(20 * sin(angle))]
            return Int(p.b)
        }
        #expect((lit.max() ?? 0) - (lit.min() ?? 0) > 60, "striations: blue channel around a ring \(lit)")
        // Half way through the fade: half flash colour, half the second title (premultiplied, ±2).
        flash.fadeThreshold = 0.5
        let fading = run(.flash(flash), a, b, 0.75)
        let i = 2 * a.width + 2
        let expected = (premultiplied(colour) + premultiplied(b.pixels[i])) / 2
        let d = premultiplied(fading.pixels[i]) - expected
        #expect(max(abs(d.x), abs(d.y), abs(d.z), abs(d.w)) <= 2, "\(fading.pixels[i]) vs \(expected)")
    }

    @Test func rippleDisplacesAPixelOutwards() {
        // A black canvas with one white column 20 px right of the centre; the second title is black.
        let width = 96, height = 48, cx = 48, column = cx + 20
        var a = Image(width: width, height: height, repeating: RGBA8(r: 0, g: 0, b: 0, a: 255))
        for y in 0..<height { a[column, y] = RGBA8(r: 255, g: 255, b: 255, a: 255) }
        let b = Image(width: width, height: height, repeating: RGBA8(r: 0, g: 0, b: 0, a: 255))
        var ripple = Transition.Ripple()
        ripple.width = 40
        ripple.scale = 20   // pushes by up to 10 px
        // The ring's inner side at the centre: its middle (20 px out) on the white column.
        let reach = (Double(cx * cx) + Double(24 * 24)).squareRoot()
        let out = run(.ripple(ripple), a, b, 40 / (reach + 40))
        let row = (cx..<width).map { out[$0, 24].r }
        let brightest = cx + (row.indices.max(by: { row[$0] < row[$1] }) ?? 0)
        #expect(brightest > column + 3 && brightest < column + 14, "the column shows at x = \(brightest), not \(column)")
        #expect(out[column, 24].r < 128, "where the column was: \(out[column, 24])")
        // A negative scale pulls it inwards.
        ripple.scale = -20
        let pulled = run(.ripple(ripple), a, b, 40 / (reach + 40))
        let row2 = (cx..<width).map { pulled[$0, 24].r }
        let brightest2 = cx + (row2.indices.max(by: { row2[$0] < row2[$1] }) ?? 0)
        #expect(brightest2 < column - 3, "pulled in: x = \(brightest2)")
    }
}

struct SequenceTimingTests {
    func sequence() -> TitleSequence {
        let s = RenderSettings()
        return TitleSequence(steps: [
            .init(settings: s, hold: 1, transition: .init(.dissolve, duration: 0.5)),
            .init(settings: s, hold: 2, transition: .init(.flash(Transition.Flash()), duration: 1)),
            .init(settings: s, hold: 0.5),
        ], fps: 30)
    }

    @Test func lengthAndFrameCount() {
        let s = sequence()
        #expect(s.duration == 5)   // holds 1 + 2 + 0.5, transitions 0.5 + 1
        #expect(s.frameCount == 150)
        var odd = s
        odd.fps = 24
        #expect(odd.frameCount == 120)
    }

    @Test func whatIsOnScreenWhen() {
        let s = sequence()
        #expect(s.moment(at: 0) == .title(step: 0, localTime: 0))
        #expect(s.moment(at: 0.5) == .title(step: 0, localTime: 0.5))
        #expect(s.moment(at: 1.25) == .transition(from: 0, progress: 0.5, fromTime: 1.25, toTime: 0.25))
        // Title 2 appeared when the dissolve began, at 1 s.
        #expect(s.moment(at: 1.5) == .title(step: 1, localTime: 0.5))
        #expect(s.moment(at: 3.49).rounded == .title(step: 1, localTime: 2.49))
        #expect(s.moment(at: 4) == .transition(from: 1, progress: 0.5, fromTime: 3, toTime: 0.5))
        #expect(s.moment(at: 4.6).rounded == .title(step: 2, localTime: 1.1))
        #expect(s.moment(at: 99) == .title(step: 2, localTime: 95.5))
    }

    @Test func transitionsFollowTheirTiming() {
        var s = sequence()
        s.steps[0].transition?.timing = .easeIn
        guard case .transition(_, let p, _, _) = s.moment(at: 1.25) else { Issue.record("not a transition"); return }
        #expect(abs(p - TimingFunction.easeIn.progress(0.5)) < 1e-12 && p < 0.4)
    }
}

extension TitleSequence.Moment {
    /// Times rounded to microseconds, for comparing sums of seconds.
    var rounded: TitleSequence.Moment {
        func r(_ v: Double) -> Double { (v * 1e6).rounded() / 1e6 }
        switch self {
        case let .title(step, t): return .title(step: step, localTime: r(t))
        case let .transition(from, p, a, b): return .transition(from: from, progress: r(p), fromTime: r(a), toTime: r(b))
        }
    }
}

/// The row-by-row flash and ripple (with and without their prepared tables) against a
/// plain per-pixel rendering of the same formulas, to within 1 per channel.
struct TransitionFastPathTests {
    /// Core Image's flash and ripple, one pixel at a time, as they were written before
    /// the row-by-row versions: the reference for them.
    enum Reference {
        static func mix(_ p: RGBA8, _ q: RGBA8, _ w: Float) -> RGBA8 {
            if w <= 0 { return p }
            if w >= 1 { return q }
            let a = Transitions.premultiplied(p), b = Transitions.premultiplied(q)
            return Transitions.straight(a + (b - a) * w)
        }

        static func render(_ first: Image<RGBA8>, _ second: Image<RGBA8>, _ area: Transitions.Area, time: Double,
                           _ inside: (Int, Int, RGBA8, RGBA8) -> RGBA8) -> Image<RGBA8> {
            var out = first
            for y in 0..<first.height {
                for x in 0..<first.width {
                    out[x, y] = area.contains(x, y) ? inside(x, y, first[x, y], second[x, y])
                                                    : mix(first[x, y], second[x, y], Float(time))
                }
            }
            return out
        }

        static func flash(_ first: Image<RGBA8>, _ second: Image<RGBA8>, time: Double, _ flash: Transition.Flash) -> Image<RGBA8> {
            let area = Transitions.Area(flash.extent, center: flash.center, width: first.width, height: first.height)
            let color = RGBA8(opaque: flash.color)
            let threshold = flash.fadeThreshold
            let s = Float(threshold > 0 ? min(time / threshold, 1) : 1)
            let u = Float(time > threshold ? (time - threshold) / max(1 - threshold, 1e-9) : 0)
            let fade = u * u * (3 - 2 * u)
            let blowOut = Transitions.smoothstep(0.55, 1, s)
            let rayReach = Float(max(flash.maxStriationRadius, 1e-6))
            let (strength, contrast) = (Float(flash.striationStrength), Float(flash.striationContrast))
            let lit = max(s, rayReach * s, 1e-6)
            return render(first, second, area, time: time) { x, y, a, b in
                let dx = Float(x) + 0.5 - area.cx, dy = Float(y) + 0.5 - area.cy
                let squared = dx * dx + dy * dy
                var amount = blowOut
                if blowOut < 1 && squared < lit * lit * area.reach * area.reach {
                    let d = squared.squareRoot() / area.reach
                    let core = max(0, 1 - d / max(s, 1e-6))
                    let n = Transitions.rayAngles
                    let k = Int((Transitions.fastAtan2(dy, dx) + Float.pi) * Float(n) / (2 * Float.pi)) & (n - 1)
                    let pattern = Transitions.striation(Float(k) / Float(n) * 2 * Float.pi - Float.pi)
                    let ray = strength * min(max(0.5 + (pattern - 0.5) * (1 + contrast), 0), 1)
                        * max(0, 1 - d / max(rayReach * s, 1e-6))
                    amount = min(1, core * core * (3 - 2 * core) + ray + blowOut)
                }
                let peak = mix(a, color, amount)
                return fade > 0 ? mix(peak, b, fade) : peak
            }
        }

        static func swipe(_ first: Image<RGBA8>, _ second: Image<RGBA8>, time: Double, _ swipe: Transition.Swipe) -> Image<RGBA8> {
            let area = Transitions.Area(swipe.extent, center: nil, width: first.width, height: first.height)
            let (dx, dy) = (Float(cos(swipe.angle)), Float(-sin(swipe.angle)))
            let (near, far) = area.projectionRange(dx, dy)
            let band = Float(max(swipe.width, 1e-3))
            let edge = near + Float(time) * (far - near + band)
            return render(first, second, area, time: time) { x, y, a, b in
                let along = (Float(x) + 0.5) * dx + (Float(y) + 0.5) * dy
                let behind = min(max(edge - along + 0.5, 0), 1)
                var p = behind >= 1 ? b : behind <= 0 ? a : mix(a, b, behind)
                if swipe.opacity > 0 && along < edge && along > edge - band {
                    p = mix(p, RGBA8(opaque: swipe.color), Float(swipe.opacity) * (1 - (edge - along) / band))
                }
                return p
            }
        }

        static func ripple(_ first: Image<RGBA8>, _ second: Image<RGBA8>, time: Double, _ ripple: Transition.Ripple) -> Image<RGBA8> {
            let area = Transitions.Area(ripple.extent, center: ripple.center, width: first.width, height: first.height)
            let ring = Float(max(ripple.width, 1e-3))
            let inner = -ring / 2 + Float(time) * (area.reach + ring) - ring / 2
            let (width, height) = (first.width, first.height)
            return first.withUnsafeBufferPointer { one in
                second.withUnsafeBufferPointer { two in
                    render(first, second, area, time: time) { x, y, a, b in
                        let dx = Float(x) + 0.5 - area.cx, dy = Float(y) + 0.5 - area.cy
                        let d = (dx * dx + dy * dy).squareRoot()
                        let across = (d - inner) / ring
                        if across >= 1 { return a }
                        if across <= 0 { return b }
                        let push = Float(ripple.scale) / 2 * sinf(Float.pi * across)
                        let k = d > 0 ? (d - push) / d : 1
                        let (sx, sy) = (area.cx + dx * k - 0.5, area.cy + dy * k - 0.5)
                        let p = Transitions.sample(one, width, height, sx, sy), q = Transitions.sample(two, width, height, sx, sy)
                        let w = 1 - across
                        return Transitions.straight(p + (q - p) * (w * w * (3 - 2 * w)))
                    }
                }
            }
        }
    }

    /// The largest difference in any channel, and where.
    func worst(_ out: Image<RGBA8>, _ expected: Image<RGBA8>) -> (Int, Int, Int) {
        var worst = (0, 0, 0)
        for y in 0..<out.height {
            for x in 0..<out.width {
                let p = out[x, y], q = expected[x, y]
                let d = max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)), abs(Int(p.a) - Int(q.a)))
                if d > worst.0 { worst = (d, x, y) }
            }
        }
        return worst
    }

    /// Every way `transition` renders (one-off, prepared for this canvas, prepared for another) within 1 of `expected`.
    func check(_ transition: Transition, _ a: Image<RGBA8>, _ b: Image<RGBA8>, _ time: Double, _ expected: Image<RGBA8>,
               _ name: String) {
        let ways: [(String, Transition.Prepared?)] = [
            ("one-off", nil), ("prepared", transition.prepared(width: a.width, height: a.height)),
            ("prepared for another size", transition.prepared(width: a.width + 3, height: a.height)),
        ]
        for (way, prepared) in ways {
            var out = Image(width: a.width, height: a.height, repeating: RGBA8.clear)
            if let prepared { prepared.render(from: a, to: b, time: time, into: &out) } else { transition.render(from: a, to: b, time: time, into: &out) }
            let (d, x, y) = worst(out, expected)
            #expect(d <= 1, "\(name) \(way) at t = \(time): off by \(d) at (\(x), \(y)): \(out[x, y]) vs \(expected[x, y])")
        }
    }

    static let times = [0.1, 0.3, 0.5, 0.8, 0.9]

    @Test(arguments: times)
    func flashMatchesThePerPixelReference(_ time: Double) {
        let (a, b) = transitionPair(width: 61, height: 37)
        var offCentre = Transition.Flash()
        offCentre.center = SIMD2(17.3, 11.8)
        offCentre.extent = Transition.Extent(x: 4.2, y: 3, width: 50, height: 29.5)
        var wide = Transition.Flash()   // rays reaching past the canvas, centred outside the extent
        wide.center = SIMD2(70, -5)
        wide.extent = Transition.Extent(x: 0, y: 6, width: 40, height: 31)
        wide.maxStriationRadius = 4
        wide.striationContrast = 3
        for (name, flash) in [("off-centre flash", offCentre), ("default flash", Transition.Flash()), ("wide flash", wide)] {
            check(.flash(flash), a, b, time, Reference.flash(a, b, time: time, flash), name)
        }
    }

    @Test(arguments: times)
    func rippleMatchesThePerPixelReference(_ time: Double) {
        let (a, b) = transitionPair(width: 61, height: 37)
        var offCentre = Transition.Ripple()
        offCentre.center = SIMD2(40.5, 9.25)
        offCentre.extent = Transition.Extent(x: 5, y: 2.5, width: 48.3, height: 30)
        offCentre.width = 12
        offCentre.scale = 16
        var pulling = Transition.Ripple()
        pulling.width = 7
        pulling.scale = -30
        for (name, ripple) in [("off-centre ripple", offCentre), ("pulling ripple", pulling), ("default ripple", Transition.Ripple())] {
            check(.ripple(ripple), a, b, time, Reference.ripple(a, b, time: time, ripple), name)
        }
    }

    @Test(arguments: times)
    func swipeMatchesThePerPixelReference(_ time: Double) {
        let (a, b) = transitionPair(width: 61, height: 37)
        var tinted = Transition.Swipe()
        tinted.extent = Transition.Extent(x: 3.5, y: 7, width: 44, height: 21.2)
        tinted.angle = 2.2
        tinted.width = 9
        tinted.opacity = 0.7
        for (name, swipe) in [("tinted swipe in an extent", tinted), ("default swipe", Transition.Swipe())] {
            check(.swipe(swipe), a, b, time, Reference.swipe(a, b, time: time, swipe), name)
        }
    }

    /// A row's cover holds every pixel nearer than the radius, and its interior only such pixels.
    @Test func circleSpansAreConservative() {
        var generator = SystemRandomNumberGenerator()
        let width = 50
        for _ in 0..<2000 {
            let radius = Float.random(in: -5...60, using: &generator), dy = Float.random(in: -70...70, using: &generator)
            let cx = Float.random(in: -40...90, using: &generator)
            let cover = Transitions.circleCover(radius, dy: dy, cx: cx, width: width)
            let interior = Transitions.circleInterior(radius, dy: dy, cx: cx, width: width)
            for x in 0..<width {
                let dx = Float(x) + 0.5 - cx
                let inside = radius > 0 && (dx * dx + dy * dy).squareRoot() < radius
                if inside && !cover.contains(x) { Issue.record("r \(radius), dy \(dy), cx \(cx): x = \(x) is inside but not in \(cover)") }
                if interior.contains(x) && !inside { Issue.record("r \(radius), dy \(dy), cx \(cx): x = \(x) is in \(interior) but not inside") }
            }
        }
        #expect(Transitions.circleCover(10, dy: 0, cx: .nan, width: width) == 0..<width)
        #expect(Transitions.circleInterior(10, dy: 0, cx: .nan, width: width).isEmpty)
    }

    /// The shortcuts for clear and opaque pixels give what the premultiplied mix gives.
    @Test func mixShortcutsMatchThePremultipliedMix() {
        let pixels = [RGBA8.clear, RGBA8(r: 250, g: 3, b: 77, a: 0), RGBA8(r: 9, g: 200, b: 130, a: 255),
                      RGBA8(r: 255, g: 255, b: 255, a: 255), RGBA8(r: 120, g: 60, b: 30, a: 128)]
        for p in pixels {
            for q in pixels {
                for step in 0...64 {
                    let w = Float(step) / 64 - 0.0001
                    let fast = Transitions.mix(p, q, w), slow = Reference.mix(p, q, w)
                    let d = max(abs(Int(fast.r) - Int(slow.r)), abs(Int(fast.g) - Int(slow.g)),
                                abs(Int(fast.b) - Int(slow.b)), abs(Int(fast.a) - Int(slow.a)))
                    #expect(d <= 1, "mix(\(p), \(q), \(w)): \(fast) vs \(slow)")
                }
            }
        }
    }
}
