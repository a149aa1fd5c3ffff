import CPNG
import CPNGWriter
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing PNGs.
///
/// Reading goes through libpng's simplified API (`png_image_*`), which reports
/// errors through its return value and never longjmps into Swift. Writing does
/// not: the 16-bit maps use libpng's full write API in the C shim CPNGWriter (which
/// keeps libpng's longjmp inside C); the titles (`.fast`, `.small`) are deflated in
/// parallel and framed here. `PNGSink` is the way in for a rendered canvas.
public enum PNGFile {
    /// The largest canvas accepted on either side, in pixels.
    public static let maximumSide = 16_384
    /// The largest canvas accepted in total, in pixels (268 M, a 16384² square).
    public static let maximumPixels = 268_435_456
    /// The largest PNG file read, in bytes.
    public static let maximumFileBytes = 512 * 1024 * 1024

    public enum Compression: String, Sendable, CaseIterable {
        /// Bands of rows deflated on every core as runs and Huffman codes (the stream zlib's
        /// RLE strategy makes at level 1, by `fast_deflate.c`), every row but the first with
        /// PNG's Up filter: quick, somewhat larger file.
        case fast
        /// Bands of rows deflated on every core, each row with the filter libpng's heuristic
        /// picks, zlib level 7: a 1200×630 card a twentieth of `fast`'s size, in 4.6 times
        /// less CPU than libpng at level 9 (see `smallLevel`).
        case small
        /// Deflate's stored blocks, no compression (4 bytes a pixel): the quickest to
        /// write and to read, for a preview on the same machine or a pipe into another tool.
        case none
    }

    /// A decoded PNG: 8-bit RGBA, colour not premultiplied, whatever the file's colour type.
    public static func read(_ path: String, role: String) throws(MercurialError) -> Image<RGBA8> {
        let bytes = try readFile(path, role: role)
        return try decode(bytes, name: path, role: role)
    }

    /// Decodes PNG `bytes`; `name` and `role` ("mask", "shading image") appear in errors.
    public static func decode(_ bytes: [UInt8], name: String, role: String) throws(MercurialError) -> Image<RGBA8> {
        func fail(_ why: String) -> MercurialError {
            MercurialError("\(role) '\(name)' \(why); give a valid PNG file")
        }
        guard bytes.count >= 8, bytes[0] == 0x89, bytes[1] == 0x50, bytes[2] == 0x4E, bytes[3] == 0x47 else {
            throw fail(bytes.isEmpty ? "is empty" : "is not a PNG (wrong signature)")
        }
        let bytes = try PNGChunks.screened(bytes, fail: fail)
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        // libpng keeps the pointer that begin_read is given and reads the rest of the
        // file through it in finish_read, so both calls run inside one withUnsafeBytes:
        // the pointer is not valid after it, and once nothing else used `bytes` (the
        // copy `screened` makes when it drops chunks) it was freed before finish_read
        // (a use-after-free the png fuzzer found; Fixtures/fuzz/png-uaf-dropped-chunk.png).
        let decoded: Result<Image<RGBA8>, MercurialError> = bytes.withUnsafeBytes { raw in
            guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else {
                return .failure(fail("cannot be read (\(message(of: image)))"))
            }
            let width = Int(image.width), height = Int(image.height)
            guard width > 0, height > 0 else { return .failure(fail("has no pixels (\(width)×\(height))")) }
            do throws(MercurialError) {
                try checkCanvas(width: width, height: height, what: "\(role) '\(name)'")
            } catch {
                return .failure(error)
            }
            image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
            var pixels = [RGBA8](repeating: .clear, count: width * height)
            let finished = pixels.withUnsafeMutableBytes { out in
                png_image_finish_read(&image, nil, out.baseAddress, Int32(width * 4), nil)
            }
            guard finished != 0 else { return .failure(fail("is damaged (\(message(of: image)))")) }
            return .success(Image(width: width, height: height, pixels: pixels))
        }
        return try decoded.get()
    }

