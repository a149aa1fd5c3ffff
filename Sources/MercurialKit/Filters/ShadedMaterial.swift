/// Colours a height field by looking up each pixel's surface normal in a
/// hemisphere "shading image", like Core Image's CIShadedMaterial.
///
/// Convention (the matcap one): the shading image's inscribed circle is the
/// hemisphere seen from +z; image x to the right is +x, image y downward is −y.
/// The output colour is the shading image's colour at the point whose normal
/// matches, bilinearly interpolated, and nothing else is added. Output alpha is
/// the mask's coverage, colour un-premultiplied; with a background colour the
/// result is composited onto it and opaque.
public struct ShadedMaterial: Sendable {
    /// Multiplies the heights before the normals are taken (the `scale` parameter).
    public var inputScale: Float = 10

    public init(inputScale: Float = 10) {
        self.inputScale = inputScale
    }

    public func outputImage(heights: HeightField, coverage: Mask, shading: ShadingLookup,
                            background: RGBColor? = nil) -> Image<RGBA8> {
        precondition(heights.width == coverage.width && heights.height == coverage.height,
                     "Height field \(heights.width)×\(heights.height) and mask \(coverage.width)×\(coverage.height) differ in size")
        return outputImage(heights: heights, coverage: coverage, looks: nil, rows: .whole(coverage), shading: shading,
                           background: background)
    }

    /// Which rows of a title's region a coverage mask and its heights hold: all of
    /// them, or a band of a large title (`BandLoft`), whose heights reach the row
    /// either side of it (within the region) for the normals at its edges.
    struct Rows: Sendable {
        /// The region's rows the coverage holds.
        var rows: Range<Int>
        /// How many rows the region has (a normal's neighbours stop at its edges).
        var regionHeight: Int
        /// The region row of the heights' first row.
        var heightsFrom: Int
        /// The region's ink (nil: none), within which pixels are shaded.
        var ink: PixelBounds?

        static func whole(_ coverage: Mask) -> Rows {
            Rows(rows: 0..<coverage.height, regionHeight: coverage.height, heightsFrom: 0,
                 ink: coverage.inkBounds(threshold: 0))
        }
    }

    /// The shaded rows `rows.rows` of a title (one image row each), each pixel's
    /// normal taken from the heights as it goes: the whole title, or a band of it.
    func outputImage(heights: HeightField, coverage: Mask, looks: LookPlane?, rows: Rows, shading: ShadingLookup,
                     background: RGBColor?) -> Image<RGBA8> {
        var out = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
        shade(heights: heights, coverage: coverage, looks: looks, rows: rows, shading: shading, background: background, into: &out)
        return out
    }

