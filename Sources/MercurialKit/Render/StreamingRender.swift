/// What a streamed render reports (its pixels went straight to the output).
public struct StreamedTitle: Sendable {
    public var width: Int, height: Int
    public var warnings: [MercurialWarning]
    /// The PNG, when it was rendered with no output (for tests).
    var bytes: [UInt8] = []
}

/// A still written by `TitleRenderer.writePNG`: its canvas's size, and what its render warned of.
public struct WrittenStill: Sendable {
    public var width: Int, height: Int
    public var warnings: [MercurialWarning]
}

extension TitleRenderer {
    /// Masks of more pixels than this are rendered in bands (`renderPNG`);
    /// smaller ones in memory, which is quicker at ordinary sizes.
    public static let streamingThreshold = 4_194_304

    /// The default number of canvas rows in a band.
    public static let streamingBandHeight = 128

    /// The one way a still becomes a PNG file (`render`, `watch`, `batch`): a large title
    /// rendered band by band and streamed to `output` (`renderPNG`), anything else
    /// rendered whole in memory and encoded by `PNGSink`; either way the file appears
    /// whole or not at all, with the recipe (the resolved scene) unless not `recipe`.
    /// The warnings are returned, not told: a batch gathers them across its rows.
    public static func writePNG(_ settings: RenderSettings, compression: PNGFile.Compression, recipe: Bool = true,
                                to output: OutputTarget) throws(MercurialError) -> WrittenStill {
        try writePNG(settings, compression: compression, recipeJSON: recipe ? SceneRecipe.json(for: settings) : nil, to: output)
    }

    /// `writePNG` with the recipe already made (nil for none).
    static func writePNG(_ settings: RenderSettings, compression: PNGFile.Compression, recipeJSON: String?,
                         to output: OutputTarget) throws(MercurialError) -> WrittenStill {
        let ancillary = try recipeJSON.map { json throws(MercurialError) in [try SceneRecipe.pngChunk(json)] } ?? []
        switch try renderPNG(settings, compression: compression, ancillary: ancillary, output: output) {
        case .streamed(let streamed):
            return WrittenStill(width: streamed.width, height: streamed.height, warnings: streamed.warnings)
        case .inMemory(let title):
            let sink = PNGSink(width: title.width, height: title.height, compression: compression, ancillary: ancillary,
                               output: output, opaqueAsRGB: true)
            try sink.write(title.canvas)
            try sink.finish()
            return WrittenStill(width: title.width, height: title.height, warnings: title.warnings)
        }
    }

    /// The one way a still becomes a file in any format (`render`, `watch`, `batch`): a PNG
    /// as `writePNG` writes it (with its recipe unless not `recipe`), a JPEG or WebP
    /// rendered as a PNG would be (a large title band by band) and encoded whole by
    /// `EncodedStillSink`, which checks the format's size limit before rendering. A JPEG
    /// or WebP carries the recipe's stamp (`SceneRecipe.stamp`), not the recipe:
    /// `inspect` and `render --from` read PNGs only.
    public static func writeStill(_ settings: RenderSettings, encoding: StillEncoding, compression: PNGFile.Compression,
                                  recipe: Bool = true, to output: OutputTarget) throws(MercurialError) -> WrittenStill {
        try writeStill(settings, encoding: encoding, compression: compression,
                       recipeJSON: recipe ? SceneRecipe.json(for: settings) : nil, to: output)
    }

    /// `writeStill` with the recipe already made (nil for none).
    static func writeStill(_ settings: RenderSettings, encoding: StillEncoding, compression: PNGFile.Compression,
                           recipeJSON: String?, to output: OutputTarget) throws(MercurialError) -> WrittenStill {
        guard encoding.format != .png else {
            return try writePNG(settings, compression: compression, recipeJSON: recipeJSON, to: output)
        }
        let stamp = recipeJSON.map { SceneRecipe.stamp($0, encoding: encoding) }
        var writer: (any RowSink)?
        do {
            let result = try renderPNG(settings, bandHeight: streamingBandHeight, force: false, writer: &writer) { width, height throws(MercurialError) in
                try EncodedStillSink(width: width, height: height, encoding: encoding, output: output, stamp: stamp)
            }
            switch result {
            case .streamed(let streamed):
                try writer?.finish()
                return WrittenStill(width: streamed.width, height: streamed.height, warnings: streamed.warnings)
            case .inMemory(let title):
                let sink = try EncodedStillSink(width: title.width, height: title.height, encoding: encoding, output: output,
                                                stamp: stamp)
                try sink.write(title.canvas)
                try sink.finish()
                return WrittenStill(width: title.width, height: title.height, warnings: title.warnings)
            }
        } catch {
            writer?.discard()
            throw error
        }
    }

