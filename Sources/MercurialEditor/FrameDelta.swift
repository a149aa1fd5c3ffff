import Dispatch
import Foundation
import MercurialKit
import NIOCore

/// The bytes that turn the frame a page shows into the newest one: only the pixels
/// that differ, in runs. A light moved on a 1920×1080 title changes the title's
/// pixels (about a fifth of the canvas) and none of the transparent or backdrop
/// pixels around it, so a delta is some 1.5 MB where the whole frame is 8 MB; in a
/// headless Chromium on two cores, 8 MB took some 31 ms to arrive, more than the
/// render. Nothing is compressed: copying runs costs the page about a millisecond,
/// where inflating would cost more than the bytes it saves on loopback.
///
/// Layout, all little-endian `UInt32`s (a page reads it as one `Uint32Array`):
/// `magic, width, height, frame, base, x0, y0, x1, y1`, then runs of
/// `start, count, pixel × count`, where `start` is the index of the run's first
/// pixel (y · width + x; a run may go on into the next row) and each pixel is the
/// RGBA8 bytes as they lie in memory. `base` is the frame the runs apply to, or 0
/// for a clear canvas (every byte 0). Pixels outside the runs are the base's;
/// `x0 y0 x1 y1` (end-exclusive) bounds the runs, so a page need upload no more.
public enum FrameDelta {
    /// "MTD1" read as a little-endian `UInt32`.
    public static let magic: UInt32 = 0x3144_544D
    static let headerWords = 9
    /// Equal pixels shorter than this between two runs are sent inside one run:
    /// a run's two words of framing cost as much as two pixels.
    static let joinGap = 3

    /// The delta from `base` (nil: a clear canvas) to `image`, numbered `frame`;
    /// `baseNumber` names the base (0 for a clear canvas).
    public static func encode(_ image: Image<RGBA8>, frame: Int, from base: Image<RGBA8>?, baseNumber: Int) -> [UInt8] {
        Array(encode(image, frame: frame, from: base, baseNumber: baseNumber, after: []).readableBytesView)
    }

