import Synchronization

/// A PNG as a title (`image`): a logo or a channel bug, alone or as a layer, placed as a text
/// is (anchor, margin, offset; in a stack, `below` and `gap`), scaled to `width` or `height`
/// (keeping its shape when one is given), and drawn either in its own colours (lit by the
/// point lights, with the styles and plate, moved and faded as a title is) or, with
/// `emboss`, lofted from its coverage and shaded in the title's metal, as a `--mask` is.
public struct LayerImage: Sendable, Equatable {
    /// The PNG; in a scene file, relative to the scene's folder.
    public var file = ""
    /// The size it is drawn at, in pixels; one side alone keeps its shape, neither its own size.
    public var width: Int? = nil
    public var height: Int? = nil
    /// Lofted and shaded in the title's metal (its alpha, or without alpha its luminance, the
    /// coverage), instead of drawn in its own colours.
    public var emboss = false

    public init() {}

    /// The most pixels an image may have, read or scaled: it is held whole, in memory.
    public static let maximumPixels = 16_777_216
}

enum ImageTitle {
    /// The size `image` is drawn at, from the file's `source` size.
    static func size(_ image: LayerImage, source: (width: Int, height: Int)) throws(MercurialError) -> (width: Int, height: Int) {
        let (sw, sh) = (Double(source.width), Double(source.height))
        let size: (width: Int, height: Int)
        switch (image.width, image.height) {
        case let (w?, h?): size = (w, h)
        case let (w?, nil): size = (w, max(Int((sh * Double(w) / sw).rounded()), 1))
        case let (nil, h?): size = (max(Int((sw * Double(h) / sh).rounded()), 1), h)
        case (nil, nil): size = source
        }
        guard size.width * size.height <= LayerImage.maximumPixels else {
            throw MercurialError.limit("image '\(image.file)' drawn at \(size.width)×\(size.height) would have over \(LayerImage.maximumPixels / 1_048_576) M pixels, which is held in memory; give a smaller \"image.width\" or \"image.height\"")
        }
        return size
    }

    /// The image read and scaled to the size it is drawn at: once per process while the file
    /// and the size stay, as a render places an image layer, plans its size and draws it.
    static func pixels(_ image: LayerImage) throws(MercurialError) -> Image<RGBA8> {
        let stamp = FileStamp(image.file)
        let key = stamp.map { Scaled(file: $0, width: image.width, height: image.height) }
        if let key, let kept = scaled.withLock({ $0[key] }) { return kept }
        let source = try PNGFile.read(image.file, role: "image")
        guard source.width > 0, source.height > 0 else {
            throw MercurialError("image '\(image.file)' has no pixels; give a PNG with some")
        }
        let size = try Self.size(image, source: (source.width, source.height))
        let drawn = size == (source.width, source.height) ? source : resampled(source, to: size)
        if let key {
            // The last few images (a scene's logos), at most 64 M pixels together.
            scaled.withLock { kept in
                if kept.count >= 8 || kept.values.reduce(drawn.count, { $0 + $1.count }) > 1 << 26 { kept = [:] }
                kept[key] = drawn
            }
        }
        return drawn
    }

    /// An image file as read (by its identity and modification time) at a size asked for.
    private struct Scaled: Hashable {
        var file: FileStamp
        var width: Int?, height: Int?
    }
    private static let scaled = Mutex<[Scaled: Image<RGBA8>]>([:])

    /// `source` at `size`: each output pixel the average of the source area it covers
    /// (shrinking) or bilinear between the four nearest (enlarging), in premultiplied alpha so
    /// that clear pixels lend no colour. Written here because no dependency of the package
    /// scales images (libpng reads and writes them; ffmpeg is a separate process).
    static func resampled(_ source: Image<RGBA8>, to size: (width: Int, height: Int)) -> Image<RGBA8> {
        let (sw, sh) = (source.width, source.height)
        // Premultiplied floats, a row at a time.
        var pre = [SIMD4<Float>](repeating: .zero, count: sw * sh)
        for i in 0..<(sw * sh) {
            let p = source.pixels[i], a = Float(p.a) / 255
            pre[i] = SIMD4(Float(p.r) * a, Float(p.g) * a, Float(p.b) * a, Float(p.a))
        }
        var out = Image<RGBA8>(width: size.width, height: size.height, repeating: .clear)
        let sx = Double(sw) / Double(size.width), sy = Double(sh) / Double(size.height)
        /// The source pixels an output pixel's span covers along one side, with their weights.
        func taps(_ i: Int, scale: Double, length: Int) -> [(Int, Float)] {
            if scale > 1 {
                let start = Double(i) * scale, end = start + scale
                return (Int(start)..<min(Int(end.rounded(.up)), length)).map { j in
                    (j, Float(min(end, Double(j + 1)) - max(start, Double(j))))
                }
            }
            let centre = (Double(i) + 0.5) * scale - 0.5
            let j = Int(centre.rounded(.down)), t = Float(centre - Double(j))
            return [(min(max(j, 0), length - 1), 1 - t), (min(max(j + 1, 0), length - 1), t)]
        }
        let columns = (0..<size.width).map { taps($0, scale: sx, length: sw) }
        pre.withUnsafeBufferPointer { pre in
            out.withUnsafeMutableBufferPointer { o in
                parallelBands(size.height, minimumBand: 8) { rows in
                    for y in rows {
                        let down = taps(y, scale: sy, length: sh)
                        for x in 0..<size.width {
                            var sum = SIMD4<Float>.zero, weight: Float = 0
                            for (j, wy) in down {
                                for (i, wx) in columns[x] {
                                    sum += pre[j * sw + i] * (wx * wy)
                                    weight += wx * wy
                                }
                            }
                            guard weight > 0 else { continue }
                            let v = sum / weight
                            guard v.w >= 0.5 else { continue }
                            let k = 255 / v.w
                            o[y * size.width + x] = RGBA8(r: UInt8(min(v.x * k, 255) + 0.5), g: UInt8(min(v.y * k, 255) + 0.5),
                                                          b: UInt8(min(v.z * k, 255) + 0.5), a: UInt8(min(v.w, 255) + 0.5))
                        }
                    }
                }
            }
        }
        return out
    }

