import CFreeType

extension GlyphRun {
    /// Adds a colour bitmap glyph (an emoji from a CBDT face) as its silhouette: the bitmap's
    /// alpha, scaled from the strike by `scale` and placed at the pen's sub-pixel position,
    /// embossed in the title's metal like every other glyph.
    mutating func addBitmap(_ slot: FT_GlyphSlot, scale: Double, x: Double, baseline: Double) throws(MercurialError) {
        let bitmap = slot.pointee.bitmap
        let width = Int(bitmap.width), height = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        guard width > 0, height > 0, let buffer = bitmap.buffer, scale.isFinite, scale > 0 else { return }
        let left = x + Double(slot.pointee.bitmap_left) * scale
        let top = baseline - Double(slot.pointee.bitmap_top) * scale
        let wholeX = left.rounded(.down), wholeY = top.rounded(.down)
        let columns = ResampleTaps(source: width, scale: scale, shift: left - wholeX)
        let rows = ResampleTaps(source: height, scale: scale, shift: top - wholeY)
        guard columns.count <= PNGFile.maximumSide, rows.count <= PNGFile.maximumSide else {
            throw MercurialError("an emoji at this size would be \(columns.count)×\(rows.count) px, over the largest canvas; use a smaller --size")
        }
        coverageBytes += columns.count * rows.count
        guard coverageBytes <= PNGFile.maximumPixels else {
            throw MercurialError.limit("the text's glyphs need more than \(PNGFile.maximumPixels / 1_048_576) M pixels at this size; use a smaller --size or shorter text")
        }
        // Rows first (each source row to the output's width), then columns.
        var across = [Float](repeating: 0, count: height * columns.count)
        across.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = pitch >= 0 ? buffer + y * pitch : buffer + (height - 1 - y) * -pitch
                columns.apply(count: columns.count, into: out.baseAddress! + y * columns.count, stride: 1) { Float(row[4 * $0 + 3]) }
            }
        }
        var coverage = [UInt8](repeating: 0, count: rows.count * columns.count)
        var column = [Float](repeating: 0, count: rows.count)
        across.withUnsafeBufferPointer { a in
            for x in 0..<columns.count {
                column.withUnsafeMutableBufferPointer { c in
                    rows.apply(count: rows.count, into: c.baseAddress!, stride: 1) { a[$0 * columns.count + x] }
                }
                for y in 0..<rows.count { coverage[y * columns.count + x] = UInt8(min(max(column[y], 0), 255).rounded()) }
            }
        }
        bitmaps.append(Bitmap(left: Int(wholeX), top: Int(wholeY), width: columns.count, height: rows.count, coverage: coverage))
    }
}

/// The weights of a tent filter that resamples `source` samples to `scale` times as many,
/// the output grid shifted right by `shift` pixels: linear interpolation when enlarging,
/// an average over 1/scale samples when shrinking (as stb_image_resize's triangle filter).
/// Samples beyond the ends count as 0, so an edge fades out over the filter's reach.
struct ResampleTaps {
    let count: Int
    private let first: [Int]
    private let weights: [[Float]]

    init(source: Int, scale: Double, shift: Double) {
        count = max(Int((Double(source) * scale + shift).rounded(.up)), 1)
        let reach = max(1, 1 / scale)
        var first: [Int] = [], weights: [[Float]] = []
        for o in 0..<count {
            let centre = (Double(o) + 0.5 - shift) / scale - 0.5
            let lo = Int((centre - reach).rounded(.up)), hi = Int((centre + reach).rounded(.down))
            var taps: [Double] = [], total = 0.0
            for s in lo...max(lo, hi) {
                let w = max(0, 1 - abs(Double(s) - centre) / reach)
                total += w
                taps.append(w)
            }
            let start = max(lo, 0), end = min(max(lo, hi), source - 1)
            first.append(start)
            weights.append(start <= end ? taps[(start - lo)...(end - lo)].map { Float($0 / max(total, 1e-12)) } : [])
        }
        self.first = first
        self.weights = weights
    }

    /// Output sample `o` for every `o` below `count`, into `out[o * stride]`, from `sample(s)`.
    func apply(count: Int, into out: UnsafeMutablePointer<Float>, stride: Int, _ sample: (Int) -> Float) {
        for o in 0..<count {
            var sum: Float = 0
            for (k, w) in weights[o].enumerated() { sum += w * sample(first[o] + k) }
            out[o * stride] = sum
        }
    }
}
