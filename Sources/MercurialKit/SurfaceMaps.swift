/// The loft as maps for game engines and normal-map tools (Laigter and the like):
/// a 16-bit grey height map and a tangent-space normal map, from the same height
/// field and the same normals the shaded material uses.
public enum SurfaceMap: String, Sendable, CaseIterable {
    /// The shaded title (the usual output).
    case color
    /// 16-bit grey: 0 on and outside the edge, 65535 on the profile's plateau.
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

    public static func make(_ settings: RenderSettings) throws(MercurialError) -> TitleSurface {
        try TitleRenderer.validate(settings)
        let (mask, origin, canvas, _) = try TitleRenderer.titleMask(settings)
        let loft = HeightFieldFromMask(inputRadius: Float(settings.radius), inputProfile: settings.profile)
        let heights = loft.outputImage(mask)
        let normals = ShadedMaterial(inputScale: Float(settings.scale)).normals(of: heights, coverage: mask)
        return TitleSurface(mask: mask, heights: heights, normals: normals, originX: origin.x, originY: origin.y,
                            width: canvas.width, height: canvas.height, plateau: loft.plateau)
    }

    /// The 16-bit grey height map as a PNG.
    public func heightMapPNG() throws(MercurialError) -> [UInt8] {
        let scale = 65535 / plateau
        return try encode(bytesPerPixel: 2, bitDepth: 16, colorType: 0, fill: [0, 0]) { i, out in
            let v = mask.pixels[i] > 0 ? UInt16(min(max(heights.pixels[i] * scale, 0), 65535).rounded()) : 0
            out[0] = UInt8(v >> 8)
            out[1] = UInt8(v & 0xff)
        }
    }

    /// The tangent-space normal map as a PNG, 8 or 16 bits a channel.
    public func normalMapPNG(convention: NormalConvention, bitDepth: Int) throws(MercurialError) -> [UInt8] {
        let green: Float = convention == .opengl ? 1 : -1
        let top: Float = bitDepth == 16 ? 65535 : 255
        func sample(_ v: Float) -> UInt16 { UInt16(((v + 1) / 2 * top).rounded()) }
        let flat = [sample(0), sample(0), sample(1)]
        let bytes = bitDepth == 16 ? 6 : 3
        func put(_ values: [UInt16], _ out: UnsafeMutablePointer<UInt8>) {
            for (k, v) in values.enumerated() {
                if bitDepth == 16 { out[2 * k] = UInt8(v >> 8); out[2 * k + 1] = UInt8(v & 0xff) } else { out[k] = UInt8(v) }
            }
        }
        var fill = [UInt8](repeating: 0, count: bytes)
        fill.withUnsafeMutableBufferPointer { put(flat, $0.baseAddress!) }
        return try encode(bytesPerPixel: bytes, bitDepth: bitDepth, colorType: 2, fill: fill) { i, out in
            guard mask.pixels[i] > 0 else { put(flat, out); return }
            let n = normals.xy[i]
            let z = max(0, 1 - n.x * n.x - n.y * n.y).squareRoot()
            put([sample(n.x), sample(n.y * green), sample(z)], out)
        }
    }

    /// The canvas's rows: the region's pixels from `pixel`, and `fill` everywhere else.
    private func encode(bytesPerPixel: Int, bitDepth: Int, colorType: Int, fill: [UInt8],
                        pixel: (Int, UnsafeMutablePointer<UInt8>) -> Void) throws(MercurialError) -> [UInt8] {
        let rowBytes = width * bytesPerPixel
        var fillRow = [UInt8](repeating: 0, count: rowBytes)
        for x in 0..<width { for k in 0..<bytesPerPixel { fillRow[x * bytesPerPixel + k] = fill[k] } }
        // The rows that cross the region: fill, then the region's pixels, then fill.
        var band = [UInt8](repeating: 0, count: rowBytes * mask.height)
        band.withUnsafeMutableBufferPointer { out in
            for y in 0..<mask.height {
                let row = out.baseAddress! + y * rowBytes
                row.update(from: fillRow, count: rowBytes)
                for x in 0..<mask.width { pixel(y * mask.width + x, row + (originX + x) * bytesPerPixel) }
            }
        }
        let result = fillRow.withUnsafeBufferPointer { fillBytes in
            band.withUnsafeBufferPointer { bandBytes in
                let rows = (0..<height).map { y -> UnsafePointer<UInt8> in
                    y >= originY && y < originY + mask.height ? bandBytes.baseAddress! + (y - originY) * rowBytes
                        : fillBytes.baseAddress!
                }
                return Result { () throws(MercurialError) in
                    try PNGFile.encode(width: width, height: height, rows: rows, bitDepth: bitDepth, colorType: colorType, level: 6)
                }
            }
        }
        return try result.get()
    }
}

extension HeightFieldFromMask {
    /// The height of the loft's plateau: where a shape wide enough levels off.
    public var plateau: Float { inputProfile == .liquid ? Self.liquidPlateau : 1 }
}
