import MercurialKit

/// The small pictures the page's pickers show: each preset's shading sphere, and a line of
/// text in a font. Both take names the menus offer, never a path.
extension EditorSession {
    /// The preset `name`'s shading sphere, 64 px across, as a PNG.
    public nonisolated func presetSpherePNG(_ name: String) throws(MercurialError) -> [UInt8] {
        guard materials.contains(name) else {
            throw MercurialError("unknown material '\(name)'; bundled: \(materials.joined(separator: ", "))")
        }
        var settings = RenderSettings()
        try Materials.apply(name, to: &settings)
        return try PNGSink(compression: .fast).encode(ShadingSphere.render(settings.scene, size: 64, antialiasedRim: true))
    }

    /// `text` (its first 40 characters; the font's name when empty) in the font `name`, 24 px, light
    /// ink on transparency, as a PNG.
    public nonisolated func fontPreviewPNG(_ name: String, text: String) throws(MercurialError) -> [UInt8] {
        guard bundledFonts.contains(name) || installedFamilies.contains(name) else {
            throw MercurialError("unknown font '\(name)'; the menu lists the bundled and installed ones")
        }
        let line = String((text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "").prefix(40))
        var layout = TextLayout(text: line.contains(where: { !$0.isWhitespace }) ? line : name, fontPath: try FontLibrary.resolve(name))
        layout.size = 24
        let mask = try TextMask.render(layout, margin: 2).mask
        var pixels = [RGBA8](repeating: RGBA8(r: 0, g: 0, b: 0, a: 0), count: mask.width * mask.height)
        mask.withUnsafeBufferPointer { coverage in
            for i in pixels.indices { pixels[i] = RGBA8(r: 230, g: 230, b: 235, a: UInt8((min(max(coverage[i], 0), 1) * 255).rounded())) }
        }
        return try PNGSink(compression: .fast).encode(Image(width: mask.width, height: mask.height, pixels: pixels))
    }
}
