import Foundation

/// A rendered title and what happened on the way.
public struct RenderedTitle: Sendable {
    public var image: Image<RGBA8>
    public var warnings: [MercurialWarning]
    public var timings: StageTimings
}

/// Milliseconds spent in each stage of one render.
public struct StageTimings: Sendable {
    public var mask = 0.0, heightField = 0.0, shading = 0.0, material = 0.0
    public var total: Double { mask + heightField + shading + material }
}

/// The whole pipeline: text (or a mask PNG) → mask → height field → shaded
/// material, with the shading sphere (or a shading image) → RGBA image.
public enum TitleRenderer {
    public static func render(_ settings: RenderSettings) throws(MercurialError) -> RenderedTitle {
        var timings = StageTimings()
        var clock = ContinuousClock.now
        func lap() -> Double {
            let now = ContinuousClock.now
            defer { clock = now }
            let d = now - clock
            return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
        }
        try validate(settings)

        let mask: Mask
        var warnings: [MercurialWarning] = []
        if let maskPath = settings.mask {
            mask = coverage(of: try PNGFile.read(maskPath, role: "mask"))
        } else {
            guard let text = settings.text else {
                throw MercurialError("there is no text to render; give it as an argument, as \"text\" in the scene file, or use --mask")
            }
            var layout = TextLayout(text: text, fontPath: try FontLibrary.resolve(settings.font))
            layout.size = settings.size
            layout.alignment = settings.alignment
            layout.lineSpacing = settings.lineSpacing
            layout.letterSpacing = settings.letterSpacing
            layout.kerning = settings.kerning
            let result = try TextMask.render(layout, width: settings.width, height: settings.height, margin: settings.margin)
            mask = result.mask
            warnings = result.warnings
        }
        timings.mask = lap()

        let heights = HeightFieldFromMask(inputRadius: Float(settings.radius)).outputImage(mask)
        timings.heightField = lap()

        let shading: ShadingLookup
        if let path = settings.shadingImage {
            shading = ShadingLookup(try PNGFile.read(path, role: "shading image"))
        } else {
            shading = ShadingSphere.lookup(settings.scene)
        }
        timings.shading = lap()

        let image = ShadedMaterial(inputScale: Float(settings.scale))
            .outputImage(heights: heights, coverage: mask, shading: shading, background: settings.background)
        timings.material = lap()
        return RenderedTitle(image: image, warnings: warnings, timings: timings)
    }

    /// Checks what the parameter model does not: layout numbers and option clashes.
    static func validate(_ settings: RenderSettings) throws(MercurialError) {
        for parameter in ParameterGroup.allParameters {
            try parameter.validate(parameter.parameterFunction.value(in: settings))
        }
        func check(_ name: String, _ v: Double, _ range: ClosedRange<Double>) throws(MercurialError) {
            guard v.isFinite, range.contains(v) else {
                throw MercurialError("\(name) is \(formatNumber(v)), out of range \(rangeText(range)); give a number in that range")
            }
        }
        try check("size", settings.size, RenderSettings.sizeRange)
        try check("line spacing", settings.lineSpacing, RenderSettings.lineSpacingRange)
        try check("letter spacing", settings.letterSpacing, RenderSettings.letterSpacingRange)
        if settings.mask != nil && (settings.width != nil || settings.height != nil) {
            throw MercurialError("--width/--height do not apply with --mask (the canvas is the mask's own size); leave them out")
        }
        if let w = settings.width { try PNGFile.checkCanvas(width: w, height: settings.height ?? 1, what: "the canvas") }
        if let h = settings.height { try PNGFile.checkCanvas(width: settings.width ?? 1, height: h, what: "the canvas") }
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