    /// The same into `out`, whose storage is reused when it has the size (band after band);
    /// `looks` (the coverage's size): which of the lookup's pages each pixel samples.
    func shade(heights: HeightField, coverage: Mask, looks: LookPlane? = nil, rows: Rows, shading: ShadingLookup,
               background: RGBColor?, into out: inout Image<RGBA8>) {
        precondition(heights.width == coverage.width && coverage.height == rows.rows.count
                     && rows.heightsFrom <= max(rows.rows.lowerBound - 1, 0)
                     && rows.heightsFrom + heights.height >= min(rows.rows.upperBound + 1, rows.regionHeight),
                     "Heights \(heights.width)×\(heights.height) from row \(rows.heightsFrom) do not cover mask rows \(rows.rows) (\(coverage.width) wide) and their neighbours")
        let width = coverage.width, height = rows.regionHeight, from = rows.heightsFrom, first = rows.rows.lowerBound
        let empty = background.map { RGBA8(opaque: $0) } ?? .clear
        // The region is filled with the empty pixel on every core (a 1080p title's is 2.7 MB,
        // new memory in a one-shot process), then its inked pixels are shaded over it.
        // RGBA8 is trivial, so a new image's storage may be filled by `initialize` as a reused one is.
        let rowCount = coverage.height
        if out.width != width || out.height != rowCount {
            out = Image(width: width, height: rowCount,
                        pixels: [RGBA8](unsafeUninitializedCapacity: width * rowCount) { _, count in count = width * rowCount })
        }
        out.withUnsafeMutableBufferPointer { pixels in
            parallelBands(rowCount, minimumBand: 16, work: rowCount * width) { rows in
                UnsafeMutableBufferPointer(rebasing: pixels[(rows.lowerBound * width)..<(rows.upperBound * width)])
                    .initialize(repeating: empty)
            }
        }
        guard let ink = rows.ink else { return }
        let firstInked = max(ink.minY, first), lastInked = min(ink.maxY + 1, rows.rows.upperBound)
        guard firstInked < lastInked else { return }
        let inkRows = firstInked..<lastInked
        // Central differences of the scaled heights give the slope; the normal of
        // z = s·h(x, y) with image y pointing down is (−s·∂h/∂x, +s·∂h/∂y, 1).
        let k = inputScale * 0.5
        heights.withUnsafeBufferPointer { h in
            coverage.withUnsafeBufferPointer { a in
                LookPlane.withOptionalBuffer(looks) { looks in
                shading.withSampler { shading in
                out.withUnsafeMutableBufferPointer { out in
                    parallelBands(inkRows.count, minimumBand: 8, work: inkRows.count * (ink.maxX + 1 - ink.minX) * 6) { band in
                        for y in (band.lowerBound + inkRows.lowerBound)..<(band.upperBound + inkRows.lowerBound) {
                            let row = (y - from) * width
                            let up = (max(y - 1, 0) - from) * width, down = (min(y + 1, height - 1) - from) * width
                            let r = (y - first) * width
                            Self.shadeSpan(ink.minX..<(ink.maxX + 1), coverage: a.baseAddress! + r, looks: looks.map { $0 + r },
                                           shading: shading, background: background, into: out.baseAddress! + r) { x in
                                Self.normal(h, row: row, up: up, down: down, x: x, width: width, halfScale: k)
                            }
                        }
                    }
                }
                }
                }
            }
        }
    }

    /// The unit surface normal at (x, y) of the scaled height field, as the filter uses it.
    public func surfaceNormal(of heights: HeightField, x: Int, y: Int) -> SIMD3<Float> {
        precondition(x >= 0 && x < heights.width && y >= 0 && y < heights.height,
                     "Pixel (\(x), \(y)) is outside the \(heights.width)×\(heights.height) height field")
        return heights.withUnsafeBufferPointer { h in
            Self.normal3(h, row: y * heights.width, up: max(y - 1, 0) * heights.width,
                        down: min(y + 1, heights.height - 1) * heights.width, x: x, width: heights.width,
                        halfScale: inputScale * 0.5)
        }
    }

    /// The one shading loop: pixels `xs` of a row, each inked one (coverage `a[x]` > 0)
    /// shaded by its normal's colour in the lookup, with its coverage, over `background`
    /// when there is one (un-inked pixels are left as they are). The whole-image and
    /// banded renders take the normal from the heights as they go; frames reuse kept ones.
    /// `looks` (nil: all the first page): the lookup page each pixel samples (styled runs).
    @inline(__always)
    static func shadeSpan(_ xs: Range<Int>, coverage a: UnsafePointer<Float>, looks: UnsafePointer<UInt8>? = nil,
                          shading: ShadingLookup.Sampler, background: RGBColor?, into out: UnsafeMutablePointer<RGBA8>,
                          normal: (Int) -> SIMD2<Float>) {
        if let looks {
            for x in xs {
                let alpha = a[x]
                guard alpha > 0 else { continue }
                let n = normal(x)
                out[x] = shadedPixel(shading.position(normalX: n.x, normalY: n.y, look: looks[x]), alpha: alpha,
                                     shading: shading, background: background)
            }
            return
        }
        for x in xs {
            let alpha = a[x]
            guard alpha > 0 else { continue }
            let n = normal(x)
            out[x] = shadedPixel(shading.position(normalX: n.x, normalY: n.y), alpha: alpha, shading: shading,
                                 background: background)
        }
    }

