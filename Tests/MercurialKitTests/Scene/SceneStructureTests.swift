import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Issue 32: a scene's structural keys are declared once (`SceneSchema.structure`), and where
/// each may be given, and what reading it does, follow from the declaration alone.
@Suite struct SceneStructureTests {
    /// A folder with `files` written in it; returns the folder's path.
    static func folder(_ files: [String: String]) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("structure-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, text) in files { FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(text.utf8)) }
        return dir
    }

    /// The message of reading `run`, or "no error".
    static func message(_ run: () throws -> Void) -> String {
        do {
            try run()
            return "no error"
        } catch let error as MercurialError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    /// `{"KEY": {}}` for each declared key, with a value no place reads before it checks the key.
    static func member(_ key: SchemaKey) -> String { "\"\(key.key)\": {}" }

    /// `SceneSchema.row(at:)` builds only the block that holds a path; for every path of
    /// `SceneSchema.rows` it must give that row (what `params` and the flags' help show).
    @Test func aRowFoundByItsPathIsTheListsRow() {
        for row in SceneSchema.rows {
            let found = SceneSchema.row(at: row.path)
            #expect(found?.path == row.path && found?.help == row.help && found?.kind == row.kind
                    && found?.range == row.range && found?.rangeDescription == row.rangeDescription
                    && found?.defaultValue.text() == row.defaultValue.text(), "\(row.path)")
        }
        #expect(SceneSchema.row(at: "margin.nothing") == nil)
    }

    @Test func everyDeclaredKeyIsAKeyOfAScene() {
        let keys = SceneFile.keys
        for key in SceneSchema.structure {
            #expect(keys.contains(key.key), "\(key.key)")
            #expect(key.places.contains(.scene), "\(key.key) is a key of a scene")
            #expect(SceneSchema.keys(in: .material).contains(key.key) == key.places.contains(.material), "\(key.key)")
        }
        #expect(Set(SceneSchema.structure.map(\.key)).count == SceneSchema.structure.count, "each key declared once")
        // Parameters first, then the declarations in their order: did-you-mean weighs them in this order.
        #expect(keys == ParameterGroup.allParameters.map(\.key) + SceneSchema.structure.map(\.key))
        #expect(!SceneSchema.keys(in: .material).contains("text"))
    }

