/// One title of a `layers` list: its own settings (the scene's top level with the
/// layer's keys over it), its name, and what it is stacked under.
public struct TitleLayer: Sendable, Equatable {
    public var name: String?
    /// The name of the layer this one sits under; nil: placed on its own, by its anchor.
    public var below: String?
    /// Pixels between the ink of the layer above and this one's.
    public var gap: Double = 12
    public var settings: RenderSettings
    /// The scene's keys this layer gives itself, and those its own preset sets (nil: it names none).
    public var ownKeys: Set<String> = []
    public var presetKeys: Set<String>? = nil
    /// The layer's own `in` and `out` (moves that run together), over the scene's; and their
    /// tracks, made when the animation is read (nil: the layer has neither).
    public var entrances: [Entrance] = []
    public var exits: [Entrance] = []
    public var inOut: InOut? = nil

    public init(settings: RenderSettings) { self.settings = settings }

    /// The most layers a scene may have.
    public static let maximum = 16
}

/// What a stack's placement measures of a layer: its ink's size, and a text layer's text as
/// wrapped and size as shrunk to fit (an image layer keeps its own).
struct LayerMeasure {
    var inkSize: (width: Int, height: Int)
    var text: String?
    var size: Double
}

/// A scene with `layers`: each layer shaped, shaded and lit as a title is (a still of
/// the one renderer), stacked, and painted in order over the first one's canvas
/// (straight-alpha "over", also over a transparent backdrop).
///
/// A stack (a layer and those `below` it, and so on) is placed as one box by its top
/// layer's anchor, margin and offset; each layer's lines align to that anchor's side
/// unless it sets `align`. The canvas (`width`, `height`) and the backdrop are the
/// first layer's.
public enum LayeredTitle {
    static func render(_ settings: RenderSettings) throws(MercurialError) -> RenderedTitle {
        let (width, height) = try canvas(of: settings)
        // Painted whole, as an animation's frame is: 16384×16384 took 2.2 GB (a still streams: `LayeredBands`).
        guard width * height <= FrameRenderer.maximumFramePixels else {
            throw MercurialError.limit("layers are painted on their canvas in memory, so it may have at most \(FrameRenderer.maximumFramePixels / 1_000_000) M pixels (7680×4320), as an animation's frame; this one is \(width)×\(height); use a smaller \"width\" and \"height\"")
        }
        let (placed, placing) = try place(settings.layers, width: width, height: height)
        var canvas: Image<RGBA8>? = nil
        var warnings = placing
        var timings = StageTimings()
        for (index, layer) in placed.enumerated() {
            var s = layer
            if index > 0 { (s.background, s.backgroundGradient) = (nil, nil) }
            let title: RenderedTitle
            do throws(MercurialError) {
                title = try FrameRenderer.still(s, premade: nil)
            } catch {
                throw error.within("layer \(index + 1)")
            }
            warnings += title.warnings.map { MercurialWarning("layer \(index + 1): \($0.message)") }
            timings.mask += title.timings.mask
            timings.heightField += title.timings.heightField
            timings.shading += title.timings.shading
            timings.material += title.timings.material
            if canvas == nil {
                canvas = title.image
            } else {
                paint(title.canvas, over: &canvas!)
            }
        }
        return RenderedTitle(width: width, height: height, content: canvas!, originX: 0, originY: 0,
                             fill: .clear, warnings: warnings, timings: timings)
    }

    /// The canvas the layers share: the first layer's `width` and `height`.
    static func canvas(of settings: RenderSettings) throws(MercurialError) -> (width: Int, height: Int) {
        guard let first = settings.layers.first else { throw MercurialError("\"layers\" is empty; give at least one layer, or leave \"layers\" out") }
        guard let width = first.settings.width, let height = first.settings.height else {
            throw MercurialError("\"layers\" needs the canvas's \"width\" and \"height\" (the layers are placed on it together); give both")
        }
        return (width, height)
    }

    /// Each layer's settings, placed: on the shared canvas, at the top-left of where its ink
    /// goes, with its text as wrapped and its size as shrunk to fit; and the warnings of the
    /// placement (a stack shrunk to fit, layers that overlap).
    ///
    /// A stack's layers are measured in the room its top layer's margin leaves (wrapped at
    /// spaces to its width, as one title on that canvas is), and the stack is shrunk, sizes and
    /// gaps alike, until it fits the room's height: a longer name grows the stack towards the
    /// canvas's middle, never past the margin.
    static func place(_ layers: [TitleLayer], width: Int, height: Int) throws(MercurialError)
        -> (settings: [RenderSettings], warnings: [MercurialWarning]) {
        let placed = try placeWithInk(layers, width: width, height: height)
        return (placed.settings, placed.warnings)
    }

