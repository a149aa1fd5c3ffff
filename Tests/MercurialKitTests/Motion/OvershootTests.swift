import Foundation
import Testing
@testable import MercurialKit

/// Issue 31, items 1–2: an overshooting curve cannot carry a value past what the
/// renderer can place. Curves are bounded when read; a track's value is held at its
/// key's range, points included (the point setter took any number before).
@Suite struct OvershootTests {
    @Test func curvesOvershootOnlyWithinTheirBound() throws {
        #expect(try TimingFunction.parse("cubicBezier(0.5, 5, 0.5, -5)") == .cubicBezier(0.5, 5, 0.5, -5))
        for bad in ["cubicBezier(0.5, 1e300, 0.5, -1e300)", "cubicBezier(0, 5.01, 1, 1)", "cubicBezier(0, 0, 1, -6)"] {
            #expect(throws: MercurialError.self) { try TimingFunction.parse(bad) }
        }
        // The bound keeps any curve's progress within a few times its distance.
        let steepest = TimingFunction.cubicBezier(0.5, 5, 0.5, -5)
        for x in stride(from: 0.0, through: 1, by: 1.0 / 64) { #expect(abs(steepest.progress(x)) < 6) }
    }

    @Test(arguments: [("offset.x", -1e5, 1e5), ("backgroundGradient.startPoint.x", -10, 10)])
    func aTrackIsHeldAtItsKeysRange(_ key: String, _ low: Double, _ high: Double) throws {
        let leaf = try #require(SceneSchema.leaf(at: key))
        guard case .number(let range) = leaf.kind else { Issue.record("\(key) is not a number"); return }
        #expect(range.upperBound <= high && range.lowerBound >= low)
        let track = Track(key: key, target: .leaf(path: key, leaf),
                          keyframes: Keyframes([Keyframe(time: 0, value: .number(low), timing: .cubicBezier(0.5, 5, 0.5, -5)),
                                                Keyframe(time: 1, value: .number(high))]))
        var base = RenderSettings()
        base.backgroundGradient = BackgroundGradient(gradient: Gradient(colors: [.black, .white]))
        var sawLow = false, sawHigh = false
        for t in stride(from: 0.0, through: 1, by: 1.0 / 32) {
            var settings = base
            track.apply(at: t, to: &settings)
            guard case .value(.number(let v)) = leaf.get(settings) else { Issue.record("no value for \(key)"); return }
            #expect(range.contains(v), "\(key) at \(t) is \(v), outside \(range)")
            sawLow = sawLow || v == range.lowerBound
            sawHigh = sawHigh || v == range.upperBound
        }
        // The curve does overshoot both ends, so both holds were exercised.
        #expect(sawLow && sawHigh)
    }
}
