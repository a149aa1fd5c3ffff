import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// A layer's own `in` and `out` (with delays), lists of moves that run together, and a
/// slide with no distance, which starts (or ends) wholly off the canvas.
@Suite struct LayerMovesTests {
    static func scene(_ json: String) throws -> (settings: RenderSettings, timeline: Timeline) {
        var s = RenderSettings()
        let timeline = try SceneFile.load(json: Array(json.utf8), name: "moves.json", into: &s)
        return (s, try #require(timeline))
    }

    static func frames(_ json: String) throws -> (FrameRenderer, still: Image<RGBA8>) {
        let (settings, timeline) = try scene(json)
        return (try FrameRenderer(base: settings, timeline: timeline), try TitleRenderer.render(settings).image)
    }

    /// The rows with any alpha, or nil.
    static func rows(_ image: Image<RGBA8>) -> ClosedRange<Int>? {
        InOutTests.inkBox(image).map { $0.minY...$0.maxY }
    }

    static let stack = ##"""
        {"width": 960, "height": 540, "anchor": "bottom-left", "margin": "safe", "radius": 4,
         "dropShadow": {"distance": 4, "size": 6},
         "layers": [
           {"name": "name", "text": "Jane Doe", "size": 60, "plate": {"color": "#203040", "padding": [20, 8]},
            "in": [{"type": "slide", "side": "left", "duration": 0.5}, {"type": "fade", "duration": 0.3}]},
           {"name": "role", "below": "name", "gap": 12, "text": "Director", "size": 30,
            "in": [{"type": "slide", "side": "left", "distance": 60, "delay": 0.4, "duration": 0.4}, {"type": "fade", "delay": 0.4, "duration": 0.4}]}
         ],
         "out": {"type": "fade", "duration": 0.3},
         "animation": {"duration": 2, "fps": 20}}
        """##

    /// The lower third's pattern: frame 0 fully transparent; the name (and its plate) slides in
    /// from wholly off the canvas while it fades; the role only starts after its delay; the
    /// settled frames are the still; the scene's out fades both.
    @Test func eachLayerComesInOnItsOwnClock() throws {
        let (frames, still) = try Self.frames(Self.stack)
        #expect(try frames.frame(0).pixels.allSatisfy { $0.a == 0 }, "frame 0 is fully transparent")
        let boxes = try LayeredTitle.inkBoxes(of: try Self.scene(Self.stack).settings)
        // Until 0.4 s only the name's rows have ink; after, the role's too.
        for index in 1...7 {
            let image = try frames.frame(index)
            let rows = try #require(Self.rows(image), "frame \(index) shows the name")
            #expect(rows.upperBound < boxes[1].minY, "frame \(index): only the name, rows \(rows), role from \(boxes[1].minY)")
        }
        let later = try #require(Self.rows(try frames.frame(10)))
        #expect(later.upperBound >= boxes[1].minY, "frame 10: the role has started, rows \(later)")
        // Half-way through its slide the name is moved left and part-transparent.
        let early = try frames.frame(3)
        let box = try #require(InOutTests.inkBox(early))
        #expect(box.minX == 0 && box.maxX < boxes[0].maxX, "the name is cut at the left edge while it slides: \(box)")
        #expect(try same(frames.frame(20).pixels, still.pixels), "settled, the frame is the still")
        #expect(try frames.frame(39).pixels.allSatisfy { $0.a == 0 }, "the out's last frame is clear")
    }

    /// A slide with no distance starts wholly off the canvas (styles and plate included) and
    /// ends where it was laid out, from either side, for a title and for a layer.
    @Test(arguments: ["left", "right", "top", "bottom"])
    func aSlideWithNoDistanceStartsHidden(_ side: String) throws {
        let title = ##"{"text": "Mercurial", "size": 50, "width": 640, "height": 360, "margin": 10, "anchor": "bottom-right", "plate": {"padding": 30}, "dropShadow": {"distance": 20, "size": 10}, "in": {"type": "slide", "side": "\##(side)", "duration": 1}, "animation": {"duration": 2, "fps": 10}}"##
        let (frames, still) = try Self.frames(title)
        #expect(try frames.frame(0).pixels.allSatisfy { $0.a == 0 }, "from \(side): frame 0 is clear")
        #expect(try frames.frame(1).pixels.contains { $0.a > 0 }, "from \(side): frame 1 shows it coming")
        #expect(try same(frames.frame(10).pixels, still.pixels), "from \(side): it ends where it was laid out")
        // Going out the same way: clear on the last frame.
        let out = title.replacingOccurrences(of: #""in""#, with: #""out""#)
        let (leaving, _) = try Self.frames(out)
        #expect(try leaving.frame(19).pixels.allSatisfy { $0.a == 0 }, "to \(side): the last frame is clear")
        #expect(try leaving.frame(18).pixels.contains { $0.a > 0 })
    }

    /// A list's moves run together: the slide and the fade are each their own track.
    @Test func aListOfMovesRunsTogether() throws {
        let one = ##"{"text": "Hg", "size": 60, "width": 400, "height": 200, "in": {"type": "slide", "side": "left", "distance": 100, "duration": 1}, "animation": {"duration": 2, "fps": 10}}"##
        let both = one.replacingOccurrences(of: #""in": {"type": "slide", "side": "left", "distance": 100, "duration": 1}"#,
                                            with: #""in": [{"type": "slide", "side": "left", "distance": 100, "duration": 1}, {"type": "fade", "duration": 1}]"#)
        let (slide, _) = try Self.frames(one), (stacked, _) = try Self.frames(both)
        let a = try slide.frame(5), b = try stacked.frame(5)
        #expect(InOutTests.inkBox(a) == InOutTests.inkBox(b), "the same move")
        let alpha = { (image: Image<RGBA8>) in image.pixels.map(\.a).max() ?? 0 }
        #expect(alpha(a) == 255 && alpha(b) < 255 && alpha(b) > 60, "and faded: \(alpha(a)) → \(alpha(b))")
        #expect(SceneRecipe.json(for: try Self.scene(both).settings, timeline: try Self.scene(both).timeline).contains(#""in": ["#))
    }

    /// The recipe keeps each layer's moves, and reads back to the same frames.
    @Test func theRecipeKeepsALayersMoves() throws {
        let (settings, timeline) = try Self.scene(Self.stack)
        let recipe = SceneRecipe.json(for: settings, timeline: timeline)
        #expect(recipe.contains(#""delay": 0.4"#), "\(recipe)")
        let (again, timeline2) = try Self.scene(recipe)
        let a = try FrameRenderer(base: settings, timeline: timeline), b = try FrameRenderer(base: again, timeline: timeline2)
        for index in [3, 9, 12] { #expect(try same(a.frame(index).pixels, b.frame(index).pixels), "frame \(index)") }
    }

    /// A layer's own reveal shows its letters one after another (its renderer maps them), the
    /// other layer as it is; a reveal in a list is held to the animation with its letters' stagger.
    @Test func aLayersOwnRevealAndARevealInAList() throws {
        let json = #"{"width": 640, "height": 360, "layers": [{"name": "a", "text": "Reveal", "size": 60, "in": {"type": "reveal", "duration": 0.3}}, {"text": "B", "below": "a"}], "animation": {"duration": 2, "fps": 10}}"#
        let (frames, still) = try Self.frames(json)
        let boxes = try LayeredTitle.inkBoxes(of: try Self.scene(json).settings)
        let first = try frames.frame(0)
        let inked = { (image: Image<RGBA8>, box: PixelBounds) in
            (box.minY...box.maxY).reduce(0) { n, y in n + (box.minX...box.maxX).filter { image[$0, y].a > 0 }.count }
        }
        #expect(inked(first, boxes[0]) == 0 && inked(first, boxes[1]) > 0, "frame 0: the revealed layer not yet, the other as it is")
        #expect(try same(frames.frame(19).pixels, still.pixels))
        let both = json.replacingOccurrences(of: #""animation""#, with: #""in": {"type": "reveal"}, "animation""#)
        let error = #expect(throws: MercurialError.self) { _ = try Self.frames(both) }
        #expect(error?.message.contains("keep one reveal") == true, "\(String(describing: error))")
        // The reveal second in a list: six letters 0.4 s apart do not fit 2 s.
        let late = #"{"text": "Reveal", "size": 60, "width": 640, "height": 200, "in": [{"type": "fade"}, {"type": "reveal", "stagger": 0.4}], "animation": {"duration": 2}}"#
        let long = #expect(throws: MercurialError.self) { _ = try Self.frames(late) }
        #expect(long?.message.contains("5 × 0.4 s stagger") == true, "\(String(describing: long))")
    }

    /// Refusals name the place and the fix.
    @Test func badMovesAreRefused() throws {
        let layer = #"{"width": 400, "height": 200, "layers": [{"text": "A", "in": MOVE}]ANIMATION}"#
        func json(_ move: String, animated: Bool = true) -> String {
            layer.replacingOccurrences(of: "MOVE", with: move)
                .replacingOccurrences(of: "ANIMATION", with: animated ? #", "animation": {"duration": 2}"# : "")
        }
        for (text, says) in [
            (json(#"{"type": "fade"}"#, animated: false), "\"layers[0].in\" needs an \"animation\""),
            (json("[]"), "has 0 moves; give 1 to 8"),
            (json(#"[{"type": "reveal"}, {"type": "reveal"}]"#), "has 2 reveals"),
            (json(#"[{"type": "fade", "duration": 1.5}, {"type": "slide", "duration": 3}]"#), "longer than the animation's 2 s"),
            (json(#"{"type": "slide", "distance": -5}"#), "\"layers[0].in.distance\""),
            (json(#"[{"type": "fade"}, {"type": "spin"}]"#), "moves.json:1:90: unknown in/out type \"spin\""),
        ] {
            let error = #expect(throws: MercurialError.self) { _ = try Self.scene(text) }
            #expect(error?.message.contains(says) == true, "\(text): \(String(describing: error))")
        }
    }
}
