import Synchronization
/// The shape of the loft across a stroke.
public enum LoftProfile: String, Sendable, CaseIterable, Equatable {
    /// Soft rounded tubes with smooth joins, like the original app's Core Image loft (the default).
    case liquid
    /// A quarter-sine bevel from the edge, flat beyond the radius: crisp mitred corners.
    case chisel
    /// A quarter-circle fillet from the edge, flat beyond the radius.
    case round
}

/// Turns a coverage mask into a smooth loft, like Core Image's CIHeightFieldFromMask.
///
/// Three profiles:
/// - **liquid** (the default): the original app's soft tubes. The mask is blurred
///   with a Gaussian of σ = radius/2. Beside a straight edge the blurred coverage
///   is Φ(d/σ), with d the signed distance to the edge, so d̃ = σ·Φ⁻¹(blurred) is
///   the distance there and, where edges meet or a stroke is narrow, a smooth
///   stand-in for it with no ridge along the stroke's middle and no mitre at its
///   corners. The height is A·(1 − e^(−d̃/(λ·radius))): steep at the edge, rounding
///   over narrow strokes, rising smoothly to the plateau A on wide shapes. A and λ
///   were fitted so that a 24 px stem at radius 10, scale 10 has the original's
///   measured normals (|nx| 0.05, 0.25, 0.45, 0.63, 0.85 at 0.5…8.5 px from its
///   centre line), and the whole height is one function of the blurred coverage.
/// - **chisel**: 0 on the edge (the 0.5 contour of the coverage, found to sub-pixel
///   accuracy by `SignedDistanceField`), a quarter sine to 1 at `inputRadius`
///   pixels inside, flat beyond: a bevel with crisp mitred corners.
/// - **round**: as chisel, with a quarter-circle fillet instead of the sine.
///
/// Just outside the edge every profile goes on falling with the edge's slope
/// (heights below 0: for chisel and round for `skirtWidth` pixels, for liquid
/// without end) so that the anti-aliased edge pixels get normals as clean as those
/// inside; those pixels are drawn with their coverage as alpha, so the skirt never
/// shows as a shape of its own.
public struct HeightFieldFromMask: Sendable {
    /// Has the process's first liquid curve read from, or kept in, `disk` (see `LiquidCurve.shared`).
    public static func keepFirstCurve(in disk: ShadingDiskCache?) {
        LiquidCurve.keepFirstCurve(in: disk)
    }

    /// Bevel width in pixels (the `radius` parameter).
    public var inputRadius: Float = 10
    /// The shape of the loft across a stroke.
    public var inputProfile: LoftProfile = .liquid
    public static let skirtWidth: Float = 3

    /// The liquid loft's blur, in radii.
    static let liquidSigma: Float = 0.5
    /// The liquid loft's plateau height A.
    static let liquidPlateau: Float = 1.4
    /// The liquid loft's rise length λ, in radii.
    static let liquidRise: Float = 0.36

    public init(inputRadius: Float = 10, inputProfile: LoftProfile = .liquid) {
        self.inputRadius = inputRadius
        self.inputProfile = inputProfile
    }

    /// The loft of a whole mask: one run of `LoftRows`, the mask's rows read where they lie.
    public func outputImage(_ mask: Mask) -> HeightField {
        precondition(inputRadius > 0, "inputRadius must be positive, got \(inputRadius)")
        var heights = Image<Float>(width: mask.width, height: mask.height, repeating: 0)
        guard let ink = mask.inkBounds(threshold: 0) else { return heights }   // no ink: flat
        let loft = LoftRows(radius: inputRadius, profile: inputProfile, width: mask.width, height: mask.height,
                            ink: ink, rowsHeld: mask.height, runRows: mask.height)
        mask.withUnsafeBufferPointer { coverage in
            heights.withUnsafeMutableBufferPointer { out in
                let rows = LoftRows.MaskRows(base: coverage.baseAddress!, capacity: mask.height, width: mask.width)
                loft.arrived(0..<mask.height, rows)
                loft.heights(0..<mask.height, rows, loaded: mask.height, whole: mask, into: out, cleared: true)
            }
        }
        return heights
    }

    // MARK: The loft of a band along a mask's edge (a stroke's)

