import CFreeType
import CHarfBuzz
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// How a title's text is laid out.
public struct TextLayout: Sendable, Equatable {
    public enum Alignment: String, Sendable, CaseIterable { case left, center, right }

    public var text: String
    /// A font file path (see `FontLibrary.resolve`).
    public var fontPath: String
    /// The em size in pixels; nil: 160, or on a given canvas as large as fits.
    public var size: Double? = nil
    public var alignment: Alignment = .center
    /// Baseline-to-baseline distance as a multiple of the font's line height. Default 1.
    public var lineSpacing: Double = 1
    /// Extra space after every character, in pixels (negative tightens). Default 0.
    public var letterSpacing: Double = 0
    /// The font's kerning (GPOS `kern`). Default on.
    public var kerning = true
    /// OpenType features for HarfBuzz, in its syntax (`smcp`, `-liga`, `ss01=2`).
    public var features: [String] = []
    /// Variable-font axes set to design values, checked against the font's axes.
    public var variations: [FontVariation] = []
    /// The curve the baseline follows (one line of text), or nil.
    public var textPath: TextPath? = nil
    /// What becomes of text too long for `maxLines` lines on its canvas.
    public var overflow: TextOverflow = .shrink
    /// How colour emoji are drawn.
    public var emoji: EmojiStyle = .emboss
    /// On a given canvas, the most lines the text is wrapped into at its line breaks. Default 5.
    public var maxLines = 5
    /// Draw a character the font lacks from the installed face fontconfig chooses for it. Default on.
    public var fallback = true
    /// Faces tried, in order, before fontconfig's choice for a character the font lacks.
    public var fallbackFonts: [FallbackFont] = []
    /// Styled runs (`RunStyle`), and which of them each Unicode scalar of `text` belongs to
    /// (both empty: plain text in the title's font, size and letter spacing).
    public var runs: [RunStyle] = []
    var scalarRuns: [UInt8] = []

    public init(text: String, fontPath: String) {
        self.text = text
        self.fontPath = fontPath
    }

    /// Text in styled runs: their texts joined (each `\\n` already a newline), each run's style.
    public init(runs: [(text: String, style: RunStyle)], fontPath: String) {
        self.init(text: runs.map(\.text).joined(), fontPath: fontPath)
        self.runs = runs.map(\.style)
        scalarRuns = runs.enumerated().flatMap { i, run in [UInt8](repeating: UInt8(i), count: run.text.unicodeScalars.count) }
    }

    /// `text` replaced by the same text wrapped or cut, the runs following it.
    mutating func relaid(_ laid: String) {
        if !runs.isEmpty { scalarRuns = RunAligner.runs(of: laid, in: text, runs: scalarRuns) }
        text = laid
    }

