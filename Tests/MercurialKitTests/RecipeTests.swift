import Foundation
import Testing
@testable import MercurialKit

/// Every title carries its recipe; `inspect` prints it and `render --from` renders it again.
@Suite(.serialized) struct RecipeTests {
    func ok(_ r: CLI.Result, warnings: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.termination == .exit && r.status == 0, "\(r)", sourceLocation: sourceLocation)
        if !warnings { #expect(r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation) }
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
            try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("fonts/rounded-bold.otf"), to: font)
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
}
