import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Photoshop's Drop Shadow (GEGL's Drop Shadow): the title's coverage spread, blurred,
/// offset away from the light and tinted, drawn under the title. Its Inner Shadow is
/// the same settings with `choke` for `spread`: the shadow of the letters' surroundings
/// falling into them, clipped to the ink.
public struct Shadow: Sendable, Equatable {
    public var color = RGBColor.black
    public var opacity = 0.75
    /// Where the light comes from, in degrees anticlockwise from the right (Photoshop's
    /// global light, 120: from the upper left); the shadow falls the opposite way.
    public var angle = 120.0
    /// How far the shadow falls, in pixels.
    public var distance = 5.0
    /// How far the shadow's edge reaches beyond the letters, in pixels (the blur and the spread).
    public var size = 5.0
    /// The part of `size`, in per cent, that is a hard dilation (a drop shadow's spread)
    /// or erosion (an inner shadow's choke) before the rest is blurred.
    public var spread = 0.0
    /// A drop shadow's "Layer knocks out drop shadow": hidden under the title's own ink, in
    /// proportion to its coverage, so that a letter part-way transparent (a reveal's) keeps its
    /// colour rather than showing its shadow through it. (An inner shadow does not use it.)
    public var knockout = true

    public init() {}
}

public typealias DropShadow = Shadow
public typealias InnerShadow = Shadow

/// Photoshop's Outer Glow: the coverage spread and blurred, tinted, under the title.
public struct OuterGlow: Sendable, Equatable {
    public var color = RGBColor(r: 1, g: 1, b: 190 / 255)
    public var opacity = 0.75
    public var size = 5.0
    public var spread = 0.0
    /// Hidden under the title's own ink, as a drop shadow's `knockout`.
    public var knockout = true

    public init() {}
}

/// Photoshop's Stroke: an outline of `width` pixels around the letters' edge.
public struct Stroke: Sendable, Equatable {
    public enum Position: String, Sendable, CaseIterable, Equatable {
        /// Beyond the edge, under the title.
        case outside
        /// Within the edge, over the title.
        case inside
        /// Half each side of the edge, over the title.
        case center
    }
    /// What the outline is painted with: a flat colour, or the title's own metal.
    public enum Paint: Sendable, Equatable {
        case color(RGBColor)
        /// Lofted with the title's loft (liquid: as a shape of its own; chisel and round:
        /// as a band along the letters' edge, `HeightFieldFromMask.outputImage(_:band:)`)
        /// and shaded by its material and lights (`StrokeMetal`).
        case material
    }
    public var width = 3.0
    public var position = Position.outside
    /// The outline's colour (unused while `material`).
    public var color = RGBColor.black
    /// Whether the outline is in the title's metal instead of `color`.
    public var material = false
    public var opacity = 1.0

    public init() {}

    /// The band the outline covers, in the letters' signed distance (pixels, positive
    /// inside): beyond the edge (running on under the letters), within it, or across it.
    var band: ClosedRange<Float> {
        let w = Float(width)
        switch position {
        case .outside: return -w...Float.infinity
        case .inside: return 0...w
        case .center: return -w / 2...w / 2
        }
    }

    /// `color` or the material, as the scene's `stroke.color` gives them.
    public var paint: Paint {
        get { material ? .material : .color(color) }
        set {
            switch newValue {
            case .material: material = true
            case .color(let c): (material, color) = (false, c)
            }
        }
    }
}

/// Which way the bevel runs: `up` (raised letters) or `down` (engraved: the loft's slope inverted).
public enum BevelDirection: String, Sendable, CaseIterable, Equatable {
    case up, down
}

/// A title's layer styles, drawn in Photoshop's order: drop shadow, outer glow, an
/// outside stroke, the title (tinted by the inner shadow and an inside stroke), a centred stroke.
public struct LayerStyles: Sendable, Equatable {
    /// Under everything: a lower third's plate behind the ink.
    public var plate: Plate? = nil
    public var dropShadow: DropShadow? = nil
    public var outerGlow: OuterGlow? = nil
    public var stroke: Stroke? = nil
    public var innerShadow: InnerShadow? = nil

    public init() {}

    public var isEmpty: Bool { plate == nil && dropShadow == nil && outerGlow == nil && stroke == nil && innerShadow == nil }

    /// Whether the drop shadow or the outer glow is knocked out under the title's ink.
    var knocksOut: Bool { dropShadow?.knockout == true || outerGlow?.knockout == true }

    /// An offset of `distance` away from a light at `angle` degrees (anticlockwise from
    /// the right, y up), on the canvas (y down).
    static func offset(angle: Double, distance: Double) -> SIMD2<Float> {
        let a = angle * .pi / 180
        return SIMD2(Float(-cos(a) * distance), Float(sin(a) * distance))
    }

    /// How far a spread-and-blurred edge of `size` reaches beyond the ½ contour (the
    /// box passes reach 3·round(size / 3) ≤ size + 1.5), plus a pixel of anti-aliasing.
    static func extent(size: Double) -> Int { Int(size.rounded(.up)) + 3 }

    /// The radius of each of the three box passes that approximate a blur of `size`:
    /// three passes of width 2r + 1 reach 3r, so r = size / 3.
    static func boxRadius(size: Double) -> Int { Int((size / 3).rounded()) }

