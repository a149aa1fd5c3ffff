import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// An anti-aliased disc: each pixel's coverage from 16×16 samples (exact away from the rim).
func discMask(size: Int, centre: Double, radius: Double) -> Mask {
    var mask = Mask(width: size, height: size, repeating: 0)
    for y in 0..<size {
        for x in 0..<size {
            let dx = Double(x) + 0.5 - centre, dy = Double(y) + 0.5 - centre
            let r = (dx * dx + dy * dy).squareRoot()
            if r < radius - 1 { mask[x, y] = 1; continue }
            if r > radius + 1 { continue }
            var hits = 0
            for sy in 0..<16 {
                for sx in 0..<16 {
                    let px = Double(x) + (Double(sx) + 0.5) / 16 - centre
                    let py = Double(y) + (Double(sy) + 0.5) / 16 - centre
                    if px * px + py * py <= radius * radius { hits += 1 }
                }
            }
            mask[x, y] = Float(hits) / 256
        }
    }
    return mask
}

struct AzimuthErrors {
    var degrees: [Double]
    var mean: Double { degrees.reduce(0, +) / Double(degrees.count) }
    var p99: Double { degrees.sorted()[Int(Double(degrees.count - 1) * 0.99)] }
}

/// Azimuth error of every normal tilted more than `tilt` degrees against the radial direction.
func discAzimuthErrors(radius: Float, scale: Float, profile: LoftProfile = .liquid, tilt: Double = 30) -> AzimuthErrors {
    let mask = discMask(size: 512, centre: 256, radius: 200)
    let heights = HeightFieldFromMask(inputRadius: radius, inputProfile: profile).outputImage(mask)
    let material = ShadedMaterial(inputScale: scale)
    var errors: [Double] = []
    for y in 0..<512 {
        for x in 0..<512 where mask[x, y] > 0 {
            let n = material.surfaceNormal(of: heights, x: x, y: y)
            guard n.z < Float(cos(tilt * Double.pi / 180)) else { continue }
            // Radial direction in the normal's frame: x right, y up.
            let rx = Double(x) + 0.5 - 256, ry = -(Double(y) + 0.5 - 256)
            var delta = atan2(Double(n.y), Double(n.x)) - atan2(ry, rx)
            delta = abs(remainder(delta, 2 * Double.pi))
            errors.append(delta * 180 / Double.pi)
        }
    }
    return AzimuthErrors(degrees: errors)
}

@Suite struct HeightFieldTests {
    @Test(arguments: LoftProfile.allCases)
    func discNormalsPointRadiallyOutward(_ profile: LoftProfile) {
        let errors = discAzimuthErrors(radius: 10, scale: 10, profile: profile)
        // A band about 7 px wide around a circle of radius 200 px.
        #expect(errors.degrees.count > 5_000)
        #expect(errors.mean <= 1, "mean azimuth error \(errors.mean)°")
        #expect(errors.p99 <= 5, "99th percentile azimuth error \(errors.p99)°")
        print("\(profile) disc azimuth error: mean \(errors.mean)°, p99 \(errors.p99)°, over \(errors.degrees.count) normals")
    }

    @Test func discNormalsPointRadiallyOutwardWithTheBlurOnAGrid() throws {
        #expect(LoftRows.gridStep(radius: 80) == 4)
        // At radius 80 the disc's rim rises gently: every normal tilted more than 5°.
        let errors = discAzimuthErrors(radius: 80, scale: 10, tilt: 5)
        try #require(errors.degrees.count > 5_000)
        #expect(errors.mean <= 1, "mean azimuth error \(errors.mean)°")
        #expect(errors.p99 <= 5, "99th percentile azimuth error \(errors.p99)°")
        print("liquid at radius 80 (grid step 4) disc azimuth error: mean \(errors.mean)°, p99 \(errors.p99)°, over \(errors.degrees.count) normals")
    }
}

@Suite struct HeightFieldProfileTests {
    @Test func chiselHeightIsZeroAtTheEdgeAndFlatBeyondTheRadius() {
        let mask = discMask(size: 128, centre: 64, radius: 40)
        let heights = HeightFieldFromMask(inputRadius: 10, inputProfile: .chisel).outputImage(mask)
        // Along the row through the centre, the edge is at x = 24 (between pixels 23 and 24).
        #expect(abs(heights[24, 64]) < 0.1)
        #expect(abs(heights[64, 64] - 1) < 1e-6)
        #expect(abs(heights[40, 64] - 1) < 1e-6, "16 px inside: on the plateau")
        #expect(heights[29, 64] > heights[27, 64] && heights[31, 64] > heights[29, 64])
        #expect(heights[2, 2] == 0, "far outside")
        #expect(heights[22, 64] < 0 && heights[22, 64] > -0.4, "the skirt just outside the edge")
    }

