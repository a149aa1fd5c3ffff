import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

func animatedSettings(width: Int = 320, height: Int = 120) -> RenderSettings {
    var s = RenderSettings()
    s.text = "Mercurial"
    s.width = width
    s.height = height
    return s
}

func track(_ key: String, _ frames: [(Double, ParameterValue)]) throws -> Track {
    let parameter = try ParameterGroup.parameter(forKey: key)
    return Track(key: key, target: .parameter(parameter),
                 keyframes: Keyframes(frames.map { Keyframe(time: $0.0, value: $0.1) }, period: key.hasSuffix(".hue") ? 1 : nil))
}

@Suite struct FrameRendererTests {
    @Test func lightTracksReuseTheShapeAndMoveTheHighlights() throws {
        let timeline = Timeline(duration: 1, fps: 10, tracks: [try track("light1.hue", [(0, .number(0)), (1, .number(0.5))])])
        let renderer = try FrameRenderer(base: animatedSettings(), timeline: timeline)
        let first = try renderer.frame(0).pixels
        let last = try renderer.frame(9).pixels
        #expect(renderer.geometryBuilds == 1, "the shape is built once")
        #expect(first != last, "the light's colour changes the picture")
        // Frame 0 is the still title of the same settings.
        let still = try TitleRenderer.render(timeline.settings(at: 0, base: animatedSettings())).image
        #expect(same(still.pixels, first))
    }

    /// The settings are split into what shapes the title and what only lights it:
    /// a change to the look keeps the shape (and the renderer's kept normals), a
    /// change to the shape (the loft's scale too: it steepens the normals) builds it again.
    @Test func onlyShapeSettingsRebuildTheShape() throws {
        let base = animatedSettings()
        let renderer = try FrameRenderer(base: base, timeline: Timeline(duration: 1))
        let looks: [(String, (inout RenderSettings) throws -> Void)] = [
            ("a light's hue", { try $0.set(assignment: "light1.hue=0.3") }),
            ("a background colour", { $0.background = RGBColor(r: 0.1, g: 0.2, b: 0.3) }),
            ("a gradient", { $0.backgroundGradient = BackgroundGradient(gradient: Gradient(colors: [.black, .white])) }),
            ("a point light", { $0.pointLights = [PointLight(x: 10, y: 10)] }),
            ("the ambient level", { $0.ambientLightLevel = 0.5 }),
            ("the material's name", { $0.material = "chrome" }),
        ]
        for (what, change) in looks {
            var settings = base
            try change(&settings)
            #expect(settings.shape == base.shape && settings.look != base.look, "\(what) is part of the look")
            _ = try renderer.render(settings)
            #expect(renderer.geometryBuilds == 1, "\(what) keeps the shape")
        }
        let shapes: [(String, (inout RenderSettings) throws -> Void)] = [
            ("the radius", { $0.radius = 9 }),
            ("the scale", { $0.scale = 4 }),
            ("the letter spacing", { $0.letterSpacing = 3 }),
        ]
        var settings = base
        for (index, (what, change)) in shapes.enumerated() {
            let before = settings
            try change(&settings)
            #expect(settings.shape != before.shape && settings.look == base.look, "\(what) is part of the shape")
            _ = try renderer.render(settings)
            #expect(renderer.geometryBuilds == 2 + index, "\(what) builds the shape again")
        }
    }

