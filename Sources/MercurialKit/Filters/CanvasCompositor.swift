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
public struct Compositing: Sendable, Equatable {
    public let backdrop: Backdrop
    public let lighting: PointLighting?
    /// Whether the shaded pixels are final as they are (no lights to apply, no gradient to blend over).
    public let isPlain: Bool
    /// The colour the shading mixes ink with (the plain path over a colour), else nil.
    public let shadingBackground: RGBColor?
    /// Drawn around the lit title, before the backdrop (`LayerStyles.applied`).
    public let styles: LayerStyles

    public init(_ settings: RenderSettings) {
        backdrop = Backdrop(settings)
        lighting = settings.pointLighting
        styles = settings.look.styles
        isPlain = lighting == nil && !backdrop.isGradient && styles.isEmpty
        shadingBackground = isPlain ? settings.background : nil
    }

    /// The canvas's colour around the drawn region (a gradient's region covers the canvas).
    public var fill: RGBA8 { if case .color(let c) = backdrop { RGBA8(opaque: c) } else { .clear } }

    /// Lights `height` rows of `width` shaded pixels that sit at (`originX`, `originY`) on the canvas.
    func light(_ pixels: UnsafeMutableBufferPointer<RGBA8>, width: Int, height: Int, originX: Int, originY: Int) {
        lighting?.apply(to: pixels, width: width, height: height, originX: originX, originY: originY)
    }

    /// A shaded region at `origin` of a `canvas`-sized canvas, made final: as it is on
    /// the plain path; else lit and put over the backdrop, the region's own size, or
    /// the whole canvas under a gradient. Returns the content and where it sits.
    func composed(_ title: inout Image<RGBA8>, at origin: (x: Int, y: Int), canvas: (width: Int, height: Int))
        -> (content: Image<RGBA8>, origin: (x: Int, y: Int)) {
        guard !isPlain else { return (title, origin) }
        let (w, h) = (title.width, title.height)
        title.withUnsafeMutableBufferPointer { light($0, width: w, height: h, originX: origin.x, originY: origin.y) }
        var origin = origin
        if !styles.isEmpty {
            (title, origin) = styles.applied(to: title, at: origin, canvas: canvas, cache: nil, shape: nil)
        }
        let (w2, h2) = (title.width, title.height)
        if backdrop.isGradient {
            var content = Image<RGBA8>(width: canvas.width, height: canvas.height, repeating: .clear)
            CanvasCompositor.draw(title, atX: origin.x, y: origin.y, over: backdrop, into: &content)
            return (content, (0, 0))
        }
        var content = Image<RGBA8>(width: w2, height: h2, repeating: .clear)
        CanvasCompositor.draw(title, atX: 0, y: 0, over: backdrop, into: &content)
        return (content, origin)
    }

    /// Lights `title` (shaded for this compositing) and draws it at `origin` over the
    /// backdrop into the whole `canvas`. When `canvasShows` (the canvas holds a title
    /// of this shape, place and backdrop), only `changed` (indices into `title`, e.g. a
    /// shading plan's inked pixels) are drawn again, where `CanvasCompositor.redraw` can.
    /// With layer styles, their masks are kept in `styleCache` for a title of the `shape` settings.
    func draw(_ title: inout Image<RGBA8>, at origin: (x: Int, y: Int), into canvas: inout Image<RGBA8>,
              changed: [Int32]? = nil, canvasShows: Bool = false,
              styleCache: LayerStyleCache? = nil, shape: TitleShapeSettings? = nil) {
        let (w, h) = (title.width, title.height)
        title.withUnsafeMutableBufferPointer { light($0, width: w, height: h, originX: origin.x, originY: origin.y) }
        if !styles.isEmpty {
            let styled = styles.applied(to: title, at: origin, canvas: (canvas.width, canvas.height),
                                        cache: styleCache, shape: shape)
            CanvasCompositor.draw(styled.content, atX: styled.origin.x, y: styled.origin.y, over: backdrop, into: &canvas)
            return
        }
        if let changed, canvasShows,
           CanvasCompositor.redraw(title, pixels: changed, atX: origin.x, y: origin.y, over: backdrop, into: &canvas) {
            return
        }
        CanvasCompositor.draw(title, atX: origin.x, y: origin.y, over: backdrop, into: &canvas)
    }
}

