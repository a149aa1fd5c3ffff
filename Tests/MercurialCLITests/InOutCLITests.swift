import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

extension CLIErrorCase {
    /// Bad `in`/`out` blocks and flags: `file:line:column` errors (or the title's own) before any frame.
    static let inOut: [CLIErrorCase] = {
        func bad(_ name: String, _ blocks: String, animation: String = "{\"duration\": 1}", arguments: [String] = [],
                 _ fragments: [String]) -> CLIErrorCase {
            CLIErrorCase(name: "in/out: " + name, arguments: ["animate", "scene.json", "-o", "out.png"] + arguments,
                         setup: [.text("scene.json", animatedScene(animation, extra: blocks))], fragments: fragments,
                         output: .mustNotExist("out.png"))
        }
        return [
            bad("unknown key", "  \"in\": {\"type\": \"slide\", \"sid\": \"left\"},\n",
                ["scene.json:4:", "unknown key \"sid\" in \"in\"", "did you mean \"side\"?"]),
            bad("a key of another preset", "  \"in\": {\"type\": \"fade\", \"stagger\": 0.1},\n",
                ["scene.json:4:", "unknown key \"stagger\" in \"in\""]),
            bad("unknown type", "  \"out\": {\"type\": \"fad\"},\n",
                ["scene.json:4:", "unknown in/out type \"fad\"", "did you mean \"fade\"?", "known types: fade, slide, scale, reveal"]),
            bad("no type", "  \"out\": {\"duration\": 1},\n", ["scene.json:4:", "\"out\" needs a \"type\""]),
            bad("duration 0", "  \"in\": {\"type\": \"fade\", \"duration\": 0},\n",
                ["scene.json:4:", "\"in.duration\" is 0, out of range 0.001…3600"]),
            bad("unknown side", "  \"in\": {\"type\": \"slide\", \"side\": \"up\"},\n",
                ["scene.json:4:", "\"in.side\" must be \"left\", \"right\", \"top\" or \"bottom\""]),
            bad("in plus out longer than the animation",
                "  \"in\": {\"type\": \"fade\", \"duration\": 0.6},\n  \"out\": {\"type\": \"slide\", \"duration\": 0.5},\n",
                ["scene.json:5:", "\"in\" takes 0 s delay + 0.6 s and \"out\" takes 0 s delay + 0.5 s: 1.1 s, longer than the animation's 1 s",
                 "shorten them or lengthen \"animation.duration\""]),
            bad("a reveal's letters longer than the animation",
                "  \"in\": {\"type\": \"reveal\", \"duration\": 0.9, \"stagger\": 0.2},\n",
                ["\"in\" takes 0 s delay + 0.9 s + 1 × 0.2 s stagger: 1.1 s, longer than the animation's 1 s"]),
            bad("flags longer than a short animation", "", animation: "{\"duration\": 0.8}", arguments: ["--in", "fade", "--out", "scale"],
                ["1 s, longer than the animation's 0.8 s"]),
            CLIErrorCase(name: "in/out: a reveal of an empty title", arguments: ["animate", "scene.json", "-o", "out.png"],
                         setup: [.text("scene.json", "{\"text\": \" \", \"in\": {\"type\": \"reveal\"}, \"animation\": {\"duration\": 1}}")],
                         fragments: ["the text is empty or only whitespace"], output: .mustNotExist("out.png")),
            CLIErrorCase(name: "in/out: a reveal of a mask", arguments: ["animate", "scene.json", "-o", "out.png"],
                         setup: [.text("scene.json", "{\"mask\": \"\(CLI.fixturePath("gray8.png"))\", \"in\": {\"type\": \"reveal\"}, \"animation\": {\"duration\": 1}}")],
                         fragments: ["a \"reveal\" shows a text's letters one after another; give \"text\" instead of \"mask\""],
                         output: .mustNotExist("out.png")),
            bad("a reveal with dynamics", "  \"out\": {\"type\": \"reveal\", \"duration\": 0.2},\n  \"dynamics\": {},\n",
                ["a \"reveal\" and \"dynamics\" both move the letters"]),
            CLIErrorCase(name: "in/out: unknown --in preset", arguments: ["animate", "scene.json", "-o", "out.png", "--in", "fad"],
                         setup: [.text("scene.json", animatedScene("{\"duration\": 1}"))], status: .usage,
                         fragments: ["The value 'fad' is invalid for '--in <preset>'", "'fade', 'slide', 'scale' or 'reveal'"],
                         output: .mustNotExist("out.png")),
            bad("opacity out of range", "  \"opacity\": 1.5,\n", ["scene.json:4:", "opacity is 1.5, out of range 0…1"]),
            CLIErrorCase(name: "in/out: in without an animation", arguments: ["animate", "scene.json", "-o", "out.png"],
                         setup: [.text("scene.json", "{\"text\": \"Hi\",\n \"in\": {\"type\": \"fade\"}}")],
                         fragments: ["scene.json:2:2: \"in\" needs an \"animation\" with a \"duration\""], output: .mustNotExist("out.png")),
        ]
    }()
}

@Suite(.serialized) struct InOutCLITests {
    @Test func inAndOutFlagsFadeTheTitleInAndOut() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(animatedScene("{\"duration\": 1.2, \"fps\": 10}").utf8).write(to: dir.appendingPathComponent("s.json"))
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("f"), withIntermediateDirectories: true)
            let r = try await CLI.run(["animate", "s.json", "--in", "reveal", "--out", "fade", "-o", "f/%02d.png"], in: dir,
                                      timeout: .seconds(120))
            #expect(r.termination == .exit && r.status == 0 && r.stderr.isEmpty, "\(r)")
            let frames = try (0..<12).map { try CLI.readPNG(dir.appendingPathComponent(String(format: "f/%02d.png", $0))) }
            let ink = frames.map { frame in frame.pixels.reduce(0) { $0 + Int($1.a) } }
            #expect(ink[0] == 0, "nothing at the start")
            #expect(ink[1] > 0 && ink[1] < ink[6], "letters appearing: \(ink)")
            #expect(ink[7] > ink[10] && ink[10] > ink[11], "fading out: \(ink)")
            let still = try await CLI.run(["render", "Hi", "--size", "40", "-o", "still.png"], in: dir, timeout: .seconds(60))
            #expect(still.status == 0)
            #expect(frames[6].pixels == (try CLI.readPNG(dir.appendingPathComponent("still.png"))).pixels,
                    "between in and out, the still title")
        }
    }
}
