import Foundation
import Testing
@testable import MercurialEditor
@testable import MercurialKit
import MercurialTestSupport

/// Lists and typed blocks from the page (issue 22, item 2): `layers`, `in` and `out` are set
/// as the file holds them, whole (adding, removing or moving an element is one change) or by
/// a path into them, and checked as the file's are when it is read.
@Suite(.serialized) struct EditorListTests {
    static let animated = #"{"text": "Hi", "size": 40, "width": 320, "height": 200, "animation": {"duration": 2, "fps": 10}}"#

    /// A change whose value is any text (JSON quoted for the request's body).
    static func set(_ editor: EditorFixture, _ key: String, _ value: String) async throws -> RawHTTP.Response {
        try await editor.post("/api/set", JSONValue.members([("key", .string(key)), ("value", .string(value)), ("tag", .string("test"))]).text())
    }

    @Test func layersAreAddedEditedAndRefusedAsTheFileWouldBe() async throws {
        try await EditorFixture.with(sceneJSON: Self.animated) { (editor: EditorFixture) async throws in
            let two = #"[{"name": "a"}, {"name": "b", "text": "Lo", "below": "a", "size": 20}]"#
            #expect(try await Self.set(editor, "layers", two).status == 200)
            #expect(await editor.session.settings.layers.map(\.name) == ["a", "b"])
            #expect(try await Self.set(editor, "layers[1].text", "Yo").status == 200)
            #expect(await editor.session.settings.layers[1].settings.text == "Yo")
            #expect(try await Self.set(editor, "layers[1].gap", "30").status == 200)
            #expect(await editor.session.settings.layers[1].gap == 30)

            // The last layer taken out, a 17th added, a gap out of range: refused, nothing changed.
            let revision = await editor.session.revision
            let empty = try await Self.set(editor, "layers", "[]")
            #expect(empty.status == 422 && empty.text.contains("give 1 to 16"), "\(empty.text)")
            let many = "[" + (0..<17).map { #"{"text": "L\#($0)"}"# }.joined(separator: ", ") + "]"
            let seventeen = try await Self.set(editor, "layers", many)
            #expect(seventeen.status == 422 && seventeen.text.contains("17 layers"), "\(seventeen.text)")
            let gap = try await Self.set(editor, "layers[1].gap", "99999")
            #expect(gap.status == 422 && gap.text.contains("layers[1].gap"), "\(gap.text)")
            #expect(await editor.session.revision == revision)
            #expect(await editor.session.settings.layers.count == 2)

            // Saved as set; null takes the block out.
            #expect(try await editor.post("/api/save", "{}").status == 200)
            var saved = RenderSettings()
            try SceneFile.load(editor.scene.path, into: &saved)
            #expect(saved.layers.map(\.settings.text) == ["Hi", "Yo"])
            #expect(try await Self.set(editor, "layers", "null").status == 200)
            #expect(await editor.session.settings.layers.isEmpty)
        }
    }

    /// Issue 32, item 3: the scene's controls change its layers (over their presets), and a scene
    /// key no layer takes is listed in the state, with its warning, for the page to mark.
    @Test func theScenesControlsReachItsLayersOrAreMarked() async throws {
        let scene = #"{"text": "Scene", "radius": 6, "width": 320, "height": 200, "layers": [{"name": "a", "text": "A", "size": 40, "material": "gold"}, {"name": "b", "below": "a", "text": "B", "size": 20, "material": "chrome"}]}"#
        try await EditorFixture.with(sceneJSON: scene) { (editor: EditorFixture) async throws in
            #expect(await editor.session.settings.layers.allSatisfy { $0.settings.radius == 6 })
            #expect(try await editor.set("radius", "20").status == 200)
            #expect(await editor.session.settings.layers.allSatisfy { $0.settings.radius == 20 })
            let state = try await editor.get("/api/state")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(state.body)) as? [String: Any])
            let info = try #require(json["editor"] as? [String: Any])
            let unused = try #require(info["unused"] as? [[String: Any]])
            // The file's own key no layer takes first, then (issue 33) the keys no layer would take if
            // the scene set them: each layer has its own preset and size.
            #expect(unused.map { $0["key"] as? String } == ["text", "material", "size"])
            #expect((unused.first?["message"] as? String)?.contains("applies to no layer") == true)
            #expect((unused.last?["message"] as? String)?.contains("every layer gives its own \"size\"") == true)
            // On layer b (stacked below a), what it gives to no effect: the canvas, the placement.
            let layerState = try await editor.get("/api/state?layer=1")
            let layerInfo = try #require((try JSONSerialization.jsonObject(with: Data(layerState.body)) as? [String: Any])?["editor"] as? [String: Any])
            let ignored = try #require(layerInfo["unused"] as? [[String: Any]]).compactMap { $0["key"] as? String }
            #expect(["width", "height", "anchor", "margin"].allSatisfy(ignored.contains) && !ignored.contains("radius"), "\(ignored)")
            #expect(layerInfo["layer"] as? Int == 1 && (layerInfo["overridden"] as? [String])?.contains("size") == true)
        }
    }

    /// A layer added or taken out gets a renderer for the new stack (the cached one holds a
    /// renderer per layer); one made for other layers refuses them rather than crash.
    @Test func aLayerAddedOrRemovedRendersTheNewStack() async throws {
        let one = #"{"text": "Title", "size": 40, "width": 320, "height": 200, "layers": [{"name": "a"}]}"#
        try await EditorFixture.with(sceneJSON: one) { (editor: EditorFixture) async throws in
            await editor.session.waitUntilIdle()
            for layers in [#"[{"name": "a"}, {"name": "b", "text": "Lo", "below": "a", "size": 20}]"#, #"[{"name": "a"}]"#] {
                #expect(try await Self.set(editor, "layers", layers).status == 200)
                await editor.session.waitUntilIdle()
                #expect(await editor.session.lastError == nil)
                #expect(try await editor.get("/frame.rgba").status == 200)
            }
        }
        var settings = RenderSettings()
        try SceneFile.load(json: Array(one.utf8), name: "one.json", into: &settings)
        let renderer = try FrameRenderer(base: settings, timeline: Timeline(duration: 1))
        var two = settings
        var second = two.layers[0]
        second.name = "b"
        two.layers.append(second)
        var canvas = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
        #expect(throws: MercurialError.self) { try renderer.render(two, into: &canvas, showing: nil) }
    }

    /// An optional block's on/off box sends {} and null; a scene file's null leaves out a vine, a push or a rope's anchor too.
    @Test func anOptionalBlockIsTurnedOnAndOff() async throws {
        let scene = #"{"text": "Hi", "size": 40, "width": 320, "height": 200, "pointLights": [{"x": 10, "y": 20}]}"#
        try await EditorFixture.with(sceneJSON: scene) { (editor: EditorFixture) async throws in
            #expect(try await Self.set(editor, "vine", "{}").status == 200)
            #expect(await editor.session.settings.vine != nil)
            #expect(try await Self.set(editor, "vine", "null").status == 200)
            #expect(await editor.session.settings.vine == nil)
            #expect(try await Self.set(editor, "pointLights[0].orbit", #"{"r": 5}"#).status == 200)
            #expect(await editor.session.settings.pointLights[0].orbit?.r == 5)
            #expect(try await Self.set(editor, "pointLights[0].orbit", "null").status == 200)
            #expect(await editor.session.settings.pointLights[0].orbit == nil)
        }
        var settings = RenderSettings()
        let timeline = try SceneFile.load(json: Array(#"{"text": "Hi", "vine": null, "animation": {"duration": 1}, "dynamics": {"push": null, "ropes": [{"body": 0, "anchor": null}]}}"#.utf8),
                                          name: "null.json", into: &settings)
        #expect(timeline?.dynamics?.push == nil && timeline?.dynamics?.ropes.first?.anchor == nil)
    }

    @Test func inAndOutAreChosenByTypeEditedAndTakenOut() async throws {
        try await EditorFixture.with(sceneJSON: Self.animated) { (editor: EditorFixture) async throws in
            #expect(try await Self.set(editor, "in", #"{"type": "fade", "duration": 0.5}"#).status == 200)
            #expect(try await Self.set(editor, "in.duration", "0.8").status == 200)
            #expect(await editor.session.animation?.inOut?.entrance?.duration == 0.8)
            #expect(try await Self.set(editor, "out", #"{"type": "slide", "side": "left"}"#).status == 200)
            let side = try await Self.set(editor, "out.side", "up")
            #expect(side.status == 422 && side.text.contains("out.side"), "\(side.text)")
            #expect(try await editor.post("/api/save", "{}").status == 200)
            let root = try JSONDocument.parse([UInt8](Data(contentsOf: editor.scene)))
            #expect(root.value.at([.key("in")])?.text() == #"{"type": "fade", "duration": 0.8}"#)
            #expect(try await Self.set(editor, "in", "none").status == 200)
            #expect(await editor.session.animation?.inOut?.entrance == nil)
            #expect(await editor.session.animation?.inOut?.exit?.kind == .slide)
        }
    }

    /// The page's emptied rectangle or list sends null: the key is taken out of the scene (null
    /// is not a rectangle nor a list of times), and undo's null after a first value takes it out again.
    @Test func aRectangleOrAListSetToNullIsTakenOut() async throws {
        let dynamics = #"{"text": "Hi", "size": 40, "width": 320, "height": 200, "animation": {"duration": 2, "fps": 10}, "dynamics": {"delays": [0.5, 1]}}"#
        try await EditorFixture.with(sceneJSON: dynamics) { (editor: EditorFixture) async throws in
            #expect(try await Self.set(editor, "dynamics.delays", "[0.25]").status == 200)
            #expect(await editor.session.animation?.dynamics?.delays == [0.25])
            let cleared = try await Self.set(editor, "dynamics.delays", "null")
            #expect(cleared.status == 200, "\(cleared.text)")
            #expect(await editor.session.animation?.dynamics?.delays == [])
            #expect(try await editor.post("/api/save", "{}").status == 200)
            let root = try JSONDocument.parse([UInt8](Data(contentsOf: editor.scene)))
            #expect(root.value.at([.key("dynamics")])?.text() == "{}")
        }
        let sequence = ##"{"width": 200, "height": 80, "size": 40, "animation": {"fps": 10}, "sequence": [{"scene": {"text": "A"}, "hold": 0.5, "transition": {"type": "flash", "duration": 0.5, "extent": [0, 0, 100, 50]}}, {"scene": {"text": "B"}, "hold": 0.5}]}"##
        try await EditorFixture.with(sceneJSON: sequence) { (editor: EditorFixture) async throws in
            let partial = try await Self.set(editor, "sequence[0].transition.extent", "[10, 20]")
            #expect(partial.status == 422 && partial.text.contains("must be a rectangle [x, y, width, height]"), "\(partial.text)")
            let cleared = try await Self.set(editor, "sequence[0].transition.extent", "null")
            #expect(cleared.status == 200, "\(cleared.text)")
            #expect(try await editor.post("/api/save", "{}").status == 200)
            let root = try JSONDocument.parse([UInt8](Data(contentsOf: editor.scene)))
            #expect(root.value.at([.key("sequence"), .index(0), .key("transition")])?.text() == #"{"type": "flash", "duration": 0.5}"#)
        }
    }

    /// What a page puts in a layer is held to the top level's rules: no file outside the
    /// scene's folder, only a bundled material, no fallback fonts.
    @Test func aLayerNamesNoFileOutsideTheScenesFolder() async throws {
        try await EditorFixture.with(sceneJSON: Self.animated) { (editor: EditorFixture) async throws in
            #expect(try await Self.set(editor, "layers", #"[{"text": "A"}]"#).status == 200)
            for (key, value) in [("layers[0].font", "/etc/passwd"), ("layers[0].mask", "../../../../etc/passwd"),
                                 ("layers[0].shadingImage", "/etc/hostname"), ("layers[0].material", "/etc/passwd"),
                                 ("layers[0].image", "/etc/passwd"), ("layers[0].image.file", "../../../../etc/passwd"),
                                 ("image", #"{"file": "/etc/passwd"}"#),
                                 ("layers", #"[{"text": "A", "font": "../x.ttf"}]"#),
                                 ("layers", #"[{"text": "A", "material": "../../m.json"}]"#),
                                 ("layers", #"[{"text": "A", "fallbackFonts": [{"name": "x", "file": "/etc/passwd", "index": 0, "sha256": ""}]}]"#)] {
                let response = try await Self.set(editor, key, value)
                #expect(response.status == 422, "\(key)=\(value): \(response.text)")
            }
            // An image in the scene's folder is taken; a sequence step's scene names none.
            try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("examples/channel-logo.png"),
                                             to: editor.folder.appendingPathComponent("dot.png"))
            let image = try await Self.set(editor, "layers", #"[{"text": "A"}, {"image": "dot.png"}]"#)
            #expect(image.status == 200, "\(image.text)")
            #expect(try await Self.set(editor, "layers[0].font", "serif").status == 200)
            #expect(try await Self.set(editor, "layers[0].material", "gold").status == 200)
        }
    }

    /// Issue 32, item 6: an edit is applied to the scene as the editor holds it, not written
    /// out as text and read again. A value the page set is in no line of the file: its error
    /// names the file and the key, not a line and column of a text the user never saw.
    @Test func aRefusedValueNamesNoPlaceInATextTheUserNeverSaw() async throws {
        try await CLI.withTemporaryDirectory { folder in
            let scene = folder.appendingPathComponent("scene.json")
            try Data("{\"text\": \"Scene\", \"width\": 320, \"height\": 200,\n \"layers\": [{\"name\": \"a\", \"text\": \"A\", \"size\": 40},\n            {\"name\": \"b\", \"below\": \"a\", \"text\": \"B\"}]}\n".utf8).write(to: scene)
            let session = try EditorSession(scenePath: scene.path)
            let place = /scene\.json:\d+:\d+/
            let refused = await #expect(throws: EditorChangeError.self) {
                try await session.apply([.init(key: "layers[0].size", value: #""big""#)], tag: nil)
            }
            let message = try #require(refused?.message)
            // Issue 33: a page's message names no file and no place in it (the scene is the page's own).
            #expect(!message.contains("scene.json") && message.contains("size"), "\(message)")
            #expect(message.firstMatch(of: place) == nil, "\(message)")
            #expect(await session.settings.layers.map(\.settings.size) == [40, RenderSettings().size])
            #expect(await session.settings.layers.map(\.name) == ["a", "b"])
        }
    }

    /// Issue 33's pickers: a preset's sphere and a font's sample are drawn for the names the menus
    /// offer, and for nothing else: a path, a file or a name not offered is refused, never read.
    /// A layer's own keys, and the keys a layer gives to no effect, are known to the page.
    @Test func thePickersDrawOnlyWhatTheMenusOffer() async throws {
        try await CLI.withTemporaryDirectory { folder in
            let session = try EditorSession(scenePath: folder.appendingPathComponent("title.json").path)
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
            #expect(Array(try session.presetSpherePNG("gold").prefix(4)) == png)
            let font = try #require(session.bundledFonts.first)
            #expect(Array(try session.fontPreviewPNG(font, text: "Gold\nline two").prefix(4)) == png)
            #expect(Array(try session.fontPreviewPNG(font, text: "").prefix(4)) == png, "an empty text shows the font's name")
            for name in ["/etc/passwd", "../materials/gold.json", "gold.json", ""] {
                #expect(throws: MercurialError.self) { try session.presetSpherePNG(name) }
                #expect(throws: MercurialError.self) { try session.fontPreviewPNG(name, text: "x") }
            }
            // Real files a path could name: refused as names the menus do not offer (not read and failed).
            let fontFile = try #require(try FileManager.default.contentsOfDirectory(atPath: CLI.packageRoot.appendingPathComponent("fonts").path)
                .first { $0.hasSuffix(".ttf") || $0.hasSuffix(".otf") })
            #expect(throws: MercurialError.self) { try session.fontPreviewPNG(CLI.packageRoot.appendingPathComponent("fonts/" + fontFile).path, text: "x") }
            #expect(throws: MercurialError.self) { try session.presetSpherePNG(CLI.packageRoot.appendingPathComponent("materials/gold.json").path) }
        }
    }

    /// Issue 33's fifth defect: a new scene (no file yet) given a fade-in gets an animation
    /// (3 s at 30 frames a second) with it, and so does one given a keyframe; the fade was
    /// refused with `/tmp/…/my-title.json:10:3: "in" needs an "animation"…`, a path and a
    /// place in a file not yet written.
    @Test func anInOutOrAKeyframeOnAStillSceneGivesItAnAnimation() async throws {
        try await CLI.withTemporaryDirectory { folder in
            let fresh = try EditorSession(scenePath: folder.appendingPathComponent("my-title.json").path)
            #expect(await fresh.animation == nil)
            _ = try await fresh.apply([.init(key: "in", value: #"{"type": "fade"}"#)], tag: nil)
            let timeline = try #require(await fresh.animation)
            #expect(timeline.duration == 3 && timeline.fps == 30 && timeline.inOut != nil)
            // Taking the in out again leaves the animation as it is; "none" on a still scene adds none.
            let still = try EditorSession(scenePath: folder.appendingPathComponent("still.json").path)
            _ = try await still.apply([.init(key: "out", value: "none")], tag: nil)
            #expect(await still.animation == nil)
            // A keyframe (the page's ◆) on a still scene.
            _ = try await still.apply([.init(key: "@keyframe:radius", value: #"{"key": "radius", "t": 1}"#)], tag: nil)
            #expect(await still.animation?.tracks.map(\.key) == ["radius"])
            // A refusal (an out longer than the animation) names no file.
            let refused = await #expect(throws: EditorChangeError.self) {
                try await fresh.apply([.init(key: "out", value: #"{"type": "fade", "duration": 9}"#)], tag: nil)
            }
            #expect(refused?.message.contains("my-title.json") == false, "\(refused?.message ?? "")")
            // A layer's own in on a still scene gives it an animation too.
            let layered = try EditorSession(scenePath: folder.appendingPathComponent("layered.json").path)
            _ = try await layered.apply([.init(key: "layers", value: #"[{"text": "A"}, {"text": "B", "name": "y"}]"#)], tag: nil)
            #expect(await layered.animation == nil)
            _ = try await layered.apply([.init(key: "layers[1].in", value: #"[{"type": "fade"}, {"type": "slide"}]"#)], tag: nil)
            #expect(await layered.animation?.duration == 3)
            #expect(await layered.settings.layers[1].inOut?.entrances.map(\.kind) == [.fade, .slide])
        }
    }
}
