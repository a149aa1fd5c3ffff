import Foundation
import Testing
@testable import MercurialKit

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

/// Azimuth error of every normal tilted more than 30° against the radial direction.
func discAzimuthErrors(radius: Float, scale: Float) -> AzimuthErrors {
    let mask = discMask(size: 512, centre: 256, radius: 200)
    let heights = HeightFieldFromMask(inputRadius: radius).outputImage(mask)
    let material = ShadedMaterial(inputScale: scale)
    var errors: [Double] = []
    for y in 0..<512 {
        for x in 0..<512 where mask[x, y] > 0 {
            let n = material.surfaceNormal(of: heights, x: x, y: y)
            guard n.z < Float(cos(30.0 * Double.pi / 180)) else { continue }
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
    @Test func discNormalsPointRadiallyOutward() {
        let errors = discAzimuthErrors(radius: 10, scale: 10)
        // A band about 7 px wide around a circle of radius 200 px.
        #expect(errors.degrees.count > 5_000)
        #expect(errors.mean <= 1, "mean azimuth error \(errors.mean)°")
        #expect(errors.p99 <= 5, "99th percentile azimuth error \(errors.p99)°")
        print("disc azimuth error: mean \(errors.mean)°, p99 \(errors.p99)°, over \(errors.degrees.count) normals")
    }
}

@Suite struct HeightFieldProfileTests {
    @Test func heightIsZeroAtTheEdgeAndFlatBeyondTheRadius() {
        let mask = discMask(size: 128, centre: 64, radius: 40)
        let heights = HeightFieldFromMask(inputRadius: 10).outputImage(mask)
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