    /// The one shading of a pixel, for both loops (a span's normals and a plan's kept
    /// samples): the lookup's colour where `sample` falls, with coverage `alpha` (at
    /// most 1), mixed over `background` when there is one.
    @inline(__always)
    static func shadedPixel(_ sample: ShadingPlan.Sample, alpha: Float, shading: ShadingLookup.Sampler,
                            background: RGBColor?) -> RGBA8 {
        RGBA8(shading.color(at: sample), alpha: min(alpha, 1), over: background)
    }

    /// The unit normal's x and y at (x, `row`) of scaled heights (see `normal3`).
    @inline(__always)
    static func normal(_ h: UnsafeBufferPointer<Float>, row: Int, up: Int, down: Int, x: Int, width: Int,
                       halfScale k: Float) -> SIMD2<Float> {
        let n = normal3(h, row: row, up: up, down: down, x: x, width: width, halfScale: k)
        return SIMD2(n.x, n.y)
    }

    @inline(__always)
    static func normal3(_ h: UnsafeBufferPointer<Float>, row: Int, up: Int, down: Int, x: Int, width: Int,
                        halfScale k: Float) -> SIMD3<Float> {
        let xl = max(x - 1, 0), xr = min(x + 1, width - 1)
        // Sobel: central differences smoothed 1-2-1 across, ×1/4 to keep the slope's scale.
        let dx = (h[up + xr] - h[up + xl]) + 2 * (h[row + xr] - h[row + xl]) + (h[down + xr] - h[down + xl])
        let dy = (h[down + xl] - h[up + xl]) + 2 * (h[down + x] - h[up + x]) + (h[down + xr] - h[up + xr])
        let nx = -dx * k * 0.25
        let ny = dy * k * 0.25
        return SIMD3(nx, ny, 1) / (nx * nx + ny * ny + 1).squareRoot()
    }
}

extension ShadedMaterial {
    /// Colour emoji in their own colours (`emoji: "color"`), put on a shaded title: where `paint`
    /// has a colour, the shaded metal's colour there (the lights and highlights the emoji's loft
    /// catches) lights it: each channel the emoji's times 0.3 + 1.4 × the metal's, mixed in by how
    /// much of the pixel the emoji covers. Every path shades first and paints after, so a still,
    /// its bands and an animation's frames agree to the bit.
    /// `flat`: an image drawn in its own colours, which replace the metal's (the alpha stays the coverage's).
    static func paint(_ paint: PaintPlane, onto title: inout Image<RGBA8>, flat: Bool = false) {
        precondition(paint.width == title.width && paint.height == title.height,
                     "a \(paint.width)×\(paint.height) paint plane over a \(title.width)×\(title.height) title")
        paint.withUnsafeBufferPointer { p in
            title.withUnsafeMutableBufferPointer { out in
                parallelBands(paint.height, minimumBand: 16) { rows in
                    for i in (rows.lowerBound * paint.width)..<(rows.upperBound * paint.width) where p[i].a > 0 && out[i].a > 0 {
                        out[i] = flat ? RGBA8(r: p[i].r, g: p[i].g, b: p[i].b, a: out[i].a) : painted(out[i], by: p[i])
                    }
                }
            }
        }
    }

    /// An emoji's luminance as a height cue: its heights times 0.35 for black up to 1 for
    /// white, mixed in by how much of the pixel it covers, so that its dark lines sink and the
    /// loft follows its drawing. `heights` and `paint` have `rows` rows of `width` pixels.
    static func cue(_ heights: UnsafeMutableBufferPointer<Float>, width: Int, by paint: UnsafePointer<RGBA8>, rows: Int) {
        for i in 0..<(rows * width) where paint[i].a > 0 {
            let p = paint[i]
            let luma = (0.2126 * Float(p.r) + 0.7152 * Float(p.g) + 0.0722 * Float(p.b)) / 255
            heights[i] *= 1 - Float(p.a) / 255 * 0.65 * (1 - luma)
        }
    }