    /// Renders `settings` in horizontal bands and writes the PNG through `output`
    /// as the bands are finished, so that memory grows with the canvas's width, not
    /// its area: a mask PNG is decoded row by row (twice: once to find its ink and
    /// whether it has transparency, once to render), a text's glyphs are kept as
    /// FreeType made them and drawn a row at a time; each band's loft is made from
    /// the mask rows it needs plus the halo its profile reaches, shaded, and deflated.
    /// The pixels are those of `render` (see `BandLoft`).
    ///
    /// Renders in memory instead, writing nothing, when the region drawn (the ink plus
    /// the margin) has at most `streamingThreshold` pixels (unless `force`), and for
    /// an interlaced mask (its rows do not come in order). Point lights and a
    /// gradient backdrop are applied band by band, as `render` applies them whole, and
    /// layer styles drawn band by band (`StyledBands`), a stroke in the title's metal
    /// lofted and shaded band by band too (`StreamedMetalOutline`).
    /// `ancillary` chunks (a recipe) go after the streamed PNG's header. The PNG goes
    /// to `output` through `StreamedPNGSink`, whole or not at all (with no output, it
    /// is kept in the result, for tests). `writePNG` writes either kind of still.
    ///
    /// A title over a background (`settings.background`) is opaque, and is written as RGB, as
    /// `PNGSink` writes an opaque canvas. The sink checks each band; should one have a pixel
    /// that is not opaque, what was written is dropped and the title rendered again with alpha.
    public static func renderPNG(_ settings: RenderSettings, compression: PNGFile.Compression,
                                 ancillary: [PNGChunk] = [], bandHeight: Int = streamingBandHeight, force: Bool = false,
                                 output: OutputTarget?) throws(MercurialError) -> PNGRender {
        try renderPNG(settings, compression: compression, ancillary: ancillary, bandHeight: bandHeight, force: force,
                      output: output, opaque: settings.background != nil)
    }

    /// `renderPNG`, the streamed PNG written as RGB when `opaque`.
    static func renderPNG(_ settings: RenderSettings, compression: PNGFile.Compression, ancillary: [PNGChunk],
                          bandHeight: Int, force: Bool, output: OutputTarget?, opaque: Bool) throws(MercurialError) -> PNGRender {
        var writer: (any RowSink)?
        do {
            let result = try renderPNG(settings, bandHeight: bandHeight, force: force, writer: &writer) { width, height in
                StreamedPNGSink(width: width, height: height, compression: compression, ancillary: ancillary, output: output,
                                opaque: opaque)
            }
            guard case .streamed(var title) = result, let writer else { return result }
            try writer.finish()
            title.bytes = (writer as? StreamedPNGSink)?.bytes ?? []
            return .streamed(title)
        } catch {
            let translucent = (writer as? StreamedPNGSink)?.foundTranslucent == true
            writer?.discard()
            guard translucent else { throw error }
            return try renderPNG(settings, compression: compression, ancillary: ancillary, bandHeight: bandHeight,
                                 force: force, output: output, opaque: false)
        }
    }

