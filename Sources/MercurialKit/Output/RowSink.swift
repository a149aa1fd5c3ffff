/// The one way out of the renderer: rows in, an output out. Every output is a
/// conformer: a PNG made whole (`PNGSink`), a PNG streamed band by band
/// (`StreamedPNGSink`), an APNG, a PNG sequence, a video through ffmpeg, nothing
/// (`NullSink`) and images kept in memory (`ImageSink`). A sink is made for one
/// frame size; 16-bit height and normal maps are written by `TitleSurface`.
///
/// A frame is all its rows, given top to bottom in one or more `append`s and closed
/// by `endFrame`; `finish` makes the output appear, whole; `discard` (after an error
/// or a stop) leaves nothing behind.
public protocol RowSink: AnyObject {
    /// The next rows of the current frame, each `width` RGBA8 pixels (straight alpha).
    /// The pointers are valid during the call only; one pointer may repeat (a row of fill).
    func append(rows: [UnsafePointer<UInt8>]) throws(MercurialError)
    /// The current frame has had all its rows.
    func endFrame() throws(MercurialError)
    func finish() throws(MercurialError)
    func discard()
}

extension RowSink {
    /// Appends `image` as one frame.
    public func write(_ image: Image<RGBA8>) throws(MercurialError) {
        let result = image.withUnsafeBufferPointer { pixels in
            Result { () throws(MercurialError) in
                try append(rows: (0..<image.height).map { y in
                    UnsafeRawPointer(pixels.baseAddress! + y * image.width).assumingMemoryBound(to: UInt8.self)
                })
            }
        }
        try result.get()
        try endFrame()
    }

    /// Appends `canvas` as one frame: the rows around the content all share one row of fill.
    public func write(_ canvas: CanvasRegion<RGBA8>) throws(MercurialError) {
        let result = canvas.withRowPointers { rows in
            Result { () throws(MercurialError) in
                try append(rows: rows.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) })
            }
        }
        try result.get()
        try endFrame()
    }
}

/// Gathers a frame's rows for a sink that encodes a frame at once: a frame given in
/// one `append` is passed on as it is (no copy); one given in bands is copied.
struct FrameAssembler {
    let width: Int, height: Int
    private var buffer: [UInt8] = []
    private var rowsTaken = 0

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Takes `rows`; calls `whole` with the frame's rows once it has them all.
    mutating func take(_ rows: [UnsafePointer<UInt8>],
                       whole: ([UnsafePointer<UInt8>]) throws(MercurialError) -> Void) throws(MercurialError) {
        precondition(rowsTaken + rows.count <= height, "\(rowsTaken + rows.count) rows for a \(height)-row frame")
        if rowsTaken == 0 && rows.count == height {
            rowsTaken = height
            try whole(rows)
            return
        }
        let rowBytes = width * 4
        if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: rowBytes * height) }
        let start = rowsTaken
        buffer.withUnsafeMutableBytes { frame in
            for (i, row) in rows.enumerated() {
                (frame.baseAddress! + (start + i) * rowBytes).copyMemory(from: row, byteCount: rowBytes)
            }
        }
        rowsTaken += rows.count
        guard rowsTaken == height else { return }
        let result = buffer.withUnsafeBytes { frame in
            Result { () throws(MercurialError) in
                try whole((0..<height).map { y in (frame.baseAddress! + y * rowBytes).assumingMemoryBound(to: UInt8.self) })
            }
        }
        try result.get()
    }

    /// Checks that the frame is whole, and readies for the next.
    mutating func endFrame() {
        precondition(rowsTaken == height, "\(rowsTaken) of \(height) rows before the end of a frame")
        rowsTaken = 0
    }
}

/// Frames are taken and dropped (for measuring).
public final class NullSink: RowSink {
    public init() {}
    public func append(rows: [UnsafePointer<UInt8>]) throws(MercurialError) {}
    public func endFrame() throws(MercurialError) {}
    public func finish() throws(MercurialError) {}
    public func discard() {}
}

/// Keeps each frame as an image, for tests and callers that want pixels, not a file.
public final class ImageSink: RowSink {
    public private(set) var frames: [Image<RGBA8>] = []
    private var assembler: FrameAssembler

    public init(width: Int, height: Int) { assembler = FrameAssembler(width: width, height: height) }

    public func append(rows: [UnsafePointer<UInt8>]) throws(MercurialError) {
        let (width, height) = (assembler.width, assembler.height)
        try assembler.take(rows) { rows throws(MercurialError) in
            var pixels: [RGBA8] = []
            pixels.reserveCapacity(width * height)
            for row in rows {
                pixels.append(contentsOf: UnsafeBufferPointer(start: UnsafeRawPointer(row).assumingMemoryBound(to: RGBA8.self),
                                                              count: width))
            }
            frames.append(Image(width: width, height: height, pixels: pixels))
        }
    }

