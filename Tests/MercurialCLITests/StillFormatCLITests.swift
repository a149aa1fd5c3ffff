import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// `-o card.jpg` and `-o card.webp` (issue 34, item 3): the format follows the output's
/// extension in render, batch and watch; an unknown one is refused with one `error:`
/// line and no file written; `--quality` is 0–100 and for .jpg and .webp only.
@Suite(.serialized) struct StillFormatCLITests {
    static let card = ["--width", "600", "--height", "315", "--size", "90"]

    private func bytes(_ dir: URL, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: dir.appendingPathComponent(name)))
    }

    private func exists(_ dir: URL, _ name: String) -> Bool {
        FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path)
    }

    /// One `error:` line, a non-zero exit, `fragment` in the line.
    private func expectRefusal(_ r: CLI.Result, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status != 0 && r.stderrLines.count == 1 && r.stderrLines.first?.hasPrefix("error: ") == true
                && r.stderr.contains(fragment), "\(r)", sourceLocation: sourceLocation)
    }

    @Test func renderWritesTheFormatItsNameSays() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let opaque = ["render", "Card", "--background", "#101018"] + Self.card
            let jpg = try await CLI.run(opaque + ["-o", "card.JPG", "--quality", "80"], in: dir)
            #expect(jpg.status == 0 && jpg.stderr.isEmpty && jpg.stdout == "card.JPG 600×315\n", "\(jpg)")
            let jpeg = try bytes(dir, "card.JPG")
            #expect(Array(jpeg.prefix(3)) == [0xFF, 0xD8, 0xFF])
            #expect(JPEGFile.decode(jpeg).map { ($0.width, $0.height) } ?? (0, 0) == (600, 315))

            let webp = try await CLI.run(opaque + ["-o", "card.webp"], in: dir)
            #expect(webp.status == 0 && webp.stderr.isEmpty, "\(webp)")
            let opaqueWebP = try #require(WebPFile.decode(try bytes(dir, "card.webp")))
            #expect(opaqueWebP.width == 600 && opaqueWebP.height == 315 && !opaqueWebP.hasAlpha)

            // Without a background: a WebP keeps the alpha; a JPEG is refused and nothing written.
            let translucent = ["render", "Card"] + Self.card
            #expect(try await CLI.run(translucent + ["-o", "t.webp", "--lossless"], in: dir).status == 0)
            #expect(WebPFile.decode(try bytes(dir, "t.webp"))?.hasAlpha == true)
            expectRefusal(try await CLI.run(translucent + ["-o", "t.jpeg"], in: dir), "\"background\": \"#000000\"")
            #expect(!exists(dir, "t.jpeg") && CLI.temporaryFiles(in: dir).isEmpty)

            // The maps of a .webp title are PNGs beside it.
            let maps = try await CLI.run(opaque + ["--emit", "color,height", "-o", "m.webp"], in: dir)
            #expect(maps.status == 0 && exists(dir, "m.webp") && exists(dir, "m-height.png"), "\(maps)")
            #expect(try bytes(dir, "m-height.png").prefix(4) == [0x89, 0x50, 0x4E, 0x47])
        }
    }

    /// An unknown extension, a quality out of range, --quality for a PNG and --lossless
    /// for a JPEG are refused before rendering: one line, and an existing file under
    /// the name is left as it was.
    @Test func aNameOrQualityThatDoesNotFitIsRefused() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("keep".utf8).write(to: dir.appendingPathComponent("card.gif"))
            for (arguments, fragment, file) in [
                (["-o", "card.gif"], "output 'card.gif' ends in .gif (GIF), but render writes .png, .jpg (or .jpeg) and .webp stills; name it e.g. 'card.png'", "card.gif"),
                (["-o", "card.v2"], "output 'card.v2' ends in .v2, but render writes", "card.v2"),
                (["-o", "card.jpg", "--quality", "101"], "--quality is 101; give a whole number from 0 to 100", "card.jpg"),
                (["-o", "card.webp", "--quality=-1"], "--quality is -1", "card.webp"),
                (["-o", "card.png", "--quality", "80"], "--quality is for .jpg and .webp outputs", "card.png"),
                (["-o", "card.jpg", "--lossless"], "--lossless is for .webp outputs", "card.jpg"),
            ] {
                let r = try await CLI.run(["render", "Card", "--background", "#000"] + arguments, in: dir)
                expectRefusal(r, fragment)
                #expect(file == "card.gif" ? try bytes(dir, file) == Array("keep".utf8) : !exists(dir, file), "\(arguments)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["card.gif"])
        }
    }

    /// A batch's `--name` ending in .webp writes WebPs (with --quality); one ending in
    /// nothing known gets .png added, as before.
    @Test func batchWritesTheFormatItsTemplateEndsIn() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("text,size\nOne,40\nTwo,40\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            let r = try await CLI.run(["batch", "t.csv", "--name", "{row}-{text}.WEBP", "--quality", "70", "-o", "out", "-q"],
                                      in: dir, timeout: .seconds(120))
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path).sorted()
            #expect(names == ["1-One.webp", "2-Two.webp"], "\(names)")
            for name in names {
                #expect(WebPFile.decode(try bytes(dir.appendingPathComponent("out"), name)) != nil, "\(name)")
            }
            let png = try await CLI.run(["batch", "t.csv", "--quality", "70", "-o", "out2", "-q"], in: dir, timeout: .seconds(120))
            expectRefusal(png, "--quality is for .jpg and .webp outputs")
        }
    }
}
