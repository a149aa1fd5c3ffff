import ArgumentParser
import Foundation
import MercurialKit

/// The options shared by `render`, `watch` and `animate`: output, material, layout, filters.
///
/// The parameter flags are named as their rows' keys and take their help from the
/// table (see ParameterFlags.swift); `applyParameterFlags` sets them.
struct RenderOptions: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("The file to write, atomically (default: title.png; render --from: the first free TITLE-N.png beside the title). render writes a PNG; animate, and watch on an animated scene, write the form the name chooses (see 'mercurial animate --help').", valueName: "file"))
    var givenOutput: String?

    static let defaultOutput = "title.png"

    /// The file to write: -o, or the default.
    var output: String { givenOutput ?? Self.defaultOutput }

    @OptionGroup var materialOptions: MaterialOptions

    @Option(help: .parameter("font")) var font: String?
    @Option(help: .parameter("size")) var size: Double?
    @Option(help: .parameter("width")) var width: Int?
    @Option(help: .parameter("height")) var height: Int?
    @Option(help: .parameter("maxLines")) var maxLines: Int?
    @Option(help: .parameter("align")) var align: TextLayout.Alignment?
    @Option(help: .parameter("lineSpacing")) var lineSpacing: Double?
    @Option(help: .parameter("letterSpacing")) var letterSpacing: Double?
    @Flag(inversion: .prefixedNo, help: .parameter("kerning")) var kerning: Bool?
    @Flag(inversion: .prefixedNo, help: .parameter("fallback")) var fallback: Bool?
    @Option(help: .parameter("radius")) var radius: Double?
    @Option(help: .parameter("profile")) var profile: LoftProfile?
    @Option(help: .parameter("scale")) var scale: Double?
    @Option(help: .parameter("background")) var background: String?
    @Option(help: .parameter("shadingImage")) var shadingImage: String?
    @Option(help: .parameter("mask")) var mask: String?

    @Option(help: ArgumentHelp("PNG compression: fast (zlib level 1 on every core), small (adaptive row filters, zlib level 7, on every core) or none (stored, 4 bytes a pixel).", valueName: "level"))
    var compression: PNGFile.Compression = .fast

    @Flag(name: .shortAndLong, help: "Print nothing but warnings and errors.")
    var quiet = false

    @Flag(help: "Leave out the recipe (the fully resolved scene) that each PNG otherwise carries for 'mercurial inspect' and 'render --from'.")
    var noMetadata = false

    /// The PNG of `canvas`, carrying the recipe of `settings` unless --no-metadata.
    func png(_ canvas: CanvasRegion<RGBA8>, settings: RenderSettings) throws -> [UInt8] {
        let bytes = try PNGSink(compression: compression).encode(canvas)
        return noMetadata ? bytes : try SceneRecipe.embedding(SceneRecipe.json(for: settings), in: bytes)
    }

    /// Renders `settings` and writes the title to `path`: a large title in bands
    /// straight into the output (opened at its first bytes), anything else in memory.
    /// Warnings go to standard error; returns the canvas's size.
    func writeTitle(_ settings: RenderSettings, to path: String) throws -> (width: Int, height: Int) {
        let output = LazyOutput(path)
        let recipe = noMetadata ? [] : [PNGChunk(type: "iTXt", data: try SceneRecipe.chunkData(SceneRecipe.json(for: settings)))]
        do {
            switch try TitleRenderer.renderPNG(settings, compression: compression, ancillary: recipe, output: output.write) {
            case .streamed(let streamed):
                try output.commit()
                streamed.warnings.forEach(warn)
                return (streamed.width, streamed.height)
            case .inMemory(let title):
                title.warnings.forEach(warn)
                try OutputFile.write(try png(title.canvas, settings: settings), to: path)
                return (title.width, title.height)
            }
        } catch {
            output.discard()
            throw error
        }
    }

    /// The settings: material, then the scene file, then these options.
    func resolvedSettings(text: String? = nil, sceneFile: String? = nil) throws -> RenderSettings {
        try materialOptions.settings(sceneFile: sceneFile, text: text, flags: [self])
    }
}