    /// How far the styles reach beyond the title's region on each side, in pixels, for
    /// a region whose ink lies `inset` pixels inside its edges (the loft's margin).
    public func reach(inset: Int) -> (left: Int, top: Int, right: Int, bottom: Int) {
        var r = plate?.reach(inset: inset) ?? (left: 0, top: 0, right: 0, bottom: 0)
        func grow(_ e: Int, _ d: SIMD2<Float>) {
            let dx = Int(d.x.rounded(.awayFromZero)), dy = Int(d.y.rounded(.awayFromZero))
            r = (max(r.left, e - dx), max(r.top, e - dy), max(r.right, e + dx), max(r.bottom, e + dy))
        }
        if let s = dropShadow { grow(Self.extent(size: s.size), Self.offset(angle: s.angle, distance: s.distance)) }
        if let g = outerGlow { grow(Self.extent(size: g.size), .zero) }
        if let s = stroke, s.position != .inside {
            grow(Int((s.position == .center ? s.width / 2 : s.width).rounded(.up)) + 2, .zero)
        }
        return r
    }

    /// The settings the styles' masks are made from (not their colours, opacities or
    /// offsets, which are applied as they are drawn): while these and the shape stay,
    /// an animation's frames reuse the masks.
    struct MaskSettings: Equatable {
        var shadow: (size: Double, spread: Double)?
        var glow: (size: Double, spread: Double)?
        var stroke: (width: Double, position: Stroke.Position)?
        var inner: (size: Double, choke: Double)?
        /// A stroke in the title's metal: the loft its coverage gets.
        var strokeLoft: TitleShapeSettings?

        static func == (a: Self, b: Self) -> Bool {
            a.shadow.map { [$0.size, $0.spread] } == b.shadow.map { [$0.size, $0.spread] }
                && a.glow.map { [$0.size, $0.spread] } == b.glow.map { [$0.size, $0.spread] }
                && a.stroke?.width == b.stroke?.width && a.stroke?.position == b.stroke?.position
                && a.inner.map { [$0.size, $0.choke] } == b.inner.map { [$0.size, $0.choke] }
                && a.strokeLoft == b.strokeLoft
        }
    }

    func maskSettings(strokeLoft: TitleShapeSettings?) -> MaskSettings {
        MaskSettings(shadow: dropShadow.map { ($0.size, $0.spread) }, glow: outerGlow.map { ($0.size, $0.spread) },
                     stroke: stroke.map { ($0.width, $0.position) }, inner: innerShadow.map { ($0.size, $0.spread) },
                     strokeLoft: strokeLoft)
    }

    /// Why these styles cannot be drawn on a `width` × `height` canvas (a shadow or glow
    /// that reaches further than the canvas is wide or high), or nil.
    public func problem(canvasWidth width: Int, canvasHeight height: Int) -> String? {
        let side = max(width, height)
        if let s = dropShadow, s.distance + s.size > Double(side) {
            return "\"dropShadow\" reaches \(formatNumber(s.distance + s.size)) px (distance \(formatNumber(s.distance)) + size \(formatNumber(s.size))), further than the \(width)×\(height) canvas; use a smaller distance or size"
        }
        if let g = outerGlow, g.size > Double(side) {
            return "\"outerGlow\" reaches \(formatNumber(g.size)) px, further than the \(width)×\(height) canvas; use a smaller size"
        }
        return nil
    }

    /// `canvas` and `origin` (the title region's place on it) grown on each side the
    /// title sizes itself (`grow` per axis) by the styles' reach, so a shadow is not cut.
    func grown(canvas: (width: Int, height: Int), origin: (x: Int, y: Int), growWidth: Bool, growHeight: Bool, inset: Int)
        -> (canvas: (width: Int, height: Int), origin: (x: Int, y: Int)) {
        let r = reach(inset: inset)
        let l = growWidth ? r.left : 0, t = growHeight ? r.top : 0
        return ((canvas.width + l + (growWidth ? r.right : 0), canvas.height + t + (growHeight ? r.bottom : 0)),
                (origin.x + l, origin.y + t))
    }
}

extension RenderSettings {
    /// A text title's canvas as laid out (`canvas`), grown on its auto-sized sides to hold the layer styles.
    func canvasHoldingStyles(_ canvas: (width: Int, height: Int)) -> (width: Int, height: Int) {
        look.styles.grown(canvas: canvas, origin: (0, 0), growWidth: width == nil, growHeight: height == nil, inset: loftMargin).canvas
    }

    /// How many pixels the styles add to a title-sized canvas on its left, top, right and
    /// bottom (0 on a side whose size is given): what the canvas's size and the title's
    /// place on it depend on, besides the title's shape.
    public var stylesGrowth: [Int] {
        let r = look.styles.reach(inset: loftMargin), x = width == nil, y = height == nil
        return [x ? r.left : 0, y ? r.top : 0, x ? r.right : 0, y ? r.bottom : 0]
    }
}