    @Test func hardEdgedMaskGetsAnEdgeBetweenPixels() {
        var mask = Mask(width: 40, height: 40, repeating: 0)
        for y in 10..<30 { for x in 10..<30 { mask[x, y] = 1 } }
        let field = SignedDistanceField(mask: mask, reachInside: 12, reachOutside: 12)
        #expect(abs(field.distance(x: 10, y: 20, reachOutside: 12) - 0.5) < 1e-4)
        #expect(abs(field.distance(x: 9, y: 20, reachOutside: 12) + 0.5) < 1e-4)
        #expect(abs(field.distance(x: 15, y: 20, reachOutside: 12) - 5.5) < 1e-4)
    }

    @Test func maskTouchingTheImageBorderEndsThere() {
        let mask = Mask(width: 30, height: 30, repeating: 1)
        let field = SignedDistanceField(mask: mask, reachInside: 12, reachOutside: 12)
        #expect(abs(field.distance(x: 0, y: 15, reachOutside: 12) - 0.5) < 1e-4)
        #expect(abs(field.distance(x: 15, y: 15, reachOutside: 12) - 12) < 1e-4)
    }

    @Test func emptyMaskIsFlatZero() {
        let heights = HeightFieldFromMask().outputImage(Mask(width: 20, height: 10, repeating: 0))
        #expect(heights.pixels.allSatisfy { $0 == 0 })
    }
}

/// A mask of filled rectangles (x0, y0, x1, y1), half-open, hard-edged.
func boxesMask(width: Int, height: Int, _ boxes: [(Int, Int, Int, Int)]) -> Mask {
    var mask = Mask(width: width, height: height, repeating: 0)
    for (x0, y0, x1, y1) in boxes {
        for y in y0..<y1 { for x in x0..<x1 { mask[x, y] = 1 } }
    }
    return mask
}

/// The liquid loft against the original app's, through the real filters (radius 10, scale 10).
@Suite struct LiquidLoftTests {
    /// The curve a loft takes is made once per radius: the kept one is the same storage
    /// and the same bits as a fresh one, and radii beyond those kept are made again right.
    @Test func aRadiussCurveIsMadeOnceAndIsTheSame() {
        func base(_ curve: LiquidCurve) -> UnsafeRawPointer? { curve.table.withUnsafeBytes { $0.baseAddress } }
        let first = LiquidCurve.shared(radius: 17.5)
        #expect(base(LiquidCurve.shared(radius: 17.5)) == base(first), "asked again, the kept curve")
        for radius: Float in [3, 10, 17.5, 40, 96.25, 150, 3] {
            let kept = LiquidCurve.shared(radius: radius), fresh = LiquidCurve(radius: radius)
            #expect(kept.table == fresh.table && kept.tail == fresh.tail && kept.plateau == fresh.plateau, "radius \(radius)")
        }
    }

    static let material = ShadedMaterial(inputScale: 10)

    /// |nx| across a vertical 24 px stem at `offsets` px from its centre line, both sides averaged.
    static func stemNormals(radius: Float = 10, width stem: Int = 24, offsets: [Double]) -> [Double] {
        let mask = boxesMask(width: 128, height: 128, [(64 - stem / 2, 0, 64 + stem / 2, 128)])
        let heights = HeightFieldFromMask(inputRadius: radius).outputImage(mask)
        return offsets.map { o in
            let right = Int(64 + o - 0.5), left = Int(64 - o - 0.5)
            let a = material.surfaceNormal(of: heights, x: right, y: 64).x
            let b = material.surfaceNormal(of: heights, x: left, y: 64).x
            return (Double(abs(a)) + Double(abs(b))) / 2
        }
    }

    @Test func stemIsTheOriginalsRoundedTube() {
        let offsets = [0.5, 2.5, 4.5, 6.5, 8.5]
        let original = [0.05, 0.25, 0.45, 0.63, 0.85]   // measured on the original app's screenshot
        let ours = Self.stemNormals(offsets: offsets)
        for (o, (want, got)) in zip(offsets, zip(original, ours)) {
            #expect(abs(got - want) <= 0.10, "|nx| \(got) at \(o) px from the centre line; the original's is \(want)")
        }
        print("liquid stem |nx| at 0.5…8.5 px: \(ours.map { String(format: "%.3f", $0) })")
    }

