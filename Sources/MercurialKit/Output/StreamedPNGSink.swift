import CPNGWriter

/// A PNG chunk: its four-letter type and its data (length and CRC are added when written).
public struct PNGChunk: Sendable, Equatable {
    public var type: String
    public var data: [UInt8]
    public init(type: String, data: [UInt8]) {
        precondition(type.utf8.count == 4, "a chunk type has four letters, not '\(type)'")
        self.type = type
        self.data = data
    }
}

/// A PNG written band by band as its rows are finished, so that the whole canvas
/// never exists at once: the zlib stream is deflated a band at a time (each band
/// split across the cores and ended with Z_SYNC_FLUSH, as `PNGFile.imageData`
/// joins its bands), each band's bytes are sent as one IDAT chunk, and the
/// Adler-32 of the whole stream is combined from the bands' as they go.
///
/// `.none` stores unfiltered rows (deflate level 0);
/// `.fast` deflates Up-filtered rows (all but the image's first) as runs and Huffman
/// codes (`fast_deflate.c`), as the in-memory encoder does; `.small` Paeth-filters the rows at level 9 (libpng's
/// adaptive filtering needs the whole image at once; the file is close in size).
/// The bytes go to `output` as they are made, through an `OutputFile.Stream` opened
/// at the first of them, which `finish` makes appear whole and `discard` (or a failed
/// write, or SIGINT/SIGTERM/SIGHUP) leaves nothing of; with no output they are kept in
/// `bytes`.
final class StreamedPNGSink: RowSink {
    let width: Int, height: Int
    private let compression: PNGFile.Compression
    private let target: OutputTarget?
    private var output: OutputFile.Stream?
    /// The PNG so far, when there is no target.
    private(set) var bytes: [UInt8] = []
    /// Chunks written after IHDR, before the image data (e.g. an iTXt recipe).
    private let ancillary: [PNGChunk]
    private var adler: UInt32 = 1
    private var rowsWritten = 0
    private var started = false
    /// The last row of the previous band (the Paeth and Up filters read the row above).
    private let previousRow: UnsafeMutableBufferPointer<UInt8>

    /// Whether the PNG is written as RGB (colour type 2): the caller expects every pixel opaque.
    private let opaque: Bool
    /// Set when a band given to an `opaque` sink had a pixel that is not: the sink threw,
    /// writing nothing more, for the caller to render the title again with alpha.
    private(set) var foundTranslucent = false

    /// `opaque`: write RGB (a quarter fewer bytes to filter and deflate, as `PNGSink` writes an
    /// opaque canvas), for a title over a background; a band with any pixel not opaque throws.
    init(width: Int, height: Int, compression: PNGFile.Compression, ancillary: [PNGChunk] = [], output: OutputTarget?,
         opaque: Bool = false) {
        self.ancillary = ancillary
        self.width = width
        self.height = height
        self.compression = compression
        self.opaque = opaque
        target = output
        previousRow = .allocate(capacity: compression == .none ? 0 : width * 4)
    }

    deinit { previousRow.deallocate() }

    private struct Piece {
        var bytes: UnsafeMutablePointer<UInt8>?
        var count = 0, rawCount = 0
        var adler: UInt32 = 1
    }