    /// Renders as `renderPNG` says, a streamed title's rows going to the sink `makeWriter`
    /// makes for the canvas's size (kept in `sink`, for the caller to finish or discard).
    private static func renderPNG(_ settings: RenderSettings, bandHeight: Int, force: Bool,
                                  writer sink: inout (any RowSink)?,
                                  makeWriter: (_ width: Int, _ height: Int) throws(MercurialError) -> any RowSink) throws(MercurialError) -> PNGRender {
        try validate(settings)
        let compositing = Compositing(settings)
        let band = max(bandHeight, 1)
        if !settings.layers.isEmpty {
            // A layered scene on a canvas of at most `streamingThreshold` pixels is painted in memory,
            // as is one with an image layer (held whole; a canvas over 33 M pixels is refused there).
            guard let canvas = try? LayeredTitle.canvas(of: settings),
                  force || Double(canvas.width) * Double(canvas.height) > Double(streamingThreshold),
                  !settings.layers.contains(where: { $0.settings.image != nil }) else {
                return .inMemory(try render(settings))
            }
            return try LayeredBands.render(settings, bandHeight: band, writer: &sink, makeWriter: makeWriter)
        }
        let styles = settings.look.styles
        func placed(_ crop: PixelBounds, canvas: (width: Int, height: Int)) -> (bands: PlacedBands?, drawn: PixelBounds?) {
            TitleRenderer.placedBands(compositing, crop: crop, canvas: canvas, bandHeight: band)
        }
        func styled(_ region: PixelBounds?, laidOut: PixelBounds, canvas: (width: Int, height: Int), sized: Bool) throws(MercurialError) -> StyledBands? {
            try TitleRenderer.styledBands(settings, compositing, region: region, laidOut: laidOut, canvas: canvas, sized: sized,
                                          bandHeight: band)
        }
        /// Whether a title whose region is `crop` is rendered in bands: its region, or the
        /// pixels it is drawn over (moved, zoomed, with its styles), has more than `streamingThreshold` pixels.
        func streams(_ crop: PixelBounds?, canvas: (width: Int, height: Int)) -> Bool {
            guard !force, let crop else { return true }
            var drawn = placed(crop, canvas: canvas).drawn
            let plate = compositing.plateShape(region: (crop.minX, crop.minY), size: (crop.width, crop.height), canvas: canvas)
            if !styles.isEmpty { drawn = drawn.flatMap { styles.drawnBox($0, canvas: canvas, plate: plate) } }
            return max(crop.width * crop.height, drawn.map { $0.width * $0.height } ?? 0) > streamingThreshold
        }
        if let maskPath = settings.mask {
            let bytes = try PNGRowReader.screenedBytes(maskPath, role: "mask")
            // Pass 1: the ink, under both readings of the mask (alpha, or luminance).
            let scan: MaskScan? = try PNGRowReader.with(bytes, name: maskPath, role: "mask") { reader throws(MercurialError) in
                guard let reader, force || reader.width * reader.height > streamingThreshold || !styles.isEmpty
                        || compositing.placement != nil else { return nil }
                return try MaskScan(reader)
            }
            guard let scan else { return .inMemory(try render(settings)) }
            // The crop of `titleMask`: the ink plus the margin.
            let m = settings.loftMargin
            let crop = scan.ink.map { ink in
                PixelBounds(minX: max(ink.minX - m, 0), minY: max(ink.minY - m, 0),
                            maxX: min(ink.maxX + m, scan.width - 1), maxY: min(ink.maxY + m, scan.height - 1))
            }
            guard force || scan.width * scan.height > streamingThreshold || streams(crop, canvas: (scan.width, scan.height)) else {
                return .inMemory(try render(settings))
            }
            let place = crop.map { placed($0, canvas: (scan.width, scan.height)) }
            let styledBands = try crop.flatMap { crop throws(MercurialError) in
                try place.flatMap { place throws(MercurialError) in
                    try styled(place.drawn, laidOut: crop, canvas: (scan.width, scan.height), sized: true)
                }
            }
            let writer = try makeWriter(scan.width, scan.height)
            sink = writer
            let canvas = CanvasBands(width: scan.width, height: scan.height, compositing: compositing, writer: writer,
                                     bandHeight: band)
            guard let ink = scan.ink, let crop else {
                try canvas.appendFill(rows: scan.height)
                try writer.endFrame()
                return .streamed(StreamedTitle(width: scan.width, height: scan.height, warnings: [
                    MercurialWarning("mask '\(maskPath)' is empty (no pixel has coverage); the title is blank")]))
            }
            let inkInCrop = PixelBounds(minX: ink.minX - crop.minX, minY: ink.minY - crop.minY,
                                        maxX: ink.maxX - crop.minX, maxY: ink.maxY - crop.minY)
            try PNGRowReader.with(bytes, name: maskPath, role: "mask") { reader throws(MercurialError) in
                guard let reader else { throw MercurialError("mask '\(maskPath)' changed while it was read; try again") }
                try streamRegion(settings, source: MaskRowSource(reader: reader, crop: crop, alpha: scan.hasAlpha),
                                 crop: crop, ink: inkInCrop, canvasHeight: scan.height, canvas: canvas, bandHeight: band,
                                 placed: place?.bands, moved: compositing.placement != nil, styled: styledBands)
            }
            try writer.endFrame()
            return .streamed(StreamedTitle(width: scan.width, height: scan.height, warnings: []))
        }
        guard let text = settings.text else { return .inMemory(try render(settings)) }
        let (p, size, textCrop) = try textRegion(settings, text: text)
        // A vine drawn into the text's rows, in the region widened to hold it.
        let vine = settings.vine.flatMap {
            VineRowSource($0, text: p, crop: textCrop, canvas: size, margin: settings.loftMargin)
        }
        let crop = vine?.region ?? textCrop
        guard streams(crop, canvas: size) else {
            if settings.vine != nil { return .inMemory(try render(settings)) }
            let mask = p.run.draw(width: p.regionWidth, height: p.regionHeight, offsetX: p.offsetX, offsetY: p.offsetY)
            let looks = p.run.drawLooks(width: p.regionWidth, height: p.regionHeight, offsetX: p.offsetX, offsetY: p.offsetY)
            let paint = p.run.drawPaint(width: p.regionWidth, height: p.regionHeight, offsetX: p.offsetX, offsetY: p.offsetY)
            return .inMemory(try FrameRenderer.still(settings, premade: TitleRenderer.TitleMask(
                mask: mask, origin: (p.originX, p.originY), canvas: (p.canvasWidth, p.canvasHeight), warnings: p.warnings,
                looks: looks, paint: paint)))
        }
        let place = placed(crop, canvas: size)
        let styledBands = try styled(place.drawn, laidOut: crop, canvas: size, sized: settings.width != nil || settings.height != nil)
        let writer = try makeWriter(size.width, size.height)
        sink = writer
        let canvas = CanvasBands(width: size.width, height: size.height, compositing: compositing, writer: writer,
                                 bandHeight: band)
        try streamRegion(settings, source: vine ?? GlyphRowSource(p), crop: crop, ink: vine.map { $0.ink } ?? p.drawnInk,
                         canvasHeight: size.height,
                         canvas: canvas, bandHeight: band, placed: place.bands, moved: compositing.placement != nil,
                         styled: styledBands)
        try writer.endFrame()
        return .streamed(StreamedTitle(width: size.width, height: size.height, warnings: p.warnings))
    }