/// A stroke in the title's metal (`stroke.color: "material"`) as a render draws it:
/// the loft its coverage gets, and this frame's shading lookup and point lights.
struct StrokeMetal {
    /// The title's loft fitted to the outline (`TitleShapeSettings.strokeLoft`).
    var loft: TitleShapeSettings
    var shading: ShadingLookup
    var lighting: PointLighting?
}

extension TitleShapeSettings {
    /// The loft of `stroke`'s coverage in the title's metal: the title's profile and bevel
    /// direction; its radius no wider than the band the outline shows (its whole width
    /// outside, where the letters hide the plate's inner side; half of it for an inside
    /// or centred ring, which rises from both edges), so that the outline shows its
    /// whole profile, edge to crest, rather than the foot of a ramp; and its scale cut
    /// by the same factor, so that its slopes, and so its normals and highlights, are
    /// the title's.
    func strokeLoft(_ stroke: Stroke) -> TitleShapeSettings {
        let band = stroke.position == .outside ? stroke.width : stroke.width / 2
        let fitted = min(radius, max(band, 1))
        var loft = TitleShapeSettings()
        (loft.radius, loft.scale, loft.profile, loft.bevel) = (fitted, scale * fitted / radius, profile, bevel)
        return loft
    }
}

/// The masks a title's styles are drawn from, kept between an animation's frames
/// while the title's shape and the styles' mask settings stay (`key`); and a metal
/// stroke as last shaded, kept while the shading lookup and point lights stay too.
final class LayerStyleCache {
    /// The point lights are in the key: they change the title's alpha at its edges, which the masks are made from.
    fileprivate var key: (shape: TitleShapeSettings, masks: LayerStyles.MaskSettings, origin: [Int], lighting: PointLighting?)?
    fileprivate var planes: LayerStylePlanes?
    fileprivate var metal: (shading: ShadingLookup, lighting: PointLighting?, image: Image<RGBA8>)?
    /// Where the metal outline's inked pixels sample the lookup (nil: not made, or too many pixels).
    fileprivate var metalPlan: ShadingPlan?
    /// A metal plate's last loft (`PlateShape.inMetal`).
    private(set) var plateLoft: (key: PlateLoftKey, mask: Mask, normals: SurfaceNormals)?
    /// How many times a metal plate was lofted into this cache (for tests).
    private(set) var plateLofts = 0

    /// Keeps a metal plate's loft just made.
    func keep(plateLoft: (key: PlateLoftKey, mask: Mask, normals: SurfaceNormals)?) {
        self.plateLoft = plateLoft
        plateLofts += 1
    }
    /// How many times the masks were made (for tests).
    private(set) var builds = 0
    /// How many times a metal stroke was shaded (for tests).
    private(set) var metalShadings = 0

    init() {}

    fileprivate func planes(for styles: LayerStyles, shape: TitleShapeSettings?, title: Image<RGBA8>,
                            origin: (x: Int, y: Int), strokeLoft: TitleShapeSettings?, lighting: PointLighting?) -> LayerStylePlanes {
        let masks = styles.maskSettings(strokeLoft: strokeLoft)
        let originKey = [origin.x, origin.y, title.width, title.height]
        if let shape, let key, let planes, key.shape == shape, key.masks == masks, key.origin == originKey,
           key.lighting == lighting {
            return planes
        }
        let made = LayerStylePlanes(styles, title: title, origin: origin, strokeLoft: strokeLoft)
        builds += 1
        (metal, metalPlan) = (nil, nil)
        if let shape {
            key = (shape, masks, originKey, lighting)
            planes = made
        }
        return made
    }

    /// The metal stroke of `planes` shaded by `stroke`'s lookup and lit by its point
    /// lights (straight alpha, over the stroke plane's bounds); reused when `kept` (the
    /// planes are this cache's) and the lookup and lights are those it was shaded with.
    fileprivate func shadedMetal(_ planes: LayerStylePlanes, _ stroke: StrokeMetal, kept: Bool) -> Image<RGBA8>? {
        guard let ring = planes.strokeMetal, let bounds = planes.stroke?.bounds else { return nil }
        if kept, let metal, metal.lighting == stroke.lighting, metal.shading == stroke.shading { return metal.image }
        if kept, var image = metal?.image, image.width == ring.coverage.width, image.height == ring.coverage.height {
            // A second frame of this outline: its inked pixels shaded through a plan, into the
            // last frame's image (the others are clear), as `FrameRenderer` shades the title.
            metal = nil
            if metalPlan.map({ !$0.fits(stroke.shading) }) ?? true {
                metalPlan = ShadingPlan(normals: ring.normals, coverage: ring.coverage, for: stroke.shading)
            }
            if let metalPlan {
                ShadedMaterial.shade(metalPlan, shading: stroke.shading, into: &image)
            } else {
                ShadedMaterial.shade(normals: ring.normals, coverage: ring.coverage, shading: stroke.shading, into: &image)
            }
            return lit(&image)
        }
        var image = Image<RGBA8>(width: ring.coverage.width, height: ring.coverage.height, repeating: .clear)
        ShadedMaterial.shade(normals: ring.normals, coverage: ring.coverage, shading: stroke.shading, into: &image)
        return lit(&image)

        /// The shaded outline lit by the point lights, counted, and kept.
        func lit(_ image: inout Image<RGBA8>) -> Image<RGBA8> {
            stroke.lighting?.apply(to: &image, originX: bounds.minX, originY: bounds.minY)
            metalShadings += 1
            if kept { metal = (stroke.shading, stroke.lighting, image) }
            return image
        }
    }
}