    /// Frames whose shape stays shade only the inked pixels (a `ShadingPlan`) and,
    /// over the same backdrop, draw only those again; every frame must still be the
    /// still title of its settings, to the bit, as the backdrop changes under it,
    /// point lights come and go, and the shape changes and comes back.
    @Test func framesThatKeepTheShapeAreTheStillTitlesExactly() throws {
        let renderer = try FrameRenderer(base: animatedSettings(), timeline: Timeline(duration: 1))
        var settings = animatedSettings()
        let steps: [(String, (inout RenderSettings) throws -> Void)] = [
            ("first", { _ in }),
            ("a light's hue", { try $0.set(assignment: "light1.hue=0.3") }),
            ("a light moved", { try $0.set(assignment: "light2.x=-20") }),
            ("a background colour", { try $0.set(assignment: "background=#203040") }),
            ("a light over the colour", { try $0.set(assignment: "light1.hue=0.7") }),
            ("a point light", { $0.pointLights = [PointLight(x: 120, y: 60, color: RGBColor(r: 1, g: 0.5, b: 0), intensity: 0.8, range: 150)] }),
            ("the point light's colour", { $0.pointLights[0].color = RGBColor(r: 0.2, g: 0.4, b: 1) }),
            ("a gradient", { $0.pointLights = []; $0.backgroundGradient = BackgroundGradient(gradient: Gradient(colors: [.black, RGBColor(r: 0, g: 0, b: 0.5)])) }),
            ("a light over the gradient", { try $0.set(assignment: "light3.hue=0.1") }),
            ("transparent again", { $0.backgroundGradient = nil; $0.background = nil }),
            ("another shape", { try $0.set(assignment: "radius=9") }),
            ("a light on it", { try $0.set(assignment: "light1.hue=0.9") }),
        ]
        for (what, change) in steps {
            try change(&settings)
            let frame = try renderer.render(settings)
            let still = try TitleRenderer.render(settings).image
            let differing = zip(frame.pixels, still.pixels).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
            let worst = zip(frame.pixels, still.pixels).map { max(abs(Int($0.r) - Int($1.r)), abs(Int($0.g) - Int($1.g)), abs(Int($0.b) - Int($1.b)), abs(Int($0.a) - Int($1.a))) }.max() ?? 0
            #expect(differing == 0, "\(what): \(differing) pixels differ from the still title, by up to \(worst)")
        }
    }

    /// A new shape whose region has the old one's size (the same ink bounds, other
    /// letters inside) is shaded into the kept title afresh: nothing of the old ink stays.
    @Test func aNewShapeOfTheSameSizeLeavesNothingOfTheOld() throws {
        let dir = try StreamingRenderTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Two 60×40 masks inked at two corners (so one crop), with a block left or right between.
        func mask(blockFrom x0: Int) -> Image<RGBA8> {
            var image = Image<RGBA8>(width: 60, height: 40, repeating: .clear)
            for (x, y) in [(2, 2), (57, 37)] { image[x, y] = RGBA8(r: 255, g: 255, b: 255, a: 255) }
            for y in 10..<30 { for x in x0..<(x0 + 15) { image[x, y] = RGBA8(r: 255, g: 255, b: 255, a: 255) } }
            return image
        }
        var settings = [RenderSettings]()
        for (name, x0) in [("left.png", 8), ("right.png", 37)] {
            let url = dir.appendingPathComponent(name)
            try StreamingRenderTests.write(mask(blockFrom: x0), to: url)
            var s = RenderSettings()
            s.mask = url.path
            s.radius = 3
            settings.append(s)
        }
        let renderer = try FrameRenderer(base: settings[0], timeline: Timeline(duration: 1))
        _ = try renderer.render(settings[0])
        let frame = try renderer.render(settings[1])
        #expect(renderer.geometryBuilds == 2)
        #expect(try same(frame.pixels, (try TitleRenderer.render(settings[1]).image.pixels)))
    }

    /// Drawn into a canvas handed in (the editor's spare frames): only the inked
    /// pixels when the canvas shows the same shape over the same backdrop, the whole
    /// canvas when it shows another shape or backdrop; the still title either way.
    @Test func framesDrawnIntoAnOlderCanvasAreTheStillTitlesExactly() throws {
        let renderer = try FrameRenderer(base: animatedSettings(), timeline: Timeline(duration: 1))
        var settings = animatedSettings()
        let first = try renderer.render(settings)
        var other = animatedSettings()
        try other.set(assignment: "text=Ho")
        let otherShape = try TitleRenderer.render(other).image
        var coloured = animatedSettings()
        try coloured.set(assignment: "background=#203040")
        let otherBackdrop = try TitleRenderer.render(coloured).image
        let cases: [(String, Image<RGBA8>, RenderSettings?, String)] = [
            ("the same shape", first, animatedSettings(), "light1.hue=0.3"),
            ("another shape", otherShape, other, "light1.hue=0.4"),
            ("another backdrop", otherBackdrop, coloured, "light2.hue=0.6"),
            ("a canvas of unknown content", otherShape, nil, "light3.hue=0.2"),
        ]
        for (what, canvas, shown, change) in cases {
            try settings.set(assignment: change)
            var target = canvas
            try renderer.render(settings, into: &target, showing: shown)
            let still = try TitleRenderer.render(settings).image
            let differing = zip(target.pixels, still.pixels).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
            #expect(differing == 0, "\(what): \(differing) pixels differ from the still title")
        }
        // The renderer's own frames go on from its own canvas.
        try settings.set(assignment: "light4.hue=0.8")
        #expect(try same(renderer.render(settings).pixels, (try TitleRenderer.render(settings).image.pixels)))
    }

