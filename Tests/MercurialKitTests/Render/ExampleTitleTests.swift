import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// The README's examples of titles for video and the web do what the README says.
@Suite struct ExampleTitleTests {
    static func example(_ name: String) throws -> (settings: RenderSettings, timeline: Timeline?) {
        var settings = RenderSettings()
        let timeline = try SceneFile.load(CLI.packageRoot.appendingPathComponent("examples/\(name)").path, into: &settings)
        return (settings, timeline)
    }

    /// examples/lower-third.json (issue 38's done-when): frame 0 is fully transparent; the name
    /// comes in first and the role only after its delay; settled, the stack (plates and bar
    /// included) sits on the safe area's bottom-left corner (96, 1026); the name's plate sizes
    /// to the name (a longer name, a wider plate by as much); it fades out and is gone at the end.
    @Test func theLowerThirdStartsClearStaggersItsLayersAndSizesItsPlate() throws {
        let (settings, timeline) = try Self.example("lower-third.json")
        let animation = try #require(timeline)
        let renderer = try FrameRenderer(base: settings, timeline: animation)
        #expect(try renderer.frame(0).pixels.allSatisfy { $0.a == 0 }, "frame 0 is fully transparent")
        let boxes = try LayeredTitle.inkBoxes(of: settings)
        func inkRows(_ image: Image<RGBA8>, _ box: PixelBounds) -> Int {
            (box.minY...box.maxY).filter { y in (0..<image.width).contains { image[$0, y].a > 0 } }.count
        }
        // The role's rows stay clear until its delay (0.35 s), while the name's fill.
        for time in [0.1, 0.2, 0.3] {
            let frame = try renderer.frame(at: time)
            #expect(inkRows(frame, boxes[0]) > 0 && inkRows(frame, PixelBounds(minX: 0, minY: boxes[1].minY + 8, maxX: 1919, maxY: boxes[1].maxY)) == 0,
                    "at \(time) s only the name is in")
        }
        #expect(inkRows(try renderer.frame(at: 0.6), boxes[1]) > 20, "the role is coming in at 0.6 s")
        let settled = try renderer.frame(at: 2)
        let ink = try #require(PlacementTests.inkEdges(settled))
        #expect(abs(ink.left - 96) <= 1 && abs(ink.bottom - 1026) <= 1, "settled, the plates on the safe lines: \(ink)")
        // The name's plate: from the bar at x = 96 to the name's ink and its 44 px padding.
        let middle = (boxes[0].minY + boxes[0].maxY) / 2
        #expect(settled[boxes[0].maxX - 2, middle].a > 200 && settled[boxes[0].maxX + 6, middle].a == 0,
                "the plate ends at the name's box: \(boxes[0])")
        var longer = settings
        longer.layers[0].settings.text = "Alexandra Montgomery"
        let wide = try LayeredTitle.inkBoxes(of: longer)
        let inkWidth = { (s: RenderSettings) throws -> Int in
            try TextMask.place(try TitleRenderer.textLayout(s, text: s.text ?? ""), frame: s.textFrame).inkSize.width
        }
        #expect(wide[0].width - boxes[0].width == (try inkWidth(longer.layers[0].settings)) - (try inkWidth(settings.layers[0].settings)),
                "a longer name, a plate wider by as much: \(boxes[0].width) → \(wide[0].width)")
        let fading = try renderer.frame(animation.frameCount - 8).pixels.map(\.a).max() ?? 0
        #expect(fading > 0 && fading < 200, "fading out near the end: alpha up to \(fading)")
        #expect(try renderer.frame(animation.frameCount - 1).pixels.allSatisfy { $0.a == 0 }, "gone on the last frame")
    }

    /// examples/lower-third-logo.json: the logo (a PNG beside it) top-right on the safe lines in its
    /// own colours, in after the name; frame 0 clear.
    @Test func theLogoExamplePutsTheLogoTopRight() throws {
        let (settings, timeline) = try Self.example("lower-third-logo.json")
        let renderer = try FrameRenderer(base: settings, timeline: try #require(timeline))
        #expect(try renderer.frame(0).pixels.allSatisfy { $0.a == 0 })
        let boxes = try LayeredTitle.inkBoxes(of: settings)
        #expect(boxes[2].maxX == 1920 - 96 - 1 && boxes[2].minY == 54 && boxes[2].height == 72, "\(boxes[2])")
        let settled = try renderer.frame(at: 2)
        let logo = settled[boxes[2].minX + 6, boxes[2].minY + boxes[2].height / 2]
        #expect(logo.r > 150 && logo.g < 60 && logo.a == 255, "the logo's own red: \(logo)")
        let early = try renderer.frame(at: 0.5)
        #expect(early[boxes[2].minX + 6, boxes[2].minY + 36].a == 0, "the logo comes in after the name")
    }

    /// examples/lower-third.json revealed letter by letter: a letter's own drop shadow is
    /// knocked out under its ink, so a half-revealed letter keeps its colour and only its
    /// alpha changes (its shadow showed through it: a "D" at 153/118/39 against 220/166/52).
    /// Every pixel opaque when settled, at alpha 64…200 during the reveal, is within 12
    /// levels of its settled straight colour.
    @Test func aRevealedLetterKeepsItsColourOverItsShadow() throws {
        let path = CLI.packageRoot.appendingPathComponent("examples/lower-third.json")
        var scene = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any])
        scene["in"] = ["type": "reveal"]
        // The letters alone: no layer's own moves or plate (a letter half-revealed over its plate shows the plate).
        scene["layers"] = (scene["layers"] as? [[String: Any]])?.map { $0.filter { !["in", "plate"].contains($0.key) } }
        var settings = RenderSettings()
        let bytes = try JSONSerialization.data(withJSONObject: scene)
        let animation = try #require(try SceneFile.load(json: Array(bytes), name: "lower-third.json", into: &settings))
        #expect(settings.layers.allSatisfy { $0.settings.look.styles.dropShadow != nil }, "each layer has the drop shadow")
        let renderer = try FrameRenderer(base: settings, timeline: animation)
        let settled = try renderer.frame(at: 2.5)
        var checked = 0, worst = (difference: 0, at: "")
        // The letters come in over 1.5 s (the role's 21 letters 0.05 s apart, 0.5 s each): every fifth frame.
        for index in stride(from: 0, to: Int(1.5 * animation.fps), by: 5) {
            let frame = try renderer.frame(index)
            for (i, (now, still)) in zip(frame.pixels, settled.pixels).enumerated() where still.a == 255 && (64...200).contains(now.a) {
                checked += 1
                let d = max(abs(Int(now.r) - Int(still.r)), abs(Int(now.g) - Int(still.g)), abs(Int(now.b) - Int(still.b)))
                if d > worst.difference {
                    worst = (d, "frame \(index) (\(i % frame.width), \(i / frame.width)): \(now) against \(still) settled")
                }
            }
        }
        #expect(checked > 10_000, "half-revealed letter pixels seen: \(checked)")
        #expect(worst.difference <= 12, "a half-revealed letter's colour is off by \(worst.difference): \(worst.at)")
    }

    /// examples/og-card.json with each row of examples/og-cards.csv: a 1200×630 card whose ink
    /// keeps the 64 px padding on every side and starts at the left one.
    @Test func theOpenGraphCardsKeepTheirPadding() throws {
        let rows = try String(contentsOf: CLI.packageRoot.appendingPathComponent("examples/og-cards.csv"), encoding: .utf8)
            .split(separator: "\n").dropFirst()
        #expect(rows.count == 3)
        for row in rows {
            var (settings, _) = try Self.example("og-card.json")
            settings.text = String(row.split(separator: ",", maxSplits: 1)[1])
            // The ink, by its alpha over no backdrop (the card's gradient is opaque).
            (settings.backgroundGradient, settings.dropShadow) = (nil, nil)
            let card = try TitleRenderer.render(settings).image
            #expect(card.width == 1200 && card.height == 630)
            let ink = try #require(PlacementTests.inkEdges(card))
            #expect(abs(ink.left - 64) <= 2, "\(row): ink \(ink)")
            #expect(ink.top >= 62 && ink.right <= 1136 + 2 && ink.bottom <= 630 - 62, "\(row): ink \(ink)")
        }
    }
}
