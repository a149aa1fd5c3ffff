import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite struct ShadedMaterialTests {
    /// A shading image whose red channel is its x and green its y (0…255).
    func coordinateImage(_ size: Int) -> ShadingLookup {
        var image = Image<RGBA8>(width: size, height: size, repeating: .clear)
        for y in 0..<size {
            for x in 0..<size {
                image[x, y] = RGBA8(r: UInt8(x * 255 / (size - 1)), g: UInt8(y * 255 / (size - 1)), b: 0, a: 255)
            }
        }
        return ShadingLookup(image)
    }

    /// A plane of slope (sx, sy) per pixel in image coordinates (y down), fully covered.
    func plane(sx: Float, sy: Float) -> (HeightField, Mask) {
        var h = HeightField(width: 9, height: 9, repeating: 0)
        for y in 0..<9 { for x in 0..<9 { h[x, y] = sx * Float(x) + sy * Float(y) } }
        return (h, Mask(width: 9, height: 9, repeating: 1))
    }

    @Test func flatSurfaceLooksUpTheCentre() {
        let (h, m) = plane(sx: 0, sy: 0)
        let out = ShadedMaterial(inputScale: 10).outputImage(heights: h, coverage: m, shading: coordinateImage(256))
        #expect(abs(Int(out[4, 4].r) - 128) <= 1 && abs(Int(out[4, 4].g) - 128) <= 1)
        #expect(out[4, 4].a == 255)
    }

    @Test func surfaceFacingRightSamplesTheRightOfTheImage() {
        // Heights fall to the right: the normal tilts to +x by atan(slope · scale).
        let (h, m) = plane(sx: -0.1, sy: 0)
        let out = ShadedMaterial(inputScale: 10).outputImage(heights: h, coverage: m, shading: coordinateImage(256))
        let nx: Float = 1 / Float(2).squareRoot()   // slope 1 → 45°
        let expectedR = (128 + nx * 128 - 0.5) / 255 * 255
        #expect(abs(Float(out[4, 4].r) - expectedR) <= 1.5, "r \(out[4, 4].r) expected \(expectedR)")
        #expect(abs(Int(out[4, 4].g) - 128) <= 1)
    }

    @Test func surfaceFacingUpSamplesTheTopOfTheImage() {
        // Heights fall towards the top of the image (y decreasing): normal tilts to +y (up).
        let (h, m) = plane(sx: 0, sy: 0.1)
        let out = ShadedMaterial(inputScale: 10).outputImage(heights: h, coverage: m, shading: coordinateImage(256))
        #expect(out[4, 4].g < 60, "g \(out[4, 4].g): image y downward is −y")
        #expect(abs(Int(out[4, 4].r) - 128) <= 1)
    }

    @Test func scaleSteepensTheNormals() {
        let (h, m) = plane(sx: -0.05, sy: 0)
        let shallow = ShadedMaterial(inputScale: 2).outputImage(heights: h, coverage: m, shading: coordinateImage(256))
        let steep = ShadedMaterial(inputScale: 40).outputImage(heights: h, coverage: m, shading: coordinateImage(256))
        #expect(steep[4, 4].r > shallow[4, 4].r + 50)
    }

    @Test func alphaIsCoverageAndBackgroundComposites() {
        var (h, m) = plane(sx: 0, sy: 0)
        m[4, 4] = 0.5
        m[0, 0] = 0
        let lookup = ShadingLookup(Image(width: 2, height: 2, repeating: RGBA8(r: 200, g: 100, b: 50, a: 255)))
        let out = ShadedMaterial().outputImage(heights: h, coverage: m, shading: lookup)
        #expect(out[4, 4] == RGBA8(r: 200, g: 100, b: 50, a: 128), "colour stays un-premultiplied")
        #expect(out[0, 0].a == 0)
        let onBlack = ShadedMaterial().outputImage(heights: h, coverage: m, shading: lookup, background: .black)
        #expect(onBlack[4, 4] == RGBA8(r: 100, g: 50, b: 25, a: 255))
        #expect(onBlack[0, 0] == RGBA8(r: 0, g: 0, b: 0, a: 255))
    }
}