    @Test func shapeTracksRebuildTheShape() throws {
        let timeline = Timeline(duration: 1, fps: 4, tracks: [try track("radius", [(0, .number(4)), (1, .number(12))])])
        let renderer = try FrameRenderer(base: animatedSettings(), timeline: timeline)
        for i in 0..<4 { _ = try renderer.frame(i) }
        #expect(renderer.geometryBuilds == 4)
        let still = try TitleRenderer.render(timeline.settings(at: 0.75, base: animatedSettings())).image
        #expect(try same(renderer.frame(3).pixels, still.pixels))
    }

    @Test func framesAreDeterministic() throws {
        var base = animatedSettings()
        base.pointLights = [PointLight(x: 0, y: 60, color: RGBColor(r: 1, g: 0.2, b: 0), intensity: 1, range: 120)]
        base.pointLights[0].orbit = Orbit(cx: 160, cy: 60, r: 100, period: 2)
        base.backgroundGradient = BackgroundGradient(gradient: Gradient(colors: [.black, RGBColor(r: 0.2, g: 0.1, b: 0.4)]))
        let timeline = Timeline(duration: 2, fps: 5, tracks: [try track("light2.brightness", [(0, .number(0)), (2, .number(1))])])
        func all() throws -> [[RGBA8]] {
            let r = try FrameRenderer(base: base, timeline: timeline)
            return try (0..<timeline.frameCount).map { try r.frame($0).pixels }
        }
        let a = try all(), b = try all()
        #expect(a == b)
        #expect(Set(a.map { $0.hashValue }).count == a.count, "every frame differs: the light orbits")
        #expect(a[0].allSatisfy { $0.a == 255 }, "a gradient backdrop is opaque")
    }

    @Test func aChangingCanvasIsRefused() throws {
        var base = RenderSettings()
        base.text = "Grow"
        let timeline = Timeline(duration: 1, fps: 2, tracks: [try track("radius", [(0, .number(4)), (1, .number(40))])])
        let renderer = try FrameRenderer(base: base, timeline: timeline)
        #expect(throws: MercurialError.self) { _ = try renderer.frame(1) }
    }

    /// A radius drag (the live editor's): each step builds the shape again, but the mask
    /// (the text laid out and drawn) only when what it is made of changes: the loft's
    /// margin (the radius rounded up, plus 4), the text, size or font; the profile, scale
    /// and bevel keep it. Every frame is the still title to the bit, as lights and the
    /// backdrop change between the shapes.
    @Test func aRadiusDragKeepsTheMaskWhileItsMarginStays() throws {
        let base = animatedSettings()   // radius 10: a margin of 14
        let renderer = try FrameRenderer(base: base, timeline: Timeline(duration: 1))
        var settings = base
        let steps: [(what: String, assignment: String, newMask: Bool)] = [
            ("a radius of the same margin", "radius=9.25", false),
            ("another", "radius=9.75", false),
            ("a light on that shape", "light1.hue=0.3", false),
            ("a background colour", "background=#203040", false),
            ("a radius over the colour", "radius=9.5", false),
            ("a light over the colour", "light2.hue=0.6", false),
            ("another colour", "background=#605040", false),
            ("the profile", "profile=chisel", false),
            ("the scale", "scale=4", false),
            ("the bevel", "bevel=down", false),
            ("a radius past the margin", "radius=10.5", true),
            ("the text", "text=Monkey", true),
            ("the size", "size=40", true),
            ("the font", "font=serif", true),
            ("a light on the last shape", "light3.hue=0.1", false),
        ]
        var masks = renderer.maskBuilds
        for step in steps {
            try settings.set(assignment: step.assignment)
            let frame = try renderer.render(settings)
            #expect(renderer.maskBuilds == masks + (step.newMask ? 1 : 0), "\(step.what): \(step.newMask ? "a new mask" : "the kept mask")")
            masks = renderer.maskBuilds
            let still = try TitleRenderer.render(settings).image
            let differing = zip(frame.pixels, still.pixels).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
            #expect(differing == 0, "\(step.what): \(differing) pixels differ from the still title")
        }
    }
}

