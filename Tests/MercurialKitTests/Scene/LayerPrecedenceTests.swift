import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Issue 32, item 3: a layer's settings are its own keys, then the scene's keys, then its
/// preset, then the scene's preset, then the defaults; a scene key no layer takes is said.
@Suite struct LayerPrecedenceTests {
    /// The lower third: gold and chrome layers under a scene that gives `radius`.
    static func lowerThird(_ top: String, layers: String? = nil) -> String {
        let stack = layers ?? #"""
            [{"name": "name", "text": "Jane Doe", "size": 96, "material": "gold"},
             {"name": "role", "below": "name", "gap": 18, "text": "Director of Photography", "size": 44, "material": "chrome"}]
            """#
        return #"{"width": 1920, "height": 1080, "anchor": "bottom-left", "margin": "safe", "# + top + #", "layers": "# + stack + "}"
    }

    @Test func theScenesKeysApplyToLayersOverTheirPresets() throws {
        let s = try loadScene(Self.lowerThird(#""radius": 2, "shininess": 0.2, "light1.hue": 0.3"#))
        #expect(s.layers.count == 2)
        for layer in s.layers {
            #expect(layer.settings.radius == 2 && layer.settings.scene.material.shininess == 0.2)
            #expect(layer.settings.scene.lights[0].hue == 0.3)
        }
        // The presets still give what the scene does not: gold's and chrome's colours.
        var gold = RenderSettings(), chrome = RenderSettings()
        try Materials.apply("gold", to: &gold)
        try Materials.apply("chrome", to: &chrome)
        #expect(s.layers[0].settings.scene.material.diffuse == gold.scene.material.diffuse)
        #expect(s.layers[1].settings.scene.material.diffuse == chrome.scene.material.diffuse)
        #expect(s.layers[0].settings.material == "gold")
        #expect(s.unusedKeys.isEmpty)
    }

    @Test func aLayersOwnKeyBeatsTheScenesAndTheScenesPresetIsUnderTheLayers() throws {
        let s = try loadScene(Self.lowerThird(#""material": "neon", "radius": 4, "shininess": 0.2"#, layers: #"""
            [{"name": "a", "text": "A", "radius": 12, "material": "gold"}, {"name": "b", "below": "a", "text": "B"}]
            """#))
        var gold = RenderSettings(), neon = RenderSettings()
        try Materials.apply("gold", to: &gold)
        try Materials.apply("neon", to: &neon)
        #expect(s.layers[0].settings.radius == 12 && s.layers[1].settings.radius == 4)
        #expect(s.layers.allSatisfy { $0.settings.scene.material.shininess == 0.2 }, "the scene's key is over gold's")
        #expect(s.layers[0].settings.scene.material.diffuse == gold.scene.material.diffuse)
        #expect(s.layers[1].settings.scene.material.diffuse == neon.scene.material.diffuse)
        #expect(s.unusedKeys.isEmpty, "the scene's material and radius reach layer b")
    }

    @Test func aSceneKeyNoLayerTakesIsListedWithItsPlace() throws {
        let s = try loadScene(Self.lowerThird(#""text": "Unused", "size": 50, "material": "neon", "background": "navy""#, layers: #"""
            [{"name": "a", "text": "A", "size": 40, "material": "gold", "background": "black"},
             {"name": "b", "below": "a", "text": "B", "material": "chrome"}]
            """#))
        #expect(s.unusedKeys.map(\.key) == ["text", "material", "background"])
        let text = try #require(s.unusedKeys.first)
        #expect(text.message.contains("scene.json:1:") && text.message.contains("\"text\" applies to no layer"), "\(text.message)")
        // A stacked layer moves with its stack: the scene's anchor is the top layer's to take.
        let placed = try loadScene(Self.lowerThird(#""radius": 3"#, layers: #"""
            [{"name": "a", "text": "A", "anchor": "top-left"}, {"name": "b", "below": "a", "text": "B"}]
            """#))
        #expect(placed.unusedKeys.map(\.key) == ["anchor"])
    }

    /// Issue 33, layers first: what the editor marks before a key is set. On the scene, a key every
    /// layer it reaches gives itself (the text; the canvas of the first layer); on a layer, a key it
    /// gives to no effect (a stacked layer's anchor, a later layer's canvas).
    @Test func theKeysThatWouldDoNothingAreKnownBeforeTheyAreSet() throws {
        let s = try loadScene(Self.lowerThird(#""radius": 3"#, layers: #"""
            [{"name": "a", "text": "A", "width": 640, "height": 360, "material": "gold"}, {"name": "b", "below": "a", "text": "B", "light2.x": 5}]
            """#))
        #expect(s.noLayerTakes("text")?.contains("every layer gives its own \"text\"") == true)
        #expect(s.noLayerTakes("width") != nil && s.noLayerTakes("shininess") == nil && s.noLayerTakes("light2.x") == nil)
        #expect(s.noLayerTakes("material") == nil, "layer b has no preset of its own: the scene's reaches it")
        #expect(s.layer(1, ignores: "anchor")?.contains("top layer") == true)
        #expect(s.layer(1, ignores: "width") != nil && s.layer(0, ignores: "width") == nil && s.layer(0, ignores: "anchor") == nil)
        #expect(s.layer(1, ignores: "radius") == nil)
        #expect(try LayeredTitle.inkBoxes(of: s).count == 2)
        #expect(s.layers[1].ownKeys.contains("light2.x") && s.layers[0].presetKeys != nil && s.layers[1].presetKeys == nil)
    }
}
