import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Issue 32, item 2: one parser of key paths for --set, tracks, batch columns and the editor.
@Suite struct ScenePathTests {
    @Test func pathsNameAKeyOfTheSceneOrOfOneLayer() throws {
        let top = try ScenePath("dropShadow.size")
        #expect(top.layer == nil && top.key == "dropShadow.size" && top.steps == [.key("dropShadow"), .key("size")])
        let layer = try ScenePath("layers[1].light1.hue")
        #expect(layer.layer == 1 && layer.key == "light1.hue" && layer.description == "layers[1].light1.hue")
        #expect(try ScenePath("layers").layer == nil)
        #expect(ScenePath.layerKey("layers[0].dropShadow.size")! == (0, "dropShadow.size"))
        #expect(ScenePath.layerKey("layers[99999999999999999999].size")?.index == Int.max)
        for bad in ["layers[0]", "layers[x].size", "a..b", ""] {
            #expect(throws: MercurialError.self, "\(bad)") { try ScenePath(bad) }
        }
    }

    @Test func setReachesOneLayerOrEveryLayer() throws {
        var s = try loadScene(LayerPrecedenceTests.lowerThird(#""dropShadow": {"size": 10}"#))
        try s.set(assignment: "layers[0].dropShadow.size=20")
        #expect(s.layers[0].settings.dropShadow?.size == 20 && s.layers[1].settings.dropShadow?.size == 10)
        try s.set(assignment: "layers[1].size=30")
        #expect(s.layers[1].settings.size == 30 && s.layers[0].settings.size == 96)
        try s.set(assignment: "radius=3")
        #expect(s.radius == 3 && s.layers.allSatisfy { $0.settings.radius == 3 })
        func message(_ assignment: String) -> String {
            var copy = s
            do { try copy.set(assignment: assignment) } catch { return error.message }
            return "no error"
        }
        #expect(message("layers[5].size=3").contains("names layer 5, but the scene has 2 layers (layers[0] to layers[1])"))
        #expect(message("layers[0].sise=3").contains("did you mean 'size'?"), "\(message("layers[0].sise=3"))")
        #expect(message("layers[0].dropShadow.sise=3").contains("layers[0]"), "\(message("layers[0].dropShadow.sise=3"))")
        #expect(message("layers[1].material=neon").contains("--params"))
    }
}
