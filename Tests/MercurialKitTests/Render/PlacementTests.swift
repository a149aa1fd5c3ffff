import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// `anchor`, `margin`, `padding` and `offset`: where the ink box lands, measured on the rendered title.
@Suite struct PlacementTests {
    /// The box of the pixels whose alpha is over half (the letters' visible ink), as edges:
    /// left and top are the first inked column and row, right and bottom one past the last.
    static func inkEdges(_ image: Image<RGBA8>) -> (left: Int, top: Int, right: Int, bottom: Int)? {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<image.height {
            for x in 0..<image.width where image.pixels[y * image.width + x].a > 127 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        return maxX < 0 ? nil : (minX, minY, maxX + 1, maxY + 1)
    }

    static func title(_ text: String, size: Double, canvas: (Int, Int), anchor: Anchor,
                      margin: PlacementMargin) -> RenderSettings {
        var settings = RenderSettings()
        (settings.text, settings.size, settings.width, settings.height) = (text, size, canvas.0, canvas.1)
        (settings.anchor, settings.margin) = (anchor, margin)
        return settings
    }

    static func lowerThird(_ anchor: Anchor) -> RenderSettings {
        title("Jane Doe", size: 80, canvas: (1920, 1080), anchor: anchor, margin: .safe)
    }

    /// Rendered in memory and in bands (forced), both measured.
    static func bothPaths(_ settings: RenderSettings) throws -> [(String, Image<RGBA8>)] {
        let whole = try TitleRenderer.render(settings).image
        let (streamed, _) = try StreamingRenderTests.streamed(settings, bandHeight: 64)
        return [("in memory", whole), ("streamed", streamed)]
    }

    /// Margins a side: `[x, y]` is `safe`'s 5 % at 1920×1080, and `[top, right, bottom, left]`
    /// keeps each side's own, in memory and in bands; a recipe keeps them.
    @Test func marginsPerSide() throws {
        func scene(_ json: String) throws -> RenderSettings {
            var s = RenderSettings()
            try SceneFile.load(json: Array(json.utf8), name: "m.json", into: &s)
            return s
        }
        let xy = try scene(#"{"text": "Jane Doe", "size": 80, "width": 1920, "height": 1080, "anchor": "bottom-left", "margin": [96, 54]}"#)
        #expect(try same(TitleRenderer.render(xy).image.pixels, TitleRenderer.render(Self.lowerThird(.bottomLeft)).image.pixels))
        for (anchor, check) in [("top-left", { (e: (left: Int, top: Int, right: Int, bottom: Int)) in abs(e.left - 40) <= 2 && abs(e.top - 10) <= 2 }),
                                ("bottom-right", { e in abs(e.right - 1900) <= 2 && abs(e.bottom - 1050) <= 2 })] {
            let s = try scene(#"{"text": "Jane Doe", "size": 80, "width": 1920, "height": 1080, "anchor": "\#(anchor)", "margin": [10, 20, 30, 40]}"#)
            for (path, image) in try Self.bothPaths(s) {
                let ink = try #require(Self.inkEdges(image))
                #expect(check(ink), "\(anchor), \(path): \(ink)")
            }
            #expect(SceneRecipe.json(for: s).contains(#""margin": [10, 20, 30, 40]"#))
        }
        for (json, says) in [(#"{"text": "T", "margin": [1, 2, 3]}"#, "has 3 values"), (#"{"text": "T", "margin": [1, "60%"]}"#, "\"margin[1]\"")] {
            let error = #expect(throws: MercurialError.self) { _ = try scene(json) }
            #expect(error?.message.contains(says) == true, "\(json): \(String(describing: error))")
        }
    }

    /// `maxWidth`: a long role wraps inside its box, at its size, on a canvas far wider.
    @Test func maxWidthWrapsInsideTheBox() throws {
        var s = Self.title("Director of Photography and Second Unit Camera", size: 60, canvas: (1920, 1080), anchor: .bottomLeft, margin: .safe)
        s.maxWidth = 600
        let placed = try TextMask.place(try TitleRenderer.textLayout(s, text: s.text ?? ""), frame: s.textFrame)
        #expect(placed.inkSize.width <= 600 && placed.text.split(separator: "\n").count >= 2, "\(placed.inkSize) \(placed.text)")
        #expect(placed.size == 60, "kept at its size: \(placed.size)")
        let ink = try #require(Self.inkEdges(try TitleRenderer.render(s).image))
        #expect(abs(ink.left - 96) <= 2 && ink.right - ink.left <= 600, "\(ink)")
        // Without a canvas too: the ink wraps to the box and the canvas is sized to it.
        (s.width, s.height, s.margin) = (nil, nil, nil)
        let free = try TextMask.place(try TitleRenderer.textLayout(s, text: s.text ?? ""), frame: s.textFrame)
        #expect(free.inkSize.width <= 600 && free.canvasWidth <= 600 + 2 * s.loftMargin, "\(free.inkSize) on \(free.canvasWidth)")
    }

    /// The issue's figures: the safe area's corners at 1920×1080 are (96, 1026) and (1824, 54).
    @Test func safeMarginPutsTheInkInTheGraphicsSafeArea() throws {
        for (path, image) in try Self.bothPaths(Self.lowerThird(.bottomLeft)) {
            let ink = try #require(Self.inkEdges(image), "\(path)")
            #expect(abs(ink.left - 96) <= 2 && abs(ink.bottom - 1026) <= 2, "\(path): bottom-left ink box \(ink)")
        }
        for (path, image) in try Self.bothPaths(Self.lowerThird(.topRight)) {
            let ink = try #require(Self.inkEdges(image), "\(path)")
            #expect(abs(ink.right - 1824) <= 2 && abs(ink.top - 54) <= 2, "\(path): top-right ink box \(ink)")
        }
    }

    /// Every anchor, with a margin in pixels and one in per cent: the ink's edges against the box inside the margin.
    @Test(arguments: Anchor.allCases)
    func everyAnchorPlacesTheInkAgainstItsSides(_ anchor: Anchor) throws {
        for (margin, inset) in [(PlacementMargin.pixels(40), (x: 40, y: 40)), (.percent(10), (x: 64, y: 36))] {
            let settings = Self.title("Ag", size: 60, canvas: (640, 360), anchor: anchor, margin: margin)
            let ink = try #require(Self.inkEdges(try TitleRenderer.render(settings).image))
            let centre = (x: Double(ink.left + ink.right) / 2, y: Double(ink.top + ink.bottom) / 2)
            switch anchor.horizontal {
            case 0: #expect(abs(ink.left - inset.x) <= 2, "\(anchor) \(margin): \(ink)")
            case 1: #expect(abs(centre.x - 320) <= 2, "\(anchor) \(margin): \(ink)")
            default: #expect(abs(ink.right - (640 - inset.x)) <= 2, "\(anchor) \(margin): \(ink)")
            }
            switch anchor.vertical {
            case 0: #expect(abs(ink.top - inset.y) <= 2, "\(anchor) \(margin): \(ink)")
            case 1: #expect(abs(centre.y - 180) <= 2, "\(anchor) \(margin): \(ink)")
            default: #expect(abs(ink.bottom - (360 - inset.y)) <= 2, "\(anchor) \(margin): \(ink)")
            }
        }
    }

    /// The offset moves the placed ink, right and down, and nothing else.
    @Test func offsetMovesTheInk() throws {
        var settings = Self.lowerThird(.bottomLeft)
        let before = try #require(Self.inkEdges(try TitleRenderer.render(settings).image))
        settings.offset = SIMD2(30, -20)
        let after = try #require(Self.inkEdges(try TitleRenderer.render(settings).image))
        #expect(after.left - before.left == 30 && after.bottom - before.bottom == -20
                && after.right - before.right == 30 && after.top - before.top == -20, "\(before) → \(after)")
    }

    /// Off the canvas: a blank title and a warning, no crash.
    /// An anchor needs a canvas to place the ink on: on one sized to the text it is told to do nothing.
    @Test func anAnchorWithoutACanvasWarns() throws {
        var settings = RenderSettings()
        settings.text = "Hi"
        settings.anchor = .bottomLeft
        #expect(try TitleRenderer.render(settings).warnings.contains { $0.message.contains("anchor bottom-left places the ink on a canvas you size") })
        settings.width = 400
        #expect(try TitleRenderer.render(settings).warnings.isEmpty, "with a width it moves the ink")
        (settings.width, settings.anchor) = (nil, .center)
        #expect(try TitleRenderer.render(settings).warnings.isEmpty)
    }

    @Test func offsetOffTheCanvasWarns() throws {
        var settings = Self.lowerThird(.bottomLeft)
        settings.offset = SIMD2(-5000, 0)
        let title = try TitleRenderer.render(settings)
        #expect(Self.inkEdges(title.image) == nil)
        #expect(title.warnings.contains { $0.message.contains("moves the text off the 1920×1080 canvas") })
    }

    /// A left-anchored title's lines are flush left, a right-anchored one's flush right, unless `align` says otherwise.
    @Test func linesFollowTheAnchorsSide() throws {
        func lineEdges(_ settings: RenderSettings) throws -> [(Int, Int)] {
            let image = try TitleRenderer.render(settings).image
            let ink = try #require(Self.inkEdges(image))
            let middle = (ink.top + ink.bottom) / 2
            return try [(ink.top, middle), (middle, ink.bottom)].map { rows in
                let band = image.cropped(x: 0, y: rows.0, width: image.width, height: rows.1 - rows.0)
                let e = try #require(Self.inkEdges(band))
                return (e.left, e.right)
            }
        }
        var settings = Self.title("Wide first line\\nshort", size: 50, canvas: (800, 300), anchor: .left, margin: .pixels(30))
        let left = try lineEdges(settings)
        #expect(abs(left[0].0 - left[1].0) <= 6 && left[0].1 - left[1].1 > 100, "flush left: \(left)")
        settings.anchor = .bottomRight
        let right = try lineEdges(settings)
        #expect(abs(right[0].1 - right[1].1) <= 6 && right[1].0 - right[0].0 > 100, "flush right: \(right)")
        settings.alignment = .center
        let centred = try lineEdges(settings)
        #expect(abs((centred[0].0 + centred[0].1) - (centred[1].0 + centred[1].1)) <= 6, "align wins: \(centred)")
    }

    /// Too big for the box inside the margin: shrunk to fit it, with the warning.
    @Test func textTooBigForTheSafeAreaIsShrunk() throws {
        var settings = Self.lowerThird(.bottomLeft)
        settings.size = 600
        let title = try TitleRenderer.render(settings)
        let ink = try #require(Self.inkEdges(title.image))
        #expect(ink.left >= 94 && ink.right <= 1826 && ink.top >= 52 && ink.bottom <= 1028, "\(ink)")
        #expect(title.warnings.contains { $0.message.contains("shrunk from 600 px") })
    }

    /// Padding: on a canvas sized to the text, the ink plus the padding at both ends; on a
    /// given canvas, the ink keeps at least the padding from the edges (the larger of it and the margin).
    @Test func paddingKeepsSpaceAroundTheInk() throws {
        var settings = RenderSettings()
        settings.text = "Card"
        settings.size = 90
        settings.padding = 37
        let auto = try TitleRenderer.render(settings)
        let ink = try #require(Self.inkEdges(auto.image))
        #expect(abs(ink.left - 37) <= 2 && abs(auto.width - ink.right - 37) <= 2, "\(auto.width)×\(auto.height): \(ink)")
        #expect(abs(ink.top - 37) <= 2 && abs(auto.height - ink.bottom - 37) <= 2, "\(auto.width)×\(auto.height): \(ink)")
        (settings.width, settings.height, settings.anchor, settings.margin) = (1200, 630, .topLeft, .pixels(10))
        let card = try #require(Self.inkEdges(try TitleRenderer.render(settings).image))
        #expect(abs(card.left - 37) <= 2 && abs(card.top - 37) <= 2, "padding over a smaller margin: \(card)")
    }

    /// A share of a canvas sized to the text is refused; so is placement of a --mask.
    @Test func placementThatCannotApplyIsRefused() throws {
        var settings = RenderSettings()
        settings.text = "Hi"
        settings.margin = .percent(5)
        #expect(throws: MercurialError.self) { try TitleRenderer.render(settings) }
        do {
            _ = try TitleRenderer.render(settings)
        } catch {
            #expect(error.message.contains("margin \"5%\" is a share of the canvas"), "\(error.message)")
        }
        var masked = RenderSettings()
        masked.mask = "/nonexistent.png"
        masked.anchor = .bottomLeft
        do {
            _ = try TitleRenderer.render(masked)
            Issue.record("a --mask with an anchor rendered")
        } catch {
            #expect(error.message.contains("do not apply with --mask"), "\(error.message)")
        }
    }

    /// The keys through a scene file, `--set` and their errors.
    @Test func sceneKeysAndErrors() throws {
        var settings = RenderSettings()
        try SceneFile.load(json: Array(#"{"anchor": "bottom-left", "margin": "safe", "offset": [4, -6], "padding": 12}"#.utf8),
                           name: "s.json", into: &settings)
        #expect(settings.anchor == .bottomLeft && settings.margin == .safe && settings.offset == SIMD2(4, -6) && settings.padding == 12)
        try settings.set(assignment: "margin=5%")
        #expect(settings.margin == .percent(5))
        try settings.set(assignment: "margin=40")
        #expect(same(settings.margin, .pixels(40)))
        try settings.set(assignment: "offset.x=15")
        #expect(settings.offset == SIMD2(15, -6))
        for (json, fragment) in [(#"{"margin": "sfe"}"#, #"s.json:1:12: "margin" is "sfe"; give pixels"#),
                                 (#"{"margin": "60%"}"#, "a share of the canvas under 50 %"),
                                 (#"{"anchor": "bottom-lft"}"#, "s.json:1:"),
                                 (#"{"offset": [1]}"#, #""offset" must be a point [x, y]"#),
                                 (#"{"margn": 4}"#, "did you mean")] {
            var s = RenderSettings()
            do {
                try SceneFile.load(json: Array(json.utf8), name: "s.json", into: &s)
                Issue.record("\(json) was read")
            } catch {
                #expect(error.message.contains(fragment), "\(json): \(error.message)")
            }
        }
    }
}