    /// A text title laid out (`TextMask.place`), its canvas (grown to hold the styles, as
    /// `TitleShape.build` grows a canvas sized to the text) and its region on it (the ink plus the margin).
    static func textRegion(_ settings: RenderSettings, text: String) throws(MercurialError)
        -> (placement: TextPlacement, canvas: (width: Int, height: Int), crop: PixelBounds) {
        let p = try TextMask.place(textLayout(settings, text: text), frame: settings.textFrame)
        let (size, origin) = settings.look.styles.grown(canvas: (p.canvasWidth, p.canvasHeight), origin: (p.originX, p.originY),
                                                        growWidth: settings.width == nil, growHeight: settings.height == nil,
                                                        inset: settings.loftMargin)
        let crop = PixelBounds(minX: origin.x, minY: origin.y, maxX: origin.x + p.regionWidth - 1,
                               maxY: origin.y + p.regionHeight - 1)
        return (p, size, crop)
    }

    /// Where a title's region (`crop`) is drawn: moved or zoomed (`PlacedBands`; nil
    /// bounds when none of it is on the canvas), or where it is.
    static func placedBands(_ compositing: Compositing, crop: PixelBounds, canvas: (width: Int, height: Int),
                            bandHeight: Int) -> (bands: PlacedBands?, drawn: PixelBounds?) {
        guard let placement = compositing.placement else { return (nil, crop) }
        let mapping = placement.mapping(size: (crop.width, crop.height), at: (crop.minX, crop.minY), canvas: canvas)
        return (mapping.map { PlacedBands($0, bandHeight: bandHeight) }, mapping?.bounds)
    }