/// Draws a title's content onto a whole canvas: the backdrop, then the content
/// (straight alpha) over it at its place.
public enum CanvasCompositor {
    public static func draw(_ content: Image<RGBA8>, atX originX: Int, y originY: Int, over backdrop: Backdrop,
                            into canvas: inout Image<RGBA8>) {
        precondition(originX >= 0 && originY >= 0 && originX + content.width <= canvas.width
                     && originY + content.height <= canvas.height,
                     "Content \(content.width)×\(content.height) at (\(originX), \(originY)) does not fit the \(canvas.width)×\(canvas.height) canvas")
        let width = canvas.width, height = canvas.height
        let ramp = GradientRamp(backdrop, width: width, height: height)
        content.withUnsafeBufferPointer { part in
            canvas.withUnsafeMutableBufferPointer { out in
                parallelBands(height, minimumBand: 8) { rows in
                    for y in rows {
                        let row = out.baseAddress! + y * width
                        guard y >= originY && y < originY + content.height else {
                            ramp.fill(row: row, y: y, width: width)
                            continue
                        }
                        composite(part.baseAddress! + (y - originY) * content.width, count: content.width,
                                  atX: originX, over: ramp, y: y, into: row)
                    }
                }
            }
        }
    }

    /// Draws again only `pixels` (indices into `content`) of a canvas that `draw` last
    /// drew with content of this size, at this place, over this backdrop: where the
    /// content did not change, neither did the canvas. A frame whose lights moved
    /// changes only the title's inked pixels, a fifth of a 1920×1080 canvas. Each
    /// pixel comes out as `composite` makes it. False (nothing drawn) over a gradient,
    /// whose colour is made a row at a time.
    public static func redraw(_ content: Image<RGBA8>, pixels: [Int32], atX originX: Int, y originY: Int,
                              over backdrop: Backdrop, into canvas: inout Image<RGBA8>) -> Bool {
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
                            out[at] = over(p, backdrop: fill ?? .clear, opaque: fill != nil)
                        }
                    }
                }
            }
        }
        return true
    }

    /// One canvas row `y`: the backdrop, then `count` pixels of content (straight
    /// alpha) at `originX` over it. The streamed render composites with this too.
    @inline(__always)
    static func composite(_ source: UnsafePointer<RGBA8>, count: Int, atX originX: Int, over ramp: GradientRamp,
                          y: Int, into row: UnsafeMutablePointer<RGBA8>) {
        ramp.fill(row: row, y: y, width: ramp.width)
        for x in 0..<count {
            row[originX + x] = over(source[x], backdrop: row[originX + x], opaque: ramp.opaque)
        }
    }

    /// A content pixel (straight alpha) on the canvas: as it is over a transparent
    /// backdrop; over an opaque one, blended with it (the backdrop where it is clear).
    @inline(__always)
    static func over(_ p: RGBA8, backdrop: RGBA8, opaque: Bool) -> RGBA8 {
        !opaque || p.a == 255 ? p : p.a > 0 ? blend(p, over: backdrop) : backdrop
    }

    /// `p` (straight alpha) over the opaque `b`.
    @inline(__always)
    static func blend(_ p: RGBA8, over b: RGBA8) -> RGBA8 {
        let a = UInt32(p.a), ia = 255 - a
        @inline(__always) func mix(_ f: UInt8, _ g: UInt8) -> UInt8 {
            UInt8((UInt32(f) * a + UInt32(g) * ia + 127) / 255)
        }
        return RGBA8(r: mix(p.r, b.r), g: mix(p.g, b.g), b: mix(p.b, b.b), a: 255)
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
