/// A text's rows with its vine drawn in, as `Vine.drawn` draws it into the whole mask,
/// a few rows at a time: the region widened to the vine (plus the loft's margin), each
/// row the text's (where the text's region lies) and the strokes', the larger coverage.
/// So a vined title streams as a plain one does (`BandLoft`); the strokes are drawn
/// twice, once to find their ink (`ink`, which the loft needs before the first row; found
/// only when asked, so a title too small to stream draws them no more than before) and
/// once as the rows are read.
final class VineRowSource: CoverageRowSource {
    /// The widened region on the canvas, and the ink in it (the text's and the strokes').
    let region: PixelBounds
    private(set) lazy var ink: PixelBounds? = findInk()
    private let text: (source: GlyphRowSource, crop: PixelBounds)
    private let strokes: [TaperedStroke]
    /// The strokes' coverage of `chunk` rows from `chunkStart` (region rows).
    private let chunk = 64
    private let strokeRows: UnsafeMutableBufferPointer<Float>
    private var chunkStart = Int.min
    private var next = 0
    /// The text's ink on the canvas, if it has any.
    private let textInk: PixelBounds?

    /// The rows of `placement`'s text (its region `crop` on a `canvas`-sized canvas) with
    /// `vine` drawn in; nil when the vine draws nothing (the text's rows are the title's).
    init?(_ vine: Vine, text placement: TextPlacement, crop: PixelBounds, canvas: (width: Int, height: Int), margin: Int) {
        let inkOnCanvas = placement.drawnInk.map {
            PixelBounds(minX: $0.minX + crop.minX, minY: $0.minY + crop.minY, maxX: $0.maxX + crop.minX, maxY: $0.maxY + crop.minY)
        }
        guard let (strokes, region) = vine.layout(ink: inkOnCanvas, region: crop, canvas: canvas, margin: margin) else { return nil }
        self.region = region
        self.strokes = strokes
        text = (GlyphRowSource(placement), crop)
        strokeRows = .allocate(capacity: chunk * region.width)
        self.textInk = inkOnCanvas
    }

    /// The strokes' ink, drawn a chunk of rows at a time, joined with the text's.
    private func findInk() -> PixelBounds? {
        var box = textInk.map {
            (minX: $0.minX - region.minX, minY: $0.minY - region.minY, maxX: $0.maxX - region.minX, maxY: $0.maxY - region.minY)
        } ?? (minX: region.width, minY: region.height, maxX: -1, maxY: -1)
        let w = region.width
        for start in stride(from: 0, to: region.height, by: chunk) {
            let rows = start..<min(start + chunk, region.height)
            drawStrokes(rows)
            for y in rows {
                let row = strokeRows.baseAddress! + (y - start) * w
                guard let first = (0..<w).first(where: { row[$0] > 0 }) else { continue }
                let last = (0..<w).last { row[$0] > 0 }!
                (box.minX, box.maxX) = (min(box.minX, first), max(box.maxX, last))
                (box.minY, box.maxY) = (min(box.minY, y), max(box.maxY, y))
            }
        }
        return box.maxX < 0 ? nil : PixelBounds(minX: box.minX, minY: box.minY, maxX: box.maxX, maxY: box.maxY)
    }

    deinit { strokeRows.deallocate() }

    /// The strokes' coverage of region rows `rows` (at most `chunk`) in `strokeRows`.
    private func drawStrokes(_ rows: Range<Int>) {
        strokeRows.update(repeating: 0)
        StrokeRaster.draw(strokes, into: strokeRows.baseAddress!, width: region.width, rows: rows,
                          origin: SIMD2(region.minX, region.minY))
        chunkStart = rows.lowerBound
    }

    func read(into out: UnsafeMutablePointer<Float>) throws(MercurialError) {
        let w = region.width, y = next
        out.update(repeating: 0, count: w)
        let canvasRow = region.minY + y
        if canvasRow >= text.crop.minY && canvasRow <= text.crop.maxY {
            try text.source.read(into: out + (text.crop.minX - region.minX))
        }
        if y >= chunkStart + chunk || y < chunkStart { drawStrokes(y..<min(y + chunk, region.height)) }
        let strokes = strokeRows.baseAddress! + (y - chunkStart) * w
        for x in 0..<w where strokes[x] > out[x] { out[x] = strokes[x] }
        next += 1
    }
}
