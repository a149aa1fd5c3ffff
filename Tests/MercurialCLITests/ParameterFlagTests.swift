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
            "--max-lines", "2", "--align", "right", "--line-spacing", "1.5", "--letter-spacing=-3", "--no-kerning", "--no-fallback",
            "--radius", "7", "--profile", "round", "--scale", "12", "--background", "navy",
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

    @Test func flagsLeftOutKeepTheSceneOrMaterialValues() throws {
        let settings = try RenderOptions.parse(["--material", "gold"]).resolvedSettings()
        var gold = RenderSettings()
        try MercurialKit.Materials.apply("gold", to: &gold)
        #expect(settings == gold)
    }
}