    /// One pixel of `paint`'s pass.
    @inline(__always)
    static func painted(_ metal: RGBA8, by colour: RGBA8) -> RGBA8 {
        let k = Float(colour.a) / 255
        @inline(__always) func channel(_ m: UInt8, _ c: UInt8) -> UInt8 {
            let lit = Float(c) * (0.3 + 1.4 * Float(m) / 255)
            return UInt8(min(max(Float(m) * (1 - k) + lit * k, 0), 255) + 0.5)
        }
        return RGBA8(r: channel(metal.r, colour.r), g: channel(metal.g, colour.g), b: channel(metal.b, colour.b), a: metal.a)
    }
}

/// A shading image ready for lookups: RGB as floats, and its inscribed circle.
public struct ShadingLookup: Sendable, Equatable {
    public let width: Int, height: Int
    /// 3 bytes a pixel, page after page; a texel's colour is each byte / 255 (`unit`). Bytes,
    /// not floats: a 256² lookup is 196 KB, which stays in the cache as titles are shaded, and
    /// a one-shot render reads it from `ShadingDiskCache` as it is, into a quarter of the new
    /// memory (each page of which the kernel faults in).
    private let rgb: [UInt8]
    private let centreX: Float, centreY: Float, radius: Float
    /// How many shading images of this size are stacked (one per look of a title's styled runs).
    public let pages: Int

    public init(_ image: Image<RGBA8>) {
        self.init(width: image.width, height: image.height) { rgb in
            for (i, p) in image.pixels.enumerated() {
                (rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]) = (p.r, p.g, p.b)
            }
        }
    }

    /// A lookup whose texels `fill` writes, every one of them (the buffer is not cleared
    /// first): 3 bytes a pixel, as an image gives them (`ShadingCache` rounds its sphere's
    /// sums straight into them).
    init(width: Int, height: Int, fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        self.init(width: width, height: height, texels: [UInt8](unsafeUninitializedCapacity: 3 * width * height) { buffer, count in
            fill(buffer)
            count = buffer.count
        })
    }

    /// A lookup of the texels `texels` (3 bytes a pixel, `3 * width * height` of them).
    init(width: Int, height: Int, texels: [UInt8]) {
        precondition(texels.count == 3 * width * height, "\(texels.count) texel bytes for a \(width)×\(height) lookup")
        self.width = width
        self.height = height
        rgb = texels
        centreX = Float(width) / 2
        centreY = Float(height) / 2
        radius = Float(min(width, height)) / 2
        pages = 1
    }

    /// Lookups of one size stacked as pages (the first is page 0), for a title whose styled runs
    /// take looks of their own; the lookups of other sizes than the first's are not taken.
    init(pages lookups: [ShadingLookup]) {
        let first = lookups[0]
        let same = lookups.filter { $0.width == first.width && $0.height == first.height && $0.pages == 1 }
        (width, height, centreX, centreY, radius) = (first.width, first.height, first.centreX, first.centreY, first.radius)
        rgb = same.flatMap(\.rgb)
        pages = same.count
    }

    /// The texels' bytes, for `ShadingDiskCache`.
    func texelBytes() -> [UInt8] { rgb }

    /// Each byte's value as a texel's colour channel, byte / 255.
    static let unit: [Float] = (0...255).map { Float($0) / 255 }

    /// The colour where the hemisphere's normal is (nx, ny, √(1 − nx² − ny²)).
    public func color(normalX nx: Float, normalY ny: Float) -> RGBColor {
        withSampler { $0.color(normalX: nx, normalY: ny) }
    }

    /// Runs `body` with a sampler over the raw texels, for hot loops.
    func withSampler<R>(_ body: (Sampler) -> R) -> R {
        rgb.withUnsafeBufferPointer { texels in
            Self.unit.withUnsafeBufferPointer { unit in
                body(Sampler(texels: texels, unit: unit.baseAddress!, width: width, height: height, centreX: centreX, centreY: centreY,
                             radius: radius, pageStride: Int32(3 * width * height), lastPage: UInt8(clamping: pages - 1)))
            }
        }
    }

    struct Sampler {
        let texels: UnsafeBufferPointer<UInt8>
        /// `ShadingLookup.unit`: byte → channel.
        let unit: UnsafePointer<Float>
        let width: Int, height: Int
        let centreX: Float, centreY: Float, radius: Float
        /// Texel bytes from one page to the next, and the last page's index.
        let pageStride: Int32
        let lastPage: UInt8

        /// Where the normal (nx, ny) samples page `look` (the last page beyond the last).
        @inline(__always)
        func position(normalX nx: Float, normalY ny: Float, look: UInt8) -> ShadingPlan.Sample {
            var p = position(normalX: nx, normalY: ny)
            p.texel += Int32(min(look, lastPage)) * pageStride
            return p
        }

        @inline(__always)
        func color(normalX nx: Float, normalY ny: Float) -> RGBColor {
            color(at: position(normalX: nx, normalY: ny))
        }

        /// Where the normal (nx, ny) samples: the first texel's byte index, the steps to
        /// the texels right of and below it (0 at an edge) and the bilinear weights.
        @inline(__always)
        func position(normalX nx: Float, normalY ny: Float) -> ShadingPlan.Sample {
            // Continuous image coordinates; pixel centres sit at i + 0.5.
            let u = centreX + nx * radius - 0.5
            let v = centreY - ny * radius - 0.5
            let fu = min(max(u, 0), Float(width - 1)), fv = min(max(v, 0), Float(height - 1))
            let x0 = Int(fu), y0 = Int(fv)
            let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
            return ShadingPlan.Sample(texel: Int32(3 * (y0 * width + x0)), right: Int32(3 * (x1 - x0)),
                                      down: Int32(3 * (y1 - y0) * width), tx: fu - Float(x0), ty: fv - Float(y0))
        }

        /// The colour at a sample position, bilinearly interpolated.
        @inline(__always)
        func color(at p: ShadingPlan.Sample) -> RGBColor {
            @inline(__always) func texel(_ i: Int) -> SIMD3<Float> {
                SIMD3(unit[Int(texels[i])], unit[Int(texels[i + 1])], unit[Int(texels[i + 2])])
            }
            let i = Int(p.texel), right = Int(p.right), down = Int(p.down)
            let top = texel(i) * (1 - p.tx) + texel(i + right) * p.tx
            let bottom = texel(i + down) * (1 - p.tx) + texel(i + down + right) * p.tx
            let c = top * (1 - p.ty) + bottom * p.ty
            return RGBColor(r: c.x, g: c.y, b: c.z)
        }
    }
}