/// One mask of a style over `bounds` (canvas pixels; it may reach past the canvas):
/// all its rows, or (a streamed title's band) `rows` of them from `firstRow` on.
struct StylePlane {
    let bounds: PixelBounds
    let values: [Float]
    let firstRow: Int, rows: Int

    init(bounds: PixelBounds, values: [Float], firstRow: Int = 0) {
        self.bounds = bounds
        rows = bounds.width > 0 ? values.count / bounds.width : 0
        self.values = values.isEmpty ? [0] : values      // a pointer to read even when no row is held
        self.firstRow = firstRow
    }
}

/// A style plane read along one canvas row, offset by (`offset`): the offset is the
/// same for the whole row, so the bilinear weights and the two source rows are worked
/// out once and each pixel is four multiply-adds (0 outside the plane).
struct PlaneRow {
    let top: UnsafePointer<Float>?, bottom: UnsafePointer<Float>?
    let tx: Float, ty: Float
    /// The plane column under canvas column 0 of the row, and the plane's width.
    let start: Int, width: Int

    @inline(__always)
    init(_ v: UnsafePointer<Float>, _ plane: StylePlane, y: Int, offset: SIMD2<Float>, originX: Int) {
        let b = plane.bounds
        let (fy, fx) = Self.position(b, y: y, offset: offset, originX: originX)
        let y0 = Int(fy.rounded(.down)), x0 = Int(fx.rounded(.down))
        let held = y0 - plane.firstRow
        top = held >= 0 && held < plane.rows ? v + held * b.width : nil
        bottom = held + 1 >= 0 && held + 1 < plane.rows ? v + (held + 1) * b.width : nil
        ty = fy - Float(y0)
        tx = fx - Float(x0)
        start = x0
        width = b.width
    }

    /// Where canvas row `y`, column `originX` falls in a plane of `b` (from its top left), offset:
    /// the rows either side of it are blended.
    @inline(__always)
    static func position(_ b: PixelBounds, y: Int, offset: SIMD2<Float>, originX: Int) -> (y: Float, x: Float) {
        (Float(y - b.minY) - offset.y, Float(originX - b.minX) - offset.x)
    }

    /// The plane rows (from its top) that canvas rows `rows` read.
    static func sourceRows(_ b: PixelBounds, _ rows: Range<Int>, offset: SIMD2<Float>) -> Range<Int> {
        let first = Int(position(b, y: rows.lowerBound, offset: offset, originX: 0).y.rounded(.down))
        let last = Int(position(b, y: rows.upperBound - 1, offset: offset, originX: 0).y.rounded(.down)) + 1
        return first..<(last + 1)
    }

    @inline(__always)
    func value(_ column: Int) -> Float {
        let i = start + column
        guard i >= 0, i + 1 < width else { return 0 }     // a plane's outer pixels are 0
        let a = top.map { $0[i] * (1 - tx) + $0[i + 1] * tx } ?? 0
        let c = bottom.map { $0[i] * (1 - tx) + $0[i + 1] * tx } ?? 0
        return a * (1 - ty) + c * ty
    }
}

/// How one style's mask is made from the title's coverage placed in the region grown
/// by `growth`: `shape`, a step of the distance field (a spread or choke, a stroke's
/// band), then three box passes of `blurRadius`.
struct PlaneRecipe {
    let growth: Int
    let shape: ((Mask) -> [Float])?
    /// Rows either side of a row whose coverage `shape`'s value there can depend on.
    let shapeReach: Int
    let blurRadius: Int

    /// A spread (`spread` > 0, a fraction of `size`) or choke (< 0), blurred by the rest of `size`.
    static func blurred(size: Double, spread: Double) -> PlaneRecipe {
        let hard = Float(size * spread)
        return PlaneRecipe(growth: LayerStyles.extent(size: size),
                           shape: abs(hard) >= 0.5 ? { LayerStylePlanes.shifted($0, by: hard).pixels } : nil,
                           shapeReach: SignedDistanceField.rowsReached(reach: abs(hard) + 2),
                           blurRadius: LayerStyles.boxRadius(size: size * (1 - abs(spread))))
    }

    static func stroke(_ s: Stroke) -> PlaneRecipe {
        let width = Float(s.width)
        return PlaneRecipe(growth: s.position == .inside ? 0 : Int(s.width.rounded(.up)) + 2,
                           shape: { LayerStylePlanes.stroke($0, width: width, position: s.position) },
                           shapeReach: SignedDistanceField.rowsReached(reach: width + 2), blurRadius: 0)
    }

    /// The bounds of the mask of a title whose region is `region`.
    func bounds(_ region: PixelBounds) -> PixelBounds {
        PixelBounds(minX: region.minX - growth, minY: region.minY - growth, maxX: region.maxX + growth,
                    maxY: region.maxY + growth)
    }
}

