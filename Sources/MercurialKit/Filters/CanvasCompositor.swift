/// What lies behind a title.
public enum Backdrop: Sendable, Equatable {
    case transparent
    case color(RGBColor)
    case gradient(BackgroundGradient)

    public init(_ settings: RenderSettings) {
        if let g = settings.backgroundGradient { self = .gradient(g) } else if let c = settings.background { self = .color(c) } else { self = .transparent }
    }
}

extension Backdrop {
    var isGradient: Bool { if case .gradient = self { true } else { false } }
}

/// How a title's shaded pixels reach its canvas, decided once from the settings'
/// look and used by every render (whole, banded, frames, physics letters):
/// - the plain path: no point lights and no gradient. The shading mixes each inked
///   pixel with the background colour in floating point as it shades
///   (`shadingBackground`), and the shaded region is final.
/// - otherwise the region is shaded clear, lit by the point lights (the one place
///   they are applied), then put over the backdrop by `CanvasCompositor`.
/// A title with an `opacity` below 1, or moved or scaled as drawn (`shiftX`,
/// `shiftY`, `zoom`), takes the second path: its alpha is multiplied as each pixel
/// goes over the backdrop, and the region is placed (resampled) before it is lit.
public struct Compositing: Sendable, Equatable {
    public let backdrop: Backdrop
    public let lighting: PointLighting?
    /// Whether the shaded pixels are final as they are (no lights to apply, no gradient to blend over).
    public let isPlain: Bool
    /// The colour the shading mixes ink with (the plain path over a colour), else nil.
    public let shadingBackground: RGBColor?
    /// The title's opacity in 1/65535ths (65535: as shaded).
    public let opacity: UInt32
    /// Where the region goes as drawn; nil: where it was laid out, at its size.
    public let placement: RegionPlacement?
    /// Drawn around the lit title, before the backdrop (`LayerStyles.applied`).
    public let styles: LayerStyles
    /// For a stroke in the title's metal, the loft its coverage gets; else nil.
    let strokeLoft: TitleShapeSettings?
    /// How far inside its region's edges a title's ink lies (the loft's margin): what a plate sizes to.
    let inkInset: Int
    /// For a plate in the title's metal, the title's loft; else nil.
    let plateLoft: TitleShapeSettings?

    public init(_ settings: RenderSettings) {
        backdrop = Backdrop(settings)
        lighting = settings.pointLighting
        opacity = UInt32((min(max(settings.opacity, 0), 1) * 65535).rounded())
        placement = RegionPlacement(settings)
        styles = settings.look.styles
        strokeLoft = styles.stroke.flatMap { $0.material ? settings.shape.strokeLoft($0) : nil }
        inkInset = settings.loftMargin
        plateLoft = styles.plate?.material == true ? settings.shape : nil
        // An image in its own colours is drawn clear and put over the backdrop (its colours replace the shading's).
        let flatImage = settings.image.map { !$0.emboss } ?? false
        isPlain = lighting == nil && !backdrop.isGradient && opacity == 65535 && placement == nil && styles.isEmpty && !flatImage
        shadingBackground = isPlain ? settings.background : nil
    }

    /// The canvas's colour around the drawn region (a gradient's region covers the canvas).
    public var fill: RGBA8 { if case .color(let c) = backdrop { RGBA8(opaque: c) } else { .clear } }

    /// The plate of a title whose region, as laid out, is `size` at `origin`: around its ink,
    /// moved and zoomed as the title is drawn (nil: no plate); in the title's metal, shaded
    /// by `shading` (the title's lookup; nil: only where it goes is wanted).
    func plateShape(region origin: (x: Int, y: Int), size: (width: Int, height: Int),
                    canvas: (width: Int, height: Int), shading: ShadingLookup? = nil, cache: LayerStyleCache? = nil) -> PlateShape? {
        guard let plate = styles.plate else { return nil }
        let i = Double(inkInset)
        let ink = SIMD4(Double(origin.x) + i, Double(origin.y) + i, Double(origin.x + size.width) - i, Double(origin.y + size.height) - i)
        let shape: PlateShape
        if let placement {
            let centre = SIMD2(Double(origin.x) + Double(size.width) / 2, Double(origin.y) + Double(size.height) / 2)
            shape = plate.shape(ink: ink, zoom: placement.zoom, centre: centre,
                                shift: placement.drawnShift(size: size, at: origin, canvas: canvas))
        } else {
            shape = plate.shape(ink: ink)
        }
        guard let plateLoft, let shading else { return shape }
        let m = inkInset
        return shape.inMetal(loft: plateLoft, shading: shading, lighting: lighting,
                             clip: PixelBounds(minX: -m, minY: -m, maxX: canvas.width - 1 + m, maxY: canvas.height - 1 + m),
                             cache: cache)
    }

