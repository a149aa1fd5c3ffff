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

    public func outputImage(_ mask: Mask) -> HeightField {
        precondition(inputRadius > 0, "inputRadius must be positive, got \(inputRadius)")
        switch inputProfile {
        case .liquid: return liquidLoft(mask)
        case .chisel, .round: return distanceLoft(mask)
        }
    }

    // MARK: Profiles of the distance-field lofts

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

    private func distanceLoft(_ mask: Mask) -> HeightField {
        let distances = SignedDistanceField(mask: mask, reachInside: inputRadius + 1, reachOutside: Self.skirtWidth + 1)
        let radius = inputRadius, round = inputProfile == .round
        var heights = Image<Float>(width: mask.width, height: mask.height, repeating: 0)
        guard let region = distances.region else { return heights }   // no ink: flat
        let width = mask.width
        heights.withUnsafeMutableBufferPointer { out in
            distances.values.withUnsafeBufferPointer { dist in
                parallelBands(region.height) { rows in
                    for row in rows {
                        let source = row * region.width, target = (row + region.minY) * width + region.minX
                        for i in 0..<region.width {
                            let d = dist[source + i]
                            out[target + i] = round ? Self.roundHeight(signedDistance: d, radius: radius)
                                : Self.chiselHeight(signedDistance: d, radius: radius)
                        }
                    }
                }
            }
        }
        return heights
    }

    // MARK: The liquid loft

    private func liquidLoft(_ mask: Mask) -> HeightField {
        var heights = Image<Float>(width: mask.width, height: mask.height, repeating: 0)
        guard let ink = mask.inkBounds(threshold: 0) else { return heights }   // no ink: flat
        // The material reads each ink pixel's eight neighbours.
        let region = PixelBounds(minX: max(ink.minX - 1, 0), minY: max(ink.minY - 1, 0),
                                 maxX: min(ink.maxX + 1, mask.width - 1), maxY: min(ink.maxY + 1, mask.height - 1))
        let blur = GaussianBlur(sigma: Self.liquidSigma * inputRadius)
        let blurred = blur.blurred(mask, region: region, ink: ink)
        let curve = LiquidCurve(radius: inputRadius)
        let width = mask.width
        heights.withUnsafeMutableBufferPointer { out in
            blurred.withUnsafeBufferPointer { b in
                curve.table.withUnsafeBufferPointer { table in
                    curve.tail.withUnsafeBufferPointer { tail in
                        parallelBands(region.height) { rows in
                            for row in rows {
                                let source = row * region.width, target = (row + region.minY) * width + region.minX
                                for i in 0..<region.width {
                                    out[target + i] = curve.height(table, tail, blurred: b[source + i])
                                }
                            }
                        }
                    }
                }
            }
        }
        return heights
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
        table = (0..<Self.entries).map { height(Double($0) / Double(Self.entries - 1)) }
        tail = (0..<Self.tailEntries).map { i in
            let l = Double(Self.tailStart) + Double(Self.tailEnd - Self.tailStart) * Double(i) / Double(Self.tailEntries - 1)
            return height(1 - exp2(-l))
        }
        self.plateau = Float(plateau)
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
