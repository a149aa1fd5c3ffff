import Foundation
import Testing
@testable import MercurialKit

/// The one clock (issue 20): a timeline is an ordered list of animators, a frame is a
/// function of its time alone, and a sequence is clips joined by transitions.
@Suite struct ClockTests {
    func track(_ key: String, _ values: [(Double, Double)]) throws -> Track {
        let leaf = try #require(SceneSchema.leaf(at: key))
        return Track(key: key, target: .leaf(path: key, leaf),
              keyframes: Keyframes(values.map { Keyframe(time: $0.0, value: .number($0.1)) }))
    }

    @Test func tracksComeFirstAndPhysicsLast() throws {
        var timeline = Timeline(duration: 2)
        #expect(timeline.animators == [.orbits, .vineGrowth])
        timeline.dynamics = Dynamics()
        let x = try track("pointLight1.x", [(0, 10), (2, 30)])
        timeline.tracks = [x]
        #expect(timeline.animators == [.track(x), .orbits, .vineGrowth, .physics(Dynamics())])
        #expect(timeline.tracks == [x] && timeline.dynamics == Dynamics())
        timeline.dynamics = nil
        #expect(timeline.animators == [.track(x), .orbits, .vineGrowth])
    }

    @Test func eachAnimatorAppliesInTurn() throws {
        var base = RenderSettings()
        base.pointLights = [PointLight(x: 0, y: 0), PointLight(x: 0, y: 0)]
        let orbit = Orbit(cx: 100, cy: 50, r: 40, period: 2)
        base.pointLights[1].orbit = orbit
        var vine = Vine()
        vine.start = 0.5
        base.vine = vine
        // A track on the orbiting light's x is overruled by the orbit, which comes after it.
        var timeline = Timeline(duration: 2)
        let first = try track("pointLight1.x", [(0, 10), (2, 30)])
        let second = try track("pointLight2.x", [(0, -500), (2, -500)])
        timeline.tracks = [first, second]
        for t in [0, 0.25, 1, 1.9] {
            let s = timeline.settings(at: t, base: base)
            #expect(s.pointLights[0].x == first.keyframes.value(at: t).number)
            let at = orbit.position(at: t)
            #expect(s.pointLights[1].x == at.x && s.pointLights[1].y == at.y, "t = \(t)")
            #expect(s.vine?.grown == vine.growth(at: t))
        }
        #expect(timeline.settings(at: 0.25, base: base).vine?.grown == 0, "not grown before its start")
    }

    /// The physics steps on from the last frame, but a frame is the same whichever came before it.
    @Test func aPhysicsFrameIsAFunctionOfItsTimeAlone() throws {
        var timeline = Timeline(duration: 1, fps: 10)
        timeline.dynamics = Dynamics()
        let played = try FrameRenderer(base: dropSettings(), timeline: timeline)
        let late = try played.frame(8).pixels
        let early = try played.frame(3).pixels
        // Compared as Bools: a failure would print a few hundred thousand pixels otherwise.
        let moved = late != early
        #expect(moved, "the letters fall between frames 3 and 8")
        let fresh = try FrameRenderer(base: dropSettings(), timeline: timeline)
        let sameEarly = try fresh.frame(3).pixels == early
        #expect(sameEarly, "frame 3 after frame 8 is frame 3 of a fresh renderer")
        let sameLate = try played.frame(8).pixels == late
        #expect(sameLate, "frame 8 again is frame 8")
    }

    @Test func aSequenceIsClipsJoinedByTransitions() {
        let s = RenderSettings()
        let dissolve = TitleSequence.TransitionStep(.dissolve, duration: 0.5)
        let flash = TitleSequence.TransitionStep(.flash(Transition.Flash()), duration: 1)
        var sequence = TitleSequence(steps: [
            .init(settings: s, hold: 1, transition: dissolve),
            .init(settings: s, hold: 2, transition: flash),
            .init(settings: s, hold: 0.5, transition: dissolve),
        ], fps: 30)
        // The last title's transition leads nowhere and is left out.
        #expect(sequence.clips == [
            .init(appears: 0, holdStart: 0, holdEnd: 1, transition: dissolve),
            .init(appears: 1, holdStart: 1.5, holdEnd: 3.5, transition: flash),
            .init(appears: 3.5, holdStart: 4.5, holdEnd: 5, transition: nil),
        ])
        // Each frame shows what the clips say: a title in its hold, or the transition after it.
        let clips = sequence.clips
        for frame in 0..<Int(5.5 * 30) {
            let t = Double(frame) / 30
            switch sequence.moment(at: t) {
            case let .title(step, localTime):
                #expect(t < clips[step].holdEnd || step == clips.count - 1)
                #expect(t >= clips[step].holdStart && localTime == t - clips[step].appears, "t = \(t)")
            case let .transition(from, _, fromTime, toTime):
                #expect(t >= clips[from].holdEnd && toTime == t - clips[from + 1].appears)
                #expect(fromTime == t - clips[from].appears, "t = \(t)")
            }
        }
        sequence.steps.removeAll()
        #expect(sequence.clips.isEmpty)
    }
}

extension ParameterValue {
    var number: Double? { if case .number(let n) = self { n } else { nil } }
}