    /// Lights `height` rows of `width` shaded pixels that sit at (`originX`, `originY`) on the canvas.
    func light(_ pixels: UnsafeMutableBufferPointer<RGBA8>, width: Int, height: Int, originX: Int, originY: Int) {
        lighting?.apply(to: pixels, width: width, height: height, originX: originX, originY: originY)
    }

    /// A shaded region at `origin` of a `canvas`-sized canvas, made final: as it is on
    /// the plain path; else lit and put over the backdrop, the region's own size, or
    /// the whole canvas under a gradient. Returns the content and where it sits.
    /// `shading` is the title's, for a stroke in its metal.
    func composed(_ title: inout Image<RGBA8>, at origin: (x: Int, y: Int), canvas: (width: Int, height: Int),
                  shading: ShadingLookup? = nil) -> (content: Image<RGBA8>, origin: (x: Int, y: Int)) {
        guard !isPlain else { return (title, origin) }
        let plate = plateShape(region: origin, size: (title.width, title.height), canvas: canvas, shading: shading)
        var origin = origin
        if let placement {
            // Moved wholly off the canvas: one pixel of backdrop stands for the region.
            (title, origin) = placement.placed(title, at: origin, canvas: canvas) ?? (Image(width: 1, height: 1, repeating: .clear), (0, 0))
        }
        let (w, h) = (title.width, title.height)
        title.withUnsafeMutableBufferPointer { light($0, width: w, height: h, originX: origin.x, originY: origin.y) }
        if !styles.isEmpty {
            (title, origin) = styles.applied(to: title, at: origin, canvas: canvas, cache: nil, shape: nil,
                                             metal: strokeMetal(shading), plate: plate)
        }
        if backdrop.isGradient {
            var content = Image<RGBA8>(width: canvas.width, height: canvas.height, repeating: .clear)
            drawLit(title, at: origin, into: &content)
            return (content, (0, 0))
        }
        var content = Image<RGBA8>(width: title.width, height: title.height, repeating: .clear)
        drawLit(title, at: (0, 0), into: &content)
        return (content, origin)
    }