    /// Encodes `height` rows of `width` RGBA8 pixels as a PNG in memory; `rows[y]`
    /// points at row y (rows may repeat, e.g. one empty row for all the canvas
    /// around a title).
    ///
    /// Bands of rows are compressed on every core at once — libpng deflates on one
    /// thread only — and joined into one zlib stream as pigz does; the few bytes of PNG
    /// framing around it are written here. `.fast`: runs and Huffman codes, as zlib's RLE
    /// strategy makes them at level 1, by `fast_deflate.c` in a fifth of zlib's time (a
    /// title is mostly runs of transparent pixels), and PNG's Up filter on every row but the
    /// first (so that an opaque background's rows, alike, are runs of zeros; a repeated row
    /// pointer's rows after its first are spliced in as zero rows). `.small`: each row
    /// with the filter of least signed sum (libpng's heuristic) at `smallLevel`.
    ///
    /// `ancillary` chunks (a recipe) go right after IHDR. `opaqueAsRGB`: an image with no
    /// transparent pixel is written as RGB (colour type 2), a quarter fewer bytes to filter
    /// and deflate; it decodes to the same RGBA.
    static func encode(width: Int, height: Int, rows: [UnsafePointer<UInt8>], compression: Compression,
                       ancillary: [PNGChunk] = [], opaqueAsRGB: Bool = false) throws(MercurialError) -> [UInt8] {
        precondition(rows.count == height, "\(rows.count) row pointers for \(height) rows")
        let channels: Int32 = opaqueAsRGB && isOpaque(rows, width: width) ? 3 : 4
        switch compression {
        case .small: return try encodeInParallel(width: width, height: height, rows: rows, channels: channels,
                                                 ancillary: ancillary, filter: Int32(MERCURIAL_FILTER_ADAPTIVE), level: smallLevel)
        case .fast: return try encodeInParallel(width: width, height: height, rows: rows, channels: channels,
                                                ancillary: ancillary, filter: Int32(MERCURIAL_FILTER_UP), level: 1)
        case .none: return try encodeInParallel(width: width, height: height, rows: rows, channels: channels,
                                                ancillary: ancillary, level: 0)
        }
    }

    /// Whether every pixel of the RGBA8 rows has alpha 255 (a row pointer repeated from
    /// the row above is read once).
    static func isOpaque(_ rows: [UnsafePointer<UInt8>], width: Int) -> Bool {
        var previous: UnsafePointer<UInt8>?
        for row in rows where row != previous {
            previous = row
            // Alpha is each little-endian pixel word's top byte; the AND over a row vectorises.
            let pixels = UnsafeRawPointer(row).assumingMemoryBound(to: UInt32.self)
            var all: UInt32 = 0xFF00_0000
            for x in 0..<width { all &= pixels[x] }
            guard all >= 0xFF00_0000 else { return false }
        }
        return true
    }

    /// `small`'s zlib level, measured on a 1200×630 card over a diagonal gradient (CPU
    /// time for one card on one thread): level 6 147 KB in 34 ms, 7 127 KB in 40 ms,
    /// 8 123 KB in 80 ms, 9 121 KB in 186 ms; libpng at 9 (`small` before) 117 KB in 183 ms.
    static let smallLevel: Int32 = 7