    /// The chisel or round loft of a band along `mask`'s edge (a stroke's outline), not of
    /// a shape: the pixels whose signed distance d to the mask's edge (positive inside)
    /// lies in `band` (−w…∞ for an outside stroke, whose plate runs on under the letters;
    /// 0…w inside; −w/2…w/2 centred). A pixel's depth into the band is min(d − lower,
    /// upper − d), and its height the profile of that depth, as the title's loft takes
    /// the profile of d: each edge's outline rises from its own rim.
    ///
    /// Measured by the mask's distance field rather than by the band's own coverage, the
    /// outlines of two letters closer than the band is wide keep a crease where they meet
    /// (the depth falls to the line halfway between them) instead of fusing into one
    /// plateau, and at the letters' inner corners (where a stem meets a diagonal or a
    /// serif) the outline's faces meet at a mitre instead of a cone, whose normals swept
    /// through the sphere's dark underside as a notch.
    public func outputImage(_ mask: Mask, band: ClosedRange<Float>) -> HeightField {
        precondition(inputRadius > 0, "inputRadius must be positive, got \(inputRadius)")
        precondition(inputProfile != .liquid, "the liquid loft has no band form")
        var heights = Image<Float>(width: mask.width, height: mask.height, repeating: 0)
        let reach = Self.bandReach(band, radius: inputRadius)
        let distances = SignedDistanceField(mask: mask, reachInside: reach.inside, reachOutside: reach.outside)
        guard let region = distances.region else { return heights }
        let radius = inputRadius, round = inputProfile == .round, width = mask.width
        let lower = band.lowerBound, upper = band.upperBound
        distances.values.withUnsafeBufferPointer { dist in
            heights.withUnsafeMutableBufferPointer { out in
                parallelBands(region.height, minimumBand: 8, work: region.height * region.width) { rows in
                    for r in rows {
                        let source = dist.baseAddress! + r * region.width
                        let target = out.baseAddress! + (r + region.minY) * width + region.minX
                        for i in 0..<region.width {
                            let d = source[i]
                            target[i] = Self.distanceHeight(min(d - lower, upper - d), radius: radius, round: round)
                        }
                    }
                }
            }
        }
        return heights
    }

    /// How far inside and outside the mask's edge `outputImage(_:band:)` reads its distance
    /// field: to the band's far rims and the skirt beyond them, and (a band with no inner
    /// rim) to where the profile levels off. Clamped there, the depth is beyond the skirt's
    /// end or on the plateau, where the profile no longer changes.
    static func bandReach(_ band: ClosedRange<Float>, radius: Float) -> (inside: Float, outside: Float) {
        let inner = band.upperBound.isFinite ? band.upperBound : band.lowerBound + radius
        return (max(inner, 0) + skirtWidth + 1, max(-band.lowerBound, 0) + skirtWidth + 1)
    }

    // MARK: Profiles of the distance-field lofts

    /// The round (else chisel) height for a signed distance `d` in pixels (positive inside).
    @inline(__always)
    static func distanceHeight(_ d: Float, radius: Float, round: Bool) -> Float {
        round ? roundHeight(signedDistance: d, radius: radius) : chiselHeight(signedDistance: d, radius: radius)
    }

    /// The chisel height for a signed distance `d` in pixels (positive inside).
    @inline(__always)
    static func chiselHeight(signedDistance d: Float, radius: Float) -> Float {
        let t = d / radius
        if t >= 1 { return 1 }
        if t >= 0 { return sin(t * (Float.pi / 2)) }
        return d >= -skirtWidth ? d / radius * (Float.pi / 2) : 0
    }

    /// The round (quarter-circle fillet) height for a signed distance `d` in pixels.
    @inline(__always)
    static func roundHeight(signedDistance d: Float, radius: Float) -> Float {
        // The circle's slope is infinite at the edge; below t0 it continues as its
        // tangent at t0 (slope ≈ 4.4 per radius), so edge pixels get finite normals.
        let t0: Float = 0.05
        let t = d / radius
        if t >= 1 { return 1 }
        if t >= t0 { let u = 1 - t; return (1 - u * u).squareRoot() }
        let h0 = (1 - (1 - t0) * (1 - t0)).squareRoot(), slope = (1 - t0) / h0
        return h0 + (max(d, -skirtWidth) / radius - t0) * slope
    }
}

