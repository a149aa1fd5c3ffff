import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite struct ParameterTests {
    @Test func everyKeyIsListedOnceInItsGroup() {
        let keys = ParameterGroup.allParameters.map(\.key)
        #expect(Set(keys).count == keys.count)
        let layout = ["text", "font", "size", "width", "height", "align", "lineSpacing", "letterSpacing", "kerning",
                      "maxLines", "profile", "background", "shadingImage", "mask"]
        for required in ["shininess", "radius", "scale"] + layout + (1...4).flatMap({ i in
            ["hue", "brightness", "x", "y", "z"].map { "light\(i).\($0)" } }) {
            #expect(keys.contains(required), "\(required)")
        }
        #expect(ParameterGroup.all.map(\.name).prefix(3) == ["Material", "Height field", "Light 1"])
        #expect(ParameterGroup.all.flatMap(\.parameters).map(\.key) == keys, "groups keep the table's order")
    }

    @Test func eachParameterFunctionHasOneRow() {
        let functions = ParameterGroup.allParameters.map(\.parameterFunction)
        #expect(Set(functions).count == functions.count)
    }

    /// The defaults are valid for their own rows and read back from what they print.
    @Test func everyDefaultIsValidAndRoundTripsThroughItsText() throws {
        for row in ParameterGroup.allParameters {
            #expect(throws: Never.self, "\(row.key)") { try row.validate(row.defaultValue) }
            #expect(try row.parse(row.format(row.defaultValue)) == row.defaultValue, "\(row.key)")
        }
    }

    @Test func defaultsAreTheOriginals() throws {
        let settings = RenderSettings()
        func value(_ key: String) throws -> ParameterValue {
            try ParameterGroup.parameter(forKey: key).value(in: settings)
        }
        #expect(try value("shininess") == .number(0.02))
        #expect(try value("light2.hue") == .number(0.333))
        #expect(try value("light2.y") == .number(-35))
        #expect(try value("light3.z") == .number(-10))
        #expect(try value("light4.z") == .number(35))
        #expect(try value("radius") == .number(10))
        #expect(try value("scale") == .number(10))
        #expect(try value("size") == .unset, "auto: 160, or as large as fits a given canvas")
        #expect(try value("align") == .unset, "auto: the anchor's side, centred for the default anchor")
        #expect(try value("anchor") == .choice("center") && value("padding") == .unset)
        #expect(try value("profile") == .choice("liquid"))
        #expect(try value("maxLines") == .integer(5))
        #expect(try value("width") == .unset && value("background") == .unset)
    }

    @Test func setAppliesThroughTheRow() throws {
        var settings = RenderSettings()
        try settings.set(assignment: "light3.x=12.5")
        try settings.set(assignment: "light1.hue = 0.5")
        try settings.set(assignment: "diffuse=#ff8000")
        #expect(settings.scene.lights[2].position.x == 12.5)
        #expect(settings.scene.lights[0].hue == 0.5)
        #expect(settings.scene.material.diffuse == RGBColor(r: 1, g: 128.0 / 255, b: 0))
    }

    @Test func layoutParametersAreSetLikeAnyOther() throws {
        var settings = RenderSettings()
        for assignment in ["size=200", "align=left", "profile=chisel", "width=800", "height=auto", "maxLines=3",
                           "lineSpacing=1.5", "letterSpacing=-4", "kerning=off", "background=#102030",
                           "text=Hello world", "font=serif", "mask=logo.png", "shadingImage=none"] {
            try settings.set(assignment: assignment)
        }
        #expect(settings.size == 200 && settings.alignment == .left && settings.profile == .chisel)
        #expect(settings.width == 800 && settings.height == nil && settings.maxLines == 3)
        #expect(settings.lineSpacing == 1.5 && settings.letterSpacing == -4 && !settings.kerning)
        #expect(settings.background == RGBColor.parse("#102030") && settings.text == "Hello world")
        #expect(settings.font == "serif" && settings.mask == "logo.png" && settings.shadingImage == nil)
        try settings.set(assignment: "background=transparent")
        try settings.set(assignment: "width=auto")
        #expect(settings.background == nil && settings.width == nil)
    }

    @Test(arguments: [
        ("light1.x=80", "light1.x is 80, out of range -50…50"),
        ("light1.z=-11", "out of range -10…50"),
        ("shininess=0", "out of range 0.001…0.25"),
        ("radius=nan", "not a finite number"),
        ("scale=inf", "not a finite number"),
        ("light1.hue=abc", "is not a number"),
        ("diffuse=blurple", "is not a colour"),
        ("light5.x=1", "unknown parameter 'light5.x'"),
        ("shinyness=0.1", "did you mean 'shininess'"),
        ("radius", "has no '='"),
        ("size=0", "size is 0, out of range 1…8192"),
        ("align=justify", "align = 'justify' is not known; use left, center or right"),
        ("profile=bumpy", "use liquid, chisel or round"),
        ("maxLines=0", "maxLines is 0, out of range 1…100"),
        ("width=1.5", "width = '1.5' is not a whole number; give one in 1…16384 or auto"),
        ("width=0", "width is 0, out of range 1…16384"),
        ("kerning=maybe", "kerning = 'maybe' is not true or false"),
        ("background=blurple", "or transparent"),
        ("size=big", "size = 'big' is not a number"),
        ("lineSpacing=0", "lineSpacing is 0, out of range 0.1…10"),
        ("text=" + String(repeating: "a", count: 10_001), "text is 10001 characters long"),
    ])
    func badAssignmentsNameTheKeyAndTheRange(_ assignment: String, _ fragment: String) {
        var settings = RenderSettings()
        do {
            try settings.set(assignment: assignment)
            Issue.record("\(assignment) was accepted")
        } catch {
            #expect(error.message.contains(fragment), "\(error.message)")
        }
        #expect(settings == RenderSettings(), "a refused value changes nothing")
    }

    @Test func colourParsing() {
        #expect(RGBColor.parse("#fff") == .white)
        #expect(RGBColor.parse("Black") == .black)
        #expect(RGBColor.parse("#00ff00") == RGBColor(r: 0, g: 1, b: 0))
        #expect(RGBColor.parse("#12345") == nil && RGBColor.parse("#gg0000") == nil && RGBColor.parse("blurple") == nil)
        #expect(RGBColor.parse("gold")?.hex == "#ffd700")
    }

    /// `params --json` is what a later editor builds its controls from: every key,
    /// with its kind, range or cases, and default, as the table declares them.
    @Test func jsonListsEveryKeyWithKindRangeAndDefault() throws {
        var settings = RenderSettings()
        try settings.set(assignment: "light2.hue=0.6")
        let data = Data(ParameterGroup.json(values: settings).utf8)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let rows = try #require(root["parameters"] as? [[String: Any]])
        #expect(rows.compactMap { $0["key"] as? String } == ParameterGroup.allParameters.map(\.key))
        for (json, row) in zip(rows, ParameterGroup.allParameters) {
            #expect(json["group"] as? String == row.group && json["help"] as? String == row.help, "\(row.key)")
            #expect(json["kind"] as? String == row.kind.name, "\(row.key)")
            #expect(json.keys.contains("default") && json.keys.contains("value"), "\(row.key)")
        }
        func row(_ key: String) -> [String: Any] { rows.first { $0["key"] as? String == key } ?? [:] }
        #expect(row("size")["range"] as? [Double] == [1, 8192] && row("size")["default"] is NSNull
                && row("size")["unset"] as? String == "auto")
        #expect(row("size")["flag"] as? String == "--size" && row("light1.hue")["flag"] is NSNull)
        #expect(row("align")["kind"] as? String == "enum" && row("align")["cases"] as? [String] == ["left", "center", "right"])
        #expect(row("profile")["default"] as? String == "liquid")
        #expect(row("maxLines")["range"] as? [Int] == [1, 100] && row("maxLines")["default"] as? Int == 5)
        #expect(row("width")["default"] is NSNull && row("width")["unset"] as? String == "auto")
        #expect(row("diffuse")["default"] as? String == "#555555" && row("kerning")["default"] as? Bool == true)
        #expect(row("light2.hue")["default"] as? Double == 0.333 && row("light2.hue")["value"] as? Double == 0.6)
    }

    /// Issue 32's "one schema for every key": a program reads every row of `params --json` the
    /// same way, a top-level parameter's as a nested block's: the same fields in every row
    /// (`flag`, `editable`, `unset` and one range form on each, null where a key has none).
    @Test func everyRowOfParamsJSONHasTheSameFields() async throws {
        let root = try await CLI.paramsJSON()
        let parameters = try #require(root["parameters"] as? [[String: Any]])
        let nested = try #require(root["nested"] as? [[String: Any]])
        #expect(!parameters.isEmpty && !nested.isEmpty)
        let fields = Set(try #require(parameters.first).keys)
        for row in parameters + nested {
            #expect(Set(row.keys) == fields, "\(row["key"] ?? "?") has \(row.keys.sorted()), not \(fields.sorted())")
            #expect(row["range"] is NSNull || (row["range"] as? [Double])?.count == 2, "\(row["key"] ?? "?")")
            #expect(row["rangeText"] is String && row["editable"] is Bool && row["nested"] is Bool, "\(row["key"] ?? "?")")
        }
        for field in ["flag", "editable", "unset", "range", "cases", "rangeText"] { #expect(fields.contains(field), "\(field)") }
    }

    /// Issue 32's "one schema for every key": a top-level parameter is declared once, as a field of
    /// the scene's schema with its row, and the scene reader, `--set`, `params` and their errors all
    /// read that field: the schema with a narrower `radius` refuses a scene's and `--set`'s 100.
    @Test func aParameterIsAFieldOfTheScenesSchemaThatEverythingReads() throws {
        let narrow = SceneSchema.settings.replacing(SchemaField("radius", "Height field", "Radius", .adjustHeightFieldRadius,
                                                                .number(0.5...50), \.radius, flag: "px", help: "bevel width in pixels"))
        try SceneSchema.$settings.withValue(narrow) {
            #expect(try ParameterGroup.parameter(forKey: "radius").kind == .number(0.5...50))
            var settings = RenderSettings()
            do throws(MercurialError) {
                try SceneFile.load(json: Array(#"{"radius": 100}"#.utf8), name: "s.json", into: &settings)
                Issue.record("a scene's radius 100 was read past the schema's range")
            } catch {
                #expect(error.message.hasPrefix("s.json:1:12: ") && error.message.contains("out of range 0.5…50"), "\(error.message)")
            }
            #expect(throws: MercurialError.self, "--set reads the schema's range") { try settings.set(assignment: "radius=100") }
            let root = try #require(try JSONSerialization.jsonObject(with: Data(ParameterGroup.json().utf8)) as? [String: Any])
            let rows = try #require(root["parameters"] as? [[String: Any]])
            #expect(rows.first { $0["key"] as? String == "radius" }?["range"] as? [Double] == [0.5, 50])
        }
        var settings = RenderSettings()
        try settings.set(assignment: "radius=100")
        #expect(settings.radius == 100, "outside, the table's own range")
    }

    /// docs/parameters.md's two tables, the top-level parameters and the nested blocks'
    /// keys, are `mercurial params --markdown`, spliced in by `scripts/readme-parameters.sh`;
    /// this fails as soon as either table changes without it.
    @Test(arguments: [("top level", ParameterGroup.markdownTopLevel), ("nested", ParameterGroup.markdownNested)])
    func generatedParameterTablesAreFresh(which: String, table: String) throws {
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/parameters.md"), encoding: .utf8)
        let begin = "<!-- parameters: \(which), generated by scripts/readme-parameters.sh -->\n"
        let end = "<!-- parameters: end -->"
        let start = try #require(text.range(of: begin), "docs/parameters.md has no generated \(which) parameter table")
        let stop = try #require(text.range(of: end, range: start.upperBound..<text.endIndex))
        #expect(String(text[start.upperBound..<stop.lowerBound]) == table,
                "docs/parameters.md's \(which) parameter table is stale; run scripts/readme-parameters.sh")
    }
}
