import ArgumentParser
import FoundationEssentials
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

struct Shading: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shading",
        abstract: "Write the ray-traced shading sphere (the hemisphere the title's colours come from) to a PNG.",
        usage: "mercurial shading [-o <file>] [--size <px>] [<options>]",
        discussion: "Example: mercurial shading --material gold --size 256 -o gold-sphere.png"
    )

    @Option(name: [.short, .long], help: ArgumentHelp("The PNG to write.", valueName: "file"))
    var output: String = "shading.png"

    static let sizeRange = 1...4096

    @Option(help: ArgumentHelp("Width and height in pixels, \(sizeRange.lowerBound)…\(sizeRange.upperBound).", valueName: "px"))
    var size: Int = ShadingSphere.defaultSize

    @OptionGroup var sceneOption: SceneFileOption
    @OptionGroup var materialOptions: MaterialOptions

    @Flag(name: .shortAndLong, help: "Print nothing but warnings and errors.")
    var quiet = false

    func run() throws {
        guard Self.sizeRange.contains(size) else {
            throw MercurialError("--size \(size) is out of range \(Self.sizeRange.lowerBound)…\(Self.sizeRange.upperBound); give a size in that range")
        }
        try OutputFile.validate(output)
        let settings = try materialOptions.settings(sceneFile: sceneOption.sceneFile)
        try InputFiles.checkOutput(output, against: InputFiles.of(settings, sceneFile: sceneOption.sceneFile))
        try OutputFile.requirePNGName(output, command: "shading")
        let image = ShadingSphere.render(settings.scene, size: size, antialiasedRim: true)
        try OutputFile.write(try PNGSink().encode(image), to: output)
        guard !quiet else { return }
        // As render's: with the PNG on standard output, the summary goes with the diagnostics.
        let line = "\(output) \(size)×\(size)"
        if OutputFile.isStandardOutput(output) { Console.error(line) } else { Console.output(line) }
    }
}

struct Params: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "params",
        abstract: "List every parameter: group, key, range and value (the mercurial material's, or the one given).",
        usage: "mercurial params [--material <name|path>] [--wide | --json | --markdown] [<options>]",
        discussion: """
        The keys of a scene file's nested blocks follow as paths (vine.branchAngle,
        pointLights[].intensity, dynamics.elasticity; [] is each element of a list).
        --json prints the whole table for programs ("parameters", then "nested"),
        every row with the same fields: key, group, name, kind, range, cases,
        rangeText, unset, default, value, help, flag, editable and nested (null
        where a key has none).
        --markdown prints the two tables of docs/parameters.md.

        Example: mercurial params --material chrome
        """
    )

    @OptionGroup var sceneOption: SceneFileOption
    @OptionGroup var materialOptions: MaterialOptions

    @Flag(help: "Print the table as JSON.")
    var json = false

    @Flag(help: "Print the tables as docs/parameters.md's Markdown.")
    var markdown = false

    @Flag(help: "Print one row a line, as wide as it takes (over 300 columns), instead of fitting the terminal.")
    var wide = false

    func validate() throws {
        if json && markdown { throw ValidationError("--json and --markdown are two formats; give one") }
    }

    func run() throws {
        let settings = try materialOptions.settings(sceneFile: sceneOption.sceneFile)
        if json {
            print(ParameterGroup.json(values: settings))
        } else if markdown {
            print(ParameterGroup.markdown, terminator: "")
        } else {
            let rows = ParameterGroup.allParameters.map { p in
                [p.group, p.key, p.rangeDescription, p.format(p.value(in: settings)), p.help]
            } + SceneSchema.rows.map { row in
                [row.block, row.path, row.rangeDescription, (SceneSchema.value(at: row.path, in: settings) ?? row.defaultValue).text(), row.help]
            }
            if wide {
                printTable(header: ["group", "key", "range", "value", "meaning"], rows: rows)
            } else {
                print(Self.fitted(rows, width: terminalWidth()), terminator: "")
            }
        }
    }
}

