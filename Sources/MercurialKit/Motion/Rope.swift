import FoundationEssentials

/// A rope's picture: a smooth path through its links' centres (Catmull-Rom, as the
/// source draws a path through the centres of the views its attachments join),
/// stroked into a coverage mask that is lofted and shaded like the letters.
enum RopeStroke {
    /// A Catmull-Rom spline through `points` (it passes through every one), `samples` points a span.
    static func smoothPath(_ points: [SIMD2<Double>], samples: Int = 8) -> [SIMD2<Double>] {
        guard points.count >= 3 else { return points }
        var path: [SIMD2<Double>] = []
        path.reserveCapacity((points.count - 1) * samples + 1)
        for i in 0..<(points.count - 1) {
            let p0 = points[max(i - 1, 0)], p1 = points[i], p2 = points[i + 1], p3 = points[min(i + 2, points.count - 1)]
            for k in 0..<samples {
                let t = Double(k) / Double(samples), t2 = t * t, t3 = t2 * t
                let a = 2 * p1
                let b = (p2 - p0) * t
                let c = (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2
                let d = (3 * p1 - p0 - 3 * p2 + p3) * t3
                path.append((a + b + c + d) * 0.5)
            }
        }
        path.append(points[points.count - 1])
        return path
    }

    /// The path stroked `width` pixels wide with round ends and joins, anti-aliased,
    /// into a mask with `margin` empty pixels around it, and where its top-left pixel
    /// is on the canvas, cut to `clip` (the canvas) plus the margin. Nil when the path
    /// is empty or not finite, or misses the clip.
    static func mask(_ path: [SIMD2<Double>], width: Double, margin: Int,
                     clip: (width: Int, height: Int)? = nil) -> (mask: Mask, origin: SIMD2<Int>)? {
        guard !path.isEmpty, path.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        let half = width / 2
        let lo = path.reduce(SIMD2(Double.infinity, .infinity)) { pointwiseMin($0, $1) }
        let hi = path.reduce(-SIMD2(Double.infinity, .infinity)) { pointwiseMax($0, $1) }
        let pad = half + 1 + Double(margin)
        var x0 = Int(max(lo.x - pad, -1e7).rounded(.down)), y0 = Int(max(lo.y - pad, -1e7).rounded(.down))
        var x1 = Int(min(hi.x + pad, 1e7).rounded(.up)), y1 = Int(min(hi.y + pad, 1e7).rounded(.up))
        if let clip {
            // A margin outside the canvas keeps the loft at its edges as it would be uncut.
            let m = Int(pad.rounded(.up))
            x0 = max(x0, -m); y0 = max(y0, -m); x1 = min(x1, clip.width + m); y1 = min(y1, clip.height + m)
        }
        let w = x1 - x0, h = y1 - y0
        guard w > 0, h > 0, w * h <= PNGFile.maximumPixels else { return nil }
        var mask = Mask(width: w, height: h, repeating: 0)
        StrokeRaster.draw([TaperedStroke(points: path, widths: Array(repeating: width, count: path.count))],
                          into: &mask, origin: SIMD2(x0, y0))
        return (mask, SIMD2(x0, y0))
    }
}