    /// Encodes rows already in PNG's byte order with libpng (every filter): `colorType`
    /// 0 grey, 2 RGB or 6 RGBA, `bitDepth` 8 or 16 (16-bit samples big-endian).
    static func encode(width: Int, height: Int, rows: [UnsafePointer<UInt8>], bitDepth: Int, colorType: Int,
                       level: Int) throws(MercurialError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let ok = rows.map(Optional.some).withUnsafeBufferPointer { rows in
            mercurial_png_encode_format(rows.baseAddress, UInt32(width), UInt32(height), Int32(bitDepth), Int32(colorType),
                                        Int32(level), &output, &size, &message, message.count)
        }
        guard ok != 0, let output else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw MercurialError.internal("cannot encode the PNG (\(reason.isEmpty ? "unknown libpng error" : reason))")
        }
        defer { mercurial_png_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    private struct Band {
        var bytes: UnsafeMutablePointer<UInt8>?
        var count = 0, rawCount = 0
        var adler: UInt32 = 1
    }

    /// The PNG, written into one buffer as the bands come: no copy of the image data
    /// is made after deflating, and the IDAT's CRC runs over the bands where they are.
    private static func encodeInParallel(width: Int, height: Int, rows: [UnsafePointer<UInt8>], channels: Int32 = 4,
                                         ancillary: [PNGChunk] = [], filter: Int32 = Int32(MERCURIAL_FILTER_NONE),
                                         level: Int32) throws(MercurialError) -> [UInt8] {
        let bands = try deflatedBands(width: width, height: height, rows: rows, channels: channels, filter: filter, level: level)
        defer { bands.forEach { mercurial_png_free($0.bytes) } }
        let zlibCount = bands.reduce(6) { $0 + $1.count }
        guard zlibCount <= Int(Int32.max) else {
            throw MercurialError.limit("cannot encode the PNG: its image data would be \(zlibCount) bytes, over PNG's chunk limit; use --compression fast")
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png.reserveCapacity(8 + 25 + ancillary.reduce(0) { $0 + 12 + $1.data.count } + 12 + zlibCount + 12)
        // IHDR: width, height, bit depth 8, colour type 6 (RGBA) or 2 (RGB), deflate, adaptive filtering, no interlace.
        appendChunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, channels == 3 ? 2 : 6, 0, 0, 0],
                    to: &png)
        for chunk in ancillary { appendChunk(chunk.type, chunk.data, to: &png) }
        png.append(contentsOf: bigEndian(UInt32(zlibCount)))
        let crcStart = png.count
        png.append(contentsOf: Array("IDAT".utf8) + [0x78, 0x01])   // the zlib header: deflate, 32 KiB window
        var crc = png[crcStart...].withUnsafeBufferPointer { mercurial_crc32(0, $0.baseAddress, $0.count) }
        for band in bands {
            let piece = UnsafeBufferPointer(start: band.bytes, count: band.count)
            png.append(contentsOf: piece)
            crc = mercurial_crc32(crc, piece.baseAddress, piece.count)
        }
        let adler = bigEndian(combinedAdler(bands))
        png.append(contentsOf: adler)
        crc = adler.withUnsafeBufferPointer { mercurial_crc32(crc, $0.baseAddress, $0.count) }
        png.append(contentsOf: bigEndian(crc))
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// A whole-canvas picture (an animation's frame over a gradient) as a PNG, its rows
    /// Paeth-filtered (see `imageData`).
    static func encodePicture(width: Int, height: Int, rows: [UnsafePointer<UInt8>]) throws(MercurialError) -> [UInt8] {
        try encodeInParallel(width: width, height: height, rows: rows, filter: Int32(MERCURIAL_FILTER_PAETH_RLE), level: 1)
    }

    /// The zlib stream of a PNG's image data for `height` rows of `width` RGBA8 pixels,
    /// deflated in bands on every core and joined, as pigz does. A title canvas (mostly
    /// runs of one colour) needs only the Up filter and the RLE strategy at level 1 (made
    /// by `fast_deflate.c`, as the Paeth-filtered frames' are);
    /// a `picture` (full frames of metal over a gradient, as an APNG's) compresses far
    /// better with the Paeth filter, and the RLE strategy at level 1 deflates it smaller
    /// than the default strategy at level 4 in half the time (1920×1080 light-sweep frame:
    /// 177 KB in 11.7 ms of one core, against 186 KB in 22.4 ms).
    static func imageData(width: Int, height: Int, rows: [UnsafePointer<UInt8>],
                          picture: Bool) throws(MercurialError) -> [UInt8] {
        let bands = try deflatedBands(width: width, height: height, rows: rows,
                                      filter: Int32(picture ? MERCURIAL_FILTER_PAETH_RLE : MERCURIAL_FILTER_UP), level: 1)
        defer { bands.forEach { mercurial_png_free($0.bytes) } }
        let adler = combinedAdler(bands)
        var zlib: [UInt8] = [0x78, 0x01]   // deflate, 32 KiB window
        zlib.reserveCapacity(bands.reduce(6) { $0 + $1.count })
        for band in bands { zlib.append(contentsOf: UnsafeBufferPointer(start: band.bytes, count: band.count)) }
        zlib.append(contentsOf: bigEndian(adler))
        return zlib
    }

    /// The chunks after a PNG's signature, in order, up to and with IEND (CRCs not
    /// checked); `overrun` tells of a chunk that claims more bytes than the file has
    /// left, where the walk stops.
    static func chunks(of png: [UInt8]) -> (chunks: [(type: String, data: ArraySlice<UInt8>)],
                                          overrun: (claimed: Int, left: Int)?) {
        var chunks: [(type: String, data: ArraySlice<UInt8>)] = []
        var i = 8
        while i + 12 <= png.count {
            let length = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            guard length <= png.count - i - 12 else { return (chunks, (length, png.count - i - 12)) }
            let type = String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self)
            chunks.append((type, png[(i + 8)..<(i + 8 + length)]))
            i += 12 + length
            if type == "IEND" { break }
        }
        return (chunks, nil)
    }

