import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Inputs the fuzzers found (Fixtures/fuzz/README.md says what each did): each must
/// now end in a clear error or a bounded result, at once.
@Suite struct FuzzRegressionTests {
    @Test func fontWithHugeGlyphsIsRefusedWithoutRasterisingThem() {
        var layout = TextLayout(text: "Ag fi ✈ لا", fontPath: fixture("fuzz/font-oom-huge-glyphs.ttf"))
        layout.size = 24
        let start = ContinuousClock.now
        do {
            let result = try TextMask.render(layout, margin: 4)
            Issue.record("rendered a \(result.mask.width)×\(result.mask.height) mask")
        } catch {
            #expect(error.message.contains("times the size; the font is damaged"), "\(error.message)")
        }
        // Rasterising the glyphs took about 30 s and 2 GB; only their bounds are read now.
        #expect(start.duration(to: .now) < .seconds(5))
    }

    /// The png target's use-after-free: a PNG with a chunk that `PNGChunks.screened`
    /// drops was decoded from that screened copy, which was freed after
    /// png_image_begin_read_from_memory while libpng went on reading it in
    /// png_image_finish_read. (Optimised builds only: a debug build keeps the copy
    /// alive to the end of the function. ASan reports it at once; without ASan the
    /// freed copy may still hold the file, or be unmapped or reused, and the read
    /// may fault or decode other bytes: hence the large image below.)
    @Test func pngWithADroppedChunkIsDecodedFromLiveMemory() throws {
        do {
            let image = try PNGFile.read(fixture("fuzz/png-uaf-dropped-chunk.png"), role: "mask")
            Issue.record("decoded a \(image.width)×\(image.height) image")
        } catch {
            #expect(error.message.contains("is damaged (read beyond end of data)"), "\(error.message)")
        }

        // 320×320 pixels of noise (about 400 KB of PNG, over malloc's mmap threshold),
        // with a tEXt chunk after IHDR: it must decode to the same pixels as without.
        let side = 320
        var state: UInt64 = 0x9e37_79b9_7f4a_7c15
        let pixels = (0..<side * side).map { _ -> RGBA8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let v = state >> 24
            return RGBA8(r: UInt8(truncatingIfNeeded: v), g: UInt8(truncatingIfNeeded: v >> 8),
                         b: UInt8(truncatingIfNeeded: v >> 16), a: 255)
        }
        let plain = try PNGSink(compression: .fast).encode(Image(width: side, height: side, pixels: pixels))
        #expect(plain.count > 250_000)
        let text: [UInt8] = [0, 0, 0, 4] + Array("tEXta\u{0}bc".utf8) + [0, 0, 0, 0]   // dropped unread, CRC and all
        let withText = Array(plain[..<33]) + text + Array(plain[33...])                 // 33: signature and IHDR
        #expect(try same(PNGFile.decode(plain, name: "plain.png", role: "mask").pixels, pixels))
        #expect(try same(PNGFile.decode(withText, name: "text.png", role: "mask").pixels, pixels))
    }
}
