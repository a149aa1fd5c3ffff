import Foundation
import Testing
@testable import MercurialKit

/// Inter's variable face, from Debian's fonts-inter-variable (scripts/install-deps.sh --test).
let interVariable = "/usr/share/fonts/truetype/inter-vf/Inter.var.ttf"

/// The sum of a mask's coverage: how much ink it has.
func inkArea(_ mask: Mask) -> Double { mask.pixels.reduce(0) { $0 + Double($1) } }

/// `variations` sets a variable font's axes and `features` turns OpenType features on and off.
@Suite struct FontVariationTests {
    func inter(_ text: String, _ variations: [FontVariation] = [], features: [String] = []) throws -> TextLayout {
        var l = TextLayout(text: text, fontPath: interVariable)
        (l.size, l.variations, l.features) = (100, variations, features)
        return l
    }

    @Test func aHeavierWeightHasMoreInk() throws {
        #expect(FileManager.default.fileExists(atPath: interVariable), "fonts-inter-variable is installed by scripts/install-deps.sh --test")
        let areas = try [300.0, 550, 800].map { w in
            inkArea(try TextMask.render(try inter("Mercurial", [FontVariation(tag: "wght", value: w)]), margin: 0).mask)
        }
        #expect(areas[0] < areas[1] && areas[1] < areas[2], "\(areas)")
        #expect(areas[2] > 1.8 * areas[0], "800 against 300: \(areas[2] / areas[0])×")
    }

    @Test func aTrackAnimatesTheWeight() throws {
        var settings = RenderSettings()
        let scene = """
        {"text": "Weight", "font": "\(interVariable)", "size": 90,
         "animation": {"duration": 1, "fps": 4, "tracks": {"variations.wght": [{"t": 0, "value": 300}, {"t": 1, "value": 800}]}}}
        """
        let timeline = try #require(try SceneFile.load(json: Array(scene.utf8), name: "w.json", into: &settings))
        var areas: [Double] = []
        for time in [0, 0.5, 1.0] {
            let frame = timeline.settings(at: time, base: settings)
            let layout = try TitleRenderer.textLayout(frame, text: "Weight")
            areas.append(inkArea(try TextMask.render(layout, margin: 0).mask))
        }
        #expect(timeline.settings(at: 0.5, base: settings).variations == [FontVariation(tag: "wght", value: 550)])
        #expect(areas[0] < areas[1] && areas[1] < areas[2], "\(areas)")
    }

    @Test func anAxisTheFontLacksIsNamedWithTheAxesItHas() throws {
        let error = #expect(throws: MercurialError.self) {
            try TextMask.render(try inter("Hi", [FontVariation(tag: "wdht", value: 100)]), margin: 0)
        }
        let message = error?.message ?? ""
        #expect(message.contains("no variation axis 'wdht'") && message.contains("did you mean 'wght'")
                && message.contains("wght 100…900"), "\(message)")
    }

    @Test func aValueOutsideTheAxisIsRefused() throws {
        let error = #expect(throws: MercurialError.self) {
            try TextMask.render(try inter("Hi", [FontVariation(tag: "wght", value: 1500)]), margin: 0)
        }
        #expect(error?.message.contains("variations.wght is 1500, outside the range 100…900") == true, "\(String(describing: error))")
    }

    @Test func aStaticFontRefusesVariations() throws {
        var l = try layout("Hi")
        l.variations = [FontVariation(tag: "wght", value: 700)]
        let error = #expect(throws: MercurialError.self) { try TextMask.render(l, margin: 0) }
        #expect(error?.message.contains("is not a variable font") == true, "\(String(describing: error))")
    }

    @Test func aFeatureChangesTheGlyphs() throws {
        // Inter's `zero` slashes the zero; `tnum` makes every figure as wide as the others.
        let plain = try TextMask.render(try inter("10"), margin: 0)
        let slashed = try TextMask.render(try inter("10", features: ["zero"]), margin: 0)
        #expect(plain.warnings.isEmpty && slashed.warnings.isEmpty)
        #expect(inkArea(slashed.mask) > inkArea(plain.mask), "a slashed zero has more ink")
        let proportional = try TextMask.render(try inter("1111"), margin: 0).mask.width
        let tabular = try TextMask.render(try inter("1111", features: ["tnum"]), margin: 0).mask.width
        #expect(tabular > proportional, "tabular ones \(tabular) px against \(proportional) px")
        // Turning a feature off: kerning through `features` as through `kerning`.
        var unkerned = try layout("AVAVAV", font: "serif", size: 120)
        unkerned.features = ["-kern"]
        var kerned = unkerned
        kerned.features = []
        #expect(try TextMask.render(unkerned, margin: 0).mask.width > TextMask.render(kerned, margin: 0).mask.width)
    }

    @Test func aFeatureTheFontLacksIsWarnedAbout() throws {
        let result = try TextMask.render(try inter("Hi", features: ["smcp"]), margin: 0)
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.message.contains("no OpenType feature 'smcp'") == true, "\(result.warnings)")
    }

    @Test func theSceneFileChecksBothKeys() throws {
        let cases: [(String, String)] = [
            (#""features": ["smcp", "bad feature!"]"#, #"v.json:1:23: "features[1]" must be an OpenType feature"#),
            (#""features": "smcp""#, #"v.json:1:14: "features" must be a list of OpenType features"#),
            (#""variations": {"weight": 700}"#, #"has "weight", which is no axis tag"#),
            (#""variations": {"wght": "bold"}"#, #""variations.wght" must be a number"#),
            (#""variations": [700]"#, #""variations" must be an object such as {"wght": 650}"#),
        ]
        for (json, expected) in cases {
            var settings = RenderSettings()
            let error = #expect(throws: MercurialError.self) {
                _ = try SceneFile.load(json: Array("{\(json)}".utf8), name: "v.json", into: &settings)
            }
            #expect(error?.message.contains(expected) == true, "\(json): \(String(describing: error?.message))")
        }
        // `--set` takes one axis or the whole object, and an axis that is no tag is refused.
        var settings = RenderSettings()
        try settings.set(assignment: "variations.wght=650")
        try settings.set(assignment: "variations.slnt=-8")
        #expect(settings.variations == [FontVariation(tag: "wght", value: 650), FontVariation(tag: "slnt", value: -8)])
        #expect(throws: MercurialError.self) { try settings.set(assignment: "variations.toolong=1") }
        try settings.set(assignment: #"features=["ss01", "-liga"]"#)
        #expect(settings.features == ["ss01", "-liga"])
    }
}
