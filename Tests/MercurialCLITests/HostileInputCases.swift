import Foundation
@testable import MercurialKit
import MercurialTestSupport

/// Rows of the bad-input table for the hostile inputs of issue 10.
extension CLIErrorCase {
    /// A PNG (1×1, valid CRCs up to there) whose chunk `type` claims `length`
    /// bytes it does not have: what libpng would allocate before noticing.
    static func pngClaiming(_ type: String, length: UInt32) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        return Array(pngHeader(width: 1, height: 1)[..<33]) + be(length) + Array(type.utf8) + [0, 0, 0]
    }

    /// A scene `s.json` setting `key` to `value` (JSON string syntax, so it may hold escapes).
    static func scene(_ key: String, _ value: String, text: Bool = true) -> Setup {
        .text("s.json", "{\(text ? "\"text\": \"Hi\", " : "")\"\(key)\": \"\(value)\"}")
    }

    static let hostile: [CLIErrorCase] = nulInPaths + nonRegularInputs + chunkBombs + badOutputs
        + outputIsInput + argumentFloods + terminalEscapes + honestLimits

    /// Class 12: a NUL in a path is refused, not cut.
    static let nulInPaths: [CLIErrorCase] = ["mask", "shadingImage", "font", "material"].map { key in
        CLIErrorCase(name: "NUL inside a scene's \(key) path", arguments: ["render", "--params", "s.json"],
                     setup: [.copy("disc.png", from: CLI.fixturePath("gray8.png")),
                             scene(key, #"disc.png\u0000.evil"#, text: key != "mask")],
                     fragments: ["s.json:1:", "\"\(key)\" path", #"disc.png\u{0}.evil"#, "contains a NUL byte"])
    }

    /// Class 2: a FIFO, device or loop as any input answers at once.
    static let nonRegularInputs: [CLIErrorCase] = [
        ("--mask", "mask"), ("--shading-image", "shading image"), ("--params", "scene file"),
        ("--font", "font"), ("--material", "material"),
    ].map { option, role in
        CLIErrorCase(name: "FIFO as \(option)", arguments: ["render"] + (option == "--mask" ? [] : ["Hi"]) + [option, "p.json"],
                     setup: [.fifo("p.json")], fragments: ["\(role) 'p.json' is a named pipe (FIFO)"])
    } + [
        CLIErrorCase(name: "FIFO without an extension as --material", arguments: ["render", "Hi", "--material", "pipe"],
                     setup: [.fifo("pipe")], fragments: ["material './pipe' is a named pipe"]),
        CLIErrorCase(name: "FIFO named by a scene's mask", arguments: ["render", "--params", "s.json"],
                     setup: [.fifo("p.png"), scene("mask", "p.png", text: false)], fragments: ["mask 'p.png' is a named pipe"]),
        CLIErrorCase(name: "FIFO named by a scene's font", arguments: ["render", "--params", "s.json"],
                     setup: [.fifo("p.ttf"), scene("font", "p.ttf")], fragments: ["font 'p.ttf' is a named pipe"]),
        CLIErrorCase(name: "FIFO named by a scene's material", arguments: ["render", "--params", "s.json"],
                     setup: [.fifo("m.json"), scene("material", "m.json")], fragments: ["material 'm.json' is a named pipe"]),
        CLIErrorCase(name: "symlink to a FIFO as --mask", arguments: ["render", "--mask", "link.png"],
                     setup: [.fifo("p"), .symlink("link.png", to: "p")], fragments: ["mask 'link.png' is a named pipe"]),
        CLIErrorCase(name: "/dev/zero as --mask (endless)", arguments: ["render", "--mask", "/dev/zero"],
                     fragments: ["mask '/dev/zero' is a character device"]),
        CLIErrorCase(name: "/dev/zero as --font", arguments: ["render", "Hi", "--font", "/dev/zero"],
                     fragments: ["font '/dev/zero' is a character device"]),
        CLIErrorCase(name: "FIFO as the watched scene", arguments: ["watch", "p.json"],
                     setup: [.fifo("p.json")], fragments: ["scene file 'p.json' is a named pipe"]),
        CLIErrorCase(name: "symlink loop as --mask", arguments: ["render", "--mask", "l1"],
                     setup: [.symlink("l1", to: "l2"), .symlink("l2", to: "l1")],
                     fragments: ["mask 'l1' is a loop of symbolic links"]),
    ]

    /// Class 4: ancillary chunks claiming 2 GB cost nothing.
    static let chunkBombs: [CLIErrorCase] = ["tEXt", "zTXt", "iTXt", "sPLT", "iCCP", "zzZz"].map { type in
        CLIErrorCase(name: "mask PNG whose \(type) claims 2 GB", arguments: ["render", "--mask", "bomb.png"],
                     setup: [.bytes("bomb.png", pngClaiming(type, length: 0x7FFF_FFF0))],
                     fragments: ["mask 'bomb.png' is truncated or damaged", "'\(type)' chunk claims 2147483632 bytes"])
    } + [
        // An interlaced PNG is decoded whole: a 13 KB 1-bit 4096² one would take 64 MB, a 16384² one 1 GB and more.
        CLIErrorCase(name: "a large interlaced mask", arguments: ["render", "--mask", "i.png"],
                     setup: [.copy("i.png", from: CLI.fixturePath("interlaced-4096.png"))],
                     status: .limit, fragments: ["mask 'i.png' is an interlaced PNG of 4096×4096 pixels", "at most 8 M pixels", "-interlace none"]),
        CLIErrorCase(name: "a large interlaced shading image", arguments: ["render", "Hi", "--shading-image", "i.png"],
                     setup: [.copy("i.png", from: CLI.fixturePath("interlaced-4096.png"))],
                     status: .limit, fragments: ["shading image 'i.png' is an interlaced PNG of 4096×4096 pixels"]),
        CLIErrorCase(name: "shading image whose zTXt claims 2 GB", arguments: ["render", "Hi", "--shading-image", "bomb.png"],
                     setup: [.bytes("bomb.png", pngClaiming("zTXt", length: 0x7FFF_FFF0))],
                     fragments: ["shading image 'bomb.png' is truncated or damaged"]),
        CLIErrorCase(name: "mask PNG whose chunk length has the top bit set", arguments: ["render", "--mask", "bomb.png"],
                     setup: [.bytes("bomb.png", pngClaiming("iTXt", length: 0xFFFF_FFFF))],
                     fragments: ["mask 'bomb.png' is truncated or damaged"]),
    ]

    /// Class 3: outputs that cannot take a PNG.
    static let badOutputs: [CLIErrorCase] = [
        CLIErrorCase(name: "-o /dev/full", arguments: ["render", "Hi", "-o", "/dev/full"],
                     status: .resource, fragments: ["cannot write '/dev/full': no space left"], output: .none),
        CLIErrorCase(name: "shading -o /dev/full", arguments: ["shading", "--size", "8", "-o", "/dev/full"],
                     status: .resource, fragments: ["no space left"], output: .none),
        CLIErrorCase(name: "-o a FIFO nobody reads", arguments: ["render", "Hi", "-o", "p"],
                     setup: [.fifo("p")], fragments: ["output 'p' is a named pipe (FIFO) that nobody reads"], output: .none),
        CLIErrorCase(name: "-o a symlink loop", arguments: ["render", "Hi", "-o", "l1"],
                     setup: [.symlink("l1", to: "l2"), .symlink("l2", to: "l1")],
                     fragments: ["output 'l1' is a loop of symbolic links"], output: .none),
        CLIErrorCase(name: "-o a dangling symlink into a missing folder", arguments: ["render", "Hi", "-o", "l.png"],
                     setup: [.symlink("l.png", to: "gone/t.png")],
                     fragments: ["output directory 'gone' does not exist"], output: .mustNotExist("gone")),
        CLIErrorCase(name: "-o a 256-byte name", arguments: ["render", "Hi", "-o", String(repeating: "n", count: 252) + ".png"],
                     fragments: ["is 256 bytes, over this file system's limit of 255"], output: .none),
        CLIErrorCase(name: "-o a missing folder with a trailing slash", arguments: ["render", "Hi", "-o", "newdir/"],
                     fragments: ["'newdir/'"], output: .mustNotExist("newdir")),
        CLIErrorCase(name: "-o an escape sequence in a missing folder", arguments: ["render", "Hi", "-o", "no\u{1B}[2Jdir/t.png"],
                     fragments: [#"output directory 'no\u{1B}[2Jdir' does not exist"#], output: .none),
    ]

    /// Classes 8 and 9: the output may not be an input, however it is spelled.
    static let outputIsInput: [CLIErrorCase] = {
        let scene = Setup.text("s.json", #"{"text": "Hi"}"#)
        let mask = Setup.copy("m.png", from: CLI.fixturePath("gray8.png"))
        return [
            CLIErrorCase(name: "-o the --params scene", arguments: ["render", "--params", "s.json", "-o", "s.json"],
                         setup: [scene], fragments: ["the output 's.json' is the scene file 's.json'"], output: .unchanged("s.json")),
            CLIErrorCase(name: "-o the --font", arguments: ["render", "Hi", "--font", "f.otf", "-o", "f.otf"],
                         setup: [.copy("f.otf", from: roundedFont)], fragments: ["is the font 'f.otf'"], output: .unchanged("f.otf")),
            CLIErrorCase(name: "-o the --mask", arguments: ["render", "--mask", "m.png", "-o", "m.png"],
                         setup: [mask], fragments: ["is the mask 'm.png'"], output: .unchanged("m.png")),
            CLIErrorCase(name: "-o the --shading-image", arguments: ["render", "Hi", "--shading-image", "m.png", "-o", "m.png"],
                         setup: [mask], fragments: ["is the shading image 'm.png'"], output: .unchanged("m.png")),
            CLIErrorCase(name: "-o the --material file", arguments: ["render", "Hi", "--material", "mat.json", "-o", "mat.json"],
                         setup: [.text("mat.json", #"{"shininess": 0.1}"#)], fragments: ["is the material 'mat.json'"],
                         output: .unchanged("mat.json")),
            CLIErrorCase(name: "-o the scene's mask, spelled differently", arguments: ["render", "--params", "s.json", "-o", "./sub/../m.png"],
                         setup: [mask, .directory("sub"), .text("s.json", #"{"mask": "m.png"}"#)],
                         fragments: ["is the mask 'm.png'"], output: .unchanged("m.png")),
            CLIErrorCase(name: "-o a symlink to the mask", arguments: ["render", "--mask", "m.png", "-o", "link.png"],
                         setup: [mask, .symlink("link.png", to: "m.png")], fragments: ["is the mask 'm.png'"],
                         output: .unchanged("m.png")),
            CLIErrorCase(name: "-o a hard link to the mask", arguments: ["render", "--mask", "m.png", "-o", "hard.png"],
                         setup: [mask, .hardLink("hard.png", to: "m.png")], fragments: ["is the mask 'm.png'"],
                         output: .unchanged("m.png")),
            CLIErrorCase(name: "-o the scene's material, in another folder",
                         arguments: ["render", "--params", "sub/s.json", "-o", "sub/mat.json"],
                         setup: [.directory("sub"), .text("sub/mat.json", #"{"shininess": 0.1}"#),
                                 .text("sub/s.json", #"{"text": "Hi", "material": "mat.json"}"#)],
                         fragments: ["is the material 'sub/mat.json'"], output: .unchanged("sub/mat.json")),
            CLIErrorCase(name: "shading -o the --params scene", arguments: ["shading", "--params", "s.json", "-o", "s.json"],
                         setup: [scene], fragments: ["is the scene file 's.json'"], output: .unchanged("s.json")),
            CLIErrorCase(name: "watch -o the scene", arguments: ["watch", "s.json", "-o", "s.json"],
                         setup: [scene], fragments: ["is the scene file 's.json'"], output: .unchanged("s.json")),
            CLIErrorCase(name: "watch -o the scene's mask (feedback loop)", arguments: ["watch", "s.json", "-o", "logo.png"],
                         setup: [.copy("logo.png", from: CLI.fixturePath("gray8.png")), .text("s.json", #"{"mask": "logo.png"}"#)],
                         fragments: ["is the mask 'logo.png'"], output: .unchanged("logo.png")),
        ]
    }()

    /// Class 11: a flood of options is refused at once.
    static let argumentFloods: [CLIErrorCase] = [
        CLIErrorCase(name: "16000 --set options",
                     arguments: ["render", "Hi"] + Array(repeating: ["--set", "light1.hue=0.5"], count: 16_000).flatMap { $0 },
                     status: .limit, fragments: ["command-line arguments, over the limit of 512", "--params"]),
        CLIErrorCase(name: "8000 --radius options",
                     arguments: ["render", "Hi"] + Array(repeating: ["--radius", "5"], count: 8000).flatMap { $0 },
                     status: .limit, fragments: ["over the limit of 512"]),
    ]

    /// Class 13: what is echoed from input cannot steer the terminal (every row also
    /// checks that stderr holds no control character).
    static let terminalEscapes: [CLIErrorCase] = [
        CLIErrorCase(name: "scene key with terminal escapes", arguments: ["render", "Hi", "--params", "s.json"],
                     setup: [.text("s.json", #"{"\u001b]0;PWNED\u0007\u001b[2J": 1}"#)],
                     fragments: [#"unknown key "\u{1B}]0;PWNED\u{7}\u{1B}[2J""#]),
        CLIErrorCase(name: "font name with a carriage return", arguments: ["render", "Hi", "--font", "No\rSuch"],
                     fragments: [#"unknown font 'No\rSuch'"#]),
        CLIErrorCase(name: "material name with escapes and a bidi override",
                     arguments: ["render", "Hi", "--material", "x\u{1B}[31m\u{202E}y"],
                     fragments: [#"unknown material 'x\u{1B}[31m\u{202E}y'"#]),
        CLIErrorCase(name: "scene string with C1 controls", arguments: ["render", "Hi", "--params", "s.json"],
                     setup: [.text("s.json", "{\"align\": \"\u{9B}2J\u{85}\"}")], fragments: [#"\u{9B}2J\u{85}"#]),
        CLIErrorCase(name: "missing mask with a newline in its name", arguments: ["render", "--mask", "a\nb.png"],
                     fragments: [#"mask 'a\nb.png' does not exist"#]),
        CLIErrorCase(name: "non-JSON scene: only a short token is quoted", arguments: ["render", "Hi", "--params", "s.json"],
                     setup: [.text("s.json", String(repeating: "word", count: 5000))],
                     fragments: ["s.json:1:1:", "unexpected word 'wordwordwordwordword…'"]),
    ]

    /// Smaller: limits that say what they are.
    static let honestLimits: [CLIErrorCase] = {
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"
        return [
            CLIErrorCase(name: "an hour of physics for 36 glyphs at 2000 steps a second (issue 19, item 16)",
                         arguments: ["animate", "s.json", "-o", "out.png"],
                         setup: [.text("s.json", "{\"text\": \"Mercurial Mercurial Mercurial Mercurial\", \"animation\": {\"duration\": 3600, \"fps\": 1}, \"dynamics\": {\"stepsPerSecond\": 2000}}")],
                         status: .limit, fragments: ["\"dynamics\" would take at least 259200000 body-steps", "over the physics budget of 100000000",
                                     "a lower \"stepsPerSecond\" or a shorter \"duration\""]),
            CLIErrorCase(name: "3000 emoji ZWJ sequences (a byte limit, named as such)",
                         arguments: ["render", String(repeating: family, count: 3000)],
                         fragments: ["3000 characters but 75000 bytes of UTF-8, over the limit of 40000 bytes"]),
            CLIErrorCase(name: "scene text of 3000 emoji ZWJ sequences", arguments: ["render", "--params", "s.json"],
                         setup: [.text("s.json", "{\"text\": \"" + String(repeating: family, count: 3000) + "\"}")],
                         fragments: ["s.json:1:10:", "bytes of UTF-8, over the limit of 40000 bytes"]),
            CLIErrorCase(name: "--width alone, too small for the margin", arguments: ["render", "Hi", "--width", "1"],
                         fragments: ["--width 1 leaves no room for the text inside the margin of 14 px"]),
            CLIErrorCase(name: "--height alone, too small for a wide radius",
                         arguments: ["render", "Hi", "--height", "100", "--radius", "60"],
                         fragments: ["--height 100 leaves no room", "margin of 64 px"]),
            // Maps are made in memory: a 16K² normal map took 34 s and 1.9 GB.
            CLIErrorCase(name: "maps of a region over 16 M pixels",
                         arguments: ["render", "WW", "--size", "6000", "--width", "16384", "--height", "16384",
                                     "--emit", "color,normal"],
                         status: .limit, fragments: ["maps are made in memory", "region (the ink and its margin) is 11152×4246"]),
            CLIErrorCase(name: "maps of a 5000×4000 mask", arguments: ["render", "--mask", "w.png", "--emit", "height"],
                         setup: [.copy("w.png", from: CLI.fixturePath("white-5000x4000.png"))],
                         status: .limit, fragments: ["at most 16 M pixels", "mask 'w.png' is 5000×4000"]),
            // Class 5: one 10900-unit glyph at unitsPerEm 16 (16350 px at 24 px) took 31 s and 4.3 GB.
            CLIErrorCase(name: "a font whose glyph is 681 em tall", arguments: ["render", "A", "--size", "24", "--font", "big.ttf"],
                         setup: [.copy("big.ttf", from: CLI.fixturePath("huge-glyph.ttf"))],
                         fragments: ["font 'big.ttf' draws glyph", "16350×16350 px at 24 px", "over 16 times the size"]),
            CLIErrorCase(name: "a scene whose font has a 681 em glyph", arguments: ["render", "--params", "s.json", "--size", "300"],
                         setup: [.copy("big.ttf", from: CLI.fixturePath("huge-glyph.ttf")),
                                 .text("s.json", #"{"text": "AAA", "font": "big.ttf"}"#)],
                         fragments: ["font 'big.ttf' draws glyph", "over 16 times the size"]),
        ]
    }()
}