extension LayerStyles {
    /// How each style's mask is made (`LayerStylePlanes.Kind` order: drop shadow, outer glow, stroke, inner shadow).
    var recipes: [PlaneRecipe?] {
        // The inner shadow's coverage is what is outside the choked letters, blurred: kept as the
        // choked letters blurred (1 − it is the shadow), so that beyond the bounds it is 0.
        [dropShadow.map { .blurred(size: $0.size, spread: $0.spread / 100) },
         outerGlow.map { .blurred(size: $0.size, spread: $0.spread / 100) },
         stroke.map { .stroke($0) },
         innerShadow.map { .blurred(size: $0.size, spread: -$0.spread / 100) }]
    }

    /// Where each style's mask is read from, as it is drawn (`Kind` order).
    var offsets: [SIMD2<Float>] {
        [dropShadow.map { Self.offset(angle: $0.angle, distance: $0.distance) } ?? .zero, .zero, .zero,
         innerShadow.map { Self.offset(angle: $0.angle, distance: $0.distance) } ?? .zero]
    }
}

/// The masks of a title's styles, made from its coverage (its shaded region's alpha).
struct LayerStylePlanes {
    enum Kind: Int, CaseIterable { case shadow, glow, stroke, inner }
    var planes: [StylePlane?] = [nil, nil, nil, nil]
    var shadow: StylePlane? { planes[Kind.shadow.rawValue] }
    var glow: StylePlane? { planes[Kind.glow.rawValue] }
    var stroke: StylePlane? { planes[Kind.stroke.rawValue] }
    var inner: StylePlane? { planes[Kind.inner.rawValue] }

    init(planes: [StylePlane?]) { self.planes = planes }
    /// A stroke in the title's metal: the coverage it is lofted and shaded from (the
    /// stroke plane's, clipped to the ink for an inside ring) and its normals.
    var strokeMetal: (coverage: Mask, normals: SurfaceNormals)?

    init(_ styles: LayerStyles, title: Image<RGBA8>, origin: (x: Int, y: Int), strokeLoft: TitleShapeSettings? = nil) {
        let region = PixelBounds(minX: origin.x, minY: origin.y, maxX: origin.x + title.width - 1,
                                 maxY: origin.y + title.height - 1)
        // Each plane by the streamed planes' steps, the whole title one band.
        planes = styles.recipes.map { recipe in recipe.map { StreamedStylePlane.whole($0, title: title, region: region) } }
        if let s = styles.stroke, let strokeLoft, let plane = stroke {
            strokeMetal = Self.metalOutline(ring: Mask(width: plane.bounds.width, height: plane.bounds.height, pixels: plane.values),
                                            ink: Self.coverage(title, region, plane.bounds), stroke: s,
                                            loft: strokeLoft)
        }
    }

    /// A metal stroke's coverage and normals, from its plane's values (`ring`) and the
    /// title's coverage over the same pixels (`ink`): the whole plane, or a window of a
    /// streamed one's rows (`StreamedMetalOutline`), whose rows away from its edges are the whole's.
    /// The liquid loft lofts the ring's coverage (soft joins, where outlines melt together);
    /// chisel and round loft the stroke's band of the letters' own distance field
    /// (`HeightFieldFromMask.outputImage(_:band:)`): each letter's outline keeps its
    /// bevel, two outlines that meet keep a crease between them, and inner corners are mitred.
    static func metalOutline(ring: Mask, ink: Mask, stroke: Stroke,
                             loft strokeLoft: TitleShapeSettings) -> (coverage: Mask, normals: SurfaceNormals) {
        var ring = ring
        let position = stroke.position
        if position == .inside {
            // The inside plane is 1 beyond the letters too (the ink clips it as it is drawn).
            ring = Mask(width: ring.width, height: ring.height, pixels: zip(ring.pixels, ink.pixels).map { min($0, $1) })
        }
        let heights: HeightField, material: ShadedMaterial
        if strokeLoft.profile == .liquid {
            let loft = TitleShape.lofted(ring, strokeLoft, keepingNormals: false)
            (heights, material) = (loft.heights, loft.material)
        } else {
            heights = HeightFieldFromMask(inputRadius: Float(strokeLoft.radius), inputProfile: strokeLoft.profile)
                .outputImage(ink, band: stroke.band)
            material = ShadedMaterial(inputScale: Float(strokeLoft.normalScale))
        }
        if position == .outside {
            // Lofted whole, shaded only where the title does not hide it (a fifth of it at 8 px).
            ring = Mask(width: ring.width, height: ring.height, pixels: zip(ring.pixels, ink.pixels).map { $1 < 1 ? $0 : 0 })
        }
        return (ring, material.normals(of: heights, coverage: ring))
    }

    /// Rows either side of a metal stroke's row whose plane values and coverage its loft's
    /// normals there can depend on: the loft's reach (the liquid blur's; for chisel and
    /// round, the distance field's across the stroke's band and along the skirt) and the
    /// row either side the normals take.
    static func metalReach(_ loft: TitleShapeSettings, stroke: Stroke) -> Int {
        let radius = Float(loft.radius)
        if loft.profile == .liquid { return GaussianBlur(sigma: HeightFieldFromMask.liquidSigma * radius).reach + 1 }
        let reach = HeightFieldFromMask.bandReach(stroke.band, radius: radius)
        return SignedDistanceField.rowsReached(reach: max(reach.inside, reach.outside)) + 1
    }