/// The loft, written once: the heights of a run of a mask's rows, from its rows within
/// the profile's reach (`halo` either side). A whole mask is one run, its rows read
/// where they lie (`HeightFieldFromMask.outputImage`); a title too large to hold is a
/// run a band at a time, its rows in a ring (`BandLoft`).
/// - liquid: mask rows are blurred across once, as they arrive (`arrived`), into a
///   ring of rows; each height row gathers the rows within the blur's 4σ. From a
///   radius of 40 the blur is taken only on a grid every `step` pixels both ways
///   (`step` = ⌊σ/10⌋) and the rest interpolated (`liquidGridHeights`).
/// - chisel and round: the signed distance field reaches radius + 1 inside and a few
///   pixels outside; it is computed over a window of the run's rows plus `halo` rows
///   either side, beyond which no row can change a distance.
final class LoftRows {
    let width: Int, height: Int
    /// The mask's ink: every pixel outside it is 0.
    let ink: PixelBounds
    let radius: Float
    let profile: LoftProfile
    /// Rows either side of a run that its heights depend on.
    let halo: Int
    /// The liquid loft's region: the ink and the pixel around it (the material reads
    /// each ink pixel's eight neighbours); heights outside it are 0.
    private let region: PixelBounds
    private let blur: GaussianBlur?
    private let curve: LiquidCurve?
    /// Liquid: the blur's grid spacing (1: every pixel).
    let step: Int
    /// Liquid: the ink rows blurred across, ink row y at (y − ink.minY) % acrossRows,
    /// each `acrossWidth` values (the region's columns, or the grid's).
    private let across: UnsafeMutableBufferPointer<Float>
    private let acrossRows: Int, acrossWidth: Int

    /// Rows either side of a run that its heights depend on: the blur's reach
    /// (liquid; on a grid, plus the two grid rows either side that the interpolation
    /// reads), the rows that can change a distance (chisel, round).
    static func halo(radius: Float, profile: LoftProfile, step: Int? = nil) -> Int {
        guard profile == .liquid else { return SignedDistanceField.rowsReached(reach: radius + 1) }
        let step = step ?? gridStep(radius: radius)
        return GaussianBlur.reach(sigma: HeightFieldFromMask.liquidSigma * radius) + (step > 1 ? 2 * step : 0)
    }

    /// The liquid blur's grid spacing at `radius`: one pixel in ten σ, so 1 (every
    /// pixel, the plain sums) below radius 40.
    ///
    /// Blurred by σ, the coverage holds no detail finer than σ: its spectrum falls as
    /// e^(−2π²σ²f²), below 10⁻¹³ at a period of σ. Sampled every σ/10 and
    /// interpolated by Catmull-Rom splines it is within 10⁻⁵ of the full blur and
    /// its slope (which the normals take) within 0.15 % (a 1D strokes test at
    /// σ 20…70), where summing the taps at every pixel costs `step`² times as much:
    /// 2 × 401 taps a pixel at radius 100 were half of a radius drag's time in the editor.
    static func gridStep(radius: Float) -> Int {
        max(1, Int(HeightFieldFromMask.liquidSigma * radius / 10))
    }

    /// Where the caller holds the mask's rows: row y at `base + (y % capacity) * width`.
    struct MaskRows {
        let base: UnsafePointer<Float>
        let capacity: Int
        let width: Int
        @inline(__always) func row(_ y: Int) -> UnsafePointer<Float> { base + (y % capacity) * width }
    }

