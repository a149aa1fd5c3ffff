import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite struct TimingFunctionTests {
    /// Core Animation's curves at x = 0.1, 0.25, 0.5, 0.75, 0.9, from a 200-step
    /// bisection of the Bézier in double precision (an independent computation).
    static let reference: [(TimingFunction, [Double])] = [
        (.easeIn, [0.01702661, 0.093464651, 0.315356813, 0.621861869, 0.839427846]),
        (.easeOut, [0.160572154, 0.378138131, 0.684643187, 0.906535349, 0.98297339]),
        (.easeInEaseOut, [0.019722454, 0.129161931, 0.5, 0.870838069, 0.980277546]),
        // CSS's "ease", also Core Animation's kCAMediaTimingFunctionDefault.
        (.cubicBezier(0.25, 0.1, 0.25, 1), [0.094796306, 0.408510591, 0.802403388, 0.960458978, 0.994316477]),
        // y overshooting 0…1, as a spring-like ease does.
        (.cubicBezier(0.3, -0.5, 0.7, 1.5), [-0.08079161, 0.028078038, 0.5, 0.971921962, 1.08079161]),
    ]

    @Test func curvesMatchCoreAnimation() {
        for (function, values) in Self.reference {
            for (x, want) in zip([0.1, 0.25, 0.5, 0.75, 0.9], values) {
                #expect(abs(function.progress(x) - want) < 1e-7, "\(function) at \(x): \(function.progress(x)), want \(want)")
            }
            #expect(function.progress(0) == 0 && function.progress(1) == 1)
        }
        #expect(TimingFunction.linear.progress(0.3) == 0.3)
    }

    @Test func namesAndBeziersParse() throws {
        #expect(try TimingFunction.parse("easeOut") == .easeOut)
        #expect(try TimingFunction.parse(" easeineaseout ") == .easeInEaseOut)
        #expect(try TimingFunction.parse("cubicBezier(0.1, 0.2, 0.3, 0.4)") == .cubicBezier(0.1, 0.2, 0.3, 0.4))
        for bad in ["bounce", "cubicBezier(1, 2, 3)", "cubicBezier(1.5, 0, 0.5, 1)", "cubicBezier(a, b, c, d)",
                    "cubicBezier(0, 0, nan, 1)", "\u{1b}]0;x\u{7}"] {
            #expect(throws: MercurialError.self) { try TimingFunction.parse(bad) }
        }
        do {
            _ = try TimingFunction.parse("\u{1b}[2J")
        } catch {
            #expect(!error.message.contains("\u{1b}"), "control characters are escaped: \(error.message)")
        }
    }
}

@Suite struct KeyframeTests {
    @Test func valuesHoldOutsideAndBlendInside() {
        let track = Keyframes([Keyframe(time: 1, value: 10.0), Keyframe(time: 3, value: 20.0, timing: .easeIn),
                               Keyframe(time: 4, value: 0.0)])
        #expect(track.value(at: 0) == 10 && track.value(at: 1) == 10)
        #expect(track.value(at: 2) == 15)
        #expect(track.value(at: 3) == 20)
        #expect(abs(track.value(at: 3.5) - (20 - 20 * 0.315356813)) < 1e-6, "easeIn from 20 to 0")
        #expect(track.value(at: 9) == 0)
    }

    /// Issue 33's twelfth defect: hue keyframes are turns, blended as written, as After Effects'
    /// rotation (they went the short way, so 0 → 0.999 moved 0.001 and the light never turned).
    @Test func hueTracksTurnAsTheirValuesSay() {
        func hue(_ a: Double, _ b: Double, at t: Double) -> Double {
            Keyframes([Keyframe(time: 0, value: a), Keyframe(time: 1, value: b)], period: 1).value(at: t)
        }
        #expect(abs(hue(0, 0.999, at: 0.5) - 0.4995) < 1e-9, "0 → 0.999 goes almost once round")
        #expect(abs(hue(0.9, 1.1, at: 0.5) - 0.0) < 1e-9 && abs(hue(0.9, 1.1, at: 0.75) - 0.05) < 1e-9, "0.9 → 1.1 through red")
        #expect(abs(hue(0, 2, at: 0.625) - 0.25) < 1e-9, "0 → 2 twice round")
        #expect(abs(hue(0.1, -0.9, at: 0.5) - 0.6) < 1e-9, "0.1 → -0.9 once round backwards")
        #expect(abs(hue(0, 2.25, at: 1) - 0.25) < 1e-9 && abs(hue(0, 2.25, at: 9) - 0.25) < 1e-9, "held past the last key, taken modulo 1")
        let layered = Keyframes([Keyframe(time: 0, value: ParameterValue.number(0.1)), Keyframe(time: 1, value: .number(0.9))], period: 1)
        #expect(layered.value(at: 0.5) == .number(0.5), "0.1 → 0.9 the way the values say")
    }

