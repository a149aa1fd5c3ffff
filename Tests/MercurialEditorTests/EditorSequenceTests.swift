import Foundation
import Testing
@testable import MercurialEditor
@testable import MercurialKit
import MercurialTestSupport

/// The timeline for sequences, keyframes moved, and tracked controls edited at the playhead
/// (issue 22, item 3).
@Suite(.serialized) struct EditorSequenceTests {
    /// examples/sequence.json at 10 frames/s (72 frames): a flash, a ripple, a swipe and a dissolve.
    static func sequenceScene() throws -> String {
        let example = CLI.packageRoot.appendingPathComponent("examples/sequence.json")
        return try String(contentsOf: example, encoding: .utf8).replacingOccurrences(of: #""fps": 20"#, with: #""fps": 10"#)
    }

    /// Shows frame `index` and returns the editor's pixels for it.
    static func show(_ index: Int, _ editor: EditorFixture) async throws -> [RGBA8] {
        #expect(try await editor.set(EditorSession.playheadKey, String(index)).status == 200)
        try await eventually("frame \(index) on screen") {
            let revision = await editor.session.revision
            guard let frame = await editor.session.frame else { return false }
            return frame.playhead == index && frame.revision == revision
        }
        return try #require(await editor.session.frame).image.pixels
    }

    /// A sequence opens on the timeline (its titles' holds and transitions as spans), and the
    /// frame at any playhead is the one `mercurial animate` writes, pixel for pixel; a change to
    /// the scene around the titles shows in them; a keyframe is refused with the way to do it.
    @Test(.timeLimit(.minutes(8))) func aSequenceScrubsToTheFramesAnimateWrites() async throws {
        let scene = try Self.sequenceScene()
        try await EditorFixture.with(sceneJSON: scene) { (editor: EditorFixture) async throws in
            #expect(await editor.session.animation?.frameCount == 72)
            #expect(await editor.session.playhead == 0)
            let state = try await editor.get("/api/state")
            let root = try JSONSerialization.jsonObject(with: Data(state.text.utf8)) as? [String: Any]
            let timeline = (root?["editor"] as? [String: Any])?["timeline"] as? [String: Any]
            let spans = try #require(timeline?["sequence"] as? [[String: Any]])
            #expect(spans.map { $0["label"] as? String ?? "" }
                    == ["“Flex Monkey”", "flash", "“Mercurial Text”", "ripple", "“Gold”", "swipe", "“Chrome”", "dissolve", "“Flex Monkey”"])
            #expect(abs((spans.last?["end"] as? Double ?? 0) - 7.2) < 1e-9)

            let frames = editor.folder.appendingPathComponent("frames")
            try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: false)
            let animate = try await CLI.run(["animate", "scene.json", "-o", "frames/f-%02d.png", "--quiet"], in: editor.folder,
                                            timeout: .seconds(180))
            #expect(animate.status == 0, "\(animate)")
            // A hold, the flash, the ripple, the swipe, the last title; then back (the renderer is kept).
            for index in [3, 14, 25, 40, 71, 12] {
                let written = try PNGFile.read(frames.appendingPathComponent(String(format: "f-%02d.png", index)).path, role: "frame")
                #expect(try await same(Self.show(index, editor), written.pixels), "frame \(index)")
            }

            // The scene around the titles: its background shows behind every title.
            let before = try await Self.show(3, editor)
            #expect(try await editor.set("background", "#203040").status == 200)
            let after = try await Self.show(3, editor)
            #expect(after != before)
            #expect(after.first == RGBA8(r: 0x20, g: 0x30, b: 0x40, a: 255))

            // The sequence's own animation keys: its frame rate.
            #expect(try await editor.set("animation.fps", "20").status == 200)
            #expect(await editor.session.animation?.frameCount == 144)

            let keyframe = try await editor.post("/api/set", #"{"key": "@keyframe", "value": "{\"key\": \"shininess\", \"t\": 1}"}"#)
            #expect(keyframe.status == 422 && keyframe.text.contains("keyframed in their own scenes"), "\(keyframe.text)")
        }
    }

