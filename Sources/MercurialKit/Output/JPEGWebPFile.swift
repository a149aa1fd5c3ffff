import CTurboJPEG
import CWebP

/// A whole frame of straight-alpha RGBA8 rows as one buffer, for encoders that take a
/// pointer and a stride (TurboJPEG, libwebp): rows already evenly spaced (a frame given
/// whole) are passed as they are; others (a row of fill repeated) are copied.
enum ContiguousFrame {
    /// Calls `body` with the frame's first byte and its stride in bytes.
    static func with<T>(rows: [UnsafePointer<UInt8>], width: Int,
                        _ body: (UnsafePointer<UInt8>, Int) throws(MercurialError) -> T) throws(MercurialError) -> T {
        let rowBytes = width * 4
        let spaced = rows.indices.dropFirst().allSatisfy { rows[$0] == rows[$0 - 1] + rowBytes }
        if spaced, let first = rows.first { return try body(first, rowBytes) }
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * rows.count)
        defer { buffer.deallocate() }
        for (y, row) in rows.enumerated() { (buffer + y * rowBytes).update(from: row, count: rowBytes) }
        return try body(UnsafePointer(buffer), rowBytes)
    }

    /// Whether every pixel's alpha is 255 (the fourth byte of each of `width` pixels a row).
    static func isOpaque(rows: [UnsafePointer<UInt8>], width: Int) -> Bool {
        var seen = Set<UnsafePointer<UInt8>>()
        for row in rows where seen.insert(row).inserted {
            // Every alpha byte AND-ed, with no branch in the loop (a row of fill is read once).
            var all: UInt8 = 0xff
            var i = 3
            while i < width * 4 {
                all &= row[i]
                i += 4
            }
            if all != 0xff { return false }
        }
        return true
    }
}

/// JPEG stills, with TurboJPEG (libjpeg-turbo): 4:2:0 chroma, baseline unless asked for
/// progressive, quality 0–100 (0 is TurboJPEG's 1, its lowest). A JPEG has no alpha, so
/// only an opaque frame is encoded (see `encode`).
public enum JPEGFile {
    /// The JPEG of `rows` (`width` straight-alpha RGBA8 pixels each, every alpha 255: the
    /// fourth byte is skipped by TurboJPEG's RGBX input, never blended by hand).
    ///
    /// A frame with any pixel not opaque is refused, not flattened: a JPEG over a colour
    /// this program picked (black? white?) would show a matte the designer never chose,
    /// fringes around every letter, which is then baked into a file that cannot be
    /// undone. A title with a `background` is opaque and goes through; one without is
    /// told to give a background or to write a PNG or WebP, which keep the transparency.
    public static func encode(width: Int, height: Int, rows: [UnsafePointer<UInt8>], quality: Int,
                              progressive: Bool = false, comment: String? = nil) throws(MercurialError) -> [UInt8] {
        let bytes = try encode(width: width, height: height, rows: rows, quality: quality, progressive: progressive)
        guard let comment else { return bytes }
        return withComment(bytes, comment)
    }

    /// `jpeg` with a COM segment holding `comment` (at most 65,533 bytes) right after its SOI.
    static func withComment(_ jpeg: [UInt8], _ comment: String) -> [UInt8] {
        let text = Array(comment.utf8.prefix(65_533))
        let length = text.count + 2
        return Array(jpeg[..<2]) + [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + text + jpeg[2...]
    }

    /// The COM segments' texts of a JPEG's header (up to its first scan), through
    /// `bytes(offset, count)`; nil when it does not start as a JPEG.
    static func comments(size: Int, bytes: (Int, Int) -> [UInt8]) -> [String]? {
        guard size >= 4, bytes(0, 2) == [0xFF, 0xD8] else { return nil }
        var texts: [String] = []
        var offset = 2
        while offset + 4 <= size {
            let head = bytes(offset, 4)
            guard head.count == 4, head[0] == 0xFF else { return nil }
            if head[1] == 0xDA { break }
            let length = Int(head[2]) << 8 | Int(head[3])
            guard length >= 2, offset + 2 + length <= size else { return nil }
            if head[1] == 0xFE { texts.append(String(decoding: bytes(offset + 4, length - 2), as: UTF8.self)) }
            offset += 2 + length
        }
        return texts
    }

    private static func encode(width: Int, height: Int, rows: [UnsafePointer<UInt8>], quality: Int,
                               progressive: Bool) throws(MercurialError) -> [UInt8] {
        precondition(rows.count == height, "\(rows.count) rows for a \(height)-row JPEG")
        try StillFormat.jpeg.checkSize(width: width, height: height)
        guard ContiguousFrame.isOpaque(rows: rows, width: width) else {
            throw MercurialError("the title has transparent pixels, which a JPEG cannot hold; give it a background (--background '#000000', or \"background\": \"#000000\" in the scene) or write a .png or .webp, which keep the transparency")
        }
        return try ContiguousFrame.with(rows: rows, width: width) { pixels, stride throws(MercurialError) in
            guard let handle = tjInitCompress() else { throw MercurialError.resource("cannot start the JPEG encoder (out of memory)") }
            defer { tjDestroy(handle) }
            var out: UnsafeMutablePointer<UInt8>?
            var size: UInt = 0
            defer { tjFree(out) }
            let flags = TJFLAG_ACCURATEDCT | (progressive ? TJFLAG_PROGRESSIVE : 0)
            let status = tjCompress2(handle, pixels, Int32(width), Int32(stride), Int32(height), Int32(TJPF_RGBX.rawValue),
                                     &out, &size, Int32(TJSAMP_420.rawValue), Int32(max(1, min(quality, 100))), flags)
            guard status == 0, let out else {
                throw MercurialError.resource("cannot encode the JPEG (\(String(cString: tjGetErrorStr2(handle))))")
            }
            return Array(UnsafeBufferPointer(start: out, count: Int(size)))
        }
    }

    /// A JPEG decoded by TurboJPEG to RGBA8 (alpha 255), or nil; for tests.
    static func decode(_ bytes: [UInt8]) -> (width: Int, height: Int, pixels: [UInt8])? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, sampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, bytes, UInt(bytes.count), &width, &height, &sampling, &colorspace) == 0,
              width > 0, height > 0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
        let status = pixels.withUnsafeMutableBufferPointer {
            tjDecompress2(handle, bytes, UInt(bytes.count), $0.baseAddress, width, 0, height, Int32(TJPF_RGBA.rawValue), TJFLAG_ACCURATEDCT)
        }
        return status == 0 ? (Int(width), Int(height), pixels) : nil
    }
}

