/// Everything that decides how a title looks: text and layout, the two filters'
/// inputs, the shading sphere, and where a mask or shading image comes from.
/// The defaults are the original app's (the `mercurial` material); the ranges,
/// help and keys of these fields are declared in `ParameterGroup.allParameters`.
public struct RenderSettings: Sendable, Equatable {
    public var text: String? = nil
    /// A bundled font name, a font file, or a fontconfig name.
    public var font: String = "rounded"
    /// The em size in pixels; nil: 160, or with `width`/`height` as large as fits.
    public var size: Double? = nil
    public var width: Int? = nil
    public var height: Int? = nil
    public var alignment: TextLayout.Alignment = .center
    public var lineSpacing: Double = 1
    public var letterSpacing: Double = 0
    public var kerning = true
    public var fallback = true
    /// The faces a recipe records as drawing what `font` lacks; tried before fontconfig's choice.
    public var fallbackFonts: [FallbackFont] = []
    /// CIHeightFieldFromMask's inputRadius.
    public var radius: Double = 10
    /// The loft's shape across a stroke.
    public var profile: LoftProfile = .liquid
    /// With a canvas (`width`/`height`), the most lines the text is wrapped into at spaces.
    public var maxLines: Int = 5
    /// CIShadedMaterial's inputScale.
    public var scale: Double = 10
    public var scene = ShadingScene()
    /// nil: transparent (or the gradient).
    public var background: RGBColor? = nil
    /// An axial gradient behind the title (instead of `background`).
    public var backgroundGradient: BackgroundGradient? = nil
    /// Coloured 2-D point lights over the title, and the level it is darkened to where they do not reach.
    public var pointLights: [PointLight] = []
    public var ambientLightLevel: Double = 0.1
    /// A growing vine ornament, lofted and shaded with the title.
    public var vine: Vine? = nil
    public var shadingImage: String? = nil
    public var mask: String? = nil
    /// The material the settings started from (informational).
    public var material: String = "mercurial"

    public init() {}

    /// The margin around the ink when the canvas is sized to the text: wide enough
    /// for the bevel's skirt and some air.
    public var margin: Int { Int(radius.rounded(.up)) + 4 }

    /// The longest text a title may have, in characters.
    public static let maximumTextLength = 10_000
}
