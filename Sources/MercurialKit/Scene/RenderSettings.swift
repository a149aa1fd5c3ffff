/// Everything that decides how a title looks: what shapes it (`shape`: text and
/// layout, the loft, the mask or vine) and what only lights and colours that shape
/// (`look`: the shading sphere or image, backdrop, point lights). "Only the lights
/// changed" is `old.shape == new.shape`.
/// The defaults are the original app's (the `mercurial` material); the ranges,
/// help and keys of these fields are declared as the scene schema's parameter fields
/// (`ParameterGroup.fields`, Parameters.swift), whose key paths go through the
/// forwarding properties below.
public struct RenderSettings: Sendable, Equatable {
    public var shape = TitleShapeSettings()
    public var look = TitleLookSettings()
    /// Titles painted in order on one canvas (`LayeredTitle`); empty: this title alone.
    public var layers: [TitleLayer] = []
    /// The keys at the top of a scene with `layers` that no layer takes (every layer gives its
    /// own), each with the warning that says so: the CLI prints them, the editor marks their controls.
    public var unusedKeys: [UnusedKey] = []

    public init() {}

    /// The loft's margin: the region around the ink the bevel's skirt needs, and the
    /// space kept around the ink when no `margin` or `padding` is given.
    public var loftMargin: Int { shape.loftMargin }

    /// Where the text goes: the canvas's size and the placement keys.
    public var textFrame: TextFrame { shape.textFrame }

    /// The longest text a title may have, in characters.
    public static let maximumTextLength = 10_000
}

/// What makes a title's coverage, heights and normals: change one of these and the
/// shape is built again.
public struct TitleShapeSettings: Sendable, Equatable {
    public var text: String? = nil
    /// The text as styled runs (`TextRuns.swift`), whose texts joined are `text`; empty: plain text.
    public var runs: [TextRun] = []
    /// A bundled font name, a font file, or a fontconfig name.
    public var font: String = "rounded"
    /// The em size in pixels; nil: 160, or with `width`/`height` as large as fits.
    public var size: Double? = nil
    public var width: Int? = nil
    public var height: Int? = nil
    /// nil: the anchor's side (centred for the default anchor).
    public var alignment: TextLayout.Alignment? = nil
    /// The point of the canvas the ink box is placed against.
    public var anchor: Anchor = .center
    /// The space between the canvas's edges and the box the ink is placed in; nil: the loft's margin.
    public var margin: PlacementMargin? = nil
    /// Clear space kept around the ink (on a side sized to the text, added around it); nil: none beyond the margin.
    public var padding: Int? = nil
    /// Pixels the placed ink is moved by, right and down.
    public var offset = SIMD2<Double>(0, 0)
    /// The widest the ink may be (it wraps and shrinks to fit); nil: the canvas's room.
    public var maxWidth: Int? = nil
    /// A plate's padding (top, right, bottom, left): on a side of a given length the ink is placed
    /// that much further inside the margin, so that the plate keeps to it. Set with `RenderSettings.plate`.
    public var platePadding: SIMD4<Double>? = nil
    public var lineSpacing: Double = 1
    public var letterSpacing: Double = 0
    public var kerning = true
    /// OpenType features passed to HarfBuzz (`smcp`, `-liga`, `ss01=2`), in order.
    public var features: [String] = []
    /// Variable-font axes set to design values (`wght` 650), in order.
    public var variations: [FontVariation] = []
    /// The curve the baseline follows, or nil for straight lines.
    public var textPath: TextPath? = nil
    /// Text too long for `maxLines` lines: shrunk, or cut with an ellipsis.
    public var overflow: TextOverflow = .shrink
    /// Colour emoji: embossed in the title's metal (their silhouette), or in their own colours.
    public var emoji: EmojiStyle = .emboss
    public var fallback = true
    /// The faces a recipe records as drawing what `font` lacks; tried before fontconfig's choice.
    public var fallbackFonts: [FallbackFont] = []
    /// CIHeightFieldFromMask's inputRadius.
    public var radius: Double = 10
    /// The loft's shape across a stroke.
    public var profile: LoftProfile = .liquid
    /// With a canvas (`width`/`height`), the most lines the text is wrapped into (`LineBreaks`).
    public var maxLines: Int = 5
    /// CIShadedMaterial's inputScale: it steepens the normals, so it is part of the shape.
    public var scale: Double = 10
    /// A growing vine ornament, lofted and shaded with the title.
    public var vine: Vine? = nil
    public var mask: String? = nil
    /// A PNG drawn as the title instead of a text (`ImageTitle`).
    public var image: LayerImage? = nil
    /// Raised letters (`up`) or engraved ones (`down`: the loft's slope inverted).
    public var bevel: BevelDirection = .up

