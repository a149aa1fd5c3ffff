import ArgumentParser
import FoundationEssentials
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

struct Render: ParsableCommand {
    // `_superCommandName` matters only where render is parsed as the root (`mercurial render …`,
    // see `Mercurial.parser(for:)`): usage lines then read "mercurial render", and ArgumentParser
    // skips its check for --generate-completion-script, which parsed two commands of its own first
    // (an eighth of a small title's instructions). Such a request goes through the root anyway.
    static let configuration = CommandConfiguration(
        commandName: "render",
        _superCommandName: "mercurial",
        abstract: "Render a title to a PNG, JPEG or WebP.",
        discussion: """
        Examples:
          mercurial render "Flex Monkey Mercurial Text"
          mercurial render "Gold\\nStandard" --material gold --size 200 -o gold.png
          mercurial render "Card" --background '#101018' --width 1200 --height 630 -o card.jpg --quality 85
          mercurial render --params scene.json --set light2.hue=0.6 -o title.png
          mercurial render "Chisel" --profile chisel --set size=200 --set align=left
          mercurial render --mask logo.png --material chrome -o logo-metal.png
        """
    )

    @Argument(help: "The text; \\n or a real newline starts a new line. (Or \"text\" in the scene file.) A NAME.json that is a file is taken as the scene, as --params NAME.json.")
    var text: String?

    @OptionGroup var sceneOption: SceneFileOption
    @OptionGroup var options: RenderOptions
    @OptionGroup var still: StillOptions

    @Option(help: ArgumentHelp("Render the title again from the recipe a PNG written by mercurial carries (see 'mercurial inspect'); options given here override it. Without -o the new title goes to the first free TITLE-N.png beside it.", valueName: "title.png"))
    var from: String?

    @Option(help: ArgumentHelp("What to write, comma-separated: color (the title), height (a 16-bit grey height map), normal (a tangent-space normal map). With more than one, height and normal go to NAME-height.png and NAME-normal.png beside -o.", valueName: "maps"))
    var emit: MapList = MapList(maps: [.color])

    @Option(help: ArgumentHelp("The normal map's green channel: opengl (+Y up) or directx (+Y down).", valueName: "convention"))
    var normalConvention: NormalConvention = .opengl

    @Option(help: ArgumentHelp("Bits a channel of the normal map: 8 or 16.", valueName: "bits"))
    var normalDepth: NormalDepth = .eight

    func run() throws {
        // Rendering a title again must not overwrite it: without -o, the new one goes beside it.
        let output = try options.givenOutput ?? from.map { try Self.freeName(beside: $0) } ?? RenderOptions.defaultOutput
        let outputs = emit.maps.map { ($0, emit.maps.count == 1 ? output : Self.output(output, for: $0)) }
        // Maps named after -o go in its folder, never through a link planted there.
        var mapFolder: OutputFolder?
        if emit.maps.count > 1 {
            try OutputFile.refuseUnlessFile(output, because: "--emit with \(emit.maps.count) maps writes \(emit.maps.count) files, so -o must name a file (the maps go beside it)")
            let folder = try OutputFolder(UserPath(checked: output).directory, create: false)
            for (map, path) in outputs where map != .color { try folder.check(UserPath(checked: path).lastComponent) }
            mapFolder = folder
        }
        for (_, path) in outputs { try OutputFile.validate(path) }
        let recipe = try from.map { path throws -> (name: String, json: String) in
            guard sceneOption.sceneFile == nil else {
                throw MercurialError("--from and --params both give a scene; use one of them")
            }
            guard let json = try SceneRecipe.read(fromPNGFile: path) else {
                throw MercurialError("'\(path)' carries no recipe (it was written with --no-metadata, or not by mercurial); give it as --mask to emboss it instead")
            }
            return (path, json)
        }
        let (text, sceneFile) = try Self.textOrScene(text, sceneFile: sceneOption.sceneFile, from: from)
        let settings = try options.materialOptions.settingsAndTimeline(sceneFile: sceneFile, text: text,
                                                                       flags: [options], recipe: recipe).settings
        if let recipe { Self.checkFont(settings, recipe: recipe.json) }
        var inputs = InputFiles.of(settings, sceneFile: sceneFile)
        if let from { inputs.append((role: "title the recipe comes from", path: from)) }
        for (map, path) in outputs {
            try InputFiles.checkOutput(path, against: inputs)
            if map == .color {
                _ = try still.encoding(path, command: "render")
            } else {
                try OutputFile.requirePNGName(path, command: "render")
            }
        }
        if emit.maps.contains(where: { $0 != .color }) { try TitleSurface.checkSize(settings) }
        var lines: [String] = []
        if let path = outputs.first(where: { $0.0 == .color })?.1 {
            let size = try options.writeTitle(settings, to: path, encoding: still.encoding(path, command: "render"))
            lines.append("\(path) \(size.width)×\(size.height)")
        }
        if emit.maps.contains(where: { $0 != .color }) {
            let surface = try TitleSurface.make(settings)
            for (map, path) in outputs where map != .color {
                let bytes = map == .height ? try surface.heightMapPNG()
                    : try surface.normalMapPNG(convention: normalConvention, bitDepth: normalDepth.bits)
                if let mapFolder {
                    try mapFolder.write(bytes, name: UserPath(checked: path).lastComponent)
                } else {
                    try OutputFile.write(bytes, to: path)
                }
                lines.append("\(path) \(surface.width)×\(surface.height) \(map.rawValue) map")
            }
        }
        if !options.quiet {
            // With a PNG on standard output, the summary goes with the diagnostics.
            for line in lines {
                if outputs.contains(where: { OutputFile.isStandardOutput($0.1) }) { Console.error(line) } else { Console.output(line) }
            }
        }
    }

