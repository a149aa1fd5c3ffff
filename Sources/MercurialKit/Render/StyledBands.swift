/// A streamed title's layer styles, drawn band by band with the one drawing step
/// (`LayerStyles.drawn`) so that memory grows with the canvas's width, not its area.
///
/// The lit title's rows are kept in a window as they come (`append`), and each style's
/// plane is made from them a row at a time (`StreamedStylePlane`). A band of output rows
/// is drawn once every plane has made the rows the band reads (its rows, moved by the
/// style's offset, and the row below) and the title's rows are in; then the rows above
/// it are dropped. A plane's row depends on the coverage rows within its box passes'
/// reach (3 × radius) and its distance-field step's (`PlaneRecipe.shapeReach`) only,
/// which are all in by then, so the window holds the band plus those reaches and the
/// offset: the output lags the title by them. A stroke in the title's metal is lofted,
/// shaded and lit from its plane's rows as they are made (`StreamedMetalOutline`), which
/// adds that step's chunk and reach to the lag.
///
/// The box passes run down the rows with the whole plane's running sums, so a plane
/// without a distance-field step (a drop shadow or glow with no spread, an inner shadow
/// with no choke) is the whole render's to the bit. The distance-field step (a spread,
/// a choke, a stroke) is computed over windows of rows, whose grid starts at another
/// row: its Float rounding may move a rare pixel by one level, as a chisel loft's bands do,
/// and leave a mask's far tail (1e-6) where the whole one has none, which changes only
/// the colour of a pixel whose alpha rounds to 0.
final class StyledBands {
    /// The most values the windows may hold (title pixels and plane values; 64 M).
    static let maximumWindowPixels = 67_108_864

    let styles: LayerStyles
    /// The title's region on the canvas, and the region the styles draw (nil: none of it is on the canvas).
    let region: PixelBounds, box: PixelBounds?
    /// The plate under the title, placed on the canvas (nil: none).
    let plate: PlateShape?
    let bandHeight: Int
    private let planes: [StreamedStylePlane?]
    private let offsets: [SIMD2<Float>]
    private var title: RowWindow<RGBA8>
    private var titleDone = false
    /// The next canvas row to draw.
    private var next: Int

    /// The styles of a title whose region is `region` on a `canvas`-sized canvas, which
    /// the user (or a mask) `sized`; an error when a shadow or glow reaches further than
    /// such a canvas, or when the windows would hold more than `maximumWindowPixels`.
    /// `metal`: how a stroke in the title's metal is lofted, shaded and lit (nil: a stroke is in its colour).
    init(_ styles: LayerStyles, region: PixelBounds, canvas: (width: Int, height: Int), sized: Bool,
         bandHeight: Int, metal: StrokeMetal? = nil, plate: PlateShape? = nil) throws(MercurialError) {
        if sized, let problem = styles.problem(canvasWidth: canvas.width, canvasHeight: canvas.height) {
            throw MercurialError(problem)
        }
        self.styles = styles
        self.region = region
        self.bandHeight = bandHeight
        self.plate = plate
        box = styles.drawnBox(region, canvas: canvas, plate: plate)
        offsets = styles.offsets
        let recipes = styles.recipes
        let chunk = { (r: PlaneRecipe) in max(bandHeight, 2 * r.shapeReach) }
        let strokeKind = LayerStylePlanes.Kind.stroke.rawValue
        // A stroke in the title's metal: its outline made from the stroke plane's rows.
        let outlines = zip(recipes.indices, recipes).map { kind, r -> StreamedMetalOutline? in
            guard kind == strokeKind, let r, let metal, let stroke = styles.stroke, stroke.material else { return nil }
            return StreamedMetalOutline(bounds: r.bounds(region), stroke: stroke, metal: metal, chunk: chunk(r))
        }
        // How many rows each plane's steps hold back, and the rows the output lags the title by.
        let delays = zip(recipes, outlines).map { r, o in
            r.map { ($0.shape == nil ? 0 : chunk($0) + $0.shapeReach) + 3 * $0.blurRadius + (o?.delay ?? 0) }
        }
        let lag = zip(delays, offsets).compactMap { d, o in d.map { $0 - Int(o.y.rounded(.down)) + 2 } }.max() ?? 0
        let held = 2 * bandHeight + max(lag, 0)
        // Each plane's share: its finished rows (the held ones, moved by its offset) and its steps'.
        let shares = zip(zip(recipes, offsets), outlines).map { ro, outline -> Int in
            let (r, o) = ro
            guard let r else { return 0 }
            let finished = held + Int(abs(o.y).rounded(.up)) + 4
            let rows = finished + StreamedStylePlane.stepRows(r, chunk: chunk(r))
                + (outline.map { finished + $0.stepRows } ?? 0)
            return r.bounds(region).width * rows
        }
        try Self.checkCap(total: region.width * held + shares.reduce(0, +), shares: shares,
                          how: "in bands: a streamed title's styles keep its width (\(region.width) px) times the rows they reach")
        planes = zip(recipes, outlines).map { r, o in r.map { StreamedStylePlane($0, region: region, chunk: chunk($0), metal: o) } }
        title = RowWindow(width: region.width, first: region.minY)
        next = box?.minY ?? 0
    }