    /// Layer styles drawn band by band around the title's drawn region (`StyledBands`), or none;
    /// a stroke in the title's metal lofted, shaded and lit band by band too.
    /// `laidOut`: the title's region where it was laid out (a plate sizes to its ink).
    static func styledBands(_ settings: RenderSettings, _ compositing: Compositing, region: PixelBounds?, laidOut: PixelBounds,
                            canvas: (width: Int, height: Int), sized: Bool, bandHeight: Int) throws(MercurialError) -> StyledBands? {
        let styles = settings.look.styles
        guard !styles.isEmpty, let region else { return nil }
        let metal = styles.stroke?.material == true ? compositing.strokeMetal(try ShadingLookup.of(settings)) : nil
        let plate = compositing.plateShape(region: (laidOut.minX, laidOut.minY), size: (laidOut.width, laidOut.height), canvas: canvas,
                                           shading: styles.plate?.material == true ? try ShadingLookup.of(settings) : nil)
        return try StyledBands(styles, region: region, canvas: canvas, sized: sized, bandHeight: bandHeight, metal: metal, plate: plate)
    }

    /// The canvas's rows, all of them: the title's region streamed band by band (`RegionStream`).
    // Not inlined: Swift 6.3.1's optimizer (CopyPropagation's ownership verifier) aborts
    // on this function inlined into renderPNG, with `emit` handed to PlacedBands.
    @inline(never)
    private static func streamRegion(_ settings: RenderSettings, source: any CoverageRowSource, crop: PixelBounds,
                                     ink: PixelBounds?, canvasHeight: Int, canvas: any CanvasRows, bandHeight: Int,
                                     placed: PlacedBands?, moved: Bool, styled: StyledBands?) throws(MercurialError) {
        let stream = try RegionStream(settings, source: source, crop: crop, ink: ink, canvasHeight: canvasHeight,
                                      canvas: canvas, bandHeight: bandHeight, placed: placed, moved: moved, styled: styled)
        while try stream.step() {}
    }
}

/// One title's region on its way down the canvas, a band at a time (`step`): the fill
/// above `crop` (above the styles' region, when `styled`), its rows rendered band by
/// band (the one shading stage over the bands of `BandLoft`, and the styles drawn
/// around them), fill below; all of it fill when the title has no ink or a moved or
/// zoomed title (`moved`) is nowhere on the canvas (no `placed`). A plain title is
/// stepped to its end; a scene's layers are stepped together (`LayeredBands`), so each
/// holds only the rows the stack has not yet taken.
final class RegionStream {
    private let canvas: any CanvasRows
    private let canvasHeight: Int
    /// Nil: none of the title is drawn.
    private let loft: BandLoft?
    private let shading: ShadingLookup?
    private let placed: PlacedBands?, styled: StyledBands?
    /// The canvas rows the title (with its styles) is drawn in.
    private let rows: Range<Int>
    private var title = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
    private var started = false, done = false

    init(_ settings: RenderSettings, source: any CoverageRowSource, crop: PixelBounds, ink: PixelBounds?,
         canvasHeight: Int, canvas: any CanvasRows, bandHeight: Int, placed: PlacedBands?, moved: Bool,
         styled: StyledBands?) throws(MercurialError) {
        (self.canvas, self.canvasHeight, self.placed, self.styled) = (canvas, canvasHeight, placed, styled)
        guard let ink, !moved || placed != nil else {
            (loft, shading, rows) = (nil, nil, 0..<0)
            return
        }
        shading = try ShadingLookup.of(settings)
        let drawn = placed?.bounds ?? crop
        rows = styled?.drawnRows ?? drawn.minY..<(drawn.maxY + 1)
        loft = BandLoft(settings: settings.shape, source: source, crop: crop, ink: ink,
                        canvas: (canvas.width, canvasHeight), bandHeight: bandHeight)
    }

    /// Gives the canvas its next rows: the fill above the title, the rows a band of it
    /// completes, or the rest. False once the canvas has had all its rows.
    func step() throws(MercurialError) -> Bool {
        guard !done else { return false }
        guard let loft, let shading else {
            try canvas.appendFill(rows: canvasHeight)
            done = true
            return true
        }
        guard started else {
            started = true
            try canvas.appendFill(rows: rows.lowerBound)
            return true
        }
        if let shape = try loft.next() {
            FrameRenderer.shade(shape, shading: shading, compositing: canvas.compositing, into: &title)
            if let placed {
                try placed.append(title, emit: emit)
            } else {
                try emit(&title, at: shape.origin)
            }
            return true
        }
        try placed?.finish(emit: emit)
        try styled?.finish(to: canvas)
        try canvas.appendFill(rows: canvasHeight - rows.upperBound)
        done = true
        return true
    }

