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
        #expect(!result.fallbackFonts.isEmpty && !result.fallbackFonts.contains(junk.path))
    }

    @Test func lookupsAreCached() throws {
        let path = try bundledFont("rounded")
        for scalar in "Привет".unicodeScalars { _ = FontFallback.candidates(for: scalar, like: path) }
        let asked = FontFallback.queries
        for _ in 0..<100 { _ = try TextMask.render(try layout("Привет", size: 20), margin: 2) }
        // Other tests may ask about other characters meanwhile, never 100 times over.
        #expect(FontFallback.queries - asked < 50, "fontconfig asked \(FontFallback.queries - asked) times")
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
