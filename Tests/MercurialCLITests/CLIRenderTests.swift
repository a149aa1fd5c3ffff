import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// End-to-end runs of the `mercurial` binary that should succeed.
@Suite(.serialized) struct CLIRenderTests {
    /// Expects a clean exit 0 with nothing on stderr (unless `allowWarnings`).
    private func expectSuccess(_ r: CLI.Result, allowWarnings: Bool = false,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.termination == .exit && r.status == 0, "\(r)", sourceLocation: sourceLocation)
        if allowWarnings {
            #expect(r.stderrLines.allSatisfy { $0.hasPrefix("warning: ") }, "\(r)", sourceLocation: sourceLocation)
        } else {
            #expect(r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation)
        }
    }

    private func opaqueColours(_ image: Image<RGBA8>) -> Set<UInt32> {
        Set(image.pixels.lazy.filter { $0.a == 255 }.map { UInt32($0.r) << 16 | UInt32($0.g) << 8 | UInt32($0.b) })
    }

    /// `render scene.json` renders the scene, as `--params scene.json` does (and as `animate
    /// scene.json` reads it); a `.json` that names no file is rendered as text, with a warning.
    @Test func aSceneFileGivenAsTheTextIsTheScene() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(#"{"text": "Gold", "material": "gold", "size": 60}"#.utf8).write(to: dir.appendingPathComponent("gold.json"))
            expectSuccess(try await CLI.run(["render", "gold.json", "-o", "a.png"], in: dir))
            expectSuccess(try await CLI.run(["render", "--params", "gold.json", "-o", "b.png"], in: dir))
            let a = try Data(contentsOf: dir.appendingPathComponent("a.png"))
            #expect(a == (try Data(contentsOf: dir.appendingPathComponent("b.png"))), "render gold.json is render --params gold.json")
            // A mistyped scene's name is an error (issue 31: it rendered the name with a warning); --set text renders it.
            let typo = try await CLI.run(["render", "glod.json", "-o", "c.png"], in: dir)
            #expect(typo.status == 1 && typo.stderrLines == ["error: scene file 'glod.json' does not exist; check its name (to render those words as a title: mercurial render --set 'text=glod.json')"], "\(typo)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("c.png").path))
            expectSuccess(try await CLI.run(["render", "--set", "text=glod.json", "-o", "c.png"], in: dir))
        }
    }

    /// A one-shot render keeps its traced sphere and its font's SHA-256 in MERCURIAL_CACHE
    /// and the next reads them: the same bytes either way; `off` writes nothing.
    @Test func aTracedSphereIsKeptForTheNextProcess() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let cache = dir.appendingPathComponent("cache").path
            let args = ["render", "Hg", "--size", "40", "--material", "gold", "--quiet", "-o"]
            expectSuccess(try await CLI.run(args + ["off.png"], in: dir, environment: ["MERCURIAL_CACHE": "off"]))
            #expect(!FileManager.default.fileExists(atPath: cache))
            expectSuccess(try await CLI.run(args + ["traced.png"], in: dir, environment: ["MERCURIAL_CACHE": cache]))
            let kept = try FileManager.default.contentsOfDirectory(atPath: cache).sorted()
            let sizes = try kept.map { try FileManager.default.attributesOfItem(atPath: cache + "/" + $0)[.size] as? Int }
            #expect(kept.count == 3 && kept.allSatisfy { $0.count == 64 } && Set(sizes) == [72, 73_804, 196_652],
                    "the font's hash, the liquid curve and the sphere: \(kept) \(sizes)")
            expectSuccess(try await CLI.run(args + ["read.png"], in: dir, environment: ["MERCURIAL_CACHE": cache]))
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache).sorted() == kept)
            let off = try Data(contentsOf: dir.appendingPathComponent("off.png"))
            #expect(off == (try Data(contentsOf: dir.appendingPathComponent("traced.png"))))
            #expect(off == (try Data(contentsOf: dir.appendingPathComponent("read.png"))))
        }
    }

    /// A still with no transparent pixel (a background) is written without alpha, a title
    /// over transparency with it; both decode to what they drew, and `--from` reads the
    /// RGB still's recipe back into the same file.
    @Test func aStillWithNoTransparentPixelIsWrittenWithoutAlpha() async throws {
        try await CLI.withTemporaryDirectory { dir in
            expectSuccess(try await CLI.run(["render", "Card", "--size", "40", "--background", "#203040", "-o", "opaque.png"], in: dir))
            expectSuccess(try await CLI.run(["render", "Card", "--size", "40", "-o", "clear.png"], in: dir))
            expectSuccess(try await CLI.run(["render", "--from", "opaque.png", "-o", "again.png"], in: dir))
            let opaque = Array(try Data(contentsOf: dir.appendingPathComponent("opaque.png")))
            let clear = Array(try Data(contentsOf: dir.appendingPathComponent("clear.png")))
            #expect(opaque[25] == 2 && clear[25] == 6, "IHDR colour types \(opaque[25]) and \(clear[25])")
            let image = try CLI.readPNG(dir.appendingPathComponent("opaque.png"))
            #expect(image.pixels.allSatisfy { $0.a == 255 } && opaqueColours(image).count > 100)
            #expect(image[0, 0] == RGBA8(r: 0x20, g: 0x30, b: 0x40, a: 255), "\(image[0, 0])")
            #expect(try CLI.readPNG(dir.appendingPathComponent("clear.png")).pixels.contains { $0.a == 0 })
            #expect(opaque == Array(try Data(contentsOf: dir.appendingPathComponent("again.png"))))
        }
    }

    @Test func renderWithNoOptionsWritesTitlePNGInTheWorkingDirectory() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["render", "Flex Monkey"], in: dir)
            expectSuccess(r)
            let url = dir.appendingPathComponent("title.png")
            let image = try CLI.readPNG(url)
            #expect(image.width > 100 && image.height > 50, "\(image.width)×\(image.height)")
            #expect(r.stdout == "title.png \(image.width)×\(image.height)\n", "\(r)")
            #expect(image.pixels.contains { $0.a == 0 }, "no transparent pixel")
            #expect(image.pixels.contains { $0.a == 255 }, "no opaque pixel")
            // Embossed and lit by four coloured lights: many shades, not a flat fill.
            #expect(opaqueColours(image).count > 100, "\(opaqueColours(image).count) opaque colours")
            // The corners are outside the ink (the canvas is ink plus a margin).
            for (x, y) in [(0, 0), (image.width - 1, 0), (0, image.height - 1), (image.width - 1, image.height - 1)] {
                #expect(image[x, y].a == 0, "corner (\(x), \(y)) is \(image[x, y])")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["title.png"])
        }
    }

    @Test func outputOptionChoosesThePathAndQuietSilencesStdout() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: false)
            let r = try await CLI.run(["render", "Hg", "--size", "60", "-o", "out/metal.png"], in: dir)
            expectSuccess(r)
            let image = try CLI.readPNG(dir.appendingPathComponent("out/metal.png"))
            #expect(r.stdout == "out/metal.png \(image.width)×\(image.height)\n", "\(r)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("title.png").path))
            #expect(CLI.temporaryFiles(in: dir.appendingPathComponent("out")).isEmpty)

            // An absolute path, replacing an existing file, with --quiet.
            let absolute = dir.appendingPathComponent("out/metal.png").path
            let q = try await CLI.run(["render", "Hg", "--size", "60", "-o", absolute, "--quiet"], in: dir)
            expectSuccess(q)
            #expect(q.stdout.isEmpty, "\(q)")
            #expect(try same(CLI.readPNG(URL(fileURLWithPath: absolute)).pixels, image.pixels))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path) == ["metal.png"])
        }
    }

    @Test func blackBackgroundGivesAFullyOpaqueImage() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["render", "Flex", "--size", "80", "--background", "black", "-o", "b.png"], in: dir)
            expectSuccess(r)
            let image = try CLI.readPNG(dir.appendingPathComponent("b.png"))
            #expect(image.count > 0)
            #expect(image.pixels.allSatisfy { $0.a == 255 }, "not every pixel is opaque")
            #expect(image[0, 0] == RGBA8(r: 0, g: 0, b: 0, a: 255), "corner is \(image[0, 0])")
            #expect(opaqueColours(image).count > 100)
        }
    }

    @Test func fixedCanvasIsExactAndLongTextIsShrunkWithAWarning() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["render", "Flex Monkey Mercurial Text", "--size", "160", "--max-lines", "1",
                                       "--width", "800", "--height", "200", "-o", "w.png"], in: dir)
            expectSuccess(r, allowWarnings: true)
            let image = try CLI.readPNG(dir.appendingPathComponent("w.png"))
            #expect(image.width == 800 && image.height == 200, "\(image.width)×\(image.height)")
            #expect(r.stderrLines.count == 1, "\(r)")
            #expect(r.stderrLines.first?.hasPrefix("warning: ") == true, "\(r)")
            #expect(r.stderr.contains("shrunk from 160 px"), "\(r)")
            #expect(image.pixels.contains { $0.a == 255 } && image[0, 0].a == 0)

            // Text that fits is not shrunk and gives no warning.
            let small = try await CLI.run(["render", "Hi", "--size", "60", "--width", "800", "--height", "200", "-o", "s.png"], in: dir)
            expectSuccess(small)
            let smallImage = try CLI.readPNG(dir.appendingPathComponent("s.png"))
            #expect(smallImage.width == 800 && smallImage.height == 200)
        }
    }

    /// `profile` works wherever a parameter does: flag, --set, scene file and material.
    @Test func theProfileCanBeChosenEverywhere() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(#"{"profile": "chisel", "description": "a bevelled material"}"#.utf8)
                .write(to: dir.appendingPathComponent("bevel.json"))
            try Data(#"{"text": "Ab", "size": 60, "profile": "chisel"}"#.utf8).write(to: dir.appendingPathComponent("s.json"))
            let runs: [(String, [String])] = [
                ("flag.png", ["render", "Ab", "--size", "60", "--profile", "chisel"]),
                ("set.png", ["render", "Ab", "--size", "60", "--set", "profile=chisel"]),
                ("scene.png", ["render", "--params", "s.json"]),
                ("material.png", ["render", "Ab", "--size", "60", "--material", "bevel.json"]),
                ("liquid.png", ["render", "Ab", "--size", "60"]),
            ]
            var pixels: [String: [RGBA8]] = [:]
            for (name, arguments) in runs {
                let r = try await CLI.run(arguments + ["-o", name, "--quiet"], in: dir)
                expectSuccess(r)
                pixels[name] = try CLI.readPNG(dir.appendingPathComponent(name)).pixels
            }
            for name in ["set.png", "scene.png", "material.png"] {
                #expect(pixels[name] == pixels["flag.png"], "\(name) differs from --profile chisel")
            }
            #expect(pixels["liquid.png"] != pixels["flag.png"], "liquid is the default and looks different")
        }
    }

    @Test func sceneFileRendersAndFlagsOverrideIt() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("""
            {
              "text": "Scene",
              "size": 60,
              "width": 400,
              "height": 120,
              "background": "navy",
              "lights": [{"hue": 0.6}]
            }
            """.utf8).write(to: dir.appendingPathComponent("scene.json"))

            let fromScene = try await CLI.run(["render", "--params", "scene.json", "-o", "a.png"], in: dir)
            expectSuccess(fromScene)
            let a = try CLI.readPNG(dir.appendingPathComponent("a.png"))
            #expect(a.width == 400 && a.height == 120, "\(a.width)×\(a.height)")
            #expect(a[0, 0] == RGBA8(r: 0, g: 0, b: 128, a: 255), "scene background: \(a[0, 0])")

            let overridden = try await CLI.run(["render", "--params", "scene.json", "--width", "500",
                                                "--background", "transparent", "-o", "b.png"], in: dir)
            expectSuccess(overridden)
            let b = try CLI.readPNG(dir.appendingPathComponent("b.png"))
            #expect(b.width == 500 && b.height == 120, "\(b.width)×\(b.height)")
            #expect(b[0, 0].a == 0, "--background transparent overrides the scene: \(b[0, 0])")

            // The text argument overrides the scene's text.
            let text = try await CLI.run(["render", "X", "--params", "scene.json", "-o", "c.png"], in: dir)
            expectSuccess(text)
            let c = try CLI.readPNG(dir.appendingPathComponent("c.png"))
            #expect(c.width == 400 && c.pixels != a.pixels)
        }
    }

    @Test func shadingWritesTheSphere() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["shading", "-o", "s.png", "--size", "128"], in: dir)
            expectSuccess(r)
            let image = try CLI.readPNG(dir.appendingPathComponent("s.png"))
            #expect(image.width == 128 && image.height == 128)
            for (x, y) in [(0, 0), (127, 0), (0, 127), (127, 127)] {
                #expect(image[x, y].a == 0, "corner (\(x), \(y)) is \(image[x, y])")
            }
            #expect(image[64, 64].a == 255, "centre is \(image[64, 64])")
            #expect(opaqueColours(image).count > 50)
        }
    }

    @Test func paramsListsEveryKey() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["params"], in: dir)
            expectSuccess(r)
            let words = Set(r.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
            var expected = ["shininess", "diffuse", "specular", "ambient", "reflectivity", "radius", "scale", "profile",
                            "text", "font", "size", "width", "height", "align", "anchor", "padding", "lineSpacing", "letterSpacing",
                            "kerning", "fallback", "maxLines", "background", "shadingImage", "mask", "ambientLightLevel",
                            "opacity", "shiftX", "shiftY", "zoom", "bevel"]
            for light in 1...4 {
                expected += ["hue", "brightness", "x", "y", "z"].map { "light\(light).\($0)" }
            }
            for key in expected {
                #expect(words.contains(key), "params does not list \(key): \(r.stdout)")
            }
            #expect(Set(ParameterGroup.allParameters.map(\.key)) == Set(expected), "the model has keys the test does not know")
            #expect(r.stdout.contains("0.5…200"), "radius range")

            // A --set shows in the value column.
            let set = try await CLI.run(["params", "--set", "light2.hue=0.6"], in: dir)
            expectSuccess(set)
            let row = set.stdout.split(separator: "\n").first { $0.contains("light2.hue") } ?? ""
            #expect(row.contains(" 0.6 "), "\(row)")
        }
    }

    /// `params` fits the terminal (issue 31: 340 columns): COLUMNS here, as standard output
    /// is a pipe; every key still listed, with its meaning; --wide is the one-line table.
    @Test(arguments: [nil, 60, 120]) func paramsFitsTheTerminal(_ columns: Int?) async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["params"], in: dir, environment: ["COLUMNS": columns.map(String.init)])
            expectSuccess(r)
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let widest = lines.map(\.count).max() ?? 0
            #expect(widest <= (columns ?? 80) && widest > (columns ?? 80) - 20, "\(widest) columns")
            for p in ParameterGroup.allParameters {
                #expect(lines.contains { $0.hasPrefix("  \(p.key) = ") }, "\(p.key)")
            }
            #expect(lines.contains { $0.hasPrefix("  vine.branchAngle = ") })
            let wide = try await CLI.run(["params", "--wide"], in: dir, environment: ["COLUMNS": columns.map(String.init)])
            #expect(wide.stdout.split(separator: "\n").count == ParameterGroup.allParameters.count + SceneSchema.rows.count + 1)
            #expect((wide.stdout.split(separator: "\n").map(\.count).max() ?? 0) > 200)
        }
    }

    @Test func materialsAndFontsAreListed() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let materials = try await CLI.run(["materials"], in: dir)
            expectSuccess(materials)
            let materialNames = materials.stdout.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
            #expect(materialNames.contains("mercurial"), "\(materials)")

            let fonts = try await CLI.run(["fonts"], in: dir)
            expectSuccess(fonts)
            let fontNames = fonts.stdout.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
            for name in ["rounded", "serif", "display"] {
                #expect(fontNames.contains(name), "\(fonts)")
            }
            #expect(fonts.stdout.contains("rounded (default)"))
        }
    }

    @Test func fontsDescribesOneFontsAxesAndFeatures() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let inter = try await CLI.run(["fonts", "/usr/share/fonts/truetype/inter-vf/Inter.var.ttf"], in: dir)
            expectSuccess(inter)
            #expect(inter.stdout.contains("axes      wght 100…900 (default 400), slnt -10…0 (default 0)"), "\(inter)")
            #expect(inter.stdout.contains(" ss01 ") && inter.stdout.contains(" tnum "), "\(inter)")
            let rounded = try await CLI.run(["fonts", "rounded"], in: dir)
            expectSuccess(rounded)
            #expect(rounded.stdout.contains("axes      none (not a variable font)") && rounded.stdout.contains("liga"), "\(rounded)")
            let emoji = try await CLI.run(["fonts", "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"], in: dir)
            #expect(emoji.stdout.contains("colour bitmaps"), "\(emoji)")
            let missing = try await CLI.run(["fonts", "no-such-font.ttf"], in: dir)
            #expect(missing.status != 0 && missing.stderr.hasPrefix("error: ") && missing.stderr.split(separator: "\n").count == 1, "\(missing)")
        }
    }

    static let dejaVuInstalled = FileManager.default.fileExists(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")

    @Test(.enabled(if: dejaVuInstalled, "fonts-dejavu-core is not installed"))
    func installedFontByFontconfigName() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["render", "Flex", "--size", "80", "--font", "DejaVu Sans:bold", "-o", "d.png"], in: dir)
            expectSuccess(r)
            let dejaVu = try CLI.readPNG(dir.appendingPathComponent("d.png"))
            #expect(dejaVu.pixels.contains { $0.a == 255 })
            let rounded = try await CLI.run(["render", "Flex", "--size", "80", "-o", "r.png"], in: dir)
            expectSuccess(rounded)
            let roundedImage = try CLI.readPNG(dir.appendingPathComponent("r.png"))
            #expect(dejaVu.width != roundedImage.width || dejaVu.pixels != roundedImage.pixels, "DejaVu looks like the default font")
        }
    }

    @Test func unknownFontFamilyFailsClearly() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["render", "Flex", "--font", "No Such Family"], in: dir)
            #expect(r.termination == .exit && r.status == 1, "\(r)")
            #expect(r.stderrLines.count == 1)
            #expect(r.stderr.hasPrefix("error: unknown font 'No Such Family'"), "\(r)")
            #expect(r.stderr.contains("mercurial fonts"), "\(r)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }

    /// Every run here is in a fresh temporary folder; this one also makes sure no
    /// $MERCURIAL_DATA helps, so the data is found from the binary itself.
    @Test func bundledDataIsFoundFromAnotherWorkingDirectory() async throws {
        try await CLI.withTemporaryDirectory { dir in
            #expect(dir.path != FileManager.default.currentDirectoryPath)
            let env: [String: String?] = ["MERCURIAL_DATA": nil]
            let fonts = try await CLI.run(["fonts"], in: dir, environment: env)
            expectSuccess(fonts)
            #expect(fonts.stdout.contains("serif"))
            let r = try await CLI.run(["render", "Ag", "--font", "serif", "--size", "60", "--material", "mercurial", "-o", "serif.png"],
                                      in: dir, environment: env)
            expectSuccess(r)
            #expect(try CLI.readPNG(dir.appendingPathComponent("serif.png")).pixels.contains { $0.a == 255 })
            // A $MERCURIAL_DATA without fonts falls back to the same data.
            let bogus = try await CLI.run(["fonts"], in: dir, environment: ["MERCURIAL_DATA": dir.path])
            expectSuccess(bogus)
            #expect(bogus.stdout == fonts.stdout)
        }
    }

    /// Every flag's help shows its row's real default and range.
    @Test func renderHelpShowsDefaultsAndRangesFromTheTable() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["render", "--help"], in: dir)
            expectSuccess(r)
            // Help text is wrapped to the terminal: compare with whitespace collapsed.
            let help = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(help.contains("--size <px> Em size in pixels; auto: 160, or as large as fits --width and --height (default: auto, range 1…8192)."), "\(help)")
            let rows = ParameterGroup.allParameters.filter { $0.flag != nil }
            #expect(rows.count >= 15)
            for row in rows {
                let name: String, defaultText: String
                if case .bool(let on) = row.defaultValue {
                    name = "\(row.flagName)/--no-\(row.flagName.dropFirst(2))"
                    defaultText = on ? "on" : "off"
                } else {
                    name = "\(row.flagName) <\(row.flag ?? "")>"
                    defaultText = row.format(row.defaultValue)
                }
                guard let start = help.range(of: name + " ") else {
                    Issue.record("--help has no \(name): \(help)")
                    continue
                }
                // This flag's text runs to the end of its "(default: …)." note.
                let text = help[start.upperBound...].prefix { _ in true }
                let own = text.range(of: ").").map { text[..<$0.upperBound] } ?? text
                #expect(own.contains("(default: \(defaultText)"), "\(name): \(own)")
                switch row.kind {
                case .number, .integer:
                    #expect(own.contains("range \(row.rangeDescription))."), "\(name): \(own)")
                case .choice(let cases):
                    #expect(help.contains(own + " (values: \(cases.joined(separator: ", ")))"), "\(name): \(own)")
                default:
                    break
                }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }

    /// Layout settings are parameters like any other: `--set` gives what their flags give.
    @Test func setWorksForLayoutKeysAsTheirFlagsDo() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let viaSet = try await CLI.run(["render", "Hi", "--set", "size=200", "--set", "align=left",
                                            "--set", "profile=chisel", "-o", "set.png"], in: dir)
            expectSuccess(viaSet)
            let viaFlags = try await CLI.run(["render", "Hi", "--size", "200", "--align", "left",
                                              "--profile", "chisel", "-o", "flags.png"], in: dir)
            expectSuccess(viaFlags)
            let liquid = try await CLI.run(["render", "Hi", "--size", "200", "-o", "liquid.png"], in: dir)
            expectSuccess(liquid)
            let a = try CLI.readPNG(dir.appendingPathComponent("set.png"))
            let b = try CLI.readPNG(dir.appendingPathComponent("flags.png"))
            let c = try CLI.readPNG(dir.appendingPathComponent("liquid.png"))
            #expect(a.width == b.width && a.height == b.height)
            #expect(same(a.pixels, b.pixels), "--set and the flags give different titles")
            #expect(a.width == c.width && a.height == c.height, "size=200 took effect")

            let json = try await CLI.run(["params", "--json", "--set", "size=200", "--set", "profile=chisel"], in: dir)
            expectSuccess(json)
            let root = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let rows = root?["parameters"] as? [[String: Any]] ?? []
            #expect(rows.count == ParameterGroup.allParameters.count)
            let size = rows.first { $0["key"] as? String == "size" }
            #expect(size?["value"] as? Double == 200 && size?["default"] is NSNull)
            let profile = rows.first { $0["key"] as? String == "profile" }
            #expect(profile?["value"] as? String == "chisel" && profile?["default"] as? String == "liquid")
        }
    }

    @Test func renderIsDeterministic() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let arguments = ["render", "Flex Monkey", "--size", "80", "--material", "mercurial"]
            let first = try await CLI.run(arguments + ["-o", "1.png"], in: dir)
            let second = try await CLI.run(arguments + ["-o", "2.png"], in: dir)
            expectSuccess(first)
            expectSuccess(second)
            let a = try CLI.readPNG(dir.appendingPathComponent("1.png"))
            let b = try CLI.readPNG(dir.appendingPathComponent("2.png"))
            #expect(a.width == b.width && a.height == b.height)
            #expect(same(a.pixels, b.pixels), "two runs differ")
            let bytesA = try Data(contentsOf: dir.appendingPathComponent("1.png"))
            let bytesB = try Data(contentsOf: dir.appendingPathComponent("2.png"))
            #expect(bytesA == bytesB, "two runs wrote different files")
        }
    }
}
