import CFreeType
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension GlyphRun {
    /// Adds a colour bitmap glyph (an emoji from a CBDT face) as its silhouette: the bitmap's
    /// alpha, scaled from the strike by `scale` and placed at the pen's sub-pixel position,
    /// embossed in the title's metal like every other glyph. With `keepColor` its colours are
    /// kept too (`Bitmap.paint`), for the loft's luminance cue and the paint pass.
    mutating func addBitmap(_ slot: FT_GlyphSlot, scale: Double, x: Double, baseline: Double,
                            keepColor: Bool = false) throws(MercurialError) {
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
        coverageBytes += columns.count * rows.count * (keepColor ? 5 : 1)
        guard coverageBytes <= PNGFile.maximumPixels else {
            throw MercurialError.limit("the text's glyphs need more than \(PNGFile.maximumPixels / 1_048_576) M pixels at this size; use a smaller --size or shorter text")
        }
        // Each channel (FreeType's BGRA, premultiplied): rows first (each source row to the output's width), then columns.
        func resampled(_ channel: Int) -> [Float] {
            var across = [Float](repeating: 0, count: height * columns.count)
            across.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let row = pitch >= 0 ? buffer + y * pitch : buffer + (height - 1 - y) * -pitch
                    columns.apply(count: columns.count, into: out.baseAddress! + y * columns.count, stride: 1) { Float(row[4 * $0 + channel]) }
                }
            }
            var out = [Float](repeating: 0, count: rows.count * columns.count)
            across.withUnsafeBufferPointer { a in
                out.withUnsafeMutableBufferPointer { o in
                    for x in 0..<columns.count {
                        rows.apply(count: rows.count, into: o.baseAddress! + x, stride: columns.count) { a[$0 * columns.count + x] }
                    }
                }
            }
            return out
        }
        let alpha = resampled(3)
        func byte(_ v: Float) -> UInt8 { UInt8(min(max(v, 0), 255).rounded()) }
        guard keepColor else {
            bitmaps.append(Bitmap(left: Int(wholeX), top: Int(wholeY), width: columns.count, height: rows.count,
                                  coverage: alpha.map(byte)))
            return
        }
        let (blue, green, red) = (resampled(0), resampled(1), resampled(2))
        var paint = [RGBA8](repeating: .clear, count: alpha.count)
        for i in alpha.indices where alpha[i] > 0.5 {
            // Straight colour from premultiplied.
            let k = 255 / alpha[i]
            paint[i] = RGBA8(r: byte(red[i] * k), g: byte(green[i] * k), b: byte(blue[i] * k), a: byte(alpha[i]))
        }
        bitmaps.append(Bitmap(left: Int(wholeX), top: Int(wholeY), width: columns.count, height: rows.count,
                              coverage: alpha.map(byte), paint: paint))
    }
}

extension GlyphRun.Bitmap {
    /// The bitmap turned clockwise by `angle` radians about the canvas point `pivot` (a
    /// colour glyph on a path, turned as outlines are), each pixel sampled bilinearly from
    /// the unturned one at its centre's place; the box grows to hold the turned corners.
    func rotated(by angle: Double, about pivot: SIMD2<Double>) -> GlyphRun.Bitmap {
        guard !coverage.isEmpty, width > 0, height > 0 else { return self }
        let (c, s) = (cos(angle), sin(angle))
        func turn(_ p: SIMD2<Double>) -> SIMD2<Double> {
            let d = p - pivot
            return pivot + SIMD2(c * d.x - s * d.y, s * d.x + c * d.y)
        }
        let corners = [SIMD2(Double(left), Double(top)), SIMD2(Double(left + width), Double(top)),
                       SIMD2(Double(left), Double(top + height)), SIMD2(Double(left + width), Double(top + height))].map(turn)
        let minX = Int(corners.map(\.x).min()!.rounded(.down)), maxX = Int(corners.map(\.x).max()!.rounded(.up))
        let minY = Int(corners.map(\.y).min()!.rounded(.down)), maxY = Int(corners.map(\.y).max()!.rounded(.up))
        let (w, h) = (maxX - minX, maxY - minY)
        var out = [UInt8](repeating: 0, count: w * h)
        var turnedPaint = paint.map { _ in [RGBA8](repeating: .clear, count: w * h) }
        func sample(_ x: Int, _ y: Int) -> Double {
            x >= 0 && x < width && y >= 0 && y < height ? Double(coverage[y * width + x]) : 0
        }
        // A kept colour, premultiplied (so that the clear outside adds no colour).
        func colour(_ x: Int, _ y: Int) -> SIMD4<Double> {
            guard let paint, x >= 0 && x < width && y >= 0 && y < height else { return .zero }
            let p = paint[y * width + x], a = Double(p.a) / 255
            return SIMD4(Double(p.r) * a, Double(p.g) * a, Double(p.b) * a, Double(p.a))
        }
        for oy in 0..<h {
            for ox in 0..<w {
                // The output pixel's centre turned back, in the source's pixel-centre grid.
                let d = SIMD2(Double(minX + ox) + 0.5, Double(minY + oy) + 0.5) - pivot
                let back = pivot + SIMD2(c * d.x + s * d.y, -s * d.x + c * d.y)
                let u = back.x - Double(left) - 0.5, v = back.y - Double(top) - 0.5
                let x0 = Int(u.rounded(.down)), y0 = Int(v.rounded(.down))
                let fx = u - Double(x0), fy = v - Double(y0)
                let value = (sample(x0, y0) * (1 - fx) + sample(x0 + 1, y0) * fx) * (1 - fy)
                    + (sample(x0, y0 + 1) * (1 - fx) + sample(x0 + 1, y0 + 1) * fx) * fy
                out[oy * w + ox] = UInt8(min(max(value, 0), 255).rounded())
                if turnedPaint != nil {
                    let c = (colour(x0, y0) * (1 - fx) + colour(x0 + 1, y0) * fx) * (1 - fy)
                        + (colour(x0, y0 + 1) * (1 - fx) + colour(x0 + 1, y0 + 1) * fx) * fy
                    let k = c.w > 0.5 ? 255 / c.w : 0
                    func byte(_ v: Double) -> UInt8 { UInt8(min(max(v, 0), 255).rounded()) }
                    turnedPaint![oy * w + ox] = RGBA8(r: byte(c.x * k), g: byte(c.y * k), b: byte(c.z * k), a: byte(c.w))
                }
            }
        }
        var turned = self
        (turned.left, turned.top, turned.width, turned.height, turned.coverage, turned.paint) = (minX, minY, w, h, out, turnedPaint)
        return turned
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