    /// Where each layer's ink goes on the canvas (the editor selects a layer by a click on it).
    public static func inkBoxes(of settings: RenderSettings) throws(MercurialError) -> [PixelBounds] {
        let (width, height) = try canvas(of: settings)
        return try placeWithInk(settings.layers, width: width, height: height).ink
    }

    /// `place`, with each layer's ink box.
    static func placeWithInk(_ layers: [TitleLayer], width: Int, height: Int) throws(MercurialError)
        -> (settings: [RenderSettings], warnings: [MercurialWarning], ink: [PixelBounds]) {
        for layer in layers {
            guard layer.settings.text != nil || layer.settings.image != nil else {
                throw MercurialError("each layer needs a \"text\" or an \"image\" (a --mask title cannot be a layer)")
            }
            guard layer.settings.mask == nil, layer.settings.vine == nil else { throw MercurialError("a layer cannot have a \"mask\" or a \"vine\"; leave them out of \"layers\"") }
        }
        let above = try stacking(layers)
        var settings = layers.map(\.settings)
        var warnings: [MercurialWarning] = []
        var inked: [(name: String, box: PixelBounds)] = []
        var inkBoxes = [PixelBounds](repeating: PixelBounds(minX: 0, minY: 0, maxX: -1, maxY: -1), count: layers.count)
        func label(_ index: Int) -> String { layers[index].name.map { "\"\($0)\"" } ?? "\(index + 1)" }
        // Each stack from its top: the layers under it, in order, and the box they make.
        for top in layers.indices where above[top] == nil {
            var stack = [top]
            while let next = above.firstIndex(where: { $0 == stack.last }) { stack.append(next) }
            let head = layers[top].settings
            var frame = head.textFrame
            (frame.width, frame.height, frame.platePadding) = (width, height, nil)
            let inset = (x: try frame.inset(width, side: "width"), y: try frame.inset(height, side: "height"))
            let room = (width: width - inset.x.total, height: height - inset.y.total)
            guard room.width >= 1, room.height >= 1 else {
                throw MercurialError("the margin of layer \(label(top)) leaves no room on the \(width)×\(height) canvas; use a smaller \"margin\" or \"padding\"")
            }
            var scale = 1.0
            var measured: [LayerMeasure] = [], y: [Int] = []
            // Each layer's plate padding in whole pixels: the layer's box is its ink and its plate, stacked and placed as one.
            let pads = stack.map { index -> (top: Int, right: Int, bottom: Int, left: Int) in
                let p = layers[index].settings.look.styles.plate?.padding ?? .zero
                return (Int(p[0].rounded(.up)), Int(p[1].rounded(.up)), Int(p[2].rounded(.up)), Int(p[3].rounded(.up)))
            }
            func boxSize(_ i: Int) -> (width: Int, height: Int) {
                (measured[i].inkSize.width + pads[i].left + pads[i].right, measured[i].inkSize.height + pads[i].top + pads[i].bottom)
            }
            // The stack's box reaches from its top layer's top to the lowest box (with overlaps, not the last layer's).
            func boxHeight() -> Int { y.indices.map { y[$0] + boxSize($0).height }.max()! }
            for attempt in 0..<8 {
                measured = []
                for (i, index) in stack.enumerated() {
                    var s = layers[index].settings
                    if scale < 1 { s.size = max(((s.size ?? TextMask.defaultSize) * scale).rounded(.down), 1) }
                    (s.width, s.height, s.padding, s.offset, s.anchor) = (width, nil, nil, .zero, .topLeft)
                    s.shape.platePadding = nil
                    let pad = pads[i]
                    s.margin = .sides(.pixels(Double(inset.y.start + pad.top)), .pixels(Double(inset.x.end + pad.right)),
                                      .pixels(Double(inset.y.end + pad.bottom)), .pixels(Double(inset.x.start + pad.left)))
                    do throws(MercurialError) {
                        if let image = s.image {
                            let ink = try ImageTitle.inkSize(image)
                            measured.append(LayerMeasure(inkSize: ink, text: nil, size: s.size ?? TextMask.defaultSize))
                        } else {
                            let p = try TextMask.place(try TitleRenderer.textLayout(s, text: s.text ?? ""), frame: s.textFrame)
                            measured.append(LayerMeasure(inkSize: p.inkSize, text: p.text, size: p.size))
                        }
                    } catch {
                        throw error.within("layer \(label(index))")
                    }
                }
                y = [0]
                for i in stack.indices.dropFirst() {
                    let gap = layers[stack[i]].gap, over = boxSize(i - 1).height
                    // A negative gap overlaps a layer with the one it is below, up to the top of that layer's ink.
                    guard gap >= 0 || (gap * scale).rounded() >= -Double(over) else {
                        throw MercurialError("layer \(label(stack[i])): \"gap\" \(formatNumber(gap)) lifts it above the top of layer \(label(stack[i - 1])), whose ink is \(over) px tall\(scale < 1 ? " as shrunk to fit" : ""); give a \"gap\" from -\(over) (the layers overlap wholly) up")
                    }
                    y.append(y[i - 1] + over + Int(pixel: gap * scale))
                }
                guard boxHeight() > room.height, attempt < 7 else { break }
                scale *= Double(room.height) / Double(boxHeight()) * 0.995
            }
            let box = (width: stack.indices.map { boxSize($0).width }.max()!, height: boxHeight())
            if scale < 1 {
                let names = stack.count == 1 ? "layer \(label(top))" : "the stack of layers \(stack.map(label).joined(separator: ", "))"
                let fits = box.height <= room.height ? "" : " and still does not fit"
                warnings.append(MercurialWarning("\(names) was shrunk to \(formatNumber((scale * 1000).rounded() / 10)) % to fit the \(room.width)×\(room.height) room inside the margin\(fits); use smaller sizes or fewer lines"))
            }
            for (i, index) in stack.enumerated() where layers[index].settings.image == nil {
                let requested = layers[index].settings.size ?? TextMask.defaultSize
                if scale == 1, measured[i].size < requested {
                    warnings.append(MercurialWarning("layer \(label(index)): the text was shrunk from \(formatNumber(requested)) px to \(formatNumber(measured[i].size)) px to fit the \(room.width) px inside the margin"))
                }
            }
            let x0 = TextFrame.position(length: width, inset: inset.x, ink: box.width, side: head.anchor.horizontal, offset: head.offset.x)
            let y0 = TextFrame.position(length: height, inset: inset.y, ink: box.height, side: head.anchor.vertical, offset: head.offset.y)
            for (i, index) in stack.enumerated() {
                let size = boxSize(i)
                let free = box.width - size.width
                let x = x0 + [0, free / 2, free][head.anchor.horizontal]
                var s = settings[index]
                // The text as wrapped and the size as shrunk here: on the whole canvas they lay out the same.
                if s.image == nil { (s.text, s.size) = (measured[i].text, measured[i].size) }
                s.alignment = s.alignment ?? head.anchor.alignment
                (s.width, s.height, s.anchor, s.margin, s.padding) = (width, height, .topLeft, .pixels(0), nil)
                s.shape.platePadding = nil
                // The ink inside the layer's box, its plate's padding from the box's edges.
                s.offset = SIMD2(Double(x + pads[i].left), Double(y0 + y[i] + pads[i].top))
                settings[index] = s
                let placed = PixelBounds(minX: x, minY: y0 + y[i], maxX: x + size.width - 1, maxY: y0 + y[i] + size.height - 1)
                for other in inked where other.box.minX <= placed.maxX && placed.minX <= other.box.maxX
                    && other.box.minY <= placed.maxY && placed.minY <= other.box.maxY {
                    warnings.append(MercurialWarning("layers \(other.name) and \(label(index)) overlap; give \"below\" (or a larger \"gap\") to stack them"))
                }
                inked.append((label(index), placed))
                inkBoxes[index] = placed
            }
        }
        return (settings, warnings, inkBoxes)
    }