    /// Writes a sequence of two titles at 10 frames/s, the first from the file title.json ("A"),
    /// the second inline ("B"), and has the editor read it; returns title.json.
    static func openTwoTitles(_ editor: EditorFixture) async throws -> URL {
        let scene = ##"{"width": 200, "height": 80, "size": 40, "background": "#101018", "animation": {"fps": 10}, "sequence": [{"scene": "title.json", "hold": 0.5, "transition": {"type": "dissolve", "duration": 0.5}}, {"scene": {"text": "B"}, "hold": 0.5}]}"##
        let title = editor.folder.appendingPathComponent("title.json")
        try Data(#"{"text": "A"}"#.utf8).write(to: title)
        try Data(scene.utf8).write(to: editor.scene)
        #expect(try await editor.post("/api/reload", "{}").status == 200)
        return title
    }

    /// A title's own scene file changed on disk: the sequence is read again and shows it.
    @Test func aTitlesSceneFileChangedOnDiskShows() async throws {
        try await EditorFixture.with(sceneJSON: nil) { (editor: EditorFixture) async throws in
            let title = try await Self.openTwoTitles(editor)
            let first = try await Self.show(2, editor)
            try Data(#"{"text": "Z"}"#.utf8).write(to: title)
            let expected = try #require(try TitleSequence.load(editor.scene.path)).steps.first?.settings.text
            #expect(expected == "Z")
            let renderer = try SequenceRenderer(try #require(try TitleSequence.load(editor.scene.path)))
            let z = try renderer.frame(2).pixels
            #expect(z != first)
            try await eventually("the changed title on screen") { await editor.session.frame?.image.pixels == z }
        }
    }

    /// A title's own scene file changed on disk while the sequence has unsaved edits: the title
    /// shows the change and the edits stay (the whole scene was read again from disk, and a
    /// changed hold or a moved step was lost).
    @Test func aTitlesFileChangedOnDiskKeepsTheSequencesUnsavedEdits() async throws {
        try await EditorFixture.with(sceneJSON: nil) { (editor: EditorFixture) async throws in
            let title = try await Self.openTwoTitles(editor)
            #expect(try await editor.set("sequence[0].hold", "1").status == 200)
            #expect(try await editor.post("/api/set", #"{"key": "sequence[1].scene.text", "value": "C"}"#).status == 200)
            try Data(#"{"text": "Z"}"#.utf8).write(to: title)
            try await eventually("the title's change read") { await editor.session.titleSequence?.steps.first?.settings.text == "Z" }
            let steps = await editor.session.titleSequence?.steps
            #expect(steps?.map(\.hold) == [1, 0.5] && steps?.last?.settings.text == "C", "the unsaved edits")
            #expect(await editor.session.animation?.frameCount == 20)
        }
    }

    /// A step's own keys are set by their paths (no control on the page): its hold, its
    /// transition, its inline scene's keys; checked as the file's are.
    @Test func aStepsOwnKeysAreSetByTheirPaths() async throws {
        try await EditorFixture.with(sceneJSON: try Self.sequenceScene()) { (editor: EditorFixture) async throws in
            #expect(try await editor.set("sequence[0].hold", "1").status == 200)
            #expect(await editor.session.animation?.frameCount == 74)
            #expect(try await editor.set("sequence[3].transition.duration", "0.8").status == 200)
            #expect(await editor.session.animation?.frameCount == 76)
            let before = try await Self.show(30, editor)
            #expect(try await editor.post("/api/set", #"{"key": "sequence[1].scene.text", "value": "Mercury"}"#).status == 200)
            #expect(await editor.session.titleSequence?.steps[1].settings.text == "Mercury")
            #expect(try await Self.show(30, editor) != before)
            let negative = try await editor.set("sequence[0].hold", "-1")
            #expect(negative.status == 422 && negative.text.contains("sequence[0].hold"), "\(negative.text)")
            let missing = try await editor.set("sequence[9].hold", "1")
            #expect(missing.status == 422 && missing.text.contains("no 'sequence[9].hold' in the scene"), "\(missing.text)")
            // A page never names a file to read: not a step's scene file, font or mask, nor a whole step.
            for (key, value) in [("sequence[0].scene", "/etc/passwd"), ("sequence[0].scene.font", "/etc/passwd"),
                                 ("sequence[0].scene.mask", "/etc/passwd"), ("sequence[0]", "{\\\"scene\\\": \\\"/etc/passwd\\\"}")] {
                let refused = try await editor.set(key, value)
                #expect(refused.status == 422 && refused.text.contains("name no file"), "\(key): \(refused.text)")
            }
            #expect(await editor.session.animation?.frameCount == 76)
            #expect(try await editor.post("/api/save", "{}").status == 200)
            let saved = try #require(try TitleSequence.load(editor.scene.path))
            #expect(saved.steps.map(\.hold) == [1, 0.8, 0.8, 0.8, 0.4] && saved.steps[1].settings.text == "Mercury")
        }
    }

    /// Steps are added, moved and taken out by setting the whole list (one change, one undo
    /// step). A step's scene FILE the file already named may move; a new step's scene is inline,
    /// names no file and takes only a bundled material.
    @Test func stepsAreAddedMovedAndTakenOutButNameNoNewFile() async throws {
        try await EditorFixture.with(sceneJSON: nil) { (editor: EditorFixture) async throws in
            _ = try await Self.openTwoTitles(editor)
            let texts = { () async -> [String] in await editor.session.titleSequence?.steps.map { $0.settings.text ?? "" } ?? [] }
            let moved = ##"[{"scene": {"text": "B"}, "hold": 0.5, "transition": {"type": "dissolve", "duration": 0.5}}, {"scene": "title.json", "hold": 0.5}]"##
            #expect(try await EditorListTests.set(editor, "sequence", moved).status == 200)
            #expect(await texts() == ["B", "A"])
            let added = String(moved.dropLast()) + ##", {"scene": {"text": "C", "material": "gold", "size": 30}, "hold": 0.4}]"##
            #expect(try await EditorListTests.set(editor, "sequence", added).status == 200)
            #expect(await texts() == ["B", "A", "C"])
            #expect(await editor.session.animation?.frameCount == 19)

            let revision = await editor.session.revision
            let step = { (scene: String) in String(moved.dropLast()) + ", {\"scene\": \(scene), \"hold\": 0.4}]" }
            for (bad, words) in [(#""/etc/passwd""#, "names a scene file"), (#""other.json""#, "names a scene file"),
                                 (#"{"text": "D", "font": "/etc/passwd"}"#, "names a file"),
                                 (#"{"text": "D", "mask": "../../etc/passwd"}"#, "names a file"),
                                 (#"{"text": "D", "shadingImage": "/etc/passwd"}"#, "names a file"),
                                 (#"{"text": "D", "material": "../../etc/passwd"}"#, "bundled material"),
                                 (#"{"text": "D", "fallbackFonts": [{"file": "/etc/passwd"}]}"#, "not set from the page"),
                                 (#"{"text": "D", "layers": [{"font": "/etc/passwd"}]}"#, "not set from the page")] {
                let refused = try await EditorListTests.set(editor, "sequence", step(bad))
                #expect(refused.status == 422 && refused.text.contains(words), "\(bad): \(refused.text)")
            }
            let material = try await EditorListTests.set(editor, "sequence[2].scene.material", "/etc/passwd")
            #expect(material.status == 422 && material.text.contains("bundled material"), "\(material.text)")
            #expect(await editor.session.revision == revision)
            #expect(await texts() == ["B", "A", "C"])

            #expect(try await EditorListTests.set(editor, "sequence[2].scene.material", "chrome").status == 200)
            let removed = ##"[{"scene": {"text": "B"}, "hold": 0.5, "transition": {"type": "dissolve", "duration": 0.5}}, {"scene": {"text": "C", "material": "chrome", "size": 30}, "hold": 0.4}]"##
            #expect(try await EditorListTests.set(editor, "sequence", removed).status == 200)
            #expect(await texts() == ["B", "C"])
            #expect(try await editor.post("/api/save", "{}").status == 200)
            let saved = try #require(try TitleSequence.load(editor.scene.path))
            #expect(saved.steps.map(\.settings.text) == ["B", "C"] && saved.steps.map(\.hold) == [0.5, 0.4])
            #expect(saved.steps[1].settings.size == 30)
        }
    }

    /// A sequence exports as `mercurial animate` renders it: every frame, with progress.
    @Test(.timeLimit(.minutes(4))) func aSequenceExportsEveryFrame() async throws {
        try await EditorFixture.with(sceneJSON: try Self.sequenceScene()) { (editor: EditorFixture) async throws in
            let page = try EventListener(port: editor.port, token: editor.server.token)
            defer { page.stop() }
            try await eventually("the page to listen") { await editor.session.clientCount == 1 }
            let started = try await editor.post("/api/export-video", #"{"format": "png"}"#)
            #expect(started.status == 200, "\(started.text)")
            try await eventually("the export to finish", seconds: 200) { await !editor.session.isExporting }
            // Its last event comes over the socket after the export has ended.
            try await eventually("the export's last event") { page.events("export").last?["state"] as? String != "running" }
            let done = page.events("export").last
            #expect(done?["state"] as? String == "done" && done?["frames"] as? Int == 72, "\(page.events("export").suffix(2))")
            #expect(FileManager.default.fileExists(atPath: editor.folder.appendingPathComponent("scene.apng").path))
        }
    }

    static let scene = #"{"text": "Hi", "size": 40, "width": 200, "height": 80, "animation": {"duration": 1, "fps": 10, "tracks": {"shininess": [{"t": 0, "value": 0.05}, {"t": 0.5, "value": 0.1}, {"t": 1, "value": 0.2}]}}}"#

    static func times(_ editor: EditorFixture, _ key: String = "shininess") async -> [Double]? {
        await editor.session.animation?.tracks.first { $0.key == key }?.keyframes.frames.map(\.time)
    }

    static func move(_ editor: EditorFixture, _ t: Double, to: Double) async throws -> RawHTTP.Response {
        try await editor.post("/api/set", #"{"key": "@keyframe", "value": "{\"key\": \"shininess\", \"t\": \#(t), \"to\": \#(to)}"}"#)
    }

    /// A keyframe moves with its value (and saves so); the move back restores it; one dropped on
    /// another keyframe's time or outside the animation is refused with the reason.
    @Test func aKeyframeMovesAndIsRefusedOnAnotherOrOutside() async throws {
        try await EditorFixture.with(sceneJSON: Self.scene) { (editor: EditorFixture) async throws in
            #expect(try await Self.move(editor, 0.5, to: 0.3).status == 200)
            #expect(await Self.times(editor) == [0, 0.3, 1])
            #expect(try await editor.post("/api/save", "{}").status == 200)
            var saved = RenderSettings()
            let track = try SceneFile.load(editor.scene.path, into: &saved)?.tracks.first
            #expect(track?.keyframes.frames.map(\.time) == [0, 0.3, 1])
            #expect(track?.keyframes.frames.map(\.value) == [.number(0.05), .number(0.1), .number(0.2)])
            // The page's undo is the move back.
            #expect(try await Self.move(editor, 0.3, to: 0.5).status == 200)
            #expect(await Self.times(editor) == [0, 0.5, 1])

            let onAnother = try await Self.move(editor, 0.5, to: 1)
            #expect(onAnother.status == 422 && onAnother.text.contains("has a keyframe at 1 s already"), "\(onAnother.text)")
            let outside = try await Self.move(editor, 0.5, to: 1.5)
            #expect(outside.status == 422 && outside.text.contains("outside the animation"), "\(outside.text)")
            let none = try await Self.move(editor, 0.4, to: 0.2)
            #expect(none.status == 422 && none.text.contains("no keyframe at 0.4 s"), "\(none.text)")
            #expect(await Self.times(editor) == [0, 0.5, 1])
        }
    }

    /// With the playhead on the timeline, editing a key that has a track sets its keyframe
    /// there (or adds one), and the frame shows it; the controls show the track's value at the
    /// playhead; a value out of the key's range is refused and changes nothing. The answer
    /// names a keyframe the edit added.
    @Test func aTrackedControlEditedAtThePlayheadSetsItsKeyframe() async throws {
        try await EditorFixture.with(sceneJSON: Self.scene) { (editor: EditorFixture) async throws in
            #expect(try await editor.set(EditorSession.playheadKey, "5").status == 200)
            #expect(await editor.session.shownSettings.scene.material.shininess == 0.1)
            let set = try await editor.set("shininess", "0.15")
            #expect(set.status == 200 && set.text.contains(#""addedKeyframes":{}"#), "a keyframe there already: \(set.text)")
            let track = await editor.session.animation?.tracks.first
            #expect(track?.keyframes.frames.map(\.time) == [0, 0.5, 1])
            #expect(track?.keyframes.frames.map(\.value) == [.number(0.05), .number(0.15), .number(0.2)])
            #expect(await editor.session.settings.scene.material.shininess != 0.15, "the base value stays")
            try await eventually("frame 5 with the edit") {
                await editor.session.frame?.revision == (await editor.session.revision)
            }
            var base = await editor.session.settings
            base.scene.material.shininess = 0.15
            #expect(await same(editor.session.frame?.image.pixels, (try TitleRenderer.render(base).image.pixels)))

            // Between keyframes: one is added at the playhead.
            #expect(try await editor.set(EditorSession.playheadKey, "2").status == 200)
            let added = try await editor.set("shininess", "0.22")
            // The answer names it, so that the page's undo takes it out again.
            #expect(added.status == 200 && added.text.contains(#""addedKeyframes":{"shininess":0.2}"#), "\(added.text)")
            #expect(await Self.times(editor) == [0, 0.2, 0.5, 1])
            let refused = try await editor.set("shininess", "7")
            #expect(refused.status == 422 && refused.text.contains("shininess"), "\(refused.text)")
            #expect(await Self.times(editor) == [0, 0.2, 0.5, 1])
            // Off the timeline ("Edit base"), an edit sets the base value as before.
            #expect(try await editor.set(EditorSession.playheadKey, "none").status == 200)
            #expect(try await editor.set("shininess", "0.25").status == 200)
            #expect(await editor.session.settings.scene.material.shininess == 0.25)
            #expect(await Self.times(editor) == [0, 0.2, 0.5, 1])
        }
    }

    /// A keyframe keeps its easing (`timing`) when it is moved or its value edited at the
    /// playhead; its easing is set and taken out by `@keyframe`, and a keyframe taken out is
    /// put back as it was (value and easing), as the page's undo does.
    @Test func aKeyframesEasingIsKeptSetAndPutBack() async throws {
        let scene = #"{"text": "Hi", "size": 40, "width": 200, "height": 80, "animation": {"duration": 1, "fps": 10, "tracks": {"shininess": [{"t": 0, "value": 0.05}, {"t": 0.5, "value": 0.1, "timing": "easeIn"}, {"t": 1, "value": 0.2}]}}}"#
        try await EditorFixture.with(sceneJSON: scene) { (editor: EditorFixture) async throws in
            let timings = { () async -> [TimingFunction] in
                await editor.session.animation?.tracks.first?.keyframes.frames.map(\.timing) ?? []
            }
            let change = { (body: String) async throws -> RawHTTP.Response in
                try await EditorListTests.set(editor, "@keyframe:shininess", #"{"key": "shininess", "#  + body + "}")
            }
            #expect(try await Self.move(editor, 0.5, to: 0.3).status == 200)
            #expect(await timings() == [.linear, .easeIn, .linear], "moved with its easing")
            #expect(try await editor.set(EditorSession.playheadKey, "3").status == 200)
            #expect(try await editor.set("shininess", "0.12").status == 200)
            #expect(await timings() == [.linear, .easeIn, .linear], "its value edited, its easing kept")
            #expect(try await change(#""t": 0.3, "timing": "easeOut""#).status == 200)
            #expect(await timings() == [.linear, .easeOut, .linear])
            #expect(try await change(#""t": 0.3, "timing": null"#).status == 200)
            #expect(await timings() == [.linear, .linear, .linear])
            let bad = try await change(#""t": 0.3, "timing": "wobbly""#)
            #expect(bad.status == 422 && bad.text.contains("wobbly"), "\(bad.text)")
            let none = try await change(#""t": 0.7, "timing": "easeIn""#)
            #expect(none.status == 422 && none.text.contains("no keyframe at 0.7 s"), "\(none.text)")
            #expect(try await change(#""t": 1, "remove": true"#).status == 200)
            #expect(await Self.times(editor) == [0, 0.3])
            #expect(try await change(#""t": 1, "value": 0.2, "timing": "easeInEaseOut""#).status == 200)
            #expect(await Self.times(editor) == [0, 0.3, 1])
            #expect(await timings() == [.linear, .linear, .easeInEaseOut])
            let range = try await change(#""t": 1, "value": 7"#)
            #expect(range.status == 422 && range.text.contains("shininess"), "\(range.text)")
        }
    }

    /// In a scene with layers a track moves one layer's key: ◆ keyframes `layers[1].size`, an
    /// edit of it at the playhead sets its keyframe there (the base stays), the timeline gives
    /// its value at the playhead, and the frame is `mercurial animate`'s.
    @Test func aLayersKeyIsKeyframedAndEditedAtThePlayhead() async throws {
        let scene = #"{"width": 240, "height": 120, "layers": [{"name": "a", "text": "A", "size": 40}, {"name": "b", "text": "B", "size": 20, "below": "a"}], "animation": {"duration": 1, "fps": 10}}"#
        try await EditorFixture.with(sceneJSON: scene) { (editor: EditorFixture) async throws in
            let add = #"{"key": "@keyframe", "value": "{\"key\": \"layers[1].size\", \"t\": 0}"}"#
            #expect(try await editor.post("/api/set", add).status == 200)
            #expect(await Self.times(editor, "layers[1].size") == [0])
            #expect(try await editor.set(EditorSession.playheadKey, "8").status == 200)
            let edited = try await editor.set("layers[1].size", "36")
            #expect(edited.status == 200 && edited.text.contains(#""addedKeyframes":{"layers[1].size":0.8}"#), "\(edited.text)")
            let track = await editor.session.animation?.tracks.first { $0.key == "layers[1].size" }
            #expect(track?.keyframes.frames.map(\.value) == [.number(20), .number(36)])
            #expect(await editor.session.settings.layers[1].settings.size == 20, "the base stays")
            let state = try await editor.get("/api/state").text
            #expect(state.contains(#""at":{"layers[1].size":"36"}"#), "the track's value at the playhead")
            let bad = try await editor.set("layers[1].size", "-5")
            #expect(bad.status == 422 && bad.text.contains("layers[1].size"), "\(bad.text)")

            try await eventually("frame 8 with the edit") {
                let (frame, revision) = (await editor.session.frame, await editor.session.revision)
                return frame?.playhead == 8 && frame?.revision == revision
            }
            #expect(try await editor.post("/api/save", "{}").status == 200)
            var base = RenderSettings()
            let timeline = try #require(try SceneFile.load(editor.scene.path, into: &base))
            #expect(timeline.tracks.map(\.key) == ["layers[1].size"], "saved as the file's track")
            let expected = try FrameRenderer(base: base, timeline: timeline).frame(8).pixels
            #expect(await same(editor.session.frame?.image.pixels, expected))
        }
    }

    /// The scene edited on disk while the timeline is open: a track taken away and the animation
    /// shortened keep the playhead within it, a move of the gone keyframe is refused with the
    /// reason, and the animation taken away leaves the timeline.
    @Test func aSceneEditedOnDiskWhileTheTimelineIsOpen() async throws {
        try await EditorFixture.with(sceneJSON: Self.scene) { (editor: EditorFixture) async throws in
            #expect(try await editor.set(EditorSession.playheadKey, "9").status == 200)
            let shorter = #"{"text": "Hi", "size": 40, "width": 200, "height": 80, "animation": {"duration": 0.5, "fps": 10}}"#
            try Data(shorter.utf8).write(to: editor.scene)
            try await eventually("the scene read again") { await editor.session.animation?.tracks.isEmpty == true }
            #expect(await editor.session.playhead == 4)
            try await eventually("frame 4 rendered") { await editor.session.frame?.playhead == 4 }
            let gone = try await Self.move(editor, 0.5, to: 0.2)
            #expect(gone.status == 422 && gone.text.contains("has no keyframe at 0.5 s"), "\(gone.text)")
            try Data(#"{"text": "Hi", "size": 40, "width": 200, "height": 80}"#.utf8).write(to: editor.scene)
            try await eventually("the animation gone") { await editor.session.animation == nil }
            #expect(await editor.session.playhead == nil)
        }
    }
}