    /// A hue track's keyframes may be −100…100 turns; a scene's hue itself stays 0…1.
    @Test func aHueTracksKeyframesAreTurns() throws {
        var settings = RenderSettings()
        let turning = #"{"text": "Hi", "animation": {"duration": 2, "tracks": {"light1.hue": [{"t": 0, "value": 0}, {"t": 2, "value": 3}]}}}"#
        let timeline = try #require(try SceneFile.load(json: Array(turning.utf8), name: "turns.json", into: &settings))
        #expect(abs(timeline.settings(at: 0.5, base: settings).scene.lights[0].hue - 0.75) < 1e-6)
        let over = #"{"text": "Hi", "animation": {"duration": 2, "tracks": {"light1.hue": [{"t": 0, "value": 0}, {"t": 2, "value": 101}]}}}"#
        var again = RenderSettings()
        #expect(throws: MercurialError.self) { try SceneFile.load(json: Array(over.utf8), name: "over.json", into: &again) }
    }

    @Test func coloursBlendPerChannel() {
        let track = Keyframes([Keyframe(time: 0, value: ParameterValue.color(.black)),
                               Keyframe(time: 2, value: .color(RGBColor(r: 1, g: 0.5, b: 0)))])
        #expect(track.value(at: 1) == .color(RGBColor(r: 0.5, g: 0.25, b: 0)))
    }
}

@Suite struct PointLightTests {
    @Test func aLitPixelMatchesAHandComputation() {
        // A title pixel of colour (0.6, 0.5, 0.4), coverage 1, 30 px from a red light of
        // intensity 0.8 and range 100, ambient 0.2.
        let lighting = PointLighting(lights: [PointLight(x: 10, y: 10, color: RGBColor(r: 1, g: 0, b: 0), intensity: 0.8,
                                                         range: 100)], ambientLightLevel: 0.2)
        var image = Image<RGBA8>(width: 1, height: 1, repeating: RGBA8(r: 153, g: 128, b: 102, a: 255))
        lighting.apply(to: &image, originX: 40 - 1, originY: 10)   // pixel centre (39.5, 10.5)
        let d = ((29.5 * 29.5 + 0.5 * 0.5) as Double).squareRoot()
        let w = 0.8 * (1 - d / 100)
        // Darkened: each channel minus 0.8, at least 0; then the light's red added.
        let want = (min(1, max(0, 153.0 / 255 - 0.8) + w), max(0, 128.0 / 255 - 0.8), max(0, 102.0 / 255 - 0.8))
        let p = image[0, 0]
        #expect(abs(Double(p.r) - want.0 * 255) <= 1, "\(p) vs \(want)")
        #expect(p.g == UInt8((want.1 * 255).rounded()) && p.b == UInt8((want.2 * 255).rounded()) && p.a == 255)
    }

    @Test func lightStaysInsideTheTitleAndFadesWithRange() {
        let lighting = PointLighting(lights: [PointLight(x: 5, y: 0.5, color: .white, intensity: 1, range: 4)],
                                     ambientLightLevel: 0)
        var row = Image<RGBA8>(width: 10, height: 1, repeating: RGBA8(r: 0, g: 0, b: 0, a: 255))
        row[0, 0] = .clear
        lighting.apply(to: &row, originX: 0, originY: 0)
        #expect(row[0, 0] == .clear, "outside the title nothing is lit")
        #expect(row[4, 0].r > row[2, 0].r && row[2, 0].r > 0)
        #expect(row[9, 0].r == 0, "beyond the range")
        let constant = PointLighting(lights: [PointLight(x: 5, y: 0.5, color: .white, intensity: 1, range: 4,
                                                         constantIntensityOverRange: true)], ambientLightLevel: 0)
        var flat = Image<RGBA8>(width: 10, height: 1, repeating: RGBA8(r: 0, g: 0, b: 0, a: 255))
        constant.apply(to: &flat, originX: 0, originY: 0)
        #expect(flat[2, 0].r == 255 && flat[7, 0].r == 255 && flat[9, 0].r == 0)
    }
}

@Suite struct BackgroundGradientTests {
    @Test func endpointsTakeTheEndColours() {
        let g = BackgroundGradient(gradient: Gradient(colors: [.black, .white]))   // top to bottom
        #expect(g.color(x: 5, y: 0, width: 10, height: 100).r < 0.01)
        #expect(g.color(x: 5, y: 99, width: 10, height: 100).r > 0.99)
        #expect(abs(g.color(x: 0, y: 49, width: 10, height: 100).r - 0.495) < 0.001)
        // Diagonal, start and end in the corners, with locations.
        let d = BackgroundGradient(gradient: Gradient(stops: [.init(color: .black, location: 0.25),
                                                              .init(color: .white, location: 0.75)]),
                                   startPoint: [0, 0], endPoint: [1, 1])
        #expect(d.color(x: 0, y: 0, width: 100, height: 100).r == 0)
        #expect(d.color(x: 99, y: 99, width: 100, height: 100).r == 1)
        #expect(abs(d.color(x: 49, y: 50, width: 100, height: 100).r - 0.5) < 0.001)
    }
}
