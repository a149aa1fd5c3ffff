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

    /// Calls `body` with the shape of each band of rows, from the top: the band's rows
    /// of the one loft (`LoftRows`), the mask rows within its reach held in a ring.
    func shapes(_ body: (TitleShape) throws(MercurialError) -> Void) throws(MercurialError) {
        let B = bandHeight
        let halo = LoftRows.halo(radius: radius, profile: profile)
        let capacity = min(B + 2 * halo + 4, height)
        let loft = LoftRows(radius: radius, profile: profile, width: width, height: height, ink: ink,
                            rowsHeld: capacity, runRows: B + 2)
        let coverage = UnsafeMutableBufferPointer<Float>.allocate(capacity: capacity * width)
        defer { coverage.deallocate() }
        let rows = LoftRows.MaskRows(base: coverage.baseAddress!, capacity: capacity, width: width)
        let material = ShadedMaterial(inputScale: scale)

        // A band's heights and coverage, reused from band to band (the shape given out
        // is gone by the next, so they are not copied).
        var heights = HeightField(width: width, height: 0, repeating: 0)
        var mask = Mask(width: width, height: 0, repeating: 0)
        var loaded = 0
        var b0 = 0
        while b0 < height {
            let b1 = min(b0 + B, height)
            let hyLo = max(b0 - 1, 0), hyHi = min(b1 + 1, height)
            let needed = min(height, max(b1, hyHi + halo))
            // Read the new mask rows.
            let firstNew = loaded
            while loaded < needed {
                try source.read(into: coverage.baseAddress! + (loaded % capacity) * width)
                loaded += 1
            }
            loft.arrived(firstNew..<loaded, rows)
            // The heights of rows hyLo..<hyHi.
            if heights.height != hyHi - hyLo { heights = HeightField(width: width, height: hyHi - hyLo, repeating: 0) }
            heights.withUnsafeMutableBufferPointer { heights in
                loft.heights(hyLo..<hyHi, rows, loaded: loaded, into: heights)
            }
            // The coverage of rows b0..<b1.
            if mask.height != b1 - b0 { mask = Mask(width: width, height: b1 - b0, repeating: 0) }
            mask.withUnsafeMutableBufferPointer { mask in
                for y in b0..<b1 { (mask.baseAddress! + (y - b0) * width).update(from: rows.row(y), count: width) }
            }
            try body(TitleShape(mask: mask, origin: (origin.x, origin.y + b0), canvas: canvas, warnings: [],
                                heights: heights, plateau: HeightFieldFromMask.plateau(of: profile), normals: nil,
                                material: material,
                                band: ShadedMaterial.Rows(rows: b0..<b1, regionHeight: height, heightsFrom: hyLo, ink: ink)))
            b0 = b1
        }
    }
}