    /// The title's coverage (alpha) placed in `bounds`, zero around it.
    private static func coverage(_ title: Image<RGBA8>, _ region: PixelBounds, _ bounds: PixelBounds) -> Mask {
        var mask = Mask(width: bounds.width, height: bounds.height, repeating: 0)
        let dx = region.minX - bounds.minX, dy = region.minY - bounds.minY, tw = title.width
        title.withUnsafeBufferPointer { t in
            mask.withUnsafeMutableBufferPointer { m in
                parallelBands(title.height, minimumBand: 16) { rows in
                    for y in rows {
                        let source = t.baseAddress! + y * tw, target = m.baseAddress! + (y + dy) * bounds.width + dx
                        for x in 0..<tw { target[x] = Float(source[x].a) * (1 / 255) }
                    }
                }
            }
        }
        return mask
    }

    /// The mask's edge (its ½ contour) moved out by `by` pixels (in when negative), anti-aliased.
    static func shifted(_ mask: Mask, by: Float) -> Mask {
        let sdf = SignedDistanceField(mask: mask, reachInside: max(-by, 0) + 2, reachOutside: max(by, 0) + 2)
        var out = mask
        let reach = max(by, 0) + 2
        out.withUnsafeMutableBufferPointer { o in
            parallelBands(mask.height, minimumBand: 16) { rows in
                for y in rows {
                    for x in 0..<mask.width {
                        let d = sdf.distance(x: x, y: y, reachOutside: reach)
                        o[y * mask.width + x] = min(max(0.5 + by + d, 0), 1)
                    }
                }
            }
        }
        return out
    }

    /// A stroke's coverage: a band of `width` beyond, within or across the ½ contour.
    static func stroke(_ mask: Mask, width: Float, position: Stroke.Position) -> [Float] {
        let sdf = SignedDistanceField(mask: mask, reachInside: width + 2, reachOutside: width + 2)
        var values = mask.pixels
        let w = mask.width
        values.withUnsafeMutableBufferPointer { v in
            parallelBands(mask.height, minimumBand: 16) { rows in
                for y in rows {
                    for x in 0..<w {
                        let d = sdf.distance(x: x, y: y, reachOutside: width + 2)
                        let a: Float
                        switch position {
                        case .outside: a = 0.5 + width + d            // under the title: all of the ink too
                        case .inside: a = 0.5 + width - d             // over the title, clipped to its ink
                        case .center: a = 0.5 + width / 2 - abs(d)
                        }
                        v[y * w + x] = min(max(a, 0), 1)
                    }
                }
            }
        }
        return values
    }
}

extension LayerStyles {
    /// The title's shaded region (`title`, straight alpha, at `origin`) with its styles
    /// drawn under and over it: a larger region, clipped to the `canvas`, and where it
    /// sits. The one compositing step of the styles, used by every render through
    /// `Compositing`; `cache` keeps the masks for a title of the `shape` settings. A
    /// stroke in the title's metal is lofted and shaded as `metal` says (nil: drawn in its colour).
    /// `knockout`: what the drop shadow and outer glow are knocked out under (`drawn`).
    func applied(to title: Image<RGBA8>, at origin: (x: Int, y: Int), canvas: (width: Int, height: Int),
                 cache: LayerStyleCache?, shape: TitleShapeSettings?, metal: StrokeMetal? = nil,
                 lighting: PointLighting? = nil, knockout: Image<RGBA8>? = nil,
                 plate: PlateShape? = nil) -> (content: Image<RGBA8>, origin: (x: Int, y: Int)) {
        guard title.width > 0, title.height > 0 else { return (title, origin) }
        let region = PixelBounds(minX: origin.x, minY: origin.y, maxX: origin.x + title.width - 1,
                                 maxY: origin.y + title.height - 1)
        guard let box = drawnBox(region, canvas: canvas, plate: plate) else { return (title, origin) }
        let metal = stroke?.material == true ? metal : nil
        let styleCache = cache ?? LayerStyleCache()
        let planes = styleCache.planes(for: self, shape: shape, title: title, origin: origin, strokeLoft: metal?.loft,
                                       lighting: lighting)
        let metalImage = metal.flatMap { styleCache.shadedMetal(planes, $0, kept: cache != nil && shape != nil) }
        return (drawn(title, at: origin, planes: planes, box: box, metal: metalImage, knockout: knockout, plate: plate),
                (box.minX, box.minY))
    }

    /// The region drawn for a title whose region is `region`: the title's, each style's
    /// mask where it falls, and the `plate`, clipped to the canvas (nil: none of it is on the canvas).
    func drawnBox(_ region: PixelBounds, canvas: (width: Int, height: Int), plate: PlateShape? = nil) -> PixelBounds? {
        var box = region
        func include(_ b: PixelBounds, _ d: SIMD2<Float>) {
            box = PixelBounds(minX: min(box.minX, b.minX + Int(d.x.rounded(.down))), minY: min(box.minY, b.minY + Int(d.y.rounded(.down))),
                              maxX: max(box.maxX, b.maxX + Int(d.x.rounded(.up))), maxY: max(box.maxY, b.maxY + Int(d.y.rounded(.up))))
        }
        // The inner shadow is clipped to the title's ink.
        for kind in [LayerStylePlanes.Kind.shadow, .glow, .stroke] {
            if let recipe = recipes[kind.rawValue] { include(recipe.bounds(region), offsets[kind.rawValue]) }
        }
        if let plate { include(plate.bounds, .zero) }
        box = PixelBounds(minX: max(box.minX, 0), minY: max(box.minY, 0),
                          maxX: min(box.maxX, canvas.width - 1), maxY: min(box.maxY, canvas.height - 1))
        return box.width > 0 && box.height > 0 ? box : nil
    }

