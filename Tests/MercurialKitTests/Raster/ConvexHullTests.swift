import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite struct ConvexHullTests {
    @Test func theHullOfASquareWithInnerPointsIsItsCorners() {
        var points: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(10, 0), SIMD2(10, 10), SIMD2(0, 10)]
        points += [SIMD2(5, 5), SIMD2(2, 7), SIMD2(5, 0), SIMD2(10, 3), SIMD2(0, 0)]   // inside, on edges, repeated
        let hull = ConvexHull.hull(points)
        #expect(Set(hull.map { [$0.x, $0.y] }) == [[0, 0], [10, 0], [10, 10], [0, 10]])
        #expect(ConvexHull.area(hull) == 100)
        #expect(ConvexHull.isConvex(hull))
    }

    @Test func theHullOfATriangleAndOfFewPoints() {
        let hull = ConvexHull.hull([SIMD2(0, 0), SIMD2(4, 0), SIMD2(0, 3), SIMD2(1, 1), SIMD2(2, 1.5)])
        #expect(hull.count == 3 && abs(ConvexHull.area(hull)) == 6)
        #expect(ConvexHull.hull([SIMD2(1, 1), SIMD2(1, 1)]).count == 1)
        #expect(ConvexHull.hull([SIMD2(0, 0), SIMD2(1, 1), SIMD2(2, 2)]).count == 2, "collinear points have no area")
    }

    @Test func simplificationKeepsAtMostTwelveConvexVerticesAndMostOfTheArea() {
        // A circle of 200 points, radius 100, with scattered points inside.
        var points = (0..<200).map { i -> SIMD2<Double> in
            let a = Double(i) / 200 * 2 * .pi
            return SIMD2(100 * cos(a), 100 * sin(a))
        }
        points += (0..<50).map { i in SIMD2(Double(i % 7) * 10 - 30, Double(i % 5) * 10 - 20) }
        let hull = ConvexHull.hull(points)
        #expect(hull.count == 200)
        let simple = ConvexHull.simplified(hull, maximumVertices: 12)
        #expect(simple.count == 12)
        #expect(ConvexHull.isConvex(simple))
        let loss = 1 - ConvexHull.area(simple) / ConvexHull.area(hull)
        #expect(loss > 0 && loss < 0.06, "a 12-gon in a circle keeps 95.5% of it; lost \(loss)")
        // Every kept vertex is one of the hull's.
        #expect(simple.allSatisfy { v in hull.contains(v) })
    }

    @Test func simplificationRemovesTheFlattestCornersFirst() {
        // A square with a nearly flat extra vertex on one side and a sharper one on another.
        let polygon: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(5, -0.1), SIMD2(10, 0), SIMD2(10.5, 5), SIMD2(10, 10), SIMD2(0, 10)]
        let four = ConvexHull.simplified(polygon, maximumVertices: 4)
        #expect(four == [SIMD2(0, 0), SIMD2(10, 0), SIMD2(10, 10), SIMD2(0, 10)])
        let five = ConvexHull.simplified(polygon, maximumVertices: 5)
        #expect(!five.contains(SIMD2(5, -0.1)) && five.contains(SIMD2(10.5, 5)))
    }

    @Test func aGlyphsBodyHullHoldsItsInk() throws {
        var d = Dynamics()
        d.gravityMagnitude = 0
        let title = try DynamicTitle(settings: dropSettings(text: "Wo"), dynamics: d, width: 480, height: 200)
        #expect(title.pieces.count == 2)
        for piece in title.pieces {
            #expect(piece.hull.count <= 12 && piece.hull.count >= 3)
            #expect(ConvexHull.isConvex(piece.hull))
            // Every pixel at least half inked lies in the hull (around the centre of mass).
            var inked = 0, outside = 0
            for y in 0..<piece.mask.height {
                for x in 0..<piece.mask.width where piece.mask[x, y] >= 0.5 {
                    inked += 1
                    if !inside(SIMD2(Double(x) + 0.5, Double(y) + 0.5) - piece.centroid, piece.hull, slack: 1.5) { outside += 1 }
                }
            }
            #expect(inked > 300 && outside == 0, "\(outside) of \(inked) inked pixels outside the hull")
        }
    }
}
