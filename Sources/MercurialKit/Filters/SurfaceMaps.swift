/// The loft as maps for game engines and normal-map tools (Laigter and the like):
/// a 16-bit grey height map and a tangent-space normal map, from the same height
/// field and the same normals the shaded material uses.
public enum SurfaceMap: String, Sendable, CaseIterable {
    /// The shaded title (the usual output).
    case color
    /// 16-bit grey: 0 on and outside the edge, 65535 on the profile's plateau; an
    /// engraved title (`bevel: down`) the other way round, as its normals are: the flat
    /// surface 65535, the letters cut down to 0 on their plateau.
    case height
    /// RGB = (n + 1) / 2 of the unit normal, flat (128, 128, 255) outside the mask.
    case normal
}

/// Which way a normal map's green channel points: OpenGL's +Y up, or DirectX's +Y down.
public enum NormalConvention: String, Sendable, CaseIterable {
    case opengl, directx
}

/// The loft of a title on its canvas: what the maps are made from.
public struct TitleSurface: Sendable {
    public var mask: Mask
    public var heights: HeightField
    public var normals: SurfaceNormals
    public var originX: Int, originY: Int
    public var width: Int, height: Int
    /// The height of the profile's plateau (heights are scaled by it to 0…1).
    public var plateau: Float
    /// `bevel: down`: the heights are negated (as the normals are), so the map is inverted.
    public var engraved: Bool

    /// The most pixels of the region the maps are made of (the ink and its margin):
    /// they are made in memory, about 30 bytes a pixel.
    public static let maximumRegionPixels = 16_777_216

    public static func make(_ settings: RenderSettings) throws(MercurialError) -> TitleSurface {
        try checkSize(settings)
        let shape = try FrameRenderer.stillShape(settings)
        return TitleSurface(mask: shape.mask, heights: shape.heights, normals: shape.keptNormals,
                            originX: shape.origin.x, originY: shape.origin.y, width: shape.canvas.width,
                            height: shape.canvas.height, plateau: shape.plateau, engraved: settings.bevel == .down)
    }

    /// Refuses, before anything is drawn, a scene of layers or a title whose region is too large for maps.
    public static func checkSize(_ settings: RenderSettings) throws(MercurialError) {
        guard settings.layers.isEmpty else {
            throw MercurialError("height and normal maps are made of one title, and this scene has \(settings.layers.count) \"layers\"; give --emit color, or make each layer's maps from a scene of its own")
        }
        let planned = try TitleRenderer.plannedSize(settings)
        guard planned.region.width * planned.region.height <= maximumRegionPixels else {
            throw MercurialError.limit("height and normal maps are made in memory, from at most \(maximumRegionPixels / 1_048_576) M pixels (4096×4096); \(planned.what) is \(planned.region.width)×\(planned.region.height); use a smaller --size or mask")
        }
    }

    /// The 16-bit grey height map as a PNG.
    public func heightMapPNG() throws(MercurialError) -> [UInt8] {
        try encode(heightSamples().map(Grey16.init), fill: Grey16(engraved ? 65535 : 0), bitDepth: 16, colorType: 0)
    }

    /// The height map's samples over the region (the canvas around it is the flat surface's).
    func heightSamples() -> Image<UInt16> {
        let scale = 65535 / plateau
        return Image(width: mask.width, height: mask.height, pixels: zip(mask.pixels, heights.pixels).map { c, h in
            let raised = c > 0 ? UInt16(min(max(h * scale, 0), 65535).rounded()) : 0
            return engraved ? 65535 - raised : raised
        })
    }

    /// The tangent-space normal map as a PNG, 8 or 16 bits a channel.
    public func normalMapPNG(convention: NormalConvention, bitDepth: Int) throws(MercurialError) -> [UInt8] {
        let green: Float = convention == .opengl ? 1 : -1
        // (n + 1) / 2 of the unit normal, flat outside the mask.
        let unit = zip(mask.pixels, normals.xy).map { c, n -> SIMD3<Float> in
            guard c > 0 else { return SIMD3(0, 0, 1) }
            return SIMD3(n.x, n.y * green, max(0, 1 - n.x * n.x - n.y * n.y).squareRoot())
        }
        func encoded(_ top: Float) -> [SIMD3<UInt16>] {
            unit.map { SIMD3<UInt16>(($0 + 1) / 2 * top, rounding: .toNearestOrAwayFromZero) }
        }
        if bitDepth == 16 {
            let content = Image(width: mask.width, height: mask.height, pixels: encoded(65535).map { RGB16($0) })
            return try encode(content, fill: RGB16(SIMD3(32768, 32768, 65535)), bitDepth: 16, colorType: 2)
        }
        let content = Image(width: mask.width, height: mask.height, pixels: encoded(255).map { RGB8($0) })
        return try encode(content, fill: RGB8(SIMD3(128, 128, 255)), bitDepth: 8, colorType: 2)
    }

    /// The region placed on the canvas (fill everywhere else) and encoded from its rows.
    /// `Pixel` must be bytes in PNG's order (a struct of `UInt8`s, so packed).
    private func encode<Pixel: Sendable>(_ content: Image<Pixel>, fill: Pixel, bitDepth: Int,
                                         colorType: Int) throws(MercurialError) -> [UInt8] {
        let canvas = CanvasRegion(width: width, height: height, content: content, originX: originX, originY: originY,
                                  fill: fill)
        let result = canvas.withRowPointers { rows in
            Result { () throws(MercurialError) in
                try PNGFile.encode(width: width, height: height,
                                   rows: rows.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) },
                                   bitDepth: bitDepth, colorType: colorType, level: 6)
            }
        }
        return try result.get()
    }
}

/// PNG samples as packed big-endian bytes.
struct Grey16: Sendable {
    var high: UInt8, low: UInt8
    init(_ v: UInt16) { high = UInt8(v >> 8); low = UInt8(v & 0xff) }
}

struct RGB8: Sendable {
    var r: UInt8, g: UInt8, b: UInt8
    init(_ v: SIMD3<UInt16>) { r = UInt8(v.x); g = UInt8(v.y); b = UInt8(v.z) }
}

struct RGB16: Sendable {
    var r: Grey16, g: Grey16, b: Grey16
    init(_ v: SIMD3<UInt16>) { r = Grey16(v.x); g = Grey16(v.y); b = Grey16(v.z) }
}

extension HeightFieldFromMask {
    /// The height of the loft's plateau: where a shape wide enough levels off.
    public var plateau: Float { Self.plateau(of: inputProfile) }

    /// The height where a wide enough stroke of `profile` levels off.
    static func plateau(of profile: LoftProfile) -> Float { profile == .liquid ? liquidPlateau : 1 }
}
