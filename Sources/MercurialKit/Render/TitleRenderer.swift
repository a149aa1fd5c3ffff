import FoundationEssentials

/// A rendered title and what happened on the way.
///
/// Only the part of the canvas around the ink is drawn: `canvas` is that region
/// placed in a canvas of the fill (transparent, or the background). A
/// `PNGSink` turns it into bytes without making the whole canvas.
public struct RenderedTitle: Sendable {
    public var canvas: CanvasRegion<RGBA8>
    public var warnings: [MercurialWarning]
    public var timings: StageTimings

    /// `content` placed at `originX`, `originY` in a `width` × `height` canvas of `fill`.
    public init(width: Int, height: Int, content: Image<RGBA8>, originX: Int, originY: Int, fill: RGBA8,
                warnings: [MercurialWarning], timings: StageTimings) {
        canvas = CanvasRegion(width: width, height: height, content: content, originX: originX, originY: originY, fill: fill)
        self.warnings = warnings
        self.timings = timings
    }

    public var width: Int { canvas.width }
    public var height: Int { canvas.height }
    /// The whole canvas.
    public var image: Image<RGBA8> { canvas.image }
}

/// Milliseconds spent in each stage of one render.
public struct StageTimings: Sendable {
    public var mask = 0.0, heightField = 0.0, shading = 0.0, material = 0.0
    public var total: Double { mask + heightField + shading + material }
}

/// The whole pipeline: text (or a mask PNG) → mask → height field → shaded
/// material, with the shading sphere (or a shading image) → RGBA image.
public enum TitleRenderer {
    /// A still title: frame 0 of the renderer that animates (`FrameRenderer.still`).
    public static func render(_ settings: RenderSettings) throws(MercurialError) -> RenderedTitle {
        if !settings.layers.isEmpty { return try LayeredTitle.render(settings) }
        return try FrameRenderer.still(settings, premade: nil)
    }

    /// The title mask as `titleMask` makes it.
    struct TitleMask {
        var mask: Mask
        var origin: (x: Int, y: Int)
        var canvas: (width: Int, height: Int)
        var warnings: [MercurialWarning]
        /// The look each pixel of `mask` is shaded with (styled runs); nil: the title's alone.
        var looks: LookPlane? = nil
        /// The colours colour emoji keep over `mask`; nil: none.
        var paint: PaintPlane? = nil
        /// Whether `paint` replaces the shaded colours (an image drawn in its own) rather than lighting them.
        var paintIsFlat = false
    }

    /// The canvas and the region drawn on it (the ink and its margin; a mask's whole
    /// size), from the mask's header or the text's layout, before anything is drawn:
    /// what renders made in memory are checked against. `what` names the region in errors.
    public static func plannedSize(_ settings: RenderSettings) throws(MercurialError)
        -> (canvas: (width: Int, height: Int), region: (width: Int, height: Int), what: String) {
        try validate(settings)
        if let path = settings.mask {
            let bytes = try PNGRowReader.screenedBytes(path, role: "mask")
            let size = try PNGRowReader.with(bytes, name: path, role: "mask") { reader in
                reader.map { ($0.width, $0.height) } ?? (0, 0)
            }
            return (size, size, "mask '\(path)'")
        }
        if let image = settings.image {
            let made = try ImageTitle.titleMask(settings, image)
            return (settings.canvasHoldingStyles(made.canvas), (made.mask.width, made.mask.height), "image '\(image.file)'")
        }
        guard let text = settings.text else { return ((0, 0), (0, 0), "the title") }
        let p = try TextMask.place(textLayout(settings, text: text), frame: settings.textFrame)
        return (settings.canvasHoldingStyles((p.canvasWidth, p.canvasHeight)), (p.regionWidth, p.regionHeight),
                "this title's region (the ink and its margin)")
    }

