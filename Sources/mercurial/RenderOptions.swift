import ArgumentParser
import FoundationEssentials
import MercurialKit

/// The options shared by `render`, `watch` and `animate`: output, material, layout, filters.
///
/// The parameter flags are named as their rows' keys and take their help from the
/// table (see ParameterFlags.swift); `applyParameterFlags` sets them.
struct RenderOptions: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("The file to write, atomically (default: title.png). A still is a .png, .jpg (.jpeg) or .webp, by its name; an animation takes the form its name ends in: .webm, .mov, .mp4, .png (APNG) or a pattern such as frames/%04d.png.", valueName: "file"))
    var givenOutput: String?

    static let defaultOutput = "title.png"

    /// The file to write: -o, or the default.
    var output: String { givenOutput ?? Self.defaultOutput }

    @OptionGroup var materialOptions: MaterialOptions

    @Option(help: .parameter("font")) var font: String?
    @Option(help: .parameter("size"), transform: decimalFlag) var size: Double?
    @Option(help: .parameter("width")) var width: Int?
    @Option(help: .parameter("height")) var height: Int?
    @Option(help: .parameter("maxLines")) var maxLines: Int?
    @Option(help: .parameter("align")) var align: TextLayout.Alignment?
    @Option(help: .parameter("anchor")) var anchor: Anchor?
    @Option(help: .nested("margin", valueName: "px|N%|safe")) var margin: String?
    @Option(help: .parameter("padding")) var padding: Int?
    @Option(help: .nested("offset", valueName: "x,y", note: "; write negative values as --offset=-20,10", defaultText: "0,0")) var offset: String?
    @Option(help: .parameter("lineSpacing"), transform: decimalFlag) var lineSpacing: Double?
    @Option(help: .parameter("letterSpacing"), transform: decimalFlag) var letterSpacing: Double?
    @Flag(inversion: .prefixedNo, help: .parameter("kerning")) var kerning: Bool?
    @Flag(inversion: .prefixedNo, help: .parameter("fallback")) var fallback: Bool?
    @Option(help: .parameter("radius"), transform: decimalFlag) var radius: Double?
    @Option(help: .parameter("profile")) var profile: LoftProfile?
    @Option(help: .parameter("bevel")) var bevel: BevelDirection?
    @Option(help: .parameter("scale"), transform: decimalFlag) var scale: Double?
    @Option(help: .parameter("background")) var background: String?
    @Option(help: .parameter("shadingImage")) var shadingImage: String?
    @Option(help: .parameter("mask")) var mask: String?
    @Option(help: .parameter("opacity"), transform: decimalFlag) var opacity: Double?

    @Option(help: ArgumentHelp("A PNG title's compression: fast (PNG's Up filter, runs and Huffman codes on every core; the default), small (adaptive row filters, zlib level 7, on every core) or none (stored, 4 bytes a pixel). Not animate's: its formats set their own.", valueName: "level"))
    var compression: PNGFile.Compression?

    /// The PNG compression asked for, or the default.
    var pngCompression: PNGFile.Compression { compression ?? .fast }

    @Flag(name: .shortAndLong, help: "Print nothing but warnings and errors.")
    var quiet = false

    @Flag(help: "Leave out the recipe (the fully resolved scene) that each PNG otherwise carries for 'mercurial inspect' and 'render --from'.")
    var noMetadata = false

    /// Renders `settings` and writes the title to `path`, atomically, in the format its
    /// name says, a PNG with the recipe unless --no-metadata (a `StillJob` run by
    /// `RenderJob.run`, as batch runs each row's). Warnings go to standard error; returns
    /// the canvas's size.
    func writeTitle(_ settings: RenderSettings, to path: String, encoding: StillEncoding) throws -> (width: Int, height: Int) {
        let job = StillJob(settings: settings, encoding: encoding, compression: pngCompression, recipe: !noMetadata)
        let report = try RenderJob.run(job, to: .path(path), cancellation: .signal)
        report.warnings.forEach(warn)
        return (report.width, report.height)
    }

    /// The settings: material, then the scene file, then these options.
    func resolvedSettings(text: String? = nil, sceneFile: String? = nil) throws -> RenderSettings {
        try materialOptions.settings(sceneFile: sceneFile, text: text, flags: [self])
    }
}

/// How `render`, `watch` and `batch` encode a .jpg or .webp still (not animate's: its
/// own --quality is the video's).
struct StillOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A .jpg or .webp title's quality, 0 to 100 (default 90). A JPEG must be opaque (give a background); a WebP keeps alpha only if a pixel is translucent. Neither carries the recipe.", valueName: "N"))
    var quality: Int?

    @Flag(help: "Write a .webp title lossless (pixel for pixel) rather than lossy at --quality.")
    var lossless = false

    @Flag(help: "Write a .jpg title progressive rather than baseline.")
    var progressive = false

    /// The encoding `path`'s name and --quality, --lossless, --progressive ask `command` for
    /// (one refusal for a name or option that does not fit).
    func encoding(_ path: String, command: String) throws(MercurialError) -> StillEncoding {
        try StillEncoding.forPath(path, command: command, quality: quality, lossless: lossless, progressive: progressive)
    }

}
