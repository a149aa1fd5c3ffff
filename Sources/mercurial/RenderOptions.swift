import ArgumentParser
import Foundation
import MercurialKit

/// The options shared by `render` and `watch`: output, material, layout, filters.
struct RenderOptions: ParsableArguments {
    @Option(name: [.short, .long], help: ArgumentHelp("The PNG to write (written atomically).", valueName: "file"))
    var output: String = "title.png"

    @OptionGroup var materialOptions: MaterialOptions

    @Option(help: ArgumentHelp("A bundled font (rounded, serif, display), a TTF/OTF file, or an installed font's fontconfig name such as \"DejaVu Sans:bold\" (default: rounded).", valueName: "font"))
    var font: String?

    @Option(help: ArgumentHelp("Em size in pixels (default: 160, range 1…8192).", valueName: "px"))
    var size: Double?

    @Option(help: ArgumentHelp("Canvas width; the text is centred and shrunk to fit (default: the ink plus a margin).", valueName: "px"))
    var width: Int?

    @Option(help: ArgumentHelp("Canvas height; the text is centred and shrunk to fit (default: the ink plus a margin).", valueName: "px"))
    var height: Int?

    @Option(help: ArgumentHelp("Line alignment: left, center or right (default: center).", valueName: "alignment"))
    var align: String?

    @Option(help: ArgumentHelp("Baseline distance as a multiple of the font's line height (default: 1, range 0.1…10).", valueName: "factor"))
    var lineSpacing: Double?

    @Option(help: ArgumentHelp("Extra pixels after each character; write negative values as --letter-spacing=-4 (default: 0).", valueName: "px"))
    var letterSpacing: Double?

    @Flag(inversion: .prefixedNo, help: "Apply the font's kerning (default: on).")
    var kerning: Bool?

    @Option(help: ArgumentHelp("Bevel width in pixels, CIHeightFieldFromMask's inputRadius (default: 10, range 0.5…200).", valueName: "px"))
    var radius: Double?

    @Option(help: ArgumentHelp("Height multiplier, CIShadedMaterial's inputScale (default: 10, range 0…100).", valueName: "factor"))
    var scale: Double?

    @Option(help: ArgumentHelp("Composite onto a colour: a name or #rrggbb, or transparent (default: transparent).", valueName: "color"))
    var background: String?

    @Option(help: ArgumentHelp("Use this hemisphere PNG instead of the ray-traced sphere.", valueName: "file"))
    var shadingImage: String?

    @Option(help: ArgumentHelp("Emboss this grey or alpha PNG (a logo, line art) instead of text; the canvas is its size.", valueName: "file"))
    var mask: String?

    @Option(help: ArgumentHelp("PNG compression: fast (parallel zlib level 1) or small (libpng, all filters, level 9).", valueName: "level"))
    var compression: String = "fast"

    @Flag(name: .shortAndLong, help: "Print nothing but warnings and errors.")
    var quiet = false

    var pngCompression: PNGFile.Compression {
        get throws {
            guard let level = PNGFile.Compression(rawValue: compression) else {
                throw MercurialError("--compression '\(compression)' is not known; use fast or small")
            }
            return level
        }
    }

    /// The settings: material, then scene file (`sceneFile` overrides --params), then these options.
    func resolvedSettings(text: String? = nil, sceneFile: String? = nil) throws -> RenderSettings {
        var settings = try materialOptions.settings(sceneFile: sceneFile)
        if let text { settings.text = text }
        if let font { settings.font = font }
        if let size { settings.size = size }
        if let width { settings.width = width }
        if let height { settings.height = height }
        if let align {
            guard let alignment = TextLayout.Alignment(rawValue: align.lowercased()) else {
                throw MercurialError("--align '\(align)' is not known; use left, center or right")
            }
            settings.alignment = alignment
        }
        if let lineSpacing { settings.lineSpacing = lineSpacing }
        if let letterSpacing { settings.letterSpacing = letterSpacing }
        if let kerning { settings.kerning = kerning }
        if let radius { try settings.set(try ParameterGroup.parameter(forKey: "radius"), to: .number(radius)) }
        if let scale { try settings.set(try ParameterGroup.parameter(forKey: "scale"), to: .number(scale)) }
        if let background {
            if background.lowercased() == "transparent" {
                settings.background = nil
            } else {
                guard let colour = RGBColor.parse(background) else {
                    throw MercurialError("--background '\(background)' is not a colour; use a name (e.g. black), #rrggbb or transparent")
                }
                settings.background = colour
            }
        }
        if let shadingImage { settings.shadingImage = shadingImage }
        if let mask { settings.mask = mask }
        return settings
    }
}
