import Dispatch
import Foundation

/// A rendered title and what happened on the way.
///
/// Only the part of the canvas around the ink is drawn: `canvas` is that region
/// placed in a canvas of the fill (transparent, or the background). A
/// `CanvasEncoder` turns it into bytes without making the whole canvas.
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
        // Trace the shading sphere (when it is not cached yet) while the mask is made.
        let sphere = settings.shadingImage == nil ? SphereInBackground(settings.scene) : nil

        // The mask, cut to the ink plus the margin, and where that sits on the canvas.
        let mask: Mask
        let origin: (x: Int, y: Int), canvas: (width: Int, height: Int)
        var warnings: [MercurialWarning] = []
        if let maskPath = settings.mask {
            let full = coverage(of: try PNGFile.read(maskPath, role: "mask"))
            canvas = (full.width, full.height)
            if let ink = full.inkBounds(threshold: 0) {
                let m = settings.margin
                let x0 = max(ink.minX - m, 0), y0 = max(ink.minY - m, 0)
                mask = full.cropped(x: x0, y: y0, width: min(ink.maxX + m, full.width - 1) - x0 + 1,
                                    height: min(ink.maxY + m, full.height - 1) - y0 + 1)
                origin = (x0, y0)
            } else {
                mask = Mask(width: 0, height: 0, repeating: 0)
                origin = (0, 0)
                warnings.append(MercurialWarning("mask '\(maskPath)' is empty (no pixel has coverage); the title is blank"))
            }
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
            origin = (result.originX, result.originY)
            canvas = (result.canvasWidth, result.canvasHeight)
            warnings = result.warnings
        }
        timings.mask = lap()

        let heights = HeightFieldFromMask(inputRadius: Float(settings.radius), inputProfile: settings.profile).outputImage(mask)
        timings.heightField = lap()

        let shading: ShadingLookup
        if let path = settings.shadingImage {
            shading = ShadingLookup(try PNGFile.read(path, role: "shading image"))
        } else {
            shading = sphere?.wait() ?? ShadingSphere.lookup(settings.scene)
        }
        timings.shading = lap()

        let content = ShadedMaterial(inputScale: Float(settings.scale))
            .outputImage(heights: heights, coverage: mask, shading: shading, background: settings.background)
        timings.material = lap()
        return RenderedTitle(width: canvas.width, height: canvas.height, content: content, originX: origin.x,
                             originY: origin.y, fill: settings.background.map { RGBA8(opaque: $0) } ?? .clear,
                             warnings: warnings, timings: timings)
    }

    /// Checks every parameter against its row, then what the rows cannot: option clashes.
    static func validate(_ settings: RenderSettings) throws(MercurialError) {
        if let text = settings.text, text.utf8.count > RenderSettings.maximumTextLength * 4
            || text.count > RenderSettings.maximumTextLength {
            throw MercurialError("the text is \(text.count) characters long, over the limit of \(RenderSettings.maximumTextLength); shorten it")
        }
        try settings.validateParameters()
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

/// `ShadingSphere.lookup` started on another thread; `wait()` returns its result.
private final class SphereInBackground: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: ShadingLookup?

    init(_ scene: ShadingScene) {
        DispatchQueue.global(qos: .userInitiated).async {
            self.result = ShadingSphere.lookup(scene)
            self.done.signal()
        }
    }

    func wait() -> ShadingLookup? {
        done.wait()
        return result
    }
}