    /// The mask, cut to the ink plus the margin, where that sits on the canvas, and the canvas's size.
    static func titleMask(_ settings: RenderSettings) throws(MercurialError) -> TitleMask {
        if let image = settings.image { return try ImageTitle.titleMask(settings, image) }
        if let maskPath = settings.mask {
            let full = coverage(of: try PNGFile.read(maskPath, role: "mask"))
            guard let ink = full.inkBounds(threshold: 0) else {
                return TitleMask(mask: Mask(width: 0, height: 0, repeating: 0), origin: (0, 0), canvas: (full.width, full.height),
                                 warnings: [MercurialWarning("mask '\(maskPath)' is empty (no pixel has coverage); the title is blank")])
            }
            let m = settings.loftMargin
            let x0 = max(ink.minX - m, 0), y0 = max(ink.minY - m, 0)
            let mask = full.cropped(x: x0, y: y0, width: min(ink.maxX + m, full.width - 1) - x0 + 1,
                                    height: min(ink.maxY + m, full.height - 1) - y0 + 1)
            return TitleMask(mask: mask, origin: (x0, y0), canvas: (full.width, full.height), warnings: [])
        }
        guard let text = settings.text else {
            throw MercurialError("there is no text to render; give it as an argument, as \"text\" in the scene file, or use --mask")
        }
        let result = try TextMask.render(try textLayout(settings, text: text), frame: settings.textFrame)
        let title = TitleMask(mask: result.mask, origin: (x: result.originX, y: result.originY),
                              canvas: (width: result.canvasWidth, height: result.canvasHeight), warnings: result.warnings,
                              looks: result.looks, paint: result.paint)
        guard let vine = settings.vine else { return title }
        let (mask, origin) = vine.drawn(with: title.mask, at: title.origin, canvas: title.canvas, margin: settings.loftMargin)
        // The vine's pixels take the title's look.
        let looks = title.looks.map {
            CanvasRegion(width: mask.width, height: mask.height, content: $0, originX: title.origin.x - origin.x,
                         originY: title.origin.y - origin.y, fill: 0).image
        }
        let paint = title.paint.map {
            CanvasRegion(width: mask.width, height: mask.height, content: $0, originX: title.origin.x - origin.x,
                         originY: title.origin.y - origin.y, fill: .clear).image
        }
        return TitleMask(mask: mask, origin: origin, canvas: title.canvas, warnings: title.warnings, looks: looks, paint: paint)
    }

    /// The text's layout as the settings ask.
    static func textLayout(_ settings: RenderSettings, text: String) throws(MercurialError) -> TextLayout {
        var layout = TextLayout(text: text, fontPath: try FontLibrary.resolve(settings.font))
        if !settings.runs.isEmpty, settings.runs.map(\.text).joined() == text {
            // Styled runs, each `\\n` a newline in its own run (as `lines` makes it in plain text).
            var runs: [(text: String, style: RunStyle)] = []
            for run in settings.runs {
                var style = RunStyle()
                style.fontPath = try run.font.map { font throws(MercurialError) in try FontLibrary.resolve(font) }
                (style.size, style.letterSpacing, style.baselineShift, style.look) = (run.size, run.letterSpacing, run.baselineShift, run.look)
                runs.append((run.text.replacing("\\n", with: "\n").replacing("\r\n", with: "\n"), style))
            }
            layout = TextLayout(runs: runs, fontPath: layout.fontPath)
        }
        layout.size = settings.size
        layout.alignment = settings.alignment ?? settings.anchor.alignment
        layout.lineSpacing = settings.lineSpacing
        layout.letterSpacing = settings.letterSpacing
        layout.kerning = settings.kerning
        layout.features = settings.features
        layout.variations = settings.variations
        layout.textPath = settings.textPath
        layout.overflow = settings.overflow
        layout.emoji = settings.emoji
        layout.fallback = settings.fallback
        layout.fallbackFonts = settings.fallbackFonts
        layout.maxLines = settings.maxLines
        return layout
    }

