/// A title's shape: its coverage (the mask, cut to the ink plus the margin), where
/// that sits on the canvas, its heights and normals. Built by one function from the
/// settings that shape it (`RenderSettings.shape`); every render that needs a whole
/// shape (a still, an animation's frames, the height and normal maps, physics
/// letters and ropes) builds it here. A title too large to hold is made a band of
/// rows at a time by `BandLoft`, each band a `TitleShape` of its rows, with the same
/// pixels; either way the renderer takes the shape from a `TitleShapeSource`.
public struct TitleShape: Sendable {
    /// The coverage (of the band's rows, for a band).
    public var mask: Mask
    /// Where the mask's first pixel sits on the canvas.
    public var origin: (x: Int, y: Int)
    public var canvas: (width: Int, height: Int)
    public var warnings: [MercurialWarning]
    public var heights: HeightField
    /// The height of the profile's plateau (where a wide enough stroke levels off).
    public var plateau: Float
    /// The unit normals, kept for a shape shaded again and again; nil for a still,
    /// whose normals are taken from the heights as it is shaded.
    public var normals: SurfaceNormals?
    public let material: ShadedMaterial
    /// The look each pixel of `mask` is shaded with (styled runs); nil: the title's alone.
    public var looks: LookPlane? = nil
    /// The colours colour emoji keep over `mask` (`emoji: "color"`), put on once it is shaded; nil: none.
    public var paint: PaintPlane? = nil
    /// Whether `paint` replaces the shaded colours (an image in its own) rather than lighting them.
    public var paintIsFlat = false
    /// For a band of a large title: which of its region's rows this shape holds (its
    /// heights reach one row further either side). Nil: the whole title.
    var band: ShadedMaterial.Rows? = nil

    public enum Stage { case mask, heights }

    /// The shape of `settings`' title, from a title mask already made (`premade`) or
    /// made here; `finished` hears each stage end (for timings).
    static func build(_ settings: RenderSettings, premade: TitleRenderer.TitleMask? = nil, keepingNormals: Bool,
                      finished: (Stage) -> Void = { _ in }) throws(MercurialError) -> TitleShape {
        let made: TitleRenderer.TitleMask
        if let premade { made = premade } else { made = try TitleRenderer.titleMask(settings) }
        finished(.mask)
        var shape = lofted(made.mask, settings.shape, keepingNormals: keepingNormals, paint: made.paint)
        (shape.origin, shape.canvas, shape.warnings, shape.looks, shape.paint) = (made.origin, made.canvas, made.warnings, made.looks, made.paint)
        shape.paintIsFlat = made.paintIsFlat
        // A canvas sized to the text grows to hold the layer styles (a mask's canvas is its own size).
        if settings.mask == nil {
            (shape.canvas, shape.origin) = settings.look.styles.grown(canvas: shape.canvas, origin: shape.origin,
                                                                      growWidth: settings.width == nil,
                                                                      growHeight: settings.height == nil,
                                                                      inset: settings.loftMargin)
        }
        // A canvas the user sized (or a mask's) may be too small for a shadow or glow; an auto-sized one grew to hold it.
        let sized = settings.mask != nil || settings.width != nil || settings.height != nil
        if sized, let problem = settings.look.styles.problem(canvasWidth: shape.canvas.width, canvasHeight: shape.canvas.height) {
            throw MercurialError(problem)
        }
        finished(.heights)
        return shape
    }

    /// The shape of a coverage mask of its own (a physics letter, a rope) at the canvas's origin.
    /// `paint`: a colour emoji's kept colours, whose luminance cues its heights (`ShadedMaterial.cue`).
    static func lofted(_ mask: Mask, _ settings: TitleShapeSettings, keepingNormals: Bool = true,
                       paint: PaintPlane? = nil) -> TitleShape {
        let loft = HeightFieldFromMask(inputRadius: Float(settings.radius), inputProfile: settings.profile)
        let material = ShadedMaterial(inputScale: Float(settings.normalScale))
        var heights = loft.outputImage(mask)
        if let paint {
            heights.withUnsafeMutableBufferPointer { h in
                paint.withUnsafeBufferPointer { ShadedMaterial.cue(h, width: paint.width, by: $0.baseAddress!, rows: paint.height) }
            }
        }
        return TitleShape(mask: mask, origin: (0, 0), canvas: (mask.width, mask.height), warnings: [],
                          heights: heights, plateau: loft.plateau,
                          normals: keepingNormals ? material.normals(of: heights, coverage: mask) : nil,
                          material: material)
    }

    /// A shape with nothing in it: what a renderer holds while it builds another.
    static let none = TitleShape(mask: Mask(width: 0, height: 0, repeating: 0), origin: (0, 0), canvas: (0, 0), warnings: [],
                                 heights: HeightField(width: 0, height: 0, repeating: 0), plateau: 0, normals: nil,
                                 material: ShadedMaterial())

    /// The normals, kept or taken now.
    public var keptNormals: SurfaceNormals { normals ?? material.normals(of: heights, coverage: mask) }

    /// The shape shaded by the one shading loop, its normals taken from the heights as
    /// it goes: the title's region, or this band of it (one image row a mask row).
    /// `into` is reused when it has the size.
    func shaded(_ shading: ShadingLookup, background: RGBColor?, into title: inout Image<RGBA8>) {
        material.shade(heights: heights, coverage: mask, looks: looks, rows: band ?? .whole(mask), shading: shading,
                       background: background, into: &title)
        if let paint { ShadedMaterial.paint(paint, onto: &title, flat: paintIsFlat) }
    }
}

/// Where a renderer takes a title's shape from: whole (a `TitleShape`, one band) or,
/// for a title too large to hold, a band of rows at a time (`BandLoft`), as a libvips
/// sink pulls rows through its pipeline.
protocol TitleShapeSource {
    /// Calls `body` with each band's shape, from the top.
    func shapes(_ body: (TitleShape) throws(MercurialError) -> Void) throws(MercurialError)
}

extension TitleShape: TitleShapeSource {
    func shapes(_ body: (TitleShape) throws(MercurialError) -> Void) throws(MercurialError) { try body(self) }
}