    /// The loft of a `width` × `height` mask whose ink is `ink`; the caller holds at
    /// most `rowsHeld` mask rows at once and asks for runs of at most `runRows` rows.
    init(radius: Float, profile: LoftProfile, width: Int, height: Int, ink: PixelBounds, rowsHeld: Int, runRows: Int,
         step: Int? = nil) {
        self.width = width
        self.height = height
        self.ink = ink
        self.radius = radius
        self.profile = profile
        region = PixelBounds(minX: max(ink.minX - 1, 0), minY: max(ink.minY - 1, 0),
                             maxX: min(ink.maxX + 1, width - 1), maxY: min(ink.maxY + 1, height - 1))
        let liquid = profile == .liquid
        let blur = liquid ? GaussianBlur(sigma: HeightFieldFromMask.liquidSigma * radius) : nil
        self.blur = blur
        curve = liquid ? LiquidCurve.shared(radius: radius) : nil
        let step = liquid ? (step ?? Self.gridStep(radius: radius)) : 1
        self.step = step
        halo = Self.halo(radius: radius, profile: profile, step: step)
        acrossRows = liquid ? min(rowsHeld, ink.height) : 0
        acrossWidth = step == 1 ? region.width : Self.gridColumns(regionWidth: region.width, step: step)
        across = .allocate(capacity: acrossRows * acrossWidth)
    }

    /// Where each ink row's blurred-across row starts in the ring (both passes' `offsets`).
    private var ringStarts: [Int] { (ink.minY...ink.maxY).map { (($0 - ink.minY) % acrossRows) * acrossWidth } }

    /// Grid columns (or rows) covering `regionWidth` pixels at `step`: grid point j lies
    /// at the region's start + (j − 1)·step, and each pixel reads the grid's two points
    /// either side of it.
    static func gridColumns(regionWidth: Int, step: Int) -> Int { (regionWidth - 1) / step + 4 }

    deinit {
        across.deallocate()
    }

    /// Mask rows `rows` have arrived in `mask`: for liquid, their horizontal pass (those in the ink).
    func arrived(_ rows: Range<Int>, _ mask: MaskRows) {
        guard let blur else { return }
        let lower = max(rows.lowerBound, ink.minY), upper = min(rows.upperBound, ink.maxY + 1)
        guard lower < upper else { return }
        if step > 1 { return gridArrived(lower..<upper, mask, blur: blur) }
        let rw = region.width, region = self.region, ink = self.ink, across = self.across, acrossRows = self.acrossRows
        blur.weights.withUnsafeBufferPointer { w in
            parallelBands(upper - lower, minimumBand: 8, work: (upper - lower) * rw * w.count / 8) { band in
                var line = [Float](repeating: 0, count: rw + 2 * blur.reach)
                line.withUnsafeMutableBufferPointer { line in
                    for r in band {
                        let y = r + lower
                        blur.blurRow(mask.row(y), into: across.baseAddress! + ((y - ink.minY) % acrossRows) * rw,
                                     region: region, ink: ink, line: line, weights: w)
                    }
                }
            }
        }
    }

    /// The heights of rows `rows` into `heights` (`rows.count` rows of `width`), from
    /// the mask rows up to `loaded` (all within `halo` of `rows` that the mask has).
    /// `whole`: the whole mask, when the caller holds it; `cleared`: `heights` is 0.
    func heights(_ rows: Range<Int>, _ mask: MaskRows, loaded: Int, whole: Mask? = nil,
                 into heights: UnsafeMutableBufferPointer<Float>, cleared: Bool = false) {
        if !cleared { heights.baseAddress!.update(repeating: 0, count: rows.count * width) }
        if let blur, let curve {
            if step > 1 {
                liquidGridHeights(rows, blur: blur, curve: curve, heights: heights)
            } else {
                liquidHeights(rows, blur: blur, curve: curve, heights: heights)
            }
        } else {
            distanceHeights(rows, mask, loaded: loaded, whole: whole, heights: heights)
        }
    }

    /// Columns in a tile of the vertical pass.
    static let verticalTile = 256
    /// Rows a tile of the vertical pass runs through in one piece of work.
    static let verticalRun = 32

