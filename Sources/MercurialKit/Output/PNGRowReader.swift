import CPNGWriter

/// A PNG decoded one row at a time (8-bit RGBA), so that a large mask or shading
/// image is never whole in memory. libpng's row API runs in the C shim, which
/// sets libpng's size and chunk limits and keeps its longjmp inside C.
final class PNGRowReader {
    let width: Int, height: Int
    private let reader: OpaquePointer
    private let name: String, role: String
    private(set) var rowsRead = 0

    /// The most pixels of an interlaced PNG (one that cannot be read row by row): 4096×2048, 3840×2160.
    static let interlacedPixelLimit = 8_388_608

    /// Opens the PNG in `bytes`, which must stay alive (and unmoved) while the reader is used;
    /// nil for an interlaced file, which cannot be read row by row.
    private init?(bytes: UnsafeRawBufferPointer, name: String, role: String) throws(MercurialError) {
        var w: UInt32 = 0, h: UInt32 = 0
        var interlaced: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let opened = mercurial_png_rows_open(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                                             &w, &h, &interlaced, &message, message.count)
        guard let opened else {
            if interlaced == 2 { try PNGFile.checkCanvas(width: Int(w), height: Int(h), what: "\(role) '\(name)'") }
            if interlaced != 0 {
                // Adam7 delivers a row's pixels over seven passes, so the file is decoded whole:
                // only as large as an in-memory render takes.
                guard Int(w) * Int(h) <= Self.interlacedPixelLimit else {
                    throw MercurialError.limit("\(role) '\(name)' is an interlaced PNG of \(w)×\(h) pixels; interlaced PNGs are decoded whole, so they may have at most \(Self.interlacedPixelLimit / 1_048_576) M pixels; save it without interlacing (e.g. convert IN.png -interlace none OUT.png)")
                }
                return nil
            }
            throw MercurialError("\(role) '\(name)' cannot be read (\(Self.text(message))); give a valid PNG file")
        }
        reader = opened
        width = Int(w)
        height = Int(h)
        self.name = name
        self.role = role
        guard width > 0, height > 0 else {
            mercurial_png_rows_close(reader)
            throw MercurialError("\(role) '\(name)' has no pixels (\(width)×\(height)); give a valid PNG file")
        }
        do {
            try PNGFile.checkCanvas(width: width, height: height, what: "\(role) '\(name)'")
        } catch {
            mercurial_png_rows_close(reader)
            throw error
        }
    }

    deinit { mercurial_png_rows_close(reader) }

    /// Runs `body` with a reader over the screened PNG `bytes` (nil when the file is interlaced).
    static func with<R>(_ bytes: [UInt8], name: String, role: String,
                        _ body: (PNGRowReader?) throws(MercurialError) -> R) throws(MercurialError) -> R {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(MercurialError) -> R in
                let reader = try PNGRowReader(bytes: raw, name: name, role: role)
                return try body(reader)
            }
        }
        return try result.get()
    }

    /// The file's bytes, screened (see `PNGChunks`), ready for `with`.
    static func screenedBytes(_ path: String, role: String) throws(MercurialError) -> [UInt8] {
        let bytes = try PNGFile.readFile(path, role: role)
        func fail(_ why: String) -> MercurialError {
            MercurialError("\(role) '\(path)' \(why); give a valid PNG file")
        }
        guard bytes.count >= 8, bytes[0] == 0x89, bytes[1] == 0x50, bytes[2] == 0x4E, bytes[3] == 0x47 else {
            throw fail(bytes.isEmpty ? "is empty" : "is not a PNG (wrong signature)")
        }
        return try PNGChunks.screened(bytes, fail: fail)
    }

    /// Reads the next row into `row` (`width` pixels).
    func read(into row: UnsafeMutablePointer<RGBA8>) throws(MercurialError) {
        precondition(rowsRead < height, "row \(rowsRead) of a \(height)-row PNG")
        var message = [CChar](repeating: 0, count: 256)
        let ok = UnsafeMutableRawPointer(row).withMemoryRebound(to: UInt8.self, capacity: width * 4) { bytes in
            mercurial_png_rows_read(reader, bytes, &message, message.count)
        }
        guard ok != 0 else {
            throw MercurialError("\(role) '\(name)' is damaged (\(Self.text(message))); give a valid PNG file")
        }
        rowsRead += 1
    }

    private static func text(_ message: [CChar]) -> String {
        let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let text = String(decoding: bytes, as: UTF8.self).escapedForTerminal
        return text.isEmpty ? "unknown libpng error" : text
    }
}

extension ShadingLookup {
    /// The largest shading image kept at full size; a larger one is box-filtered
    /// down to at most `downsampledSide` a side as it is read, row by row.
    static let largestKeptSide = 1024
    static let downsampledSide = 512

    /// The lookup for the shading image at `path`.
    public static func read(_ path: String) throws(MercurialError) -> ShadingLookup {
        let role = "shading image"
        let bytes = try PNGRowReader.screenedBytes(path, role: role)
        let small: Image<RGBA8>? = try PNGRowReader.with(bytes, name: path, role: role) { reader throws(MercurialError) in
            guard let reader, max(reader.width, reader.height) > largestKeptSide else { return nil }
            return try downsampled(reader)
        }
        if let small { return ShadingLookup(small) }
        return ShadingLookup(try PNGFile.decode(bytes, name: path, role: role))
    }

    /// The image box-filtered by a whole factor to at most `downsampledSide` a side.
    static func downsampled(_ reader: PNGRowReader) throws(MercurialError) -> Image<RGBA8> {
        let factor = (max(reader.width, reader.height) + downsampledSide - 1) / downsampledSide
        let w = (reader.width + factor - 1) / factor, h = (reader.height + factor - 1) / factor
        var sums = [UInt64](repeating: 0, count: w * 4)
        var pixels: [RGBA8] = []
        pixels.reserveCapacity(w * h)
        let row = UnsafeMutablePointer<RGBA8>.allocate(capacity: reader.width)
        defer { row.deallocate() }
        for y in 0..<reader.height {
            try reader.read(into: row)
            for x in 0..<reader.width {
                let p = row[x], i = (x / factor) * 4
                sums[i] += UInt64(p.r); sums[i + 1] += UInt64(p.g); sums[i + 2] += UInt64(p.b); sums[i + 3] += UInt64(p.a)
            }
            if (y + 1) % factor == 0 || y == reader.height - 1 {
                let rowsIn = UInt64(y % factor + 1)
                for bx in 0..<w {
                    let n = rowsIn * UInt64(min(factor, reader.width - bx * factor))
                    func mean(_ s: UInt64) -> UInt8 { UInt8((s + n / 2) / n) }
                    pixels.append(RGBA8(r: mean(sums[4 * bx]), g: mean(sums[4 * bx + 1]),
                                        b: mean(sums[4 * bx + 2]), a: mean(sums[4 * bx + 3])))
                }
                for i in sums.indices { sums[i] = 0 }
            }
        }
        return Image(width: w, height: h, pixels: pixels)
    }
}