    /// For each layer, the index of the layer it is `below` (nil: the top of a stack); refuses
    /// duplicate names, unknown references, two layers under one, and cycles.
    static func stacking(_ layers: [TitleLayer]) throws(MercurialError) -> [Int?] {
        var names: [String: Int] = [:]
        for (i, layer) in layers.enumerated() {
            guard let name = layer.name else { continue }
            if let j = names[name] {
                throw MercurialError("layers \(j + 1) and \(i + 1) are both named \"\(name)\"; give each layer its own \"name\"")
            }
            names[name] = i
        }
        var above: [Int?] = []
        for (i, layer) in layers.enumerated() {
            guard let reference = layer.below else { above.append(nil); continue }
            guard let j = names[reference] else {
                let hint = closestMatch(to: reference, in: Array(names.keys)).map { "; did you mean \"\($0)\"?" } ?? ""
                throw MercurialError("layer \(i + 1) is \"below\" \"\(reference)\", which names no layer\(hint)")
            }
            guard j != i else { throw MercurialError("layer \(i + 1) (\"\(reference)\") is \"below\" itself; name another layer") }
            if let k = above.firstIndex(where: { $0 == j }) {
                throw MercurialError("layers \(k + 1) and \(i + 1) are both \"below\" \"\(reference)\"; put one below the other")
            }
            above.append(j)
        }
        for start in layers.indices {
            var seen: Set<Int> = [start], at = start
            while let next = above[at] {
                guard !seen.contains(next) else {
                    throw MercurialError("the layers' \"below\" references make a loop through layer \(start + 1); one layer of the stack must be on top (no \"below\")")
                }
                seen.insert(next)
                at = next
            }
        }
        return above
    }