    /// The lines: split at real newlines and at the two characters `\n`.
    public var lines: [String] {
        text.replacing("\\n", with: "\n")
            .replacing("\r\n", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}

/// How a colour emoji (a CBDT face's bitmap glyph) is drawn.
public enum EmojiStyle: String, Sendable, CaseIterable {
    /// Its silhouette, lofted and shaded in the title's metal like every other glyph.
    case emboss
    /// Lofted by its silhouette and its luminance, in its own colours lit by the title's lights.
    case color
}

/// What becomes of text too long for its canvas's `maxLines` lines.
public enum TextOverflow: String, Sendable, CaseIterable {
    /// Made smaller until it fits (UILabel's adjustsFontSizeToFitWidth, as the original app).
    case shrink
    /// Kept at its size, cut after the last line that fits with "…" (CSS's line-clamp).
    case ellipsis
}

/// The text mask and what the user should be told about it.
public struct TextMaskResult: Sendable {
    /// The part of the canvas that holds the ink plus the margin (all of it when the
    /// canvas is sized to the text); the rest of the canvas is empty.
    public var mask: Mask
    /// Where `mask`'s top-left pixel sits on the canvas.
    public var originX: Int, originY: Int
    public var canvasWidth: Int, canvasHeight: Int
    public var warnings: [MercurialWarning]
    /// The em size finally used (smaller than asked when the text was shrunk to fit).
    public var size: Double
    /// The files of the installed faces that drew characters the chosen font lacks.
    public var fallbackFonts: [String] = []
    /// The look each pixel of `mask` is shaded with (styled runs); nil: the title's alone.
    public var looks: LookPlane? = nil
    /// The colours colour emoji keep over `mask` (`emoji: "color"`); nil: none.
    public var paint: PaintPlane? = nil

    /// The mask on the whole canvas.
    public var canvasMask: Mask {
        CanvasRegion(width: canvasWidth, height: canvasHeight, content: mask, originX: originX, originY: originY, fill: 0).image
    }
}

/// Shapes text with HarfBuzz and rasterises it with FreeType into an 8-bit-deep,
/// anti-aliased coverage mask.
public enum TextMask {
    public static let maximumFontBytes = 64 * 1024 * 1024
    /// The em size when none is asked for and there is no canvas to fill.
    public static let defaultSize: Double = 160
    /// The largest em size, in pixels: the `size` parameter's upper bound.
    public static var maximumSize: Double { ParameterGroup.range(of: "size").upperBound }

    /// Renders `layout` onto a canvas of the ink bounds plus `margin` on every
    /// side, or, when `width`/`height` are given, centred on a canvas of that size
    /// and shrunk to fit (keeping `margin` free) if too large.
    public static func render(_ layout: TextLayout, width: Int? = nil, height: Int? = nil,
                              margin: Int) throws(MercurialError) -> TextMaskResult {
        try render(layout, frame: TextFrame(width: width, height: height, loftMargin: margin))
    }

    /// Renders `layout` placed in `frame` (see `place`).
    public static func render(_ layout: TextLayout, frame: TextFrame) throws(MercurialError) -> TextMaskResult {
        let p = try place(layout, frame: frame)
        return TextMaskResult(mask: p.run.draw(width: p.regionWidth, height: p.regionHeight, offsetX: p.offsetX, offsetY: p.offsetY),
                              originX: p.originX, originY: p.originY, canvasWidth: p.canvasWidth,
                              canvasHeight: p.canvasHeight, warnings: p.warnings, size: p.size,
                              fallbackFonts: p.fallbackFonts,
                              looks: p.run.drawLooks(width: p.regionWidth, height: p.regionHeight, offsetX: p.offsetX, offsetY: p.offsetY),
                              paint: p.run.drawPaint(width: p.regionWidth, height: p.regionHeight, offsetX: p.offsetX, offsetY: p.offsetY))
    }

    /// Where `render` draws the glyphs, without drawing them.
    static func place(_ layout: TextLayout, width: Int? = nil, height: Int? = nil,
                      margin: Int) throws(MercurialError) -> TextPlacement {
        try place(layout, frame: TextFrame(width: width, height: height, loftMargin: margin))
    }

    /// Where the glyphs go: the ink box inside the frame's insets (margin or padding) at its
    /// anchor, moved by its offset, shrunk to fit the room inside the insets if too large; on a
    /// side sized to the text, the ink plus the inset at both ends. The region drawn is the ink
    /// plus the loft's margin, cut at the canvas's edges.
    static func place(_ layout: TextLayout, frame: TextFrame) throws(MercurialError) -> TextPlacement {
        let (width, height) = (frame.width, frame.height)
        guard !layout.text.trimmingWhitespaceAndNewlines().isEmpty,
              layout.text.replacing("\\n", with: "").contains(where: { !$0.isWhitespace }) else {
            throw MercurialError("the text is empty or only whitespace; give the title's text")
        }
        if let size = layout.size {
            guard size.isFinite, size > 0 else {
                throw MercurialError("size \(size) is not a positive number of pixels; use e.g. --size 160")
            }
            guard size <= maximumSize else {
                throw MercurialError("size \(size) px is larger than the limit of \(Int(maximumSize)) px; use a smaller --size")
            }
        }
        if let width { try PNGFile.checkCanvas(width: width, height: height ?? 1, what: "the canvas") }
        if let height { try PNGFile.checkCanvas(width: width ?? 1, height: height, what: "the canvas") }

        let font = FontSet(primary: try FontFace(path: layout.fontPath), fallback: layout.fallback,
                           preferred: layout.fallbackFonts)
        // Each run's font (the title's when it names none or the same file), opened once.
        var runSets: [FontSet] = [font]
        var runFonts: [Int] = []
        for style in layout.runs {
            guard let path = style.fontPath, path != layout.fontPath else { runFonts.append(0); continue }
            if let known = runSets.firstIndex(where: { $0.primary.path == path }) { runFonts.append(known); continue }
            runSets.append(FontSet(primary: try FontFace(path: path), fallback: layout.fallback, preferred: layout.fallbackFonts))
            runFonts.append(runSets.count - 1)
        }
        let fonts = RunFonts(sets: runSets, ofRun: runFonts)
        let inset = (x: try frame.inset(width, side: "width"), y: try frame.inset(height, side: "height"))
        var layout = layout
        let requested = layout.size
        var size = requested ?? defaultSize
        // On a canvas: wrap at the line breaks, and on one of both sizes with no size asked for, fill it
        // (unless text that does not fit is cut with an ellipsis: then it keeps its size).
        let fills = requested == nil && width != nil && height != nil && layout.overflow == .shrink
        if layout.textPath != nil && layout.lines.count > 1 {
            throw MercurialError("a \"textPath\" takes one line of text, and this text has \(layout.lines.count); join its lines or leave out \"textPath\"")
        }
        // On a canvas, straight text wraps; text on a path stays one line and only shrinks.
        var warnings: [MercurialWarning] = []
        if (width != nil || height != nil || frame.maxWidth != nil) && layout.textPath == nil {
            let styled = layout.styledLines
            let paragraphs = styled.map { LineBreaks.units($0.text) }
            // Each unit with its scalars' runs (found in order through its paragraph).
            var words: [(String, [UInt8])] = []
            for (line, units) in zip(styled, paragraphs) {
                var aligner = RunAligner(line.text, runs: line.runs)
                for unit in units { words.append((unit.text, layout.runs.isEmpty ? [] : aligner.runs(of: unit.text))) }
            }
            let metrics = try fonts.measure(words: words, layout: layout, size: size)
            let room = (width: min(width.map { Double($0 - inset.x.total) } ?? .infinity, frame.maxWidth.map(Double.init) ?? .infinity),
                        height: height.map { Double($0 - inset.y.total) })
            let wrapped = WordWrap.wrap(paragraphs, metrics: metrics,
                                        room: room, maxLines: layout.maxLines, cap: fills ? maximumSize / size : 1)
            if let lines = wrapped.lines { layout.relaid(lines.joined(separator: "\n")) }
            if fills && wrapped.factor.isFinite && wrapped.factor > 1 {
                size = min((size * wrapped.factor).rounded(.down), maximumSize)
            }
            if layout.overflow == .ellipsis && wrapped.factor < 1 {
                let limit = max(1, min(layout.maxLines, room.height.map { Int((($0 - metrics.ascentPlusDescent) / metrics.lineHeight).rounded(.down)) + 1 } ?? layout.maxLines))
                let whole = layout
                let cut = try Ellipsis.cut(paragraphs, metrics: metrics, width: room.width, lines: limit) { text throws(MercurialError) in
                    let runs = whole.runs.isEmpty ? [] : RunAligner.runs(of: text, in: whole.text, runs: whole.scalarRuns)
                    return try fonts.measure(words: [(text, runs)], layout: whole, size: size).words[0]
                }
                layout.relaid(cut.joined(separator: "\n"))
                warnings.append(MercurialWarning("the text does not fit \(limit) line\(limit == 1 ? "" : "s") at \(format(size)) px, so it was cut with an ellipsis: its last line is '\(shortQuote(cut.last ?? ""))'; give a larger canvas, more --max-lines or a smaller --size to see it all"))
            }
        }
        var grown = !fills
        for _ in 0..<12 {
            let run = try fonts.layOut(layout, size: size)
            guard let ink = run.placedBounds else {
                throw MercurialError("the text draws nothing in font '\(layout.fontPath)' (no glyphs have ink); use another font")
            }
            let canvasWidth = width ?? (min(ink.width, frame.maxWidth ?? ink.width) + inset.x.total)
            let canvasHeight = height ?? (ink.height + inset.y.total)
            let room = (min(Double(canvasWidth - inset.x.total), frame.maxWidth.map(Double.init) ?? .infinity),
                        Double(canvasHeight - inset.y.total))
            let factor = min(room.0 / Double(ink.width), room.1 / Double(ink.height))
            if !grown && factor > 1.01 && size < maximumSize {
                // Filling the canvas: the advances that chose the size leave some room; use it once.
                grown = true
                size = min((size * factor * 0.995).rounded(.down), maximumSize)
                continue
            }
            if Double(ink.width) <= room.0 && Double(ink.height) <= room.1 {
                try PNGFile.checkCanvas(width: canvasWidth, height: canvasHeight, what: "the title's canvas")
                if let requested, size < requested {
                    warnings.append(MercurialWarning("the text was shrunk from \(format(requested)) px to \(format(size)) px to fit \(canvasWidth)×\(canvasHeight)"))
                }
                // The ink at its anchor; only the ink plus the loft's margin, within the canvas, is drawn.
                let margin = frame.loftMargin
                // A path through points on a canvas of a given size is in its pixels: the ink is where the path puts it.
                let onCanvas = layout.textPath?.type == .points && width != nil && height != nil
                let inkX = onCanvas ? ink.minX + Int(frame.offset.x.rounded())
                    : TextFrame.position(length: canvasWidth, inset: inset.x, ink: ink.width,
                                         side: frame.anchor.horizontal, offset: frame.offset.x)
                let inkY = onCanvas ? ink.minY + Int(frame.offset.y.rounded())
                    : TextFrame.position(length: canvasHeight, inset: inset.y, ink: ink.height,
                                         side: frame.anchor.vertical, offset: frame.offset.y)
                let originX = min(max(inkX - margin, 0), canvasWidth), originY = min(max(inkY - margin, 0), canvasHeight)
                let regionWidth = max(min(inkX + ink.width + margin, canvasWidth) - originX, 0)
                let regionHeight = max(min(inkY + ink.height + margin, canvasHeight) - originY, 0)
                if regionWidth == 0 || regionHeight == 0 || inkX + ink.width <= 0 || inkY + ink.height <= 0
                    || inkX >= canvasWidth || inkY >= canvasHeight {
                    warnings.append(MercurialWarning("the offset [\(format(frame.offset.x)), \(format(frame.offset.y))] moves the text off the \(canvasWidth)×\(canvasHeight) canvas; the title is blank"))
                }
                if width == nil && height == nil && frame.anchor != .center {
                    warnings.append(MercurialWarning("anchor \(frame.anchor.rawValue) places the ink on a canvas you size, and this one is sized to the text, so it changes nothing; give a width and height (--width, --height)"))
                }
                for set in runSets { warnings += set.warnings }
                if let path = layout.textPath, let length = path.length, run.advance > length {
                    let what = path.type == .points ? "the path's \(Int(length)) px" : "the circle's \(Int(length)) px round"
                    warnings.append(MercurialWarning("the text is \(Int(run.advance)) px long, longer than \(what), so its ends overlap; use a larger radius, longer path or smaller size"))
                }
                let offered = layout.features.isEmpty ? [] : font.primary.featureTags
                for feature in layout.features {
                    guard let tag = FontFeatures.parse(feature).map({ FontFeatures.tagText($0.tag) }), !offered.contains(tag) else { continue }
                    warnings.append(MercurialWarning("font '\(PathText.lastComponent(layout.fontPath))' has no OpenType feature '\(tag)', so \"\(feature)\" changes nothing; its features are \(offered.sorted().joined(separator: " "))"))
                }
                if !run.missing.isEmpty {
                    warnings.insert(.missing(run.missing, font: PathText.lastComponent(layout.fontPath)), at: 0)
                }
                return TextPlacement(run: run, fallbackFonts: runSets.flatMap(\.fallbackPaths), regionWidth: regionWidth, regionHeight: regionHeight,
                                     offsetX: inkX - ink.minX - originX, offsetY: inkY - ink.minY - originY,
                                     originX: originX, originY: originY, canvasWidth: canvasWidth,
                                     canvasHeight: canvasHeight, warnings: warnings, size: size, text: layout.text,
                                     inkSize: (ink.width, ink.height))
            }
            guard room.0 > 0, room.1 > 0 else { break }
            grown = true
            size = (size * factor * 0.99).rounded(.down)
            guard size >= 1 else { break }
        }
        throw MercurialError("the text does not fit a \(width ?? 0)×\(height ?? 0) canvas even at 1 px; use a larger --width/--height or shorter text")
    }

    private static func format(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(cFormat: "%.1f", v)
    }
}

/// A FreeType face with its HarfBuzz font, for one render.
final class FontFace {
    private var library: FT_Library?
    private var face: FT_Face?
    /// The file's bytes, shared with every face opened from the same file.
    private let file: FontBytes
    let path: String
    let index: Int

    /// `index`: the face's index in a collection (.ttc).
    init(path: String, index: Int = 0) throws(MercurialError) {
        self.path = path
        self.index = index
        file = try FontBytes.read(path)
        let bytes = file.buffer
        // Every stored property is set by now, so on a throw below `deinit` runs and
        // frees what was made: no cleanup by hand here (that would free twice).
        guard FT_Init_FreeType(&library) == 0 else {
            throw MercurialError("FreeType could not start")
        }
        let error = FT_New_Memory_Face(library, bytes.baseAddress, FT_Long(bytes.count), FT_Long(index), &face)
        guard error == 0, let face else {
            throw MercurialError("font '\(path)' is not a font FreeType can read (\(Self.describe(error))); give a TrueType or OpenType font file")
        }
        let flags = face.pointee.face_flags
        isColorBitmap = flags & FT_Long(FT_FACE_FLAG_SCALABLE) == 0 && flags & FT_Long(FT_FACE_FLAG_COLOR) != 0
            && face.pointee.num_fixed_sizes > 0
        guard flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0 || isColorBitmap else {
            throw MercurialError("font '\(path)' has no scalable outlines; give a TrueType or OpenType font file")
        }
    }

    /// A face of colour bitmaps in fixed strikes and no outlines (CBDT, as Noto Color Emoji):
    /// its largest strike is scaled to the size (`GlyphRun.addBitmap`).
    private(set) var isColorBitmap = false

    /// The FreeType face and the library that opened it, for this file's extensions.
    var openFace: FT_Face? { face }
    var openLibrary: FT_Library? { library }

    deinit {
        if let face { FT_Done_Face(face) }
        if let library { FT_Done_FreeType(library) }
    }

    /// The face's family and style, as the font names them.
    var name: String {
        guard let face else { return "" }
        let family = face.pointee.family_name.map { String(cString: $0) } ?? ""
        let style = face.pointee.style_name.map { String(cString: $0) } ?? ""
        return style.isEmpty ? family : family + " " + style
    }

    /// Whether the face has a glyph for every one of `scalars`.
    func covers<S: Sequence<Unicode.Scalar>>(_ scalars: S) -> Bool {
        guard let face else { return false }
        return scalars.allSatisfy { FT_Get_Char_Index(face, FT_ULong($0.value)) != 0 }
    }

    static func describe(_ error: FT_Error) -> String {
        if let text = FT_Error_String(error) { return String(cString: text) }
        return "FreeType error \(error)"
    }

    /// The face set to `size` px and a HarfBuzz font over it (destroy it with hb_font_destroy).
    /// `variations` set first (see `vary`): HarfBuzz's font reads the face's coordinates as it is made.
    func scaled(to size: Double, variations: [FontVariation] = [], strict: Bool = true) throws(MercurialError)
        -> (face: FT_Face, font: OpaquePointer) {
        guard let face else { throw MercurialError("font '\(path)' is not open") }
        if isColorBitmap { return try scaledBitmaps(face, to: size) }
        let error = FT_Set_Char_Size(face, 0, FT_F26Dot6((size * 64).rounded()), 72, 72)
        guard error == 0 else {
            throw MercurialError("font '\(path)' cannot be scaled to \(size) px (\(Self.describe(error))); use another font or size")
        }
        try vary(variations, strict: strict)
        guard let hbFont = hb_ft_font_create_referenced(face) else {
            throw MercurialError("HarfBuzz could not open font '\(path)'")
        }
        hb_ft_font_set_load_flags(hbFont, Self.loadFlags)
        return (face, hbFont)
    }

    static let loadFlags = Int32(FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP)

    /// A face `scaled` made, set to `size` again (after another size was set on it), its
    /// HarfBuzz font told. A colour bitmap face keeps its strike (its font has its own scale).
    func resize(_ scaled: (face: FT_Face, font: OpaquePointer), to size: Double) throws(MercurialError) {
        guard !isColorBitmap else { return }
        let error = FT_Set_Char_Size(scaled.face, 0, FT_F26Dot6((size * 64).rounded()), 72, 72)
        guard error == 0 else {
            throw MercurialError("font '\(path)' cannot be scaled to \(size) px (\(Self.describe(error))); use another font or size")
        }
        hb_ft_font_changed(scaled.font)
    }

    /// How this face's glyphs are loaded: outlines, or a colour face's bitmaps in colour.
    var glyphLoadFlags: Int32 { isColorBitmap ? Int32(FT_LOAD_COLOR) : Self.loadFlags }

    /// A colour bitmap face at its largest strike, with a HarfBuzz font of its own (OpenType
    /// metrics, not FreeType's, whose advances would be the strike's) set to `size`.
    private func scaledBitmaps(_ face: FT_Face, to size: Double) throws(MercurialError) -> (face: FT_Face, font: OpaquePointer) {
        let strikes = UnsafeBufferPointer(start: face.pointee.available_sizes, count: Int(face.pointee.num_fixed_sizes))
        let largest = strikes.indices.max { strikes[$0].y_ppem < strikes[$1].y_ppem } ?? 0
        let error = FT_Select_Size(face, FT_Int(largest))
        guard error == 0 else {
            throw MercurialError("font '\(path)' has no usable bitmap size (\(Self.describe(error))); use another font")
        }
        let bytes = file.buffer
        let blob = bytes.withMemoryRebound(to: CChar.self) {
            hb_blob_create($0.baseAddress, UInt32($0.count), HB_MEMORY_MODE_READONLY, nil, nil)
        }
        let hbFace = hb_face_create(blob, UInt32(index))
        hb_blob_destroy(blob)
        defer { hb_face_destroy(hbFace) }
        guard let font = hb_font_create(hbFace) else { throw MercurialError("HarfBuzz could not open font '\(path)'") }
        let scale = Int32((size * 64).rounded())
        hb_font_set_scale(font, scale, scale)
        return (face, font)
    }
}

extension FontSet {
    /// `layout`'s glyphs in this font set alone (`RunFonts.layOut`).
    func layOut(_ layout: TextLayout, size: Double) throws(MercurialError) -> GlyphRun {
        try RunFonts(self).layOut(layout, size: size)
    }
}

/// The fonts of a title's text: the title's font set first, then those of its runs that
/// name another font (`ofRun[r]`: run r's set).
struct RunFonts {
    let sets: [FontSet]
    let ofRun: [Int]

    /// One title's fonts, no runs.
    init(_ set: FontSet) { (sets, ofRun) = ([set], []) }
    init(sets: [FontSet], ofRun: [Int]) { (self.sets, self.ofRun) = (sets, ofRun) }

    /// The faces of each set, scaled for one size of the title as they are first needed: the
    /// title's at `size`, a run's at its own size scaled as the title's was.
    struct Scaled {
        var fonts: [ScaledFonts]
        /// Which of `fonts` a run (−1: plain text) is shaped with.
        var ofRun: [Int]
        let styles: [RunStyle]
        let letterSpacing: Double
        let emoji: EmojiStyle

        init(_ runFonts: RunFonts, layout: TextLayout, size: Double) {
            styles = layout.runs
            emoji = layout.emoji
            letterSpacing = layout.letterSpacing
            fonts = [ScaledFonts(runFonts.sets[0], size: size, variations: layout.variations)]
            ofRun = []
            let factor = size / (layout.size ?? TextMask.defaultSize)
            for (r, style) in layout.runs.enumerated() {
                let set = runFonts.ofRun.indices.contains(r) ? runFonts.ofRun[r] : 0
                let px = style.size.map { $0 * factor } ?? size
                if let known = fonts.firstIndex(where: { $0.set === runFonts.sets[set] && $0.size == px }) {
                    ofRun.append(known)
                } else {
                    // A run's own font takes those of the title's axes it has.
                    fonts.append(ScaledFonts(runFonts.sets[set], size: px, variations: layout.variations, strict: set == 0))
                    ofRun.append(fonts.count - 1)
                }
            }
            // One FreeType face at two sizes is set to its size again each time it is used.
            for i in fonts.indices where fonts.indices.contains(where: { $0 != i && fonts[$0].set === fonts[i].set }) {
                fonts[i].shared = true
            }
        }

        /// The fonts run `run` (−1: plain text) is shaped with, its letter spacing and baseline shift.
        func of(run: Int) -> (font: Int, letterSpacing: Double, shift: Double) {
            guard run >= 0, run < styles.count else { return (0, letterSpacing, 0) }
            return (ofRun[run], styles[run].letterSpacing ?? letterSpacing, styles[run].baselineShift)
        }

        func destroy() { for f in fonts { f.destroy() } }
    }

    /// Shapes and rasterises every glyph of `layout` at `size`, positioned in pixels
    /// with the first baseline at y = 0. The chosen face sets the line height; every
    /// run of another face or style sits on the same baseline (a run's shifted by its own).
    func layOut(_ layout: TextLayout, size: Double) throws(MercurialError) -> GlyphRun {
        var scaled = Scaled(self, layout: layout, size: size)
        defer { scaled.destroy() }
        let face = try scaled.fonts[0].face(0)
        let lineHeight = Double(face.pointee.size.pointee.metrics.height) / 64 * layout.lineSpacing
        let features = Self.features(layout)

        var lines: [ShapedLine] = []
        var missing: [Character] = []
        let styledLines = layout.styledLines
        for line in styledLines {
            let shaped = try shape(line.text, runs: line.runs, fonts: &scaled, features: features)
            for c in shaped.missing where !missing.contains(c) { missing.append(c) }
            lines.append(shaped)
        }

        var run = GlyphRun(missing: missing)
        if let path = layout.textPath, let line = lines.first {
            try place(line, along: path, text: styledLines[0].text, fonts: &scaled, into: &run)
            return run
        }
        let widest = lines.map(\.advance).max() ?? 0
        var wordsBefore = 0
        for (index, line) in lines.enumerated() {
            let shift: Double
            switch layout.alignment {
            case .left: shift = 0
            case .center: shift = (widest - line.advance) / 2
            case .right: shift = widest - line.advance
            }
            let baseline = Double(index) * lineHeight
            // Which word of the text each glyph belongs to (for `dynamics` by words).
            let bytes = Array(styledLines[index].text.utf8)
            for glyph in line.glyphs {
                let drawn = run.bitmaps.count
                try add(glyph, x: shift + glyph.x, baseline: baseline - glyph.y, fonts: &scaled, into: &run)
                if run.bitmaps.count > drawn {
                    run.bitmaps[drawn].word = wordsBefore + Self.wordIndex(ofByte: glyph.cluster, in: bytes)
                }
            }
            wordsBefore += Self.wordIndex(ofByte: bytes.count, in: bytes) + 1
        }
        return run
    }

    /// Rasterises one shaped glyph in its font at its pen point, marked with its run's look.
    private func add(_ glyph: ShapedLine.Placed, x: Double, baseline: Double, rotation: Double = 0,
                     fonts scaled: inout Scaled, into run: inout GlyphRun) throws(MercurialError) {
        let fonts = scaled.fonts[glyph.font]
        let drawn = run.bitmaps.count
        try run.add(face: try scaled.fonts[glyph.font].face(glyph.face), glyph: glyph.glyph, x: x, baseline: baseline,
                    loadFlags: fonts.set.faces[glyph.face].glyphLoadFlags, path: fonts.set.faces[glyph.face].path,
                    size: fonts.size, rotation: rotation, keepColor: scaled.emoji == .color)
        if run.bitmaps.count > drawn, glyph.run >= 0, glyph.run < scaled.styles.count {
            run.bitmaps[drawn].look = UInt8(clamping: scaled.styles[glyph.run].look)
        }
    }

    /// Draws one shaped line along `path`: each glyph at its middle's distance along the curve,
    /// turned to the curve's direction there (a colour bitmap glyph too, its bitmap turned).
    private func place(_ line: ShapedLine, along path: TextPath, text: String,
                       fonts scaled: inout Scaled, into run: inout GlyphRun) throws(MercurialError) {
        let bytes = Array(text.utf8)
        run.advance = line.advance
        if path.type == .circle {
            // The whole ring, to the font's ascent outside the circle.
            let ascent = Double(try scaled.fonts[0].face(0).pointee.size.pointee.metrics.ascender) / 64
            let reach = Int((path.radius + max(ascent, 0)).rounded(.up))
            run.frame = PixelBounds(minX: -reach, minY: -reach, maxX: reach, maxY: reach)
        }
        let frame = path.frames(total: line.advance)
        for (i, glyph) in line.glyphs.enumerated() {
            let advance = max((i + 1 < line.glyphs.count ? line.glyphs[i + 1].x : line.advance) - glyph.x, 0)
            let (point, angle) = frame(glyph.x + advance / 2)
            let along = SIMD2(cos(angle), sin(angle)), up = SIMD2(sin(angle), -cos(angle))
            let origin = point - advance / 2 * along + glyph.y * up
            let drawn = run.bitmaps.count
            try add(glyph, x: origin.x, baseline: origin.y, rotation: angle, fonts: &scaled, into: &run)
            if run.bitmaps.count > drawn { run.bitmaps[drawn].word = Self.wordIndex(ofByte: glyph.cluster, in: bytes) }
        }
    }

    /// The faces of one font set at one size, each with its HarfBuzz font, made when first needed.
    struct ScaledFonts {
        let set: FontSet
        let size: Double
        let variations: [FontVariation]
        /// Whether the set's chosen face must have every axis asked for (the title's font must).
        let strict: Bool
        /// Whether another `ScaledFonts` sets the same faces to another size (styled runs).
        var shared = false
        private var made: [Int: (face: FT_Face, font: OpaquePointer)] = [:]

        init(_ set: FontSet, size: Double, variations: [FontVariation] = [], strict: Bool = true) {
            self.set = set
            self.size = size
            self.variations = variations
            self.strict = strict
        }

        mutating func scaled(_ index: Int) throws(MercurialError) -> (face: FT_Face, font: OpaquePointer) {
            if let known = made[index] {
                if shared { try set.faces[index].resize(known, to: size) }
                return known
            }
            // The chosen font must have every axis asked for; a fallback face takes those it has.
            let pair = try set.faces[index].scaled(to: size, variations: variations, strict: strict && index == 0)
            made[index] = pair
            return pair
        }

        mutating func face(_ index: Int) throws(MercurialError) -> FT_Face { try scaled(index).face }

        func destroy() {
            for pair in made.values { hb_font_destroy(pair.font) }
        }
    }

    /// A line's glyphs, positioned in pixels from its start, and its advance.
    struct ShapedLine {
        /// A glyph: its face in font `font` of `Scaled.fonts`, and its run (−1: plain text).
        struct Placed { var glyph: UInt32; var x: Double; var y: Double; var cluster = 0; var face = 0; var font = 0; var run = -1 }
        var glyphs: [Placed]
        var advance: Double
        var missing: [Character]
    }

    /// How many words (runs of non-spaces) of `line` start before byte `offset`, less
    /// one: the index of the word that holds that byte (−1 before the first word).
    static func wordIndex(ofByte offset: Int, in line: [UInt8]) -> Int {
        var words = 0, inWord = false
        for byte in line.prefix(offset + 1) {
            let space = byte == 0x20 || byte == 0x09
            if !space && !inWord { words += 1 }
            inWord = !space
        }
        return max(words - 1, 0)
    }

    /// `-kern` when kerning is off, then the layout's features (read when the scene was).
    private static func features(_ layout: TextLayout) -> [hb_feature_t] {
        (layout.kerning ? [] : ["-kern"]).compactMap(FontFeatures.parse) + layout.features.compactMap(FontFeatures.parse)
    }

    /// Shapes one line with HarfBuzz: piece by piece of one run (`runs`: each scalar's; empty:
    /// plain text), each piece face by face of its font set, the pieces one after another.
    private func shape(_ line: String, runs: [UInt8], fonts: inout Scaled, features: [hb_feature_t]) throws(MercurialError) -> ShapedLine {
        let utf8 = Array(line.utf8)
        var shaped = ShapedLine(glyphs: [], advance: 0, missing: [])
        var pen = 0.0
        var lastSpacing = fonts.letterSpacing
        for piece in TextLayout.runPieces(line, runs: runs) {
            let style = fonts.of(run: piece.run)
            let text = String(decoding: utf8[piece.bytes], as: UTF8.self)
            for part in fonts.fonts[style.font].set.runs(text) {
                let bytes = (part.bytes.lowerBound + piece.bytes.lowerBound)..<(part.bytes.upperBound + piece.bytes.lowerBound)
                let hbFont = try fonts.fonts[style.font].scaled(part.face).font
                let first = shaped.glyphs.count
                shapeRun(utf8, bytes: bytes, face: part.face, hbFont: hbFont, features: features,
                         letterSpacing: style.letterSpacing, pen: &pen, into: &shaped)
                for i in first..<shaped.glyphs.count {
                    (shaped.glyphs[i].font, shaped.glyphs[i].run) = (style.font, piece.run)
                    shaped.glyphs[i].y += style.shift
                }
            }
            lastSpacing = style.letterSpacing
        }
        if !utf8.isEmpty { pen -= lastSpacing }
        shaped.advance = pen
        return shaped
    }

    /// Shapes the bytes `bytes` of `utf8` (the whole line is HarfBuzz's context) in one face.
    private func shapeRun(_ utf8: [UInt8], bytes: Range<Int>, face: Int, hbFont: OpaquePointer,
                          features: [hb_feature_t], letterSpacing: Double,
                          pen: inout Double, into shaped: inout ShapedLine) {
        let buffer = hb_buffer_create()
        defer { hb_buffer_destroy(buffer) }
        utf8.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { c in
                hb_buffer_add_utf8(buffer, c.baseAddress, Int32(c.count), UInt32(bytes.lowerBound), Int32(bytes.count))
            }
        }
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(hbFont, buffer, features, UInt32(features.count))
        var count: UInt32 = 0
        let infos = hb_buffer_get_glyph_infos(buffer, &count)
        let positions = hb_buffer_get_glyph_positions(buffer, &count)
        guard let infos, let positions else { return }
        for i in 0..<Int(count) {
            let info = infos[i], position = positions[i]
            if info.codepoint == 0 {
                // .notdef: name the characters of this cluster once, draw nothing.
                let start = Int(info.cluster)
                var end = bytes.upperBound
                for j in 0..<Int(count) where Int(infos[j].cluster) > start { end = min(end, Int(infos[j].cluster)) }
                let characters = String(decoding: utf8[start..<end], as: UTF8.self)
                for c in characters where !c.isWhitespace && !shaped.missing.contains(c) { shaped.missing.append(c) }
            } else {
                shaped.glyphs.append(ShapedLine.Placed(glyph: info.codepoint, x: pen + Double(position.x_offset) / 64,
                                                       y: Double(position.y_offset) / 64, cluster: Int(info.cluster),
                                                       face: face))
            }
            pen += Double(position.x_advance) / 64
            let startsNextCluster = i + 1 == Int(count) || infos[i + 1].cluster != info.cluster
            if startsNextCluster { pen += letterSpacing }
        }
    }

    /// The advance of each word (with its scalars' runs; empty: plain text) and of a space at
    /// `size`, and the line height and the font's ascent plus descent, for choosing line breaks.
    func measure(words: [(text: String, runs: [UInt8])], layout: TextLayout, size: Double) throws(MercurialError) -> WordMetrics {
        var scaled = Scaled(self, layout: layout, size: size)
        defer { scaled.destroy() }
        let face = try scaled.fonts[0].face(0)
        let features = Self.features(layout)
        func advance(_ text: String, _ runs: [UInt8] = []) throws(MercurialError) -> Double {
            try shape(text, runs: runs, fonts: &scaled, features: features).advance
        }
        var widths: [Double] = []
        for word in words { widths.append(try advance(word.text, word.runs)) }
        let metrics = face.pointee.size.pointee.metrics
        return WordMetrics(words: widths,
                           space: try advance("a a") - advance("aa") + layout.letterSpacing,
                           lineHeight: Double(metrics.height) / 64 * layout.lineSpacing,
                           ascentPlusDescent: Double(metrics.ascender - metrics.descender) / 64)
    }
}

/// Rasterised glyphs at whole-pixel offsets, ready to be drawn onto a canvas.
/// A laid-out text's glyphs and where they go: the region of the canvas drawn
/// (`regionWidth` × `regionHeight` at `originX`, `originY`), and the glyphs' offset in it.
struct TextPlacement {
    var run: GlyphRun
    /// The files of the installed faces that drew characters the chosen font lacks.
    var fallbackFonts: [String]
    var regionWidth: Int, regionHeight: Int
    var offsetX: Int, offsetY: Int
    var originX: Int, originY: Int
    var canvasWidth: Int, canvasHeight: Int
    var warnings: [MercurialWarning]
    var size: Double
    /// The text as laid out: wrapped into the room, when it was.
    var text: String
    var inkSize: (width: Int, height: Int)
}

struct GlyphRun {
    /// `coverage` is empty for a glyph too large to draw (see `add`): only its bounds are known.
    struct Bitmap {
        var left: Int; var top: Int; var width: Int; var height: Int; var coverage: [UInt8]
        /// The word of the text (counted over all lines) the glyph belongs to.
        var word = 0
        /// The look its pixels are shaded with (its run's; 0: the title's).
        var look: UInt8 = 0
        /// A colour emoji's own colours (`emoji: "color"`), straight, its alpha the glyph's; nil: none.
        var paint: [RGBA8]? = nil
    }
    var bitmaps: [Bitmap] = []
    var missing: [Character]
    /// The length of the text along its path (set for text on a path).
    var advance = 0.0
    /// Glyphs of more pixels than this are rasterised into their own array directly.
    static let directRenderPixels = 16_777_216
    /// The largest glyph, in em (the font size), either way.
    static let maximumGlyphEm = 16
    /// Bytes of glyph coverage held so far, capped at `PNGFile.maximumPixels`.
    var coverageBytes = 0