    private func emit(_ title: inout Image<RGBA8>, at origin: (x: Int, y: Int)) throws(MercurialError) {
        if let styled {
            try styled.append(&title, at: origin, to: canvas)
        } else {
            try canvas.append(&title, at: origin)
        }
    }
}

/// A moved or zoomed title's rows (`RegionPlacement`), placed band by band as the
/// region's shaded bands come, pixel for pixel as `RegionPlacement.placed` places the
/// whole region: it keeps the region's rows from the first that a placed row not yet
/// drawn reads, so memory grows with the region's width, not its area.
final class PlacedBands {
    let mapping: RegionPlacement.Mapping
    let bandHeight: Int
    private var rows: RowWindow<RGBA8>
    private var done = false
    /// The next placed row to draw (from 0, in `bounds`).
    private var next = 0

    init(_ mapping: RegionPlacement.Mapping, bandHeight: Int) {
        self.mapping = mapping
        self.bandHeight = max(bandHeight, 1)
        rows = RowWindow(width: mapping.source.width)
    }

    /// The canvas pixels the placed region covers.
    var bounds: PixelBounds { mapping.bounds }

    /// The region's next shaded rows, and the placed bands (at most `bandHeight` rows) they complete, handed to `emit`.
    func append(_ band: Image<RGBA8>, emit: (inout Image<RGBA8>, (x: Int, y: Int)) throws(MercurialError) -> Void)
        throws(MercurialError) {
        precondition(band.width == mapping.source.width, "a band of the region of another width")
        band.withUnsafeBufferPointer { b in
            for r in 0..<band.height { rows.append(b.baseAddress! + r * band.width) }
        }
        try drawReady(emit)
    }

    /// The region has no more rows: the rest is drawn.
    func finish(emit: (inout Image<RGBA8>, (x: Int, y: Int)) throws(MercurialError) -> Void) throws(MercurialError) {
        done = true
        try drawReady(emit)
    }

    private func drawReady(_ emit: (inout Image<RGBA8>, (x: Int, y: Int)) throws(MercurialError) -> Void)
        throws(MercurialError) {
        let b = bounds, last = mapping.source.height - 1
        while next < b.height {
            // Rows no placed row still to draw reads.
            rows.drop(below: max(mapping.sourceRow(next).j, 0))
            var end = next
            while end < min(next + bandHeight, b.height)
                    && (done || min(mapping.sourceRow(end).j + 1, last) < rows.end) { end += 1 }
            guard end > next else { return }
            var out = Image<RGBA8>(width: b.width, height: end - next, repeating: .clear)
            let first = next
            out.withUnsafeMutableBufferPointer { dst in
                rows.withRows { row in
                    for y in first..<end {
                        let j = mapping.sourceRow(y).j
                        mapping.draw(row: y, top: row(j), bottom: row(j + 1), into: dst.baseAddress! + (y - first) * b.width)
                    }
                }
            }
            try emit(&out, (b.minX, b.minY + next))
            next = end
        }
    }
}

/// What `renderPNG` did.
public enum PNGRender: Sendable {
    /// The PNG went to the output as it was made.
    case streamed(StreamedTitle)
    /// Rendered in memory; nothing was written: write it with a `PNGSink`.
    case inMemory(RenderedTitle)
}

/// The mask's rows, one after another, as coverage.
protocol CoverageRowSource: AnyObject {
    /// The next row's coverage (the crop's width of values).
    func read(into out: UnsafeMutablePointer<Float>) throws(MercurialError)
    /// Whether its rows have looks other than the title's (styled runs), and kept emoji colours.
    var styled: (looks: Bool, paint: Bool) { get }
    /// Row `y`'s looks (`LookPlane`), the crop's width of them (when `styled.looks`).
    func looks(ofRow y: Int, into out: UnsafeMutablePointer<UInt8>)
    /// Row `y`'s kept emoji colours (`PaintPlane`, when `styled.paint`).
    func paint(ofRow y: Int, into out: UnsafeMutablePointer<RGBA8>)
}

extension CoverageRowSource {
    var styled: (looks: Bool, paint: Bool) { (false, false) }
    func looks(ofRow y: Int, into out: UnsafeMutablePointer<UInt8>) {}
    func paint(ofRow y: Int, into out: UnsafeMutablePointer<RGBA8>) {}
}

/// The rows of a laid-out text's mask, drawn from its glyphs a row at a time.
final class GlyphRowSource: CoverageRowSource {
    private let placement: TextPlacement
    private var next = 0

