/// A lower third's plate: a filled, optionally rounded rectangle behind a title's ink,
/// sized to it with `padding` on each side, and optionally an accent `bar` along one of
/// its sides. It is the bottom-most layer style: the title's drop shadow, glow and
/// stroke fall on it, and it moves, scales and fades with the title (a slide carries it).
public struct Plate: Sendable, Equatable {
    /// An accent line along one side of the plate, its `width` inside the plate's edge.
    public struct Bar: Sendable, Equatable {
        public enum Side: String, Sendable, CaseIterable { case left, right, top, bottom }
        public var side = Side.left
        public var width = 8.0
        public var color = RGBColor(r: 0.91, g: 0.70, b: 0.13)
        public var opacity = 1.0

        public init() {}
    }

    public var color = RGBColor(r: 0.06, g: 0.07, b: 0.10)
    /// Whether the plate is lofted and shaded in the title's metal instead of `color`.
    public var material = false
    public var opacity = 0.85
    /// Pixels between the ink and the plate's edge: top, right, bottom, left.
    public var padding = SIMD4<Double>(18, 32, 18, 32)
    /// The corners' radius in pixels (0: square).
    public var radius = 0.0
    public var bar: Bar? = nil

    public init() {}

    /// `color` or the material, as the scene's `plate.color` gives them.
    public var paint: Stroke.Paint {
        get { material ? .material : .color(color) }
        set {
            switch newValue {
            case .material: material = true
            case .color(let c): (material, color) = (false, c)
            }
        }
    }

    /// The most pixels a plate in the title's metal may cover: it is lofted whole, in memory.
    public static let maximumMetalPixels = 16_777_216

    /// How far the plate reaches beyond the title's region on each side (left, top, right,
    /// bottom), whose ink lies `inset` pixels inside it; a pixel more for the anti-aliased edge.
    func reach(inset: Int) -> (left: Int, top: Int, right: Int, bottom: Int) {
        func r(_ p: Double) -> Int { max(Int((p - Double(inset)).rounded(.up)) + 1, 0) }
        return (r(padding[3]), r(padding[0]), r(padding[1]), r(padding[2]))
    }

    /// Where the plate and its bar go, on the canvas, for ink at `ink` (minX, minY, maxX + 1,
    /// maxY + 1: the ink's pixel edges) scaled by `zoom` about `centre` and then moved by `shift`.
    func shape(ink: SIMD4<Double>, zoom: Double = 1, centre: SIMD2<Double> = .zero,
               shift: SIMD2<Double> = .zero) -> PlateShape {
        var box = SIMD4(ink[0] - padding[3], ink[1] - padding[0], ink[2] + padding[1], ink[3] + padding[2])
        let c = SIMD4(centre.x, centre.y, centre.x, centre.y)
        box = c + (box - c) * zoom + SIMD4(shift.x, shift.y, shift.x, shift.y)
        let barBox = bar.map { bar -> SIMD4<Double> in
            let w = bar.width * zoom
            switch bar.side {
            case .left: return SIMD4(box[0], box[1], min(box[0] + w, box[2]), box[3])
            case .right: return SIMD4(max(box[2] - w, box[0]), box[1], box[2], box[3])
            case .top: return SIMD4(box[0], box[1], box[2], min(box[1] + w, box[3]))
            case .bottom: return SIMD4(box[0], max(box[3] - w, box[1]), box[2], box[3])
            }
        }
        return PlateShape(box: box, metal: nil, radius: min(radius * zoom, (box[2] - box[0]) / 2, (box[3] - box[1]) / 2),
                          color: SIMD3(Float(color.r), Float(color.g), Float(color.b)), opacity: Float(opacity),
                          bar: barBox, barColor: bar.map { SIMD3(Float($0.color.r), Float($0.color.g), Float($0.color.b)) } ?? .zero,
                          barOpacity: Float(bar?.opacity ?? 0))
    }
}

/// What a metal plate's loft is made from: its box on the canvas, its corners, the loft, and the pixels lofted.
struct PlateLoftKey: Equatable {
    var box: SIMD4<Double>
    var radius: Double
    var loft: TitleShapeSettings
    var bounds: PixelBounds
}