    /// The largest angle between the normals of neighbouring pixels that are both at
    /// least 3 px inside the (hard) edge.
    static func largestTurn(_ mask: Mask) -> Double {
        let heights = HeightFieldFromMask(inputRadius: 10).outputImage(mask)
        func deep(_ x: Int, _ y: Int) -> Bool {
            for dy in -3...3 { for dx in -3...3 where dx * dx + dy * dy < 9 {
                let u = x + dx, v = y + dy
                if u < 0 || v < 0 || u >= mask.width || v >= mask.height || mask[u, v] < 1 { return false }
            } }
            return true
        }
        var worst = 0.0
        for y in 0..<mask.height - 1 {
            for x in 0..<mask.width - 1 where deep(x, y) {
                let n = material.surfaceNormal(of: heights, x: x, y: y)
                for (u, v) in [(x + 1, y), (x, y + 1)] where deep(u, v) {
                    let m = material.surfaceNormal(of: heights, x: u, y: v)
                    worst = max(worst, Double(acos(min(1, (n * m).sum()))) * 180 / .pi)
                }
            }
        }
        return worst
    }

    @Test func squareAndLHaveNoCreases() {
        let square = Self.largestTurn(boxesMask(width: 200, height: 200, [(40, 40, 160, 160)]))
        let ell = Self.largestTurn(boxesMask(width: 200, height: 200, [(40, 40, 64, 160), (40, 136, 160, 160)]))
        #expect(square <= 12, "square: the normal turns by \(square)° between neighbours")
        #expect(ell <= 12, "L: the normal turns by \(ell)° between neighbours")
        // The chisel profile is the mitred bevel this replaces: its diagonal crease is far steeper.
        let heights = HeightFieldFromMask(inputRadius: 10, inputProfile: .chisel)
            .outputImage(boxesMask(width: 200, height: 200, [(40, 40, 160, 160)]))
        let a = Self.material.surfaceNormal(of: heights, x: 46, y: 47), b = Self.material.surfaceNormal(of: heights, x: 47, y: 47)
        #expect(Double(acos(min(1, (a * b).sum()))) * 180 / .pi > 12, "chisel keeps its mitre")
        print("liquid largest normal turn: square \(square)°, L \(ell)°")
    }