    /// The same delta after `prefix` (a whole number of words), in one buffer made to
    /// its size: the runs are counted in a first scan and written in a second, so a
    /// whole 8K frame (133 MB of runs over a backdrop) is held once, not as the pieces'
    /// runs, their join, its bytes and the message's copy of them (702 MB at the peak).
    static func encode(_ image: Image<RGBA8>, frame: Int, from base: Image<RGBA8>?, baseNumber: Int,
                       after prefix: [UInt8]) -> ByteBuffer {
        precondition(base == nil || (base!.width == image.width && base!.height == image.height),
                     "a delta's base must have the frame's size")
        precondition(prefix.count % 4 == 0, "a delta's prefix must be whole words")
        let width = image.width, count = image.width * image.height
        // The canvas in as many pieces as cores, each scanned on its own (a run stops at
        // a piece's end), then joined in order: 2.7 ms of the server's path at 1080p on one core.
        let pieceCount = max(1, min(ProcessInfo.processInfo.activeProcessorCount, count / 65_536))
        let ranges = (0..<pieceCount).map { k in (count * k / pieceCount)..<(count * (k + 1) / pieceCount) }
        // nonisolated(unsafe) here and below: iteration k writes only `pieces[k]` and its
        // own words of the buffer, and the frames' pixels are only read, while
        // concurrentPerform runs (it returns when all have).
        nonisolated(unsafe) var pieces = [Piece](repeating: Piece(), count: pieceCount)
        var buffer = ByteBuffer()
        image.withUnsafeBufferPointer { new in
            new.withMemoryRebound(to: UInt32.self) { new in
                base.withUnsafeBufferPointerIfPresent { old in
                    old.withMemoryRebound(to: UInt32.self) { old in
                        nonisolated(unsafe) let (new, old) = (new, old)
                        @Sendable func scan(_ k: Int, into out: UnsafeMutablePointer<UInt32>?) -> Piece {
                            old.isEmpty ? Piece(new, width: width, range: ranges[k], into: out) { new[$0] != 0 }
                                        : Piece(new, width: width, range: ranges[k], into: out) { new[$0] != old[$0] }
                        }
                        pieces.withUnsafeMutableBufferPointer { pieces in
                            nonisolated(unsafe) let pieces = pieces
                            DispatchQueue.concurrentPerform(iterations: pieceCount) { k in pieces[k] = scan(k, into: nil) }
                        }
                        var x0 = width, y0 = image.height, x1 = 0, y1 = 0
                        var offsets: [Int] = []
                        var words = headerWords
                        for piece in pieces {
                            offsets.append(words)
                            words += piece.words
                            (x0, y0, x1, y1) = (min(x0, piece.x0), min(y0, piece.y0), max(x1, piece.x1), max(y1, piece.y1))
                        }
                        if base == nil { (x0, y0, x1, y1) = (0, 0, width, image.height) }   // a clear canvas: all of it is new
                        if x1 <= x0 || y1 <= y0 { (x0, y0, x1, y1) = (0, 0, 0, 0) }         // nothing changed
                        let header: [UInt32] = [magic, UInt32(width), UInt32(image.height), UInt32(truncatingIfNeeded: frame),
                                                base == nil ? 0 : UInt32(truncatingIfNeeded: baseNumber),
                                                UInt32(x0), UInt32(y0), UInt32(x1), UInt32(y1)]
                        buffer = ByteBufferAllocator().buffer(capacity: prefix.count + words * 4)
                        buffer.writeBytes(prefix)
                        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: words * 4) { raw in
                            let out = raw.baseAddress!.bindMemory(to: UInt32.self, capacity: words)
                            for (k, word) in header.enumerated() { out[k] = word.littleEndian }
                            nonisolated(unsafe) let target = out
                            let offsets = offsets
                            DispatchQueue.concurrentPerform(iterations: pieceCount) { k in
                                _ = scan(k, into: target + offsets[k])
                            }
                            return words * 4
                        }
                    }
                }
            }
        }
        return buffer
    }

    /// The runs of one piece of the canvas: how many words they take and the rectangle they cover.
    struct Piece {
        var words = 0
        var x0 = Int.max, y0 = Int.max, x1 = 0, y1 = 0

        init() {}

        /// The runs of pixels in `range` for which `differs` holds, written to `out` when given.
        init(_ new: UnsafeBufferPointer<UInt32>, width: Int, range: Range<Int>, into out: UnsafeMutablePointer<UInt32>?,
             differs: (Int) -> Bool) {
            var i = range.lowerBound
            while i < range.upperBound {
                guard differs(i) else { i += 1; continue }
                // The run goes on until `joinGap` equal pixels in a row.
                var last = i, j = i + 1
                while j < range.upperBound && j - last <= joinGap {
                    if differs(j) { last = j }
                    j += 1
                }
                let n = last + 1 - i
                if let out {
                    out[words] = UInt32(i).littleEndian
                    out[words + 1] = UInt32(n).littleEndian
                    (out + words + 2).update(from: new.baseAddress! + i, count: n)
                }
                words += 2 + n
                let (ya, yb) = (i / width, last / width)
                y0 = min(y0, ya); y1 = max(y1, yb + 1)
                if ya == yb { x0 = min(x0, i % width); x1 = max(x1, last % width + 1) } else { x0 = 0; x1 = width }
                i = j
            }
        }
    }

    /// Applies `delta` to `pixels` (the base it names, or anything when it starts from
    /// a clear canvas), as the page does; the frame number it brings. For tests.
    public static func apply(_ delta: [UInt8], to pixels: inout [RGBA8], width: Int, height: Int) throws(MercurialError) -> Int {
        guard delta.count % 4 == 0, delta.count >= headerWords * 4 else { throw MercurialError("a frame delta of \(delta.count) bytes is damaged") }
        let words: [UInt32] = delta.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
        guard words[0] == magic, Int(words[1]) == width, Int(words[2]) == height else {
            throw MercurialError("a frame delta for another canvas")
        }
        if words[4] == 0 { pixels = [RGBA8](repeating: RGBA8(r: 0, g: 0, b: 0, a: 0), count: width * height) }
        var i = headerWords
        while i + 2 <= words.count {
            let start = Int(words[i]), n = Int(words[i + 1])
            guard i + 2 + n <= words.count, start + n <= pixels.count else { throw MercurialError("a frame delta's run overruns") }
            for k in 0..<n {
                let w = words[i + 2 + k]
                pixels[start + k] = RGBA8(r: UInt8(w & 0xff), g: UInt8((w >> 8) & 0xff), b: UInt8((w >> 16) & 0xff), a: UInt8(w >> 24))
            }
            i += 2 + n
        }
        return Int(words[3])
    }
}

extension Optional where Wrapped == Image<RGBA8> {
    /// The image's pixels, or an empty buffer when there is none.
    func withUnsafeBufferPointerIfPresent<R>(_ body: (UnsafeBufferPointer<RGBA8>) -> R) -> R {
        switch self {
        case .some(let image): return image.withUnsafeBufferPointer(body)
        case .none: return body(UnsafeBufferPointer(start: nil, count: 0))
        }
    }
}
