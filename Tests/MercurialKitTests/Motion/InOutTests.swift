import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// `opacity`, and the `in`/`out` presets that expand into tracks on the one clock.
@Suite struct InOutTests {
    static func title(_ text: String = "Mercurial", background: RGBColor? = nil) -> RenderSettings {
        var s = animatedSettings(width: 360, height: 140)
        s.text = text
        s.background = background
        return s
    }

    static func timeline(_ entrance: Entrance?, _ exit: Entrance? = nil, duration: Double = 1, fps: Double = 20) throws(MercurialError) -> Timeline {
        var timeline = Timeline(duration: duration, fps: fps)
        timeline.inOut = try InOut(entrance: entrance, exit: exit, duration: duration, lastFrame: timeline.lastFrameTime)
        return timeline
    }

    static func preset(_ kind: Entrance.Kind, _ change: (inout Entrance) -> Void = { _ in }) -> Entrance {
        var e = Entrance(kind)
        e.duration = 0.4
        change(&e)
        return e
    }

    /// The columns and rows with any alpha (over a transparent backdrop), or nil.
    static func inkBox(_ image: Image<RGBA8>) -> PixelBounds? {
        var box: PixelBounds?
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y].a > 0 {
                box = PixelBounds(minX: min(box?.minX ?? x, x), minY: min(box?.minY ?? y, y),
                                  maxX: max(box?.maxX ?? x, x), maxY: max(box?.maxY ?? y, y))
            }
        }
        return box
    }

    @Test func aFadeInStartsClearAndEndsAsTheStill() throws {
        for background in [nil, RGBColor(r: 0.2, g: 0.3, b: 0.5)] as [RGBColor?] {
            let base = Self.title(background: background)
            let renderer = try FrameRenderer(base: base, timeline: Self.timeline(Self.preset(.fade)))
            let first = try renderer.frame(0)
            if let background {
                #expect(first.pixels.allSatisfy { $0 == RGBA8(opaque: background) }, "over a colour, frame 0 is the backdrop")
            } else {
                #expect(first.pixels.allSatisfy { $0.a == 0 }, "over nothing, frame 0 has no alpha")
            }
            let middle = try renderer.frame(4).pixels, still = try TitleRenderer.render(base).image.pixels
            #expect(middle != still && middle != first.pixels, "half-way, the title is partly there")
            #expect(try same(renderer.frame(19).pixels, still), "the last frame is the still title, byte for byte")
        }
    }

    /// A fade or reveal out ends on the animation's last frame, clear as a fade in's first
    /// is (it ended at the animation's end, which no frame shows, and left a 20-frame fade
    /// at 0.4 s with an eighth of its alpha); with a delay, that long before it.
    @Test func aFadeOutsLastFrameIsClear() throws {
        for background in [nil, RGBColor(r: 0.2, g: 0.3, b: 0.5)] as [RGBColor?] {
            let base = Self.title(background: background)
            let empty = try FrameRenderer(base: base, timeline: Self.timeline(Self.preset(.fade))).frame(0).pixels
            for (kind, delay) in [(Entrance.Kind.fade, 0.0), (.reveal, 0), (.fade, 0.1)] {
                let renderer = try FrameRenderer(base: base, timeline: Self.timeline(nil, Self.preset(kind) { $0.delay = delay }))
                let clear = 19 - Int((delay * 20).rounded())
                #expect(try same(renderer.frame(clear).pixels, empty), "\(kind) out, delay \(delay): frame \(clear) shows the title")
                #expect(try renderer.frame(clear - 1).pixels != empty, "\(kind) out, delay \(delay): frame \(clear - 1) is already clear")
            }
        }
    }

    @Test func opacityMultipliesTheAlphaInEveryPath() throws {
        var half = Self.title()
        half.opacity = 0.5
        let whole = try TitleRenderer.render(Self.title()).image
        let still = try TitleRenderer.render(half).image
        #expect(whole.pixels.contains { $0.a == 255 })
        for (p, q) in zip(whole.pixels, still.pixels) {
            #expect(q.a == UInt8((UInt32(p.a) * 32768 + 32767) / 65535), "alpha \(p.a) at opacity 0.5 is \(q.a)")
            if q.a > 0 { #expect(q.r == p.r && q.g == p.g && q.b == p.b) }
        }
        // A frame, and bands of a streamed render, make the same pixels.
        #expect(try same(FrameRenderer(base: half, timeline: Timeline(duration: 1)).frame(0).pixels, still.pixels))
        #expect(try same(StreamingRenderTests.streamed(half, bandHeight: 16).0.pixels, still.pixels))
        // Over an opaque backdrop, the title is blended in at that alpha.
        half.background = .black
        var opaque = Self.title(background: .black)
        opaque.opacity = 1
        let dim = try TitleRenderer.render(half).image, bright = try TitleRenderer.render(opaque).image
        #expect(dim.pixels.allSatisfy { $0.a == 255 })
        let sum = { (image: Image<RGBA8>) in image.pixels.reduce(0) { $0 + Int($1.r) + Int($1.g) + Int($1.b) } }
        #expect(abs(Double(sum(dim)) / Double(sum(bright)) - 0.5) < 0.02, "half the light over black")
        #expect(try same(StreamingRenderTests.streamed(half, bandHeight: 16).0.pixels, dim.pixels))
    }

    @Test func aSlideMovesTheInkBoxByItsDistance() throws {
        var base = Self.title("Hg")
        base.size = 60
        let still = try #require(Self.inkBox(try TitleRenderer.render(base).image))
        for (side, dx, dy) in [(Entrance.Side.left, -60, 0), (.right, 60, 0), (.top, 0, -30), (.bottom, 0, 30)] {
            let slide = Self.preset(.slide) { $0.side = side; $0.slideDistance = Double(abs(dx + dy)) }
            let renderer = try FrameRenderer(base: base, timeline: Self.timeline(slide))
            let moved = PixelBounds(minX: still.minX + dx, minY: still.minY + dy, maxX: still.maxX + dx, maxY: still.maxY + dy)
            let box = Self.inkBox(try renderer.frame(0))
            #expect(box == moved, "from \(side): \(String(describing: box)), want \(moved)")
            #expect(Self.inkBox(try renderer.frame(19)) == still, "it ends where the still is")
        }
        // Slid wholly off the canvas, nothing is drawn.
        let far = try FrameRenderer(base: base, timeline: Self.timeline(Self.preset(.slide) { $0.slideDistance = 2000 }))
        #expect(try far.frame(0).pixels.allSatisfy { $0.a == 0 })
    }

    @Test func aScaleStartsAtItsFactor() throws {
        let base = Self.title()
        let still = try #require(Self.inkBox(try TitleRenderer.render(base).image))
        let renderer = try FrameRenderer(base: base, timeline: Self.timeline(Self.preset(.scale) { $0.factor = 0.5 }))
        let box = try #require(Self.inkBox(try renderer.frame(0)))
        let (w, sw) = (Double(box.maxX - box.minX + 1), Double(still.maxX - still.minX + 1))
        #expect(abs(w - sw / 2) <= 2, "half as wide: \(w) of \(sw)")
        #expect(abs(Double(box.minX + box.maxX) / 2 - Double(still.minX + still.maxX) / 2) <= 1.5, "about its centre")
        #expect(try same(renderer.frame(19).pixels, TitleRenderer.render(base).image.pixels))
    }

    /// Letter k's canvas columns (its pixels in the region, where no other letter is darker).
    static func letterColumns(_ base: RenderSettings) throws -> [ClosedRange<Int>] {
        let shape = try TitleShape.build(base, keepingNormals: false)
        let map = try LetterMap(settings: base, shape: shape)
        var columns = [ClosedRange<Int>?](repeating: nil, count: map.count)
        for y in 0..<map.height {
            for x in 0..<map.width where map.labels[y * map.width + x] >= 0 && shape.mask[x, y] > 0.5 {
                let k = Int(map.labels[y * map.width + x]), cx = x + shape.origin.x
                columns[k] = min(columns[k]?.lowerBound ?? cx, cx)...max(columns[k]?.upperBound ?? cx, cx)
            }
        }
        return columns.compactMap { $0 }
    }

    @Test(arguments: [Entrance.Style.fade, .rise, .drop])
    func aRevealsInkAppearsLeftToRight(_ style: Entrance.Style) throws {
        let base = Self.title("Mercury")
        let reveal = Self.preset(.reveal) { $0.style = style; $0.duration = 0.2; $0.stagger = 0.1 }
        let renderer = try FrameRenderer(base: base, timeline: Self.timeline(reveal, fps: 30))
        let letters = try Self.letterColumns(base)
        #expect(letters.count == 7)
        var rightEdges: [Int] = [], firstSeen = [Int?](repeating: nil, count: letters.count)
        for index in 0..<30 {
            let frame = try renderer.frame(index)
            rightEdges.append(Self.inkBox(frame)?.maxX ?? -1)
            for (k, columns) in letters.enumerated() where firstSeen[k] == nil {
                let inked = (0..<frame.height).contains { y in columns.contains { frame[$0, y].a > 0 } }
                if inked { firstSeen[k] = index }
            }
        }
        #expect(rightEdges[0] == -1, "nothing at frame 0")
        #expect(zip(rightEdges, rightEdges.dropFirst()).allSatisfy { $0 <= $1 }, "the ink's right edge only grows: \(rightEdges)")
        #expect(Set(rightEdges).count >= 6, "it grows letter by letter: \(rightEdges)")
        let seen = firstSeen.map { $0 ?? -1 }
        #expect(!seen.contains(-1) && zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "letters appear in order: \(seen)")
        #expect(try same(renderer.frame(29).pixels, TitleRenderer.render(base).image.pixels), "settled, it is the still title")
    }

    /// A rising letter moves by fractions of a pixel, as a slide does: its ink's centre is where
    /// the timing puts it (not rounded to a row), and it stays solid (its alpha is all there).
    @Test func aRisingRevealMovesBySubPixels() throws {
        let base = Self.title("Mercury")
        let reveal = Self.preset(.reveal) { $0.style = .rise; $0.duration = 1; $0.stagger = 0; $0.timing = .linear; $0.distance = 20 }
        let renderer = try FrameRenderer(base: base, timeline: Self.timeline(reveal, duration: 1, fps: 20))
        func centreAndAlpha(_ image: Image<RGBA8>) -> (y: Double, alpha: Double) {
            var sum = 0.0, weighted = 0.0
            for y in 0..<image.height { for x in 0..<image.width { let a = Double(image[x, y].a); sum += a; weighted += a * Double(y) } }
            return (weighted / sum, sum)
        }
        let still = centreAndAlpha(try TitleRenderer.render(base).image)
        for t in [0.5375, 0.6125, 0.7875] {
            let frame = centreAndAlpha(try renderer.frame(at: t))
            let dy = 20 * (1 - t)
            #expect(abs(frame.y - still.y - dy) < 0.05, "at \(t) s the ink sits \(frame.y - still.y) px low; the timing says \(dy)")
            #expect(abs(frame.alpha / (still.alpha * t) - 1) < 0.01, "at \(t) s the ink's alpha is \(frame.alpha / still.alpha) of the still's; the fade says \(t)")
        }
    }

    @Test func outMirrorsIn() throws {
        let base = Self.title(background: RGBColor(r: 0.1, g: 0.1, b: 0.1))
        for kind in Entrance.Kind.allCases {
            let preset = Self.preset(kind) { $0.timing = .easeOut; $0.delay = 0.05; $0.factor = 0.3 }
            let entering = try FrameRenderer(base: base, timeline: Self.timeline(preset))
            let leaving = try FrameRenderer(base: base, timeline: Self.timeline(nil, preset))
            // The out ends on the last frame (0.95 s at 20 frames/s), as the in starts on the first.
            for t in [0.1, 0.25, 0.3] {
                let a = try entering.frame(at: t).pixels, b = try leaving.frame(at: 0.95 - t).pixels
                let worst = zip(a, b).map { max(abs(Int($0.r) - Int($1.r)), abs(Int($0.g) - Int($1.g)), abs(Int($0.b) - Int($1.b))) }.max() ?? 0
                #expect(worst <= 2, "\(kind) at \(t) s in and \(1 - t) s out differ by \(worst)")
            }
        }
    }

    @Test func inPlusOutLongerThanTheAnimationIsAnError() throws {
        let fade = Self.preset(.fade) { $0.duration = 0.6 }
        #expect(throws: MercurialError.self) { try InOut(entrance: fade, exit: fade, duration: 1) }
        #expect(throws: MercurialError.self) { try InOut(entrance: Self.preset(.fade) { $0.duration = 0.9; $0.delay = 0.2 }, exit: nil, duration: 1) }
        _ = try InOut(entrance: Self.preset(.fade) { $0.duration = 0.5 }, exit: Self.preset(.fade) { $0.duration = 0.5 }, duration: 1)
        // A reveal's letters count: 9 letters of 0.1 s apart and 0.4 s each take 1.2 s.
        let reveal = Self.preset(.reveal) { $0.stagger = 0.1 }
        do throws(MercurialError) {
            _ = try FrameRenderer(base: Self.title(), timeline: Self.timeline(reveal))
            Issue.record("a reveal longer than the animation renders")
        } catch {
            #expect(error.message.contains("8 × 0.1 s stagger") && error.message.contains("1.2 s, longer than the animation's 1 s"),
                    "\(error.message)")
        }
    }

    @Test func aRevealOfNoLettersIsAnError() throws {
        // Only spaces: no title at all, as without a reveal.
        #expect(throws: MercurialError("the text is empty or only whitespace; give the title's text")) {
            try FrameRenderer(base: Self.title(" "), timeline: Self.timeline(Self.preset(.reveal)))
        }
        // Characters the font lacks, with no fallback: a blank title is refused before the reveal is made.
        var blank = Self.title("\u{6771}\u{4EAC}")
        blank.fallback = false
        do throws(MercurialError) {
            _ = try FrameRenderer(base: blank, timeline: Self.timeline(Self.preset(.reveal)))
            Issue.record("a reveal of a blank title renders")
        } catch {
            #expect(error.message.contains("the text draws nothing"), "\(error.message)")
        }
    }

    @Test func theRecipeKeepsInAndOut() throws {
        let scene = """
        {"text": "Hi", "size": 40, "opacity": 0.8,
         "in": {"type": "reveal", "style": "drop", "stagger": 0.1, "duration": 0.3, "timing": "linear"},
         "out": {"type": "slide", "side": "bottom", "distance": 40, "delay": 0.1},
         "animation": {"duration": 2}}
        """
        var settings = RenderSettings()
        let timeline = try #require(try SceneFile.load(json: Array(scene.utf8), name: "s.json", into: &settings))
        #expect(timeline.inOut?.entrance?.style == .drop && timeline.inOut?.exit?.side == .bottom)
        var again = RenderSettings()
        let recipe = SceneRecipe.json(for: settings, timeline: timeline)
        let read = try SceneFile.load(json: Array(recipe.utf8), name: "recipe.json", into: &again)
        #expect(read?.inOut == timeline.inOut, "\(recipe)")
        #expect(again.opacity == 0.8)
    }

    /// The renderer redraws only the inked pixels when only the look changed: an opacity
    /// change may, a frame after a move may not (the canvas shows ink elsewhere).
    @Test func aFrameAfterAMoveOrAnOpacityChangeIsDrawnAfresh() throws {
        for background in [nil, RGBColor(r: 0.2, g: 0.3, b: 0.5)] as [RGBColor?] {
            let base = Self.title(background: background)
            let renderer = try FrameRenderer(base: base, timeline: Timeline(duration: 1))
            var changes: [RenderSettings] = []
            for change in [{ (s: inout RenderSettings) in s.shiftX = 30.5 }, { $0.opacity = 0.4 }, { $0.zoom = 0.7 }, { _ in }] {
                var s = base
                change(&s)
                changes.append(s)
            }
            for settings in changes + changes.reversed() {
                let fresh = try FrameRenderer(base: settings, timeline: Timeline(duration: 1)).render(settings).pixels
                #expect(try same(renderer.render(settings).pixels, fresh))
            }
        }
    }
}

