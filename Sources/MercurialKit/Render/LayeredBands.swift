/// A scene with `layers`, streamed: each layer's region goes down the canvas band by
/// band (`RegionStream`, as a plain title's does), all the layers together, and each
/// band of the canvas is stacked as `LayeredTitle.render` stacks the whole canvas:
/// the first layer's rows (its backdrop, its title composed over it), then each other
/// layer's drawn rows painted "over" them in order. So memory grows with the canvas's
/// width (and each layer's styles' reach), not its area, and the pixels are the
/// in-memory render's (as a plain title's bands are its whole render's).
enum LayeredBands {
    static func render(_ settings: RenderSettings, bandHeight: Int, writer sink: inout (any RowSink)?,
                       makeWriter: (_ width: Int, _ height: Int) throws(MercurialError) -> any RowSink) throws(MercurialError) -> PNGRender {
        let (width, height) = try LayeredTitle.canvas(of: settings)
        let (placed, placing) = try LayeredTitle.place(settings.layers, width: width, height: height)
        var warnings = placing
        var layers: [(stream: RegionStream, rows: LayerRows)] = []
        for (index, layer) in placed.enumerated() {
            var s = layer
            if index > 0 { (s.background, s.backgroundGradient) = (nil, nil) }
            do throws(MercurialError) {
                try TitleRenderer.validate(s)
                let (p, size, crop) = try TitleRenderer.textRegion(s, text: s.text ?? "")
                let compositing = Compositing(s)
                let place = TitleRenderer.placedBands(compositing, crop: crop, canvas: size, bandHeight: bandHeight)
                let styled = try TitleRenderer.styledBands(s, compositing, region: place.drawn, laidOut: crop, canvas: size, sized: true,
                                                           bandHeight: bandHeight)
                let rows = LayerRows(width: width, height: height, compositing: compositing, isBase: index == 0)
                let stream = try RegionStream(s, source: GlyphRowSource(p), crop: crop, ink: p.drawnInk, canvasHeight: height,
                                              canvas: rows, bandHeight: bandHeight, placed: place.bands,
                                              moved: compositing.placement != nil, styled: styled)
                layers.append((stream, rows))
                warnings += p.warnings.map { MercurialWarning("layer \(index + 1): \($0.message)") }
            } catch {
                throw error.within("layer \(index + 1)")
            }
        }
        let writer = try makeWriter(width, height)
        sink = writer
        let out = UnsafeMutableBufferPointer<RGBA8>.allocate(capacity: min(bandHeight, height) * width)
        defer { out.deallocate() }
        var y = 0
        while y < height {
            let band = y..<min(y + bandHeight, height)
            for (index, layer) in layers.enumerated() {
                do throws(MercurialError) {
                    while layer.rows.nextRow < band.upperBound, try layer.stream.step() {}
                } catch {
                    throw error.within("layer \(index + 1)")
                }
            }
            for layer in layers { layer.rows.draw(band, into: out.baseAddress!) }
            try writer.append(rows: band.indices.map {
                UnsafeRawPointer(out.baseAddress! + ($0 - band.lowerBound) * width).assumingMemoryBound(to: UInt8.self)
            })
            for layer in layers { layer.rows.drop(below: band.upperBound) }
            y = band.upperBound
        }
        try writer.endFrame()
        return .streamed(StreamedTitle(width: width, height: height, warnings: warnings))
    }
}

/// One layer's rows of a streamed scene (`LayeredBands`), kept until the stack takes
/// them: runs of backdrop as counts, and each band of the title as `LayeredTitle.render`
/// has it. The first layer's (`isBase`) are whole canvas rows, composed over its backdrop
/// as `CanvasBands` composes them; another layer's are only its drawn pixels (the title,
/// or the region its styles draw) over nothing, which is all of it the stack paints.
final class LayerRows: CanvasRows {
    let width: Int
    let compositing: Compositing
    let isBase: Bool
    private let ramp: GradientRamp
    /// Canvas rows of the layer, in order: `pixels` (`count` a row, from canvas column `x`)
    /// or, when empty, the backdrop.
    private struct Piece {
        var rows: Range<Int>
        var x: Int, count: Int
        var pixels: [RGBA8]
    }
    private var pieces: [Piece] = []
    /// The canvas row the next appended row is.
    private(set) var nextRow = 0

    init(width: Int, height: Int, compositing: Compositing, isBase: Bool) {
        (self.width, self.compositing, self.isBase) = (width, compositing, isBase)
        ramp = GradientRamp(compositing.backdrop, width: width, height: height)
    }

    func appendFill(rows: Int) throws(MercurialError) {
        guard rows > 0 else { return }
        pieces.append(Piece(rows: nextRow..<(nextRow + rows), x: 0, count: 0, pixels: []))
        nextRow += rows
    }

    func appendLit(_ title: Image<RGBA8>, at origin: (x: Int, y: Int)) throws(MercurialError) {
        precondition(origin.y == nextRow, "a band for canvas row \(origin.y), given at row \(nextRow)")
        let (w, h) = (title.width, title.height)
        // A layer over others is drawn over nothing, its own size (as `Compositing.composed` draws it).
        let over = isBase ? ramp : GradientRamp(.transparent, width: w, height: h)
        var pixels = [RGBA8](repeating: .clear, count: over.width * h)
        pixels.withUnsafeMutableBufferPointer { out in
            title.withUnsafeBufferPointer { title in
                compositing.compose(title, width: w, rows: h, atX: isBase ? origin.x : 0, y: origin.y, over: over,
                                    into: out.baseAddress!)
            }
        }
        pieces.append(Piece(rows: origin.y..<(origin.y + h), x: isBase ? 0 : origin.x, count: over.width, pixels: pixels))
        nextRow += h
    }

    /// The layer's canvas rows `band` in `out` (`width` pixels a row, from `band`'s first):
    /// the first layer's drawn there, another's painted over them.
    func draw(_ band: Range<Int>, into out: UnsafeMutablePointer<RGBA8>) {
        for piece in pieces where piece.rows.overlaps(band) {
            let rows = piece.rows.clamped(to: band)
            piece.pixels.withUnsafeBufferPointer { pixels in
                for y in rows {
                    let row = out + (y - band.lowerBound) * width
                    if pixels.isEmpty {
                        if isBase { ramp.fill(row: row, y: y, width: width) }
                        continue
                    }
                    let source = pixels.baseAddress! + (y - piece.rows.lowerBound) * piece.count
                    if isBase {
                        row.update(from: source, count: width)
                    } else {
                        PixelStack.paint(source, over: row + piece.x, count: piece.count)
                    }
                }
            }
        }
    }

    /// The rows above `row` are taken.
    func drop(below row: Int) {
        pieces.removeAll { $0.rows.upperBound <= row }
    }
}
