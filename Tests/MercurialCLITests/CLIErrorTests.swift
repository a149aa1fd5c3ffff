import Foundation
import Testing
@testable import MercurialKit
#if canImport(Glibc)
import Glibc
import MercurialTestSupport
#endif

/// One bad input to the `mercurial` binary and what it must answer.
struct CLIErrorCase: Sendable, CustomTestStringConvertible {
    enum Status: Sendable {
        /// A `MercurialError` of the user's input: exit status 1.
        case ours
        /// A `MercurialError` over a documented limit: exit status 3.
        case limit
        /// A `MercurialError` of the system (no space, a failed write): exit status 4.
        case resource
        /// An ArgumentParser usage error: whatever status it picks, as long as it is not 0.
        case usage
        /// `batch` refusing its command line, batch file or base scene before any row: 64 (EX_USAGE).
        case batchUsage
    }

    /// A file (or folder) made in the temporary folder before the run.
    enum Setup: Sendable {
        case text(String, String)
        case bytes(String, [UInt8])
        /// The first `count` bytes of the file at `source` (all of it when nil).
        case copy(String, from: String, count: Int? = nil)
        case directory(String)
        /// A sparse file of `size` bytes.
        case sparse(String, size: Int)
        /// `chmod` on something made by an earlier setup.
        case chmod(String, mode_t)
        /// A named pipe (nobody writes to it or reads from it).
        case fifo(String)
        /// A symbolic link to `target` (which need not exist).
        case symlink(String, to: String)
        /// A second name for an existing file.
        case hardLink(String, to: String)
    }

    /// Where the run must not have written.
    enum Output: Sendable {
        /// `-o out.png` is appended; `out.png` must not exist afterwards.
        case appended
        /// The case gives `-o` itself; this path (relative to the temporary folder or
        /// absolute) must not exist afterwards.
        case mustNotExist(String)
        /// The case gives `-o` naming this existing folder, which must still be an empty folder.
        case existingDirectory(String)
        /// The command writes no file (e.g. `params`).
        case none
        /// The case gives `-o` naming this input, made by a setup step, which must be unchanged.
        case unchanged(String)
    }

    var name: String
    var arguments: [String]
    var setup: [Setup] = []
    var status: Status = .ours
    /// Each must appear in the error line.
    var fragments: [String]
    var output: Output = .appended

    var testDescription: String { name }
}

extension CLIErrorCase {
    static let roundedFont = CLI.packageRoot.appendingPathComponent("fonts/dosis-extrabold.otf").path

