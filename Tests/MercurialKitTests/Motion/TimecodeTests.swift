import Foundation
import Testing
@testable import MercurialKit

/// Times as editors write them: seconds, frames and SMPTE timecode, drop-frame at 29.97 and 59.94.
@Suite struct TimecodeTests {
    let ntsc = FrameRate(29.97), ntsc60 = FrameRate(59.94), pal = FrameRate(25)

    @Test func secondsFramesAndTimecodeBecomeSeconds() throws {
        #expect(try TimeValue.parse("5") == .seconds(5) && TimeValue.parse("2.5s") == .seconds(2.5))
        #expect(try TimeValue.parse("150f") == .frames(150))
        // Non-drop timecode at 29.97 counts 30 a second: 5 s of it is 150 frames, 5.005 s.
        #expect(try TimeValue.parse("00:00:05:00").seconds(at: ntsc) == 150 * 1001 / 30000.0)
        #expect(try ntsc.frameCount(duration: TimeValue.parse("00:00:05:00").seconds(at: ntsc)) == 150)
        #expect(try TimeValue.parse("00:00:05:00").seconds(at: pal) == 5)
        #expect(try TimeValue.parse("150f").seconds(at: pal) == 6)
        for bad in ["5x", "-1", "f", "00:00:05", "00:60:00:00", "1:2:3:4:5", "a:b:c:d", ""] {
            let error = #expect(throws: MercurialError.self, "\(bad)") { try TimeValue.parse(bad) }
            #expect(error?.message.contains("is no time") == true, "\(bad): \(String(describing: error))")
        }
    }

    @Test func dropFrameSkipsTwoFrameNumbersAMinuteButEveryTenth() throws {
        // SMPTE 12M's landmarks at 29.97: a minute is 1798 frames, ten minutes 17982, an hour 107892.
        for (frame, text) in [(0, "00:00:00;00"), (1799, "00:00:59;29"), (1800, "00:01:00;02"), (17981, "00:09:59;29"),
                              (17982, "00:10:00;00"), (17983, "00:10:00;01"), (107892, "01:00:00;00")] {
            let timecode = Timecode(frame: frame, rate: ntsc, dropFrame: true)
            #expect(timecode.description == text, "frame \(frame): \(timecode)")
            #expect(try Timecode(text)?.frame(at: ntsc) == frame, "\(text)")
        }
        // Every frame of the first twelve minutes goes there and back.
        for frame in stride(from: 0, to: 30 * 60 * 12, by: 7) {
            #expect(try Timecode(frame: frame, rate: ntsc, dropFrame: true).frame(at: ntsc) == frame)
        }
        #expect(Timecode(frame: 215784, rate: ntsc60, dropFrame: true).description == "01:00:00;00")
        // Non-drop at 29.97 counts 108000 frames an hour: an hour of it runs 3.6 s long in real time.
        #expect(try Timecode("01:00:00:00")?.frame(at: ntsc) == 108000)
    }

    @Test func timecodesThatCannotBeAreRefused() throws {
        for (text, rate, says) in [("00:01:00;00", ntsc, "does not exist"), ("00:01:00;01", ntsc, "does not exist"),
                                   ("00:00:00;00", pal, "only 29.97 and 59.94"), ("00:00:00:30", ntsc, "frames 00 to 29"),
                                   ("00:00:00:25", pal, "frames 00 to 24")] {
            let error = #expect(throws: MercurialError.self, "\(text)") { try Timecode(text)?.frame(at: rate) }
            #expect(error?.message.contains(says) == true, "\(text): \(String(describing: error))")
        }
        #expect(try Timecode("00:10:00;00")?.frame(at: ntsc) == 17982)
    }

    @Test func aScenesDurationsCountFramesAtItsRate() throws {
        var settings = RenderSettings()
        // The duration before the rate it counts at.
        let timeline = try #require(try SceneFile.load(json: Array("""
        {"text": "T", "animation": {"duration": "00:00:05:00", "fps": 29.97, "timecode": "01:00:00;00"},
         "in": {"type": "fade", "duration": "15f", "delay": "00:00:00:15"}}
        """.utf8), name: "t.json", into: &settings))
        #expect(timeline.frameCount == 150 && timeline.rate.description == "30000/1001")
        #expect(timeline.timecode == Timecode("01:00:00;00"))
        let fade = try #require(timeline.inOut?.entrance)
        #expect(abs(fade.duration - 15 * 1001 / 30000.0) < 1e-12 && abs(fade.delay - 15 * 1001 / 30000.0) < 1e-12)
        // Written back as seconds, read again to the same frames.
        let recipe = SceneRecipe.json(for: settings, timeline: timeline)
        var again = RenderSettings()
        let reread = try #require(try SceneFile.load(json: Array(recipe.utf8), name: "r.json", into: &again))
        #expect(reread.frameCount == 150 && reread.timecode == timeline.timecode)
        for (json, says) in [(#"{"text": "T", "animation": {"duration": "5x"}}"#, "is no time"),
                             (#"{"text": "T", "animation": {"duration": "00:00:01;00", "fps": 25}}"#, "only 29.97 and 59.94"),
                             (#"{"text": "T", "animation": {"duration": 2, "fps": 25, "timecode": "00:00:00:25"}}"#, "frames 00 to 24"),
                             (#"{"text": "T", "animation": {"duration": "0f"}}"#, "out of range")] {
            var s = RenderSettings()
            let error = #expect(throws: MercurialError.self) { try SceneFile.load(json: Array(json.utf8), name: "t.json", into: &s) }
            #expect(error?.message.hasPrefix("t.json:1:") == true && error?.message.contains(says) == true, "\(json): \(String(describing: error))")
        }
    }
}