    /// `title` (straight alpha) over `canvas` (straight alpha, transparent or not), on both cores.
    static func paint(_ title: CanvasRegion<RGBA8>, over canvas: inout Image<RGBA8>) {
        paint(title.content, from: (0, 0), size: (title.content.width, title.content.height),
              at: (title.originX, title.originY), over: &canvas)
    }

    /// The `size` rectangle of `source` at `from`, painted "over" `canvas` at `at`.
    static func paint(_ source: Image<RGBA8>, from: (x: Int, y: Int), size: (width: Int, height: Int),
                      at: (x: Int, y: Int), over canvas: inout Image<RGBA8>) {
        let (stride, width) = (source.width, canvas.width)
        source.withUnsafeBufferPointer { source in
            canvas.withUnsafeMutableBufferPointer { out in
                parallelBands(size.height, minimumBand: 8) { rows in
                    for y in rows {
                        let row = source.baseAddress! + (y + from.y) * stride + from.x
                        PixelStack.paint(row, over: out.baseAddress! + (y + at.y) * width + at.x, count: size.width)
                    }
                }
            }
        }
    }
}

/// The frames of a scene with `layers`: one `FrameRenderer` per layer, each keeping its
/// layer's shape between frames as it keeps one title's (made again only when that
/// layer's shape keys change), painted in order on one canvas per frame.
///
/// Each layer's frame is made as one title's frame is, from the layer's settings at that
/// time (placed on the canvas), then painted "over" the layers before it: the first
/// draws the canvas and its backdrop, the others draw on a clear canvas of their own,
/// shared, from which the region around their ink is painted. The stack is placed again
/// only when a track changes a layer's shape keys (text, size, offset, …) or a gap.
final class LayeredFrames {
    let width: Int, height: Int
    private var renderers: [FrameRenderer] = []
    /// The layers' shapes and gaps the placement was made for, and each layer's placed shape.
    private var placedFor: [PlacementKey] = []
    private var placedShapes: [TitleShapeSettings] = []
    /// The frame; and the clear canvas the layers above the first are drawn on.
    private var canvas: Image<RGBA8>
    private var scratch: Image<RGBA8>
    private(set) var warnings: [MercurialWarning] = []

    private struct PlacementKey: Equatable { var shape: TitleShapeSettings, gap: Double }

    /// The most pixels all the layers' regions (where each is lofted, kept in memory) may
    /// have together: twice what one animated title may have.
    static let maximumTotalRegionPixels = 2 * FrameRenderer.maximumRegionPixels

