import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// `image`: a PNG as a title or a layer (a logo, a bug), placed as a text is, scaled, drawn in
/// its own colours or embossed in the title's metal as `--mask` is.
@Suite struct ImageLayerTests {
    /// A 120×60 logo: an opaque orange disc on the left, a blue box on the right, clear elsewhere.
    static func logo() -> Image<RGBA8> {
        var image = Image<RGBA8>(width: 120, height: 60, repeating: .clear)
        for y in 0..<60 {
            for x in 0..<120 {
                if hypot(Double(x) - 29.5, Double(y) - 29.5) < 25 { image[x, y] = RGBA8(r: 230, g: 120, b: 40, a: 255) }
                if abs(x - 90) < 20 && abs(y - 30) < 15 { image[x, y] = RGBA8(r: 40, g: 160, b: 220, a: 255) }
            }
        }
        return image
    }

    /// `body` with the logo written as `logo.png` in a fresh folder, and the scene's path there.
    static func withLogo<R>(_ body: (_ folder: String) throws -> R) throws -> R {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("image-layer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try write(logo(), to: folder + "/logo.png")
        return try body(folder)
    }

    static func write(_ image: Image<RGBA8>, to path: String) throws {
        let bytes = image.pixels.withUnsafeBytes { raw in
            let rows = (0..<image.height).map { raw.baseAddress!.advanced(by: $0 * image.width * 4).assumingMemoryBound(to: UInt8.self) }
            return try? PNGFile.encode(width: image.width, height: image.height, rows: rows, compression: .fast)
        }
        try OutputFile.write(try #require(bytes), to: path)
    }

    static func scene(_ json: String, in folder: String) throws -> (settings: RenderSettings, timeline: Timeline?) {
        var s = RenderSettings()
        let timeline = try SceneFile.load(json: Array(json.utf8), name: folder + "/scene.json", into: &s)
        return (s, timeline)
    }

    /// Drawn in its own colours, placed by its anchor and margin, at its size or scaled.
    @Test func anImageIsDrawnInItsOwnColoursWhereItIsPlaced() throws {
        try Self.withLogo { folder in
            let image = try TitleRenderer.render(Self.scene(#"{"image": "logo.png", "width": 640, "height": 360, "anchor": "top-left", "margin": 40}"#, in: folder).settings).image
            let box = try #require(InOutTests.inkBox(image))
            // The logo's ink is its pixels 5…109 across and 5…54 down: that box meets the margin.
            #expect(box == PixelBounds(minX: 40, minY: 40, maxX: 40 + 104, maxY: 40 + 49), "\(box)")
            #expect(image[40 + 24, 40 + 24] == RGBA8(r: 230, g: 120, b: 40, a: 255), "the disc's own colour: \(image[64, 64])")
            #expect(image[40 + 85, 40 + 25] == RGBA8(r: 40, g: 160, b: 220, a: 255))
            // Scaled to 30 px high, its shape kept, bottom-right.
            let small = try TitleRenderer.render(Self.scene(#"{"image": {"file": "logo.png", "height": 30}, "width": 640, "height": 360, "anchor": "bottom-right", "margin": 20}"#, in: folder).settings).image
            let smallBox = try #require(InOutTests.inkBox(small))
            #expect(abs(smallBox.width - 53) <= 1 && abs(smallBox.height - 25) <= 1 && smallBox.maxX == 619 && smallBox.maxY == 339, "\(smallBox)")
            let disc = small[smallBox.minX + 12, smallBox.minY + 12]
            #expect(abs(Int(disc.r) - 230) <= 2 && abs(Int(disc.b) - 40) <= 2 && disc.a == 255, "scaled, still the disc's colour: \(disc)")
        }
    }

    /// An image read once is kept while its file stays: written anew, the next render draws the new one.
    @Test func aChangedImageIsReadAgain() throws {
        try Self.withLogo { folder in
            let scene = #"{"image": "logo.png", "width": 640, "height": 360, "anchor": "top-left", "margin": 40}"#
            #expect(try TitleRenderer.render(Self.scene(scene, in: folder).settings).image[64, 64] == RGBA8(r: 230, g: 120, b: 40, a: 255))
            let green = Self.logo().map { $0.a > 0 ? RGBA8(r: 20, g: 200, b: 60, a: 255) : $0 }
            try Self.write(green, to: folder + "/logo.png")
            #expect(try TitleRenderer.render(Self.scene(scene, in: folder).settings).image[64, 64] == RGBA8(r: 20, g: 200, b: 60, a: 255))
        }
    }

    /// Embossed, it is lofted and shaded as the same PNG given as --mask: the same pixels around its ink.
    @Test func anEmbossedImageIsShadedAsAMaskIs() throws {
        try Self.withLogo { folder in
            let embossed = try TitleRenderer.render(Self.scene(#"{"image": {"file": "logo.png", "emboss": true}, "radius": 6}"#, in: folder).settings).image
            var mask = RenderSettings()
            (mask.mask, mask.radius) = (folder + "/logo.png", 6)
            let masked = try TitleRenderer.render(mask).image
            // The mask's canvas is the PNG; the image's is its ink (5…109, 5…54) and the loft's margin (10 px) a side.
            #expect(embossed.width == 105 + 20 && embossed.height == 50 + 20)
            var differing = 0
            for y in 0..<60 { for x in 0..<120 where embossed[x + 5, y + 5] != masked[x, y] { differing += 1 } }
            #expect(differing == 0, "\(differing) pixels differ from the mask's")
            #expect(embossed[10 + 24, 10 + 24] != RGBA8(r: 230, g: 120, b: 40, a: 255), "in metal, not its own colour")
        }
    }

    /// As a layer: stacked below a text with its gap, kept in the margin, faded in on its own
    /// clock; frames equal the still, and the banded still path (which paints it in memory) too.
    @Test func anImageLayerStacksAndAnimates() throws {
        try Self.withLogo { folder in
            let json = #"{"width": 960, "height": 540, "anchor": "bottom-left", "margin": "safe", "text": "Scene text", "layers": [{"name": "name", "text": "Jane Doe", "size": 60}, {"name": "logo", "below": "name", "gap": 16, "image": {"file": "logo.png", "height": 40}, "in": {"type": "fade", "delay": 0.5, "duration": 0.5}}], "animation": {"duration": 2, "fps": 10}}"#
            let (settings, timeline) = try Self.scene(json, in: folder)
            #expect(settings.layers[1].settings.text == nil, "the scene's text is not the image layer's")
            let boxes = try LayeredTitle.inkBoxes(of: settings)
            #expect(boxes[1].minY == boxes[0].maxY + 1 + 16 && abs(boxes[1].height - 33) <= 1 && abs(boxes[1].width - 70) <= 1, "\(boxes)")
            #expect(boxes[1].maxY == 540 - 27 - 1 && boxes[1].minX == 48, "on the safe lines: \(boxes[1])")
            let still = try TitleRenderer.render(settings).image
            let frames = try FrameRenderer(base: settings, timeline: try #require(timeline))
            let first = try frames.frame(0)
            #expect((boxes[1].minY...boxes[1].maxY).allSatisfy { y in (boxes[1].minX...boxes[1].maxX).allSatisfy { first[$0, y].a == 0 } },
                    "the logo is not there before its delay")
            #expect(try same(frames.frame(15).pixels, still.pixels), "settled, the frame is the still")
            // The PNG path, told to stream, paints a scene with an image layer in memory.
            let png = try TitleRenderer.renderPNG(settings, compression: .fast, bandHeight: 16, force: true, output: nil)
            guard case .inMemory(let title) = png else { Issue.record("an image layer was streamed"); return }
            #expect(same(title.image.pixels, still.pixels), "the PNG path paints it as the still does")
        }
    }

    /// Refusals: one error line naming the culprit and the fix.
    @Test func badImagesAreRefused() throws {
        try Self.withLogo { folder in
            for (json, says) in [
                (#"{"image": "missing.png"}"#, "missing.png"),
                (#"{"image": {"width": 30}}"#, "\"image\" has no \"file\""),
                (#"{"image": "logo.png", "text": "Hi"}"#, "cannot be; give one of them"),
                (#"{"image": {"file": "logo.png", "width": 5000, "height": 5000}}"#, "over 16 M pixels"),
                (#"{"image": "logo.png", "width": 100, "height": 100}"#, "more than the 72 px inside the margin"),
                (#"{"width": 400, "height": 200, "layers": [{"text": "A", "image": "logo.png"}]}"#, "has both a \"text\" and an \"image\""),
                (#"{"image": "logo.png", "dynamics": {}, "animation": {"duration": 1}}"#, "\"dynamics\" moves a text's glyphs"),
            ] {
                let error = #expect(throws: MercurialError.self) {
                    let (settings, timeline) = try Self.scene(json, in: folder)
                    if let timeline { _ = try FrameRenderer(base: settings, timeline: timeline) } else { _ = try TitleRenderer.render(settings) }
                }
                #expect(error?.message.contains(says) == true, "\(json): \(String(describing: error))")
            }
            // A served scene names no file.
            let error = #expect(throws: MercurialError.self) {
                _ = try ResourceStore.namesOnly.scene(json: Array(#"{"image": "/etc/passwd"}"#.utf8), name: "request")
            }
            #expect(error?.message.contains("\"image\" names a file") == true, "\(String(describing: error))")
            // The image is an input: a render may not write over it.
            let (settings, _) = try Self.scene(#"{"image": "logo.png"}"#, in: folder)
            #expect(InputFiles.of(settings, sceneFile: nil).contains { $0.role == "image" && $0.path.hasSuffix("/logo.png") })
        }
    }
}