    /// The vertical pass and the liquid curve for height rows `rows`.
    ///
    /// The pass runs over tiles of `verticalTile` columns, each tile down a run of
    /// rows: the rows within reach (2·reach + 1 of them, 801 at radius 200) are then
    /// read from cache, not from memory once for every output row. Each pixel's sum is
    /// taken in the same order whatever the runs: down the mask from the first row in reach.
    private func liquidHeights(_ rows: Range<Int>, blur: GaussianBlur, curve: LiquidCurve,
                               heights: UnsafeMutableBufferPointer<Float>) {
        let first = max(rows.lowerBound, region.minY), last = min(rows.upperBound, region.maxY + 1)
        guard first < last else { return }
        let rw = region.width, reach = blur.reach, width = self.width, ink = self.ink, region = self.region
        let across = self.across
        let tiles = (rw + Self.verticalTile - 1) / Self.verticalTile
        let runs = (last - first + Self.verticalRun - 1) / Self.verticalRun
        let starts = ringStarts
        blur.weights.withUnsafeBufferPointer { w in
            starts.withUnsafeBufferPointer { starts in
                parallelBands(tiles * runs, minimumBand: 1, work: (last - first) * rw * w.count / 8) { work in
                    for item in work {
                        let x0 = (item / runs) * Self.verticalTile, n = min(Self.verticalTile, rw - x0)
                        let r0 = first + (item % runs) * Self.verticalRun
                        for y in r0..<min(r0 + Self.verticalRun, last) {
                            // Blurred both ways into the height row, and made heights there while in cache.
                            let target = heights.baseAddress! + (y - rows.lowerBound) * width + region.minX + x0
                            let lo = max(y - reach, ink.minY), hi = min(y + reach, ink.maxY)
                            if lo <= hi {
                                // Rows lo…hi, in that order (tap k is row lo + k).
                                let source = across.baseAddress! + x0, row = starts.baseAddress! + (lo - ink.minY)
                                GaussianBlur.weightedSum(n, taps: hi - lo + 1, weights: w.baseAddress! + (lo - y + reach),
                                                         into: target, base: source, offsets: row)
                            } else {
                                target.update(repeating: 0, count: n)
                            }
                            curve.makeHeights(target, count: n)
                        }
                    }
                }
            }
        }
    }

    // MARK: The liquid blur on a grid

    /// The horizontal pass of ink rows `rows` on the grid's columns: grid column j is
    /// Σₖ wₖ·mask[x₀ + j·step + k] (x₀ = region.minX − step). Split by k mod step into
    /// `step` phases, each is a plain run of multiply-adds over every step-th pixel of
    /// the row, so the one vector loop (`GaussianBlur.weightedSum`) does the work.
    private func gridArrived(_ rows: Range<Int>, _ mask: MaskRows, blur: GaussianBlur) {
        let s = step, reach = blur.reach, nj = acrossWidth, ink = self.ink, width = self.width
        let across = self.across, acrossRows = self.acrossRows
        let x0 = region.minX - s - reach       // the mask column of phase 0's first value
        let taps = blur.weights.count
        // Phase p's weights: w[p], w[p + s], w[p + 2s]…
        let phaseWeights = (0..<s).map { p in stride(from: p, to: taps, by: s).map { blur.weights[$0] } }
        let phaseLength = nj + (taps - 1) / s + 1
        parallelBands(rows.count, minimumBand: 8, work: rows.count * nj * taps / 8) { band in
            var phases = [Float](repeating: 0, count: s * phaseLength)
            var sum = [Float](repeating: 0, count: nj)
            phases.withUnsafeMutableBufferPointer { phases in
                sum.withUnsafeMutableBufferPointer { sum in
                    for r in band {
                        let y = rows.lowerBound + r
                        let source = mask.row(y), out = across.baseAddress! + ((y - ink.minY) % acrossRows) * nj
                        for p in 0..<s {
                            // Phase p's values: mask[x0 + p + q·s] for q in 0..<phaseLength, 0 beyond the ink.
                            let line = phases.baseAddress! + p * phaseLength
                            line.update(repeating: 0, count: phaseLength)
                            let first = x0 + p
                            let qFrom = max(0, (ink.minX - first + s - 1) / s)
                            let span = min(ink.maxX, width - 1) - first
                            let qTo = span < 0 ? -1 : min(phaseLength - 1, span / s)
                            if qFrom <= qTo {
                                for q in qFrom...qTo { line[q] = source[first + q * s] }
                            }
                            phaseWeights[p].withUnsafeBufferPointer { w in
                                GaussianBlur.weightedSum(nj, taps: w.count, weights: w.baseAddress!,
                                                         into: p == 0 ? out : sum.baseAddress!, base: line, step: 1)
                            }
                            if p > 0 { for j in 0..<nj { out[j] += sum[j] } }
                        }
                    }
                }
            }
        }
    }