    /// The one cap on what a title's styles hold, drawn in bands or whole (`Compositing.checkStyles`):
    /// `total` values, of which each style's planes hold its share (`LayerStylePlanes.Kind` order);
    /// over `maximumWindowPixels`, an error naming the style with the largest share and its fix.
    static func checkCap(total: Int, shares: [Int], how: String) throws(MercurialError) {
        guard total > maximumWindowPixels, let worst = shares.indices.max(by: { shares[$0] < shares[$1] }) else { return }
        let (name, fix) = [("dropShadow", "a smaller distance or size"), ("outerGlow", "a smaller size"),
                           ("stroke", "a smaller width"), ("innerShadow", "a smaller distance or size")][worst]
        throw MercurialError.limit("\"\(name)\" reaches too far to draw \(how), at most \(maximumWindowPixels / 1_048_576) M values, and these need \(total / 1_048_576) M; use \(fix), or a smaller --size")
    }

    /// The canvas rows the styles draw (the rest are the backdrop's).
    var drawnRows: Range<Int> { box.map { $0.minY..<($0.maxY + 1) } ?? region.minY..<region.minY }

    /// The next band of the title's shaded rows (its region's width) at `origin`: lit,
    /// kept, and the bands of output it completes drawn to `canvas`.
    func append(_ band: inout Image<RGBA8>, at origin: (x: Int, y: Int), to canvas: any CanvasRows) throws(MercurialError) {
        precondition(band.width == region.width && origin.y == title.end, "a band of the title out of order")
        canvas.light(&band, at: origin)
        band.withUnsafeBufferPointer { rows in
            for r in 0..<band.height {
                let row = rows.baseAddress! + r * band.width
                title.append(row)
                for plane in planes { plane?.push(row) }
            }
        }
        try drawReady(to: canvas)
    }

    /// The title has no more rows: the planes are finished and the rest drawn.
    func finish(to canvas: any CanvasRows) throws(MercurialError) {
        titleDone = true
        for plane in planes { plane?.finish() }
        try drawReady(to: canvas)
    }

    private func drawReady(to canvas: any CanvasRows) throws(MercurialError) {
        guard let box else { return }
        while next <= box.maxY {
            let rows = next..<min(next + bandHeight, box.maxY + 1)
            guard titleDone || title.end >= min(rows.upperBound, region.maxY + 1) else { return }
            var windows: [StylePlane?] = []
            var metal: (image: Image<RGBA8>, firstRow: Int)?
            for (plane, offset) in zip(planes, offsets) {
                guard let plane else { windows.append(nil); continue }
                let reads = PlaneRow.sourceRows(plane.bounds, rows, offset: offset)
                guard plane.made >= min(reads.upperBound, plane.bounds.height) else { return }
                windows.append(plane.window(reads))
                metal = metal ?? plane.metalWindow(reads)
            }
            let t0 = max(rows.lowerBound, region.minY), t1 = max(min(rows.upperBound, region.maxY + 1), t0)
            let titleRows = Image(width: region.width, height: t1 - t0, pixels: t1 > t0 ? title.copy(t0..<t1) : [])
            let content = styles.drawn(titleRows, at: (region.minX, t0), planes: LayerStylePlanes(planes: windows),
                                       box: PixelBounds(minX: box.minX, minY: rows.lowerBound, maxX: box.maxX,
                                                        maxY: rows.upperBound - 1),
                                       metal: metal?.image, metalFirstRow: metal?.firstRow ?? 0, plate: plate)
            try canvas.appendLit(content, at: (box.minX, rows.lowerBound))
            next = rows.upperBound
            title.drop(below: next)
            for (plane, offset) in zip(planes, offsets) {
                guard let plane else { continue }
                plane.drop(below: PlaneRow.sourceRows(plane.bounds, next..<(next + 1), offset: offset).lowerBound)
            }
        }
    }
}
