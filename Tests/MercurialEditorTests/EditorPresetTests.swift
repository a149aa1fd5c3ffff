import Foundation
import Testing
@testable import MercurialEditor
@testable import MercurialKit
import MercurialTestSupport

/// A scene is its preset plus the keys the user set (issue 22, item 1).
@Suite(.serialized) struct EditorPresetTests {
    static func settings(_ json: String) throws -> RenderSettings {
        var settings = RenderSettings()
        try SceneFile.load(json: Array(json.utf8), name: "expected.json", into: &settings)
        return settings
    }

    /// The issue's repro: shininess 0.1 and radius 20, then preset chrome: they stay over
    /// chrome; back to mercurial: they stay over mercurial.
    @Test func aPresetSwitchKeepsTheKeysTheUserSet() async throws {
        try await EditorFixture.with(sceneJSON: #"{"text": "Hi", "size": 40}"#) { (editor: EditorFixture) async throws in
            for (key, value) in [("shininess", "0.1"), ("radius", "20"), ("material", "chrome")] {
                let answer = try await editor.set(key, value)
                #expect(answer.status == 200, "\(key)=\(value): \(answer.status.map(String.init) ?? "no answer") \(answer.text)")
            }
            let overChrome = await editor.session.settings
            #expect(overChrome == (try Self.settings(#"{"text": "Hi", "size": 40, "material": "chrome", "shininess": 0.1, "radius": 20}"#)))
            #expect(overChrome.scene.material.shininess == 0.1 && overChrome.radius == 20)
            #expect(await editor.session.overriddenKeys == ["text", "size", "shininess", "radius"])
            #expect(try await editor.set("material", "mercurial").status == 200)
            #expect(await editor.session.settings == (try Self.settings(#"{"text": "Hi", "size": 40, "shininess": 0.1, "radius": 20}"#)))
            // A key set back to the preset's own value is no longer the user's: the next preset's shows.
            #expect(try await editor.set("radius", "10").status == 200)
            #expect(try await editor.set("material", "gold").status == 200)
            #expect(await editor.session.overriddenKeys == ["text", "size", "shininess"])
        }
    }