    /// A PNG signature and an IHDR chunk (valid CRC) claiming `width`×`height` RGBA, then
    /// one tiny IDAT and IEND: what a hostile file says about itself, not its pixels.
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        func crc(_ bytes: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xffff_ffff
            for b in bytes {
                c ^= UInt32(b)
                for _ in 0..<8 { c = c & 1 != 0 ? 0xedb8_8320 ^ (c >> 1) : c >> 1 }
            }
            return c ^ 0xffff_ffff
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be(UInt32(data.count)) + body + be(crc(body))
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", be(width) + be(height) + [8, 6, 0, 0, 0])
            + chunk("IDAT", [0x78, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
            + chunk("IEND", [])
    }

    /// Reproducible junk: an LCG's bytes.
    static func junk(_ count: Int, seed: UInt64 = 0x5EED) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// A font nobody may read. chmod 000 does not stop root, so as root the font
    /// is a folder instead (also unreadable as a font, and reported as such).
    static let unreadableFont: CLIErrorCase = CLI.isRoot
        ? CLIErrorCase(name: "unreadable font (running as root: a folder given as the font)",
                       arguments: ["render", "Hi", "--font", "fontdir"],
                       setup: [.directory("fontdir")], fragments: ["font 'fontdir' is a directory"])
        : CLIErrorCase(name: "unreadable font (chmod 000)",
                       arguments: ["render", "Hi", "--font", "locked.ttf"],
                       setup: [.copy("locked.ttf", from: roundedFont), .chmod("locked.ttf", 0)],
                       fragments: ["font 'locked.ttf' cannot be read"])

    /// An output folder that may not be written. As root, permission bits do not
    /// stop writing, so a kernel folder that refuses writes even to root is used
    /// (`access(W_OK)` fails on it, which is exactly what `OutputFile.validate` asks).
    static let unwritableOutputDirectory: CLIErrorCase = {
        guard CLI.isRoot else {
            return CLIErrorCase(name: "output directory not writable (chmod 555)",
                                arguments: ["render", "Hi", "-o", "locked/title.png"],
                                setup: [.directory("locked"), .chmod("locked", 0o555)],
                                fragments: ["output directory 'locked' is not writable"],
                                output: .mustNotExist("locked/title.png"))
        }
        let candidates: [String] = ["/proc/sys", "/proc/self", "/sys/kernel"]
        if let folder = candidates.first(where: { access($0, W_OK) != 0 }) {
            return CLIErrorCase(name: "output directory not writable (running as root: \(folder))",
                                arguments: ["render", "Hi", "-o", "\(folder)/title.png"],
                                fragments: ["output directory '\(folder)' is not writable"],
                                output: .mustNotExist("\(folder)/title.png"))
        }
        // No folder refuses root here: /proc passes validate() but creating a file in it fails,
        // which exercises OutputFile.write's failure path instead.
        return CLIErrorCase(name: "output directory not writable (running as root: /proc)",
                            arguments: ["render", "Hi", "-o", "/proc/title.png"],
                            fragments: ["'/proc'"], output: .mustNotExist("/proc/title.png"))
    }()

    /// A one-glyph bitmap font: FreeType opens it, but it has no outlines to emboss.
    static let tinyBDF = """
        STARTFONT 2.1
        FONT -misc-tiny-medium-r-normal--8-80-75-75-c-80-iso10646-1
        SIZE 8 75 75
        FONTBOUNDINGBOX 8 8 0 0
        STARTPROPERTIES 2
        FONT_ASCENT 8
        FONT_DESCENT 0
        ENDPROPERTIES
        CHARS 1
        STARTCHAR H
        ENCODING 72
        SWIDTH 1000 0
        DWIDTH 8 0
        BBX 8 8 0 0
        BITMAP
        \(Array(repeating: "FF", count: 8).joined(separator: "\n"))
        ENDCHAR
        ENDFONT

        """

    static func badPNG(_ role: String, option: String, _ file: String, _ fragment: String) -> CLIErrorCase {
        CLIErrorCase(name: "\(role): \(file)",
                     arguments: ["render"] + (option == "--mask" ? [] : ["Hi"]) + [option, CLI.fixturePath(file)],
                     fragments: ["\(role) '", file, fragment, "give a valid PNG file"])
    }

    static let all: [CLIErrorCase] = [
        // Fonts.
        CLIErrorCase(name: "missing font file", arguments: ["render", "Hi", "--font", "nowhere/missing.ttf"],
                     fragments: ["font file 'nowhere/missing.ttf' does not exist"]),
        CLIErrorCase(name: "missing font file, bare name with extension", arguments: ["render", "Hi", "--font", "missing.otf"],
                     fragments: ["font file 'missing.otf' does not exist"]),
        unreadableFont,
        CLIErrorCase(name: "font that cannot be read (/proc/self/mem)", arguments: ["render", "Hi", "--font", "/proc/self/mem"],
                     fragments: ["font '/proc/self/mem' cannot be read"]),
        CLIErrorCase(name: "font of random bytes", arguments: ["render", "Hi", "--font", "random.ttf"],
                     setup: [.bytes("random.ttf", junk(3000))],
                     fragments: ["font 'random.ttf'", "TrueType or OpenType"]),
        CLIErrorCase(name: "PNG renamed .ttf", arguments: ["render", "Hi", "--font", "picture.ttf"],
                     setup: [.copy("picture.ttf", from: CLI.fixturePath("rgb8.png"))],
                     fragments: ["font 'picture.ttf'", "TrueType or OpenType"]),
        CLIErrorCase(name: "zero-byte font", arguments: ["render", "Hi", "--font", "zero.ttf"],
                     setup: [.bytes("zero.ttf", [])], fragments: ["font 'zero.ttf' is an empty file"]),
        CLIErrorCase(name: "truncated font (5000 bytes of dosis-extrabold.otf)", arguments: ["render", "Hi", "--font", "cut.otf"],
                     setup: [.copy("cut.otf", from: roundedFont, count: 5000)],
                     fragments: ["font 'cut.otf'"]),
        CLIErrorCase(name: "truncated font (40000 bytes of dosis-extrabold.otf)", arguments: ["render", "Hi", "--font", "cut.otf"],
                     setup: [.copy("cut.otf", from: roundedFont, count: 40000)],
                     fragments: ["font 'cut.otf'"]),
        CLIErrorCase(name: "bitmap-only font (BDF, no scalable outlines)", arguments: ["render", "H", "--font", "tiny.bdf"],
                     setup: [.text("tiny.bdf", tinyBDF)], fragments: ["font 'tiny.bdf' has no scalable outlines"]),
        CLIErrorCase(name: "font file over 64 MB", arguments: ["render", "Hi", "--font", "huge.ttf"],
                     setup: [.sparse("huge.ttf", size: 65 * 1024 * 1024)], status: .limit, fragments: ["font 'huge.ttf' is larger than 64 MB"]),
        CLIErrorCase(name: "empty font name", arguments: ["render", "Hi", "--font", " "],
                     fragments: ["the font name is empty"]),
        CLIErrorCase(name: "unknown installed font family", arguments: ["render", "Hi", "--font", "No Such Family"],
                     fragments: ["unknown font 'No Such Family'"]),

        // Shading images and masks.
        CLIErrorCase(name: "missing shading image", arguments: ["render", "Hi", "--shading-image", "nope.png"],
                     fragments: ["shading image 'nope.png' does not exist"]),
        CLIErrorCase(name: "shading image is a folder", arguments: ["render", "Hi", "--shading-image", "adir"],
                     setup: [.directory("adir")], fragments: ["shading image 'adir' is a directory"]),
        badPNG("shading image", option: "--shading-image", "truncated.png", "truncated.png"),
        badPNG("shading image", option: "--shading-image", "badcrc.png", "is damaged"),
        badPNG("shading image", option: "--shading-image", "notpng.png", "is not a PNG"),
        badPNG("shading image", option: "--shading-image", "empty.png", "is empty"),
        CLIErrorCase(name: "missing mask", arguments: ["render", "--mask", "nope.png"],
                     fragments: ["mask 'nope.png' does not exist"]),
        badPNG("mask", option: "--mask", "truncated.png", "truncated.png"),
        badPNG("mask", option: "--mask", "badcrc.png", "is damaged"),
        badPNG("mask", option: "--mask", "notpng.png", "is not a PNG"),
        badPNG("mask", option: "--mask", "empty.png", "is empty"),
        CLIErrorCase(name: "--mask with --width", arguments: ["render", "--mask", CLI.fixturePath("gray8.png"), "--width", "100"],
                     fragments: ["--width/--height do not apply with --mask"]),
        CLIErrorCase(name: "--mask with --height", arguments: ["render", "--mask", CLI.fixturePath("gray8.png"), "--height", "100"],
                     fragments: ["--width/--height do not apply with --mask"]),

        // Text.
        CLIErrorCase(name: "empty text", arguments: ["render", ""], fragments: ["the text is empty or only whitespace"]),
        CLIErrorCase(name: "whitespace-only text", arguments: ["render", "   "], fragments: ["the text is empty or only whitespace"]),
        CLIErrorCase(name: "newlines and tabs only", arguments: ["render", " \n\t\n "], fragments: ["the text is empty or only whitespace"]),
        CLIErrorCase(name: "escaped newline only", arguments: ["render", "\\n \\n"], fragments: ["the text is empty or only whitespace"]),
        CLIErrorCase(name: "no text at all", arguments: ["render"], fragments: ["there is no text to render"]),

        // Sizes.
        CLIErrorCase(name: "--size 0", arguments: ["render", "Hi", "--size", "0"], fragments: ["size is 0, out of range 1…8192"]),
        CLIErrorCase(name: "--size=-5", arguments: ["render", "Hi", "--size=-5"], fragments: ["size is -5, out of range 1…8192"]),
        CLIErrorCase(name: "--size 1e9", arguments: ["render", "Hi", "--size", "1e9"], fragments: ["size is 1000000000, out of range"]),
        CLIErrorCase(name: "--size nan", arguments: ["render", "Hi", "--size", "nan"], fragments: ["size is NaN"]),
        CLIErrorCase(name: "--width 0", arguments: ["render", "Hi", "--width", "0"], fragments: ["width is 0, out of range 1…16384"]),
        CLIErrorCase(name: "--width 100000", arguments: ["render", "Hi", "--width", "100000"],
                     fragments: ["width is 100000, out of range 1…16384"]),
        CLIErrorCase(name: "--height=-3", arguments: ["render", "Hi", "--height=-3"], fragments: ["height is -3, out of range 1…16384"]),
        // 16384 × 16384 is exactly the pixel cap (268 M), so the cap cannot be passed without
        // passing the side limit too; one pixel more on a side is refused before any allocation.
        CLIErrorCase(name: "--width 16384 --height 16385", arguments: ["render", "Hi", "--width", "16384", "--height", "16385", "--size", "8000"],
                     fragments: ["height is 16385, out of range 1…16384"]),
        CLIErrorCase(name: "text too large for a tiny canvas", arguments: ["render", "Hi", "--width", "10", "--height", "10"],
                     fragments: ["--width 10 leaves no room for the text", "margin of 14 px"]),
        CLIErrorCase(name: "shading --size 0", arguments: ["shading", "--size", "0"], fragments: ["--size 0 is out of range 1…4096"]),
        CLIErrorCase(name: "shading --size 5000", arguments: ["shading", "--size", "5000"], fragments: ["--size 5000 is out of range 1…4096"]),

        // Parameters.
        CLIErrorCase(name: "--radius nan", arguments: ["render", "Hi", "--radius", "nan"], fragments: ["radius is NaN, not a finite number"]),
        CLIErrorCase(name: "--radius inf", arguments: ["render", "Hi", "--radius", "inf"], fragments: ["radius is infinity, not a finite number"]),
        CLIErrorCase(name: "--radius 0", arguments: ["render", "Hi", "--radius", "0"], fragments: ["radius is 0, out of range 0.5…200"]),
        CLIErrorCase(name: "--scale 1000", arguments: ["render", "Hi", "--scale", "1000"], fragments: ["scale is 1000, out of range 0…100"]),
        CLIErrorCase(name: "--shininess 2", arguments: ["render", "Hi", "--shininess", "2"], fragments: ["shininess is 2, out of range 0.001…0.25"]),
        CLIErrorCase(name: "--set light1.x=80", arguments: ["render", "Hi", "--set", "light1.x=80"], fragments: ["light1.x is 80, out of range -50…50"]),
        CLIErrorCase(name: "--set light5.x=1", arguments: ["render", "Hi", "--set", "light5.x=1"],
                     fragments: ["unknown parameter 'light5.x'", "did you mean 'light1.x'"]),
        CLIErrorCase(name: "--set pointLights[2].x=1 with none", arguments: ["render", "Hi", "--set", "pointLights[2].x=1"],
                     fragments: ["'pointLights[2]': the scene has 0 point lights; use 'pointLights[0]' to add one"]),
        CLIErrorCase(name: "--set nokey", arguments: ["render", "Hi", "--set", "nokey"], fragments: ["--set 'nokey' has no '='"]),
        CLIErrorCase(name: "--set diffuse=notacolour", arguments: ["render", "Hi", "--set", "diffuse=notacolour"],
                     fragments: ["diffuse = 'notacolour' is not a colour"]),
        CLIErrorCase(name: "--set light1.hue=abc", arguments: ["render", "Hi", "--set", "light1.hue=abc"],
                     fragments: ["light1.hue = 'abc' is not a number"]),
        // Numbers are decimal: Swift's Double(_:) took 0x10 as 16 and 0x1p3 as 8 (issue 31).
        CLIErrorCase(name: "--radius 0x10", arguments: ["render", "Hi", "--radius", "0x10"], status: .usage,
                     fragments: ["'0x10'", "--radius", "a decimal number"]),
        CLIErrorCase(name: "--set radius=0x1p3", arguments: ["render", "Hi", "--set", "radius=0x1p3"],
                     fragments: ["radius = '0x1p3' is not a decimal number"]),
        CLIErrorCase(name: "--set size=0", arguments: ["render", "Hi", "--set", "size=0"], fragments: ["size is 0, out of range 1…8192"]),
        CLIErrorCase(name: "--set align=justify", arguments: ["render", "Hi", "--set", "align=justify"],
                     fragments: ["align = 'justify' is not known; use left, center or right"]),
        CLIErrorCase(name: "--margin wide", arguments: ["render", "Hi", "--margin", "wide"],
                     fragments: ["\"margin\" is \"wide\"; give pixels (e.g. 40), a share of the canvas under 50 % (e.g. \"5%\") or \"safe\""]),
        CLIErrorCase(name: "--margin 5% without a canvas", arguments: ["render", "Hi", "--margin", "5%"],
                     fragments: ["margin \"5%\" is a share of the canvas, but the canvas's width is sized to the text; give --width and --height"]),
        CLIErrorCase(name: "--margin leaves no room", arguments: ["render", "Hi", "--width", "200", "--height", "400", "--margin", "100"],
                     fragments: ["--width 200 leaves no room for the text inside the margin of 100 px a side (--margin/--padding)"]),
        CLIErrorCase(name: "--anchor middle", arguments: ["render", "Hi", "--anchor", "middle"], status: .usage,
                     fragments: ["'middle'", "--anchor"]),
        CLIErrorCase(name: "--offset x", arguments: ["render", "Hi", "--offset", "x"],
                     fragments: ["\"offset\" must be a point [x, y] in pixels"]),
        CLIErrorCase(name: "--mask with --anchor", arguments: ["render", "--mask", "m.png", "--anchor", "top"],
                     fragments: ["--anchor, --margin, --padding and --offset do not apply with --mask"]),
        CLIErrorCase(name: "layers: below names no layer", arguments: ["render", "--params", "s.json"],
                     setup: [.text("s.json", #"{"width": 800, "height": 300, "layers": [{"name": "a", "text": "A"}, {"below": "b", "text": "B"}]}"#)],
                     fragments: [#"s.json:1:41: layer 2 is "below" "b", which names no layer; did you mean "a"?"#]),
        CLIErrorCase(name: "layers: a slip for a layer's own key", arguments: ["render", "--params", "s.json"],
                     setup: [.text("s.json", #"{"width": 800, "height": 300, "layers": [{"name": "a", "text": "A"}, {"belw": "a", "text": "B"}]}"#)],
                     fragments: [#"s.json:1:71: unknown key "belw"; did you mean "below"?"#]),
        CLIErrorCase(name: "layers: a layer's in without an animation", arguments: ["render", "s.json", "-o", "out.png"],
                     setup: [.text("s.json", #"{"width": 800, "height": 300, "layers": [{"text": "A", "in": {"type": "fade"}}]}"#)],
                     fragments: [#"s.json:1:56: "layers[0].in" needs an "animation" with a "duration""#],
                     output: .mustNotExist("out.png")),
        CLIErrorCase(name: "layers: a layer's moves longer than the animation", arguments: ["animate", "s.json", "-o", "out.apng"],
                     setup: [.text("s.json", #"{"width": 800, "height": 300, "animation": {"duration": 1}, "layers": [{"text": "A", "in": [{"type": "fade", "delay": 0.8, "duration": 0.5}]}]}"#)],
                     fragments: ["s.json: layers[0]: \"in\" takes 0.8 s delay + 0.5 s", "longer than the animation's 1 s"],
                     output: .mustNotExist("out.apng")),
        // (A still of layers goes down the canvas in bands; an animation's frame is made whole.)
        CLIErrorCase(name: "layers: a frame too large to paint in memory", arguments: ["animate", "s.json", "-o", "out.apng"],
                     setup: [.text("s.json", #"{"width": 16384, "height": 16384, "animation": {"duration": 0.1}, "layers": [{"text": "A"}, {"text": "B"}]}"#)],
                     status: .limit, fragments: ["at most 33 M pixels (7680×4320)", "16384×16384"], output: .mustNotExist("out.apng")),
        CLIErrorCase(name: "layers: a layer's shadow further than the canvas", arguments: ["render", "s.json", "-o", "out.png"],
                     setup: [.text("s.json", #"{"width": 1280, "height": 720, "layers": [{"text": "A"}, {"text": "Jane", "anchor": "bottom", "dropShadow": {"distance": 2000}}]}"#)],
                     fragments: [#"layer 2: "dropShadow" reaches 2005 px"#, "1280×720 canvas", "smaller distance or size"],
                     output: .mustNotExist("out.png")),
        CLIErrorCase(name: "animation: H.264 of an odd size", arguments: ["animate", "s.json", "-o", "out.mp4"],
                     setup: [.text("s.json", #"{"text": "Hi", "width": 641, "height": 360, "animation": {"duration": 0.2}}"#)],
                     fragments: ["need an even width and height, and these are 641×360", "(e.g. 642×360)", ".webm or .mov"],
                     output: .mustNotExist("out.mp4")),
        CLIErrorCase(name: "layers: a stacked layer's own offset", arguments: ["render", "--params", "s.json"],
                     setup: [.text("s.json", #"{"width": 800, "height": 300, "layers": [{"name": "a", "text": "A"}, {"below": "a", "text": "B", "offset": [0, 8]}]}"#)],
                     fragments: [#"s.json:1:98: layer 2 is "below" "a""#, #"its own "offset" would not be used"#, "give it to the stack's top layer"]),
        CLIErrorCase(name: "layers: height and normal maps", arguments: ["render", "--params", "s.json", "--emit", "color,height", "-o", "t.png"],
                     setup: [.text("s.json", #"{"width": 800, "height": 300, "layers": [{"text": "A"}]}"#)],
                     fragments: [#"height and normal maps are made of one title, and this scene has 1 "layers""#, "--emit color"],
                     output: .mustNotExist("t.png")),
        CLIErrorCase(name: "layers: with dynamics", arguments: ["animate", "s.json", "-o", "out.apng"],
                     setup: [.text("s.json", #"{"width": 800, "height": 300, "animation": {"duration": 1}, "dynamics": {}, "layers": [{"text": "A"}]}"#)],
                     fragments: [#""dynamics" moves one title's letters, not a scene's "layers""#], output: .mustNotExist("out.apng")),
        CLIErrorCase(name: "layers: a track into a layer that is not there", arguments: ["animate", "s.json", "-o", "out.apng"],
                     setup: [.text("s.json", #"{"width": 800, "height": 300, "animation": {"duration": 1, "tracks": {"layers[5].x": [{"t": 0, "value": 1}]}}, "layers": [{"text": "A"}, {"text": "B"}]}"#)],
                     fragments: [#"s.json:1:71: track 'layers[5].x' names layer 5, but the scene has 2 layers (layers[0] to layers[1]); use one of those"#], output: .mustNotExist("out.apng")),
        CLIErrorCase(name: "sequence: layers beside it", arguments: ["animate", "s.json", "-o", "out.apng"],
                     setup: [.text("s.json", #"{"layers": [{"text": "A"}], "sequence": [{"scene": {"text": "x"}, "hold": 0.2}]}"#)],
                     fragments: [#"s.json:1:2: "layers" beside "sequence" would apply to no title; put it in the "scene" of each step that should have it"#],
                     output: .mustNotExist("out.apng")),
        CLIErrorCase(name: "sequence: an in beside it", arguments: ["animate", "s.json", "-o", "out.apng"],
                     setup: [.text("s.json", #"{"sequence": [{"scene": {"text": "x"}, "hold": 0.2}], "in": {"type": "fade"}}"#)],
                     fragments: [#"s.json:1:55: "in" beside "sequence" would apply to no title"#], output: .mustNotExist("out.apng")),
        CLIErrorCase(name: "sequence: --set a layer's material a step lacks", arguments: ["animate", "s.json", "-o", "out.apng", "--set", "layers[1].material=neon"],
                     setup: [.text("s.json", #"{"sequence": [{"scene": {"text": "x"}, "hold": 0.2}]}"#)],
                     fragments: [#"s.json: sequence[0]: --set 'layers[1].material' names layer 1, but the scene has no "layers"; give it "layers" or leave the key out"#],
                     output: .mustNotExist("out.apng")),
        CLIErrorCase(name: "--set width=1.5", arguments: ["render", "Hi", "--set", "width=1.5"],
                     fragments: ["width = '1.5' is not a whole number; give one in 1…16384 or auto"]),
        CLIErrorCase(name: "--max-lines 0", arguments: ["render", "Hi", "--max-lines", "0"],
                     fragments: ["maxLines is 0, out of range 1…100"]),
        CLIErrorCase(name: "--set background=blurple", arguments: ["render", "Hi", "--set", "background=blurple"],
                     fragments: ["background = 'blurple' is not a colour", "or transparent"]),
        CLIErrorCase(name: "params --json --markdown", arguments: ["params", "--json", "--markdown"], status: .usage,
                     fragments: ["--json and --markdown"], output: .none),
        CLIErrorCase(name: "params --set nokey", arguments: ["params", "--set", "nokey"], fragments: ["--set 'nokey' has no '='"],
                     output: .none),
        CLIErrorCase(name: "shading --set light5.x=1", arguments: ["shading", "--set", "light5.x=1"],
                     fragments: ["unknown parameter 'light5.x'"]),

        // Scene files.
        CLIErrorCase(name: "scene file: syntax error", arguments: ["render", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\n  \"text\": \"Hi\",\n  \"radius\": 3,,\n}\n")],
                     fragments: ["scene.json:3:15:"]),
        CLIErrorCase(name: "scene file: unterminated", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\n  \"radius\": 3\n")], fragments: ["scene.json:"]),
        CLIErrorCase(name: "scene file: empty", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "")], fragments: ["scene.json:1:1:"]),
        CLIErrorCase(name: "scene file: wrong type", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\n  \"radius\": \"big\"\n}\n")],
                     fragments: ["scene.json:2:13:", "\"radius\" must be a number in 0.5…200, not a string"]),
        CLIErrorCase(name: "scene file: unknown key", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\n  \"radiu\": 3\n}\n")],
                     fragments: ["scene.json:2:3:", "unknown key \"radiu\"", "did you mean \"radius\""]),
        CLIErrorCase(name: "scene file: five lights", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\"lights\": [{}, {}, {}, {}, {\"hue\": 0.5}]}")],
                     fragments: ["scene.json:1:", "\"lights\" has 5 entries"]),
        CLIErrorCase(name: "scene file: not an object", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "[1, 2, 3]")],
                     fragments: ["scene.json:1:1:", "must be a JSON object"]),
        CLIErrorCase(name: "scene file: value out of range", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\n  \"lights\": [{\"x\": 99}]\n}\n")],
                     fragments: ["scene.json:2:", "light1.x is 99, out of range"]),
        CLIErrorCase(name: "scene file: nested 5000 deep", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\"lights\": " + String(repeating: "[", count: 5000))],
                     fragments: ["scene.json:1:", "nesting deeper than 256 levels"]),
        CLIErrorCase(name: "scene file: a 10 MB string", arguments: ["render", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\"text\": \"" + String(repeating: "a", count: 10_000_000) + "\"}")],
                     fragments: ["scene.json:1:10:", "over the limit of 10000"]),
        CLIErrorCase(name: "scene file: duplicate keys", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\"radius\": 4,\n \"radius\": 5}")],
                     fragments: ["scene.json:2:2:", "duplicate key \"radius\""]),
        CLIErrorCase(name: "scene file: NaN token", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\"scale\": NaN}")], fragments: ["scene.json:1:11:", "NaN is not valid JSON"]),
        CLIErrorCase(name: "scene file: -Infinity token", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.text("scene.json", "{\"scale\": -Infinity}")], fragments: ["scene.json:1:", "Infinity is not valid JSON"]),
        CLIErrorCase(name: "scene file: random bytes", arguments: ["render", "Hi", "--params", "scene.json"],
                     setup: [.bytes("scene.json", junk(4096, seed: 7))], fragments: ["scene.json:1:"]),
        CLIErrorCase(name: "text over 10000 characters", arguments: ["render", String(repeating: "W", count: 10_001)],
                     fragments: ["the text is 10001 characters long, over the limit of 10000"]),
        CLIErrorCase(name: "mask PNG 0×0", arguments: ["render", "--mask", "zero.png"],
                     setup: [.bytes("zero.png", pngHeader(width: 0, height: 0))], fragments: ["mask 'zero.png'"]),
        CLIErrorCase(name: "mask PNG claiming 100000×100000", arguments: ["render", "--mask", "big.png"],
                     setup: [.bytes("big.png", pngHeader(width: 100_000, height: 100_000))],
                     status: .limit, fragments: ["mask 'big.png' is 100000×100000 pixels, over the limit"]),
        CLIErrorCase(name: "shading image claiming 1000000×1", arguments: ["render", "Hi", "--shading-image", "long.png"],
                     setup: [.bytes("long.png", pngHeader(width: 1_000_000, height: 1))],
                     status: .limit, fragments: ["shading image 'long.png' is 1000000×1 pixels, over the limit"]),
        CLIErrorCase(name: "canvas 10⁹ wide", arguments: ["render", "Hi", "--width", "1000000000", "--height", "100"],
                     fragments: ["width is 1000000000, out of range 1…16384"]),
        CLIErrorCase(name: "canvas whose area overflows Int", arguments: ["render", "Hi", "--width", "9223372036854775807",
                                                                          "--height", "9223372036854775807"],
                     fragments: ["width is 9223372036854775807, out of range 1…16384"]),
        CLIErrorCase(name: "scene file: missing", arguments: ["render", "Hi", "--params", "absent.json"],
                     fragments: ["scene file 'absent.json' does not exist"]),
        CLIErrorCase(name: "scene file: a folder", arguments: ["render", "Hi", "--params", "sdir"],
                     setup: [.directory("sdir")], fragments: ["scene file 'sdir' is a directory"]),

        // Materials and colours.
        CLIErrorCase(name: "unknown material", arguments: ["render", "Hi", "--material", "unobtainium"],
                     fragments: ["unknown material 'unobtainium'", "mercurial"]),
        CLIErrorCase(name: "unknown material (shading)", arguments: ["shading", "--material", "unobtainium"],
                     fragments: ["unknown material 'unobtainium'"]),
        CLIErrorCase(name: "missing material file", arguments: ["render", "Hi", "--material", "none.json"],
                     fragments: ["material 'none.json' does not exist"]),
        CLIErrorCase(name: "unknown colour", arguments: ["render", "Hi", "--background", "blurple"],
                     fragments: ["--background 'blurple' is not a colour"]),
        CLIErrorCase(name: "bad hex colour", arguments: ["render", "Hi", "--background", "#12345"],
                     fragments: ["--background '#12345' is not a colour"]),
        CLIErrorCase(name: "unknown alignment", arguments: ["render", "Hi", "--align", "justify"], status: .usage,
                     fragments: ["'justify'", "--align", "'left', 'center' or 'right'"]),
        CLIErrorCase(name: "unknown profile", arguments: ["render", "Hi", "--profile", "bumpy"], status: .usage,
                     fragments: ["'bumpy'", "--profile", "'liquid', 'chisel' or 'round'"]),

        // Output.
        CLIErrorCase(name: "output directory missing", arguments: ["render", "Hi", "-o", "missing/sub/title.png"],
                     fragments: ["output directory 'missing/sub' does not exist"], output: .mustNotExist("missing")),
        CLIErrorCase(name: "output path is a directory", arguments: ["render", "Hi", "-o", "adir"],
                     setup: [.directory("adir")], fragments: ["output 'adir' is a directory"],
                     output: .existingDirectory("adir")),
        CLIErrorCase(name: "output parent is a file", arguments: ["render", "Hi", "-o", "afile/title.png"],
                     setup: [.text("afile", "x")], fragments: ["output directory 'afile' is not a directory"],
                     output: .mustNotExist("afile/title.png")),
        CLIErrorCase(name: "empty output path", arguments: ["render", "Hi", "-o", ""],
                     fragments: ["the output path is empty"], output: .none),
        unwritableOutputDirectory,
        CLIErrorCase(name: "shading into a missing directory", arguments: ["shading", "-o", "missing/s.png"],
                     fragments: ["output directory 'missing' does not exist"], output: .mustNotExist("missing")),
        CLIErrorCase(name: "--compression ultra", arguments: ["render", "Hi", "--compression", "ultra"], status: .usage,
                     fragments: ["'ultra'", "--compression", "'fast', 'small' or 'none'"]),

        // ArgumentParser's own usage errors.
        CLIErrorCase(name: "usage: --size abc", arguments: ["render", "Hi", "--size", "abc"], status: .usage,
                     fragments: ["'abc'", "--size"]),
        CLIErrorCase(name: "usage: unknown option", arguments: ["render", "Hi", "--bogus"], status: .usage,
                     fragments: ["--bogus"]),
        CLIErrorCase(name: "usage: missing value", arguments: ["render", "Hi", "--radius"], status: .usage,
                     fragments: ["--radius"]),
        CLIErrorCase(name: "usage: --width 1.5", arguments: ["render", "Hi", "--width", "1.5"], status: .usage,
                     fragments: ["'1.5'"]),
        CLIErrorCase(name: "usage: two texts", arguments: ["render", "Hi", "there"], status: .usage,
                     fragments: ["there"]),
        // A slip for a command is not rendered as a title.
        CLIErrorCase(name: "usage: mistyped inspect", arguments: ["inpsect", "t.png"],
                     setup: [.copy("t.png", from: CLI.fixturePath("rgb8.png"))], status: .usage,
                     fragments: ["'inpsect' is not a command", "did you mean 'mercurial inspect'", "mercurial render -- inpsect"],
                     output: .unchanged("t.png")),
        CLIErrorCase(name: "usage: mistyped render", arguments: ["rendr", "Hi"], status: .usage,
                     fragments: ["'rendr' is not a command", "did you mean 'mercurial render'"], output: .none),
        CLIErrorCase(name: "usage: mistyped animate", arguments: ["Animaet", "s.json"], status: .usage,
                     fragments: ["'Animaet' is not a command", "did you mean 'mercurial animate'"], output: .none),
    ] + hostile + animation + batch + vine + sequence + inOut + styles + choices + fourthWave
}

/// The cases run in parallel, each in its own temporary folder; `CLI.run` keeps
/// only a few processes running at once.
@Suite struct CLIErrorTests {
    /// How long an error may take: they are all found before or early in the render
    /// (each answers in well under 0.1 s in a release build on a quiet machine; the
    /// limit is wide because the debug binary shares two cores with the whole suite,
    /// and a hang is what it is for).
    static let answerWithin: Duration = .seconds(25)

    @Test(arguments: CLIErrorCase.all)
    func badInputGivesOneErrorLine(_ c: CLIErrorCase) async throws {
        try await CLI.withTemporaryDirectory { dir in
            try make(c.setup, in: dir)
            var before: Data?
            if case .unchanged(let path) = c.output { before = try Data(contentsOf: dir.appendingPathComponent(path)) }
            var arguments = c.arguments
            if case .appended = c.output { arguments += ["-o", "out.png"] }
            let r = try await CLI.run(arguments, in: dir, timeout: .seconds(30))

            // Exit, not a crash, with the expected status.
            #expect(r.termination == .exit, "terminated by signal \(r.status): \(r)")
            #expect(r.status != 0, "succeeded: \(r)")
            switch c.status {
            case .ours: #expect(r.status == MercurialError.Kind.input.exitStatus, "\(r)")
            case .limit: #expect(r.status == MercurialError.Kind.limit.exitStatus, "\(r)")
            case .resource: #expect(r.status == MercurialError.Kind.resource.exitStatus, "\(r)")
            case .usage: #expect(r.termination == .exit && r.status != 0, "\(r)")
            case .batchUsage: #expect(r.termination == .exit && r.status == 64, "\(r)")
            }

            // Exactly one line, `error: …`, naming the problem, no crash report.
            let lines = r.stderrLines
            #expect(lines.count == 1, "stderr should be one line: \(r)")
            let line = lines.first ?? ""
            #expect(line.hasPrefix("error: "), "\(r)")
            for fragment in c.fragments {
                #expect(line.contains(fragment), "missing \(fragment.debugDescription): \(r)")
            }
            for crashSign in ["Fatal error", "Backtrac", "Program crashed", "Thread 0", "Stack dump", "Current stack trace", "0x0000"] {
                #expect(!r.stderr.contains(crashSign), "crash report on stderr: \(r)")
            }
            #expect(r.stdout.isEmpty, "nothing on stdout for an error: \(r)")
            #expect(!r.stderr.dropLast().unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                     "a control character reached stderr: \(r)")

            // No output and no temporary files left behind.
            switch c.output {
            case .appended:
                #expect(!exists(dir.appendingPathComponent("out.png")), "out.png was written")
                #expect(CLI.temporaryFiles(in: dir).isEmpty, "left \(CLI.temporaryFiles(in: dir))")
            case .mustNotExist(let path):
                let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : dir.appendingPathComponent(path)
                #expect(!exists(url), "\(path) was created")
                #expect(CLI.temporaryFiles(in: url.deletingLastPathComponent()).isEmpty)
                #expect(CLI.temporaryFiles(in: dir).isEmpty)
            case .existingDirectory(let path):
                var isDirectory: ObjCBool = false
                let url = dir.appendingPathComponent(path)
                #expect(FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue)
                #expect((try? FileManager.default.contentsOfDirectory(atPath: url.path))?.isEmpty == true)
                #expect(CLI.temporaryFiles(in: dir).isEmpty)
            case .none:
                #expect(CLI.temporaryFiles(in: dir).isEmpty)
            case .unchanged(let path):
                #expect(try Data(contentsOf: dir.appendingPathComponent(path)) == before, "\(path) was overwritten")
                #expect(CLI.temporaryFiles(in: dir).isEmpty)
            }
            #expect(!exists(dir.appendingPathComponent("title.png")), "the default output was written")

            #expect(r.elapsed < Self.answerWithin, "took \(r.elapsed)")
        }
    }

    /// `OutputFile.validate` refuses a folder this user cannot write to, in-process.
    /// As a normal user that is a chmod 555 folder; as root (whom permission bits do not
    /// stop) it is the kernel folder the CLI case above uses, if this machine has one.
    @Test func unwritableOutputIsRefusedInProcess() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let folder: String
            if CLI.isRoot {
                guard case .mustNotExist(let path) = CLIErrorCase.unwritableOutputDirectory.output else {
                    Issue.record("unexpected output kind"); return
                }
                folder = (path as NSString).deletingLastPathComponent
                if folder == "/proc" {
                    // Nothing refuses root's access(W_OK) here: validate() passes, the write must fail.
                    #expect(throws: MercurialError.self) { try OutputFile.write([1, 2, 3], to: "/proc/title.png") }
                    return
                }
            } else {
                folder = dir.appendingPathComponent("locked").path
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
                #expect(chmod(folder, 0o555) == 0)
            }
            let path = folder + "/title.png"
            let error = #expect(throws: MercurialError.self) { try OutputFile.validate(path) }
            #expect(error?.message.contains("is not writable") == true, "\(String(describing: error))")
            #expect(throws: MercurialError.self) { try OutputFile.write([1, 2, 3], to: path) }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    private func exists(_ url: URL) -> Bool {
        var st = stat()
        return lstat(url.path, &st) == 0
    }

    private func make(_ setup: [CLIErrorCase.Setup], in dir: URL) throws {
        for step in setup {
            switch step {
            case .text(let name, let text):
                try Data(text.utf8).write(to: dir.appendingPathComponent(name))
            case .bytes(let name, let bytes):
                try Data(bytes).write(to: dir.appendingPathComponent(name))
            case .copy(let name, let source, let count):
                var data = try Data(contentsOf: URL(fileURLWithPath: source))
                if let count { data = data.prefix(count) }
                try data.write(to: dir.appendingPathComponent(name))
            case .directory(let name):
                try FileManager.default.createDirectory(at: dir.appendingPathComponent(name), withIntermediateDirectories: true)
            case .sparse(let name, let size):
                let path = dir.appendingPathComponent(name).path
                #expect(FileManager.default.createFile(atPath: path, contents: nil))
                #expect(truncate(path, off_t(size)) == 0)
            case .chmod(let name, let mode):
                #expect(chmod(dir.appendingPathComponent(name).path, mode) == 0)
            case .fifo(let name):
                #expect(mkfifo(dir.appendingPathComponent(name).path, 0o644) == 0)
            case .symlink(let name, let target):
                #expect(symlink(target, dir.appendingPathComponent(name).path) == 0)
            case .hardLink(let name, let target):
                #expect(link(dir.appendingPathComponent(target).path, dir.appendingPathComponent(name).path) == 0)
            }
        }
    }
}
