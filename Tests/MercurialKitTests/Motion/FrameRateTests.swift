import Foundation
import Testing
@testable import MercurialKit

/// Frame rates as exact fractions (issue 21, item 5): the broadcast rates are N·1000/1001,
/// any other rate the decimal as written, for ffmpeg, the APNG delays and the timeline.
@Suite struct FrameRateTests {
    @Test(arguments: [(23.976, 24000, 1001), (29.97, 30000, 1001), (47.952, 48000, 1001), (59.94, 60000, 1001),
                      (119.88, 120000, 1001), (30, 30, 1), (12.5, 25, 2), (24.5, 49, 2), (29.971, 29971, 1000),
                      (1, 1, 1), (240, 240, 1)])
    func ratesAreExactFractions(_ fps: Double, _ numerator: Int, _ denominator: Int) {
        let rate = FrameRate(fps)
        #expect(rate.numerator == numerator && rate.denominator == denominator && rate.isExact, "\(fps): \(rate)")
    }

    @Test func aRateWithTooManyDigitsIsNotExact() {
        let rate = FrameRate(29.123456789)
        #expect(!rate.isExact)
        #expect(rate.numerator <= Int(Int32.max) && rate.denominator <= Int(Int32.max))
        #expect(abs(rate.fps - 29.123456789) < 1e-9, "the nearest fraction: \(rate)")
    }

    /// Frame i is at i × 1001 / 30000 s, not i / 29.97; a whole rate keeps i / fps to the bit.
    @Test func frameTimesFollowTheFraction() {
        let ntsc = Timeline(duration: 10, fps: 29.97)
        #expect(ntsc.time(ofFrame: 30) == 1.001)
        #expect(ntsc.time(ofFrame: 300) == 10.01)
        #expect(ntsc.frameCount == 300)
        for fps in [10.0, 24, 25, 30, 60, 240] {
            let timeline = Timeline(duration: 3, fps: fps)
            for i in [0, 1, 7, 29, 71] { #expect(timeline.time(ofFrame: i) == Double(i) / fps) }
        }
        let sequence = TitleSequence(steps: [], fps: 59.94)
        #expect(sequence.rate == FrameRate(59.94) && sequence.rate.time(ofFrame: 60) == 1.001)
    }

    /// An APNG's delay has 16-bit terms: exact for 29.97 (1001/30000), the nearest fraction for 119.88.
    @Test func apngDelays() {
        #expect(FrameRate(29.97).frameDuration(largestTerm: 65535) == (1001, 30000))
        #expect(FrameRate(30).frameDuration(largestTerm: 65535) == (1, 30))
        #expect(FrameRate(12.5).frameDuration(largestTerm: 65535) == (2, 25))
        let fast = FrameRate(119.88).frameDuration(largestTerm: 65535)
        #expect(fast.numerator <= 65535 && fast.denominator <= 65535)
        #expect(abs(Double(fast.numerator) / Double(fast.denominator) - 1001.0 / 120000) < 1e-9, "\(fast)")
    }

    /// `quality` runs each encoder's CRF from the worst (0) through the old default (50) to the best (100).
    @Test func qualityMapsToEachEncodersCRF() {
        #expect(FFmpegSink.crf(.webm, quality: 50) == 32 && FFmpegSink.crf(.mp4, quality: 50) == 18)
        #expect(FFmpegSink.crf(.webm, quality: 0) == 63 && FFmpegSink.crf(.mp4, quality: 0) == 51)
        #expect(FFmpegSink.crf(.webm, quality: 100) == 0 && FFmpegSink.crf(.mp4, quality: 100) == 1)
        for format in [AnimationFormat.webm, .mp4] {
            let crfs = stride(from: 0.0, through: 100, by: 5).map { FFmpegSink.crf(format, quality: $0) }
            #expect(zip(crfs, crfs.dropFirst()).allSatisfy { $0 > $1 }, "\(format): \(crfs)")
        }
    }
}
