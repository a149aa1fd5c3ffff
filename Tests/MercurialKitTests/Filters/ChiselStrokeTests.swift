import Foundation
import Testing
@testable import MercurialKit

/// Issue 38: a stroke in the title's metal on a chisel (or round) loft. Lofted as a
/// shape of its own, its outline fused neighbouring letters into one plateau and left a
/// cone at each inner corner (where a stem meets a bar or a diagonal), whose normals
/// swept through the sphere's dark underside: a dark notch. Lofted as a band of the
/// letters' own distance field, each letter's outline keeps its bevel, two outlines
/// meet at a crease, and inner corners are mitred.
@Suite struct ChiselStrokeTests {
    /// `text` on a fixed canvas (so a stroke does not move the title), in gold, with an
    /// outside metal stroke of `width` (nil: none).
    private static func settings(_ text: String, size: Double, profile: LoftProfile = .chisel,
                                 stroke width: Double?, letterSpacing: Double = 0) throws -> RenderSettings {
        var s = RenderSettings()
        s.text = text
        s.size = size
        s.width = 260
        s.height = 240
        s.profile = profile
        s.letterSpacing = letterSpacing
        try Materials.apply("gold", to: &s)
        if let width {
            var k = Stroke()
            (k.width, k.position, k.paint) = (width, .outside, .material)
            s.stroke = k
        }
        return s
    }

    private static func luma(_ p: RGBA8) -> Double { 0.2126 * Double(p.r) + 0.7152 * Double(p.g) + 0.0722 * Double(p.b) }

    /// The first and last columns of the first run of ink (alpha ≥ 128) along row `y` from `x`.
    private static func run(_ image: Image<RGBA8>, y: Int, from x: Int = 0) -> ClosedRange<Int>? {
        guard let first = (x..<image.width).first(where: { image[$0, y].a >= 128 }) else { return nil }
        let last = (first..<image.width).first { image[$0, y].a < 128 }.map { $0 - 1 } ?? image.width - 1
        return first...last
    }

    /// The rows with any ink.
    private static func inkRows(_ image: Image<RGBA8>) -> ClosedRange<Int> {
        let rows = (0..<image.height).filter { y in (0..<image.width).contains { image[$0, y].a > 0 } }
        return rows.first!...rows.last!
    }

    /// Where a "T"'s outline turns its two inner corners (under the bar, beside the stem):
    /// over the square of `width` px beyond each corner, how much darker the outline is than
    /// the face it belongs to, away from the corner. Pixels nearer the stem's edge than the
    /// bar's belong to the stem's face (the same column, 40 px down the stem); the others to
    /// the bar's (the same row, past the square); the 1.5 px along the mitre are left out.
    /// Returns the most any pixel is darker, and the mean difference either way.
    static func innerCorners(width w: Int) throws -> (darkest: Double, meanDifference: Double) {
        let plain = try TitleRenderer.render(settings("T", size: 200, stroke: nil)).image
        let stroked = try TitleRenderer.render(settings("T", size: 200, stroke: Double(w))).image
        let rows = inkRows(plain)
        let y = rows.lowerBound + (rows.count * 7) / 10
        let stem = try #require(run(plain, y: y))
        var darkest = 0.0, differences: [Double] = []
        for side in [1, -1] {
            // The stem's edge on this side, and the bar's underside beside it.
            let edge = side > 0 ? stem.upperBound : stem.lowerBound
            let bar = try #require((rows.lowerBound...y).reversed().first { plain[edge + 12 * side, $0].a >= 128 })
            for j in 0...w {
                for i in 0...w {
                    let x = edge + side * (1 + i), yy = bar + 1 + j
                    guard stroked[x, yy].a == 255, plain[x, yy].a == 0 else { continue }
                    let face: RGBA8
                    if Double(i) < Double(j) - 1.5 {
                        face = stroked[x, yy + 40]
                    } else if Double(j) < Double(i) - 1.5 {
                        face = stroked[edge + side * (w + 8), yy]
                    } else {
                        continue
                    }
                    let d = luma(face) - luma(stroked[x, yy])
                    darkest = max(darkest, d)
                    differences.append(abs(d))
                }
            }
        }
        #expect(differences.count > 40, "\(differences.count) pixels of the outline measured")
        return (darkest, differences.reduce(0, +) / Double(differences.count))
    }

    /// Where the stroke turns the inner corners of a "T", the outline's faces meet at a mitre:
    /// each keeps its own shading up to it, with no notch (the cone lofted from the outline's
    /// own coverage was up to 65 levels darker than the faces, 24 on average off; now 9 and 0.6).
    @Test func aMetalStrokeTurnsAnInnerCornerWithAMitreAndNoDarkNotch() throws {
        let corners = try Self.innerCorners(width: 8)
        #expect(corners.darkest <= 15, "the outline is up to \(corners.darkest) levels darker than its face at the inner corner")
        #expect(corners.meanDifference <= 3, "the outline differs by \(corners.meanDifference) levels on average from its faces at the inner corner")
    }

