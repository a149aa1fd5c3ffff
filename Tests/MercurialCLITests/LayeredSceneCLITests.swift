import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Issue 32, items 2 and 3 on the command line: the scene's keys reach its layers, `--set`
/// reaches one layer, a scene key no layer takes is warned about.
@Suite(.serialized) struct LayeredSceneCLITests {
    /// The lower third with `change` made to its JSON (a smaller canvas, to render quickly).
    static func lowerThird(in dir: URL, _ name: String, _ change: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let example = CLI.packageRoot.appendingPathComponent("examples/lower-third.json")
        var scene = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: example)) as? [String: Any])
        (scene["width"], scene["height"]) = (960, 540)
        change(&scene)
        try JSONSerialization.data(withJSONObject: scene).write(to: dir.appendingPathComponent(name))
        return name
    }

    func render(_ arguments: [String], in dir: URL, to output: String,
                sourceLocation: SourceLocation = #_sourceLocation) async throws -> (png: [RGBA8], stderr: [String]) {
        let r = try await CLI.run(["render"] + arguments + ["-o", output], in: dir, timeout: .seconds(60))
        #expect(r.termination == .exit && r.status == 0, "\(r)", sourceLocation: sourceLocation)
        // The pixels: the PNG's recipe records the scene, so its bytes differ with any key.
        return (try CLI.readPNG(dir.appendingPathComponent(output)).pixels, r.stderrLines)
    }

    /// Whether two renders have the same pixels (compared here, not in #expect, which would print them all).
    static func same(_ a: [RGBA8], _ b: [RGBA8]) -> Bool { a == b }

    @Test func theScenesRadiusChangesTheLayeredTitle() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let two = try Self.lowerThird(in: dir, "two.json") { $0["radius"] = 2 }
            let twenty = try Self.lowerThird(in: dir, "twenty.json") { $0["radius"] = 20 }
            let a = try await render(["--params", two], in: dir, to: "a.png")
            let b = try await render(["--params", twenty], in: dir, to: "b.png")
            #expect(!Self.same(a.png, b.png), "the scene's radius reaches the layers over their presets")
            #expect(a.stderr.isEmpty, "\(a.stderr)")
            let scene = try Self.lowerThird(in: dir, "scene.json")
            let c = try await render(["--params", scene, "--set", "radius=2"], in: dir, to: "c.png")
            let d = try await render(["--params", scene, "--set", "radius=20"], in: dir, to: "d.png")
            #expect(!Self.same(c.png, d.png))
            #expect(Self.same(c.png, a.png), "--set radius=2 is the scene's radius 2")
        }
    }

    @Test func aSceneKeyNoLayerTakesWarns() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = try Self.lowerThird(in: dir, "scene.json") { $0["text"] = "Nobody" }
            let r = try await render(["--params", scene], in: dir, to: "a.png")
            #expect(r.stderr.count == 1, "\(r.stderr)")
            let line = try #require(r.stderr.first)
            #expect(line.hasPrefix("warning: scene.json:") && line.contains("\"text\" applies to no layer"), "\(line)")
            // The title's recipe writes every key at the top and in each layer: read again, it warns of none.
            let again = try await render(["--from", "a.png"], in: dir, to: "b.png")
            #expect(again.stderr.isEmpty, "\(again.stderr)")
            #expect(Self.same(again.png, r.png))
        }
    }

    @Test func setReachesOneLayersStyleAndMaterial() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = try Self.lowerThird(in: dir, "scene.json")
            let plain = try await render(["--params", scene], in: dir, to: "plain.png")
            let shadow = try await render(["--params", scene, "--set", "layers[0].dropShadow.size=20"], in: dir, to: "shadow.png")
            #expect(!Self.same(shadow.png, plain.png), "layer 0's shadow changed")
            let neon = try await render(["--params", scene, "--set", "layers[1].material = neon"], in: dir, to: "neon.png")
            let file = try Self.lowerThird(in: dir, "neon.json") { scene in
                var layers = scene["layers"] as! [[String: Any]]
                layers[1]["material"] = "neon"
                scene["layers"] = layers
            }
            let written = try await render(["--params", file], in: dir, to: "written.png")
            #expect(!Self.same(neon.png, plain.png))
            #expect(Self.same(neon.png, written.png), "--set 'layers[1].material=neon' is the scene's layer 1 in neon")
            let missing = try await CLI.run(["render", "--params", scene, "--set", "layers[2].material=neon", "-o", "x.png"], in: dir)
            #expect(missing.status == 1 && missing.stderrLines.count == 1, "\(missing)")
            #expect(missing.stderr.hasPrefix("error: ") && missing.stderr.contains("layers[0] to layers[1]"), "\(missing)")
            let typo = try await CLI.run(["render", "--params", scene, "--set", "layers[0].dropShadow.sise=3", "-o", "x.png"], in: dir)
            #expect(typo.status == 1 && typo.stderrLines.count == 1 && typo.stderr.contains("did you mean"), "\(typo)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.png").path))
        }
    }

    /// A sequence's titles take `--set 'layers[N].material=…'` as a single scene does (it was
    /// skipped without a word), and its scene-wide keys warn as a single scene's do.
    @Test func setReachesTheLayersOfASequencesTitles() async throws {
        try await CLI.withTemporaryDirectory { dir in
            func sequence(_ name: String, secondMaterial: String?, text: Bool = false) throws -> String {
                var second: [String: Any] = ["text": "B", "offset": [0, 40]]
                second["material"] = secondMaterial
                var scene: [String: Any] = ["width": 240, "height": 120, "layers": [["text": "A"], second]]
                if text { scene["text"] = "Nobody" }
                let file: [String: Any] = ["animation": ["fps": 5], "sequence": [["scene": scene, "hold": 0.2]]]
                try JSONSerialization.data(withJSONObject: file).write(to: dir.appendingPathComponent(name))
                return name
            }
            func first(_ arguments: [String], _ output: String) async throws -> (png: [RGBA8], stderr: [String]) {
                let r = try await CLI.run(["animate"] + arguments + ["-o", output], in: dir, timeout: .seconds(60))
                #expect(r.termination == .exit && r.status == 0, "\(r)")
                return (try CLI.readPNG(dir.appendingPathComponent(output)).pixels, r.stderrLines.filter { !$0.hasPrefix("frame ") })
            }
            let plain = try await first([try sequence("plain.json", secondMaterial: nil)], "plain.png")
            let set = try await first(["plain.json", "--set", "layers[1].material=neon"], "set.png")
            let written = try await first([try sequence("neon.json", secondMaterial: "neon")], "written.png")
            #expect(!Self.same(set.png, plain.png), "--set 'layers[1].material=neon' changed the sequence's title")
            #expect(Self.same(set.png, written.png), "and made it as the file with layer 1 in neon")
            let warned = try await first([try sequence("text.json", secondMaterial: nil, text: true)], "text.png")
            #expect(warned.stderr.count == 1 && warned.stderr.first?.contains("\"text\" applies to no layer") == true, "\(warned.stderr)")
        }
    }
}