    /// A PNG's image data inflated strictly: every IDAT joined and run through zlib,
    /// which checks the stream's end and its Adler-32 (libpng's reader forgives a wrong
    /// check and zero-fills missing rows, so a picture alone can hide a broken stream).
    /// For tests of the encoders; nil when the stream is damaged.
    static func strictlyInflatedImageData(_ png: [UInt8]) -> [UInt8]? {
        let walk = chunks(of: png)
        guard walk.overrun == nil else { return nil }
        let zlib = walk.chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard mercurial_zlib_uncompress(zlib, zlib.count, maximumPixels * 5, &out, &size) != 0, let out else { return nil }
        defer { mercurial_png_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// The Adler-32 of all the bands' uncompressed bytes, from each band's.
    private static func combinedAdler(_ bands: [Band]) -> UInt32 {
        bands.dropFirst().reduce(bands[0].adler) { mercurial_adler32_combine($0, $1.adler, $1.rawCount) }
    }

    /// The raw deflate bands of the image data, compressed on every core; the caller
    /// frees each band's bytes with `mercurial_png_free`.
    private static func deflatedBands(width: Int, height: Int, rows: [UnsafePointer<UInt8>], channels: Int32 = 4,
                                      filter: Int32, level: Int32) throws(MercurialError) -> [Band] {
        let bandCount = max(1, min(height / 64, ProcessInfoCores.count * 2))
        var bands = [Band](repeating: Band(), count: bandCount)
        rows.map(Optional.some).withUnsafeBufferPointer { rows in
            bands.withUnsafeMutableBufferPointer { bands in
                parallelBands(bandCount, minimumBand: 1) { range in
                    for k in range {
                        var band = Band()
                        let ok = mercurial_deflate_filtered_rows(rows.baseAddress, UInt32(width), channels,
                                                                 UInt32(height * k / bandCount), UInt32(height * (k + 1) / bandCount),
                                                                 k == bandCount - 1 ? 1 : 0, level, filter,
                                                                 &band.bytes, &band.count, &band.adler, &band.rawCount)
                        bands[k] = ok != 0 ? band : Band()
                    }
                }
            }
        }
        guard bands.allSatisfy({ $0.bytes != nil }) else {
            bands.forEach { mercurial_png_free($0.bytes) }
            throw MercurialError.resource("cannot encode the PNG (zlib ran out of memory)")
        }
        return bands
    }

    static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        png.append(contentsOf: bigEndian(UInt32(data.count)))
        let start = png.count
        png.append(contentsOf: Array(type.utf8))
        png.append(contentsOf: data)
        let crc = png[start...].withUnsafeBufferPointer { mercurial_crc32(0, $0.baseAddress, $0.count) }
        png.append(contentsOf: bigEndian(crc))
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)]
    }

    /// Refuses a canvas that is empty or larger than the limits, before anything is allocated.
    public static func checkCanvas(width: Int, height: Int, what: String) throws(MercurialError) {
        guard width > 0, height > 0 else {
            throw MercurialError("\(what) has size \(width)×\(height); width and height must be at least 1 pixel")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width <= maximumSide, height <= maximumSide, !overflow, pixels <= maximumPixels else {
            throw MercurialError.limit("\(what) is \(width)×\(height) pixels, over the limit of \(maximumSide) px a side and \(maximumPixels / 1_048_576) M pixels; use a smaller size")
        }
    }

    private static func message(of image: png_image) -> String {
        var copy = image.message
        let text = withUnsafeBytes(of: &copy) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "unknown libpng error" : text
    }

    /// Reads a whole regular file (see `InputFile.read`).
    public static func readFile(_ path: String, role: String, limit: Int = maximumFileBytes) throws(MercurialError) -> [UInt8] {
        try InputFile.read(path, role: role, limit: limit)
    }
}