    public init() {}

    /// The shaded material's scale, negative for an engraved bevel (its normals turned the other way).
    public var normalScale: Double { bevel == .down ? -scale : scale }

    public var loftMargin: Int { Int(radius.rounded(.up)) + 4 }

    public var textFrame: TextFrame {
        var frame = TextFrame(width: width, height: height, loftMargin: loftMargin)
        (frame.anchor, frame.margin, frame.padding, frame.offset, frame.maxWidth) = (anchor, margin, padding, offset, maxWidth)
        frame.platePadding = platePadding
        return frame
    }

    /// What the title's mask (`TitleRenderer.titleMask`) is made from: these settings
    /// without what only lofts it (the radius, bar the loft's margin it sets; the
    /// profile, scale and bevel), and the mask and font files as they are on disk.
    /// Two settings with one key have the same mask, so a radius drag lays out and
    /// draws the text again only when the margin (radius rounded up, plus 4) moves.
    public struct MaskKey: Equatable, Sendable {
        var shape: TitleShapeSettings
        var loftMargin: Int
        var maskFile: FileStamp?
        var fontFile: FileStamp?
    }

    public var maskKey: MaskKey {
        var shape = self
        (shape.radius, shape.profile, shape.scale, shape.bevel) = (1, .liquid, 1, .up)
        return MaskKey(shape: shape, loftMargin: loftMargin, maskFile: mask.flatMap(FileStamp.init),
                       fontFile: FileStamp(font))
    }
}

/// What lights and colours a shape: changing only these re-shades the kept normals.
public struct TitleLookSettings: Sendable, Equatable {
    public var scene = ShadingScene()
    /// nil: transparent (or the gradient).
    public var background: RGBColor? = nil
    /// An axial gradient behind the title (instead of `background`).
    public var backgroundGradient: BackgroundGradient? = nil
    /// Coloured 2-D point lights over the title, and the level it is darkened to where they do not reach.
    public var pointLights: [PointLight] = []
    public var ambientLightLevel: Double = 0.1
    public var shadingImage: String? = nil
    /// The material the settings started from (informational).
    public var material: String = "mercurial"
    /// The title's alpha, multiplied in as it is put on the canvas.
    public var opacity: Double = 1
    /// The title as drawn moved right and down by this many pixels, and scaled by
    /// `zoom` about its region's centre, as it is put on the canvas (not lofted again).
    public var shiftX: Double = 0, shiftY: Double = 0, zoom: Double = 1
    /// Shares of the distance that takes the title wholly off the canvas, added to the move
    /// (-1 in x: just past the left edge); see `RegionPlacement`.
    public var clearX: Double = 0, clearY: Double = 0
    /// Letters appearing one after another (an `in`/`out` reveal at the frame's time), or nil.
    public var reveal: LetterReveal.Frame? = nil
    /// Drop shadow, outer glow, stroke and inner shadow, drawn around the shaded title.
    public var styles = LayerStyles()
    /// The looks of the text's styled runs beyond the title's own (`TextRun.look`).
    public var runLooks: [RunLook] = []

    public init() {}
}

/// A key of a scene's top level that none of its layers takes, and the warning that says why.
public struct UnusedKey: Sendable, Equatable {
    public var key: String
    /// `scene.json:7:3: the scene's "text" applies to no layer: …`.
    public var message: String
}