/// WebP stills: lossy (VP8, quality 0–100, default 90) or lossless (VP8L). The frame
/// goes in as RGBA either way and libwebp keeps an alpha channel only when a pixel is
/// not opaque: an opaque card has none (a lossy one is a plain VP8 file, no ALPH chunk;
/// a lossless one's header says its alpha is unused).
public enum WebPFile {
    /// libwebp's effort for lossy stills (0 fastest … 6 smallest; its simple API and cwebp
    /// use 4). On a 1200×630 card at quality 90 (cwebp -v, medians of 7): method 4 took
    /// 77 ms for 49.6 KB, 2 took 31 ms for 51.1 KB, 0 took 19 ms for 54.5 KB. A card is
    /// made while its client waits, so 2: 2.5 times as fast for 3 % more bytes.
    static let lossyMethod: Int32 = 2

    /// The chunk a WebP title's stamp is in (the extended format keeps unknown chunks;
    /// decoders skip them).
    static let stampChunk = "MRCP"

    public static func encode(width: Int, height: Int, rows: [UnsafePointer<UInt8>], quality: Int,
                              lossless: Bool, stamp: String? = nil) throws(MercurialError) -> [UInt8] {
        let bytes = try encode(width: width, height: height, rows: rows, quality: quality, lossless: lossless)
        guard let stamp else { return bytes }
        return try withChunk(bytes, stampChunk, Array(stamp.utf8))
    }

    /// `webp` in the extended format with a chunk `fourCC` holding `data`, by libwebpmux.
    static func withChunk(_ webp: [UInt8], _ fourCC: String, _ data: [UInt8]) throws(MercurialError) -> [UInt8] {
        let failed = MercurialError.resource("cannot add the recipe's stamp to the WebP (libwebpmux failed: out of memory?)")
        let mux: OpaquePointer? = webp.withUnsafeBufferPointer { image in
            var whole = WebPData(bytes: image.baseAddress, size: image.count)
            return WebPMuxCreate(&whole, 1)
        }
        guard let mux else { throw failed }
        defer { WebPMuxDelete(mux) }
        let set = data.withUnsafeBufferPointer { chunk in
            var payload = WebPData(bytes: chunk.baseAddress, size: chunk.count)
            return WebPMuxSetChunk(mux, fourCC, &payload, 1)
        }
        guard set == WEBP_MUX_OK else { throw failed }
        var assembled = WebPData()
        defer { WebPDataClear(&assembled) }
        guard WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK, let out = assembled.bytes else { throw failed }
        return Array(UnsafeBufferPointer(start: out, count: assembled.size))
    }

    /// The data of a WebP's chunk `fourCC` through `bytes(offset, count)`, nil when it has none;
    /// also nil when the RIFF header's size is not the file's (a file cut short).
    static func chunk(_ fourCC: String, size: Int, bytes: (Int, Int) -> [UInt8]) -> [UInt8]? {
        let head = bytes(0, 12)
        guard head.count == 12, head[0..<4] == [0x52, 0x49, 0x46, 0x46], head[8..<12] == [0x57, 0x45, 0x42, 0x50] else { return nil }
        func little(_ b: [UInt8]) -> Int { Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16 | Int(b[3]) << 24 }
        guard little(Array(head[4..<8])) + 8 == size else { return nil }
        let wanted = Array(fourCC.utf8)
        var offset = 12
        while offset + 8 <= size {
            let chunkHead = bytes(offset, 8)
            guard chunkHead.count == 8 else { return nil }
            let length = little(Array(chunkHead[4..<8]))
            guard offset + 8 + length <= size else { return nil }
            if Array(chunkHead[0..<4]) == wanted { return bytes(offset + 8, length) }
            offset += 8 + length + (length & 1)
        }
        return nil
    }

