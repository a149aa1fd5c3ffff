/// The shape of a title too large to hold, made a band of rows at a time from a
/// stream of mask rows: each band a `TitleShape` of its rows, with the pixels of
/// `HeightFieldFromMask` over the whole mask (the renderer shades and composes it as
/// it does a whole title's shape).
///
/// Each band of output rows needs the heights of its rows and one row either side
/// (the Sobel normals), and those need the mask rows within the profile's reach:
/// - liquid: the blur's 4σ. Mask rows are blurred across once, as they arrive, into
///   a ring of rows; each height row gathers the rows within reach, as the whole
///   mask's vertical pass does.
/// - chisel and round: the signed distance field reaches radius + 1 inside and a few
///   pixels outside; it is computed over a window of the band's rows plus
///   `distanceHalo` rows either side, beyond which no row can change a distance.
/// The ring of mask rows (and, for liquid, of blurred-across rows) holds a band plus
/// twice the halo, so memory grows with the width and the radius, not the height.
final class BandLoft: TitleShapeSource {
    let width: Int, height: Int
    let ink: PixelBounds
    let bandHeight: Int
    let radius: Float
    let profile: LoftProfile
    let scale: Float
    /// The mask's rows (of the crop), in order.
    let source: any CoverageRowSource
    /// Where the crop sits on the canvas, and the canvas's size.
    let origin: (x: Int, y: Int), canvas: (width: Int, height: Int)

    /// The loft of `crop` (a region of a `canvas`-sized canvas) whose ink is `ink`
    /// (within the crop), its rows read from `source`.
    init(settings: TitleShapeSettings, source: any CoverageRowSource, crop: PixelBounds, ink: PixelBounds,
         canvas: (width: Int, height: Int), bandHeight: Int) {
        width = crop.width
        height = crop.height
        origin = (crop.minX, crop.minY)
        self.canvas = canvas
        self.source = source
        self.ink = ink
        self.bandHeight = bandHeight
        radius = Float(settings.radius)
        profile = settings.profile
        scale = Float(settings.normalScale)
    }

    /// Rows either side of a band that the distance field of its rows can depend on.
    var distanceHalo: Int { SignedDistanceField.rowsReached(reach: radius + 1) }

    /// Calls `body` with the shape of each band of rows, from the top.
    func shapes(_ body: (TitleShape) throws(MercurialError) -> Void) throws(MercurialError) {
        let liquid = profile == .liquid
        let blur = GaussianBlur(sigma: HeightFieldFromMask.liquidSigma * radius)
        let halo = liquid ? blur.reach : distanceHalo
        let B = bandHeight
        let capacity = min(B + 2 * halo + 4, height)
        // The region of the liquid loft: the ink and the pixel around it.
        let region = PixelBounds(minX: max(ink.minX - 1, 0), minY: max(ink.minY - 1, 0),
                                 maxX: min(ink.maxX + 1, width - 1), maxY: min(ink.maxY + 1, height - 1))
        let rw = region.width
        let coverage = UnsafeMutableBufferPointer<Float>.allocate(capacity: capacity * width)
        defer { coverage.deallocate() }
        let across = UnsafeMutableBufferPointer<Float>.allocate(capacity: liquid ? capacity * rw : 0)
        defer { across.deallocate() }
        let blurred = UnsafeMutableBufferPointer<Float>.allocate(capacity: liquid ? (B + 2) * rw : 0)
        defer { blurred.deallocate() }
        let curve = LiquidCurve(radius: radius)
        let material = ShadedMaterial(inputScale: scale)
        @inline(__always) func slot(_ y: Int) -> Int { y % capacity }

        // A band's heights and coverage, reused from band to band (the shape given out
        // is gone by the next, so they are not copied).
        var heights = HeightField(width: width, height: 0, repeating: 0)
        var mask = Mask(width: width, height: 0, repeating: 0)
        var loaded = 0
        var b0 = 0
        while b0 < height {
            let b1 = min(b0 + B, height)
            let hyLo = max(b0 - 1, 0), hyHi = min(b1 + 1, height)
            let needed = min(height, max(b1, hyHi + halo))
            // Read the new mask rows; for liquid, blur them across.
            let firstNew = loaded
            while loaded < needed {
                try source.read(into: coverage.baseAddress! + slot(loaded) * width)
                loaded += 1
            }
            if liquid { blurAcross(rows: firstNew..<loaded, blur: blur, region: region, capacity: capacity,
                                   coverage: coverage, across: across) }
            // The heights of rows hyLo..<hyHi.
            if heights.height != hyHi - hyLo { heights = HeightField(width: width, height: hyHi - hyLo, repeating: 0) }
            heights.withUnsafeMutableBufferPointer { heights in
                if liquid {
                    liquidHeights(rows: hyLo..<hyHi, blur: blur, curve: curve, region: region, capacity: capacity,
                                  across: across, blurred: blurred, heights: heights)
                } else {
                    distanceHeights(rows: hyLo..<hyHi, capacity: capacity, loaded: loaded, coverage: coverage,
                                    heights: heights)
                }
            }
            // The coverage of rows b0..<b1.
            if mask.height != b1 - b0 { mask = Mask(width: width, height: b1 - b0, repeating: 0) }
            mask.withUnsafeMutableBufferPointer { mask in
                for y in b0..<b1 {
                    (mask.baseAddress! + (y - b0) * width).update(from: coverage.baseAddress! + slot(y) * width, count: width)
                }
            }
            try body(TitleShape(mask: mask, origin: (origin.x, origin.y + b0), canvas: canvas, warnings: [],
                                heights: heights, plateau: HeightFieldFromMask.plateau(of: profile), normals: nil,
                                material: material,
                                band: ShadedMaterial.Rows(rows: b0..<b1, regionHeight: height, heightsFrom: hyLo, ink: ink)))
            b0 = b1
        }
    }

