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

    /// The gradient's weight at distance `d`: from 1 at the centre (or held at 1 out
    /// to `range` when the intensity is constant over it) falling linearly to 0 at `range`.
    @inline(__always)
    func weight(atDistance d: Float) -> Float {
        let outer = Float(range)
        if d >= outer { return constantIntensityOverRange && d == outer ? 1 : 0 }
        return constantIntensityOverRange ? 1 : 1 - d / outer
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

    /// Lights one pixel of the title: straight-alpha colour `c` with coverage `alpha`
    /// at canvas point (`px`, `py`) (the pixel's centre). Returns straight colour and alpha.
    @inline(__always)
    func light(_ c: SIMD3<Float>, alpha: Float, px: Float, py: Float) -> (SIMD3<Float>, Float) {
        let darkening = Float(1 - ambientLightLevel)
        // Core Image works premultiplied: the darkened title, then each gradient added.
        var rgb = (c - SIMD3(repeating: darkening)).clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 1)) * alpha
        var a = alpha
        for light in lights {
            let dx = px - Float(light.x), dy = py - Float(light.y)
            let w = light.weight(atDistance: (dx * dx + dy * dy).squareRoot()) * Float(light.intensity)
            guard w > 0 else { continue }
            rgb += SIMD3(light.color.r, light.color.g, light.color.b) * w
            a += w
        }
        // Source-in: the sum keeps only the title's coverage.
        rgb *= alpha
        a = min(a * alpha, 1)
        guard a > 0 else { return (.zero, 0) }
        return ((rgb / a).clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 1)), a)
    }

    /// Lights the title `content` placed at (`originX`, `originY`) on the canvas.
    public func apply(to content: inout Image<RGBA8>, originX: Int, originY: Int) {
        let width = content.width, height = content.height
        let lighting = self
        content.withUnsafeMutableBufferPointer { pixels in
            parallelBands(height, minimumBand: 8) { rows in
                for y in rows {
                    let py = Float(originY + y) + 0.5
                    for x in 0..<width {
                        let p = pixels[y * width + x]
                        guard p.a > 0 else { continue }
                        let (rgb, a) = lighting.light(SIMD3(Float(p.r), Float(p.g), Float(p.b)) / 255,
                                                      alpha: Float(p.a) / 255, px: Float(originX + x) + 0.5, py: py)
                        pixels[y * width + x] = RGBA8(r: unitByte(rgb.x), g: unitByte(rgb.y), b: unitByte(rgb.z), a: unitByte(a))
                    }
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
        return Float((((p - startPoint) * scale) * axis).sum() / length)
    }
}