    private static func encode(width: Int, height: Int, rows: [UnsafePointer<UInt8>], quality: Int,
                               lossless: Bool) throws(MercurialError) -> [UInt8] {
        precondition(rows.count == height, "\(rows.count) rows for a \(height)-row WebP")
        try StillFormat.webp.checkSize(width: width, height: height)
        return try ContiguousFrame.with(rows: rows, width: width) { pixels, stride throws(MercurialError) in
            if lossless {
                var out: UnsafeMutablePointer<UInt8>?
                defer { WebPFree(out) }
                let size = WebPEncodeLosslessRGBA(pixels, Int32(width), Int32(height), Int32(stride), &out)
                guard size > 0, let out else { throw MercurialError.resource("cannot encode the WebP (libwebp failed: out of memory?)") }
                return Array(UnsafeBufferPointer(start: out, count: size))
            }
            return try encodeLossy(pixels, width: width, height: height, stride: stride, quality: quality)
        }
    }

    /// libwebp's advanced API, as its simple `WebPEncodeRGBA` does it but with `lossyMethod`.
    private static func encodeLossy(_ pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
                                    quality: Int) throws(MercurialError) -> [UInt8] {
        let failed = MercurialError.resource("cannot encode the WebP (libwebp failed: out of memory?)")
        var config = WebPConfig()
        guard WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, Float(max(0, min(quality, 100)))) != 0 else { throw failed }
        config.method = lossyMethod
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw failed }
        defer { WebPPictureFree(&picture) }
        (picture.width, picture.height) = (Int32(width), Int32(height))
        guard WebPPictureImportRGBA(&picture, pixels, Int32(stride)) != 0 else { throw failed }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0, writer.size > 0, let memory = writer.mem else { throw failed }
        return Array(UnsafeBufferPointer(start: memory, count: writer.size))
    }

    /// A WebP decoded by libwebp to RGBA8, and whether it has alpha; or nil. For tests.
    static func decode(_ bytes: [UInt8]) -> (width: Int, height: Int, pixels: [UInt8], hasAlpha: Bool)? {
        var features = WebPBitstreamFeatures()
        guard WebPGetFeatures(bytes, bytes.count, &features) == VP8_STATUS_OK else { return nil }
        var width: Int32 = 0, height: Int32 = 0
        guard let decoded = WebPDecodeRGBA(bytes, bytes.count, &width, &height) else { return nil }
        defer { WebPFree(decoded) }
        let pixels = Array(UnsafeBufferPointer(start: decoded, count: Int(width) * Int(height) * 4))
        return (Int(width), Int(height), pixels, features.has_alpha != 0)
    }
}

/// A JPEG or WebP still made from a whole frame and written atomically to `output` by
/// `finish` (kept in `bytes` without one), as `PNGSink` does a PNG. Its size is checked
/// against the format's limit when it is made, before a pixel is rendered.
public final class EncodedStillSink: RowSink {
    public let encoding: StillEncoding
    private let output: OutputTarget?
    private var assembler: FrameAssembler
    /// The recipe's stamp the file carries (`SceneRecipe.stamp`), or nil.
    private let stamp: String?
    /// The file of the last frame.
    public private(set) var bytes: [UInt8] = []

    public init(width: Int, height: Int, encoding: StillEncoding, output: OutputTarget?, stamp: String? = nil) throws(MercurialError) {
        precondition(encoding.format != .png, "a PNG is written by PNGSink or StreamedPNGSink")
        try encoding.format.checkSize(width: width, height: height)
        self.encoding = encoding
        self.output = output
        self.stamp = stamp
        assembler = FrameAssembler(width: width, height: height)
    }

    public func append(rows: [UnsafePointer<UInt8>]) throws(MercurialError) {
        try Cancellation.checkCurrent()
        var assembler = assembler
        let (width, height, encoding, stamp) = (assembler.width, assembler.height, encoding, stamp)
        let quality = encoding.quality ?? StillEncoding.defaultQuality
        try assembler.take(rows) { rows throws(MercurialError) in
            bytes = encoding.format == .jpeg
                ? try JPEGFile.encode(width: width, height: height, rows: rows, quality: quality, progressive: encoding.progressive,
                                      comment: stamp)
                : try WebPFile.encode(width: width, height: height, rows: rows, quality: quality, lossless: encoding.lossless,
                                      stamp: stamp)
        }
        self.assembler = assembler
    }

    public func endFrame() throws(MercurialError) { assembler.endFrame() }

    public func finish() throws(MercurialError) { try output?.write(bytes) }

    public func discard() { bytes = [] }
}
