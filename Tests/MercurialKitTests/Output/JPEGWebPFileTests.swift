import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// JPEG and WebP stills (issue 34, item 3): what `writeStill` writes decodes, with the
/// same libraries' decoders, to the PNG's size and close to its pixels; an opaque card's
/// WebP has no alpha, a translucent title's keeps it; a JPEG is never flattened.
@Suite struct JPEGWebPFileTests {
    /// A 1200×630 card: opaque with a background, translucent around the ink without.
    static func card(background: RGBColor? = RGBColor(r: 0.06, g: 0.06, b: 0.09)) -> RenderSettings {
        var settings = RenderSettings()
        settings.text = "Card"
        settings.size = 160
        settings.width = 1200
        settings.height = 630
        settings.background = background
        return settings
    }

    /// The file `settings` make as `name` (its format by its extension) in `dir`.
    static func written(_ settings: RenderSettings, _ name: String, in dir: URL, quality: Int? = nil,
                        lossless: Bool = false, recipe: Bool = true) throws -> [UInt8] {
        let path = dir.appendingPathComponent(name).path
        let encoding = try StillEncoding.forPath(path, command: "test", quality: quality, lossless: lossless)
        _ = try TitleRenderer.writeStill(settings, encoding: encoding, compression: .fast, recipe: recipe, to: .path(path))
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The mean absolute difference of the channels `channels` (0 r … 3 a) over pixels.
    static func meanError(_ a: [UInt8], _ b: [UInt8], channels: [Int] = [0, 1, 2]) -> Double {
        var sum = 0
        for i in stride(from: 0, to: min(a.count, b.count), by: 4) {
            for c in channels { sum += abs(Int(a[i + c]) - Int(b[i + c])) }
        }
        return Double(sum) / Double(a.count / 4 * channels.count)
    }

    static func bytes(_ image: Image<RGBA8>) -> [UInt8] {
        image.pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] }
    }

    /// The RIFF chunks of a WebP after its header (`VP8 `, `VP8L`, `VP8X`, `ALPH`, …).
    static func chunkTypes(_ webp: [UInt8]) -> [String] {
        var types: [String] = [], i = 12
        while i + 8 <= webp.count {
            types.append(String(decoding: webp[i..<(i + 4)], as: UTF8.self))
            let size = Int(webp[i + 4]) | Int(webp[i + 5]) << 8 | Int(webp[i + 6]) << 16 | Int(webp[i + 7]) << 24
            i += 8 + size + size % 2
        }
        return types
    }

    /// The card as PNG, JPEG (q90), lossy WebP (q90) and lossless WebP: the same size; the
    /// JPEG's and lossy WebP's mean error over R, G, B under 1.5 levels (measured: 0.17 for
    /// the JPEG, 0.79 for the WebP, on this card of dark ground and shaded metal: the bound
    /// is about twice the worse; a JPEG with red and blue swapped measured 6.4); the lossless WebP the PNG's
    /// pixels exactly; an opaque card's WebP a plain VP8 (no VP8X, no ALPH: no alpha).
    @Test func anOpaqueCardDecodesCloseToItsPNG() throws {
        let dir = try StreamingRenderTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let settings = Self.card()
        let png = try PNGFile.decode(try Self.written(settings, "card.png", in: dir), name: "card.png", role: "output")
        #expect(png.pixels.allSatisfy { $0.a == 255 })
        let reference = Self.bytes(png)

        let jpegBytes = try Self.written(settings, "card.jpg", in: dir)
        #expect(Array(jpegBytes.prefix(3)) == [0xFF, 0xD8, 0xFF])
        // The recipe's stamp in a COM segment; the quality is part of it.
        let comments = JPEGFile.comments(size: jpegBytes.count) { Array(jpegBytes[$0..<min($0 + $1, jpegBytes.count)]) }
        #expect(comments == [SceneRecipe.stamp(SceneRecipe.json(for: settings), encoding: StillEncoding(format: .jpeg))], "\(String(describing: comments))")
        #expect(SceneRecipe.stamp("r", encoding: StillEncoding(format: .jpeg)) != SceneRecipe.stamp("r", encoding: StillEncoding(format: .jpeg, quality: 70)))
        let jpeg = try #require(JPEGFile.decode(jpegBytes))
        #expect(jpeg.width == 1200 && jpeg.height == 630)
        let jpegError = Self.meanError(jpeg.pixels, reference)
        #expect(jpegError < 1.5, "JPEG q90 mean error \(jpegError)")

        let webpBytes = try Self.written(settings, "card.webp", in: dir)
        #expect(Array(webpBytes.prefix(4)) == Array("RIFF".utf8) && Array(webpBytes[8..<12]) == Array("WEBP".utf8))
        let webp = try #require(WebPFile.decode(webpBytes))
        #expect(webp.width == 1200 && webp.height == 630 && !webp.hasAlpha)
        // With the recipe's stamp: the extended format (its alpha flag off) and the stamp's chunk after the image.
        #expect(Self.chunkTypes(webpBytes) == ["VP8X", "VP8 ", "MRCP"], "\(Self.chunkTypes(webpBytes))")
        #expect(webpBytes[20] & 0x10 == 0, "VP8X says no alpha")
        let stamp = SceneRecipe.stamp(SceneRecipe.json(for: settings), encoding: StillEncoding(format: .webp))
        #expect(WebPFile.chunk("MRCP", size: webpBytes.count) { Array(webpBytes[$0..<min($0 + $1, webpBytes.count)]) }
                == Array(stamp.utf8))
        let plain = try Self.written(settings, "plain.webp", in: dir, recipe: false)
        #expect(Self.chunkTypes(plain) == ["VP8 "], "\(Self.chunkTypes(plain))")
        #expect(same(WebPFile.decode(plain)?.pixels, webp.pixels), "the stamp changes no pixel")
        let webpError = Self.meanError(webp.pixels, reference)
        #expect(webpError < 1.5, "WebP q90 mean error \(webpError)")

        let losslessBytes = try Self.written(settings, "lossless.webp", in: dir, lossless: true)
        let lossless = try #require(WebPFile.decode(losslessBytes))
        #expect(!lossless.hasAlpha && Self.chunkTypes(losslessBytes) == ["VP8X", "VP8L", "MRCP"], "\(Self.chunkTypes(losslessBytes))")
        #expect(same(lossless.pixels, reference), "a lossless WebP is the PNG's pixels")

        // A lower quality is a smaller file.
        let small = try Self.written(settings, "small.jpg", in: dir, quality: 40)
        #expect(small.count < jpegBytes.count, "q40 \(small.count) B, q90 \(jpegBytes.count) B")
    }

    /// A title with no background keeps its alpha in a WebP (VP8X with ALPH; decoded
    /// alpha within 1 level on average, RGB close where opaque; lossless equal where
    /// visible), and is refused as a JPEG, not flattened over a colour nobody chose.
    @Test func aTranslucentTitleKeepsAlphaInWebPAndIsRefusedAsJPEG() throws {
        let dir = try StreamingRenderTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let settings = Self.card(background: nil)
        let png = try PNGFile.decode(try Self.written(settings, "t.png", in: dir), name: "t.png", role: "output")
        #expect(png.pixels.contains { $0.a == 0 } && png.pixels.contains { $0.a == 255 })
        let reference = Self.bytes(png)

        let webpBytes = try Self.written(settings, "t.webp", in: dir)
        let webp = try #require(WebPFile.decode(webpBytes))
        #expect(webp.hasAlpha && Self.chunkTypes(webpBytes).contains("ALPH"), "\(Self.chunkTypes(webpBytes))")
        #expect(Self.meanError(webp.pixels, reference, channels: [3]) < 1.0)
        // RGB over the ink's inside (2 px in from its edge), against the same pixels of the
        // opaque card's WebP: shaded metal is the hard part of a lossy picture (measured
        // 5.53 levels here, and 5.54 for the opaque card's, whose whole-card mean of 0.79 is
        // mostly flat ground), so a translucent title's lossy WebP is held to the opaque one's.
        let w = png.width
        let inside = (0..<png.pixels.count).filter { i in
            let (x, y) = (i % w, i / w)
            guard x >= 2, y >= 2, x < w - 2, y < png.height - 2 else { return false }
            return (-2...2).allSatisfy { dy in (-2...2).allSatisfy { dx in png.pixels[i + dy * w + dx].a == 255 } }
        }
        let rgb = inside.reduce(0) { sum, i in sum + (0..<3).reduce(0) { $0 + abs(Int(webp.pixels[i * 4 + $1]) - Int(reference[i * 4 + $1])) } }
        let opaqueCard = try #require(WebPFile.decode(try Self.written(Self.card(), "o.webp", in: dir)))
        let opaquePNG = Self.bytes(try PNGFile.decode(try Self.written(Self.card(), "o.png", in: dir), name: "o.png", role: "output"))
        let opaqueRGB = inside.reduce(0) { sum, i in sum + (0..<3).reduce(0) { $0 + abs(Int(opaqueCard.pixels[i * 4 + $1]) - Int(opaquePNG[i * 4 + $1])) } }
        let (error, opaqueError) = (Double(rgb) / Double(inside.count * 3), Double(opaqueRGB) / Double(inside.count * 3))
        #expect(inside.count > 10_000 && error < opaqueError + 1 && error < 8, "RGB error inside the ink \(error) (opaque card's \(opaqueError)) over \(inside.count) pixels")

        let lossless = try #require(WebPFile.decode(try Self.written(settings, "l.webp", in: dir, lossless: true)))
        #expect(lossless.hasAlpha)
        let visible = png.pixels.indices.filter { png.pixels[$0].a > 0 }
        #expect(visible.allSatisfy { i in (0..<4).allSatisfy { lossless.pixels[i * 4 + $0] == reference[i * 4 + $0] } })
        #expect(png.pixels.indices.allSatisfy { lossless.pixels[$0 * 4 + 3] == png.pixels[$0].a })

        // Refused, and an existing file under the name is left as it was, with no temporary beside it.
        let keep = dir.appendingPathComponent("t.jpg")
        try Data("keep".utf8).write(to: keep)
        #expect {
            _ = try Self.written(settings, "t.jpg", in: dir)
        } throws: { error in
            (error as? MercurialError)?.message.contains("transparent pixels, which a JPEG cannot hold") == true
        }
        #expect(try Data(contentsOf: keep) == Data("keep".utf8))
        #expect(CLI.temporaryFiles(in: dir).isEmpty, "\(CLI.temporaryFiles(in: dir))")
    }

    /// Rows made by hand: a 1×1 and a 16000×10 frame encode and decode without a crash;
    /// a frame given as one repeated row (a fill) is encoded as a whole one is; over
    /// the formats' limits (65,500 and 16,383 px a side) a clear error, before encoding.
    @Test func tinyWideAndOversizedFrames() throws {
        func frame(_ width: Int, _ height: Int) -> [UInt8] {
            (0..<(width * height)).flatMap { i in [UInt8(i % 251), UInt8(i / width % 256), 128, 255] }
        }
        for (width, height) in [(1, 1), (16000, 10), (3, 17)] {
            var pixels = frame(width, height)
            try pixels.withUnsafeMutableBufferPointer { buffer in
                let rows = (0..<height).map { UnsafePointer(buffer.baseAddress! + $0 * width * 4) }
                let jpeg = try #require(JPEGFile.decode(try JPEGFile.encode(width: width, height: height, rows: rows, quality: 90)))
                #expect(jpeg.width == width && jpeg.height == height)
                for lossless in [false, true] {
                    let webp = try #require(WebPFile.decode(try WebPFile.encode(width: width, height: height, rows: rows,
                                                                              quality: 90, lossless: lossless)))
                    #expect(webp.width == width && webp.height == height && !webp.hasAlpha)
                    if lossless { #expect(same(webp.pixels, Array(buffer))) }
                }
                // One row repeated (not evenly spaced): copied, then encoded as the whole frame of it.
                let repeated = [UnsafePointer<UInt8>](repeating: rows[0], count: height)
                let fill = try #require(WebPFile.decode(try WebPFile.encode(width: width, height: height, rows: repeated,
                                                                          quality: 90, lossless: true)))
                #expect(same(fill.pixels, Array((0..<height).map { _ in Array(buffer[0..<(width * 4)]) }.joined())))
            }
        }
        let row = [UInt8](repeating: 255, count: 65_501 * 4)
        row.withUnsafeBufferPointer { buffer in
            let rows = [UnsafePointer(buffer.baseAddress!)]
            #expect(throws: MercurialError.limit("the title is 65501×1 pixels, but JPEG holds at most 65500 px a side; use a smaller size or write a .png")) {
                _ = try JPEGFile.encode(width: 65_501, height: 1, rows: rows, quality: 90)
            }
            #expect(throws: MercurialError.limit("the title is 16384×1 pixels, but WebP holds at most 16383 px a side; use a smaller size or write a .jpg (up to 65,500 px) or a .png")) {
                _ = try WebPFile.encode(width: 16_384, height: 1, rows: rows, quality: 90, lossless: false)
            }
        }
    }

    /// The format follows the name, in any case; a name with no extension (and standard
    /// output) is a PNG; any other extension is refused, naming the formats taken;
    /// --quality is 0–100 and not a PNG's.
    @Test func theFormatFollowsTheName() throws {
        for (name, format) in [("a.png", StillFormat.png), ("a.JPG", .jpeg), ("a.jpeg", .jpeg), ("a.WebP", .webp),
                               ("title", .png), ("-", .png)] {
            #expect(try StillFormat.forPath(name, command: "render") == format, "\(name)")
        }
        #expect(throws: MercurialError("output 'a.v2' ends in .v2, but render writes .png, .jpg (or .jpeg) and .webp stills; name it e.g. 'a.png'")) {
            _ = try StillFormat.forPath("a.v2", command: "render")
        }
        #expect(throws: MercurialError("output 'a.tiff' ends in .tiff (TIFF), but batch writes .png, .jpg (or .jpeg) and .webp stills; name it e.g. 'a.png'")) {
            _ = try StillFormat.forPath("a.tiff", command: "batch")
        }
        #expect(throws: MercurialError("--quality is 101; give a whole number from 0 to 100 (default 90)")) {
            _ = try StillEncoding.forPath("a.jpg", command: "render", quality: 101)
        }
        #expect(throws: MercurialError.self) { _ = try StillEncoding.forPath("a.png", command: "render", quality: 80) }
        #expect(throws: MercurialError.self) { _ = try StillEncoding.forPath("a.jpg", command: "render", lossless: true) }
        #expect(try StillEncoding.forPath("a.webp", command: "render", quality: 0).quality == 0)
        #expect(StillFormat.forTemplate("{row}-{text}.JPEG") == (.jpeg, "jpeg"))
        #expect(StillFormat.forTemplate("{row}.v2") == (.png, "png"))
    }
}
