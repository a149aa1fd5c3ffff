/// Coloured 2-D point lights over a title, as MBLightingController lights an image
/// view: the title is darkened to the ambient level (CIColorControls' brightness
/// −(1 − ambient), which subtracts from every channel), each light is a radial
/// gradient (CIRadialGradient: the light's colour × intensity out to `range`, or
/// held to `range` when its intensity is constant over the range, fading to clear
/// at `range`), the gradients are added to it (CIAdditionCompositing), and the sum
/// is masked to the title's shape (CISourceInCompositing).
public struct PointLight: Sendable, Equatable {
    /// Centre in canvas pixels, y down.
    public var x: Double, y: Double
    public var color: RGBColor
    public var intensity: Double
    /// Radius in pixels where the light has faded to nothing.
    public var range: Double
    public var constantIntensityOverRange: Bool
    /// When set, the light circles on this path (and `x`, `y` follow it).
    public var orbit: Orbit? = nil

    public init(x: Double, y: Double, color: RGBColor = .white, intensity: Double = 0.8, range: Double = 250,
                constantIntensityOverRange: Bool = false) {
        self.x = x; self.y = y
        self.color = color
        self.intensity = intensity
        self.range = range
        self.constantIntensityOverRange = constantIntensityOverRange
    }
}

public struct PointLighting: Sendable, Equatable {
    public var lights: [PointLight]
    /// 0 (black where no light falls) … 1 (the title as it is).
    public var ambientLightLevel: Double

    public init(lights: [PointLight], ambientLightLevel: Double = 0.1) {
        self.lights = lights
        self.ambientLightLevel = ambientLightLevel
    }

    /// Lights the title `content` placed at (`originX`, `originY`) on the canvas.
    public func apply(to content: inout Image<RGBA8>, originX: Int, originY: Int) {
        let width = content.width, height = content.height
        content.withUnsafeMutableBufferPointer { pixels in
            apply(to: pixels, width: width, height: height, originX: originX, originY: originY)
        }
    }

    /// Lights `height` rows of `width` pixels placed at (`originX`, `originY`) (a title's
    /// region, or a band of it); renders light through `Compositing`.
    func apply(to pixels: UnsafeMutableBufferPointer<RGBA8>, width: Int, height: Int, originX: Int, originY: Int) {
        precondition(pixels.count >= width * height, "\(pixels.count) pixels for \(width)×\(height)")
        let darkening = Float(1 - ambientLightLevel)
        // Per light: centre, range², 1/range, intensity, colour.
        struct Prepared { var x, y, range2, inverseRange, intensity: Float; var constant: Bool; var r, g, b: Float }
        let lights = lights.filter { $0.range > 0 && $0.intensity > 0 }.map { l in
            Prepared(x: Float(l.x), y: Float(l.y), range2: Float(l.range * l.range), inverseRange: Float(1 / l.range),
                     intensity: Float(l.intensity), constant: l.constantIntensityOverRange,
                     r: l.color.r, g: l.color.g, b: l.color.b)
        }
        parallelBands(height, minimumBand: 8) { rows in
            var dy2 = [Float](repeating: 0, count: lights.count)
            for y in rows {
                let py = Float(originY + y) + 0.5
                for (k, l) in lights.enumerated() { dy2[k] = (py - l.y) * (py - l.y) }
                let row = pixels.baseAddress! + y * width
                for x in 0..<width {
                    let p = row[x]
                    guard p.a > 0 else { continue }
                    let alpha = Float(p.a) * (1 / 255)
                    // Core Image works premultiplied: the darkened title, then each gradient added.
                    var r = max(Float(p.r) * (1 / 255) - darkening, 0) * alpha
                    var g = max(Float(p.g) * (1 / 255) - darkening, 0) * alpha
                    var b = max(Float(p.b) * (1 / 255) - darkening, 0) * alpha
                    var a = alpha
                    let px = Float(originX + x) + 0.5
                    for k in 0..<lights.count {
                        let l = lights[k]
                        let d2 = (px - l.x) * (px - l.x) + dy2[k]
                        guard d2 < l.range2 else { continue }
                        let w = l.constant ? l.intensity : l.intensity * (1 - d2.squareRoot() * l.inverseRange)
                        r += l.r * w; g += l.g * w; b += l.b * w
                        a += w
                    }
                    // Source-in: the sum keeps only the title's coverage.
                    let outA = min(a * alpha, 1)
                    let k = alpha / outA   // straight colour = premultiplied × alpha / outA
                    row[x] = RGBA8(r: unitByte(r * k), g: unitByte(g * k), b: unitByte(b * k), a: unitByte(outA))
                }
            }
        }
    }
}

/// An axial gradient over the canvas, as CAGradientLayer draws one: `gradient`'s
/// stops laid along the line from `startPoint` to `endPoint`, in unit coordinates
/// of the canvas ((0, 0) top left, (1, 1) bottom right), constant beyond its ends.
public struct BackgroundGradient: Sendable, Equatable {
    public var gradient: Gradient
    public var startPoint: SIMD2<Double>
    public var endPoint: SIMD2<Double>

    public init(gradient: Gradient, startPoint: SIMD2<Double> = [0.5, 0], endPoint: SIMD2<Double> = [0.5, 1]) {
        self.gradient = gradient
        self.startPoint = startPoint
        self.endPoint = endPoint
    }

    /// The colour at the canvas pixel (x, y) of a width × height canvas.
    public func color(x: Int, y: Int, width: Int, height: Int) -> RGBColor {
        gradient.color(at: position(x: x, y: y, width: width, height: height))
    }

    /// Where pixel (x, y)'s centre falls along the gradient's axis, 0 at the start.
    @inline(__always)
    func position(x: Int, y: Int, width: Int, height: Int) -> Float {
        let p = SIMD2((Double(x) + 0.5) / Double(width), (Double(y) + 0.5) / Double(height))
        // In pixels, so that a diagonal gradient on a wide canvas is perpendicular to its axis on screen.
        let scale = SIMD2(Double(width), Double(height))
        let axis = (endPoint - startPoint) * scale
        let length = (axis * axis).sum()
        guard length > 0 else { return 0 }
        // Held where Float stays finite: two nearly equal points (a track passing between
        // them) make a huge ratio, and inf − inf across a row would be NaN.
        return Float(min(max((((p - startPoint) * scale) * axis).sum() / length, -1e6), 1e6))
    }
}
