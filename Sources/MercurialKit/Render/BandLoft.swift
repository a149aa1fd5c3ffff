/// The shape of a title too large to hold, made a band of rows at a time from a
/// stream of mask rows: each band a `TitleShape` of its rows, its heights those of the
/// one loft (`LoftRows`, of which a whole mask is one run), so the pixels are those of
/// the whole mask's (the renderer shades and composes it as it does a whole title's shape).
///
/// Each band of output rows needs the heights of its rows and one row either side
/// (the Sobel normals), and those the mask rows within the profile's reach
/// (`LoftRows.halo`): the ring of mask rows (and, for liquid, of blurred-across rows)
/// holds a band plus twice the halo, so memory grows with the width and the radius,
/// not the height.
final class BandLoft: TitleShapeSource {
    let width: Int, height: Int
    let ink: PixelBounds
    let bandHeight: Int
    let radius: Float
    let profile: LoftProfile
    let scale: Float
    /// The mask's rows (of the crop), in order.
    let source: any CoverageRowSource
    /// Where the crop sits on the canvas, and the canvas's size.
    let origin: (x: Int, y: Int), canvas: (width: Int, height: Int)

    /// The loft of `crop` (a region of a `canvas`-sized canvas) whose ink is `ink`
    /// (within the crop), its rows read from `source`.
    init(settings: TitleShapeSettings, source: any CoverageRowSource, crop: PixelBounds, ink: PixelBounds,
         canvas: (width: Int, height: Int), bandHeight: Int) {
        width = crop.width
        height = crop.height
        origin = (crop.minX, crop.minY)
        self.canvas = canvas
        self.source = source
        self.ink = ink
        self.bandHeight = bandHeight
        radius = Float(settings.radius)
        profile = settings.profile
        scale = Float(settings.normalScale)
    }

    /// Calls `body` with the shape of each band of rows, from the top.
    func shapes(_ body: (TitleShape) throws(MercurialError) -> Void) throws(MercurialError) {
        while let shape = try next() { try body(shape) }
    }

    /// The state of the walk down the bands (made at the first `next`).
    private struct Walk {
        let halo: Int, capacity: Int
        let loft: LoftRows
        let coverage: UnsafeMutableBufferPointer<Float>
        let rows: LoftRows.MaskRows
        let material: ShadedMaterial
        // A band's heights and coverage, reused from band to band (the shape given out
        // is gone by the next, so they are not copied).
        var heights: HeightField
        var mask: Mask
        var loaded = 0
        var b0 = 0
    }
    private var walk: Walk?

    deinit { walk?.coverage.deallocate() }

    /// The shape of the next band of rows (nil after the last): the band's rows of the
    /// one loft (`LoftRows`), the mask rows within its reach held in a ring. A renderer
    /// pulls the bands one at a time, so that several titles (a scene's layers) go down
    /// the canvas together.
    func next() throws(MercurialError) -> TitleShape? {
        let B = bandHeight
        if walk == nil {
            let halo = LoftRows.halo(radius: radius, profile: profile)
            let capacity = min(B + 2 * halo + 4, height)
            let loft = LoftRows(radius: radius, profile: profile, width: width, height: height, ink: ink,
                                rowsHeld: capacity, runRows: B + 2)
            let coverage = UnsafeMutableBufferPointer<Float>.allocate(capacity: capacity * width)
            walk = Walk(halo: halo, capacity: capacity, loft: loft, coverage: coverage,
                        rows: LoftRows.MaskRows(base: coverage.baseAddress!, capacity: capacity, width: width),
                        material: ShadedMaterial(inputScale: scale),
                        heights: HeightField(width: width, height: 0, repeating: 0),
                        mask: Mask(width: width, height: 0, repeating: 0))
        }
        guard var w = walk, w.b0 < height else { return nil }
        // Moved out while the band is made, so that its images are not copied on write.
        walk!.heights = HeightField(width: 0, height: 0, repeating: 0)
        walk!.mask = Mask(width: 0, height: 0, repeating: 0)
        let b0 = w.b0, b1 = min(b0 + B, height)
        let hyLo = max(b0 - 1, 0), hyHi = min(b1 + 1, height)
        let needed = min(height, max(b1, hyHi + w.halo))
        // Read the new mask rows.
        let firstNew = w.loaded
        while w.loaded < needed {
            try source.read(into: w.coverage.baseAddress! + (w.loaded % w.capacity) * width)
            w.loaded += 1
        }
        w.loft.arrived(firstNew..<w.loaded, w.rows)
        // The heights of rows hyLo..<hyHi.
        if w.heights.height != hyHi - hyLo { w.heights = HeightField(width: width, height: hyHi - hyLo, repeating: 0) }
        let (loft, rows, loaded) = (w.loft, w.rows, w.loaded)
        let styled = source.styled
        // A colour emoji's kept colours over the heights' rows (they hold the band's rows): its
        // luminance cues its heights, as a whole title's (`TitleShape.lofted`), and the band is painted with them.
        var painted: [RGBA8]? = nil
        if styled.paint {
            var rowsPaint = [RGBA8](repeating: .clear, count: (hyHi - hyLo) * width)
            rowsPaint.withUnsafeMutableBufferPointer { p in
                for y in hyLo..<hyHi { source.paint(ofRow: y, into: p.baseAddress! + (y - hyLo) * width) }
            }
            painted = rowsPaint
        }
        w.heights.withUnsafeMutableBufferPointer { heights in
            loft.heights(hyLo..<hyHi, rows, loaded: loaded, into: heights)
            painted?.withUnsafeBufferPointer { ShadedMaterial.cue(heights, width: width, by: $0.baseAddress!, rows: hyHi - hyLo) }
        }
        // The coverage of rows b0..<b1.
        if w.mask.height != b1 - b0 { w.mask = Mask(width: width, height: b1 - b0, repeating: 0) }
        w.mask.withUnsafeMutableBufferPointer { mask in
            for y in b0..<b1 { (mask.baseAddress! + (y - b0) * width).update(from: rows.row(y), count: width) }
        }
        // The looks of rows b0..<b1 (styled runs), or none.
        var looks: LookPlane? = nil, paint: PaintPlane? = nil
        if styled.looks {
            var plane = LookPlane(width: width, height: b1 - b0, repeating: 0)
            plane.withUnsafeMutableBufferPointer { out in
                for y in b0..<b1 { source.looks(ofRow: y, into: out.baseAddress! + (y - b0) * width) }
            }
            looks = plane
        }
        if let painted {
            paint = PaintPlane(width: width, height: b1 - b0, pixels: Array(painted[((b0 - hyLo) * width)..<((b1 - hyLo) * width)]))
        }
        w.b0 = b1
        walk = w
        var shape = TitleShape(mask: w.mask, origin: (origin.x, origin.y + b0), canvas: canvas, warnings: [],
                               heights: w.heights, plateau: HeightFieldFromMask.plateau(of: profile), normals: nil,
                               material: w.material,
                               band: ShadedMaterial.Rows(rows: b0..<b1, regionHeight: height, heightsFrom: hyLo, ink: ink))
        (shape.looks, shape.paint) = (looks, paint)
        return shape
    }
}
