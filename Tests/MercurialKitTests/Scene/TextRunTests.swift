import Foundation
import Testing
import MercurialTestSupport
@testable import MercurialKit

/// `text` as styled runs: each run shaped in its own font, size and spacing on shared lines,
/// and shaded in its own look in the one shading pass (a style plane, one lookup page a look).
@Suite struct TextRunTests {
    /// A scene's settings (and timeline) from JSON text.
    func scene(_ json: String) throws -> (settings: RenderSettings, timeline: Timeline?) {
        var settings = RenderSettings()
        let timeline = try SceneFile.load(json: Array(json.utf8), name: "runs.json", into: &settings)
        return (settings, timeline)
    }

    /// "Gold and chrome" in one title: "Gold " in gold, "and chrome" in chrome.
    let goldAndChrome = #"{"material": "gold", "size": 90, "text": [{"text": "Gold "}, {"text": "and chrome", "material": "chrome"}]}"#

    @Test func twoRunsShowBothMaterialsOnOneBaseline() throws {
        let runs = try TitleRenderer.render(try scene(goldAndChrome).settings).canvas.image
        // The same text in one material each: the same glyphs in the same places, so the same mask and loft.
        let gold = try TitleRenderer.render(try scene(#"{"material": "gold", "size": 90, "text": "Gold and chrome"}"#).settings).canvas.image
        let chrome = try TitleRenderer.render(try scene(#"{"material": "chrome", "size": 90, "text": "Gold and chrome"}"#).settings).canvas.image
        #expect(runs.width == gold.width && runs.height == gold.height)
        // "Gold " ends before "and" starts: every inked pixel left of the gap is gold's, right of it chrome's.
        var inkedColumns = [Bool](repeating: false, count: runs.width)
        for y in 0..<runs.height { for x in 0..<runs.width where runs[x, y].a > 0 { inkedColumns[x] = true } }
        let gaps = (1..<runs.width).filter { !inkedColumns[$0] && inkedColumns[$0 - 1] }
        let split = try #require(gaps.first { $0 > runs.width / 5 }, "the gap after \"Gold\"")
        var (goldPixels, chromePixels) = (0, 0)
        for y in 0..<runs.height {
            for x in 0..<runs.width where runs[x, y].a > 0 {
                if x < split {
                    #expect(runs[x, y] == gold[x, y], "(\(x), \(y)) in \"Gold\"")
                    goldPixels += 1
                } else {
                    #expect(runs[x, y] == chrome[x, y], "(\(x), \(y)) in \"and chrome\"")
                    chromePixels += 1
                }
                if (x < split ? runs[x, y] != gold[x, y] : runs[x, y] != chrome[x, y]) { return }
            }
        }
        #expect(goldPixels > 1000 && chromePixels > 2000, "\(goldPixels) gold, \(chromePixels) chrome")
        // And the two materials differ there: not one look twice.
        #expect(gold.pixels != chrome.pixels)
    }

    @Test func theRecipeReadsBackToTheSameRunsAndLooks() throws {
        let settings = try scene(goldAndChrome).settings
        let recipe = SceneRecipe.json(for: settings)
        #expect(recipe.contains(#""text": [{"text": "Gold "}, {"text": "and chrome", "shininess": 0.15"#), "\(recipe)")
        let again = try scene(recipe).settings
        #expect(again.runs == settings.runs && again.runLooks == settings.runLooks && again.text == "Gold and chrome")
        #expect(try same(TitleRenderer.render(again).canvas.image.pixels, TitleRenderer.render(settings).canvas.image.pixels))
    }

    @Test func bandsAndFramesShadeTheRunsAsAStillDoes() throws {
        let (settings, _) = try scene(goldAndChrome)
        let whole = try TitleRenderer.render(settings).canvas.image
        // Streamed in bands of 16 rows.
        let result = try TitleRenderer.renderPNG(settings, compression: .fast, bandHeight: 16, force: true, output: nil)
        guard case .streamed(let title) = result else { Issue.record("not streamed"); return }
        #expect(try same(PNGFile.decode(title.bytes, name: "streamed", role: "output").pixels, whole.pixels))
        // An animation's frames: from kept normals through a shading plan.
        let timeline = Timeline(duration: 1, fps: 2)
        let frames = try FrameRenderer(base: settings, timeline: timeline)
        #expect(try same(frames.frame(0).pixels, whole.pixels))
    }

    @Test func aRunWithoutItsOwnLightsFollowsTheTitlesLightTrack() throws {
        let (settings, timeline) = try scene("""
        {"material": "gold", "size": 80, "width": 700, "height": 160,
         "text": [{"text": "Plain ", "shininess": 0.2}, {"text": "Chrome", "material": "chrome"}],
         "animation": {"duration": 1, "fps": 2, "tracks": {"light1.hue": [{"t": 0, "value": 0}, {"t": 1, "value": 0.5}]}}}
        """)
        let frames = try FrameRenderer(base: settings, timeline: try #require(timeline))
        let first = try frames.frame(0), last = try frames.frame(1)
        var changed = (left: 0, right: 0)
        for y in 0..<first.height {
            for x in 0..<first.width where first[x, y] != last[x, y] {
                if x < first.width / 2 { changed.left += 1 } else { changed.right += 1 }
            }
        }
        // "Plain" sets only its shininess, so the title's light 1 lights it; chrome's preset sets every light.
        #expect(changed.left > 500, "\(changed)")
        #expect(changed.right == 0, "\(changed)")
    }

    @Test func aRunHasItsOwnSizeAndBaselineShift() throws {
        func inkHeight(_ json: String) throws -> (height: Int, bottom: Int) {
            let s = try scene(json).settings
            let layout = try TitleRenderer.textLayout(s, text: s.text ?? "")
            let ink = try #require(try TextMask.place(layout, margin: 0).run.inkBounds)
            return (ink.height, ink.maxY)
        }
        let small = try inkHeight(#"{"size": 60, "text": [{"text": "l"}]}"#)
        let large = try inkHeight(#"{"size": 60, "text": [{"text": "l", "size": 120}]}"#)
        #expect(abs(Double(large.height) / Double(small.height) - 2) < 0.1, "\(small) \(large)")
        // Two runs on one baseline: the shifted one's ink is 30 px higher.
        let flat = try inkHeight(#"{"size": 60, "text": [{"text": "x"}, {"text": "x", "size": 30}]}"#)
        let raised = try inkHeight(#"{"size": 60, "text": [{"text": "x", "baselineShift": 30}, {"text": "x", "size": 30, "baselineShift": 30}]}"#)
        #expect(flat.bottom - raised.bottom == 30, "\(flat) \(raised)")
    }

    @Test func aRunInAnotherFontAndSizeWrapsOnACanvas() throws {
        let s = try scene("""
        {"width": 500, "height": 400, "material": "gold",
         "text": [{"text": "Polished gold "}, {"text": "meets mirror chrome", "material": "chrome", "font": "serif"}]}
        """).settings
        let layout = try TitleRenderer.textLayout(s, text: s.text ?? "")
        let placed = try TextMask.place(layout, frame: s.textFrame)
        #expect(placed.text.contains("\n"), "\(placed.text)")
        // Every glyph of the second run, wherever it was wrapped, takes chrome's look.
        #expect(placed.run.bitmaps.filter { $0.look == 1 }.count == "meetsmirrorchrome".count)
        #expect(placed.run.bitmaps.filter { $0.look == 0 }.count == "Polishedgold".count)
    }

    @Test func markupMakesRunsAndKeepsEscapedBraces() throws {
        var s = RenderSettings()
        try s.setMarkup(#"Gold {material=chrome, size=90: and \} chrome} \{end\}"#)
        #expect(s.text == "Gold and } chrome {end}")
        #expect(s.runs.map(\.text) == ["Gold ", "and } chrome", " {end}"])
        // Quoted values, and markup written back from a scene's list reads as the same runs.
        var quoted = RenderSettings()
        try quoted.setMarkup(#"{font="DejaVu Sans:bold" material=gold:  two spaces}"#)
        #expect(quoted.runs.map(\.text) == [" two spaces"] && quoted.runs[0].font == "DejaVu Sans:bold")
        let list = try JSONDocument.parse(Array(#"[{"text": "a {b}"}, {"text": " c", "font": "DejaVu Sans:bold", "size": 40, "material": "chrome"}]"#.utf8))
        let markup = try #require(TextRuns.markupText(of: list.value))
        #expect(markup == #"a \{b\}{font="DejaVu Sans:bold" size=40 material=chrome:  c}"#, "\(markup)")
        var back = RenderSettings()
        try back.setMarkup(markup)
        #expect(back.runs.map(\.text) == ["a {b}", " c"] && back.runs[1].size == 40 && back.runs[1].font == "DejaVu Sans:bold")
        #expect(TextRuns.markupText(of: try JSONDocument.parse(Array(#"[{"text": "a", "lights": [{"hue": 0.5}]}]"#.utf8)).value) == nil)
        #expect(s.runs[1].size == 90 && s.runs[1].look == 1 && s.runs[0].look == 0 && s.runLooks.count == 1)
        var plain = RenderSettings()
        try plain.setMarkup(#"no runs \{here\}"#)
        #expect(plain.text == "no runs {here}" && plain.runs.isEmpty)
        for (bad, says) in [("a {material=chrome: b", "is not closed"), ("a } b", "closes no run"),
                            ("{size=9: a {b}}", "do not nest"), ("{chrome: a}", "not KEY=VALUE"),
                            ("{materal=chrome: a}", "did you mean \"material\"")] {
            var t = RenderSettings()
            let error = #expect(throws: MercurialError.self) { try t.setMarkup(bad) }
            #expect(error?.message.contains(says) == true, "\(bad): \(String(describing: error))")
        }
    }

    @Test func badRunsAreRefusedWithTheirPlace() throws {
        for (json, says) in [(#"{"text": []}"#, "a list of runs"),
                             (#"{"text": [{"text": "a", "radius": 3}]}"#, "is the whole title's"),
                             (#"{"text": [{"txt": "a"}]}"#, "did you mean \"text\""),
                             (#"{"text": [{"text": "a", "material": "golden"}]}"#, "did you mean 'gold'"),
                             (#"{"text": [{"text": "a", "baselineShift": "up"}]}"#, "baselineShift"),
                             (#"{"text": [{"text": "a", "size": 0}]}"#, "\"text[0].size\" must be a number of pixels"),
                             (#"{"text": [7]}"#, "must be an object")] {
            let error = #expect(throws: MercurialError.self) { _ = try scene(json) }
            #expect(error?.message.hasPrefix("runs.json:1:") == true && error?.message.contains(says) == true, "\(json): \(String(describing: error))")
        }
        // 65 runs is over the limit.
        let many = "[" + Array(repeating: #"{"text": "a"}"#, count: 65).joined(separator: ",") + "]"
        let error = #expect(throws: MercurialError.self) { _ = try scene(#"{"text": \#(many)}"#) }
        #expect(error?.message.contains("over the limit of 64") == true)
        // A look a shading image would replace.
        let image = try scene(#"{"shadingImage": "x.png", "text": [{"text": "a", "material": "gold"}]}"#).settings
        let clash = #expect(throws: MercurialError.self) { try TitleRenderer.validate(image) }
        #expect(clash?.message.contains("which a \"shadingImage\" replaces") == true)
    }

    @Test func aServedSceneNamesRunMaterialsAndFontsByNameOnly() throws {
        let material = #expect(throws: MercurialError.self) {
            _ = try ResourceStore.namesOnly.scene(json: Array(#"{"text": [{"text": "a", "material": "/etc/passwd"}]}"#.utf8), name: "scene")
        }
        #expect(material?.message.contains("\"text[0].material\"") == true, "\(String(describing: material))")
        let font = #expect(throws: MercurialError.self) {
            _ = try ResourceStore.namesOnly.scene(json: Array(#"{"text": [{"text": "a", "font": "/etc/passwd"}]}"#.utf8), name: "scene")
        }
        #expect(font?.message.contains("\"text[0].font\" names a file") == true, "\(String(describing: font))")
        // Bundled names pass.
        _ = try ResourceStore.namesOnly.scene(json: Array(#"{"text": [{"text": "a", "material": "gold", "font": "serif"}]}"#.utf8), name: "scene")
    }

    @Test func settingPlainTextDropsTheRuns() throws {
        var s = try scene(goldAndChrome).settings
        s.text = "Gold and chrome"
        #expect(s.runs.count == 2, "the same text keeps its runs")
        s.text = "Other"
        #expect(s.runs.isEmpty && s.runLooks.isEmpty)
    }
}