    /// Lights `title` (shaded for this compositing) and draws it at `origin` over the
    /// backdrop into the whole `canvas`. When `canvasShows` (the canvas holds a title
    /// of this shape, place and backdrop), only `changed` (indices into `title`, e.g. a
    /// shading plan's inked pixels) are drawn again, where `CanvasCompositor.redraw` can.
    /// With layer styles, their masks are kept in `styleCache` for a title of the `shape` settings
    /// (and a stroke in the title's metal is shaded by `shading`, the title's); a drop shadow
    /// and outer glow are knocked out under `knockout` (`LayerStyles.drawn`; nil: the title's ink).
    func draw(_ title: inout Image<RGBA8>, at origin: (x: Int, y: Int), into canvas: inout Image<RGBA8>,
              changed: [Int32]? = nil, canvasShows: Bool = false,
              styleCache: LayerStyleCache? = nil, shape: TitleShapeSettings? = nil, shading: ShadingLookup? = nil,
              knockout: Image<RGBA8>? = nil, laidOut: (origin: (x: Int, y: Int), size: (width: Int, height: Int))? = nil) {
        // A plate sizes to the title's region as laid out (a reveal's region is taller, by its letters' moves).
        let plate = plateShape(region: laidOut?.origin ?? origin, size: laidOut?.size ?? (title.width, title.height),
                               canvas: (canvas.width, canvas.height), shading: shading, cache: styleCache)
        if let placement {
            // The region moved or resized: lit where it now is, and the whole canvas drawn
            // (its style masks made anew: the moved region may be cut at the canvas's edge).
            guard var placed = placement.placed(title, at: origin, canvas: (canvas.width, canvas.height)) else {
                drawLit(Image(width: 0, height: 0, repeating: .clear), at: (0, 0), into: &canvas)
                return
            }
            let (w, h) = (placed.image.width, placed.image.height)
            placed.image.withUnsafeMutableBufferPointer { light($0, width: w, height: h, originX: placed.origin.x, originY: placed.origin.y) }
            if !styles.isEmpty {
                // The knock-out moved and resized as the title is.
                let knocked = knockout.flatMap { placement.placed($0, at: origin, canvas: (canvas.width, canvas.height))?.image }
                let styled = styles.applied(to: placed.image, at: placed.origin, canvas: (canvas.width, canvas.height),
                                            cache: nil, shape: nil, metal: strokeMetal(shading), knockout: knocked,
                                            plate: plate)
                drawLit(styled.content, at: styled.origin, into: &canvas)
                return
            }
            drawLit(placed.image, at: placed.origin, into: &canvas)
            return
        }
        let (w, h) = (title.width, title.height)
        title.withUnsafeMutableBufferPointer { light($0, width: w, height: h, originX: origin.x, originY: origin.y) }
        if !styles.isEmpty {
            let styled = styles.applied(to: title, at: origin, canvas: (canvas.width, canvas.height),
                                        cache: styleCache, shape: shape, metal: strokeMetal(shading), lighting: lighting,
                                        knockout: knockout, plate: plate)
            drawLit(styled.content, at: styled.origin, into: &canvas)
            return
        }
        if let changed, canvasShows,
           CanvasCompositor.redraw(title, pixels: changed, atX: origin.x, y: origin.y, over: backdrop, into: &canvas,
                                   opacity: opacity) {
            return
        }
        drawLit(title, at: origin, into: &canvas)
    }

    /// Layer styles drawn whole (a layer's, a frame's, as an animation and the live editor make them)
    /// are held to the streamed title's cap (`StyledBands.checkCap`): the title's region at
    /// `origin` (moved or zoomed as drawn), the region the styles draw and each style's
    /// plane (a stroke in the title's metal twice: its plane and its outline) at most 64 M values.
    func checkStyles(region size: (width: Int, height: Int), at origin: (x: Int, y: Int),
                     canvas: (width: Int, height: Int)) throws(MercurialError) {
        guard !styles.isEmpty, size.width > 0, size.height > 0 else { return }
        let drawn = placement.map { $0.mapping(size: size, at: origin, canvas: canvas)?.bounds }
            ?? PixelBounds(minX: origin.x, minY: origin.y, maxX: origin.x + size.width - 1, maxY: origin.y + size.height - 1)
        guard let drawn, let box = styles.drawnBox(drawn, canvas: canvas,
                                                   plate: plateShape(region: origin, size: size, canvas: canvas)) else { return }
        let metal = styles.stroke?.material == true ? 2 : 1
        let shares = styles.recipes.enumerated().map { kind, recipe in
            recipe.map { r in
                let b = r.bounds(drawn)
                return b.width * b.height * (kind == LayerStylePlanes.Kind.stroke.rawValue ? metal : 1)
            } ?? 0
        }
        try StyledBands.checkCap(total: drawn.width * drawn.height + box.width * box.height + shares.reduce(0, +),
                                 shares: shares, how: "in memory (a layer, an animation's frame, the live editor's): its styles' masks cover the region they reach, whole")
    }

    /// A stroke in the title's metal, shaded by `shading` and lit by the point lights; nil for a colour stroke.
    func strokeMetal(_ shading: ShadingLookup?) -> StrokeMetal? {
        guard let strokeLoft, let shading else { return nil }
        return StrokeMetal(loft: strokeLoft, shading: shading, lighting: lighting)
    }