    /// `render scene.json` means the scene, as `animate scene.json` does: a text ending in
    /// `.json`, with no other scene given, is taken as `--params`, so one that names no file
    /// is the scene file's error (a mistyped name rendered over title.png before). Such a
    /// text can still be rendered with --set text=NAME.json.
    static func textOrScene(_ text: String?, sceneFile: String?, from: String?) throws(MercurialError) -> (text: String?, sceneFile: String?) {
        guard let text, sceneFile == nil, from == nil, text.lowercased().hasSuffix(".json"),
              !text.contains("\n"), !text.contains("\\n") else { return (text, sceneFile) }
        var info = stat()
        if stat(text, &info) != 0 && (errno == ENOENT || errno == ENOTDIR) {
            throw MercurialError("scene file '\(UserPath(checked: text))' does not exist; check its name "
                                 + "(to render those words as a title: mercurial render --set 'text=\(text.escapedForTerminal)')")
        }
        return (nil, text)
    }

    /// What `checkFont` reads of a recipe: its font's SHA-256, a member of its top level.
    struct RecipeFont: Decodable {
        var fontSHA256: String?
    }

    /// Warns when the font a recipe names is not the file it was made with.
    static func checkFont(_ settings: RenderSettings, recipe: String) {
        // Decoded, not searched for: a recipe laid out otherwise (`"fontSHA256":"…"`) was not checked.
        guard let made = (try? JSONDecoder().decode(RecipeFont.self, from: Data(recipe.utf8)))?.fontSHA256 else { return }
        if let now = try? SceneRecipe.fontSHA256(settings.font), now != made {
            warn(MercurialWarning("font '\(settings.font)' is not the file this title was made with (its SHA-256 differs), so the title may look different"))
        }
        // One line however many a recipe lists (it may list 4,096).
        let changed = settings.fallbackFonts.filter { (try? SceneRecipe.fileSHA256($0.file)) != $0.sha256 }
        if let font = changed.first {
            let which = "'\(font.file.escapedForTerminal)' (\(font.name.escapedForTerminal))"
            warn(MercurialWarning(changed.count == 1
                ? "fallback font \(which) is missing or not the file this title was made with, so the title may look different"
                : "\(changed.count) of the recipe's fallback fonts are missing or not the files this title was made with (the first \(which)), so the title may look different"))
        }
    }

    /// `title.png` → `title-height.png` for the height map (the colour title keeps the name);
    /// a map is a PNG whatever the title is (`card.webp` → `card-height.png`).
    static func output(_ path: String, for map: SurfaceMap) -> String {
        guard map != .color, path != "-" else { return path }
        let name = suffixed(path, map.rawValue)
        guard let dot = name.lastIndex(of: "."),
              ["jpg", "jpeg", "webp"].contains(name[name.index(after: dot)...].lowercased()) else { return name }
        return String(name[..<dot]) + ".png"
    }

    /// `folder/title.png` → `folder/title-SUFFIX.png` (`.png` added to a name without an extension).
    static func suffixed(_ path: String, _ suffix: String) -> String {
        let name = UserPath(checked: path).lastComponent
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name, ext = dot.map { String(name[$0...]) } ?? ".png"
        let folder = path.hasSuffix(name) ? String(path.dropLast(name.utf8.count)) : ""
        return folder + stem + "-" + suffix + ext
    }

    /// The first of `title-1.png`, `title-2.png`, … beside `path` that does not exist.
    static func freeName(beside path: String) throws(MercurialError) -> String {
        for n in 1...999 {
            let candidate = suffixed(path, String(n))
            var info = stat()
            if lstat(candidate, &info) != 0 && errno == ENOENT { return candidate }
        }
        throw MercurialError("'\(suffixed(path, "1"))' to '\(suffixed(path, "999"))' all exist; name the output with -o")
    }
}

extension NormalConvention: ChoiceArgument {}

enum NormalDepth: String, ChoiceArgument {
    case eight = "8", sixteen = "16"
    var bits: Int { self == .eight ? 8 : 16 }
}

/// `color,height,normal`: which maps `render` writes.
struct MapList: ExpressibleByArgument {
    var maps: [SurfaceMap]

    init(maps: [SurfaceMap]) { self.maps = maps }

    init?(argument: String) {
        var maps: [SurfaceMap] = []
        for word in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let map = SurfaceMap(rawValue: word.trimmingWhitespace().lowercased()) else { return nil }
            if !maps.contains(map) { maps.append(map) }
        }
        guard !maps.isEmpty else { return nil }
        self.maps = maps
    }

    var defaultValueDescription: String { maps.map(\.rawValue).joined(separator: ",") }
    static var allValueStrings: [String] { SurfaceMap.allCases.map(\.rawValue) }
}