    /// Catmull-Rom's four weights at each of the `step` positions between two grid points.
    private static func splineWeights(step: Int) -> [Float] {
        (0..<step).flatMap { i -> [Float] in
            let t = Float(i) / Float(step), t2 = t * t, t3 = t2 * t
            return [0.5 * (-t3 + 2 * t2 - t), 0.5 * (3 * t3 - 5 * t2 + 2), 0.5 * (-3 * t3 + 4 * t2 + t), 0.5 * (t3 - t2)]
        }
    }

    /// The liquid heights of rows `rows` from the blur on the grid: the vertical pass at
    /// the grid rows they read (grid row i at y₀ + i·step, y₀ = region.minY − step), then
    /// at each pixel the Catmull-Rom spline through the 4 × 4 grid points around it,
    /// down then across, and the liquid curve.
    private func liquidGridHeights(_ rows: Range<Int>, blur: GaussianBlur, curve: LiquidCurve,
                                   heights: UnsafeMutableBufferPointer<Float>) {
        let first = max(rows.lowerBound, region.minY), last = min(rows.upperBound, region.maxY + 1)
        guard first < last else { return }
        let s = step, reach = blur.reach, nj = acrossWidth, rw = region.width, width = self.width
        let ink = self.ink, region = self.region, across = self.across
        let y0 = region.minY - s
        let iFrom = (first - y0) / s - 1, iTo = (last - 1 - y0) / s + 2
        var grid = [Float](repeating: 0, count: (iTo - iFrom + 1) * nj)
        let starts = ringStarts
        let spline = Self.splineWeights(step: s)
        grid.withUnsafeMutableBufferPointer { grid in
            blur.weights.withUnsafeBufferPointer { w in
                starts.withUnsafeBufferPointer { starts in
                    parallelBands(iTo - iFrom + 1, minimumBand: 1, work: (iTo - iFrom + 1) * nj * w.count / 8) { band in
                        for k in band {
                            let y = y0 + (iFrom + k) * s
                            let lo = max(y - reach, ink.minY), hi = min(y + reach, ink.maxY)
                            guard lo <= hi else { continue }   // no ink within reach: 0
                            GaussianBlur.weightedSum(nj, taps: hi - lo + 1, weights: w.baseAddress! + (lo - y + reach),
                                                     into: grid.baseAddress! + k * nj, base: across.baseAddress!,
                                                     offsets: starts.baseAddress! + (lo - ink.minY))
                        }
                    }
                }
            }
            let grid = UnsafeBufferPointer(grid)
            spline.withUnsafeBufferPointer { c in
                parallelBands(last - first, minimumBand: 8, work: (last - first) * rw) { band in
                    var column = [Float](repeating: 0, count: nj)
                    column.withUnsafeMutableBufferPointer { column in
                        for r in band {
                            let y = first + r, v = y - y0
                            let g = grid.baseAddress! + (v / s - 1 - iFrom) * nj, cy = c.baseAddress! + 4 * (v % s)
                            for j in 0..<nj {
                                column[j] = cy[0] * g[j] + cy[1] * g[nj + j] + cy[2] * g[2 * nj + j] + cy[3] * g[3 * nj + j]
                            }
                            let target = heights.baseAddress! + (y - rows.lowerBound) * width + region.minX
                            var o = 0, j = 0
                            while o < rw {
                                let a = column[j], b = column[j + 1], cc = column[j + 2], d = column[j + 3]
                                for t in 0..<min(s, rw - o) {
                                    let cx = c.baseAddress! + 4 * t
                                    target[o + t] = min(max(cx[0] * a + cx[1] * b + cx[2] * cc + cx[3] * d, 0), 1)
                                }
                                o += s
                                j += 1
                            }
                            curve.makeHeights(target, count: rw)
                        }
                    }
                }
            }
        }
    }

