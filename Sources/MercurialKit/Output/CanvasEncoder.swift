/// Turns a title rendered in memory into the bytes of a file, for `render`, `batch`,
/// `watch`, the editor and the benchmark; the encoder only makes bytes: `OutputFile`
/// writes them. PNG is its one conformance. The other outputs are made elsewhere: a
/// streamed PNG by `StreamingPNGWriter` (`TitleRenderer.renderPNG`), animation frames
/// (APNG, PNG sequences, ffmpeg) by the `FrameSink`s of AnimationOutput.swift, and
/// 16-bit height and normal maps by `TitleSurface`.
public protocol CanvasEncoder: Sendable {
    func encode(_ canvas: CanvasRegion<RGBA8>) throws(MercurialError) -> [UInt8]
}

/// An 8-bit RGBA PNG (see `PNGFile.Compression` for the two ways it is compressed).
public struct PNGEncoder: CanvasEncoder {
    public var compression: PNGFile.Compression

    public init(compression: PNGFile.Compression = .fast) {
        self.compression = compression
    }

    /// Encodes the canvas from row pointers: the rows around the content all share one row of fill.
    public func encode(_ canvas: CanvasRegion<RGBA8>) throws(MercurialError) -> [UInt8] {
        let result = canvas.withRowPointers { rows in
            Result { () throws(MercurialError) in
                try PNGFile.encode(width: canvas.width, height: canvas.height,
                                   rows: rows.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) },
                                   compression: compression)
            }
        }
        return try result.get()
    }

    /// Encodes an image that is its whole canvas.
    public func encode(_ image: Image<RGBA8>) throws(MercurialError) -> [UInt8] {
        try encode(CanvasRegion(image, fill: .clear))
    }
}
