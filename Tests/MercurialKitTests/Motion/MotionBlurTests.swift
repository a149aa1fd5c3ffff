import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// `animation.motionBlur`: a moving frame is the average of its samples over the shutter;
/// a frame where nothing moves, or only lights and colours change, is made once as before.
@Suite struct MotionBlurTests {
    static func scene(_ json: String) throws -> (settings: RenderSettings, timeline: Timeline) { try LayerMovesTests.scene(json) }

    static let slide = #"{"text": "Hg", "size": 80, "width": 480, "height": 200, "in": {"type": "slide", "side": "left", "distance": 300, "duration": 1, "timing": "linear"}, "animation": {"duration": 2, "fps": 10, "motionBlur": {"shutter": 180, "samples": 6}, "tracks": {"light1.hue": [{"t": 0, "value": 0}, {"t": 2, "value": 0.5}]}}}"#

    /// A slide's frame is the mean of the frames at its six sample times (t ± a quarter frame,
    /// evenly spaced), each made without blur: within a level, premultiplied.
    @Test func aMovingFrameIsTheMeanOfItsSamples() throws {
        let (settings, timeline) = try Self.scene(Self.slide)
        let blurred = try FrameRenderer(base: settings, timeline: timeline)
        var plainTimeline = timeline
        plainTimeline.motionBlur = nil
        let plain = try FrameRenderer(base: settings, timeline: plainTimeline)
        let index = 4, time = timeline.time(ofFrame: index)
        let frame = try blurred.frame(index)
        let at = timeline.settings(at: time, base: settings)
        var sums = [SIMD4<Double>](repeating: .zero, count: frame.pixels.count)
        let times = (0..<6).map { time + 0.05 * ((Double($0) + 0.5) / 6 - 0.5) }
        for t in times {
            // The sample: the frame's own values (its light), moved as at t.
            var sample = at
            let moved = timeline.settings(at: t, base: settings)
            (sample.shiftX, sample.look.clearX, sample.opacity) = (moved.shiftX, moved.look.clearX, moved.opacity)
            for (i, p) in (try plain.render(sample)).pixels.enumerated() {
                let a = Double(p.a)
                sums[i] += SIMD4(Double(p.r) * a, Double(p.g) * a, Double(p.b) * a, a)
            }
        }
        var worst = 0
        for (i, p) in frame.pixels.enumerated() {
            let s = sums[i]
            let alpha = s.w / 6
            worst = max(worst, abs(Int(p.a) - Int(alpha.rounded())))
            guard s.w > 0, p.a > 8 else { continue }
            for (c, v) in [(p.r, s.x), (p.g, s.y), (p.b, s.z)] { worst = max(worst, abs(Int(c) - Int((v / s.w).rounded()))) }
        }
        #expect(worst <= 1, "off by \(worst) levels from the mean of the samples")
        let unblurred = try plain.frame(index)
        let soft = { (image: Image<RGBA8>) in image.pixels.filter { $0.a > 0 && $0.a < 255 }.count }
        #expect(soft(frame) > soft(unblurred) * 2, "blurred edges: \(soft(unblurred)) → \(soft(frame)) part-covered pixels")
    }

    /// Settled (only the light turns) a frame is made once: the unblurred frame, byte for byte.
    @Test func aFrameWhereNothingMovesIsMadeOnce() throws {
        let (settings, timeline) = try Self.scene(Self.slide)
        var plainTimeline = timeline
        plainTimeline.motionBlur = nil
        let blurred = try FrameRenderer(base: settings, timeline: timeline), plain = try FrameRenderer(base: settings, timeline: plainTimeline)
        for index in [12, 15, 19] { #expect(try same(blurred.frame(index).pixels, plain.frame(index).pixels), "frame \(index)") }
        #expect(try blurred.frame(4).pixels != plain.frame(4).pixels, "a moving one is not")
    }

    /// A layer's own moves are blurred too (the lower third's name as it slides in).
    @Test func aLayersMoveIsBlurred() throws {
        let json = #"{"width": 640, "height": 360, "anchor": "bottom-left", "margin": 20, "layers": [{"name": "n", "text": "Jane", "size": 60, "in": {"type": "slide", "duration": 1, "timing": "linear"}}, {"text": "Role", "size": 30, "below": "n"}], "animation": {"duration": 2, "fps": 10, "motionBlur": {"samples": 4}}}"#
        let (settings, timeline) = try Self.scene(json)
        var plainTimeline = timeline
        plainTimeline.motionBlur = nil
        let blurred = try FrameRenderer(base: settings, timeline: timeline), plain = try FrameRenderer(base: settings, timeline: plainTimeline)
        #expect(try blurred.frame(5).pixels != plain.frame(5).pixels)
        #expect(try same(blurred.frame(15).pixels, plain.frame(15).pixels))
    }

    @Test func badMotionBlurIsRefused() throws {
        for (json, says) in [
            (#"{"text": "A", "animation": {"duration": 1, "motionBlur": {"samples": 1}}}"#, "\"animation.motionBlur.samples\""),
            (#"{"text": "A", "animation": {"duration": 1, "motionBlur": {"shutter": 0}}}"#, "\"animation.motionBlur.shutter\""),
            (#"{"text": "A", "animation": {"duration": 1, "motionBlur": {"shuter": 90}}}"#, "did you mean \"shutter\""),
            (#"{"text": "A", "dynamics": {}, "animation": {"duration": 1, "motionBlur": {}}}"#, "\"dynamics\" runs forward only"),
        ] {
            let error = #expect(throws: MercurialError.self) {
                let (settings, timeline) = try Self.scene(json)
                _ = try FrameRenderer(base: settings, timeline: timeline)
            }
            #expect(error?.message.contains(says) == true, "\(json): \(String(describing: error))")
        }
    }
}
