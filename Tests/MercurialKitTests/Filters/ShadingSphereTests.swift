import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite struct ShadingSphereTests {
    /// The sphere point where the half-vector between the light (seen from that
    /// point) and the viewer equals the normal: where Blinn–Phong peaks.
    func predictedHighlight(_ light: SIMD3<Double>) -> SIMD3<Double> {
        func unit(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }
        let view = SIMD3<Double>(0, 0, 1)
        var n = unit(unit(light) + view)
        for _ in 0..<50 { n = unit(unit(light - n) + view) }
        return n
    }

    @Test(arguments: 0..<4)
    func highlightSitsAtTheHalfVector(light index: Int) {
        var scene = ShadingScene()
        for i in 0..<4 where i != index { scene.lights[i].brightness = 0 }
        scene.lights[index].hue = 0          // red, so only the red channel matters
        scene.material.diffuse = .black      // specular only
        let size = 512
        let image = ShadingSphere.render(scene, size: size, antialiasedRim: false)
        var best = (value: -1, x: 0, y: 0)
        for y in 0..<size {
            for x in 0..<size {
                let dx = Double(x) + 0.5 - 256, dy = Double(y) + 0.5 - 256
                guard dx * dx + dy * dy < 250 * 250 else { continue }
                let v = Int(image[x, y].r)
                if v > best.value { best = (v, x, y) }
            }
        }
        // Many pixels may saturate at 255: take the centroid of the brightest ones.
        var sx = 0.0, sy = 0.0, count = 0.0
        for y in 0..<size {
            for x in 0..<size where Int(image[x, y].r) >= best.value - 1 {
                let dx = Double(x) + 0.5 - 256, dy = Double(y) + 0.5 - 256
                guard dx * dx + dy * dy < 250 * 250 else { continue }
                sx += Double(x) + 0.5; sy += Double(y) + 0.5; count += 1
            }
        }
        let n = predictedHighlight(Light.originalDefaults[index].position)
        let expectedX = 256 + n.x * 256, expectedY = 256 - n.y * 256
        let error = ((sx / count - expectedX) * (sx / count - expectedX) + (sy / count - expectedY) * (sy / count - expectedY)).squareRoot()
        #expect(best.value > 200)
        #expect(error < 3, "light \(index + 1): highlight at (\(sx / count), \(sy / count)), predicted (\(expectedX), \(expectedY))")
    }

    @Test func highlightWidthAtDefaultShininessIsBroadAndShrinksWithShininess() {
        func halfMaximumWidth(shininess: Double) -> Int {
            var scene = ShadingScene(lights: [Light(hue: 0, brightness: 1, position: [0, 0, 50])] +
                                     Array(repeating: Light(hue: 0, brightness: 0, position: [0, 0, 1]), count: 3))
            scene.material.diffuse = .black
            scene.material.shininess = shininess
            let image = ShadingSphere.render(scene, size: 512, antialiasedRim: false)
            return (0..<512).filter { image[$0, 256].r >= 128 }.count
        }
        let soft = halfMaximumWidth(shininess: 0.02), tight = halfMaximumWidth(shininess: 0.2)
        // Exponent 20: half maximum where cos^20 θ = ½ → θ ≈ 15°, 2·sin 15° ≈ 0.52 radii across.
        #expect(abs(Double(soft) - 0.52 * 256) < 8, "half-maximum width \(soft) px")
        #expect(tight < soft / 2)
    }

    @Test func rimIsAntialiasedAndOutsideTransparent() {
        let image = ShadingSphere.render(ShadingScene(), size: 128, antialiasedRim: true)
        #expect(image[0, 0].a == 0 && image[127, 127].a == 0)
        #expect(image[64, 64].a == 255)
        let partial = image.pixels.filter { $0.a > 0 && $0.a < 255 }.count
        #expect(partial > 100, "\(partial) partially covered rim pixels")
    }

    @Test func reflectionGradientShowsSkyAboveGroundBelow() {
        var scene = ShadingScene()
        for i in 0..<4 { scene.lights[i].brightness = 0 }
        scene.material.diffuse = .black
        scene.material.reflection = Gradient(colors: [RGBColor(r: 0, g: 0, b: 1), RGBColor(r: 1, g: 0, b: 0)])
        let image = ShadingSphere.render(scene, size: 256, antialiasedRim: false)
        let top = image[128, 10], bottom = image[128, 245]
        #expect(top.b > 200 && top.r < 60)
        #expect(bottom.r > 200 && bottom.b < 60)
    }

    /// Lookups are summed from each light's kept terms (`LightLayer`), and a scene
    /// that changes one light traces only that one; the lookup must be the traced
    /// sphere's to the bit, for a new cache and for one that reuses layers, with an
    /// ambient colour, a reflection gradient, a light behind the sphere and a new material.
    @Test func lookupsFromKeptLightLayersAreTheTracedSphereExactly() {
        let cache = ShadingCache()
        var scene = ShadingScene()
        scene.material.ambient = RGBColor(r: 0.05, g: 0.02, b: 0.1)
        var scenes = [scene]
        scene.lights[0].hue = 0.4; scenes.append(scene)                       // one light's colour
        scene.lights[2].position = [10, -5, -40]; scenes.append(scene)        // one light moved behind
        scene.lights[0].hue = 0; scenes.append(scene)                         // back to a kept layer
        scene.material.reflection = Gradient(colors: [.white, .black]); scene.material.reflectivity = 0.3
        scenes.append(scene)                                                  // reflection: layers kept
        scene.material.shininess = 0.1; scenes.append(scene)                  // new material: all traced
        for (k, scene) in scenes.enumerated() {
            for size in [256, 33] {
                let traced = ShadingLookup(ShadingSphere.render(scene, size: size, antialiasedRim: false))
                #expect(cache.lookup(scene, size: size) == traced, "scene \(k) at \(size)")
            }
        }
    }

    /// A layer holds only a light's colourless terms: lights that change only their
    /// colour, and a material that changes only its diffuse or specular colour, trace
    /// nothing and give the traced sphere's pixels exactly; a moved light traces one
    /// layer and a new shininess all four.
    @Test func colourChangesReuseTracedLayersAndMatchTheTracedSphere() {
        let cache = ShadingCache()
        var scene = ShadingScene()
        func expectLookup(_ scene: ShadingScene, traced: Int, _ note: String) {
            let lookup = cache.lookup(scene, size: 256)
            #expect(cache.tracedLayers == traced, "\(note): \(cache.tracedLayers) layers traced")
            // A lookup holds its image's bytes (each / 255), so equal lookups are equal pixels.
            let same = lookup == ShadingLookup(ShadingSphere.render(scene, size: 256, antialiasedRim: false))
            #expect(same, "\(note): not the traced sphere's pixels")
        }
        expectLookup(scene, traced: 4, "first scene")
        for (i, light) in scene.lights.enumerated() {
            scene.lights[i].hue = (light.hue + 0.37).truncatingRemainder(dividingBy: 1)
            scene.lights[i].brightness = 0.3 + 0.15 * Double(i)
        }
        expectLookup(scene, traced: 4, "every light's colour")
        scene.material.diffuse = RGBColor(r: 0.6, g: 0.25, b: 0.1)
        expectLookup(scene, traced: 4, "the material's diffuse colour")
        scene.material.specular = RGBColor(r: 0.2, g: 0.9, b: 0.5)
        scene.material.ambient = RGBColor(r: 0.05, g: 0.1, b: 0)
        expectLookup(scene, traced: 4, "the material's specular and ambient colours")
        scene.lights[1].position = [5, 30, 20]
        expectLookup(scene, traced: 5, "one light moved")
        scene.material.shininess = 0.07
        expectLookup(scene, traced: 9, "a new shininess")
    }

    /// The lookup's eight-at-a-time byte rounding is `unitByte`'s, for every byte's
    /// boundaries (where `v * 255 + 0.5` is a whole number or next to one), out of range
    /// values and a fine sweep; 2001 values, so the last one goes through the scalar tail.
    @Test func vectorByteRoundingIsUnitByte() {
        var values: [Float] = [-1, -0.0, 0, 1, 2, .greatestFiniteMagnitude, -.greatestFiniteMagnitude]
        for n in 0...255 {
            let v = Float(n) / 255, edge = (Float(n) + 0.5) / 255
            values += [v, v.nextUp, v.nextDown, edge, edge.nextUp, edge.nextDown]
        }
        while values.count < 2001 { values.append(Float(values.count) / 1613 - 0.3) }
        let expected = values.map { Float(unitByte($0)) }
        values.withUnsafeMutableBufferPointer { LightLayer.storeAsBytes($0.baseAddress!, $0.count) }
        let wrong = zip(values, expected).filter { $0.0 != $0.1 }.count
        #expect(values.count % 8 == 1 && wrong == 0, "\(wrong) of \(values.count) values rounded differently")
    }

    @Test func hueAndBrightnessMakeTheLightColour() {
        #expect(RGBColor(hue: 0, saturation: 1, brightness: 1) == RGBColor(r: 1, g: 0, b: 0))
        #expect(RGBColor(hue: 1.0 / 3, saturation: 1, brightness: 0.5).g == 0.5)
        #expect(RGBColor(hue: 2.0 / 3, saturation: 1, brightness: 1).b == 1)
    }
}
