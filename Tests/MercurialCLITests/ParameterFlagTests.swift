import Testing
import MercurialKit
@testable import mercurial
import MercurialTestSupport

/// The CLI's parameter flags are properties (swift-argument-parser needs them so),
/// named as their rows' keys; these tests keep the two in step.
@Suite struct ParameterFlagTests {
    static let flagRows = ParameterGroup.allParameters.filter { $0.flag != nil }

    @Test func everyRowWithAFlagHasExactlyOneOption() throws {
        let options = try RenderOptions.parse([])
        let keys = parameterFlags(of: options.materialOptions).map(\.key) + parameterFlags(of: options).map(\.key)
        #expect(keys.sorted() == Self.flagRows.map(\.key).sorted())
    }

    /// Every flag, given a value other than its default, sets its own row, and
    /// `--set` comes after the flags.
    @Test func eachFlagSetsItsRow() throws {
        let options = try RenderOptions.parse([
            "--shininess", "0.1", "--font", "serif", "--size", "90", "--width", "300", "--height", "200",
            "--max-lines", "2", "--align", "right", "--anchor", "bottom-left", "--padding", "12", "--line-spacing", "1.5", "--letter-spacing=-3", "--no-kerning", "--no-fallback",
            "--radius", "7", "--profile", "round", "--bevel", "down", "--scale", "12", "--background", "navy",
            "--shading-image", "sphere.png", "--mask", "logo.png", "--opacity", "0.5", "--set", "radius=8",
        ])
        let settings = try options.resolvedSettings(text: "Hi")
        for row in Self.flagRows {
            #expect(row.value(in: settings) != row.defaultValue, "\(row.flagName) did not set \(row.key)")
        }
        #expect(settings.text == "Hi" && settings.size == 90 && settings.alignment == .right && settings.profile == .round)
        #expect(settings.width == 300 && settings.maxLines == 2 && settings.letterSpacing == -3 && !settings.kerning && !settings.fallback)
        #expect(settings.radius == 8, "--set comes last")
        #expect(settings.background == RGBColor.parse("navy") && settings.mask == "logo.png")
    }

    /// `--margin` and `--offset` set the scene's nested keys as `--set` does; `--set` still comes last.
    @Test func placementFlagsSetTheNestedKeys() throws {
        let settings = try RenderOptions.parse(["--margin", "safe", "--offset=-12,8"]).resolvedSettings(text: "Hi")
        #expect(settings.margin == .safe && settings.offset == SIMD2(-12, 8))
        let percent = try RenderOptions.parse(["--margin", "7.5%", "--offset", "[3, 4]", "--set", "offset.y=9"]).resolvedSettings()
        #expect(percent.margin == .percent(7.5) && percent.offset == SIMD2(3, 9))
        #expect(throws: (any Error).self) { try RenderOptions.parse(["--margin", "wide"]).resolvedSettings() }
    }

    /// A layered scene's layers take the flags too (the canvas and backdrop are the first layer's).
    @Test func flagsReachEveryLayer() throws {
        let options = try RenderOptions.parse(["--width", "640", "--set", "background=navy"])
        var settings = RenderSettings()
        try SceneFile.load(json: Array(#"{"width": 800, "height": 400, "layers": [{"text": "A", "size": 50}, {"text": "B"}]}"#.utf8),
                           name: "s.json", into: &settings)
        try options.materialOptions.applyFlags([options], to: &settings)
        #expect(settings.layers.count == 2)
        #expect(settings.layers.allSatisfy { $0.settings.width == 640 && $0.settings.background == RGBColor.parse("navy") })
        #expect(settings.layers[0].settings.size == 50, "a key the flags leave alone stays the layer's own")
    }

    @Test func flagsLeftOutKeepTheSceneOrMaterialValues() throws {
        let settings = try RenderOptions.parse(["--material", "gold"]).resolvedSettings()
        var gold = RenderSettings()
        try MercurialKit.Materials.apply("gold", to: &gold)
        #expect(settings == gold)
    }
}