    @Test func wideShapesAreFlatOnTopReachedSmoothly() {
        let mask = boxesMask(width: 240, height: 240, [(20, 20, 220, 220)])
        let heights = HeightFieldFromMask(inputRadius: 10).outputImage(mask)
        // The middle is a plateau: normals straight up, every height the same.
        for (x, y) in [(120, 120), (60, 120), (120, 60), (180, 180)] {
            #expect(Self.material.surfaceNormal(of: heights, x: x, y: y).z > 0.9999)
            #expect(abs(heights[x, y] - HeightFieldFromMask.liquidPlateau) < 1e-4)
        }
        // Along a row from the edge inwards: rising, never overshooting, slope shrinking to 0.
        let row = (20..<120).map { heights[$0, 120] }
        for i in 1..<row.count {
            #expect(row[i] >= row[i - 1] - 1e-6, "falls at x = \(20 + i)")
            #expect(row[i] <= HeightFieldFromMask.liquidPlateau + 1e-5)
        }
        for i in 2..<row.count { #expect(row[i] - row[i - 1] <= row[i - 1] - row[i - 2] + 1e-4, "slope grows at x = \(20 + i)") }
    }

    @Test(arguments: [8, 12, 16])
    func narrowStrokesAreTubesWithNoFlatBand(_ width: Int) {
        // A stroke narrower than the radius's reach: the normal tilts from the very
        // centre outwards, steadily, with no flat band.
        let offsets = stride(from: 0.5, to: Double(width) / 2, by: 1).map { $0 }
        let normals = Self.stemNormals(width: width, offsets: offsets)
        #expect(normals[0] > 0.02 && normals[0] < 0.4, "\(normals)")
        for i in 1..<normals.count { #expect(normals[i] > normals[i - 1] + 0.02, "\(normals)") }
    }

    @Test func nothingJumpsAsTheRadiusCrossesTheStrokeWidth() {
        // A 24 px stem while the radius sweeps from 6 to 30 px in steps of 0.5.
        let offsets = [0.5, 2.5, 4.5, 6.5, 8.5, 10.5]
        var previous = Self.stemNormals(radius: 6, offsets: offsets)
        var worst = 0.0
        for step in 1...48 {
            let current = Self.stemNormals(radius: 6 + Float(step) * 0.5, offsets: offsets)
            worst = max(worst, zip(previous, current).map { abs($0 - $1) }.max()!)
            previous = current
        }
        #expect(worst < 0.06, "a 0.5 px change of radius moves |nx| by up to \(worst)")
    }

    @Test func chiselProfileIsUnchanged() {
        // Today's loft, kept exactly: the quarter sine of the exact signed distance.
        let mask = boxesMask(width: 80, height: 80, [(20, 20, 60, 60)])
        let heights = HeightFieldFromMask(inputRadius: 10, inputProfile: .chisel).outputImage(mask)
        for x in 20..<40 {
            let d = Float(x - 20) + 0.5
            #expect(abs(heights[x, 40] - (d >= 10 ? 1 : sin(d / 10 * .pi / 2))) < 1e-3, "x = \(x)")
        }
    }

    @Test func roundProfileIsAQuarterCircle() {
        let mask = boxesMask(width: 80, height: 80, [(20, 20, 60, 60)])
        let heights = HeightFieldFromMask(inputRadius: 10, inputProfile: .round).outputImage(mask)
        for x in 21..<40 {
            let t = min((Float(x - 20) + 0.5) / 10, 1)
            #expect(abs(heights[x, 40] - (1 - (1 - t) * (1 - t)).squareRoot()) < 1e-3, "x = \(x)")
        }
    }
}

/// The one loft (`LoftRows`): a whole mask is one run of it, a streamed title (`BandLoft`)
/// many, its mask rows in a ring; either way each row gets the same heights.
@Suite struct LoftRowsTests {
    /// A mask's rows, one after another, as a streamed title reads them.
    final class Rows: CoverageRowSource {
        let mask: Mask
        var next = 0
        init(_ mask: Mask) { self.mask = mask }
        func read(into out: UnsafeMutablePointer<Float>) throws(MercurialError) {
            mask.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + next * mask.width, count: mask.width) }
            next += 1
        }
    }

    /// Discs, a bar touching the left edge and a lone dot, with blank rows above and below
    /// the ink (so the ring wraps and the ink starts below the first row).
    static let mask: Mask = {
        var mask = boxesMask(width: 90, height: 150, [(0, 100, 60, 104), (85, 20, 86, 21)])
        let disc = discMask(size: 90, centre: 45, radius: 28)
        for y in 0..<90 { for x in 0..<90 { mask[x, y + 30] = max(mask[x, y + 30], disc[x, y]) } }
        return mask
    }()

    /// Whether the shading reads the height at (x, y): an ink pixel's normal takes its
    /// eight neighbours'. (Further out, round's skirt floor reaches as far as the
    /// distance field's box, which a band's window may draw narrower.)
    static func read(_ x: Int, _ y: Int) -> Bool {
        for v in max(y - 1, 0)...min(y + 1, mask.height - 1) {
            for u in max(x - 1, 0)...min(x + 1, mask.width - 1) where mask[u, v] > 0 { return true }
        }
        return false
    }

    /// The liquid loft of `mask` with its blur on a grid of `step` (1: every pixel).
    static func liquidHeights(_ mask: Mask, radius: Float, step: Int) throws -> HeightField {
        var heights = HeightField(width: mask.width, height: mask.height, repeating: 0)
        let ink = try #require(mask.inkBounds(threshold: 0))
        let loft = LoftRows(radius: radius, profile: .liquid, width: mask.width, height: mask.height, ink: ink,
                            rowsHeld: mask.height, runRows: mask.height, step: step)
        mask.withUnsafeBufferPointer { coverage in
            heights.withUnsafeMutableBufferPointer { out in
                let rows = LoftRows.MaskRows(base: coverage.baseAddress!, capacity: mask.height, width: mask.width)
                loft.arrived(0..<mask.height, rows)
                loft.heights(0..<mask.height, rows, loaded: mask.height, into: out, cleared: true)
            }
        }
        return heights
    }