    /// Checks every parameter against its row, then what the rows cannot: option clashes.
    static func validate(_ settings: RenderSettings) throws(MercurialError) {
        if let text = settings.text, let problem = RenderSettings.lengthProblem(of: text) {
            throw MercurialError("the text is \(problem); shorten it")
        }
        try settings.validateParameters()
        if settings.shadingImage != nil && !settings.runLooks.isEmpty {
            throw MercurialError("the text's runs set looks of their own (a material or the sphere's keys), which a \"shadingImage\" replaces; leave out \"shadingImage\", or the runs' looks")
        }
        if let image = settings.image {
            let other = settings.mask != nil ? "--mask" : settings.vine != nil ? "a \"vine\"" : settings.text != nil ? "a \"text\"" : nil
            if let other { throw MercurialError("image '\(image.file)' is the title, so \(other) cannot be; give one of them") }
        }
        if settings.mask != nil && !settings.runs.isEmpty {
            throw MercurialError("styled runs are text, and --mask replaces the text; leave out one of them")
        }
        if settings.vine != nil && settings.mask == nil && (settings.width == nil || settings.height == nil) {
            throw MercurialError("a vine needs the canvas's \"width\" and \"height\" (it reaches outside the text's ink); give both")
        }
        if settings.mask != nil && (settings.anchor != .center || settings.margin != nil || settings.padding != nil
                                    || settings.offset != .zero) {
            throw MercurialError("--anchor, --margin, --padding and --offset do not apply with --mask (the mask's ink stays where it is on its own canvas); leave them out")
        }
        if settings.mask != nil && (settings.width != nil || settings.height != nil) {
            throw MercurialError("--width/--height do not apply with --mask (the canvas is the mask's own size); leave them out")
        }
        if let w = settings.width { try PNGFile.checkCanvas(width: w, height: settings.height ?? 1, what: "the canvas") }
        if let h = settings.height { try PNGFile.checkCanvas(width: settings.width ?? 1, height: h, what: "the canvas") }
        // A side not given is sized to the ink; a side given must leave room inside the margin.
        let frame = settings.textFrame
        for (name, side) in [("width", settings.width), ("height", settings.height)] {
            let inset = try frame.inset(side, side: name)
            if let side, side <= inset.total {
                let which = settings.margin == nil && settings.padding == nil
                    ? "\(inset.start) px a side (the radius plus 4); use a \(name) over \(inset.total) px or a smaller --radius"
                    : inset.start == inset.end ? "\(inset.start) px a side (--margin/--padding); use a \(name) over \(inset.total) px or a smaller margin"
                    : "\(inset.start) and \(inset.end) px (--margin/--padding); use a \(name) over \(inset.total) px or a smaller margin"
                throw MercurialError("--\(name) \(side) leaves no room for the text inside the margin of \(which)")
            }
        }
    }

    /// A mask from a PNG: its alpha where it has any transparency, else its luminance.
    public static func coverage(of image: Image<RGBA8>) -> Mask {
        let hasAlpha = image.pixels.contains { $0.a < 255 }
        return image.map { p in
            if hasAlpha { return Float(p.a) / 255 }
            return (0.2126 * Float(p.r) + 0.7152 * Float(p.g) + 0.0722 * Float(p.b)) / 255
        }
    }
}

extension RenderSettings {
    /// The longest text in UTF-8 bytes: a character may take many (an emoji sequence does).
    public static var maximumTextBytes: Int { maximumTextLength * 4 }

    /// Why `text` is too long to use ("12000 characters long, over the limit of 10000"),
    /// or nil when it is not.
    public static func lengthProblem(of text: String) -> String? {
        let characters = text.count
        if characters > maximumTextLength {
            return "\(characters) characters long, over the limit of \(maximumTextLength)"
        }
        let bytes = text.utf8.count
        if bytes > maximumTextBytes {
            return "\(characters) characters but \(bytes) bytes of UTF-8, over the limit of \(maximumTextBytes) bytes"
        }
        return nil
    }
}