    /// The chisel or round heights of rows `rows`, from the distance field of a window around them.
    private func distanceHeights(_ rows: Range<Int>, _ mask: MaskRows, loaded: Int, whole: Mask?,
                                 heights: UnsafeMutableBufferPointer<Float>) {
        let width = self.width
        let wLo = whole == nil ? max(rows.lowerBound - halo, 0) : 0
        let window: Mask
        if let whole {
            window = whole
        } else {
            let wHi = min(rows.upperBound + halo, loaded)
            var copy = Mask(width: width, height: wHi - wLo, repeating: 0)
            copy.withUnsafeMutableBufferPointer { w in
                for y in wLo..<wHi {
                    (w.baseAddress! + (y - wLo) * width).update(from: mask.row(y), count: width)
                }
            }
            window = copy
        }
        let distances = SignedDistanceField(mask: window, reachInside: radius + 1,
                                            reachOutside: HeightFieldFromMask.skirtWidth + 1)
        guard let region = distances.region else { return }
        let first = max(rows.lowerBound, region.minY + wLo), last = min(rows.upperBound, region.maxY + wLo + 1)
        guard first < last else { return }
        let radius = self.radius, round = profile == .round
        distances.values.withUnsafeBufferPointer { dist in
            parallelBands(last - first, minimumBand: 8, work: (last - first) * region.width) { band in
                for r in band {
                    let y = r + first
                    let source = (y - wLo - region.minY) * region.width
                    let target = (y - rows.lowerBound) * width + region.minX
                    for i in 0..<region.width {
                        heights[target + i] = HeightFieldFromMask.distanceHeight(dist[source + i], radius: radius, round: round)
                    }
                }
            }
        }
    }
}

/// The liquid loft's height as a function of the blurred coverage B, tabulated:
/// h(B) = A·(1 − e^(−d/(λr))) with d = σ·Φ⁻¹(B) (bent to meet A where the blur's
/// kernel ends), and below the edge its tangent.
///
/// Φ⁻¹ rises without bound as B nears 1, where a table even in B would bend the
/// curve into a ring-shaped kink around every plateau; above B = 1 − 2⁻⁷ a second
/// table is indexed by log₂(1 − B) instead, in which the curve is smooth.
struct LiquidCurve: Sendable {
    static let entries = 16_384
    static let tailEntries = 2_048
    /// The tail table spans 1 − B from 2⁻⁷ down to 2⁻²⁴ (below that, B is 1 in a Float).
    static let tailStart: Float = 7, tailEnd: Float = 24
    static let tailFrom = 1 - exp2(-tailStart)
    let table: [Float]
    let tail: [Float]
    let plateau: Float

    /// The curve whose tables (`entries` then `tailEntries` floats, then the plateau) are `floats`.
    init(floats: [Float]) {
        table = Array(floats[..<Self.entries])
        tail = Array(floats[Self.entries..<(Self.entries + Self.tailEntries)])
        plateau = floats[Self.entries + Self.tailEntries]
    }

    /// Its tables and plateau as one list, as `ShadingDiskCache` keeps them.
    var floats: [Float] { table + tail + [plateau] }

    /// How many floats `floats` holds.
    static let floatCount = entries + tailEntries + 1

    init(radius: Float) {
        let sigma = Double(HeightFieldFromMask.liquidSigma * radius)
        let plateau = Double(HeightFieldFromMask.liquidPlateau)
        let rise = Double(HeightFieldFromMask.liquidRise * radius)
        // The blur's kernel ends at 4σ, so B is exactly 1 from 4σ inside; the
        // exponential is bent to meet the plateau there with zero slope:
        // g(d) = 1 − e^(−d/ρ) − (d/ρ)·e^(−D/ρ), normalised by g(D).
        let reach = Double(GaussianBlur.reachInSigmas) * sigma
        let bend = exp(-reach / rise), top = 1 - bend * (1 + reach / rise)
        func height(_ b: Double) -> Float {
            let d = sigma * inverseNormalCDF(b)
            if d >= reach { return Float(plateau) }
            if d >= 0 { return Float(plateau * (1 - exp(-d / rise) - d / rise * bend) / top) }
            // Below the edge, the tangent, unclamped: where the radius is much wider than a
            // stroke, parts of the stroke itself blur below ½ and must keep their slope.
            return Float(plateau * (1 - bend) / top * d / rise)
        }
        // On every core once Dispatch's workers are up (an animation, a server); a one-shot
        // render makes it on one, as starting them would cost more (see parallelBands).
        table = [Float](unsafeUninitializedCapacity: Self.entries) { entries, count in
            parallelBands(Self.entries, minimumBand: 2048, work: Self.entries * 16) { band in
                for i in band { entries[i] = height(Double(i) / Double(Self.entries - 1)) }
            }
            count = Self.entries
        }
        tail = (0..<Self.tailEntries).map { i in
            let l = Double(Self.tailStart) + Double(Self.tailEnd - Self.tailStart) * Double(i) / Double(Self.tailEntries - 1)
            return height(1 - exp2(-l))
        }
        self.plateau = Float(plateau)
    }

