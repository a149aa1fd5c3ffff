import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite(.serialized) struct SequenceTests {
    static let deadline: Duration = .seconds(120)

    /// Three titles on an explicit 200×80 canvas at 10 fps: 0.5 + 0.4 + 0.3 + 0.4 + 0.4 = 2 s, 20 frames.
    static let scene = """
    {"width": 200, "height": 80, "size": 36, "animation": {"fps": 10, "loop": true},
     "sequence": [
       {"scene": {"text": "One"}, "hold": 0.5, "transition": {"type": "flash", "duration": 0.4}},
       {"scene": "two.json", "hold": 0.3, "transition": {"type": "ripple", "duration": 0.4, "width": 30}},
       {"scene": {"text": "Three", "material": "gold"}, "hold": 0.4}
     ]}
    """

    func write(_ dir: URL) throws {
        try Data(Self.scene.utf8).write(to: dir.appendingPathComponent("s.json"))
        try Data(#"{"text": "Two", "animation": {"duration": 1, "tracks": {"light1.hue": [{"t": 0, "value": 0}, {"t": 1, "value": 0.5}]}}}"#.utf8)
            .write(to: dir.appendingPathComponent("two.json"))
    }

    @Test func aSequenceAnimatesToAnAPNGAndWebM() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try write(dir)
            let a = try await CLI.run(["animate", "s.json", "-o", "a.png"], in: dir, timeout: Self.deadline)
            let b = try await CLI.run(["animate", "s.json", "-o", "b.png", "-q"], in: dir, timeout: Self.deadline)
            #expect(a.termination == .exit && a.status == 0 && a.stderr.isEmpty, "\(a)")
            #expect(b.termination == .exit && b.status == 0 && b.stdout.isEmpty, "-q prints nothing: \(b)")
            #expect(a.stdout.contains("a.png: 20 frames 200×80, APNG"), "\(a.stdout)")
            let first = try Data(contentsOf: dir.appendingPathComponent("a.png"))
            #expect(first == (try Data(contentsOf: dir.appendingPathComponent("b.png"))), "two runs, identical bytes")
            let actl = [UInt8](first[(8 + 25 + 8)..<(8 + 25 + 16)])
            #expect(actl == [0, 0, 0, 20, 0, 0, 0, 0], "20 frames, looping")

            let w = try await CLI.run(["animate", "s.json", "-o", "s.webm"], in: dir, timeout: Self.deadline)
            #expect(w.termination == .exit && w.status == 0, "\(w)")
            let info = try probe(dir.appendingPathComponent("s.webm").path)
            #expect(info["codec_name"] == "vp9" && info["nb_read_frames"] == "20" && info["TAG:alpha_mode"] == "1", "\(info)")
            #expect(CLI.temporaryFiles(in: dir).isEmpty)
        }
    }

    /// The APNG carries the sequence's recipe: `inspect` prints it, and animating
    /// that gives the same bytes (every transition's inputs written out).
    @Test func theRecipeAnimatesToTheSameBytes() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try write(dir)
            let scene = Self.scene.replacingOccurrences(of: #""type": "ripple", "duration": 0.4, "width": 30"#,
                                                        with: #""type": "swipe", "duration": 0.4, "angle": 1, "width": 30, "opacity": 0.5, "color": "red", "extent": [10, 10, 150, 60], "timing": "easeIn""#)
            try Data(scene.utf8).write(to: dir.appendingPathComponent("s.json"))
            let a = try await CLI.run(["animate", "s.json", "-o", "a.png", "-q"], in: dir, timeout: Self.deadline)
            #expect(a.status == 0, "\(a)")
            let inspect = try await CLI.run(["inspect", "a.png"], in: dir, timeout: Self.deadline)
            #expect(inspect.status == 0 && inspect.stdout.contains("\"sequence\""), "\(inspect)")
            let recipe = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any]
            let transitions = (recipe?["sequence"] as? [[String: Any]])?.compactMap { $0["transition"] as? [String: Any] } ?? []
            let swipe = transitions.first { $0["type"] as? String == "swipe" }
            #expect(swipe?["extent"] as? [Double] == [10, 10, 150, 60] && swipe?["color"] as? String == "#ff0000"
                    && swipe?["angle"] as? Double == 1 && swipe?["timing"] as? String == "easeIn", "\(transitions)")
            try Data(inspect.stdout.utf8).write(to: dir.appendingPathComponent("again.json"))
            let b = try await CLI.run(["animate", "again.json", "-o", "b.png", "-q"], in: dir, timeout: Self.deadline)
            #expect(b.status == 0, "\(b)")
            let first = try Data(contentsOf: dir.appendingPathComponent("a.png"))
            let second = try Data(contentsOf: dir.appendingPathComponent("b.png"))
            #expect(first.count > 1000 && first == second, "the same frames and the same recipe")
        }
    }

    @Test func holdFramesAreTheTitlesAndTransitionFramesLieBetween() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try write(dir)
            let path = dir.appendingPathComponent("s.json").path
            let sequence = try #require(try TitleSequence.load(path))
            #expect(sequence.frameCount == 20 && sequence.steps.map(\.hold) == [0.5, 0.3, 0.4])
            let renderer = try SequenceRenderer(sequence)
            #expect(renderer.width == 200 && renderer.height == 80)
            // Frame 2 (0.2 s) is title 1 alone: exactly the title rendered on its own.
            let alone = try TitleRenderer.render(sequence.steps[0].settings).image
            #expect(try same(renderer.frame(2).pixels, alone.pixels))
            // Frame 16 (1.6 s) is title 3 alone.
            let third = try TitleRenderer.render(sequence.steps[2].settings).image
            #expect(try same(renderer.frame(16).pixels, third.pixels))
            // Frame 7 (0.7 s) is half-way through the flash: neither title.
            let mid = try renderer.frame(7).pixels
            #expect(mid != alone.pixels)
            // Title 2 is animated: its hue track runs from when it appeared (0.5 s), so at
            // frame 10 (1.0 s) it is at its own t = 0.5, as rendered alone.
            let two = try FrameRenderer(base: sequence.steps[1].settings, timeline: try #require(sequence.steps[1].timeline))
            #expect(try same(renderer.frame(10).pixels, (try two.frame(at: 0.5)).pixels))
            #expect(try renderer.frame(10).pixels != (try two.frame(at: 1.0)).pixels)
        }
    }

    /// A title's renderer lives only while the title is on screen: 60 titles take
    /// about the memory of 3.
    @Test func memoryDoesNotGrowWithTheTitles() async throws {
        try await CLI.withTemporaryDirectory { dir in
            func peak(_ titles: Int) async throws -> Double {
                let steps = (0..<titles).map { i in
                    #"{"scene": {"text": "Title \#(i)"}, "hold": 0.1, "transition": {"type": "dissolve", "duration": 0.1}}"#
                }.joined(separator: ",\n") + ",\n" + #"{"scene": {"text": "End"}, "hold": 0.1}"#
                let scene = "{\"width\": 640, \"height\": 360, \"animation\": {\"fps\": 10}, \"sequence\": [\n\(steps)\n]}"
                try Data(scene.utf8).write(to: dir.appendingPathComponent("m.json"))
                let r = try await CLI.run(["animate", "m.json", "-o", "/dev/null"], in: dir, timeout: .seconds(240))
                #expect(r.status == 0, "\(r)")
                return r.peakMemoryMB()
            }
            let few = try await peak(3), many = try await peak(60)
            #expect(few > 0 && many <= few * 1.25, "4 titles: \(few) MB, 61 titles: \(many) MB")
        }
    }

    @Test func layoutWarningsNameTheirTitle() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = #"{"sequence": [{"scene": {"text": "Fine"}}, {"scene": {"text": "Plane ✈", "fallback": false}}]}"#
            try Data(scene.utf8).write(to: dir.appendingPathComponent("s.json"))
            let sequence = try #require(try TitleSequence.load(dir.appendingPathComponent("s.json").path))
            #expect(sequence.warnings.count == 1)
            #expect(sequence.warnings.first?.message.hasPrefix("title 2 of the sequence: font") == true, "\(sequence.warnings)")
            #expect(try SequenceRenderer(sequence).warnings == sequence.warnings)
        }
    }

    /// Without width and height, the canvas is the largest title's, and a smaller
    /// title keeps its size (centred), rather than growing to fill it.
    @Test func titlesShareTheLargestCanvas() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = #"{"sequence": [{"scene": {"text": "Wide title here", "size": 60}}, {"scene": {"text": "Tall", "size": 200}}, {"scene": {"text": "x"}}]}"#
            try Data(scene.utf8).write(to: dir.appendingPathComponent("s.json"))
            let sequence = try #require(try TitleSequence.load(dir.appendingPathComponent("s.json").path))
            var alone: [(Int, Int)] = []
            for text in [("Wide title here", 60.0), ("Tall", 200.0), ("x", nil)] as [(String, Double?)] {
                var s = RenderSettings()
                s.text = text.0
                s.size = text.1
                let r = try TitleRenderer.render(s)
                alone.append((r.width, r.height))
            }
            let width = alone.map(\.0).max() ?? 0, height = alone.map(\.1).max() ?? 0
            #expect(width == alone[0].0 && height == alone[1].1, "the wide title sets the width, the tall one the height")
            for step in sequence.steps {
                #expect(step.settings.width == width && step.settings.height == height)
            }
            #expect(sequence.steps[2].settings.size == TextMask.defaultSize, "the title without a size keeps 160 px")
            let renderer = try SequenceRenderer(sequence)
            #expect(renderer.width == width && renderer.height == height)
        }
    }
}