    init(_ placement: TextPlacement) { self.placement = placement }

    func read(into out: UnsafeMutablePointer<Float>) throws(MercurialError) {
        let p = placement
        p.run.drawRow(next, width: p.regionWidth, offsetX: p.offsetX, offsetY: p.offsetY, into: out)
        next += 1
    }

    var styled: (looks: Bool, paint: Bool) { (placement.run.hasLooks, placement.run.hasPaint) }

    func looks(ofRow y: Int, into out: UnsafeMutablePointer<UInt8>) {
        let p = placement
        p.run.drawStyleRow(y, width: p.regionWidth, offsetX: p.offsetX, offsetY: p.offsetY, looks: out)
    }

    func paint(ofRow y: Int, into out: UnsafeMutablePointer<RGBA8>) {
        let p = placement
        p.run.drawStyleRow(y, width: p.regionWidth, offsetX: p.offsetX, offsetY: p.offsetY, paint: out)
    }
}

/// Pass 1 over a mask PNG: its size, whether any pixel is translucent, and the ink
/// under the reading `TitleRenderer.coverage(of:)` will choose.
struct MaskScan {
    let width: Int, height: Int
    let hasAlpha: Bool
    let ink: PixelBounds?

    init(_ reader: PNGRowReader) throws(MercurialError) {
        width = reader.width
        height = reader.height
        let row = UnsafeMutablePointer<RGBA8>.allocate(capacity: width)
        defer { row.deallocate() }
        var alpha = (minX: width, minY: height, maxX: -1, maxY: -1)
        var light = alpha
        var translucent = false
        func widen(_ b: inout (minX: Int, minY: Int, maxX: Int, maxY: Int), _ first: Int, _ last: Int, _ y: Int) {
            b.minX = min(b.minX, first); b.maxX = max(b.maxX, last)
            b.minY = min(b.minY, y); b.maxY = y
        }
        let raw = UnsafeRawPointer(row).assumingMemoryBound(to: UInt32.self)
        for y in 0..<height {
            try reader.read(into: row)
            // A pixel is inked under alpha when a > 0, under luminance when any of r, g, b is.
            var firstA = -1, lastA = -1, firstL = -1, lastL = -1
            for x in 0..<width {
                let bits = raw[x]   // r, g, b, a in memory order
                if bits & 0xFF00_0000 != 0 { if firstA < 0 { firstA = x }; lastA = x }
                if bits & 0x00FF_FFFF != 0 { if firstL < 0 { firstL = x }; lastL = x }
                if bits & 0xFF00_0000 != 0xFF00_0000 { translucent = true }
            }
            if firstA >= 0 { widen(&alpha, firstA, lastA, y) }
            if firstL >= 0 { widen(&light, firstL, lastL, y) }
        }
        hasAlpha = translucent
        let b = translucent ? alpha : light
        ink = b.maxX < 0 ? nil : PixelBounds(minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY)
    }
}

/// Pass 2: the coverage of the crop's rows, in order.
final class MaskRowSource: CoverageRowSource {
    private let reader: PNGRowReader
    private let crop: PixelBounds
    private let alpha: Bool
    private let row: UnsafeMutablePointer<RGBA8>
    private var next = 0

    init(reader: PNGRowReader, crop: PixelBounds, alpha: Bool) {
        self.reader = reader
        self.crop = crop
        self.alpha = alpha
        row = .allocate(capacity: reader.width)
    }

    deinit { row.deallocate() }

    /// The next crop row's coverage (`crop.width` values), as `TitleRenderer.coverage(of:)` computes it.
    func read(into out: UnsafeMutablePointer<Float>) throws(MercurialError) {
        while reader.rowsRead < crop.minY + next { try reader.read(into: row) }
        try reader.read(into: row)
        next += 1
        for i in 0..<crop.width {
            let p = row[crop.minX + i]
            out[i] = alpha ? Float(p.a) / 255 : (0.2126 * Float(p.r) + 0.7152 * Float(p.g) + 0.0722 * Float(p.b)) / 255
        }
    }
}