    @Test func theListsFollowTheDeclarations() throws {
        let structure = SceneSchema.structure
        // The blocks are the scene schema's fields that are no parameter, each a setting anywhere a title's keys go.
        for field in SceneSchema.blocks.fields {
            let key = try #require(SceneSchema.structuralKey(field.key))
            #expect(key.places == .title && key.role == .setting && key.help == field.help, "\(field.key)")
        }
        let sceneWide = structure.filter { $0.places.isDisjoint(with: [.material, .layer]) }.map(\.key)
        #expect(sceneWide == ["animation", "dynamics", "sequence"])
        #expect(Set(structure.filter { !$0.places.contains(.layer) }.map(\.key)) == Set(sceneWide + ["layers"]))
        #expect(Set(structure.filter { !$0.places.contains(.sequence) }.map(\.key)) == ["dynamics", "in", "out", "layers"])
        #expect(Set(structure.filter(\.setsNoSetting).map(\.key))
                == Set(["description", "generator", "fontSHA256", "layers", "in", "out"] + sceneWide))
        #expect(structure.filter { $0.role == .preset }.map(\.key) == ["material"])
        #expect(structure.allSatisfy { ($0.read != nil) == ($0.role == .setting) }, "a setting is read as declared")
    }

    /// A key a layer may not give is refused there, naming the scene; any other is read in the layer.
    @Test(arguments: SceneSchema.structure.map(\.key))
    func aLayerTakesTheKeysDeclaredForIt(_ name: String) throws {
        let key = try #require(SceneSchema.structuralKey(name))
        let message = Self.message {
            _ = try loadScene(#"{"width": 100, "height": 40, "layers": [{"text": "A", "# + Self.member(key) + "}]}")
        }
        if key.places.contains(.layer) {
            #expect(!message.contains("belongs to the scene") && !message.contains("unknown key"), "\(message)")
        } else {
            #expect(message.contains(#""\#(name)" belongs to the scene, not to one of its layers\#(key.layerNote); move it to the top level"#),
                    "\(message)")
        }
    }

    /// A key a material may not give is unknown there; any other is read.
    @Test(arguments: SceneSchema.structure.map(\.key))
    func aMaterialTakesTheKeysDeclaredForIt(_ name: String) throws {
        let key = try #require(SceneSchema.structuralKey(name))
        let dir = Self.folder(["m.json": "{" + Self.member(key) + "}"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var settings = RenderSettings()
        let message = Self.message { try Materials.apply(dir + "/m.json", to: &settings) }
        #expect(message.contains(#"unknown key "\#(name)""#) == !key.places.contains(.material), "\(message)")
    }

    /// A key that shapes one title only is refused beside a sequence; any other is read there.
    @Test(arguments: SceneSchema.structure.map(\.key))
    func aSequenceTakesTheKeysDeclaredForIt(_ name: String) throws {
        let key = try #require(SceneSchema.structuralKey(name))
        guard !["sequence", "animation"].contains(name) else { return }   // the sequence itself, and its animation
        let dir = Self.folder(["s.json": #"{"# + Self.member(key) + #", "sequence": [{"scene": {"text": "A"}, "hold": 1}]}"#])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let message = Self.message { _ = try TitleSequence.load(dir + "/s.json") }
        #expect(message.contains(#""\#(name)" beside "sequence" would apply to no title"#) == !key.places.contains(.sequence),
                "\(message)")
    }

    /// A misspelt key is weighed against every declared key, parameters and structure alike.
    @Test func aMisspeltKeyIsMatchedAgainstEveryDeclaredKey() {
        for key in SceneSchema.structure.map(\.key) where key.count > 2 {
            let typo = String(key.dropLast()) + "#"
            #expect(sceneError(#"{"\#(typo)": 1}"#).contains(#"did you mean "\#(key)"?"#), "\(typo)")
        }
        #expect(sceneError(#"{"lyers": []}"#).contains(#"did you mean "layers"?"#))
    }

    /// The scene's, a layer's and a sequence's `material` are read by one reader: the same message.
    @Test func materialIsReadOnceForTheSceneALayerAndASequence() {
        let expected = #""material" must be a material name or path, not a number"#
        #expect(sceneError(#"{"material": 3}"#).contains("scene.json:1:14: " + expected))
        #expect(sceneError(#"{"layers": [{"text": "A", "material": 3}]}"#).contains("scene.json:1:39: " + expected))
        let dir = Self.folder(["s.json": #"{"material": 3, "sequence": [{"scene": {"text": "A"}}]}"#])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(Self.message { _ = try TitleSequence.load(dir + "/s.json") }.contains("s.json:1:14: " + expected))
        // A name no material has: the bundled list, at the value, in each place.
        #expect(sceneError(#"{"layers": [{"text": "A", "material": "gould"}]}"#).contains("did you mean 'gold'?"))
        #expect(sceneError(#"{"material": "gould"}"#).contains("scene.json:1:14: unknown material 'gould'"))
    }

    /// Each place's preset is the command line's when it gives one: the scene's and the sequence's
    /// through `materialOverride`, a layer's through `layerMaterials`.
    @Test func theCommandLinesMaterialReplacesTheFilesEverywhere() throws {
        var gold = RenderSettings()
        try Materials.apply("gold", to: &gold)
        let s = try loadScene(#"{"material": "chrome", "text": "A"}"#, material: "gold")
        #expect(s.scene.material == gold.scene.material && s.material == "gold")
        let dir = Self.folder(["s.json": #"{"layers": [{"text": "A", "material": "chrome"}], "width": 50, "height": 20}"#,
                               "q.json": #"{"material": "chrome", "sequence": [{"scene": {"text": "A"}}]}"#])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var layered = RenderSettings()
        try SceneFile.load(dir + "/s.json", into: &layered, layerMaterials: [0: "gold"])
        #expect(layered.layers[0].settings.scene.material == gold.scene.material)
        let sequence = try #require(try TitleSequence.load(dir + "/q.json", materialOverride: "gold"))
        #expect(sequence.steps[0].settings.scene.material == gold.scene.material)
    }

    /// The recipe writes each layer's own keys as the layer schema declares them, and reads them back.
    @Test func theRecipeWritesALayersOwnKeysFromTheLayerSchema() throws {
        let s = try loadScene(#"{"width": 300, "height": 200, "layers": [{"name": "a", "text": "A"}, {"below": "a", "gap": 5, "text": "B"}]}"#)
        let recipe = SceneRecipe.json(for: s)
        #expect(recipe.contains(#"{"name": "a", "gap": 12, "#) && recipe.contains(#"{"below": "a", "gap": 5, "#), "\(recipe)")
        var again = RenderSettings()
        try SceneFile.load(json: Array(recipe.utf8), name: "recipe", into: &again)
        #expect(again.layers.map(\.name) == ["a", nil] && again.layers.map(\.below) == [nil, "a"] && again.layers.map(\.gap) == [12, 5])
    }
}