    init(missing: [Character]) { self.missing = missing }

    /// The box placed at the anchor: the ink's, or with a whole circle the circle's and the ink's,
    /// so that text turning round its circle keeps the circle's centre still.
    var placedBounds: PixelBounds? {
        guard let ink = inkBounds, let frame else { return inkBounds }
        return PixelBounds(minX: min(ink.minX, frame.minX), minY: min(ink.minY, frame.minY),
                           maxX: max(ink.maxX, frame.maxX), maxY: max(ink.maxY, frame.maxY))
    }
    /// The box the text's path keeps free for it whatever part of it the text covers.
    var frame: PixelBounds?

    var inkBounds: PixelBounds? {
        let inked = bitmaps.filter {
            $0.width > 0 && $0.height > 0 && ($0.coverage.isEmpty || $0.coverage.contains { $0 > 0 })
        }
        guard !inked.isEmpty else { return nil }
        return PixelBounds(minX: inked.map(\.left).min()!, minY: inked.map(\.top).min()!,
                           maxX: inked.map { $0.left + $0.width - 1 }.max()!,
                           maxY: inked.map { $0.top + $0.height - 1 }.max()!)
    }

    /// Rasterises one glyph with its sub-pixel position kept (the outline is shifted
    /// by the fractional part before FreeType's anti-aliasing rasteriser runs).
    /// `size`: the em size in pixels, to which a colour bitmap glyph is scaled from its strike.
    /// `rotation`: the outline turned clockwise by this many radians about its origin first.
    mutating func add(face: FT_Face, glyph: UInt32, x: Double, baseline: Double, loadFlags: Int32,
                      path: String, size: Double, rotation: Double = 0, keepColor: Bool = false) throws(MercurialError) {
        let error = FT_Load_Glyph(face, glyph, loadFlags)
        guard error == 0, let slot = face.pointee.glyph else {
            throw MercurialError("font '\(path)' has a damaged glyph \(glyph) (\(FontFace.describe(error))); use another font")
        }
        if slot.pointee.format == FT_GLYPH_FORMAT_BITMAP && slot.pointee.bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_BGRA.rawValue) {
            let strike = Double(max(face.pointee.size?.pointee.metrics.y_ppem ?? 0, 1))
            try addBitmap(slot, scale: size / strike, x: x, baseline: baseline, keepColor: keepColor)
            if rotation != 0, let last = bitmaps.popLast() {
                bitmaps.append(last.rotated(by: rotation, about: SIMD2(x, baseline)))
            }
            return
        }
        guard slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE else { return }
        if rotation != 0 {
            // Clockwise on the canvas (y down) is clockwise in FreeType's y-up space turned the other way.
            let (c, s) = (cos(rotation), sin(rotation))
            var matrix = FT_Matrix(xx: FT_Fixed((c * 65536).rounded()), xy: FT_Fixed((s * 65536).rounded()),
                                   yx: FT_Fixed((-s * 65536).rounded()), yy: FT_Fixed((c * 65536).rounded()))
            FT_Outline_Transform(&slot.pointee.outline, &matrix)
        }
        let wholeX = x.rounded(.down), wholeY = baseline.rounded(.down)
        FT_Outline_Translate(&slot.pointee.outline, FT_Pos(((x - wholeX) * 64).rounded()),
                             -FT_Pos(((baseline - wholeY) * 64).rounded()))
        // A glyph wider or taller than the largest canvas can never be drawn (the text is
        // shrunk to fit or refused), so keep only its bounds, from the outline's control
        // box: rasterising it would take up to 32767² bytes in FreeType and as many again here.
        var box = FT_BBox()
        FT_Outline_Get_CBox(&slot.pointee.outline, &box)
        let boxLeft = Int(box.xMin >> 6), boxRight = Int((box.xMax + 63) >> 6)
        let boxBottom = Int(box.yMin >> 6), boxTop = Int((box.yMax + 63) >> 6)
        // No real font's glyph spans more than a few em (the tallest stacked scripts and
        // math operators stay under 5); one far larger is a damaged or hostile font, refused
        // before it is rasterised or lays out a canvas thousands of pixels across.
        let em = max(Int(face.pointee.size?.pointee.metrics.y_ppem ?? 0), 1)
        let glyphLimit = max(Self.maximumGlyphEm * em, 64)
        if boxRight - boxLeft > glyphLimit || boxTop - boxBottom > glyphLimit {
            throw MercurialError("font '\(path)' draws glyph \(glyph) \(boxRight - boxLeft)×\(boxTop - boxBottom) px at \(em) px, over \(Self.maximumGlyphEm) times the size; the font is damaged; use another font")
        }
        if boxRight - boxLeft > PNGFile.maximumSide || boxTop - boxBottom > PNGFile.maximumSide {
            bitmaps.append(Bitmap(left: Int(wholeX) + boxLeft, top: Int(wholeY) - boxTop,
                                  width: boxRight - boxLeft, height: boxTop - boxBottom, coverage: []))
            return
        }
        let boxWidth = boxRight - boxLeft, boxHeight = boxTop - boxBottom
        if boxWidth * boxHeight > Self.directRenderPixels {
            // A huge glyph: rasterised straight into its coverage array, not into FreeType's
            // bitmap first and then copied (which would hold it twice).
            coverageBytes += boxWidth * boxHeight
            guard coverageBytes <= PNGFile.maximumPixels else {
                throw MercurialError.limit("the text's glyphs need more than \(PNGFile.maximumPixels / 1_048_576) M pixels at this size; use a smaller --size or shorter text")
            }
            var coverage = [UInt8](repeating: 0, count: boxWidth * boxHeight)
            FT_Outline_Translate(&slot.pointee.outline, -FT_Pos(boxLeft * 64), -FT_Pos(boxBottom * 64))
            let status = coverage.withUnsafeMutableBufferPointer { c -> FT_Error in
                var target = FT_Bitmap()
                target.rows = UInt32(boxHeight)
                target.width = UInt32(boxWidth)
                target.pitch = Int32(boxWidth)
                target.buffer = c.baseAddress
                target.num_grays = 256
                target.pixel_mode = UInt8(FT_PIXEL_MODE_GRAY.rawValue)
                return FT_Outline_Get_Bitmap(slot.pointee.library, &slot.pointee.outline, &target)
            }
            guard status == 0 else {
                throw MercurialError("font '\(path)' has a glyph FreeType cannot draw (\(FontFace.describe(status))); use another font")
            }
            bitmaps.append(Bitmap(left: Int(wholeX) + boxLeft, top: Int(wholeY) - boxTop,
                                  width: boxWidth, height: boxHeight, coverage: coverage))
            return
        }
        let renderError = FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL)
        guard renderError == 0 else {
            throw MercurialError("font '\(path)' has a glyph FreeType cannot draw (\(FontFace.describe(renderError))); use another font")
        }
        let bitmap = slot.pointee.bitmap
        let w = Int(bitmap.width), h = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        guard w > 0, h > 0, let buffer = bitmap.buffer else { return }
        coverageBytes += w * h
        guard coverageBytes <= PNGFile.maximumPixels else {
            throw MercurialError.limit("the text's glyphs need more than \(PNGFile.maximumPixels / 1_048_576) M pixels at this size; use a smaller --size or shorter text")
        }
        var coverage = [UInt8](repeating: 0, count: w * h)
        for row in 0..<h {
            let source = pitch >= 0 ? buffer + row * pitch : buffer + (h - 1 - row) * -pitch
            for column in 0..<w { coverage[row * w + column] = source[column] }
        }
        bitmaps.append(Bitmap(left: Int(wholeX) + Int(slot.pointee.bitmap_left),
                              top: Int(wholeY) - Int(slot.pointee.bitmap_top),
                              width: w, height: h, coverage: coverage))
    }

    /// Row `y` of what `draw` makes, into `out` (`width` values).
    func drawRow(_ y: Int, width: Int, offsetX: Int, offsetY: Int, into out: UnsafeMutablePointer<Float>) {
        out.update(repeating: 0, count: width)
        for bitmap in bitmaps where !bitmap.coverage.isEmpty {
            let row = y - bitmap.top - offsetY
            guard row >= 0 && row < bitmap.height else { continue }
            let first = max(0, -(bitmap.left + offsetX)), last = min(bitmap.width, width - bitmap.left - offsetX)
            guard first < last else { continue }
            bitmap.coverage.withUnsafeBufferPointer { c in
                let source = c.baseAddress! + row * bitmap.width, target = out + bitmap.left + offsetX
                for column in first..<last { target[column] = max(target[column], Float(source[column]) / 255) }
            }
        }
    }

    /// The ink bounds (pixels over 0) of what `draw` makes, without making it.
    func drawnInkBounds(width: Int, height: Int, offsetX: Int, offsetY: Int) -> PixelBounds? {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for bitmap in bitmaps where !bitmap.coverage.isEmpty {
            bitmap.coverage.withUnsafeBufferPointer { c in
                for row in 0..<bitmap.height {
                    let y = bitmap.top + offsetY + row
                    guard y >= 0 && y < height else { continue }
                    for column in 0..<bitmap.width where c[row * bitmap.width + column] > 0 {
                        let x = bitmap.left + offsetX + column
                        guard x >= 0 && x < width else { continue }
                        minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    }
                }
            }
        }
        return maxX < 0 ? nil : PixelBounds(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
    }

    /// Whether a glyph takes a look other than the title's (styled runs), and whether one keeps its colours (colour emoji).
    var hasLooks: Bool { bitmaps.contains { $0.look != 0 } }
    var hasPaint: Bool { bitmaps.contains { $0.paint != nil } }

    /// Which look each pixel of what `draw` makes is shaded with: that of the glyph with the
    /// most coverage there (the later on a tie, as overlapping glyphs are drawn); nil when
    /// every glyph takes the title's look.
    func drawLooks(width: Int, height: Int, offsetX: Int, offsetY: Int) -> LookPlane? {
        guard hasLooks else { return nil }
        var looks = LookPlane(width: width, height: height, repeating: 0)
        looks.withUnsafeMutableBufferPointer { out in
            for y in 0..<height { drawStyleRow(y, width: width, offsetX: offsetX, offsetY: offsetY, looks: out.baseAddress! + y * width) }
        }
        return looks
    }

    /// The colours colour emoji keep (`emoji: "color"`) where they are the glyph with the most
    /// coverage, clear elsewhere; nil when no glyph keeps its colours.
    func drawPaint(width: Int, height: Int, offsetX: Int, offsetY: Int) -> PaintPlane? {
        guard hasPaint else { return nil }
        var paint = PaintPlane(width: width, height: height, repeating: .clear)
        paint.withUnsafeMutableBufferPointer { out in
            for y in 0..<height { drawStyleRow(y, width: width, offsetX: offsetX, offsetY: offsetY, paint: out.baseAddress! + y * width) }
        }
        return paint
    }

    /// Row `y` of what `drawLooks` and `drawPaint` make, into `looks` and `paint` (`width` values each, either may be nil).
    func drawStyleRow(_ y: Int, width: Int, offsetX: Int, offsetY: Int, looks: UnsafeMutablePointer<UInt8>? = nil,
                      paint: UnsafeMutablePointer<RGBA8>? = nil) {
        looks?.update(repeating: 0, count: width)
        paint?.update(repeating: .clear, count: width)
        var best = [UInt8](repeating: 0, count: width)
        for bitmap in bitmaps where !bitmap.coverage.isEmpty {
            let row = y - bitmap.top - offsetY
            guard row >= 0 && row < bitmap.height else { continue }
            let first = max(0, -(bitmap.left + offsetX)), last = min(bitmap.width, width - bitmap.left - offsetX)
            guard first < last else { continue }
            for column in first..<last {
                let x = bitmap.left + offsetX + column, i = row * bitmap.width + column, value = bitmap.coverage[i]
                guard value > 0, value >= best[x] else { continue }
                best[x] = value
                looks?[x] = bitmap.look
                paint?[x] = bitmap.paint?[i] ?? .clear
            }
        }
    }

    /// Draws the glyphs, moved by the offset; overlapping glyphs take the larger coverage.
    func draw(width: Int, height: Int, offsetX: Int, offsetY: Int) -> Mask {
        var mask = Mask(width: width, height: height, repeating: 0)
        mask.withUnsafeMutableBufferPointer { out in
            for bitmap in bitmaps where !bitmap.coverage.isEmpty {
                for row in 0..<bitmap.height {
                    let y = bitmap.top + offsetY + row
                    guard y >= 0 && y < height else { continue }
                    for column in 0..<bitmap.width {
                        let x = bitmap.left + offsetX + column
                        guard x >= 0 && x < width else { continue }
                        let value = Float(bitmap.coverage[row * bitmap.width + column]) / 255
                        out[y * width + x] = max(out[y * width + x], value)
                    }
                }
            }
        }
        return mask
    }
}