@Suite struct APNGTests {
    @Test func framesBecomeAnAnimatedPNGThatLoops() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("apng-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.png").path
        let timeline = Timeline(duration: 0.5, fps: 10, loop: true,
                                tracks: [try track("light1.hue", [(0, .number(0)), (0.5, .number(0.3))])])
        let renderer = try FrameRenderer(base: animatedSettings(), timeline: timeline)
        let sink = try AnimationFormat.apng.sink(path: path, width: renderer.width, height: renderer.height, fps: 10,
                                                 frameCount: timeline.frameCount, loop: true)
        var firstFrame: [RGBA8] = []
        for i in 0..<timeline.frameCount {
            let frame = try renderer.frame(i)
            if i == 0 { firstFrame = frame.pixels }
            try sink.write(frame)
        }
        try sink.finish()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var chunks: [(String, [UInt8])] = []
        var i = 8
        while i + 12 <= bytes.count {
            let n = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            chunks.append((String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self), Array(bytes[(i + 8)..<(i + 8 + n)])))
            i += 12 + n
        }
        #expect(i == bytes.count)
        let types = chunks.map(\.0)
        #expect(types.first == "IHDR" && types[1] == "acTL" && types.last == "IEND")
        let acTL = chunks[1].1
        #expect(acTL == [0, 0, 0, 5, 0, 0, 0, 0], "5 frames, played forever")
        #expect(types.filter { $0 == "fcTL" }.count == 5 && types.filter { $0 == "fdAT" }.count == 4)
        #expect(types.filter { $0 == "IDAT" }.count == 1)
        // Sequence numbers run 0, 1, 2, … across fcTL and fdAT.
        let sequence = chunks.filter { $0.0 == "fcTL" || $0.0 == "fdAT" }
            .map { Int($0.1[0]) << 24 | Int($0.1[1]) << 16 | Int($0.1[2]) << 8 | Int($0.1[3]) }
        #expect(sequence == Array(0..<9))
        // Delay 1/10 s.
        let fcTL = chunks.first { $0.0 == "fcTL" }!.1
        #expect(Array(fcTL[20..<24]) == [0, 1, 0, 10])
        // A plain PNG reader sees the first frame.
        #expect(try same(PNGFile.read(path, role: "test").pixels, firstFrame))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["t.png"], "no temporary file left")
    }
}

@Suite(.serialized) struct VideoOutputTests {
    static let cases: [(String, AnimationFormat, [String: String])] = [
        ("t.webm", .webm, ["codec_name": "vp9", "TAG:alpha_mode": "1"]),
        ("t.mov", .mov(.prores), ["codec_name": "prores", "pix_fmt": "yuva444p12le", "profile": "4444"]),
        ("q.mov", .mov(.qtrle), ["codec_name": "qtrle", "pix_fmt": "argb"]),
        ("t.mp4", .mp4, ["codec_name": "h264", "pix_fmt": "yuv420p"]),
    ]

