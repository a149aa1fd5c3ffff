import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

func fixture(_ name: String) -> String { CLI.fixturePath(name) }

@Suite struct PNGFileTests {
    static let colourTypes = [
        "gray8.png", "gray16.png", "gray1.png", "grayalpha8.png", "grayalpha16.png", "rgb8.png", "rgb16.png",
        "rgba8.png", "rgba16.png", "palette.png", "palette-trns.png", "interlaced.png",
    ]

    /// Every fixture is 24×16: left half white, right half black (or transparent).
    @Test(arguments: colourTypes)
    func everyColourTypeLoadsToTheSamePicture(_ name: String) throws {
        let image = try PNGFile.read(fixture(name), role: "mask")
        #expect(image.width == 24 && image.height == 16)
        for y in 0..<16 {
            #expect(image[3, y] == RGBA8(r: 255, g: 255, b: 255, a: 255), "\(name) left at row \(y): \(image[3, y])")
            let right = image[20, y]
            #expect(right.a == 0 || (right.r == 0 && right.g == 0 && right.b == 0 && right.a == 255),
                    "\(name) right at row \(y): \(right)")
        }
        let mask = TitleRenderer.coverage(of: image)
        #expect(mask[3, 8] == 1 && mask[20, 8] == 0, "\(name) as a mask")
    }

    @Test(arguments: [("truncated.png", "damaged"), ("badcrc.png", "damaged"), ("notpng.png", "not a PNG"),
                      ("empty.png", "is empty")])
    func damagedFilesGiveAClearError(_ name: String, _ fragment: String) {
        do {
            _ = try PNGFile.read(fixture(name), role: "mask")
            Issue.record("\(name) loaded")
        } catch {
            #expect(error.message.contains(fragment) || error.message.contains("cannot be read"), "\(error.message)")
            #expect(error.message.contains(name))
        }
    }

    @Test func encodeThenDecodeKeepsEveryPixel() throws {
        var image = Image<RGBA8>(width: 37, height: 11, repeating: .clear)
        for y in 0..<11 { for x in 0..<37 { image[x, y] = RGBA8(r: UInt8(x * 7), g: UInt8(y * 23), b: UInt8((x * y) % 256), a: UInt8((x + y) * 5)) } }
        for compression in PNGFile.Compression.allCases {
            let bytes = try PNGSink(compression: compression).encode(image)
            let back = try PNGFile.decode(bytes, name: "memory", role: "test")
            #expect(same(back.pixels, image.pixels), "\(compression)")
        }
    }

    /// Runs of one repeated row pointer are deflated once per block and spliced in;
    /// runs of every length around the block size, at the start, the middle and the
    /// end of the canvas and of the encoder's bands, two repeated rows back to back,
    /// must decode to the same pixels.
    @Test(arguments: [1, 15, 16, 31, 32, 33, 47, 48, 63, 64, 65, 130, 257, 700])
    func repeatedRowsDecodeToTheSamePixels(_ run: Int) throws {
        let width = 53
        let fillA = [RGBA8](repeating: RGBA8(r: 0, g: 0, b: 0, a: 0), count: width)
        let fillB = [RGBA8](repeating: RGBA8(r: 9, g: 200, b: 40, a: 255), count: width)
        var unique = Image<RGBA8>(width: width, height: 40, repeating: .clear)
        for y in 0..<40 { for x in 0..<width { unique[x, y] = RGBA8(r: UInt8((x * 13 + y) % 256), g: UInt8(y * 6), b: 7, a: UInt8((x * y) % 256)) } }
        // Layout: run of A, 3 unique, run of B, run of A, 40 unique, run of B (ends the canvas).
        enum Row { case a, b, unique(Int) }
        var layout: [Row] = Array(repeating: .a, count: run) + (0..<3).map { .unique($0) }
        layout += Array(repeating: .b, count: run) + Array(repeating: .a, count: run) + (3..<40).map { .unique($0) }
        layout += Array(repeating: .b, count: run)
        var expected: [RGBA8] = []
        let bytes = try fillA.withUnsafeBufferPointer { a in
            try fillB.withUnsafeBufferPointer { b in
                try unique.withUnsafeBufferPointer { u in
                    let rows: [UnsafePointer<UInt8>] = layout.map { row in
                        let start: UnsafePointer<RGBA8>
                        switch row {
                        case .a: start = a.baseAddress!
                        case .b: start = b.baseAddress!
                        case .unique(let y): start = u.baseAddress! + y * width
                        }
                        expected += UnsafeBufferPointer(start: start, count: width)
                        return UnsafeRawPointer(start).assumingMemoryBound(to: UInt8.self)
                    }
                    return try [PNGFile.Compression.fast, .none].map { compression in
                        try PNGFile.encode(width: width, height: rows.count, rows: rows, compression: compression)
                    }
                }
            }
        }
        for png in bytes {
            let back = try PNGFile.decode(png, name: "memory", role: "test")
            #expect(back.height == layout.count)
            #expect(same(back.pixels, expected))
            let inflated = PNGFile.strictlyInflatedImageData(png)?.count   // nil: a damaged stream
            #expect(inflated == layout.count * (width * 4 + 1))
        }
    }

    /// An opaque background (a card's): unfiltered, its 4-byte pixels gave zlib's RLE
    /// strategy no run to find, and a plain 1200×630 card was 3 MB of `fast` PNG. Each row
    /// but the first is now Up-filtered to zeros, whether the rows are one repeated pointer
    /// or separate buffers alike, in memory and streamed in bands; the pixels are the same.
    @Test(arguments: [false, true])
    func anOpaqueBackgroundDeflatesToAlmostNothing(_ onePointer: Bool) throws {
        let width = 1200, height = 630
        let fill = RGBA8(r: 0x20, g: 0x28, b: 0x3a, a: 255)
        var image = Image<RGBA8>(width: width, height: height, repeating: fill)
        for y in 300..<330 { for x in 500..<700 { image[x, y] = RGBA8(r: UInt8(x % 256), g: UInt8(y % 256), b: 90, a: 255) } }
        let (fast, streamed, expected) = try image.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt8.self)
            let rows = (0..<height).map { y in base + (onePointer && !(300..<330).contains(y) ? 0 : y) * width * 4 }
            let expected = rows.flatMap { UnsafeBufferPointer(start: $0, count: width * 4) }
            let fast = try PNGFile.encode(width: width, height: height, rows: rows, compression: .fast)
            let sink = StreamedPNGSink(width: width, height: height, compression: .fast, output: nil)
            for start in stride(from: 0, to: height, by: 97) { try sink.append(rows: Array(rows[start..<min(start + 97, height)])) }
            try sink.endFrame()
            return (fast, sink.bytes, expected)
        }
        for (name, png) in [("in memory", fast), ("streamed", streamed)] {
            #expect(png.count < 40_000, "\(name): \(png.count) bytes for a plain card (3 MB of pixels)")
            let data = try #require(PNGFile.strictlyInflatedImageData(png), "\(name): a damaged stream")
            #expect(data.count == height * (width * 4 + 1))
            #expect(data[(width * 4 + 1) * 100] == 2, "\(name): row 100 is Up-filtered")
            let decoded = try PNGFile.decode(png, name: "memory", role: "test")
            #expect(same(decoded.pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] }, expected), "\(name)")
        }
    }

    /// A streamed sink told its title is opaque writes RGB (colour type 2) that decodes to the
    /// same pixels; given a band with a pixel that is not opaque, it throws and says so (the
    /// caller renders again with alpha), rather than drop the alpha.
    @Test func anOpaqueStreamedTitleIsRGBAndATranslucentBandIsRefused() throws {
        let width = 300, height = 200
        var image = Image<RGBA8>(width: width, height: height, repeating: RGBA8(r: 16, g: 32, b: 48, a: 255))
        for y in 50..<150 { for x in 40..<260 { image[x, y] = RGBA8(r: UInt8(x % 256), g: UInt8(y), b: 200, a: 255) } }
        let (png, refused) = try image.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt8.self)
            let rows = (0..<height).map { base + $0 * width * 4 }
            let sink = StreamedPNGSink(width: width, height: height, compression: .fast, output: nil, opaque: true)
            for start in stride(from: 0, to: height, by: 64) { try sink.append(rows: Array(rows[start..<min(start + 64, height)])) }
            try sink.endFrame()
            var translucent = Array(UnsafeBufferPointer(start: rows[0], count: width * 4))
            translucent[4 * 7 + 3] = 254
            let refusing = StreamedPNGSink(width: width, height: height, compression: .fast, output: nil, opaque: true)
            let refused = translucent.withUnsafeBufferPointer { row -> Bool in
                do { try refusing.append(rows: [row.baseAddress!]) } catch { return refusing.foundTranslucent }
                return false
            }
            return (sink.bytes, refused)
        }
        #expect(png[25] == 2, "colour type \(png[25])")
        let data = try #require(PNGFile.strictlyInflatedImageData(png))
        #expect(data.count == height * (width * 3 + 1))
        let decoded = try PNGFile.decode(png, name: "rgb", role: "test")
        #expect(decoded.pixels == image.pixels)
        #expect(refused, "a translucent band was written as RGB")
    }

    /// Wide rows that deflate badly (noise) between runs of the fill row, as a 1080p
    /// title's glyph rows are: zlib then holds blocks of many rows and may emit them all
    /// at once, more than one row's room. Every encoder's zlib stream must inflate to
    /// every row, with its end and its Adler-32 checked (libpng's reader alone forgave a
    /// stream that lost 3 KB at the end of a 1920×600 title).
    @Test(arguments: [PNGFile.Compression.fast, .small, .none])
    func wideNoisyRowsMakeACompleteStream(_ compression: PNGFile.Compression) throws {
        let width = 1920, height = 600
        var image = Image<RGBA8>(width: width, height: height, repeating: .clear)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for y in 150..<450 where y % 40 < 30 {
            for x in 200..<1700 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let v = UInt32(truncatingIfNeeded: state >> 33)
                image[x, y] = RGBA8(r: UInt8(v & 0xff), g: UInt8((v >> 8) & 0xff), b: UInt8((v >> 16) & 0xff), a: UInt8(200 + (v >> 24) % 56))
            }
        }
        let png = try PNGSink(compression: compression).encode(image)
        let inflated = PNGFile.strictlyInflatedImageData(png)?.count   // nil: a damaged stream
        #expect(inflated == height * (width * 4 + 1), "the zlib stream (\(compression)) inflates to \(inflated.map(String.init) ?? "an error")")
        #expect(try same(PNGFile.decode(png, name: "memory", role: "test").pixels, image.pixels))
    }

    /// The title that showed it: two lines on a 1920-wide canvas, at heights where the
    /// stream came out short, encoded from the canvas's row pointers as `render` does.
    @Test(arguments: [590, 600, 620, 1080])
    func aWideTitlesStreamIsComplete(_ height: Int) throws {
        var settings = RenderSettings()
        try settings.set(assignment: "text=Flex Monkey\nMercurial Text")
        try settings.set(assignment: "width=1920")
        try settings.set(assignment: "height=\(height)")
        let canvas = try TitleRenderer.render(settings).canvas
        let png = try PNGSink().encode(canvas)
        let inflated = PNGFile.strictlyInflatedImageData(png)?.count   // nil: a damaged stream
        #expect(inflated == height * (1920 * 4 + 1), "the zlib stream of a 1920×\(height) title inflates to \(inflated.map(String.init) ?? "an error")")
    }

    /// A 1200×630 card: a diagonal gradient (no two rows alike), a flat band whose rows are
    /// one repeated pointer, and noisy rows.
    static func card() -> (image: Image<RGBA8>, rows: (UnsafePointer<UInt8>) -> [UnsafePointer<UInt8>]) {
        let width = 1200, height = 630
        var image = Image<RGBA8>(width: width, height: height, repeating: .clear)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for y in 0..<height {
            for x in 0..<width {
                let t = Double(x + y) / Double(width + height)
                image[x, y] = RGBA8(r: UInt8(16 + 164 * t), g: UInt8(24 + 60 * t), b: UInt8(40 + 10 * (1 - t)), a: 255)
            }
        }
        for y in 400..<440 {
            for x in 100..<1100 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                image[x, y].r = UInt8(truncatingIfNeeded: state >> 40)
            }
        }
        // Rows 200..<300 are all row 200 (the fill row around a title is one pointer).
        return (image, { base in (0..<height).map { y in base + (y >= 200 && y < 300 ? 200 : y) * width * 4 } })
    }

    /// `small` (issue 21, item 6): bands deflated in parallel into one IDAT (libpng wrote
    /// 8 KB IDATs), each row filtered with the filter of least signed sum, the repeated
    /// rows Up-filtered to zeros; the stream is complete and decodes to the same pixels,
    /// smaller than `fast` (which Up-filters every row).
    @Test func smallFiltersEachRowAdaptivelyInParallelBands() throws {
        let (image, rows) = Self.card()
        let width = image.width, height = image.height
        let (small, fast, expected) = try image.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt8.self)
            let pointers = rows(base)
            let expected = pointers.flatMap { UnsafeBufferPointer(start: $0, count: width * 4) }
            return (try PNGFile.encode(width: width, height: height, rows: pointers, compression: .small),
                    try PNGFile.encode(width: width, height: height, rows: pointers, compression: .fast), expected)
        }
        #expect(PNGFile.chunks(of: small).chunks.filter { $0.type == "IDAT" }.count == 1)
        let decoded = try PNGFile.decode(small, name: "memory", role: "test")
        #expect(same(decoded.pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] }, expected))
        #expect(small.count < fast.count, "small \(small.count) bytes, fast \(fast.count)")
        let data = try #require(PNGFile.strictlyInflatedImageData(small))
        try #require(data.count == height * (width * 4 + 1))
        let rowBytes = width * 4 + 1
        var used = Set<UInt8>()
        // Every 7th row (Swift's debug build is slow at this), and a repeated one.
        for y in Array(stride(from: 0, to: height, by: 7)) + [250] {
            let row = Array(expected[(y * width * 4)..<((y + 1) * width * 4)])
            let up = y > 0 ? Array(expected[((y - 1) * width * 4)..<(y * width * 4)]) : [UInt8](repeating: 0, count: width * 4)
            let sums = (0...4).map { Self.signedSum(Self.filtered(row, up: up, type: $0)) }
            let chosen = data[y * rowBytes]
            used.insert(chosen)
            #expect(sums[Int(chosen)] == sums.min(), "row \(y): filter \(chosen), sums \(sums)")
            #expect(Array(data[(y * rowBytes + 1)..<((y + 1) * rowBytes)]) == Self.filtered(row, up: up, type: Int(chosen)), "row \(y)")
            if y == 250 { #expect(chosen == 2, "a repeated row is Up-filtered") }
        }
        #expect(used.count >= 2, "filters used: \(used.sorted())")
    }

    /// An image with no transparent pixel is written as RGB when asked (stills and cards, issue
    /// 36): colour type 2, each row filtered with 3-byte pixels (a repeated row Up-filtered to
    /// zeros), the same pixels decoded, less to deflate; a pixel not quite opaque keeps RGBA,
    /// and without asking an opaque image keeps it too (an animation's frames).
    @Test(arguments: [PNGFile.Compression.fast, .small, .none])
    func anOpaqueImageIsWrittenWithoutAlpha(_ compression: PNGFile.Compression) throws {
        var (image, rows) = Self.card()
        let width = image.width, height = image.height
        func encoded(_ image: Image<RGBA8>, opaqueAsRGB: Bool) throws -> (png: [UInt8], expected: [UInt8]) {
            try image.withUnsafeBufferPointer { buffer in
                let pointers = rows(UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt8.self))
                return (try PNGFile.encode(width: width, height: height, rows: pointers, compression: compression,
                                           opaqueAsRGB: opaqueAsRGB),
                        pointers.flatMap { UnsafeBufferPointer(start: $0, count: width * 4) })
            }
        }
        let (rgb, expected) = try encoded(image, opaqueAsRGB: true)
        let (rgba, _) = try encoded(image, opaqueAsRGB: false)
        #expect(rgb[25] == 2 && rgba[25] == 6, "IHDR colour types \(rgb[25]) and \(rgba[25])")
        #expect(rgb.count < rgba.count, "RGB \(rgb.count) bytes, RGBA \(rgba.count)")
        // Compared as Bools with the first difference named: a failing #expect over 3 MB arrays prints them whole.
        let decoded = try PNGFile.decode(rgb, name: "memory", role: "test").pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] }
        let firstDifference = decoded.indices.first { $0 >= expected.count || decoded[$0] != expected[$0] }
        #expect(decoded.count == expected.count && firstDifference == nil,
                "decoded differs from byte \(firstDifference.map(String.init) ?? "-") (pixel \((firstDifference ?? 0) / 4))")
        let data = try #require(PNGFile.strictlyInflatedImageData(rgb), "a damaged stream")
        try #require(data.count == height * (width * 3 + 1))
        func rgbRow(_ y: Int) -> [UInt8] {
            (0..<(width * 4)).filter { $0 % 4 != 3 }.map { expected[y * width * 4 + $0] }
        }
        let rowBytes = width * 3 + 1
        for y in Array(stride(from: 0, to: height, by: 7)) + [250] {
            let type = Int(data[y * rowBytes])
            let up = y > 0 ? rgbRow(y - 1) : [UInt8](repeating: 0, count: width * 3)
            let same = Array(data[(y * rowBytes + 1)..<((y + 1) * rowBytes)]) == Self.filtered(rgbRow(y), up: up, type: type, bpp: 3)
            #expect(same, "row \(y), filter \(type)")
            if y == 250 && compression != .none { #expect(type == 2, "a repeated row is Up-filtered") }
        }
        image[600, 420].a = 254
        #expect(try encoded(image, opaqueAsRGB: true).png[25] == 6, "a pixel of alpha 254 keeps the alpha channel")
    }

    /// PNG's filter `type` of `row` below `up` (`bpp` bytes a pixel: RGBA8 4, RGB8 3).
    static func filtered(_ row: [UInt8], up: [UInt8], type: Int, bpp: Int = 4) -> [UInt8] {
        (0..<row.count).map { i in
            let a = i >= bpp ? Int(row[i - bpp]) : 0, b = Int(up[i]), c = i >= bpp ? Int(up[i - bpp]) : 0
            let prediction: Int
            switch type {
            case 0: prediction = 0
            case 1: prediction = a
            case 2: prediction = b
            case 3: prediction = (a + b) / 2
            default:
                let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                prediction = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            }
            return UInt8(truncatingIfNeeded: Int(row[i]) - prediction)
        }
    }

    static func signedSum(_ bytes: [UInt8]) -> Int { bytes.reduce(0) { $0 + ($1 < 128 ? Int($1) : 256 - Int($1)) } }

    @Test func headerClaimingAHugeCanvasIsRefusedBeforeDecoding() throws {
        var bytes = try PNGSink().encode(Image(width: 4, height: 4, repeating: RGBA8.clear))
        // IHDR width at offset 16, height at 20 (big-endian): claim 100000 × 100000.
        for (offset, value) in [(16, UInt32(100_000)), (20, UInt32(100_000))] {
            for k in 0..<4 { bytes[offset + k] = UInt8((value >> (24 - 8 * UInt32(k))) & 0xff) }
        }
        #expect(throws: MercurialError.self) { try PNGFile.decode(bytes, name: "huge.png", role: "mask") }
    }

    @Test func canvasLimits() throws {
        #expect(throws: MercurialError.self) { try PNGFile.checkCanvas(width: 0, height: 10, what: "x") }
        #expect(throws: MercurialError.self) { try PNGFile.checkCanvas(width: 16_385, height: 10, what: "x") }
        #expect(throws: MercurialError.self) { try PNGFile.checkCanvas(width: Int.max, height: Int.max, what: "x") }
        try PNGFile.checkCanvas(width: 16_384, height: 16_384, what: "x")
    }

    @Test func atomicWriteReplacesTheFileAndLeavesNoTemporaries() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mercurial-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.png"
        try OutputFile.write([1, 2, 3], to: path)
        try OutputFile.write([4, 5], to: path)
        #expect(FileManager.default.contents(atPath: path) == Data([4, 5]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.png"])
        #expect(throws: MercurialError.self) { try OutputFile.write([1], to: dir + "/missing/out.png") }
        #expect(throws: MercurialError.self) { try OutputFile.write([1], to: dir) }
    }
}