    /// The horizontal pass of `GaussianBlur.blurred` for mask rows `rows` (those in the ink).
    private func blurAcross(rows: Range<Int>, blur: GaussianBlur, region: PixelBounds, capacity: Int,
                            coverage: UnsafeMutableBufferPointer<Float>, across: UnsafeMutableBufferPointer<Float>) {
        let lower = max(rows.lowerBound, ink.minY), upper = min(rows.upperBound, ink.maxY + 1)
        guard lower < upper else { return }
        let inkRows = lower..<upper
        let rw = region.width, width = self.width, ink = self.ink
        blur.weights.withUnsafeBufferPointer { w in
            parallelBands(inkRows.count, minimumBand: 8) { band in
                var line = [Float](repeating: 0, count: rw + 2 * blur.reach)
                line.withUnsafeMutableBufferPointer { line in
                    for r in band {
                        let y = r + inkRows.lowerBound
                        blur.blurRow(coverage.baseAddress! + (y % capacity) * width,
                                     into: across.baseAddress! + (y % capacity) * rw,
                                     region: region, ink: ink, line: line, weights: w)
                    }
                }
            }
        }
    }

    /// The vertical pass and the liquid curve for height rows `rows` (0 outside the region).
    ///
    /// The pass runs over tiles of `verticalTile` columns, each tile through all the
    /// band's rows: the rows within reach (2·reach + 1 of them, 801 at radius 200) are
    /// then read from cache, not from memory once for every output row. Each pixel's
    /// sum is taken in the same order as `GaussianBlur.blurred`'s.
    private func liquidHeights(rows: Range<Int>, blur: GaussianBlur, curve: LiquidCurve, region: PixelBounds,
                               capacity: Int, across: UnsafeMutableBufferPointer<Float>,
                               blurred: UnsafeMutableBufferPointer<Float>, heights: UnsafeMutableBufferPointer<Float>) {
        let rw = region.width, reach = blur.reach, width = self.width, ink = self.ink
        let tiles = (rw + Self.verticalTile - 1) / Self.verticalTile
        blur.weights.withUnsafeBufferPointer { w in
            parallelBands(tiles, minimumBand: 1) { tileRange in
                for t in tileRange {
                    let x0 = t * Self.verticalTile, n = min(Self.verticalTile, rw - x0)
                    for r in 0..<rows.count {
                        let y = r + rows.lowerBound
                        guard y >= region.minY && y <= region.maxY else { continue }
                        let target = blurred.baseAddress! + r * rw + x0
                        target.update(repeating: 0, count: n)
                        let first = max(y - reach, ink.minY), last = min(y + reach, ink.maxY)
                        guard first <= last else { continue }
                        for sy in first...last {
                            let wk = w[sy - y + reach], source = across.baseAddress! + (sy % capacity) * rw + x0
                            for x in 0..<n { target[x] += wk * source[x] }
                        }
                    }
                }
            }
        }
        curve.table.withUnsafeBufferPointer { table in
            curve.tail.withUnsafeBufferPointer { tail in
                parallelBands(rows.count, minimumBand: 8) { band in
                    for r in band {
                        let y = r + rows.lowerBound
                        let h = heights.baseAddress! + r * width
                        h.update(repeating: 0, count: width)
                        guard y >= region.minY && y <= region.maxY else { continue }
                        let b = blurred.baseAddress! + r * rw
                        for i in 0..<rw { h[region.minX + i] = curve.height(table, tail, blurred: b[i]) }
                    }
                }
            }
        }
    }

    /// Columns in a tile of the vertical pass.
    static let verticalTile = 256

    /// The chisel or round heights of rows `rows`, from the distance field of a window around them.
    private func distanceHeights(rows: Range<Int>, capacity: Int, loaded: Int,
                                 coverage: UnsafeMutableBufferPointer<Float>, heights: UnsafeMutableBufferPointer<Float>) {
        let width = self.width, halo = distanceHalo
        let wLo = max(rows.lowerBound - halo, 0), wHi = min(rows.upperBound + halo, loaded)
        var window = Mask(width: width, height: wHi - wLo, repeating: 0)
        window.withUnsafeMutableBufferPointer { w in
            for y in wLo..<wHi {
                (w.baseAddress! + (y - wLo) * width).update(from: coverage.baseAddress! + (y % capacity) * width, count: width)
            }
        }
        heights.baseAddress!.update(repeating: 0, count: rows.count * width)
        let distances = SignedDistanceField(mask: window, reachInside: radius + 1,
                                            reachOutside: HeightFieldFromMask.skirtWidth + 1)
        guard let region = distances.region else { return }
        let radius = self.radius, round = profile == .round
        distances.values.withUnsafeBufferPointer { dist in
            parallelBands(rows.count, minimumBand: 8) { band in
                for r in band {
                    let wy = r + rows.lowerBound - wLo
                    guard wy >= region.minY && wy <= region.maxY else { continue }
                    let source = (wy - region.minY) * region.width, target = r * width + region.minX
                    for i in 0..<region.width {
                        let d = dist[source + i]
                        heights[target + i] = round ? HeightFieldFromMask.roundHeight(signedDistance: d, radius: radius)
                            : HeightFieldFromMask.chiselHeight(signedDistance: d, radius: radius)
                    }
                }
            }
        }
    }
}