extension ShadingLookup {
    /// The shading image the settings name, or the sphere their scene lights (traced
    /// once per scene: `ShadingSphere.lookup` caches it).
    static func of(_ settings: RenderSettings) throws(MercurialError) -> ShadingLookup {
        if let path = settings.shadingImage { return try read(path) }
        return ShadingSphere.lookup(for: settings)
    }
}

/// Where each inked pixel of a title samples a shading lookup of one size, worked
/// out once for the frames whose shape stays (the editor's drags, animated lights).
/// Such a frame then touches only the inked pixels (about 370,000 of a 1920×1080
/// title's 1.2 million) and does no coordinate arithmetic; the colours are the
/// same to the bit, as both ways share `Sampler.position` and `Sampler.color(at:)`.
public struct ShadingPlan: Sendable {
    struct Sample {
        var texel: Int32, right: Int32, down: Int32
        var tx: Float, ty: Float
    }
    /// The lookup size and pages the samples are for.
    let lookupWidth: Int, lookupHeight: Int, lookupPages: Int
    let width: Int, height: Int
    /// An inked pixel's sample and its coverage (≤ 1).
    struct InkSample {
        var sample: Sample
        var alpha: Float
    }
    /// The inked pixels (indices into the title: what a frame redraws of the canvas) and, in
    /// the same order, their samples.
    let pixels: [Int32]
    let samples: [InkSample]

    /// The most inked pixels a plan is made for: 28 bytes each, so at most 112 MB (a
    /// larger title is shaded pixel by pixel, as a still title is).
    public static let maximumInkedPixels = 4_000_000

