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

    /// examples/lower-third.json: settled, the stack's ink sits on the safe area's bottom-left
    /// corner (96, 1026) with a shadow below it; it starts slid to the left and ends faded out.
    @Test func theLowerThirdSitsInTheSafeAreaSlidesInAndFadesOut() throws {
        let (settings, timeline) = try Self.example("lower-third.json")
        let animation = try #require(timeline)
        let renderer = try FrameRenderer(base: settings, timeline: animation)
        let settled = try renderer.frame(at: 2)
        let ink = try #require(PlacementTests.inkEdges(settled))
        #expect(abs(ink.left - 96) <= 2 && abs(ink.bottom - 1026) <= 2, "settled ink \(ink)")
        #expect((0..<settled.width).contains { settled.pixels[(ink.bottom + 4) * settled.width + $0].a > 0 },
                "a shadow under the role's descenders")
        let entering = try #require(PlacementTests.inkEdges(try renderer.frame(at: 0.15)))
        #expect(entering.left < ink.left - 40, "entering from the left: \(entering) against \(ink)")
        let fading = try renderer.frame(animation.frameCount - 8).pixels.map(\.a).max() ?? 0
        #expect(fading > 0 && fading < 200, "fading out near the end: alpha up to \(fading)")
        #expect(try renderer.frame(at: animation.duration).pixels.allSatisfy { $0.a == 0 }, "gone at the end")
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