    /// A lit title at `origin` on the whole `canvas`: the rows around it are the
    /// backdrop's, its own rows are composed (`compose`).
    private func drawLit(_ title: Image<RGBA8>, at origin: (x: Int, y: Int), into canvas: inout Image<RGBA8>) {
        precondition(origin.x >= 0 && origin.y >= 0 && origin.x + title.width <= canvas.width
                     && origin.y + title.height <= canvas.height,
                     "Content \(title.width)×\(title.height) at (\(origin.x), \(origin.y)) does not fit the \(canvas.width)×\(canvas.height) canvas")
        let width = canvas.width, height = canvas.height
        let ramp = GradientRamp(backdrop, width: width, height: height)
        let inside = origin.y..<(origin.y + title.height)
        canvas.withUnsafeMutableBufferPointer { out in
            parallelBands(height, minimumBand: 8) { rows in
                for y in rows where !inside.contains(y) { ramp.fill(row: out.baseAddress! + y * width, y: y, width: width) }
            }
            title.withUnsafeBufferPointer { part in
                compose(part, width: title.width, rows: title.height, atX: origin.x, y: origin.y, over: ramp,
                        into: out.baseAddress! + origin.y * width)
            }
        }
    }

    /// The one way shaded ink reaches the canvas, for a whole title and for a band of
    /// a large one: `rows` rows of `width` pixels (`content`, row after row, shaded and
    /// lit for this compositing) that sit at (`originX`, `originY`) on the canvas
    /// `ramp` covers, made final in the canvas rows from `canvasRows` on (`ramp.width`
    /// pixels each): the backdrop's row, the content over it (on the plain path its
    /// pixels are already final, except those left clear, which show the fill).
    func compose(_ content: UnsafeBufferPointer<RGBA8>, width: Int, rows: Int, atX originX: Int, y originY: Int,
                 over ramp: GradientRamp, into canvasRows: UnsafeMutablePointer<RGBA8>) {
        parallelBands(rows, minimumBand: 8) { band in
            for r in band {
                CanvasCompositor.composite(content.baseAddress! + r * width, count: width, atX: originX, over: ramp,
                                           y: originY + r, into: canvasRows + r * ramp.width, opacity: opacity)
            }
        }
    }
}

/// The per-pixel parts of compositing: a content pixel over the backdrop, and the
/// redraw of only the pixels that changed.
public enum CanvasCompositor {
    /// Draws again only `pixels` (indices into `content`) of a canvas that `draw` last
    /// drew (`Compositing.draw`) with content of this size, at this place, over this backdrop: where the
    /// content did not change, neither did the canvas. A frame whose lights moved
    /// changes only the title's inked pixels, a fifth of a 1920×1080 canvas. Each
    /// pixel comes out as `composite` makes it. False (nothing drawn) over a gradient,
    /// whose colour is made a row at a time.
    public static func redraw(_ content: Image<RGBA8>, pixels: [Int32], atX originX: Int, y originY: Int,
                              over backdrop: Backdrop, into canvas: inout Image<RGBA8>, opacity: UInt32 = 65535) -> Bool {
        precondition(originX >= 0 && originY >= 0 && originX + content.width <= canvas.width
                     && originY + content.height <= canvas.height,
                     "Content \(content.width)×\(content.height) at (\(originX), \(originY)) does not fit the \(canvas.width)×\(canvas.height) canvas")
        let fill: RGBA8?
        switch backdrop {
        case .transparent: fill = nil
        case .color(let c): fill = RGBA8(opaque: c)
        case .gradient: return false
        }
        let contentWidth = content.width, canvasWidth = canvas.width
        content.withUnsafeBufferPointer { part in
            pixels.withUnsafeBufferPointer { pixels in
                canvas.withUnsafeMutableBufferPointer { out in
                    parallelBands(pixels.count, minimumBand: 4096) { range in
                        for k in range {
                            let i = Int(pixels[k])
                            let p = part[i]
                            let at = (originY + i / contentWidth) * canvasWidth + originX + i % contentWidth
                            out[at] = over(p, backdrop: fill ?? .clear, opaque: fill != nil, opacity: opacity)
                        }
                    }
                }
            }
        }
        return true
    }