    /// The plan for a title's shape and a lookup's size; nil when the title has more
    /// than `maximumInkedPixels` inked pixels.
    public init?(normals: SurfaceNormals, coverage: Mask, looks: LookPlane? = nil, for shading: ShadingLookup) {
        precondition(normals.width == coverage.width && normals.height == coverage.height,
                     "Normals \(normals.width)×\(normals.height) and mask \(coverage.width)×\(coverage.height) differ in size")
        // The rows in bands, on every core: each band's inked pixels counted, then
        // written from where the bands before it end, so in the order of the pixels.
        let columns = coverage.width, rows = coverage.height
        let bands = max(1, min(rows, ProcessInfoCores.count * 4))
        func band(_ k: Int) -> Range<Int> { (rows * k / bands * columns)..<(rows * (k + 1) / bands * columns) }
        var counts = [Int](repeating: 0, count: bands)
        coverage.withUnsafeBufferPointer { a in
            counts.withUnsafeMutableBufferPointer { counts in
                parallelBands(bands, minimumBand: 1) { ks in
                    for k in ks { counts[k] = band(k).reduce(0) { $0 + (a[$1] > 0 ? 1 : 0) } }
                }
            }
        }
        let inked = counts.reduce(0, +)
        guard inked <= Self.maximumInkedPixels else { return nil }
        var starts = [0]
        for c in counts.dropLast() { starts.append(starts[starts.count - 1] + c) }
        var pixels = [Int32](repeating: 0, count: inked)
        var samples = [InkSample](repeating: InkSample(sample: Sample(texel: 0, right: 0, down: 0, tx: 0, ty: 0), alpha: 0),
                                  count: inked)
        normals.xy.withUnsafeBufferPointer { n in
            coverage.withUnsafeBufferPointer { a in
                LookPlane.withOptionalBuffer(looks) { looks in
                shading.withSampler { sampler in
                    pixels.withUnsafeMutableBufferPointer { pixels in
                        samples.withUnsafeMutableBufferPointer { samples in
                            parallelBands(bands, minimumBand: 1) { ks in
                                for k in ks {
                                    var j = starts[k]
                                    for i in band(k) where a[i] > 0 {
                                        pixels[j] = Int32(i)
                                        let sample = looks.map { sampler.position(normalX: n[i].x, normalY: n[i].y, look: $0[i]) }
                                            ?? sampler.position(normalX: n[i].x, normalY: n[i].y)
                                        samples[j] = InkSample(sample: sample, alpha: min(a[i], 1))
                                        j += 1
                                    }
                                }
                            }
                        }
                    }
                }
                }
            }
        }
        (self.pixels, self.samples) = (pixels, samples)
        (lookupWidth, lookupHeight, lookupPages) = (shading.width, shading.height, shading.pages)
        (width, height) = (normals.width, normals.height)
    }

    /// Whether the plan's samples fit `shading` (they depend only on its size).
    public func fits(_ shading: ShadingLookup) -> Bool {
        shading.width == lookupWidth && shading.height == lookupHeight && shading.pages == lookupPages
    }
}

extension RGBA8 {
    @inline(__always)
    init(opaque c: RGBColor) {
        self.init(r: unitByte(c.r), g: unitByte(c.g), b: unitByte(c.b), a: 255)
    }

    /// `c` with coverage `alpha`, or composited over `background` when there is one.
    @inline(__always)
    init(_ c: RGBColor, alpha: Float, over background: RGBColor?) {
        if let bg = background {
            self.init(opaque: c * alpha + bg * (1 - alpha))
        } else {
            self.init(r: unitByte(c.r), g: unitByte(c.g), b: unitByte(c.b), a: unitByte(alpha))
        }
    }
}

@inline(__always)
func unitByte(_ v: Float) -> UInt8 {
    UInt8(min(max(v, 0), 1) * 255 + 0.5)
}

// MARK: - Normals kept for many frames

/// The unit normals' x and y of a height field's inked pixels (0 elsewhere), kept
/// so that frames whose lights or colours change but whose shape does not are
/// shaded without taking the slopes again.
public struct SurfaceNormals: Sendable {
    public let width: Int, height: Int
    var xy: [SIMD2<Float>]
}

