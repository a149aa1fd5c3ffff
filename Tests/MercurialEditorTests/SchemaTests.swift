import Foundation
import Testing
@testable import MercurialEditor
@testable import MercurialKit
import MercurialTestSupport

extension Vine {
    /// A key the tests add to the vine block: half a leaf's length. Its code is this property.
    var leafRadiusForTest: Double {
        get { leafSize / 2 }
        set { leafSize = newValue * 2 }
    }
}

/// The scene schema (Scene/Schema.swift, Scene/SceneSchema.swift): nested blocks declared once.
/// With the editor's tests because a key added to the schema must reach the editor too.
@Suite struct SchemaTests {
    /// The scene schema with one more vine key, declared as every key is, and nothing else changed.
    static let extended: Schema<RenderSettings> = {
        let vine = SceneSchema.vine.adding(SchemaField("leafRadius", \.leafRadiusForTest, .number(0...50),
                                                       help: "half a leaf's length"))
        return SceneSchema.settings.replacing(SchemaField("vine", \.vine, SchemaValue.block(vine).optional(what: "a \"vine\""),
                                                          help: "a growing vine"))
    }()

    static func load(_ json: String) throws(MercurialError) -> (RenderSettings, Timeline?) {
        var settings = RenderSettings()
        let timeline = try SceneFile.load(json: Array(json.utf8), name: "s.json", into: &settings)
        return (settings, timeline)
    }

    static func error(_ json: String) -> String {
        do { _ = try load(json); return "" } catch { return error.message }
    }