    /// Appends the next `rows.count` rows (each `width` RGBA8 pixels).
    func append(rows: [UnsafePointer<UInt8>]) throws(MercurialError) {
        try Cancellation.checkCurrent()
        precondition(rowsWritten + rows.count <= height, "\(rowsWritten + rows.count) rows for a \(height)-row PNG")
        guard !rows.isEmpty else { return }
        if opaque && !PNGFile.isOpaque(rows, width: width) {
            foundTranslucent = true
            throw MercurialError.internal("a title over a background has a pixel that is not opaque")
        }
        if !started { try start() }
        let paeth = compression == .small, filtered = compression != .none
        // With a filter, index 0 is the row above the band (none for the first band).
        let first = filtered && rowsWritten > 0 ? 1 : 0
        var pointers = rows
        if first == 1 { pointers.insert(UnsafePointer(previousRow.baseAddress!), at: 0) }
        let pieceCount = max(1, min(rows.count / 32, ProcessInfoCores.count))
        var pieces = [Piece](repeating: Piece(), count: pieceCount)
        defer { pieces.forEach { mercurial_png_free($0.bytes) } }
        let level: Int32 = paeth ? 9 : (compression == .none ? 0 : 1)
        let filter = Int32(paeth ? MERCURIAL_FILTER_PAETH : filtered ? MERCURIAL_FILTER_UP : MERCURIAL_FILTER_NONE)
        let total = rows.count
        do {
            pointers.map(Optional.some).withUnsafeBufferPointer { rowPointers in
                pieces.withUnsafeMutableBufferPointer { pieces in
                    parallelBands(pieceCount, minimumBand: 1) { range in
                        for k in range {
                            var piece = Piece()
                            let ok = mercurial_deflate_filtered_rows(
                                rowPointers.baseAddress, UInt32(width), opaque ? 3 : 4,
                                UInt32(first + total * k / pieceCount), UInt32(first + total * (k + 1) / pieceCount),
                                0, level, filter, &piece.bytes, &piece.count, &piece.adler, &piece.rawCount)
                            pieces[k] = ok != 0 ? piece : Piece()
                        }
                    }
                }
            }
        }
        guard pieces.allSatisfy({ $0.bytes != nil }) else {
            throw MercurialError.resource("cannot encode the PNG (zlib ran out of memory)")
        }
        var data: [UInt8] = []
        data.reserveCapacity(pieces.reduce(0) { $0 + $1.count })
        for piece in pieces {
            adler = mercurial_adler32_combine(adler, piece.adler, piece.rawCount)
            data.append(contentsOf: UnsafeBufferPointer(start: piece.bytes, count: piece.count))
        }
        try chunk("IDAT", data)
        if filtered {
            UnsafeMutableRawBufferPointer(previousRow).copyMemory(from: UnsafeRawBufferPointer(start: rows[rows.count - 1], count: width * 4))
        }
        rowsWritten += rows.count
    }

    /// Ends the zlib stream and the PNG. Every row must have been appended.
    func endFrame() throws(MercurialError) {
        precondition(rowsWritten == height, "\(rowsWritten) of \(height) rows written")
        if !started { try start() }
        var piece = Piece()
        let ok = mercurial_deflate_filtered_rows(nil, UInt32(width), 4, 0, 0, 1, 1, 0,
                                                 &piece.bytes, &piece.count, &piece.adler, &piece.rawCount)
        defer { mercurial_png_free(piece.bytes) }
        guard ok != 0 else { throw MercurialError.resource("cannot encode the PNG (zlib ran out of memory)") }
        var data = Array(UnsafeBufferPointer(start: piece.bytes, count: piece.count))
        data += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xff), UInt8((adler >> 8) & 0xff), UInt8(adler & 0xff)]
        try chunk("IDAT", data)
        try chunk("IEND", [])
    }

    /// Makes the file appear, whole (after `endFrame`).
    func finish() throws(MercurialError) { try output?.commit() }

    /// Leaves nothing behind: the file's bytes so far are dropped.
    func discard() {
        output?.discard()
        output = nil
        bytes = []
    }

    private func start() throws(MercurialError) {
        started = true
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        try send(signature)
        try chunk("IHDR", Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height)) + [8, opaque ? 2 : 6, 0, 0, 0])
        for extra in ancillary { try chunk(extra.type, extra.data) }
        try chunk("IDAT", [0x78, 0x01])   // the zlib header: deflate, 32 KiB window
    }

    private func chunk(_ type: String, _ data: [UInt8]) throws(MercurialError) {
        var bytes = Self.bigEndian(UInt32(data.count))
        bytes.reserveCapacity(data.count + 12)
        bytes += Array(type.utf8)
        bytes += data
        let crc = bytes.withUnsafeBufferPointer { mercurial_crc32(0, $0.baseAddress! + 4, $0.count - 4) }
        bytes += Self.bigEndian(crc)
        try send(bytes)
    }

    private func send(_ piece: [UInt8]) throws(MercurialError) {
        guard let target else {
            bytes += piece
            return
        }
        if output == nil { output = try target.open() }
        try output?.write(piece)
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)]
    }
}