/// Where a streamed title's rows go, top to bottom: a canvas's rows to the writer
/// (`CanvasBands`), or a scene's layer's, kept until the layers are stacked (`LayerRows`).
protocol CanvasRows: AnyObject {
    var width: Int { get }
    var compositing: Compositing { get }
    /// `rows` rows of backdrop.
    func appendFill(rows: Int) throws(MercurialError)
    /// A band already lit (a styled title's, `StyledBands`), composed over the backdrop where it sits.
    func appendLit(_ title: Image<RGBA8>, at origin: (x: Int, y: Int)) throws(MercurialError)
}

extension CanvasRows {
    /// A band of the title (shaded, one row of `title` a canvas row) whose first pixel
    /// sits at `origin` on the canvas, lit and composed as `Compositing` makes a whole title.
    func append(_ title: inout Image<RGBA8>, at origin: (x: Int, y: Int)) throws(MercurialError) {
        light(&title, at: origin)
        try appendLit(title, at: origin)
    }

    /// Lights a band of the title at `origin` (`Compositing.light`).
    func light(_ title: inout Image<RGBA8>, at origin: (x: Int, y: Int)) {
        let (w, h) = (title.width, title.height)
        title.withUnsafeMutableBufferPointer { compositing.light($0, width: w, height: h, originX: origin.x, originY: origin.y) }
    }
}

/// The canvas's rows on their way to the writer, top to bottom: rows of backdrop,
/// and the title's bands composed onto rows of it.
final class CanvasBands: CanvasRows {
    let width: Int
    let writer: any RowSink
    let bandHeight: Int
    let compositing: Compositing
    private let ramp: GradientRamp
    private let fillRow: UnsafeMutableBufferPointer<RGBA8>
    private var band: UnsafeMutableBufferPointer<RGBA8>
    /// The canvas row the next appended row is.
    private var nextRow = 0

    init(width: Int, height: Int, compositing: Compositing, writer: any RowSink, bandHeight: Int) {
        self.width = width
        self.writer = writer
        self.bandHeight = bandHeight
        self.compositing = compositing
        ramp = GradientRamp(compositing.backdrop, width: width, height: height)
        fillRow = .allocate(capacity: width)
        fillRow.initialize(repeating: ramp.fillColor)
        band = .allocate(capacity: 0)
    }

    deinit {
        fillRow.deallocate()
        band.deallocate()
    }

    /// `rows` rows of backdrop: one shared row of a single colour, or a gradient's rows a band at a time.
    func appendFill(rows: Int) throws(MercurialError) {
        var left = rows
        let pointer = UnsafeRawPointer(fillRow.baseAddress!).assumingMemoryBound(to: UInt8.self)
        while left > 0 {
            let n = min(left, ramp.gradient == nil ? 1024 : max(bandHeight, 1))
            if ramp.gradient == nil {
                try writer.append(rows: [UnsafePointer<UInt8>](repeating: pointer, count: n))
            } else {
                reserve(&band, n * width)
                for r in 0..<n { ramp.fill(row: band.baseAddress! + r * width, y: nextRow + r, width: width) }
                try writer.append(rows: bandPointers(n))
            }
            nextRow += n
            left -= n
        }
    }

    /// A band already lit (a styled title's, `StyledBands`), composed as `append` composes one.
    func appendLit(_ title: Image<RGBA8>, at origin: (x: Int, y: Int)) throws(MercurialError) {
        precondition(origin.y == nextRow, "a band for canvas row \(origin.y), given at row \(nextRow)")
        let (w, h) = (title.width, title.height)
        reserve(&band, h * width)
        title.withUnsafeBufferPointer { title in
            compositing.compose(title, width: w, rows: h, atX: origin.x, y: origin.y, over: ramp, into: band.baseAddress!)
        }
        try writer.append(rows: bandPointers(h))
        nextRow += h
    }

    private func reserve(_ buffer: inout UnsafeMutableBufferPointer<RGBA8>, _ count: Int) {
        guard buffer.count < count else { return }
        buffer.deallocate()
        buffer = .allocate(capacity: count)
    }

    private func bandPointers(_ rows: Int) -> [UnsafePointer<UInt8>] {
        (0..<rows).map { UnsafeRawPointer(band.baseAddress! + $0 * width).assumingMemoryBound(to: UInt8.self) }
    }
}

extension TextPlacement {
    /// The ink of the drawn text in its region (nil: none), found from its glyphs without drawing them.
    var drawnInk: PixelBounds? {
        run.drawnInkBounds(width: regionWidth, height: regionHeight, offsetX: offsetX, offsetY: offsetY)
    }
}