    /// The curve for `radius`, made once for the few radii last asked for: a title's bands,
    /// an animation's frames and a batch's, a watch's or a server's titles at one radius share
    /// it. Making one is 18,432 inverse normal CDFs and exponentials, 1.9 M instructions; the
    /// process's first is read from the disk cache where an earlier process kept it (as the
    /// first shading sphere is: see `keepFirstCurve`), a 74 KB file.
    static func shared(radius: Float) -> LiquidCurve {
        if let kept = recent.withLock({ $0.first { $0.radius == radius }?.curve }) { return kept }
        let disk = firstCurveDisk.withLock { disk in defer { disk = nil }; return disk }
        let key = disk.map { _ in ShadingDiskCache.curveKey(radius: radius) }
        let curve: LiquidCurve
        if let disk, let key, let floats = disk.curve(key, count: floatCount) {
            curve = LiquidCurve(floats: floats)
        } else {
            curve = LiquidCurve(radius: radius)
            if let disk, let key { disk.keepCurve(curve.floats, key) }
        }
        recent.withLock { kept in
            kept.removeAll { $0.radius == radius }
            kept.insert((radius, curve), at: 0)
            if kept.count > keptCurves { kept.removeLast() }
        }
        return curve
    }

    static let keptCurves = 4
    private static let recent = Mutex<[(radius: Float, curve: LiquidCurve)]>([])

    /// Has the process's first curve read from, or kept in, `disk` (`mercurial`'s one-shot
    /// commands; a long-lived process makes its few curves itself).
    static func keepFirstCurve(in disk: ShadingDiskCache?) {
        firstCurveDisk.withLock { $0 = disk }
    }

    private static let firstCurveDisk = Mutex<ShadingDiskCache?>(nil)

    /// Each of `count` blurred coverages at `values` replaced by its height.
    @inline(__always)
    func makeHeights(_ values: UnsafeMutablePointer<Float>, count: Int) {
        table.withUnsafeBufferPointer { table in
            tail.withUnsafeBufferPointer { tail in
                for i in 0..<count { values[i] = height(table, tail, blurred: values[i]) }
            }
        }
    }

    @inline(__always)
    func height(_ table: UnsafeBufferPointer<Float>, _ tail: UnsafeBufferPointer<Float>, blurred b: Float) -> Float {
        if b > Self.tailFrom {
            let l = -log2(1 - b)
            guard l < Self.tailEnd else { return plateau }
            let position = (l - Self.tailStart) * (Float(Self.tailEntries - 1) / (Self.tailEnd - Self.tailStart))
            let i = min(Int(position), Self.tailEntries - 2)
            let t = position - Float(i)
            return tail[i] + (tail[i + 1] - tail[i]) * t
        }
        let position = max(b, 0) * Float(Self.entries - 1)
        let i = Int(position)
        let t = position - Float(i)
        return table[i] + (table[i + 1] - table[i]) * t
    }
}

/// Φ⁻¹(p), the standard normal quantile: Acklam's rational approximation (relative
/// error below 1.2·10⁻⁹), clamped to ±8.5 at p = 0 and 1.
func inverseNormalCDF(_ p: Double) -> Double {
    if p <= 0 { return -8.5 }
    if p >= 1 { return 8.5 }
    let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
    let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
             6.680131188771972e+01, -1.328068155288572e+01]
    let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
    let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
    let low = 0.02425
    if p < low {
        let q = (-2 * log(p)).squareRoot()
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    }
    if p > 1 - low {
        let q = (-2 * log(1 - p)).squareRoot()
        return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    }
    let q = p - 0.5, r = q * q
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
        / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
}

#if canImport(Glibc)
import Glibc
#endif