// MARK: - Cutting text with an ellipsis

enum Ellipsis {
    static let mark = "…"

    /// The first `lines` lines of the paragraphs filled greedily to `width`, the last one cut
    /// so that it and "…" fit (inside its first unit, at a character, when none whole does).
    static func cut(_ paragraphs: [[LineBreaks.Unit]], metrics: WordMetrics, width: Double, lines limit: Int,
                    measure: (String) throws(MercurialError) -> Double) throws(MercurialError) -> [String] {
        let (widths, gaps) = WordWrap.measured(paragraphs, metrics: metrics)
        var lines: [(units: ArraySlice<LineBreaks.Unit>, width: Double)] = []
        for p in paragraphs.indices {
            var start = 0
            for n in WordWrap.greedy(widths[p], gaps: gaps[p], limit: width) {
                lines.append((paragraphs[p][start..<(start + n)], WordWrap.width(widths[p], gaps: gaps[p], start..<(start + n))))
                start += n
            }
        }
        // The line that takes the mark: the first too wide (a unit longer than the line), or the last kept.
        let end: Int
        if let wide = lines.prefix(limit).firstIndex(where: { $0.width > width }) { end = wide }
        else if lines.count > limit { end = limit - 1 }
        else { return lines.map { LineBreaks.joined($0.units) } }
        var last = Array(lines[end].units)
        while !last.isEmpty, try measure(LineBreaks.joined(last) + mark) > width, last.count > 1 { last.removeLast() }
        var tail = LineBreaks.joined(last)
        if try measure(tail + mark) > width {
            // One unit too wide: the most characters of it that fit with the mark.
            let characters = Array(tail)
            var (low, high) = (0, characters.count)
            while low < high {
                let mid = (low + high + 1) / 2
                if try measure(String(characters[..<mid]) + mark) <= width { low = mid } else { high = mid - 1 }
            }
            tail = String(characters[..<low])
        }
        return lines[..<end].map { LineBreaks.joined($0.units) } + [tail.trimmingWhitespace() + mark]
    }
}