/// A plate placed on the canvas: its box (pixel edges: minX, minY, maxX, maxY), corner
/// radius and colour, and its bar's box (clipped by the plate's rounded corners).
struct PlateShape: Sendable {
    var box: SIMD4<Double>
    /// A plate in the title's metal: shaded and lit, its top-left at `metalOrigin` (nil: `color`).
    var metal: Image<RGBA8>? = nil
    var metalOrigin = SIMD2<Int>(0, 0)
    var radius: Double
    var color: SIMD3<Float>
    var opacity: Float
    var bar: SIMD4<Double>?
    var barColor: SIMD3<Float>
    var barOpacity: Float

    /// The canvas pixels it touches.
    var bounds: PixelBounds {
        PixelBounds(minX: Int(box[0].rounded(.down)), minY: Int(box[1].rounded(.down)),
                    maxX: Int(box[2].rounded(.up)) - 1, maxY: Int(box[3].rounded(.up)) - 1)
    }

    /// How much of pixel (x, y) the rounded box covers: ½ minus the signed distance from the
    /// pixel's centre to the rounded rectangle (Inigo Quilez's box SDF), clamped to 0…1.
    @inline(__always)
    func coverage(x: Int, y: Int) -> Float {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        let hw = (box[2] - box[0]) / 2, hh = (box[3] - box[1]) / 2
        guard hw > 0, hh > 0 else { return 0 }
        let qx = abs(px - (box[0] + hw)) - (hw - radius), qy = abs(py - (box[1] + hh)) - (hh - radius)
        let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
        let d = outside + min(max(qx, qy), 0) - radius
        return Float(min(max(0.5 - d, 0), 1))
    }

    /// How much of pixel (x, y) the bar's rectangle covers (the plate's corners then clip it: the lesser of the two).
    @inline(__always)
    func barCoverage(x: Int, y: Int) -> Float {
        guard let b = bar else { return 0 }
        let cx = min(Double(x + 1), b[2]) - max(Double(x), b[0]), cy = min(Double(y + 1), b[3]) - max(Double(y), b[1])
        return Float(max(cx, 0) * max(cy, 0))
    }
}

extension PlateShape {
    /// This plate in the title's metal: its coverage over `bounds` within `clip` (the canvas and
    /// the loft's margin around it), lofted as the title is (`loft`: its profile, radius, scale
    /// and bevel), shaded by `shading` and lit by `lighting` (straight alpha). Left in its colour
    /// when that covers more than `Plate.maximumMetalPixels`.
    /// `cache`: a renderer's, which keeps the last plate's loft while its box, radius and loft stay
    /// (a plate that does not move, under lights that do, is lofted once).
    func inMetal(loft: TitleShapeSettings, shading: ShadingLookup, lighting: PointLighting?, clip: PixelBounds,
                 cache: LayerStyleCache? = nil) -> PlateShape {
        let whole = bounds
        let b = PixelBounds(minX: max(whole.minX, clip.minX), minY: max(whole.minY, clip.minY),
                            maxX: min(whole.maxX, clip.maxX), maxY: min(whole.maxY, clip.maxY))
        guard b.width > 0, b.height > 0, b.width * b.height <= Plate.maximumMetalPixels else { return self }
        let key = PlateLoftKey(box: box, radius: radius, loft: loft, bounds: b)
        let made: (mask: Mask, normals: SurfaceNormals?)
        if let kept = cache?.plateLoft, kept.key == key {
            made = (kept.mask, kept.normals)
        } else {
            var mask = Mask(width: b.width, height: b.height, repeating: 0)
            mask.withUnsafeMutableBufferPointer { m in
                parallelBands(b.height, minimumBand: 16) { rows in
                    for row in rows {
                        for column in 0..<b.width { m[row * b.width + column] = coverage(x: b.minX + column, y: b.minY + row) }
                    }
                }
            }
            made = (mask, TitleShape.lofted(mask, loft, keepingNormals: true).normals)
            cache?.keep(plateLoft: made.normals.map { (key, mask, $0) })
        }
        var image = Image<RGBA8>(width: b.width, height: b.height, repeating: .clear)
        if let normals = made.normals {
            ShadedMaterial.shade(normals: normals, coverage: made.mask, shading: shading, into: &image)
        }
        lighting?.apply(to: &image, originX: b.minX, originY: b.minY)
        var shape = self
        (shape.metal, shape.metalOrigin) = (image, SIMD2(b.minX, b.minY))
        return shape
    }
}
