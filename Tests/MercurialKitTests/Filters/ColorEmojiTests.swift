import Foundation
import Testing
import MercurialTestSupport
@testable import MercurialKit

/// `emoji: "color"`: a colour emoji keeps its own colours, lofted by its silhouette and
/// luminance and lit by the title's lights, the same in every render path.
@Suite struct ColorEmojiTests {
    func settings(_ text: String = "🚀", material: String = "chrome", emoji: String? = nil) throws -> RenderSettings {
        var s = RenderSettings()
        let style = emoji.map { #", "emoji": "\#($0)""# } ?? ""
        try SceneFile.load(json: Array(#"{"text": "\#(text)", "material": "\#(material)", "size": 160\#(style)}"#.utf8), name: "e.json", into: &s)
        return s
    }

    /// Pixels whose red stands well above green and blue (the rocket's fins and nose are red).
    func reds(_ image: Image<RGBA8>) -> Int {
        image.pixels.filter { $0.a > 200 && Int($0.r) > Int($0.g) + 70 && Int($0.r) > Int($0.b) + 70 }.count
    }

    @Test func theRocketKeepsItsRedInColorAndIsMetalByDefault() throws {
        let embossed = try TitleRenderer.render(try settings()).canvas.image
        let coloured = try TitleRenderer.render(try settings(emoji: "color")).canvas.image
        #expect(reds(embossed) == 0, "chrome has no red: \(reds(embossed))")
        #expect(reds(coloured) > 1500, "the fins and nose: \(reds(coloured)) red pixels")
        // Lit by the title's lights: the same rocket under other lights is another colour.
        let gold = try TitleRenderer.render(try settings(material: "gold", emoji: "color")).canvas.image
        #expect(gold.pixels != coloured.pixels)
        // The same silhouette (the alpha is the emoji's), its luminance a height cue: dark lines sink.
        #expect(same(embossed.pixels.map(\.a), coloured.pixels.map(\.a)))
        let flat = try FrameRenderer.stillShape(try settings()), cued = try FrameRenderer.stillShape(try settings(emoji: "color"))
        #expect(flat.paint == nil && cued.paint != nil && flat.mask.pixels == cued.mask.pixels)
        #expect(cued.heights.pixels.reduce(0, +) < 0.95 * flat.heights.pixels.reduce(0, +), "dark lines lower the loft")
    }

    @Test func bandsFramesAndTheRecipeAgreeWithTheStill() throws {
        let s = try settings("Go 🚀 🎉", emoji: "color")
        let whole = try TitleRenderer.render(s).canvas.image
        let result = try TitleRenderer.renderPNG(s, compression: .fast, bandHeight: 16, force: true, output: nil)
        guard case .streamed(let title) = result else { Issue.record("not streamed"); return }
        #expect(try same(PNGFile.decode(title.bytes, name: "streamed", role: "output").pixels, whole.pixels))
        let frames = try FrameRenderer(base: s, timeline: Timeline(duration: 1, fps: 2))
        #expect(try same(frames.frame(0).pixels, whole.pixels))
        #expect(try same(frames.frame(1).pixels, whole.pixels), "a second frame through the shading plan")
        let recipe = SceneRecipe.json(for: s)
        #expect(recipe.contains(#""emoji": "color""#))
        var again = RenderSettings()
        try SceneFile.load(json: Array(recipe.utf8), name: "r.json", into: &again)
        #expect(again.emoji == .color)
        // The default is not written, so older recipes stay as they were.
        #expect(!SceneRecipe.json(for: try settings()).contains("\"emoji\""))
    }

    @Test func aSpaceAfterAnEmojiIsTheFontsNotTheEmojiFaces() throws {
        var layout = TextLayout(text: "🚀 🚀", fontPath: try FontLibrary.resolve("rounded"))
        layout.size = 100
        let rockets = try TextMask.place(layout, margin: 0).run.bitmaps
        #expect(rockets.count == 2)
        // Noto Color Emoji's own space is 1.25 em: two rockets would be 250 px apart.
        let step = rockets[1].left - rockets[0].left
        #expect(step > 120 && step < 180, "\(step) px from one rocket to the next")
    }

    @Test func aBadEmojiStyleIsRefusedWithItsPlace() throws {
        let error = #expect(throws: MercurialError.self) { _ = try settings(emoji: "colour") }
        #expect(error?.message.hasPrefix("e.json:1:") == true && error?.message.contains("did you mean \"color\"") == true,
                "\(String(describing: error))")
    }
}