// MARK: - Wrapping words into a canvas

/// Word and line measurements at one size (they scale with the size).
struct WordMetrics {
    var words: [Double]
    var space: Double
    var lineHeight: Double
    var ascentPlusDescent: Double
}

/// Breaks text at its break opportunities (`LineBreaks`: spaces, between ideographs) into at
/// most `maxLines` lines so that it can be as large as possible (never larger than asked)
/// inside the room, as the original app's label did (UILabel, `numberOfLines = 5`,
/// `adjustsFontSizeToFitWidth`). Explicit line breaks are kept; lines are balanced (the
/// widest line as narrow as it can be).
enum WordWrap {
    /// The lines (nil: leave the text as it is) and the factor by which the size the
    /// metrics were measured at can grow (or must shrink) to fit the room, at most `cap`.
    static func wrap(_ paragraphs: [[LineBreaks.Unit]], metrics: WordMetrics, room: (width: Double, height: Double?),
                     maxLines: Int, cap: Double) -> (lines: [String]?, factor: Double) {
        let fixed = paragraphs.count
        let (widths, gaps) = measured(paragraphs, metrics: metrics)
        let totalWords = paragraphs.reduce(0) { $0 + $1.count }
        // The factor the size may be multiplied by to fit with `lines` lines of widest `w`.
        func fit(lines: Int, widest w: Double) -> Double {
            var f = w > 0 ? room.width / w : .infinity
            if let h = room.height {
                f = min(f, h / (Double(lines - 1) * metrics.lineHeight + metrics.ascentPlusDescent))
            }
            return min(f, cap)
        }
        var best: (factor: Double, lines: [[Int]])? = nil
        for count in fixed...max(fixed, min(maxLines, totalWords)) {
            guard let breaks = balancedBreaks(widths, gaps: gaps, lines: count) else { continue }
            let factor = fit(lines: count, widest: breaks.widest)
            // A larger size wins; at the same size, fewer lines.
            if best == nil || factor > best!.factor * (1 + 1e-9) { best = (factor, breaks.lineWords) }
        }
        guard let best else { return (nil, 1) }
        guard best.lines.contains(where: { $0.count > 1 }) else { return (nil, best.factor) }
        var lines: [String] = []
        for (p, counts) in zip(paragraphs, best.lines) {
            var start = 0
            for n in counts {
                lines.append(LineBreaks.joined(p[start..<(start + n)]))
                start += n
            }
        }
        return (lines, best.factor)
    }