struct Materials: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "materials", abstract: "List the bundled materials.")

    func run() throws {
        let rows = try MercurialKit.Materials.bundled().map { [$0.name, $0.description] }
        printTable(header: ["material", "description"], rows: rows)
    }
}

struct Fonts: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fonts",
        abstract: "List the bundled fonts, or describe one: its variation axes and OpenType features.",
        discussion: "With FONT (a bundled name, a TTF/OTF file or an installed font's fontconfig name), prints its axes with their ranges, for \"variations\", and the features it has, for \"features\".")

    @Argument(help: "a font to describe") var font: String?

    func run() throws {
        if let font {
            let about = try FontDescription.of(font)
            print("font      \(about.name) (\(about.file))")
            print("axes      \(about.axes.isEmpty ? "none (not a variable font)" : about.axes.map(\.text).joined(separator: ", "))")
            print("features  \(about.features.isEmpty ? "none" : about.features.joined(separator: " "))")
            if about.colorBitmaps { print("glyphs    colour bitmaps (drawn as silhouettes)") }
            return
        }
        let rows = try FontLibrary.bundled().map { f in
            [f.name + (f.default ? " (default)" : ""), "\(f.family) \(f.style)", f.license, f.file]
        }
        printTable(header: ["font", "family", "licence", "file"], rows: rows)
    }
}

extension Params {
    /// The table in `width` columns: a heading for each group, then for each key a line
    /// `key = value  (range)` and its meaning below, indented, each wrapped at spaces.
    static func fitted(_ rows: [[String]], width: Int) -> String {
        var out = "", group = ""
        for row in rows {
            if row[0] != group {
                group = row[0]
                out += (out.isEmpty ? "" : "\n") + group + "\n"
            }
            out += wrapped("  \(row[1]) = \(row[3])  (\(row[2]))", indent: 6, width: width)
            out += wrapped("      " + row[4], indent: 6, width: width)
        }
        return out
    }
}

/// `line` broken at spaces into lines of at most `width` characters (a word longer than
/// that stands alone), the lines after the first indented by `indent`.
func wrapped(_ line: String, indent: Int, width: Int) -> String {
    let lead = line.prefix { $0 == " " }
    var lines: [String] = [], current = String(lead)
    for word in line.dropFirst(lead.count).split(separator: " ", omittingEmptySubsequences: false) {
        let atStart = current.allSatisfy { $0 == " " }
        if !atStart && current.count + 1 + word.count > width {
            lines.append(current)
            current = String(repeating: " ", count: indent) + word
        } else {
            current += (atStart ? "" : " ") + word
        }
    }
    lines.append(current)
    return lines.joined(separator: "\n") + "\n"
}

/// Standard output's terminal width; else `COLUMNS`; else 80 (a pipe, a file).
func terminalWidth() -> Int {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 { return Int(size.ws_col) }
    if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns >= 40 { return columns }
    return 80
}

func printTable(header: [String], rows: [[String]]) {
    let all = [header] + rows
    let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
    for row in all {
        let cells = row.enumerated().map { column, cell in
            column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
        }
        print(cells.joined(separator: "  "))
    }
}

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print the recipe a title carries, as a scene file.",
        discussion: """
        Every PNG that mercurial writes carries its fully resolved scene (unless
        written with --no-metadata). Save it to edit it, or render it again:
          mercurial inspect title.png > scene.json
          mercurial render --from title.png --set light1.hue=0.6 -o again.png
        """
    )

    @Argument(help: "A PNG written by mercurial.")
    var title: String

    func run() throws {
        guard let recipe = try SceneRecipe.read(fromPNGFile: title) else {
            throw MercurialError("'\(title)' carries no recipe (it was written with --no-metadata, or not by mercurial)")
        }
        // Printed as JSON, but a recipe can be written by anyone: a control character
        // in it is printed as its JSON escape, never sent to the terminal.
        Console.output(recipe.jsonEscapedForTerminal, escaping: false)
    }
}