    /// Save writes the file's own members in its order (description, material, blocks the
    /// editor has no control for, the animation), only the keys that differ from the preset,
    /// and new keys at the end; the saved file renders as the editor shows.
    @Test func saveKeepsTheMaterialTheDescriptionAndTheFilesOrder() async throws {
        let scene = #"""
        {"description": "my gold title", "text": "Hi", "material": "gold", "size": 40,
         "lights": [{"x": 5}], "vine": {"seed": 3},
         "animation": {"duration": 1, "fps": 10, "tracks": {"light1.hue": [{"t": 0, "value": 0}, {"t": 1, "value": 0.5}]}}}
        """#
        try await EditorFixture.with(sceneJSON: scene) { (editor: EditorFixture) async throws in
            #expect(try await editor.set("shininess", "0.2").status == 200)
            #expect(try await editor.set("light1.x", "-7").status == 200)
            #expect(try await editor.set("size", "48").status == 200)
            // Set to gold's own value: not written.
            #expect(try await editor.set("reflectivity", "0.65").status == 200)
            #expect(try await editor.post("/api/save", "{}").status == 200)
            let root = try JSONDocument.parse([UInt8](Data(contentsOf: editor.scene)))
            guard case .object(let members) = root.value else { Issue.record("not an object"); return }
            #expect(members.map(\.key) == ["description", "text", "material", "size", "lights", "vine", "animation", "shininess"])
            let saved = Dictionary(uniqueKeysWithValues: members.map { ($0.key, $0.value.value.text()) })
            #expect(saved["description"] == #""my gold title""#)
            #expect(saved["material"] == #""gold""#)
            #expect(saved["lights"] == #"[{"x": -7}]"#)
            #expect(saved["vine"] == #"{"seed": 3}"#)
            #expect(saved["size"] == "48")
            var reloaded = RenderSettings()
            let timeline = try SceneFile.load(editor.scene.path, into: &reloaded)
            #expect(reloaded == (await editor.session.settings))
            #expect(timeline?.tracks.map(\.key) == ["light1.hue"])
        }
    }

    /// A new scene's save names its preset, so reopening shows the same material.
    @Test func aNewScenesSaveNamesItsPreset() async throws {
        try await EditorFixture.with(sceneJSON: nil) { (editor: EditorFixture) async throws in
            #expect(try await editor.set("material", "copper").status == 200)
            #expect(try await editor.set("radius", "14").status == 200)
            #expect(try await editor.post("/api/save", "{}").status == 200)
            let reopened = try EditorSession(scenePath: editor.scene.path)
            #expect(await reopened.settings.material == "copper")
            #expect(await reopened.settings == (await editor.session.settings))
        }
    }
}

/// The timeline's changes (issue 22, item 3): the playhead, keyframes and the animation's own keys.
@Suite(.serialized) struct EditorTimelineTests {
    static let scene = #"{"text": "Hi", "size": 40, "width": 200, "height": 80, "animation": {"duration": 1, "fps": 10, "tracks": {"light1.hue": [{"t": 0, "value": 0}, {"t": 1, "value": 0.9}]}}}"#

    /// The frame at the playhead is `mercurial animate`'s frame: the same renderer's, pixel for pixel.
    @Test func thePlayheadShowsTheAnimationsFrame() async throws {
        try await EditorFixture.with(sceneJSON: Self.scene) { (editor: EditorFixture) async throws in
            #expect(try await editor.set(EditorSession.playheadKey, "7").status == 200)
            try await eventually("frame 7 on screen") { await editor.session.frame?.playhead == 7 }
            var base = RenderSettings()
            let timeline = try #require(try SceneFile.load(editor.scene.path, into: &base))
            let expected = try FrameRenderer(base: base, timeline: timeline).frame(7)
            #expect(await same(editor.session.frame?.image.pixels, expected.pixels))
            #expect(await editor.session.frame?.image.pixels != (try TitleRenderer.render(base).image.pixels))
            // Out of the animation: refused, with the frames there are.
            let refused = try await editor.set(EditorSession.playheadKey, "10")
            #expect(refused.status == 422)
            #expect(refused.text.contains("give a frame from 0 to 9"), "\(refused.text)")
        }
    }

    /// A keyframe at the playhead takes the control's value; one out of the animation is refused;
    /// the animation's own keys (fps) are set in the scene and saved.
    @Test func keyframesAndTheAnimationsKeysAreEditedAndSaved() async throws {
        try await EditorFixture.with(sceneJSON: Self.scene) { (editor: EditorFixture) async throws in
            #expect(try await editor.set("shininess", "0.2").status == 200)
            #expect(try await editor.post("/api/set", #"{"key": "@keyframe", "value": "{\"key\": \"shininess\", \"t\": 0.5}"}"#).status == 200)
            let tracks = try #require(await editor.session.animation?.tracks)
            #expect(tracks.map(\.key) == ["light1.hue", "shininess"])
            #expect(tracks.last?.keyframes.frames.map(\.time) == [0.5])
            let late = try await editor.post("/api/set", #"{"key": "@keyframe", "value": "{\"key\": \"shininess\", \"t\": 3}"}"#)
            #expect(late.status == 422 && late.text.contains("outside the animation"), "\(late.text)")
            #expect(try await editor.set("animation.fps", "20").status == 200)
            #expect(await editor.session.animation?.frameCount == 20)
            #expect(try await editor.set("animation.fps", "0").status == 422)
            #expect(try await editor.post("/api/set", #"{"key": "@keyframe", "value": "{\"key\": \"shininess\", \"t\": 0.5, \"remove\": true}"}"#).status == 200)
            #expect(await editor.session.animation?.tracks.map(\.key) == ["light1.hue"])
            #expect(try await editor.post("/api/save", "{}").status == 200)
            var saved = RenderSettings()
            let timeline = try SceneFile.load(editor.scene.path, into: &saved)
            #expect(timeline?.frameCount == 20 && saved.scene.material.shininess == 0.2)
        }
    }

    /// An export the page cannot write is refused at once with the file named; one whose
    /// last page closes is cancelled, and leaves no file and no render running.
    @Test func anExportThatCannotBeWrittenOrWhosePageClosesLeavesNothing() async throws {
        let long = Self.scene.replacingOccurrences(of: #""duration": 1"#, with: #""duration": 60"#)
        try await EditorFixture.with(sceneJSON: long) { (editor: EditorFixture) async throws in
            let blocked = editor.folder.appendingPathComponent("scene.webm")
            try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: false)
            let refused = try await editor.post("/api/export-video", #"{"format": "webm"}"#)
            #expect(refused.status == 422 && refused.text.contains("scene.webm"), "\(refused.text)")
            #expect(await !editor.session.isExporting)
            try FileManager.default.removeItem(at: blocked)

            let page = try EventListener(port: editor.port, token: editor.server.token)
            try await eventually("the page to listen") { await editor.session.clientCount == 1 }
            let started = try await editor.post("/api/export-video", #"{"format": "webm"}"#)
            #expect(started.status == 200, "\(started.text)")
            try await eventually("the export's progress") { page.events("export").contains { ($0["done"] as? Int ?? 0) > 0 } }
            page.stop()
            try await eventually("the export to stop with its page") { await !editor.session.isExporting }
            let names = try FileManager.default.contentsOfDirectory(atPath: editor.folder.path)
            #expect(names == ["scene.json"], "\(names)")
        }
    }
}