    /// Each paragraph's units' widths (from `metrics.words`, in order) and the gap after each
    /// unit when the next is on its line: a space's width, or none.
    static func measured(_ paragraphs: [[LineBreaks.Unit]], metrics: WordMetrics) -> (widths: [[Double]], gaps: [[Double]]) {
        var index = 0
        let widths = paragraphs.map { units -> [Double] in
            defer { index += units.count }
            return Array(metrics.words[index..<(index + units.count)])
        }
        return (widths, paragraphs.map { $0.map { $0.spaced ? metrics.space : 0 } })
    }

    /// How many units each line of one paragraph takes, lines filled in turn up to `limit`
    /// (a unit wider than that alone on its line); an empty paragraph is one empty line.
    static func greedy(_ words: [Double], gaps: [Double], limit: Double) -> [Int] {
        var counts: [Int] = [], current = 0, width = 0.0
        for (i, w) in words.enumerated() {
            if current > 0 && width + gaps[i - 1] + w > limit {
                counts.append(current)
                current = 0; width = 0
            }
            width = current == 0 ? w : width + gaps[i - 1] + w
            current += 1
        }
        if current > 0 || counts.isEmpty { counts.append(current) }
        return counts
    }

    /// The width of units `range` of one paragraph on one line.
    static func width(_ words: [Double], gaps: [Double], _ range: Range<Int>) -> Double {
        range.reduce(0) { $0 + words[$1] + ($1 > range.lowerBound ? gaps[$1 - 1] : 0) }
    }