// The flat names the parameter table, scene readers and the editor use.
extension RenderSettings {
    /// Setting another text drops the styled runs (their texts joined were the old text).
    public var text: String? {
        get { shape.text }
        set {
            if newValue != shape.text { (shape.runs, look.runLooks) = ([], []) }
            shape.text = newValue
        }
    }
    public var font: String { get { shape.font } set { shape.font = newValue } }
    public var size: Double? { get { shape.size } set { shape.size = newValue } }
    public var width: Int? { get { shape.width } set { shape.width = newValue } }
    public var height: Int? { get { shape.height } set { shape.height = newValue } }
    public var alignment: TextLayout.Alignment? { get { shape.alignment } set { shape.alignment = newValue } }
    public var anchor: Anchor { get { shape.anchor } set { shape.anchor = newValue } }
    public var margin: PlacementMargin? { get { shape.margin } set { shape.margin = newValue } }
    public var padding: Int? { get { shape.padding } set { shape.padding = newValue } }
    public var offset: SIMD2<Double> { get { shape.offset } set { shape.offset = newValue } }
    public var maxWidth: Int? { get { shape.maxWidth } set { shape.maxWidth = newValue } }
    public var lineSpacing: Double { get { shape.lineSpacing } set { shape.lineSpacing = newValue } }
    public var letterSpacing: Double { get { shape.letterSpacing } set { shape.letterSpacing = newValue } }
    public var kerning: Bool { get { shape.kerning } set { shape.kerning = newValue } }
    public var fallback: Bool { get { shape.fallback } set { shape.fallback = newValue } }
    public var features: [String] { get { shape.features } set { shape.features = newValue } }
    public var variations: [FontVariation] { get { shape.variations } set { shape.variations = newValue } }
    public var textPath: TextPath? { get { shape.textPath } set { shape.textPath = newValue } }
    public var overflow: TextOverflow { get { shape.overflow } set { shape.overflow = newValue } }
    public var emoji: EmojiStyle { get { shape.emoji } set { shape.emoji = newValue } }
    public var fallbackFonts: [FallbackFont] { get { shape.fallbackFonts } set { shape.fallbackFonts = newValue } }
    public var radius: Double { get { shape.radius } set { shape.radius = newValue } }
    public var profile: LoftProfile { get { shape.profile } set { shape.profile = newValue } }
    public var maxLines: Int { get { shape.maxLines } set { shape.maxLines = newValue } }
    public var scale: Double { get { shape.scale } set { shape.scale = newValue } }
    public var vine: Vine? { get { shape.vine } set { shape.vine = newValue } }
    public var mask: String? { get { shape.mask } set { shape.mask = newValue } }
    public var bevel: BevelDirection { get { shape.bevel } set { shape.bevel = newValue } }

    public var scene: ShadingScene { get { look.scene } set { look.scene = newValue } }
    public var background: RGBColor? { get { look.background } set { look.background = newValue } }
    public var backgroundGradient: BackgroundGradient? {
        get { look.backgroundGradient } set { look.backgroundGradient = newValue }
    }
    public var pointLights: [PointLight] { get { look.pointLights } set { look.pointLights = newValue } }
    public var ambientLightLevel: Double { get { look.ambientLightLevel } set { look.ambientLightLevel = newValue } }
    public var shadingImage: String? { get { look.shadingImage } set { look.shadingImage = newValue } }
    public var material: String { get { look.material } set { look.material = newValue } }
    public var opacity: Double { get { look.opacity } set { look.opacity = newValue } }
    public var shiftX: Double { get { look.shiftX } set { look.shiftX = newValue } }
    public var shiftY: Double { get { look.shiftY } set { look.shiftY = newValue } }
    public var zoom: Double { get { look.zoom } set { look.zoom = newValue } }
    public var dropShadow: DropShadow? { get { look.styles.dropShadow } set { look.styles.dropShadow = newValue } }
    public var image: LayerImage? { get { shape.image } set { shape.image = newValue } }
    public var plate: Plate? {
        get { look.styles.plate }
        set { (look.styles.plate, shape.platePadding) = (newValue, newValue?.padding) }
    }
    public var outerGlow: OuterGlow? { get { look.styles.outerGlow } set { look.styles.outerGlow = newValue } }
    public var stroke: Stroke? { get { look.styles.stroke } set { look.styles.stroke = newValue } }
    public var innerShadow: InnerShadow? { get { look.styles.innerShadow } set { look.styles.innerShadow = newValue } }
}