    /// Two letters closer than twice the stroke's width: across the gap between their
    /// stems, the outline of each falls towards the other (the left one's normals face
    /// right, the right one's left), a crease halfway, where the fused plateau was flat.
    @Test(arguments: [LoftProfile.chisel, .round])
    func twoLettersOutlinesMeetAtACreaseNotAFusedPlateau(_ profile: LoftProfile) throws {
        let width = 8.0
        let plain = try TitleRenderer.render(Self.settings("ll", size: 160, profile: profile, stroke: nil,
                                                           letterSpacing: -10)).image
        let rows = Self.inkRows(plain)
        let y = (rows.lowerBound + rows.upperBound) / 2 + 10
        let left = try #require(Self.run(plain, y: y)), right = try #require(Self.run(plain, y: y, from: left.upperBound + 1))
        let gap = right.lowerBound - left.upperBound - 1
        #expect(gap > 4 && Double(gap) < 2 * width, "the stems are \(gap) px apart")
        let centre = (left.upperBound + right.lowerBound) / 2

        // The outline's normals, as the render lofts it.
        let settings = try Self.settings("ll", size: 160, profile: profile, stroke: width, letterSpacing: -10)
        let shape = try TitleShape.build(settings, keepingNormals: false)
        let title = Image<RGBA8>(width: shape.mask.width, height: shape.mask.height,
                                 pixels: shape.mask.pixels.map { RGBA8(r: 0, g: 0, b: 0, a: UInt8(($0 * 255).rounded())) })
        let stroke = try #require(settings.stroke)
        let planes = LayerStylePlanes(settings.look.styles, title: title, origin: shape.origin,
                                      strokeLoft: settings.shape.strokeLoft(stroke))
        let metal = try #require(planes.strokeMetal), bounds = try #require(planes.stroke?.bounds)
        func nx(_ x: Int) -> Float { metal.normals.xy[(y - bounds.minY) * bounds.width + x - bounds.minX].x }
        let across = (left.upperBound + 1...right.lowerBound - 1).map { nx($0) }
        let (before, after) = (nx(centre - 2), nx(centre + 2))
        #expect(before > 0.3 && after < -0.3,
                "\(profile): the outline's normals across the gap do not turn at a crease: \(across.map { ($0 * 100).rounded() / 100 })")

        // And so, drawn, the two sides of the crease take different colours from the sphere.
        let stroked = try TitleRenderer.render(settings).image
        let (l, r) = (stroked[centre - 2, y], stroked[centre + 2, y])
        #expect(l.a == 255 && r.a == 255)
        #expect(abs(Self.luma(l) - Self.luma(r)) > 10, "\(profile): either side of the crease \(l) \(r)")
    }

    /// The outline's loft is a band of the letters' distance field in every position:
    /// outside a plate running on under the letters, inside and centred rising from both rims.
    @Test func theBandOfEachPositionRisesFromItsRims() {
        // A 40 px wide vertical bar in a 100 px wide mask; its edges at x = 29.5 and 69.5.
        var mask = Mask(width: 100, height: 60, repeating: 0)
        mask.withUnsafeMutableBufferPointer { m in
            for y in 0..<60 { for x in 30..<70 { m[y * 100 + x] = 1 } }
        }
        let loft = HeightFieldFromMask(inputRadius: 4, inputProfile: .chisel)
        let y = 30
        func height(_ band: ClosedRange<Float>, _ x: Int) -> Float { loft.outputImage(mask, band: band)[x, y] }
        // Outside, 8 px: 0 at the rim 8 px beyond the edge, the crest at the edge and on under the bar.
        #expect(abs(height(-8...Float.infinity, 21)) < 0.2 && height(-8...Float.infinity, 29) == 1
                && height(-8...Float.infinity, 50) == 1)
        // Inside, 8 px: rising from the edge and from the rim 8 px in, the crest between; nothing deep inside.
        let inside: ClosedRange<Float> = 0...8
        #expect(height(inside, 31) < height(inside, 33) && abs(height(inside, 33) - height(inside, 34)) < 1e-4
                && height(inside, 36) < height(inside, 34) && height(inside, 50) == 0)
        // Centred: symmetric about the edge.
        let centred: ClosedRange<Float> = -4...4
        for k in 0..<4 { #expect(abs(height(centred, 29 - k) - height(centred, 30 + k)) < 1e-4) }
    }

    /// A wide metal stroke on a chisel or round loft streams as it renders whole: the band's
    /// distance field reaches across the stroke's width (beyond the title's own loft), so a
    /// streamed window of rows holds what each of its rows depends on.
    @Test(arguments: [LoftProfile.chisel, .round])
    func aWideMetalStrokeStreamsAsItRendersWhole(_ profile: LoftProfile) throws {
        var settings = StreamingRenderTests.hgWave(profile, radius: 6)
        // At sizes 30…35 the windows' edges fall where the outline's rows depend on ink further
        // away than the title's loft reaches (its reach alone left pixels up to 255 levels off).
        for (position, width, size) in [(Stroke.Position.outside, 20.0, 30.0), (.outside, 20, 31), (.outside, 20, 32),
                                        (.outside, 20, 35), (.center, 16, 48), (.inside, 9, 48)] {
            var stroke = Stroke()
            (stroke.width, stroke.position, stroke.material) = (width, position, true)
            settings.stroke = stroke
            settings.size = size
            try StyledBandsTests.expectBandsEqualTheWholeRender(settings, exact: false, "\(profile) \(position) \(width) size \(size)")
        }
    }
}