    /// The narrowest widest line with at most `lines` lines in all (each paragraph
    /// at least one), found by bisecting the width and filling lines greedily. `gaps[p][i]`
    /// is the room after unit `i` when the next one is on its line (a space's, or none).
    static func balancedBreaks(_ paragraphs: [[Double]], gaps: [[Double]], lines: Int)
        -> (widest: Double, lineWords: [[Int]])? {
        func greedy(_ limit: Double) -> [[Int]] {
            zip(paragraphs, gaps).map { WordWrap.greedy($0, gaps: $1, limit: limit) }
        }
        func widest(_ lineWords: [[Int]]) -> Double {
            var result = 0.0
            for ((words, gaps), counts) in zip(zip(paragraphs, gaps), lineWords) {
                var start = 0
                for n in counts {
                    result = max(result, width(words, gaps: gaps, start..<(start + n)))
                    start += n
                }
            }
            return result
        }
        let longestWord = paragraphs.flatMap { $0 }.max() ?? 0
        var low = longestWord, high = widest(paragraphs.map { [$0.count] })
        if greedy(low).reduce(0, { $0 + $1.count }) > lines {
            // Bisect for the narrowest limit that needs no more than `lines` lines.
            for _ in 0..<48 where high - low > 0.01 {
                let mid = (low + high) / 2
                if greedy(mid).reduce(0, { $0 + $1.count }) <= lines { high = mid } else { low = mid }
            }
        } else {
            high = low
        }
        let result = greedy(high)
        guard result.reduce(0, { $0 + $1.count }) <= lines else { return nil }
        return (widest(result), result)
    }
}