    /// The rows of `box` (canvas pixels) with the styles drawn from `planes` under and
    /// over `title` (lit, straight alpha, at `origin`; clear beyond it): a whole title's
    /// region, or a band of a streamed one's, whose planes hold the rows the band reads.
    /// `metal`: a stroke's shaded outline over the stroke plane's bounds, from its row
    /// `metalFirstRow` (a streamed band's rows) on (nil: its colour).
    /// A drop shadow and an outer glow with `knockout` are hidden under the title's ink in
    /// proportion to its coverage: the alpha of `knockout` (the title's size and place, its
    /// letters at full alpha: a reveal's), else of `title` itself.
    func drawn(_ title: Image<RGBA8>, at origin: (x: Int, y: Int), planes: LayerStylePlanes, box: PixelBounds,
               metal metalImage: Image<RGBA8>? = nil, metalFirstRow: Int = 0, knockout: Image<RGBA8>? = nil,
               plate: PlateShape? = nil) -> Image<RGBA8> {
        let shadowOffset = offsets[LayerStylePlanes.Kind.shadow.rawValue]
        let innerOffset = offsets[LayerStylePlanes.Kind.inner.rawValue]
        var out = Image<RGBA8>(width: box.width, height: box.height, repeating: .clear)
        let layers = StyleColors(self)
        let empty = StylePlane(bounds: PixelBounds(minX: 0, minY: 0, maxX: -1, maxY: -1), values: [0])
        let shadow = planes.shadow ?? empty, glow = planes.glow ?? empty, stroke = planes.stroke ?? empty
        let inner = planes.inner ?? empty
        let metalPixels = metalImage ?? Image<RGBA8>(width: 1, height: 1, repeating: .clear)
        let strokePosition = self.stroke?.position
        let onlyUnder = innerShadow == nil && (strokePosition == nil || strokePosition == .outside)
        let plateBounds = plate?.bounds ?? PixelBounds(minX: 0, minY: 0, maxX: -1, maxY: -1)
        precondition(knockout.map { $0.width == title.width && $0.height == title.height } ?? true, "The knock-out is not the title's size")
        let ink = knockout ?? title
        let knocks = layers.shadowKnocks && planes.shadow != nil || layers.glowKnocks && planes.glow != nil
        title.withUnsafeBufferPointer { t in
        ink.withUnsafeBufferPointer { k in
        shadow.values.withUnsafeBufferPointer { sv in
        glow.values.withUnsafeBufferPointer { gv in
        stroke.values.withUnsafeBufferPointer { kv in
        inner.values.withUnsafeBufferPointer { iv in
        metalPixels.withUnsafeBufferPointer { mv in
        out.withUnsafeMutableBufferPointer { o in
            parallelBands(box.height, minimumBand: 8) { rows in
                for row in rows {
                    let y = row + box.minY
                    let target = o.baseAddress! + row * box.width
                    let ty = y - origin.y
                    let shadowRow = PlaneRow(sv.baseAddress!, shadow, y: y, offset: shadowOffset, originX: box.minX)
                    let glowRow = PlaneRow(gv.baseAddress!, glow, y: y, offset: .zero, originX: box.minX)
                    let strokeRow = PlaneRow(kv.baseAddress!, stroke, y: y, offset: .zero, originX: box.minX)
                    let innerRow = PlaneRow(iv.baseAddress!, inner, y: y, offset: innerOffset, originX: box.minX)
                    // A metal stroke's shaded row (its image has the stroke plane's bounds), or nil.
                    let metalY = y - stroke.bounds.minY - metalFirstRow
                    let metalRow = metalImage != nil && metalY >= 0 && metalY < metalPixels.height
                        ? mv.baseAddress! + metalY * stroke.bounds.width : nil
                    let plateRow = y >= plateBounds.minY && y <= plateBounds.maxY
                    for column in 0..<box.width {
                        let tx = column + box.minX - origin.x
                        let inside = ty >= 0 && ty < title.height && tx >= 0 && tx < title.width
                        let p = inside ? t[ty * title.width + tx] : .clear
                        // An opaque title pixel hides what is under it.
                        if p.a == 255 && onlyUnder {
                            target[column] = p
                            continue
                        }
                        var acc = SIMD4<Float>.zero          // premultiplied rgb, alpha
                        @inline(__always) func over(_ c: SIMD3<Float>, _ a: Float) {
                            guard a > 0 else { return }
                            acc = PixelStack.over(SIMD4(c * a, a), acc)
                        }
                        // What of the shadow and glow the ink leaves (1: all, where there is none).
                        let bare = knocks && inside ? 1 - Float(k[ty * title.width + tx].a) * (1 / 255) : 1
                        if let plate, plateRow {
                            let x = column + box.minX
                            if x >= plateBounds.minX && x <= plateBounds.maxX {
                                let c = plate.coverage(x: x, y: y)
                                if let metal = plate.metal {
                                    let mx = x - plate.metalOrigin.x, my = y - plate.metalOrigin.y
                                    if mx >= 0, my >= 0, mx < metal.width, my < metal.height {
                                        let q = metal[mx, my]
                                        over(SIMD3(Float(q.r), Float(q.g), Float(q.b)) * (1 / 255), plate.opacity * Float(q.a) * (1 / 255))
                                    }
                                } else {
                                    over(plate.color, plate.opacity * c)
                                }
                                if plate.bar != nil { over(plate.barColor, plate.barOpacity * min(c, plate.barCoverage(x: x, y: y))) }
                            }
                        }
                        if planes.shadow != nil {
                            over(layers.shadow, layers.shadowOpacity * shadowRow.value(column) * (layers.shadowKnocks ? bare : 1))
                        }
                        if planes.glow != nil {
                            over(layers.glow, layers.glowOpacity * glowRow.value(column) * (layers.glowKnocks ? bare : 1))
                        }
                        var strokeA: Float = 0
                        var strokeColour = layers.stroke
                        if metalImage != nil {
                            let sx = column + box.minX - stroke.bounds.minX
                            if let metalRow, sx >= 0, sx < stroke.bounds.width, metalRow[sx].a > 0 {
                                let q = metalRow[sx]
                                strokeColour = SIMD3(Float(q.r), Float(q.g), Float(q.b)) * (1 / 255)
                                strokeA = layers.strokeOpacity * Float(q.a) * (1 / 255)
                            }
                        } else if planes.stroke != nil {
                            strokeA = layers.strokeOpacity * strokeRow.value(column)
                        }
                        if strokePosition == .outside { over(strokeColour, strokeA) }
                        let ta = Float(p.a) * (1 / 255)
                        var colour = SIMD3(Float(p.r), Float(p.g), Float(p.b)) * (1 / 255)
                        // The inner shadow and an inside stroke are clipped to the ink (Photoshop's
                        // source-atop): they tint the title's colour and leave its alpha.
                        if planes.inner != nil, ta > 0 {
                            let lit = innerRow.value(column)
                            colour += (layers.inner - colour) * (layers.innerOpacity * (1 - min(lit, 1)))
                        }
                        if strokePosition == .inside { colour += (strokeColour - colour) * strokeA }
                        over(colour, ta)
                        if strokePosition == .center { over(strokeColour, strokeA) }
                        guard acc.w > 0 else { continue }
                        target[column] = PixelStack.pixel(acc)
                    }
                }
            }
        }
        }
        }
        }
        }
        }
        }
        }
        return out
    }
}