    @Test func aKeyAddedToANestedBlockReachesParamsReaderWriterTracksAndTheEditor() async throws {
        try await SceneSchema.$settings.withValue(Self.extended) {
            // params, --json and docs/parameters.md's table.
            let row = try #require(SceneSchema.rows.first { $0.path == "vine.leafRadius" })
            #expect(row.kind == "number" && row.range == 0...50 && row.defaultValue.text() == "10" && row.help == "half a leaf's length")
            #expect(ParameterGroup.markdownNested.contains("| `vine.leafRadius` | number | 0…50 | 10 | half a leaf's length |"))
            // The reader, with the range and did-you-mean.
            let (settings, _) = try Self.load(#"{"text": "Hi", "vine": {"leafRadius": 7}}"#)
            #expect(settings.vine?.leafSize == 14)
            #expect(Self.error(#"{"vine": {"leafRadius": 51}}"#).contains(#""vine.leafRadius" is 51, out of range 0…50"#))
            #expect(Self.error(#"{"vine": {"leafRadus": 5}}"#).contains(#"did you mean "leafRadius"?"#))
            // The writer: the recipe holds it and reads back to the same settings.
            let recipe = SceneRecipe.json(for: settings)
            #expect(recipe.contains(#""leafRadius": 7"#))
            #expect(try Self.load(recipe).0.vine == settings.vine)
            // A track can animate it.
            let (base, timeline) = try Self.load(#"{"text": "Hi", "vine": {}, "animation": {"duration": 2, "tracks": {"vine.leafRadius": [{"t": 0, "value": 1}, {"t": 2, "value": 5}]}}}"#)
            #expect(try #require(timeline).settings(at: 1, base: base).vine?.leafSize == 6)
            // The editor: its state lists the key (the page makes a control with data-key = the path of each
            // row of "nested"), a change to it is applied, and Save writes it.
            let state = try #require(JSONSerialization.jsonObject(with: Data(ParameterGroup.json(values: settings).utf8)) as? [String: Any])
            let nested = try #require(state["nested"] as? [[String: Any]])
            let control = try #require(nested.first { $0["key"] as? String == "vine.leafRadius" })
            #expect(control["value"] as? Double == 7 && control["range"] as? [Double] == [0, 50])
            #expect((EditorPage.script.text + EditorPage.sceneScript.text).contains("json.parameters.concat(json.nested"))
            #expect((EditorPage.script.text + EditorPage.sceneScript.text).contains("div.dataset.key = row.key"))
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let scene = folder.appendingPathComponent("scene.json")
            try Data(#"{"text": "Hi", "size": 40, "vine": {"leafRadius": 3}}"#.utf8).write(to: scene)
            let session = try EditorSession(scenePath: scene.path)
            #expect(await session.settings.vine?.leafSize == 6)
            _ = try await session.apply([.init(key: "vine.leafRadius", value: "4.5")], tag: nil)
            #expect(await session.settings.vine?.leafSize == 9)
            await #expect(throws: EditorChangeError.self) { try await session.apply([.init(key: "vine.leafRadius", value: "60")], tag: nil) }
            _ = try await session.save(overwrite: true)
            #expect(try String(contentsOf: scene, encoding: .utf8).contains(#""leafRadius": 4.5"#))
        }
        // Outside the extension the key is unknown again.
        #expect(!SceneSchema.rows.contains { $0.path == "vine.leafRadius" })
        #expect(Self.error(#"{"vine": {"leafRadius": 7}}"#).contains(#"unknown key "leafRadius" in "vine""#))
    }

    @Test func everyNestedBlockIsDeclaredWithKindRangeAndDefault() {
        let paths = SceneSchema.rows.map(\.path)
        for path in ["pointLights[].intensity", "pointLights[].orbit.period", "backgroundGradient.startPoint", "vine.branchAngle",
                     "animation.fps", "dynamics.elasticity", "dynamics.gravity.magnitude", "dynamics.push.at",
                     "dynamics.bodyOverrides[].density", "dynamics.ropes[].segments"] {
            #expect(paths.contains(path), "\(path)")
        }
        #expect(Set(paths).count == paths.count)
        for row in SceneSchema.rows where ["number", "integer"].contains(row.kind) {
            #expect(row.range != nil, "\(row.path) has a range")
        }
    }

    @Test func trackTargetsResolveThroughTheSchemaAndKeepTheirOldNames() throws {
        let scene = #"""
        {"text": "Hi", "size": 40, "pointLights": [{"x": 10, "y": 20, "intensity": 1}, {"x": 0, "y": 0}],
         "backgroundGradient": {"colors": ["black", "white"]}, "vine": {},
         "animation": {"duration": 2, "tracks": {
           "pointLights[1].intensity": [{"t": 0, "value": 0}, {"t": 2, "value": 2}],
           "pointLight1.x": [{"t": 0, "value": 100}],
           "backgroundGradient.startY": [{"t": 0, "value": 0.25}],
           "backgroundGradient.endPoint.x": [{"t": 0, "value": 0.75}],
           "backgroundGradient.color2": [{"t": 0, "value": "red"}],
           "backgroundGradient.colors[0]": [{"t": 0, "value": "blue"}],
           "vine.width": [{"t": 0, "value": 2}, {"t": 2, "value": 10}]}}}
        """#
        let (base, timeline) = try Self.load(scene)
        let at1 = try #require(timeline).settings(at: 1, base: base)
        #expect(at1.pointLights[1].intensity == 1 && at1.pointLights[0].x == 100)
        let gradient = try #require(at1.backgroundGradient)
        #expect(gradient.startPoint == SIMD2(0.5, 0.25) && gradient.endPoint == SIMD2(0.75, 1))
        #expect(gradient.gradient.stops.map(\.color) == ["blue", "red"].compactMap(RGBColor.parse))
        #expect(at1.vine?.width == 6)

        func trackError(_ track: String, extra: String = "") -> String {
            Self.error(#"{"text": "Hi", \#(extra) "animation": {"duration": 1, "tracks": {"\#(track)": [{"t": 0, "value": 1}]}}}"#)
        }
        #expect(trackError("pointLights[3].x", extra: #""pointLights": [{"x": 1, "y": 2}],"#)
            .contains("names point light 4, but the scene has 1"))
        #expect(trackError("vine.width").contains(#"needs a "vine" in the scene"#))
        #expect(trackError("vine.widht", extra: #""vine": {},"#).contains(#"did you mean "vine.width"?"#))
        #expect(trackError("vine.width", extra: #""vine": {},"#) == "")
        #expect(trackError("vine.path", extra: #""vine": {},"#).contains("unknown track"))
    }

    @Test func setTakesNestedPaths() throws {
        var settings = RenderSettings()
        try settings.set(assignment: "vine.width=9")
        #expect(settings.vine?.width == 9 && settings.vine?.seed == Vine().seed)
        try settings.set(assignment: "vine.branchAngle=[10, 20]")
        try settings.set(assignment: #"pointLights=[{"x": 1, "y": 2}, {"x": 3, "y": 4}]"#)
        try settings.set(assignment: "pointLights[].color=gold")
        try settings.set(assignment: "pointLights[1].intensity=2")
        #expect(settings.vine?.branchAngle == 10...20)
        #expect(settings.pointLights.map(\.color) == ["gold", "gold"].compactMap(RGBColor.parse))
        #expect(settings.pointLights.map(\.intensity) == [0.8, 2])
        do {
            try settings.set(assignment: "vine.width=0")
            Issue.record("vine.width=0 was taken")
        } catch {
            #expect(error.message == #""vine.width" is 0, out of range 1…200; give a number in that range"#)
        }
        #expect(throws: MercurialError.self) { try settings.set(assignment: "backgroundGradient.startPoint=[0, 0]") }
        #expect(settings.vine?.width == 9, "a refused value changes nothing")
    }

    /// An index one past a list's end adds an element made from the defaults; further on is refused with the fix.
    @Test func setAddsAListElementAtTheEnd() throws {
        var settings = RenderSettings()
        try settings.set(assignment: "pointLights[0].x=0.25")
        try settings.set(assignment: "pointLights[1].color=red")
        #expect(settings.pointLights.count == 2)
        #expect(settings.pointLights[0].x == 0.25 && settings.pointLights[0].intensity == PointLight(x: 0, y: 0).intensity)
        #expect(settings.pointLights[1].color == RGBColor.parse("red"))
        do {
            try settings.set(assignment: "pointLights[5].x=1")
            Issue.record("pointLights[5] was taken with 2 lights")
        } catch {
            #expect(error.message == "'pointLights[5]': the scene has 2 point lights; use 'pointLights[2]' to add one")
        }
        #expect(throws: MercurialError.self) { try settings.set(assignment: "pointLights[2].intensity=99") }
        #expect(settings.pointLights.count == 2, "a refused index or value adds nothing")
    }

    @Test func paramsJSONListsEveryNestedKey() async throws {
        let root = try await CLI.paramsJSON()
        let nested = try #require(root["nested"] as? [[String: Any]])
        #expect(nested.compactMap { $0["key"] as? String } == SceneSchema.rows.map(\.path))
        for row in nested {
            #expect(row["kind"] is String && row.keys.contains("default") && row["help"] is String, "\(row)")
        }
        let width = try #require(nested.first { $0["key"] as? String == "vine.width" })
        #expect(width["range"] as? [Double] == [1, 200] && width["default"] as? Double == 6)
        // The editor edits the settings' blocks; the animation's and dynamics' keys are shown only.
        #expect(width["editable"] as? Bool == true)
        #expect(nested.first { $0["key"] as? String == "dynamics.elasticity" }?["editable"] as? Bool == false)
        #expect((EditorPage.script.text + EditorPage.sceneScript.text).contains("row.editable === false"))
        // Every row has the same fields: the page tells a block's rows from the parameters' by
        // their "nested" field, not by which fields a row has.
        #expect(nested.allSatisfy { $0["nested"] as? Bool == true })
        #expect(!(EditorPage.script.text + EditorPage.sceneScript.text).contains("'editable' in"), "the page tells rows apart by their fields")
    }
}
