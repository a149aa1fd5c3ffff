import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Every title carries its recipe; `inspect` prints it and `render --from` renders it again.
@Suite(.serialized) struct RecipeTests {
    func ok(_ r: CLI.Result, warnings: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.termination == .exit && r.status == 0, "\(r)", sourceLocation: sourceLocation)
        if !warnings { #expect(r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation) }
    }

    @Test func variationsAndFeaturesAreInTheRecipe() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("""
            {"text": "Office 2026", "font": "/usr/share/fonts/truetype/inter-vf/Inter.var.ttf", "size": 60,
             "variations": {"wght": 720, "slnt": -6}, "features": ["zero", "ss01"],
             "textPath": {"type": "arc", "radius": 260, "start": 10}}
            """.utf8).write(to: dir.appendingPathComponent("v.json"))
            ok(try await CLI.run(["render", "--params", "v.json", "-o", "a.png", "-q"], in: dir))
            ok(try await CLI.run(["render", "--from", "a.png", "-o", "b.png", "-q"], in: dir))
            let a = try Data(contentsOf: dir.appendingPathComponent("a.png"))
            #expect(a == (try Data(contentsOf: dir.appendingPathComponent("b.png"))))
            let inspect = try await CLI.run(["inspect", "a.png"], in: dir)
            #expect(inspect.stdout.contains(#""variations": {"wght": 720, "slnt": -6}"#), "\(inspect.stdout)")
            #expect(inspect.stdout.contains(#""features": ["zero", "ss01"]"#), "\(inspect.stdout)")
            #expect(inspect.stdout.contains(#""textPath": {"type": "arc", "radius": 260, "start": 10}"#), "\(inspect.stdout)")
            // Without them the title differs: they are read, not only recorded.
            ok(try await CLI.run(["render", "--from", "a.png", "--set", "variations.wght=400", "-o", "c.png", "-q"], in: dir))
            #expect(a != (try Data(contentsOf: dir.appendingPathComponent("c.png"))))
        }
    }

    @Test func styledRunsFromMarkupAndABatchRenderAgainByteForByte() async throws {
        try await CLI.withTemporaryDirectory { dir in
            ok(try await CLI.run(["render", "--markup", "Gold {material=chrome size=90 baselineShift=20: and chrome}",
                                  "--material", "gold", "-o", "a.png", "-q"], in: dir))
            ok(try await CLI.run(["render", "--from", "a.png", "-o", "b.png", "-q"], in: dir))
            let a = try Data(contentsOf: dir.appendingPathComponent("a.png"))
            #expect(a == (try Data(contentsOf: dir.appendingPathComponent("b.png"))))
            let inspect = try await CLI.run(["inspect", "a.png"], in: dir)
            #expect(inspect.stdout.contains(#""text": [{"text": "Gold "}, {"text": "and chrome", "size": 90, "baselineShift": 20, "shininess": 0.15"#), "\(inspect.stdout)")
            // Without --markup the braces are text.
            ok(try await CLI.run(["render", "a {b}", "-o", "c.png", "-q"], in: dir))
            #expect(try await CLI.run(["inspect", "c.png"], in: dir).stdout.contains(#""text": "a {b}""#))
            // A batch's text column read as markup: the row's runs in the recipe.
            try Data("text,name\n\"Gold {material=chrome: chrome}\",one\nplain,two\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            ok(try await CLI.run(["batch", "t.csv", "--markup", "--material", "gold", "--name", "{name}", "-o", "out", "-q"], in: dir))
            let one = try await CLI.run(["inspect", "out/one.png"], in: dir)
            #expect(one.stdout.contains(#""text": [{"text": "Gold "}, {"text": "chrome", "shininess": 0.15"#), "\(one.stdout)")
            #expect(try await CLI.run(["inspect", "out/two.png"], in: dir).stdout.contains(#""text": "plain""#))
            // Bad markup: one error line, no file.
            let bad = try await CLI.run(["render", "--markup", "a {material=chrome: b", "-o", "d.png"], in: dir)
            #expect(bad.status != 0 && bad.stderr == "error: the markup's run at character 3 is not closed; end it with '}'\n", "\(bad)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("d.png").path))
        }
    }

    @Test func aTitleRendersAgainByteForByteFromItsOwnPNG() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("""
            {"text": "Re\\ncipe \\"quoted\\"", "material": "gold", "size": 70, "background": "#101014",
             "pointLights": [{"x": 40, "y": 30, "color": "orange", "range": 90, "orbit": {"cx": 60, "cy": 40, "r": 20, "period": 3}}],
             "backgroundGradient": {"colors": ["black", "#203040"], "locations": [0, 0.8], "startPoint": [0, 0], "endPoint": [1, 1]},
             "lights": [{"hue": 0.25}], "profile": "round", "letterSpacing": 1.5}
            """.utf8).write(to: dir.appendingPathComponent("s.json"))
            ok(try await CLI.run(["render", "--params", "s.json", "-o", "a.png", "-q"], in: dir))
            ok(try await CLI.run(["render", "--from", "a.png", "-o", "b.png", "-q"], in: dir))
            let a = try Data(contentsOf: dir.appendingPathComponent("a.png"))
            #expect(a == (try Data(contentsOf: dir.appendingPathComponent("b.png"))), "same font, same version: identical bytes")
            // The recipe is a scene file with every parameter, the font's hash and the version.
            let inspect = try await CLI.run(["inspect", "a.png"], in: dir)
            ok(inspect)
            let scene = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
            for row in ParameterGroup.allParameters { #expect(scene.keys.contains(row.key), "\(row.key)") }
            #expect(scene["generator"] as? String == "mercurial \(MercurialVersion.string)")
            #expect((scene["fontSHA256"] as? String)?.count == 64)
            #expect(scene["profile"] as? String == "round" && scene["text"] as? String == "Re\ncipe \"quoted\"")
            // Flags override the recipe.
            ok(try await CLI.run(["render", "--from", "a.png", "--set", "light1.hue=0.6", "-o", "c.png", "-q"], in: dir))
            #expect(a != (try Data(contentsOf: dir.appendingPathComponent("c.png"))))
            // The saved recipe is an ordinary scene file.
            try Data(inspect.stdout.utf8).write(to: dir.appendingPathComponent("again.json"))
            ok(try await CLI.run(["render", "--params", "again.json", "-o", "d.png", "-q"], in: dir))
            #expect(a == (try Data(contentsOf: dir.appendingPathComponent("d.png"))))
        }
    }

    @Test func anAnimationCarriesItsRecipeToo() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(AnimateCommandTests.sweep.utf8).write(to: dir.appendingPathComponent("s.json"))
            let deadline = AnimateCommandTests.deadline
            #expect(try await CLI.run(["animate", "s.json", "-o", "a.png", "-q"], in: dir, timeout: deadline).status == 0)
            let inspect = try await CLI.run(["inspect", "a.png"], in: dir)
            #expect(inspect.status == 0 && inspect.stdout.contains("\"animation\": {\"duration\": 1"), "\(inspect)")
            try Data(inspect.stdout.utf8).write(to: dir.appendingPathComponent("again.json"))
            #expect(try await CLI.run(["animate", "again.json", "-o", "b.png", "-q"], in: dir, timeout: deadline).status == 0)
            #expect(try Data(contentsOf: dir.appendingPathComponent("a.png")) == (try Data(contentsOf: dir.appendingPathComponent("b.png"))),
                    "the recipe renders the same frames")
            #expect(try await CLI.run(["animate", "s.json", "-o", "v.webm", "-q"], in: dir, timeout: deadline).status == 0)
            let tags = try probe(dir.appendingPathComponent("v.webm").path)
            #expect(tags["codec_name"] == "vp9")
        }
    }

    @Test func noMetadataLeavesTheRecipeOut() async throws {
        try await CLI.withTemporaryDirectory { dir in
            ok(try await CLI.run(["render", "Bare", "--size", "40", "--no-metadata", "-o", "bare.png", "-q"], in: dir))
            let bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent("bare.png")))
            #expect(!String(decoding: bytes, as: UTF8.self).contains("iTXt"))
            let r = try await CLI.run(["inspect", "bare.png"], in: dir)
            #expect(r.status == 1 && r.stderr.contains("carries no recipe"), "\(r)")
        }
    }

    @Test func aChangedOrMissingFontIsSaidClearly() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let font = dir.appendingPathComponent("f.otf")
            try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("fonts/dosis-extrabold.otf"), to: font)
            ok(try await CLI.run(["render", "Font", "--size", "40", "--font", "f.otf", "-o", "t.png", "-q"], in: dir))
            // The same path, another font.
            try FileManager.default.removeItem(at: font)
            try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("fonts/display-heavy.otf"), to: font)
            let changed = try await CLI.run(["render", "--from", "t.png", "-o", "u.png", "-q"], in: dir)
            ok(changed, warnings: true)
            #expect(changed.stderrLines.count == 1 && changed.stderr.contains("is not the file this title was made with"), "\(changed)")
            // No font at all.
            try FileManager.default.removeItem(at: font)
            let missing = try await CLI.run(["render", "--from", "t.png", "-o", "v.png", "-q"], in: dir)
            #expect(missing.status == 1 && missing.stderr.hasPrefix("error: ") && missing.stderr.contains("f.otf"), "\(missing)")
        }
    }

    /// The recipe is decoded, not searched for `"fontSHA256": "`: laid out without spaces
    /// (as a JSON tool writes it), a changed font is still said.
    @Test func aCompactRecipesChangedFontIsSaid() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let font = dir.appendingPathComponent("f.otf")
            try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("fonts/dosis-extrabold.otf"), to: font)
            ok(try await CLI.run(["render", "Font", "--size", "40", "--font", "f.otf", "-o", "t.png", "-q"], in: dir))
            let png = Array(try Data(contentsOf: dir.appendingPathComponent("t.png")))
            let recipe = try #require(try SceneRecipe.read(fromPNG: png, name: "t.png"))
            let object = try JSONSerialization.jsonObject(with: Data(recipe.utf8))
            let compact = Array(try JSONSerialization.data(withJSONObject: object))
            #expect(String(decoding: compact, as: UTF8.self).contains(#""fontSHA256":""#))
            try Data(Self.withUncompressedRecipe(compact, in: png)).write(to: dir.appendingPathComponent("compact.png"))
            try FileManager.default.removeItem(at: font)
            try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("fonts/display-heavy.otf"), to: font)
            let changed = try await CLI.run(["render", "--from", "compact.png", "-o", "u.png", "-q"], in: dir)
            ok(changed, warnings: true)
            #expect(changed.stderrLines.count == 1 && changed.stderr.contains("is not the file this title was made with"), "\(changed)")
        }
    }

    /// `png` with its recipe chunk replaced by an uncompressed one holding `text`
    /// (the CRC is left zero: the reader does not check it).
    static func withUncompressedRecipe(_ text: [UInt8], in png: [UInt8]) -> [UInt8] {
        var out = Array(png[0..<8])
        var i = 8
        while i + 12 <= png.count {
            let length = png[i..<i + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[i + 4..<i + 8], as: UTF8.self)
            if type != "iTXt" { out += png[i..<i + 12 + length] }
            if type == "IHDR" {
                let body = Array(SceneRecipe.keyword.utf8) + [0, 0, 0, 0, 0] + text
                let n = UInt32(body.count)
                out += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array("iTXt".utf8) + body + [0, 0, 0, 0]
            }
            i += 12 + length
        }
        return out
    }

    @Test func inspectPrintsARecipesControlCharactersAsEscapes() async throws {
        try await CLI.withTemporaryDirectory { dir in
            ok(try await CLI.run(["render", "Esc", "--size", "30", "-o", "t.png", "-q"], in: dir))
            let png = [UInt8](try Data(contentsOf: dir.appendingPathComponent("t.png")))
            // OSC 52 (clipboard), a window title, clear screen, a C1 CSI and a bidi override.
            let text = "\u{1B}]52;c;aGVsbG8=\u{07}\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m\u{202E}"
            let recipe = Array("{\"text\": \"\(text)\", \"size\": 30}\n".utf8)
            try Data(Self.withUncompressedRecipe(recipe, in: png)).write(to: dir.appendingPathComponent("hostile.png"))
            let r = try await CLI.run(["inspect", "hostile.png"], in: dir)
            ok(r)
            #expect(!r.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E },
                    "no control character reaches the terminal: \(r.stdout.debugDescription)")
            // Still the same JSON: the escapes mean the same characters.
            let scene = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            #expect(scene["text"] as? String == text)
        }
    }

    @Test func aHugeUncompressedRecipeIsRefusedWithoutReadingIt() async throws {
        try await CLI.withTemporaryDirectory { dir in
            ok(try await CLI.run(["render", "Big", "--size", "30", "-o", "t.png", "-q"], in: dir))
            let png = [UInt8](try Data(contentsOf: dir.appendingPathComponent("t.png")))
            let recipe = Array("{\"text\": \"".utf8) + [UInt8](repeating: 65, count: 8 << 20) + Array("\"}".utf8)
            try Data(Self.withUncompressedRecipe(recipe, in: png)).write(to: dir.appendingPathComponent("big.png"))
            for arguments in [["inspect", "big.png"], ["render", "--from", "big.png", "-o", "again.png"]] {
                let r = try await CLI.run(arguments, in: dir)
                #expect(r.status == MercurialError.Kind.limit.exitStatus && r.stdout.isEmpty && r.stderrLines.count == 1
                        && r.stderr.hasPrefix("error: ") && r.stderr.contains("over the limit of 1024 KB"), "\(arguments): \(r)")
            }
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("again.png").path))
            // A recipe under the cap, uncompressed, still reads.
            let small = Array("{\"text\": \"Small\", \"size\": 30}".utf8)
            try Data(Self.withUncompressedRecipe(small, in: png)).write(to: dir.appendingPathComponent("small.png"))
            ok(try await CLI.run(["render", "--from", "small.png", "-o", "again.png", "-q"], in: dir))
        }
    }

    @Test func renderFromWithoutAnOutputWritesBesideTheTitle() async throws {
        try await CLI.withTemporaryDirectory { dir in
            ok(try await CLI.run(["render", "Again", "--size", "30", "-q"], in: dir))
            let original = try Data(contentsOf: dir.appendingPathComponent("title.png"))
            // The README's command: no -o.
            let first = try await CLI.run(["render", "--from", "title.png", "--set", "light1.hue=0.6"], in: dir)
            ok(first)
            #expect(first.stdout.hasPrefix("title-1.png "), "\(first)")
            ok(try await CLI.run(["render", "--from", "title.png", "-q"], in: dir))
            #expect(try Data(contentsOf: dir.appendingPathComponent("title.png")) == original, "the title is never overwritten")
            let second = try Data(contentsOf: dir.appendingPathComponent("title-2.png"))
            #expect(second == original, "the same recipe renders the same bytes")
            #expect(try Data(contentsOf: dir.appendingPathComponent("title-1.png")) != original)
        }
    }

    @Test func aRecipeNamingAFileThatIsNoMaterialQuotesNoneOfIt() async throws {
        try await CLI.withTemporaryDirectory { dir in
            ok(try await CLI.run(["render", "Key", "--size", "30", "-o", "t.png", "-q"], in: dir))
            let png = [UInt8](try Data(contentsOf: dir.appendingPathComponent("t.png")))
            let secret = dir.appendingPathComponent("id_key")
            try Data("SECRETWORD=hunter2\n".utf8).write(to: secret)
            let recipe = Array("{\"text\": \"Key\", \"material\": \"\(secret.path)\"}".utf8)
            try Data(Self.withUncompressedRecipe(recipe, in: png)).write(to: dir.appendingPathComponent("sent.png"))
            let r = try await CLI.run(["render", "--from", "sent.png", "-o", "again.png"], in: dir)
            #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("this material is not valid JSON"), "\(r)")
            #expect(!r.stderr.contains("SECRET") && !r.stderr.contains("hunter"), "the file's words reached the screen: \(r)")
        }
    }

    /// Issue 31, item 9: a title's recipe listing one 5 MB font 150 ways (`fonts/././big.ttf`)
    /// and a character no face has loaded it 150 times: `render --from` peaked at 784 MB
    /// (300 ways: 1.57 GB, 11.5 s). The file is read and hashed once.
    @Test func aRecipeSpellingOneFallbackFontManyWaysReadsItOnce() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let fonts = dir.appendingPathComponent("fonts")
            try FileManager.default.createDirectory(at: fonts, withIntermediateDirectories: true)
            var big = try Data(contentsOf: CLI.packageRoot.appendingPathComponent("fonts/serif-bold.ttf"))
            big.append(Data(count: (5 << 20) - big.count))
            try big.write(to: fonts.appendingPathComponent("big.ttf"))
            let hash = try SceneRecipe.fileSHA256(fonts.appendingPathComponent("big.ttf").path)
            ok(try await CLI.run(["render", "Hi", "--size", "30", "-o", "t.png", "-q"], in: dir))
            let png = [UInt8](try Data(contentsOf: dir.appendingPathComponent("t.png")))
            let listed = (1...150).map { #"{"name": "Big", "file": "fonts/\#(String(repeating: "./", count: $0))big.ttf", "index": 0, "sha256": "\#(hash)"}"# }
            let recipe = Array(#"{"text": "Hi \#u{10FFFD}", "size": 30, "fontSHA256": "\#(try SceneRecipe.fontSHA256("rounded"))", "fallbackFonts": [\#(listed.joined(separator: ", "))]}"#.utf8)
            try Data(Self.withUncompressedRecipe(recipe, in: png)).write(to: dir.appendingPathComponent("crafted.png"))
            let r = try await CLI.shell("/usr/bin/time -f 'peak %M' \"$M\" render --from crafted.png -o again.png -q", in: dir, timeout: .seconds(60))
            #expect(r.status == 0, "\(r)")
            // The character's warning, then time's line.
            #expect(r.stderrLines.count == 2 && r.stderr.contains("U+10FFFD"), "\(r)")
            let peak = r.stderrLines.last.flatMap { $0.hasPrefix("peak ") ? Int($0.dropFirst(5)) : nil } ?? .max
            #expect(peak < 150 * 1024, "peak \(peak) KB")
        }
    }

    /// Issue 31: a recipe listing 300 fallback fonts that are gone warned 300 times; now once, with the count and the first.
    @Test func manyMissingFallbackFontsAreOneWarningOfEachKind() async throws {
        try await CLI.withTemporaryDirectory { dir in
            ok(try await CLI.run(["render", "Hi", "--size", "30", "-o", "t.png", "-q"], in: dir))
            let png = [UInt8](try Data(contentsOf: dir.appendingPathComponent("t.png")))
            let listed = (1...300).map { #"{"name": "Gone", "file": "gone\#($0).ttf", "index": 0, "sha256": "00"}"# }
            let recipe = Array(#"{"text": "Hi Привет", "size": 30, "fontSHA256": "\#(try SceneRecipe.fontSHA256("rounded"))", "fallbackFonts": [\#(listed.joined(separator: ", "))]}"#.utf8)
            try Data(Self.withUncompressedRecipe(recipe, in: png)).write(to: dir.appendingPathComponent("crafted.png"))
            let r = try await CLI.run(["render", "--from", "crafted.png", "-o", "again.png", "-q"], in: dir)
            #expect(r.status == 0, "\(r)")
            #expect(r.stderrLines == [
                "warning: 300 of the recipe's fallback fonts are missing or not the files this title was made with (the first 'gone1.ttf' (Gone)), so the title may look different",
                "warning: 300 of the recipe's fallback faces (the first 'gone1.ttf') could not be read, so they draw nothing here; check them with 'fc-query'",
            ], "\(r)")
        }
    }

    @Test func fontHashesKeptForALongRunStayBounded() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mercurial-hashes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let font = CLI.packageRoot.appendingPathComponent("fonts/serif-bold.ttf")
        let expected = try SceneRecipe.fontSHA256(font.path)
        for i in 0..<150 {
            let copy = folder.appendingPathComponent("f\(i).ttf")
            try FileManager.default.copyItem(at: font, to: copy)
            #expect(try SceneRecipe.fontSHA256(copy.path) == expected)
        }
        #expect(SceneRecipe.keptHashCount <= 64, "\(SceneRecipe.keptHashCount) hashes kept")
    }
}