    @Test(arguments: cases.map(\.0))
    func videoHasItsCodecPixelFormatAndFrames(_ name: String) throws {
        let (_, format, want) = try #require(Self.cases.first { $0.0 == name })
        #expect(FFmpegSink.ffmpegPath() != nil, "ffmpeg is installed (.ci/run installs Debian's ffmpeg)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(name).path
        #expect(try AnimationFormat.forPath(path, movCodec: format == .mov(.qtrle) ? .qtrle : .prores) == format)
        let timeline = Timeline(duration: 0.4, fps: 10, tracks: [try track("light1.hue", [(0, .number(0)), (0.4, .number(0.3))])])
        var base = animatedSettings(width: 160, height: 64)
        if format == .mp4 { base.background = .black }
        let renderer = try FrameRenderer(base: base, timeline: timeline)
        let sink = try format.sink(path: path, width: renderer.width, height: renderer.height, fps: timeline.fps,
                                   frameCount: timeline.frameCount, loop: false)
        for i in 0..<timeline.frameCount { try sink.write(try renderer.frame(i)) }
        try sink.finish()
        let info = try probe(path)
        for (key, value) in want { #expect(info[key] == value, "\(name): \(key) is \(info[key] ?? "missing"), want \(value)") }
        #expect(info["nb_read_frames"] == "4" && info["width"] == "160" && info["height"] == "64", "\(info)")
        #expect(abs((Double(info["duration"] ?? "") ?? 0) - 0.4) < 0.051, "duration \(info["duration"] ?? "?")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [name], "no temporary file left")
    }

    /// A 3,000-keyframe recipe (147 KB) is over Linux's 128 KB an argument, so it goes to ffmpeg
    /// as an FFMETADATA file; every container gives it back byte for byte, with the characters
    /// that file escapes (`=`, `;`, `#`, `\`, newline). MOV's own comment atom would cut it at 64 KB.
    @Test(arguments: cases.map(\.0))
    func aLargeRecipeComesBackWhole(_ name: String) throws {
        let (_, format, _) = try #require(Self.cases.first { $0.0 == name })
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyframes = (0..<3000).map { (Double($0) / 1000, ParameterValue.number(Double($0 % 100) / 100)) }
        let timeline = Timeline(duration: 3, fps: 10, tracks: [try track("light1.hue", keyframes)])
        let recipe = SceneRecipe.json(for: animatedSettings(width: 160, height: 64), timeline: timeline,
                                      description: "a=b; #c \\ d\ne ✈ \\\n;FFMETADATA1\n[STREAM]")
        #expect(recipe.utf8.count > 131_072, "over MAX_ARG_STRLEN: \(recipe.utf8.count) bytes")
        let path = dir.appendingPathComponent(name).path
        let sink = try format.sink(path: path, width: 160, height: 64, fps: 10, frameCount: 2, loop: false, recipe: recipe)
        for _ in 0..<2 { try sink.write(Image(width: 160, height: 64, repeating: RGBA8(r: 200, g: 100, b: 0, a: 255))) }
        try sink.finish()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-show_entries", "format_tags=comment", "-of", "json", path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        // Matroska spells its tags in capitals.
        let tags = (json?["format"] as? [String: Any])?["tags"] as? [String: Any]
        let comment = (tags?["comment"] ?? tags?["COMMENT"]) as? String
        #expect(comment == recipe, "\(name): \(comment?.utf8.count ?? 0) bytes back of \(recipe.utf8.count)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [name], "no temporary file left")
    }

    @Test func ffmpegErrorsComeBackAsOneLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Odd sizes are refused by the H.264 encoder in 4:2:0 (`AnimationFormat.sink` refuses them
        // before ffmpeg starts; the sink itself passes them on, so ffmpeg fails).
        #expect(throws: MercurialError.self) {
            try AnimationFormat.mp4.sink(path: dir.appendingPathComponent("odd.mp4").path, width: 161, height: 63,
                                         fps: 10, frameCount: 1, loop: false)
        }
        let sink = try FFmpegSink(format: .mp4, path: dir.appendingPathComponent("odd.mp4").path, width: 161, height: 63,
                                  rate: FrameRate(10), recipe: nil)
        do {
            try sink.write(Image(width: 161, height: 63, repeating: RGBA8(r: 0, g: 0, b: 0, a: 255)))
            try sink.finish()
            Issue.record("an odd-sized H.264 should fail")
        } catch {
            #expect(error.message.hasPrefix("ffmpeg failed: ") && !error.message.contains("\n"), "\(error.message)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "nothing left behind")
    }
}
