import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// A character the chosen face lacks is drawn from the installed face fontconfig chooses.
@Suite struct FontFallbackTests {
    /// Latin (the bundled face), Cyrillic, Greek, Devanagari, and an emoji where an
    /// installed face has one (fonts-noto-core, fonts-lohit-deva, DejaVu or Symbola).
    static let words = ["Flex", "Привет", "Ελλάδα", "नमस्ते", "😀"]

    static func mixedWords() -> [String] {
        let rounded = try? FontFace(path: bundledFont("rounded"))
        return words.filter { word in
            word.unicodeScalars.allSatisfy { scalar in
                rounded?.covers([scalar]) == true || !FontFallback.candidates(for: scalar, like: (try? bundledFont("rounded")) ?? "").isEmpty
            }
        }
    }

    @Test func mixedScriptTitleHasNoHole() throws {
        let words = Self.mixedWords()
        #expect(words.count >= 4, "fonts-noto-core and fonts-lohit-deva are installed by scripts/install-deps.sh --test")
        let placement = try TextMask.place(try layout(words.joined(separator: " "), size: 80), margin: 4)
        #expect(placement.run.missing.isEmpty, "blank: \(placement.run.missing)")
        #expect(placement.warnings.isEmpty, "\(placement.warnings)")
        // Every word draws ink.
        for index in words.indices {
            let inked = placement.run.bitmaps.filter { $0.word == index && $0.coverage.contains { $0 > 0 } }
            #expect(!inked.isEmpty, "word \(index) '\(words[index])' is blank")
        }
        #expect(!placement.fallbackFonts.isEmpty)
    }

    @Test func eachRunIsInAFaceThatHasItsCharacters() throws {
        let fonts = FontSet(primary: try FontFace(path: try bundledFont("rounded")), fallback: true)
        for word in Self.mixedWords() {
            let runs = fonts.runs(word)
            #expect(runs.count == 1, "'\(word)' is one run: \(runs)")
            let face = fonts.faces[runs[0].face]
            #expect(face.covers(word.unicodeScalars), "'\(word)' in \(face.path)")
            // Latin stays in the chosen face; the other scripts come from another.
            #expect((runs[0].face == 0) == (word == "Flex"), "'\(word)' in \(face.path)")
        }
    }

    @Test func withoutFallbackTheCharactersAreNamedAndLeftBlank() throws {
        var l = try layout("Hi Привет", size: 60)
        l.fallback = false
        let result = try TextMask.render(l, margin: 4)
        let message = try #require(result.warnings.first?.message)
        #expect(message.contains("U+041F") && message.contains("left blank"), "\(message)")
        #expect(result.fallbackFonts.isEmpty)
    }