    /// One canvas row `y`: the backdrop, then `count` pixels of content (straight
    /// alpha) at `originX` over it.
    @inline(__always)
    static func composite(_ source: UnsafePointer<RGBA8>, count: Int, atX originX: Int, over ramp: GradientRamp,
                          y: Int, into row: UnsafeMutablePointer<RGBA8>, opacity: UInt32 = 65535) {
        ramp.fill(row: row, y: y, width: ramp.width)
        guard ramp.opaque || opacity != 65535 else {
            // Over a transparent backdrop a pixel at full opacity is as it is.
            (row + originX).update(from: source, count: count)
            return
        }
        for x in 0..<count {
            row[originX + x] = over(source[x], backdrop: row[originX + x], opaque: ramp.opaque, opacity: opacity)
        }
    }

    /// A content pixel (straight alpha, its alpha times `opacity` / 65535) on the canvas:
    /// as it is over a transparent backdrop (clear where no alpha is left); over an
    /// opaque one, laid over it (`PixelStack.over`; the backdrop where it is clear).
    @inline(__always)
    static func over(_ p: RGBA8, backdrop: RGBA8, opaque: Bool, opacity: UInt32 = 65535) -> RGBA8 {
        var p = p
        if opacity != 65535 {
            p.a = UInt8((UInt32(p.a) * opacity + 32767) / 65535)
            if p.a == 0 { p = .clear }
        }
        return opaque ? PixelStack.over(p, backdrop) : p
    }
}

/// The backdrop's colours row by row (`width` × `height` canvas): a single fill, or a gradient looked up in a
/// 1024-entry table along its axis (the position is linear in x along a row).
struct GradientRamp {
    let fillColor: RGBA8
    /// Whether the backdrop is opaque (a colour or a gradient), so content is blended over it.
    let opaque: Bool
    let gradient: BackgroundGradient?
    let table: [RGBA8]
    let width: Int, height: Int

    init(_ backdrop: Backdrop, width: Int, height: Int) {
        self.width = width
        self.height = height
        switch backdrop {
        case .transparent: fillColor = .clear; gradient = nil; table = []; opaque = false
        case .color(let c): fillColor = RGBA8(opaque: c); gradient = nil; table = []; opaque = true
        case .gradient(let g):
            fillColor = .clear
            opaque = true
            gradient = g
            table = (0..<1024).map { RGBA8(opaque: g.gradient.color(at: Float($0) / 1023)) }
        }
    }

    @inline(__always)
    func fill(row: UnsafeMutablePointer<RGBA8>, y: Int, width: Int) {
        guard let gradient else {
            row.update(repeating: fillColor, count: width)
            return
        }
        let t0 = gradient.position(x: 0, y: y, width: self.width, height: height)
        let dt = width > 1 ? gradient.position(x: 1, y: y, width: self.width, height: height) - t0 : 0
        if abs(dt) < 1e-9 {
            // Along the gradient's axis: one colour per row.
            row.update(repeating: table[Int(min(max(t0, 0), 1) * 1023 + 0.5)], count: width)
            return
        }
        table.withUnsafeBufferPointer { table in
            for x in 0..<width {
                let t = min(max(t0 + dt * Float(x), 0), 1)
                row[x] = table[Int(t * 1023 + 0.5)]
            }
        }
    }
}

/// Where a title's shaded region goes as drawn: moved by (`shiftX`, `shiftY`) pixels and
/// scaled by `zoom` about its centre, then cut at the canvas's edges. Whole-pixel moves
/// at the region's own size copy it; the rest resample it bilinearly in premultiplied
/// alpha (the shape is not lofted again, so a zoomed title is as soft as its zoom).
///
/// `clear` adds shares of the distance that takes the region, and `reach` pixels around it
/// (its styles: left, top, right, bottom), wholly off the canvas towards the sign's side:
/// -1 in x puts its right edge at the canvas's left. A slide with no distance moves so,
/// and where the title was laid out decides how far that is.
public struct RegionPlacement: Sendable, Equatable {
    public let shift: SIMD2<Double>
    public let zoom: Double
    public let clear: SIMD2<Double>
    let reach: SIMD4<Double>