    /// Strokes 3 to 90 px wide, a disc and a dot, far from the edges and touching one.
    static let strokes: Mask = {
        var mask = boxesMask(width: 700, height: 520, [(0, 40, 300, 43), (60, 100, 66, 460), (120, 100, 144, 460),
                                                       (200, 100, 290, 460), (330, 250, 690, 262), (600, 20, 601, 21)])
        let disc = discMask(size: 300, centre: 150, radius: 110)
        for y in 0..<300 { for x in 0..<300 { mask[x + 360, y + 210] = max(mask[x + 360, y + 210], disc[x, y]) } }
        return mask
    }()

    @Test(arguments: [40, 60, 100, 140, 200] as [Float])
    func theLiquidBlurOnAGridGivesTheHeightsAndNormalsOfTheFullBlur(_ radius: Float) throws {
        let step = LoftRows.gridStep(radius: radius)
        #expect(step == Int(radius / 20), "radius \(radius): grid step \(step)")
        let full = try Self.liquidHeights(Self.strokes, radius: radius, step: 1)
        let grid = try Self.liquidHeights(Self.strokes, radius: radius, step: step)
        let material = ShadedMaterial(inputScale: 10)
        var height: Float = 0, degrees: Double = 0, pixels = 0
        for y in 0..<Self.strokes.height {
            for x in 0..<Self.strokes.width where Self.strokes[x, y] > 0 {
                height = max(height, abs(grid[x, y] - full[x, y]))
                let a = material.surfaceNormal(of: full, x: x, y: y), b = material.surfaceNormal(of: grid, x: x, y: y)
                let cosine = Double(min(1, (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot()))
                degrees = max(degrees, acos(cosine) * 180 / Double.pi)
                pixels += 1
            }
        }
        #expect(pixels > 80_000)
        #expect(height < 2e-4 * HeightFieldFromMask.liquidPlateau, "radius \(radius), step \(step): heights differ by up to \(height)")
        #expect(degrees < 0.05, "radius \(radius), step \(step): normals differ by up to \(degrees)°")
        print("radius \(radius), grid step \(step): heights within \(height), normals within \(degrees)°")
    }

    @Test func theGridStartsAtRadius40() {
        #expect(LoftRows.gridStep(radius: 39.9) == 1)
        #expect(LoftRows.gridStep(radius: 40) == 2)
        #expect(LoftRows.halo(radius: 100, profile: .liquid) == GaussianBlur.reach(sigma: 50) + 2 * 5)
        #expect(LoftRows.halo(radius: 30, profile: .liquid) == GaussianBlur.reach(sigma: 15))
    }

    @Test(arguments: [(LoftProfile.liquid, 5), (.liquid, 50), (.liquid, 120), (.chisel, 5), (.round, 5)] as [(LoftProfile, Float)])
    func bandsOfTheLoftAreTheWholeMasksHeights(_ profile: LoftProfile, _ radius: Float) throws {
        let whole = HeightFieldFromMask(inputRadius: radius, inputProfile: profile).outputImage(Self.mask)
        let ink = try #require(Self.mask.inkBounds(threshold: 0))
        var settings = TitleShapeSettings()
        (settings.radius, settings.profile) = (Double(radius), profile)
        let halo = LoftRows.halo(radius: radius, profile: profile)
        for band in [1, halo - 1, halo + 2, 2 * halo + 5, 400] {
            let loft = BandLoft(settings: settings, source: Rows(Self.mask),
                                crop: PixelBounds(minX: 0, minY: 0, maxX: Self.mask.width - 1, maxY: Self.mask.height - 1),
                                ink: ink, canvas: (Self.mask.width, Self.mask.height), bandHeight: band)
            var bands: [(rows: Range<Int>, heightsFrom: Int, heights: HeightField)] = []
            try loft.shapes { shape throws(MercurialError) in
                guard let b = shape.band else { throw MercurialError("a band without its rows") }
                bands.append((b.rows, b.heightsFrom, shape.heights))
            }
            var rows = 0, worst: Float = 0
            for b in bands {
                // The band's heights reach a row either side of its rows.
                for y in b.heightsFrom..<(b.heightsFrom + b.heights.height) {
                    for x in 0..<Self.mask.width where Self.read(x, y) {
                        worst = max(worst, abs(b.heights[x, y - b.heightsFrom] - whole[x, y]))
                    }
                }
                rows += b.rows.count
            }
            #expect(rows == Self.mask.height)
            // Liquid is exact; a distance field over a band's window measures from another
            // grid origin, which may move its Float rounding.
            #expect(profile == .liquid ? worst == 0 : worst < 1e-5, "\(profile) radius \(radius), band \(band): heights differ by \(worst)")
        }
    }
}