    /// What the image covers: its alpha; embossed without an alpha channel, its luminance
    /// (as a `--mask`); drawn in its colours without alpha, all of it.
    static func coverage(_ pixels: Image<RGBA8>, emboss: Bool) -> Mask {
        if emboss { return TitleRenderer.coverage(of: pixels) }
        return pixels.map { Float($0.a) / 255 }
    }

    /// The image's ink box, placed on the canvas as a text's ink box is (`TextFrame`): the
    /// canvas (a side not given: the ink and its insets) and where the ink's top-left goes.
    static func place(ink: (width: Int, height: Int), settings: RenderSettings) throws(MercurialError)
        -> (canvas: (width: Int, height: Int), origin: (x: Int, y: Int)) {
        let frame = settings.textFrame
        let insetX = try frame.inset(settings.width, side: "width"), insetY = try frame.inset(settings.height, side: "height")
        let canvas = (width: settings.width ?? ink.width + insetX.total, height: settings.height ?? ink.height + insetY.total)
        for (name, length, room, inset) in [("width", ink.width, canvas.width, insetX), ("height", ink.height, canvas.height, insetY)]
            where length > room - inset.total {
            throw MercurialError("image '\(settings.image?.file ?? "")' is \(length) px in \(name), more than the \(room - inset.total) px inside the margin of the \(canvas.width)×\(canvas.height) canvas; give a smaller \"image.\(name)\" or margin")
        }
        return (canvas, (TextFrame.position(length: canvas.width, inset: insetX, ink: ink.width, side: settings.anchor.horizontal,
                                            offset: settings.offset.x),
                         TextFrame.position(length: canvas.height, inset: insetY, ink: ink.height, side: settings.anchor.vertical,
                                            offset: settings.offset.y)))
    }

    /// The title mask of an image: its coverage cut to the ink and the loft's margin, placed
    /// on the canvas; drawn in its colours, those as a flat paint plane over it.
    static func titleMask(_ settings: RenderSettings, _ image: LayerImage) throws(MercurialError) -> TitleRenderer.TitleMask {
        let pixels = try Self.pixels(image)
        let full = coverage(pixels, emboss: image.emboss)
        guard let ink = full.inkBounds(threshold: 0) else {
            let placed = try place(ink: (0, 0), settings: settings)
            return TitleRenderer.TitleMask(mask: Mask(width: 0, height: 0, repeating: 0), origin: (0, 0), canvas: placed.canvas,
                                           warnings: [MercurialWarning("image '\(image.file)' is clear (no pixel has coverage); it draws nothing")])
        }
        let (canvas, at) = try place(ink: (ink.width, ink.height), settings: settings)
        // The region: the ink and the loft's margin, cut at the canvas; image pixel (ink.minX, ink.minY) at `at`.
        let m = settings.loftMargin
        let x0 = max(at.x - m, 0), y0 = max(at.y - m, 0)
        let x1 = min(at.x + ink.width + m, canvas.width), y1 = min(at.y + ink.height + m, canvas.height)
        let (w, h) = (max(x1 - x0, 0), max(y1 - y0, 0))
        var mask = Mask(width: w, height: h, repeating: 0)
        var paint = image.emboss ? nil : PaintPlane(width: w, height: h, repeating: .clear)
        let dx = ink.minX - at.x, dy = ink.minY - at.y
        for y in 0..<h {
            let sy = y0 + y + dy
            guard sy >= 0 && sy < pixels.height else { continue }
            for x in 0..<w {
                let sx = x0 + x + dx
                guard sx >= 0 && sx < pixels.width else { continue }
                mask[x, y] = full[sx, sy]
                paint?[x, y] = pixels[sx, sy]
            }
        }
        return TitleRenderer.TitleMask(mask: mask, origin: (x0, y0), canvas: canvas, warnings: [], paint: paint, paintIsFlat: !image.emboss)
    }

    /// The ink's size of an image title, for a stack's placement.
    static func inkSize(_ image: LayerImage) throws(MercurialError) -> (width: Int, height: Int) {
        let full = coverage(try pixels(image), emboss: image.emboss)
        guard let ink = full.inkBounds(threshold: 0) else { return (0, 0) }
        return (ink.width, ink.height)
    }
}