/// The styles' colours and opacities as the drawing loop takes them.
private struct StyleColors {
    var shadow = SIMD3<Float>.zero, glow = SIMD3<Float>.zero, stroke = SIMD3<Float>.zero, inner = SIMD3<Float>.zero
    var shadowOpacity: Float = 0, glowOpacity: Float = 0, strokeOpacity: Float = 0, innerOpacity: Float = 0
    /// Whether the shadow and the glow are knocked out under the ink.
    var shadowKnocks = false, glowKnocks = false

    init(_ styles: LayerStyles) {
        func rgb(_ c: RGBColor) -> SIMD3<Float> { SIMD3(c.r, c.g, c.b) }
        if let s = styles.dropShadow { (shadow, shadowOpacity, shadowKnocks) = (rgb(s.color), Float(s.opacity), s.knockout) }
        if let g = styles.outerGlow { (glow, glowOpacity, glowKnocks) = (rgb(g.color), Float(g.opacity), g.knockout) }
        if let s = styles.stroke { (stroke, strokeOpacity) = (rgb(s.color), Float(s.opacity)) }
        if let i = styles.innerShadow { (inner, innerOpacity) = (rgb(i.color), Float(i.opacity)) }
    }
}

/// Box blurs of a float plane's rows, zero beyond its ends: three passes along and down
/// (`StreamedBoxPass`) approximate a Gaussian at a cost that does not grow with the
/// radius (a style's size reaches 250 px, a Gaussian kernel of that reach would cost 60
/// times more).
enum BoxBlur {
    /// One row blurred along itself, in place, through `line` (zeroed, `width` + 2·`radius` + 1 values).
    @inline(__always)
    static func blurRow(_ row: UnsafeMutablePointer<Float>, width: Int, radius: Int, line: UnsafeMutableBufferPointer<Float>) {
        let scale = 1 / Float(2 * radius + 1)
        for x in 0..<width { line[x + radius + 1] = row[x] }
        // line[i] holds pixel i − radius − 1 (zero padding at both ends).
        var sum: Float = 0
        for i in 1...(2 * radius + 1) { sum += line[min(i, width + 2 * radius)] }
        for x in 0..<width {
            row[x] = sum * scale
            let add = x + 2 * radius + 2
            sum += (add < line.count ? line[add] : 0) - line[x + 1]
        }
    }
}
