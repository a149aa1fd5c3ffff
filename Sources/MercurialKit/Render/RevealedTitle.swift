/// The letters of a title for a per-letter reveal: which letter each pixel of the
/// shaded region belongs to, from the glyph pieces the physics draws as bodies
/// (`DynamicTitle.group`, one a glyph). A frame of the reveal takes each letter's
/// pixels of the title as shaded whole, with the letter's alpha and vertical offset,
/// so a settled reveal is the still title, pixel for pixel.
struct LetterMap {
    /// Each region pixel's letter, in text order; -1 where no glyph inks it (a vine).
    let labels: [Int32]
    let width: Int, height: Int
    let count: Int

    /// Throws for a mask, or a text with no inked letter.
    init(settings: RenderSettings, shape: TitleShape) throws(MercurialError) {
        guard settings.mask == nil, let text = settings.text else {
            throw MercurialError("a \"reveal\" shows a text's letters one after another; give \"text\" instead of \"mask\", or use \"type\": \"fade\"")
        }
        let p = try TextMask.place(try TitleRenderer.textLayout(settings, text: text), frame: settings.textFrame)
        let letters = DynamicTitle.group(p.run.bitmaps, into: .glyphs)
        guard !letters.isEmpty else {
            throw MercurialError("a \"reveal\" shows the letters one after another, but the text \"\(shortQuote(text))\" has no letter with ink; give a text with letters, or use \"type\": \"fade\"")
        }
        let (w, h) = (shape.mask.width, shape.mask.height)
        var labels = [Int32](repeating: -1, count: w * h)
        var best = [UInt8](repeating: 0, count: w * h)
        // Region pixel of a glyph's pixel (0, 0).
        let dx = p.originX + p.offsetX - shape.origin.x, dy = p.originY + p.offsetY - shape.origin.y
        for (k, letter) in letters.enumerated() {
            for bitmap in letter {
                for row in 0..<bitmap.height {
                    let y = bitmap.top + dy + row
                    guard y >= 0 && y < h else { continue }
                    for column in 0..<bitmap.width {
                        let x = bitmap.left + dx + column, c = bitmap.coverage[row * bitmap.width + column]
                        guard x >= 0 && x < w, c > best[y * w + x] else { continue }
                        best[y * w + x] = c
                        labels[y * w + x] = Int32(k)
                    }
                }
            }
        }
        self.labels = labels
        width = w
        height = h
        count = letters.count
    }

    /// `title` (this map's region, at `origin` on a canvas `canvasHeight` rows high) as
    /// `frame` shows it, drawn into `out` (made the size it needs: the region, taller
    /// by the letters' offsets, cut at the canvas). Returns where `out` sits.
    /// `opaque`: every letter where the frame puts it, but at full alpha.
    func reveal(_ title: Image<RGBA8>, at frame: LetterReveal.Frame, origin: (x: Int, y: Int), canvasHeight: Int,
                into out: inout Image<RGBA8>, opaque: Bool = false) -> (x: Int, y: Int) {
        let states = (0..<count).map { k in frame.letter(k) }.map { opaque ? (alpha: 1, dy: $0.dy) : $0 }
        let alphas = states.map { UInt32((min(max($0.alpha, 0), 1) * 65535).rounded()) }
        let shifts = states.map { Int(pixel: $0.dy, .down) }
        // A letter part-way up or down sits across two rows.
        let whole = states.allSatisfy { $0.dy == $0.dy.rounded(.down) }
        let top = max(origin.y + min(shifts.min() ?? 0, 0), 0)
        let bottom = min(origin.y + height + max((shifts.max() ?? 0) + (whole ? 0 : 1), 0), canvasHeight)
        if out.width != width || out.height != bottom - top {
            out = Image(width: width, height: bottom - top, repeating: .clear)
        } else {
            out.withUnsafeMutableBufferPointer { $0.update(repeating: .clear) }
        }
        let (w, h, outHeight, shift) = (width, height, bottom - top, origin.y - top)
        guard whole else {
            revealBetweenRows(title, states: states, shift: shift, into: &out)
            return (origin.x, top)
        }
        title.withUnsafeBufferPointer { source in
            labels.withUnsafeBufferPointer { labels in
                out.withUnsafeMutableBufferPointer { target in
                    // Letters move only up and down, so bands of columns touch disjoint pixels.
                    parallelBands(w, minimumBand: 64) { columns in
                        for y in 0..<h {
                            for x in columns {
                                let i = y * w + x, p = source[i]
                                guard p.a > 0 else { continue }
                                let k = Int(labels[i])
                                var a = p.a, ty = y + shift
                                if k >= 0 {
                                    a = UInt8((UInt32(p.a) * alphas[k] + 32767) / 65535)
                                    ty += shifts[k]
                                }
                                guard a > 0, ty >= 0, ty < outHeight else { continue }
                                target[ty * w + x] = PixelStack.over(RGBA8(r: p.r, g: p.g, b: p.b, a: a), target[ty * w + x])
                            }
                        }
                    }
                }
            }
        }
        return (origin.x, top)
    }

    /// The reveal with letters at fractional heights: each letter's pixel is split between
    /// the two rows it falls across (linear in y, as a sub-pixel move resamples), the parts
    /// from one letter's run of pixels down a column added (so a letter stays solid), and
    /// each run laid "over" what the column holds (where a moving letter passes another).
    /// Premultiplied floats; `out` is already sized and clear.
    private func revealBetweenRows(_ title: Image<RGBA8>, states: [(alpha: Double, dy: Double)], shift: Int,
                                   into out: inout Image<RGBA8>) {
        let alphas = states.map { Float(min(max($0.alpha, 0), 1)) }
        let rows = states.map { Int(pixel: $0.dy, .down) }
        let fractions = states.map { Float($0.dy - $0.dy.rounded(.down)) }
        let (w, h, outHeight) = (width, height, out.height)
        title.withUnsafeBufferPointer { source in
            labels.withUnsafeBufferPointer { labels in
                out.withUnsafeMutableBufferPointer { target in
                    // Letters move only up and down, so bands of columns touch disjoint pixels.
                    parallelBands(w, minimumBand: 64) { columns in
                        var column = [SIMD4<Float>](repeating: .zero, count: outHeight)
                        column.withUnsafeMutableBufferPointer { column in
                            @inline(__always) func put(_ row: Int, _ v: SIMD4<Float>) {
                                guard v.w > 0, row >= 0, row < outHeight else { return }
                                column[row] = PixelStack.over(v, column[row])
                            }
                            for x in columns {
                                column.update(repeating: .zero)
                                var y = 0
                                while y < h {
                                    let k = Int(labels[y * w + x])
                                    guard source[y * w + x].a > 0 else { y += 1; continue }
                                    let (alpha, f, base) = k >= 0 ? (alphas[k], fractions[k], y + shift + rows[k]) : (1, 0, y + shift)
                                    var carry = SIMD4<Float>.zero, row = base
                                    while y < h, Int(labels[y * w + x]) == k, source[y * w + x].a > 0 {
                                        let p = source[y * w + x], a = Float(p.a) * (1 / 255) * alpha
                                        let c = SIMD4(Float(p.r) * (a / 255), Float(p.g) * (a / 255), Float(p.b) * (a / 255), a)
                                        put(row, carry + c * (1 - f))
                                        carry = c * f
                                        row += 1
                                        y += 1
                                    }
                                    put(row, carry)
                                }
                                for row in 0..<outHeight where column[row].w > 0 {
                                    target[row * w + x] = PixelStack.pixel(column[row])
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