    /// Frame 0's settings; its canvas (`width`, `height`) is every frame's. The scene's
    /// `in` and `out` are each layer's (a reveal shows each layer's letters), as is a
    /// layer's own reveal; a layer's letters are revealed one way at a time.
    init(_ first: RenderSettings, inOut: InOut? = nil) throws(MercurialError) {
        guard let top = first.layers.first, let width = top.settings.width, let height = top.settings.height else {
            throw MercurialError("\"layers\" needs the canvas's \"width\" and \"height\" (the layers are placed on it together); give both")
        }
        (self.width, self.height) = (width, height)
        let (placed, placing) = try Self.placed(first.layers, into: &placedFor, &placedShapes, width: width, height: height)
        warnings = placing
        var total = 0
        for (index, layer) in placed.enumerated() {
            let planned = try TitleRenderer.plannedSize(layer)
            total += planned.region.width * planned.region.height
            guard total <= Self.maximumTotalRegionPixels else {
                throw MercurialError.limit("an animation's layers are lofted in memory, from at most \(Self.maximumTotalRegionPixels / 1_048_576) M pixels together; layers 1 to \(index + 1) have \(total / 1_048_576) M; use fewer layers or smaller sizes")
            }
        }
        for (index, layer) in placed.enumerated() {
            do throws(MercurialError) {
                // The reveal the layer's renderer maps letters for: the layer's own, else the scene's.
                let own = first.layers[index].inOut
                if own?.reveals == true && inOut?.reveals == true {
                    throw MercurialError("both the scene's and the layer's own in or out reveal its letters; keep one reveal")
                }
                let revealing = own?.reveals == true ? own : inOut
                var timeline = Timeline(duration: revealing?.duration ?? 1)
                timeline.inOut = revealing
                let renderer = try FrameRenderer(base: layer, timeline: timeline)
                warnings += renderer.warnings.map { MercurialWarning("layer \(index + 1): \($0.message)") }
                renderers.append(renderer)
            } catch {
                throw error.within("layer \(index + 1)")
            }
        }
        canvas = Image(width: width, height: height, repeating: .clear)
        scratch = Image(width: placed.count > 1 ? width : 0, height: placed.count > 1 ? height : 0, repeating: .clear)
    }

    /// The first layer's shape: what a layered `FrameRenderer` keeps as its own (unused).
    var firstGeometry: FrameRenderer.Geometry { renderers[0].geometry }

    /// How many times each layer's shape was built.
    var geometryBuilds: [Int] { renderers.map(\.geometryBuilds) }

    /// The frame for `settings` (a layered scene's settings at some time); `at` names the frame in messages.
    func render(_ settings: RenderSettings, at: String) throws(MercurialError) -> Image<RGBA8> {
        let layers = settings.layers
        guard layers.count == renderers.count else {
            throw MercurialError("the layers change from \(renderers.count) to \(layers.count)\(at); a renderer draws the layers it was made for")
        }
        for layer in layers where layer.settings.width != width || layer.settings.height != height {
            throw MercurialError("the canvas changes from \(width)×\(height) to \(layer.settings.width ?? 0)×\(layer.settings.height ?? 0)\(at); the layers' \"width\" and \"height\" are the canvas's, which every frame shares: do not animate them")
        }
        if layers.map({ PlacementKey(shape: $0.settings.shape, gap: $0.gap) }) != placedFor {
            _ = try Self.placed(layers, into: &placedFor, &placedShapes, width: width, height: height)
        }
        for (index, layer) in layers.enumerated() {
            var s = layer.settings
            s.shape = placedShapes[index]
            do throws(MercurialError) {
                if index == 0 {
                    try renderers[0].render(s, into: &canvas, showing: nil)
                    continue
                }
                (s.background, s.backgroundGradient) = (nil, nil)
                try renderers[index].render(s, into: &scratch, showing: nil)
            } catch {
                throw error.within("layer \(index + 1)")
            }
            // A layer drawn only inside its title's region is painted from there; one with
            // styles, moved, scaled or revealed letter by letter reaches past it: all of it.
            let confined = s.look.styles.isEmpty && s.look.reveal == nil && Compositing(s).placement == nil
            let titleRegion = renderers[index].titleRegion
            let (origin, size) = confined ? (titleRegion.origin, titleRegion.size) : ((x: 0, y: 0), (width: width, height: height))
            LayeredTitle.paint(scratch, from: origin, size: size, at: origin, over: &canvas)
        }
        return canvas
    }

    /// `layers` placed on the canvas, recording what the placement was made for and each layer's placed shape.
    private static func placed(_ layers: [TitleLayer], into key: inout [PlacementKey], _ shapes: inout [TitleShapeSettings],
                               width: Int, height: Int) throws(MercurialError) -> (settings: [RenderSettings], warnings: [MercurialWarning]) {
        let placed = try LayeredTitle.place(layers, width: width, height: height)
        key = layers.map { PlacementKey(shape: $0.settings.shape, gap: $0.gap) }
        shapes = placed.settings.map(\.shape)
        return placed
    }
}