    /// Nil when the settings leave the region where it was laid out, at its size.
    init?(shiftX: Double, shiftY: Double, zoom: Double, clear: SIMD2<Double> = .zero, reach: SIMD4<Double> = .zero) {
        guard shiftX != 0 || shiftY != 0 || zoom != 1 || clear != .zero else { return nil }
        shift = SIMD2(shiftX, shiftY)
        self.zoom = zoom
        self.clear = clear
        self.reach = reach
    }

    /// Where `settings` put a title's region, or nil.
    init?(_ settings: RenderSettings) {
        let r = settings.look.styles.reach(inset: settings.loftMargin)
        self.init(shiftX: settings.shiftX, shiftY: settings.shiftY, zoom: settings.zoom,
                  clear: SIMD2(settings.look.clearX, settings.look.clearY),
                  reach: SIMD4(Double(r.left), Double(r.top), Double(r.right), Double(r.bottom)))
    }

    /// The move of a `size` region at `origin` as drawn, `clear`'s share of the way off the canvas included.
    func drawnShift(size: (width: Int, height: Int), at origin: (x: Int, y: Int), canvas: (width: Int, height: Int)) -> SIMD2<Double> {
        let (w, h) = (Double(size.width), Double(size.height))
        return move(centre: SIMD2(Double(origin.x) + w / 2, Double(origin.y) + h / 2) + shift, half: SIMD2(w * zoom / 2, h * zoom / 2),
                    canvas: canvas)
    }

    /// The move, with `clear`'s share of the distance off the canvas added, for a region whose
    /// centre is at `centre` (moved by `shift`), half `half` wide and high as drawn.
    private func move(centre: SIMD2<Double>, half: SIMD2<Double>, canvas: (width: Int, height: Int)) -> SIMD2<Double> {
        guard clear != .zero else { return shift }
        func off(_ share: Double, _ centre: Double, _ half: Double, _ before: Double, _ after: Double, _ length: Int) -> Double {
            share < 0 ? share * (centre + half + after).rounded(.up) : share * (Double(length) - (centre - half - before)).rounded(.up)
        }
        return shift + SIMD2(off(clear.x, centre.x, half.x, reach[0], reach[2], canvas.width),
                             off(clear.y, centre.y, half.y, reach[1], reach[3], canvas.height))
    }