    public func endFrame() throws(MercurialError) { assembler.endFrame() }
    public func finish() throws(MercurialError) {}
    public func discard() { frames.removeAll() }
}

/// An 8-bit RGBA PNG made from a whole frame (see `PNGFile.Compression` for the two
/// ways it is compressed), with `ancillary` chunks (a recipe) right after its header,
/// kept in `bytes`, or written atomically to `output` by `finish`. `opaqueAsRGB`: a frame
/// with no transparent pixel is written as RGB (stills and cards; `PNGFile.encode`).
public final class PNGSink: RowSink {
    public let compression: PNGFile.Compression
    public let opaqueAsRGB: Bool
    private let ancillary: [PNGChunk]
    private let output: OutputTarget?
    private var assembler: FrameAssembler?
    /// The PNG of the last frame.
    public private(set) var bytes: [UInt8] = []

    /// A sink for `encode`, which takes each frame's size from the canvas or image it
    /// is given; rows alone (`append`, `write`) need the sized initialiser.
    public init(compression: PNGFile.Compression = .fast, ancillary: [PNGChunk] = [], output: OutputTarget? = nil,
                opaqueAsRGB: Bool = false) {
        self.compression = compression
        self.opaqueAsRGB = opaqueAsRGB
        self.ancillary = ancillary
        self.output = output
    }

    public init(width: Int, height: Int, compression: PNGFile.Compression = .fast, ancillary: [PNGChunk] = [],
                output: OutputTarget? = nil, opaqueAsRGB: Bool = false) {
        self.compression = compression
        self.opaqueAsRGB = opaqueAsRGB
        self.ancillary = ancillary
        self.output = output
        assembler = FrameAssembler(width: width, height: height)
    }

    public func append(rows: [UnsafePointer<UInt8>]) throws(MercurialError) {
        guard var assembler else { preconditionFailure("a PNGSink made without a size takes whole frames (write)") }
        let (width, height, compression, ancillary) = (assembler.width, assembler.height, compression, ancillary)
        try assembler.take(rows) { [opaqueAsRGB] rows throws(MercurialError) in
            bytes = try PNGFile.encode(width: width, height: height, rows: rows, compression: compression,
                                       ancillary: ancillary, opaqueAsRGB: opaqueAsRGB)
        }
        self.assembler = assembler
    }

    public func endFrame() throws(MercurialError) { assembler?.endFrame() }

    public func finish() throws(MercurialError) {
        try output?.write(bytes)
    }

    public func discard() { bytes = [] }

    /// The PNG of `canvas`.
    public func encode(_ canvas: CanvasRegion<RGBA8>) throws(MercurialError) -> [UInt8] {
        assembler = FrameAssembler(width: canvas.width, height: canvas.height)
        try write(canvas)
        return bytes
    }

    /// The PNG of an image that is its whole canvas.
    public func encode(_ image: Image<RGBA8>) throws(MercurialError) -> [UInt8] {
        assembler = FrameAssembler(width: image.width, height: image.height)
        try write(image)
        return bytes
    }
}

/// How an animation's alpha is written: straight (the colour as it is, as the PNGs hold it),
/// or premultiplied (the colour times the alpha), for a tool that assumes premultiplied.
public enum AlphaMode: String, Sendable, CaseIterable {
    case straight, premultiplied
}

/// Passes each row on with its colour multiplied by its alpha (`AlphaMode.premultiplied`),
/// rounded to the nearest level, as ffmpeg's `premultiply` filter does.
final class PremultipliedSink: RowSink {
    private let inner: any RowSink
    private let width: Int
    private var scratch: [UInt8] = []

    init(_ inner: any RowSink, width: Int) {
        self.inner = inner
        self.width = width
    }

    func append(rows: [UnsafePointer<UInt8>]) throws(MercurialError) {
        let rowBytes = 4 * width
        if scratch.count < rows.count * rowBytes { scratch = [UInt8](repeating: 0, count: rows.count * rowBytes) }
        let result = scratch.withUnsafeMutableBufferPointer { out in
            for (k, row) in rows.enumerated() {
                let target = out.baseAddress! + k * rowBytes
                for x in 0..<width {
                    let a = UInt32(row[4 * x + 3])
                    for c in 0..<3 { target[4 * x + c] = UInt8((UInt32(row[4 * x + c]) * a + 127) / 255) }
                    target[4 * x + 3] = UInt8(a)
                }
            }
            let base = UnsafePointer(out.baseAddress!)
            return Result { () throws(MercurialError) in try inner.append(rows: rows.indices.map { base + $0 * rowBytes }) }
        }
        try result.get()
    }

    func endFrame() throws(MercurialError) { try inner.endFrame() }
    func finish() throws(MercurialError) { try inner.finish() }
    func discard() { inner.discard() }
}