extension ShadedMaterial {
    public func normals(of heights: HeightField, coverage: Mask) -> SurfaceNormals {
        precondition(heights.width == coverage.width && heights.height == coverage.height,
                     "Height field \(heights.width)×\(heights.height) and mask \(coverage.width)×\(coverage.height) differ in size")
        let width = heights.width, height = heights.height
        var xy = [SIMD2<Float>](repeating: .zero, count: width * height)
        let k = inputScale * 0.5
        heights.withUnsafeBufferPointer { h in
            coverage.withUnsafeBufferPointer { a in
                xy.withUnsafeMutableBufferPointer { out in
                    parallelBands(height, minimumBand: 8) { rows in
                        for y in rows {
                            let up = max(y - 1, 0) * width, down = min(y + 1, height - 1) * width, row = y * width
                            for x in 0..<width where a[row + x] > 0 {
                                out[row + x] = Self.normal(h, row: row, up: up, down: down, x: x, width: width, halfScale: k)
                            }
                        }
                    }
                }
            }
        }
        return SurfaceNormals(width: width, height: height, xy: xy)
    }

    /// The title from kept normals, transparent where the mask is.
    public static func outputImage(normals: SurfaceNormals, coverage: Mask, shading: ShadingLookup) -> Image<RGBA8> {
        var out = Image<RGBA8>(width: normals.width, height: normals.height, repeating: .clear)
        shade(normals: normals, coverage: coverage, shading: shading, into: &out)
        return out
    }

    /// The inked pixels of `out` shaded by the plan; the others are left as they are
    /// (clear, in a title made for the plan's shape), for frame after frame.
    public static func shade(_ plan: ShadingPlan, shading: ShadingLookup, background: RGBColor? = nil,
                             into out: inout Image<RGBA8>) {
        precondition(plan.fits(shading) && out.width == plan.width && out.height == plan.height,
                     "a shading plan for a \(plan.lookupWidth)×\(plan.lookupHeight) lookup and a \(plan.width)×\(plan.height) title, given \(shading.width)×\(shading.height) and \(out.width)×\(out.height)")
        plan.pixels.withUnsafeBufferPointer { pixels in
            plan.samples.withUnsafeBufferPointer { samples in
                shading.withSampler { shading in
                    out.withUnsafeMutableBufferPointer { out in
                        parallelBands(pixels.count, minimumBand: 4096) { range in
                            // Two loops, so that the usual one (no background) has no branch.
                            if let background {
                                for k in range {
                                    out[Int(pixels[k])] = Self.shadedPixel(samples[k].sample, alpha: samples[k].alpha,
                                                                           shading: shading, background: background)
                                }
                            } else {
                                for k in range {
                                    out[Int(pixels[k])] = Self.shadedPixel(samples[k].sample, alpha: samples[k].alpha,
                                                                           shading: shading, background: nil)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The same into an image of the same size (every pixel is written), for frame after frame.
    public static func shade(normals: SurfaceNormals, coverage: Mask, looks: LookPlane? = nil, shading: ShadingLookup,
                             background: RGBColor? = nil, into out: inout Image<RGBA8>) {
        precondition(normals.width == coverage.width && normals.height == coverage.height
                     && out.width == coverage.width && out.height == coverage.height,
                     "Normals \(normals.width)×\(normals.height), mask \(coverage.width)×\(coverage.height) and image \(out.width)×\(out.height) differ in size")
        let width = normals.width, height = normals.height
        normals.xy.withUnsafeBufferPointer { n in
            coverage.withUnsafeBufferPointer { a in
                LookPlane.withOptionalBuffer(looks) { looks in
                shading.withSampler { shading in
                    out.withUnsafeMutableBufferPointer { out in
                        parallelBands(height, minimumBand: 8) { rows in
                            for y in rows {
                                let row = y * width
                                (out.baseAddress! + row).update(repeating: .clear, count: width)
                                Self.shadeSpan(0..<width, coverage: a.baseAddress! + row, looks: looks.map { $0 + row },
                                               shading: shading, background: background, into: out.baseAddress! + row) { x in n[row + x] }
                            }
                        }
                    }
                }
                }
            }
        }
    }
}