    /// `title` at `origin` as drawn on a `canvas`-sized canvas: the part inside the
    /// canvas and where it sits, or nil when nothing of it is.
    func placed(_ title: Image<RGBA8>, at origin: (x: Int, y: Int), canvas: (width: Int, height: Int))
        -> (image: Image<RGBA8>, origin: (x: Int, y: Int))? {
        guard title.count > 0, let m = mapping(size: (title.width, title.height), at: origin, canvas: canvas) else { return nil }
        let b = m.bounds
        if m.copies, b.minX == m.copyOrigin.x, b.minY == m.copyOrigin.y, b.width == title.width, b.height == title.height {
            return (title, (b.minX, b.minY))
        }
        var out = Image<RGBA8>(width: b.width, height: b.height, repeating: .clear)
        title.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                parallelBands(b.height, minimumBand: 8) { rows in
                    for y in rows {
                        let j = m.sourceRow(y).j
                        func row(_ j: Int) -> UnsafePointer<RGBA8>? { j >= 0 && j < title.height ? src.baseAddress! + j * title.width : nil }
                        m.draw(row: y, top: row(j), bottom: row(j + 1), into: dst.baseAddress! + y * b.width)
                    }
                }
            }
        }
        return (out, (b.minX, b.minY))
    }

    /// How a `size` region at `origin` is placed on a `canvas`-sized canvas (nil: none of it is on the canvas).
    func mapping(size: (width: Int, height: Int), at origin: (x: Int, y: Int), canvas: (width: Int, height: Int)) -> Mapping? {
        let (w, h) = (Double(size.width), Double(size.height))
        let halfW = w * zoom / 2, halfH = h * zoom / 2
        let laidOut = SIMD2(Double(origin.x) + w / 2, Double(origin.y) + h / 2)
        let shift = move(centre: laidOut + self.shift, half: SIMD2(halfW, halfH), canvas: canvas)
        let centre = laidOut + shift
        let x0 = max(Int(pixel: centre.x - halfW, .down), 0), x1 = min(Int(pixel: centre.x + halfW, .up), canvas.width)
        let y0 = max(Int(pixel: centre.y - halfH, .down), 0), y1 = min(Int(pixel: centre.y + halfH, .up), canvas.height)
        guard zoom > 0, size.width > 0, size.height > 0, x0 < x1, y0 < y1 else { return nil }
        let copies = zoom == 1 && shift.x == shift.x.rounded() && shift.y == shift.y.rounded()
        // Each canvas pixel's centre, back in the region's pixels.
        let scale = 1 / zoom
        return Mapping(bounds: PixelBounds(minX: x0, minY: y0, maxX: x1 - 1, maxY: y1 - 1), source: size,
                       copies: copies, copyOrigin: copies ? (origin.x + Int(pixel: shift.x), origin.y + Int(pixel: shift.y)) : (0, 0),
                       u0: (Double(x0) + 0.5 - centre.x) * scale + w / 2 - 0.5,
                       v0: (Double(y0) + 0.5 - centre.y) * scale + h / 2 - 0.5, scale: scale)
    }

    /// A placed region's rows, each drawn from the two source rows it falls between
    /// (the whole region's, `placed`; or a window of them, `PlacedBands`).
    struct Mapping {
        /// The canvas pixels the placed region covers.
        let bounds: PixelBounds
        /// The region's size.
        let source: (width: Int, height: Int)
        /// A whole-pixel move at the region's size: rows are copied, from the region at `copyOrigin`.
        let copies: Bool
        let copyOrigin: (x: Int, y: Int)
        let u0: Double, v0: Double, scale: Double

        /// The source row that row `y` of `bounds` (from 0) reads, with the one below it, and its weight.
        func sourceRow(_ y: Int) -> (j: Int, ty: Float) {
            if copies { return (bounds.minY + y - copyOrigin.y, 0) }
            let v = v0 + Double(y) * scale
            let j = Int(v.rounded(.down))
            return (j, Float(v - Double(j)))
        }

        /// Row `y` of `bounds` (from 0) into `out`, from source rows `j` (`top`) and `j + 1`
        /// (`bottom`) of `sourceRow(y)`, nil where outside the region: copied, or
        /// resampled bilinearly in premultiplied alpha.
        func draw(row y: Int, top: UnsafePointer<RGBA8>?, bottom: UnsafePointer<RGBA8>?, into out: UnsafeMutablePointer<RGBA8>) {
            let ow = bounds.width, sw = source.width
            if copies {
                guard let top else { return }
                out.update(from: top + (bounds.minX - copyOrigin.x), count: ow)
                return
            }
            let ty = sourceRow(y).ty
            guard top != nil || bottom != nil else { return }
            for x in 0..<ow {
                let u = u0 + Double(x) * scale
                let i = Int(u.rounded(.down)), tx = Float(u - Double(i))
                guard i >= -1 && i < sw else { continue }
                var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                @inline(__always) func tap(_ row: UnsafePointer<RGBA8>?, _ si: Int, _ weight: Float) {
                    guard weight > 0, let row, si >= 0, si < sw else { return }
                    let p = row[si], wa = weight * Float(p.a)
                    r += wa * Float(p.r); g += wa * Float(p.g); b += wa * Float(p.b); a += wa
                }
                tap(top, i, (1 - tx) * (1 - ty)); tap(top, i + 1, tx * (1 - ty))
                tap(bottom, i, (1 - tx) * ty); tap(bottom, i + 1, tx * ty)
                guard a >= 0.5 else { continue }
                out[x] = RGBA8(r: UInt8(min(r / a + 0.5, 255)), g: UInt8(min(g / a + 0.5, 255)),
                               b: UInt8(min(b / a + 0.5, 255)), a: UInt8(min(a + 0.5, 255)))
            }
        }
    }
}