    @Test func aCharacterNoInstalledFaceHasIsNamed() throws {
        // U+10FFFD, a private-use character: no installed face draws it.
        let result = try TextMask.render(try layout("Hi \u{10FFFD}", size: 60), margin: 4)
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.message.contains("U+10FFFD") == true, "\(result.warnings)")
        #expect(throws: MercurialError.self) { try TextMask.render(try layout("\u{10FFFD}\u{10FFFD}", size: 60), margin: 4) }
    }

    @Test func anUnreadableFallbackFaceIsSkippedWithAWarning() throws {
        let junk = FileManager.default.temporaryDirectory.appendingPathComponent("fallback-\(UUID().uuidString).ttf")
        try Data("not a font".utf8).write(to: junk)
        defer { try? FileManager.default.removeItem(at: junk) }
        var l = try layout("Hi Привет", size: 60)
        l.fallbackFonts = [FallbackFont(name: "Junk", file: junk.path, index: 0, sha256: "")]
        let result = try TextMask.render(l, margin: 4)
        #expect(result.warnings.count == 1 && result.warnings[0].message.contains("could not be read"), "\(result.warnings)")
        // Said to be what it is: the recipe's face, not an installed font.
        #expect(result.warnings.first?.message.hasPrefix("the recipe's fallback face '") == true, "\(result.warnings)")
        #expect(!result.fallbackFonts.isEmpty && !result.fallbackFonts.contains(junk.path))
    }

    /// Issue 31: 4,096 unreadable faces a recipe lists printed 4,096 lines; now one, with the count and the first.
    @Test func manyUnreadableFallbackFacesAreOneWarning() throws {
        let folder = try temporaryFolder("junk")
        defer { try? FileManager.default.removeItem(at: folder) }
        var listed: [FallbackFont] = []
        for i in 0..<20 {
            let junk = folder.appendingPathComponent("junk\(i).ttf")
            try Data("not a font \(i)".utf8).write(to: junk)
            listed.append(FallbackFont(name: "Junk", file: junk.path, index: 0, sha256: ""))
        }
        for i in listed.count..<FontFallback.cacheLimit {
            listed.append(FallbackFont(name: "Gone", file: folder.appendingPathComponent("gone\(i).ttf").path, index: 0, sha256: ""))
        }
        var l = try layout("Hi Привет", size: 30)
        l.fallbackFonts = listed
        let result = try TextMask.render(l, margin: 4)
        #expect(result.warnings.map(\.message) == ["4096 of the recipe's fallback faces (the first '\(UserPath(checked: listed[0].file))') could not be read, so they draw nothing here; check them with 'fc-query'"])
        #expect(!result.fallbackFonts.isEmpty, "the Cyrillic still comes from an installed face")
    }

    /// Issue 31, item 8: a text of characters no installed face has sorted every installed
    /// face once per character (10,000 of them: 6.4–9.3 s); now each is looked up in the
    /// installed faces' charsets, and only the faces that have a character are sorted.
    @Test func uncoveredCharactersDoNotSortTheInstalledFacesEach() throws {
        // Plane 15's private use: no installed face has these, and no other test asks about them.
        let text = "Hi " + String(String.UnicodeScalarView((0xF2000..<0xF2000 + 300).compactMap(Unicode.Scalar.init)))
        let sorted = FontFallback.sorts
        let result = try TextMask.render(try layout(text, size: 20), margin: 2)
        #expect(result.warnings.first?.message.contains("U+F2000") == true, "\(result.warnings.map(\.message))")
        // Other tests meanwhile sort for their own fonts' weights and slants: a few, never one per character.
        #expect(FontFallback.sorts - sorted < 20, "fontconfig sorted \(FontFallback.sorts - sorted) times for 300 characters")
    }

    /// Issue 31, item 9: a recipe listing one font file 150 ways (`dir/././f.ttf`) loaded
    /// it 150 times (a 5 MB font: 784 MB). A file is opened once however it is spelled.
    @Test func aFallbackFileIsOpenedOnceHoweverItIsSpelled() throws {
        let folder = try temporaryFolder("spelled")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(atPath: try bundledFont("serif"), toPath: folder.appendingPathComponent("f.ttf").path)
        let spellings = (0..<150).map {
            FallbackFont(name: "F", file: folder.path + String(repeating: "/.", count: $0) + "/f.ttf", index: 0, sha256: "")
        }
        let fonts = FontSet(primary: try FontFace(path: try bundledFont("rounded")), fallback: true, preferred: spellings)
        // A character no face has: every listed face is tried.
        _ = fonts.runs("Hi \u{10FFFD}")
        #expect(fonts.faces.count == 2, "\(fonts.faces.count - 1) fallback faces open for one file")
        #expect(fonts.warnings.isEmpty, "\(fonts.warnings)")
    }

    /// Issue 31, item 9: the font files one render's fallback faces load are held to a budget;
    /// a face past it is not loaded, with one warning.
    @Test func fallbackFacesPastTheByteBudgetAreNotLoaded() throws {
        let folder = try temporaryFolder("budget")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Four fonts of 1 MB each (the serif, padded: FreeType reads the tables it points to).
        var font = try Data(contentsOf: URL(fileURLWithPath: try bundledFont("serif")))
        font.append(Data(count: (1 << 20) - font.count))
        var listed: [FallbackFont] = []
        for name in ["a", "b", "c", "d"] {
            let copy = folder.appendingPathComponent("\(name).ttf")
            try font.write(to: copy)
            listed.append(FallbackFont(name: "F", file: copy.path, index: 0, sha256: ""))
        }
        let fonts = FontSet(primary: try FontFace(path: try bundledFont("rounded")), fallback: true, preferred: listed,
                            byteBudget: 5 << 19)
        _ = fonts.runs("Hi \u{10FFFD}")
        #expect(fonts.faces.map(\.path) == [try bundledFont("rounded"), listed[0].file, listed[1].file])
        #expect(fonts.warnings.map(\.message) == ["2 of the recipe's fallback faces (the first '\(UserPath(checked: listed[2].file))') were not loaded, as the title's fallback faces reached the limit of 2.5 MB of font files, so they draw nothing here; list fewer fallback fonts in the recipe"])
    }

    func temporaryFolder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func lookupsAreCached() throws {
        let path = try bundledFont("rounded")
        for scalar in "Привет".unicodeScalars { _ = FontFallback.candidates(for: scalar, like: path) }
        let asked = FontFallback.sorts
        for _ in 0..<100 { _ = try TextMask.render(try layout("Привет", size: 20), margin: 2) }
        // Other tests may ask about other characters meanwhile, never 100 times over.
        #expect(FontFallback.sorts - asked < 50, "fontconfig sorted \(FontFallback.sorts - asked) times")
        #expect(FontFallback.cachedAnswers <= FontFallback.cacheLimit)
    }

    @Test func aFontFileIsReadOncePerProcessUntilItChanges() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("bytes-\(UUID().uuidString).ttf")
        try FileManager.default.copyItem(atPath: try bundledFont("rounded"), toPath: copy.path)
        defer { try? FileManager.default.removeItem(at: copy) }
        let first = try FontBytes.read(copy.path)
        #expect(try FontBytes.read(copy.path) === first)
        // Changed in place (another size): read again.
        try Data(try FontBytes.read(bundledFont("serif")).buffer).write(to: copy)
        let changed = try FontBytes.read(copy.path)
        #expect(changed !== first && changed.buffer.count != first.buffer.count)
        #expect(try FontFace(path: copy.path).name == "Liberation Serif Bold")
    }

    // MARK: - Through the binary

    @Test func noFallbackFlagStillWarnsAndTheRecipeRecordsEveryFace() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let blank = try await CLI.run(["render", "Hi Привет", "--no-fallback", "-o", "a.png", "-q"], in: dir)
            #expect(blank.status == 0 && blank.stderrLines.count == 1, "\(blank)")
            #expect(blank.stderr.hasPrefix("warning: font 'rounded-bold.ttf' has no glyph for 'П' (U+041F)"), "\(blank)")

            let drawn = try await CLI.run(["render", "Hi Привет Ελλάδα", "-o", "b.png", "-q"], in: dir)
            #expect(drawn.status == 0 && drawn.stderr.isEmpty, "\(drawn)")
            let recipe = try await CLI.run(["inspect", "b.png"], in: dir)
            #expect(recipe.stdout.contains("\"fallbackFonts\": [{\"name\": "), "\(recipe.stdout)")
            #expect(recipe.stdout.contains("\"sha256\": \""), "\(recipe.stdout)")

            let again = try await CLI.run(["render", "--from", "b.png", "-o", "c.png", "-q"], in: dir)
            #expect(again.status == 0 && again.stderr.isEmpty, "\(again)")
            let b = try Data(contentsOf: dir.appendingPathComponent("b.png"))
            let c = try Data(contentsOf: dir.appendingPathComponent("c.png"))
            #expect(b == c, "render --from is not the same title")
        }
    }
}
