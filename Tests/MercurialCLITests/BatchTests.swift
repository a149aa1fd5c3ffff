import Foundation
import Testing
@testable import MercurialKit
#if canImport(Glibc)
import Glibc
import MercurialTestSupport
#endif

@Suite(.serialized) struct BatchTests {
    static let deadline: Duration = .seconds(120)

    @Test func aBlocksKeysAreColumnsAsTheyAreForSet() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(#"""
            text,emoji,features,textPath.radius,name
            Go 🚀,color,"[""-liga""]",,a
            Ring,,,120,b
            Bad,colour,,,c

            """#.utf8).write(to: dir.appendingPathComponent("t.csv"))
            let r = try await CLI.run(["batch", "t.csv", "--name", "{name}-{emoji}", "--set", "size=40",
                                       "--set", #"textPath={"type": "arc", "radius": 300}"#, "-o", "out"], in: dir, timeout: Self.deadline)
            #expect(r.status == 65, "\(r)")
            #expect(r.stderrLines.count == 1 && r.stderrLines[0].hasPrefix("error: t.csv:4:") && r.stderrLines[0].contains("did you mean \"color\""), "\(r)")
            let a = try await CLI.run(["inspect", "out/a-color.png"], in: dir)
            #expect(a.stdout.contains(#""emoji": "color""#) && a.stdout.contains(#""features": ["-liga"]"#), "\(a)")
            let b = try await CLI.run(["inspect", "out/b-.png"], in: dir)
            #expect(b.stdout.contains(#""textPath": {"type": "arc", "radius": 120"#), "\(b)")
        }
    }

    @Test func everyRowRendersAndABadRowIsReportedByItsLine() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("""
            text,light1.hue,size
            One,0.1,40
            "Two, with a comma",0.2,40
            "Three
            lines",,40
            Bad,1.5,40
            Four,0.4,

            """.utf8).write(to: dir.appendingPathComponent("t.csv"))
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
            let r = try await CLI.run(["batch", "t.csv", "-o", "out", "--material", "gold"], in: dir, timeout: Self.deadline)
            #expect(r.termination == .exit && r.status == 65, "\(r)")
            #expect(r.stderrLines == ["error: t.csv:6: light1.hue is 1.5, out of range 0…1; give a number in that range"], "\(r)")
            #expect(r.stdout.contains("t.csv: 4 titles in"), "\(r)")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path).sorted()
            #expect(names == ["1-One.png", "2-Two,-with-a-comma.png", "3-Three_lines.png", "5-Four.png"], "\(names)")
            // A row is the title `render` makes of the same settings (an empty cell keeps the base value).
            let one = try await CLI.run(["render", "One", "--material", "gold", "--set", "light1.hue=0.1", "--size", "40",
                                         "-o", "one.png", "-q"], in: dir)
            #expect(one.status == 0)
            #expect(try CLI.readPNG(dir.appendingPathComponent("one.png")).pixels
                    == (try CLI.readPNG(dir.appendingPathComponent("out/1-One.png")).pixels))
            let four = try await CLI.run(["render", "Four", "--material", "gold", "--set", "light1.hue=0.4", "-o", "four.png", "-q"], in: dir)
            #expect(four.status == 0)
            #expect(try CLI.readPNG(dir.appendingPathComponent("four.png")).pixels
                    == (try CLI.readPNG(dir.appendingPathComponent("out/5-Four.png")).pixels))
        }
    }

    /// A one-letter output folder is made as any other (issue 31: `-o g` failed with "cannot
    /// open output folder 'g'", since making folders skipped a path's first byte).
    @Test(arguments: ["g", "g/h", "./k"]) func aShortOutputFolderIsMade(_ folder: String) async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("text\nOne\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            let r = try await CLI.run(["batch", "t.csv", "-o", folder, "-q"], in: dir, timeout: Self.deadline)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(folder + "/1-One.png").path))
        }
    }

    /// Over a scene with layers (a lower third), `layers[N].KEY` sets one layer's key and a
    /// plain column every layer's, as --set does; a row used to render the scene unchanged.
    @Test func columnsSetALayeredScenesLayers() async throws {
        try await CLI.withTemporaryDirectory { dir in
            func scene(_ name: String, _ role: String) -> String {
                #"{"width": 640, "height": 240, "anchor": "bottom-left", "margin": "safe", "layers": [{"name": "n", "text": "\#(name)", "size": 48}, {"below": "n", "text": "\#(role)", "size": 24}]}"#
            }
            try Data(scene("Name", "Role").utf8).write(to: dir.appendingPathComponent("base.json"))
            try Data(scene("Alice Smith", "Producer").utf8).write(to: dir.appendingPathComponent("alice.json"))
            try Data("layers[0].text,layers[1].text\nAlice Smith,Producer\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            try Data("text,layers[3].size\nBoth,30\n".utf8).write(to: dir.appendingPathComponent("bad.csv"))
            let r = try await CLI.run(["batch", "t.csv", "--params", "base.json", "--name", "{layers[0].text}", "-o", "out", "-q"],
                                      in: dir, timeout: Self.deadline)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
            let alice = try await CLI.run(["render", "--params", "alice.json", "-o", "alice.png", "-q"], in: dir)
            #expect(alice.status == 0)
            #expect(try CLI.readPNG(dir.appendingPathComponent("out/Alice-Smith.png")).pixels
                    == (try CLI.readPNG(dir.appendingPathComponent("alice.png")).pixels))
            // A plain column is every layer's; a layer the scene lacks is refused before any row.
            let both = try await CLI.run(["render", "--params", "base.json", "--set", "text=Both", "-o", "both.png", "-q"], in: dir)
            #expect(both.status == 0)
            try Data("text\nBoth\n".utf8).write(to: dir.appendingPathComponent("plain.csv"))
            let plain = try await CLI.run(["batch", "plain.csv", "--params", "base.json", "--name", "{text}", "-o", "out", "-q"],
                                          in: dir, timeout: Self.deadline)
            #expect(plain.status == 0, "\(plain)")
            #expect(try CLI.readPNG(dir.appendingPathComponent("out/Both.png")).pixels
                    == (try CLI.readPNG(dir.appendingPathComponent("both.png")).pixels))
            let bad = try await CLI.run(["batch", "bad.csv", "--params", "base.json", "-o", "out", "-q"], in: dir, timeout: Self.deadline)
            #expect(bad.status == 64 && bad.stderrLines == ["error: bad.csv:1: column 'layers[3].size' names layer 3, but the scene has 2 (layers[0] to layers[1]); remove the column or give the scene that layer"], "\(bad)")
            // Past the 16 layers a scene may have, too (issue 31: ignored with a warning, exit 0), before any folder is made.
            for index in ["16", "99", "99999999999999999999"] {
                try Data("text,layers[\(index)].text\nBoth,Lost\n".utf8).write(to: dir.appendingPathComponent("far.csv"))
                let far = try await CLI.run(["batch", "far.csv", "--params", "base.json", "-o", "far", "-q"], in: dir, timeout: Self.deadline)
                #expect(far.status == 64 && far.stderrLines.count == 1, "\(far)")
                #expect(far.stderr.contains("error: far.csv:1: column 'layers[\(index)].text' names layer"), "\(far)")
                #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("far").path))
            }
        }
    }

    @Test func jsonLinesAndShardsSplitTheRowsWithoutOverlap() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let lines = (1...7).map { #"{"text": "T\#($0)", "size": 30, "radius": \#(4 + $0)}"# }.joined(separator: "\n")
            try Data((lines + "\n").utf8).write(to: dir.appendingPathComponent("t.jsonl"))
            var seen: [String] = []
            for k in 1...3 {
                let out = dir.appendingPathComponent("s\(k)")
                try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
                let r = try await CLI.run(["batch", "t.jsonl", "-o", "s\(k)", "--shard", "\(k)/3", "--name", "{row}-{text}", "-q"],
                                          in: dir, timeout: Self.deadline)
                #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
                seen += try FileManager.default.contentsOfDirectory(atPath: out.path)
            }
            #expect(seen.sorted() == (1...7).map { "\($0)-T\($0).png" }.sorted(), "\(seen)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("s2").path).sorted()
                    == ["2-T2.png", "5-T5.png"])
        }
    }

    @Test func twoRowsNeverWriteOneFile() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("text\nSame\nSame\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            let r = try await CLI.run(["batch", "t.csv", "--name", "{text}"], in: dir, timeout: Self.deadline)
            #expect(r.status == 65 && r.stderrLines.count == 1 && r.stderr.contains("t.csv:3:") && r.stderr.contains("put {row} in --name"), "\(r)")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("Same.png").path))
        }
    }

    /// Issue 19, item 9: a link planted in the output folder is refused, never written through.
    @Test func aSymbolicLinkPlantedInTheOutputFolderIsNeverFollowed() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("text\nA\nB\nC\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            try Data("keep".utf8).write(to: dir.appendingPathComponent("outside.png"))
            let out = dir.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("1-A.png").path,
                                                       withDestinationPath: "../outside.png")
            try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("2-B.png").path,
                                                       withDestinationPath: "../created.png")
            let r = try await CLI.run(["batch", "t.csv", "-o", "out"], in: dir, timeout: Self.deadline)
            #expect(r.termination == .exit && r.status == 65, "\(r)")
            #expect(r.stderrLines == ["error: t.csv:2: output 'out/1-A.png' is a symbolic link, which a derived output never follows; remove it or choose another folder",
                                      "error: t.csv:3: output 'out/2-B.png' is a symbolic link, which a derived output never follows; remove it or choose another folder"],
                    "\(r)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("outside.png")) == Data("keep".utf8))
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("created.png").path))
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("3-C.png").path))
            #expect(CLI.temporaryFiles(in: out).isEmpty)
        }
    }

    /// Items 18, 22 and 25: a byte-order mark is skipped; a row with the wrong number of
    /// fields or invalid UTF-8 is reported by its line and the others render.
    @Test func aByteOrderMarkIsSkippedAndBadRowsAreReportedByLine() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let csv = [0xEF, 0xBB, 0xBF] + Array("text,size\nOne,30\nTwo,30,9\nTh".utf8) + [0xFF]
                + Array("ree,30\nFour\nFive,30\n".utf8)
            try Data(csv).write(to: dir.appendingPathComponent("t.csv"))
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
            let r = try await CLI.run(["batch", "t.csv", "-o", "out"], in: dir, timeout: Self.deadline)
            #expect(r.termination == .exit && r.status == 65, "\(r)")
            #expect(r.stderrLines == ["error: t.csv:3: 3 fields, but the header has 2; quote fields that hold commas",
                                      "error: t.csv:4: field 1 ('text') is not valid UTF-8; save the file as UTF-8",
                                      "error: t.csv:5: 1 field, but the header has 2; quote fields that hold commas"], "\(r)")
            #expect(r.stdout.contains("t.csv: 2 titles in") && r.stdout.contains(", 3 refused"), "\(r)")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path).sorted()
            #expect(names == ["1-One.png", "5-Five.png"], "\(names)")

            try Data([0xEF, 0xBB, 0xBF] + Array(#"{"text": "J", "size": 30}"#.utf8)).write(to: dir.appendingPathComponent("j.jsonl"))
            let j = try await CLI.run(["batch", "j.jsonl", "-o", "out"], in: dir, timeout: Self.deadline)
            #expect(j.status == 0 && j.stderr.isEmpty && j.stdout.contains("j.jsonl: 1 title in"), "\(j)")
        }
    }

    /// Items 21 and 22: a missing -o is made; a column that is not a parameter names files.
    @Test func otherColumnsNameTheFilesInAFolderMadeOnDemand() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("text,slug,notes\nFirst Title,first,x\nSecond,second,y\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            let r = try await CLI.run(["batch", "t.csv", "-o", "new/deep/", "--name", "{slug}", "--set", "size=30"],
                                      in: dir, timeout: Self.deadline)
            #expect(r.status == 0, "\(r)")
            #expect(r.stderrLines == ["warning: t.csv:1: column 'notes' is not a parameter and --name does not use it ({notes}); it is ignored"],
                    "\(r)")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("new/deep").path).sorted()
            #expect(names == ["first.png", "second.png"], "\(names)")
        }
    }

    /// Item 23: a missing glyph is told once a character, with the rows' lines.
    @Test func missingGlyphsAreToldOnceACharacterWithTheirRows() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let rows = ["A\u{2603}", "B", "C\u{2603}\u{2605}"] + (4...10).map { "R\($0)\u{2603}" }
            try Data(("text\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: dir.appendingPathComponent("t.csv"))
            let font = CLI.packageRoot.appendingPathComponent("fonts/dosis-extrabold.otf").path
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
            // Without fallback, as an installed face may have the snowman and the star.
            let r = try await CLI.run(["batch", "t.csv", "-o", "out", "--set", "font=\(font)", "--set", "size=24",
                                       "--set", "fallback=false", "-q"],
                                      in: dir, timeout: Self.deadline)
            #expect(r.status == 0, "\(r)")
            #expect(r.stderrLines == [
                "warning: t.csv: font 'dosis-extrabold.otf' has no glyph for '\u{2603}' (U+2603), left blank in lines 2, 4, 5, 6, 7 and 4 more rows",
                "warning: t.csv: font 'dosis-extrabold.otf' has no glyph for '\u{2605}' (U+2605), left blank in line 4",
            ], "\(r)")
        }
    }

    /// Item 15: with named temporaries, SIGINT while both workers write leaves none (and exits 75).
    /// strace holds every PNG write for 2 s, so both workers' temporaries exist at once.
    @Test(.enabled(if: CLIErrorTests.HostileOutputTests.strace != nil, "needs strace to hold the writes"))
    func sigintWhileTwoWorkersWriteLeavesNoTemporary() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(("text\n" + (1...8).map { "T\($0)" }.joined(separator: "\n") + "\n").utf8)
                .write(to: dir.appendingPathComponent("t.csv"))
            let out = dir.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let process = try CLIErrorTests.HostileOutputTests.signalUnderStrace(
                SIGINT, ["batch", "t.csv", "-o", "out", "--set", "size=20", "-q"], inject: "inject=write:delay_exit=2000000",
                namedTemporary: true, in: dir, when: { _ in CLI.temporaryFiles(in: out).count >= 2 })
            // A batch stopped by a signal is worth running again: 75 (EX_TEMPFAIL), not death by the signal.
            #expect(process.terminationReason == .exit && process.terminationStatus == 75,
                    "exit 75: \(process.terminationReason) \(process.terminationStatus)")
            #expect(CLI.temporaryFiles(in: out).isEmpty, "left \(CLI.temporaryFiles(in: out))")
        }
    }

    /// Item 17: rows are streamed, so memory does not grow with their number. One
    /// title (--shard 1/N) of 300,000 rows took about 100 MB when every row was held
    /// (269 MB at a million); now 36 MB at any count (debug build), as 20 rows do.
    @Test func rowsAreStreamedNotHeld() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let rows = 300_000
            var csv = "text,size\n"
            csv.reserveCapacity(rows * 16)
            for i in 1...rows { csv += "Title \(i),20\n" }
            try Data(csv.utf8).write(to: dir.appendingPathComponent("t.csv"))
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
            let r = try await CLI.shell("/usr/bin/time -f 'peak %M' \"$M\" batch t.csv -o out --shard 1/\(rows) -q",
                                        in: dir, timeout: .seconds(120))
            #expect(r.status == 0, "\(r)")
            let peak = r.stderrLines.last.flatMap { $0.hasPrefix("peak ") ? Int($0.dropFirst(5)) : nil } ?? .max
            #expect(peak < 64 * 1024, "peak \(peak) KB")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path) == ["000001-Title-1.png"])
        }
    }

    /// Each row is written as `render` writes its title (`TitleRenderer.writePNG`): a large
    /// one band by band, through the output folder. Three 8K lower thirds (two layers, a
    /// drop shadow) peak under 100 MB (debug build), where each was painted whole in
    /// memory, two at a time (437 MB); each file is `render`'s, byte for byte.
    @Test func largeTitlesAreStreamedAsRenderStreamsThem() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = ##"{"width": 7680, "height": 4320, "anchor": "bottom-left", "margin": "safe", "radius": 24, "##
                + ##""dropShadow": {"distance": 24, "size": 40}, "layers": [{"name": "name", "text": "Jane Doe", "size": 384, "##
                + ##""material": "gold"}, {"name": "role", "below": "name", "gap": 72, "text": "Director of Photography", "##
                + ##""size": 176, "material": "chrome"}]}"##
            try Data(scene.utf8).write(to: dir.appendingPathComponent("scene.json"))
            let roles = ["Gaffer", "Director of Photography", "Colourist"]
            try Data(("layers[1].text\n" + roles.joined(separator: "\n") + "\n").utf8).write(to: dir.appendingPathComponent("t.csv"))
            let r = try await CLI.shell("/usr/bin/time -f 'peak %M' \"$M\" batch t.csv --params scene.json --name '{row}' -o out -q",
                                        in: dir, timeout: .seconds(240))
            #expect(r.status == 0, "\(r)")
            let peak = r.stderrLines.last.flatMap { $0.hasPrefix("peak ") ? Int($0.dropFirst(5)) : nil } ?? .max
            #expect(peak < 150_000, "peak \(peak / 1024) MB")
            let out = dir.appendingPathComponent("out")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["1.png", "2.png", "3.png"])
            for (index, role) in roles.enumerated().prefix(2) {
                let render = try await CLI.run(["render", "--params", "scene.json", "--set", "layers[1].text=\(role)",
                                                "-o", "r.png", "-q"], in: dir, timeout: Self.deadline)
                #expect(render.status == 0, "\(render)")
                #expect(try Data(contentsOf: out.appendingPathComponent("\(index + 1).png"))
                        == Data(contentsOf: dir.appendingPathComponent("r.png")), "row \(index + 1)")
            }
            #expect(CLI.temporaryFiles(in: out).isEmpty)
        }
    }

    /// One process rendering many distinct titles (five fonts, bundled and through
    /// fontconfig, every hue, nine sizes) levels off: what it keeps for one title
    /// (font hashes, shading lookups and layers, fontconfig's answers) is bounded, so
    /// a long batch, watch or editor session does not grow with what it has seen.
    @Test func memoryLevelsOffOverManyDistinctTitles() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let fonts = ["rounded", "serif", "display", "DejaVu Sans:bold", "DejaVu Serif"]
            var peaks: [Int: Int] = [:]
            for rows in [30, 300] {
                var csv = "text,font,light1.hue,light2.x,size\n"
                for i in 0..<rows {
                    csv += "T\(i),\(fonts[i % fonts.count]),\((Double(i) * 0.618).truncatingRemainder(dividingBy: 1)),\(i % 50 - 25),\(12 + i % 9)\n"
                }
                try Data(csv.utf8).write(to: dir.appendingPathComponent("t\(rows).csv"))
                let r = try await CLI.shell("/usr/bin/time -f 'peak %M' \"$M\" batch t\(rows).csv -o out\(rows) -q",
                                            in: dir, timeout: .seconds(240))
                #expect(r.status == 0, "\(r)")
                peaks[rows] = r.stderrLines.last.flatMap { $0.hasPrefix("peak ") ? Int($0.dropFirst(5)) : nil } ?? .max
            }
            let (few, many) = (peaks[30] ?? .max, peaks[300] ?? .max)
            // Ten times the titles: a few MB more at most (allocator slack), not ten times the keeping.
            #expect(many < few + 8 * 1024, "peak \(few) KB for 30 titles, \(many) KB for 300")
        }
    }

    /// Item 25: the help's text fits 80 columns as written (ArgumentParser re-wraps
    /// nothing), so no orphaned words.
    @Test func helpFitsEightyColumns() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let narrow = try await CLI.run(["batch", "--help"], in: dir, environment: ["COLUMNS": "80"])
            let wide = try await CLI.run(["batch", "--help"], in: dir, environment: ["COLUMNS": "300"])
            func description(_ r: CLI.Result) -> String { r.stdout.components(separatedBy: "USAGE:")[0] }
            #expect(narrow.status == 0 && !narrow.stdout.isEmpty)
            #expect(description(narrow) == description(wide), "\(narrow.stdout)")
        }
    }

    @Test func namesAreSafeForFileSystems() {
        var s = RenderSettings()
        s.text = "../etc/passwd\u{1b}[2J: a/b"
        #expect(BatchFile.name("{text}", row: 3, rows: 120, settings: s) == "_etc_passwd_[2J_-a_b.png")
        #expect(BatchFile.name("{row}-{text}", row: 3, rows: 120, settings: s).hasPrefix("003-"))
        #expect(BatchFile.name("", row: 7, rows: 9, settings: s) == "title-7.png")
        #expect(BatchFile.name(String(repeating: "x", count: 400), row: 1, rows: 1, settings: s).utf8.count == 204)
    }
}

extension CLIErrorCase {
    static let batch: [CLIErrorCase] = [
        CLIErrorCase(name: "batch: unknown column", arguments: ["batch", "t.csv"],
                     setup: [.text("t.csv", "text,light1.hew\nA,0.5\n")],
                     status: .batchUsage, fragments: ["t.csv:1: column unknown parameter 'light1.hew'", "did you mean 'light1.hue'?"], output: .none),
        CLIErrorCase(name: "batch: unclosed quote", arguments: ["batch", "t.csv"],
                     setup: [.text("t.csv", "text\n\"A\nB\n")], status: .batchUsage, fragments: ["t.csv:2: a quoted field is never closed"], output: .none),
        CLIErrorCase(name: "batch: -o a file", arguments: ["batch", "t.csv", "-o", "t.csv"],
                     setup: [.text("t.csv", "text\nA\n")], status: .batchUsage, fragments: ["output folder 't.csv' is a file, not a folder"],
                     output: .unchanged("t.csv")),
        CLIErrorCase(name: "batch: -o under a file", arguments: ["batch", "t.csv", "-o", "t.csv/sub"],
                     setup: [.text("t.csv", "text\nA\n")],
                     status: .batchUsage, fragments: ["cannot create output folder 't.csv/sub' (Not a directory)"], output: .unchanged("t.csv")),
        CLIErrorCase(name: "batch: a negative shard", arguments: ["batch", "t.csv", "--shard", "-1/2"],
                     setup: [.text("t.csv", "text\nA\n")], status: .batchUsage, fragments: ["--shard '-1/2' is not a shard; give K/N"], output: .none),
        CLIErrorCase(name: "batch: a column close to a parameter's name", arguments: ["batch", "t.csv", "--name", "{slug}"],
                     setup: [.text("t.csv", "text,slug,sizr\nA,a,9\n")],
                     status: .batchUsage, fragments: ["t.csv:1: column unknown parameter 'sizr'", "did you mean 'size'?"], output: .none),
        unwritableBatchFolder,
        CLIErrorCase(name: "batch: neither csv nor jsonl", arguments: ["batch", "t.txt"],
                     setup: [.text("t.txt", "text\nA\n")], status: .batchUsage, fragments: ["neither .csv nor .jsonl"], output: .none),
        CLIErrorCase(name: "render: several maps to standard output", arguments: ["render", "Hi", "--emit", "color,normal", "-o", "-"],
                     fragments: ["-o must name a file"], output: .none),
        CLIErrorCase(name: "render: several maps beside /dev/null", arguments: ["render", "Hi", "--emit", "height,normal", "-o", "/dev/null"],
                     fragments: ["-o must name a file (the maps go beside it), not '/dev/null' (a character device)"],
                     output: .mustNotExist("/dev/null-height.png")),
        CLIErrorCase(name: "render: a map name planted as a link", arguments: ["render", "Hi", "--emit", "color,height", "-o", "t.png"],
                     setup: [.text("victim.png", "keep"), .symlink("t-height.png", to: "victim.png")],
                     fragments: ["output 't-height.png' is a symbolic link, which a derived output never follows"],
                     output: .unchanged("victim.png")),
        CLIErrorCase(name: "batch: bad shard", arguments: ["batch", "t.csv", "--shard", "4/3"],
                     setup: [.text("t.csv", "text\nA\n")], status: .batchUsage, fragments: ["--shard"], output: .none),
    ]

    /// A folder batch may not write in: checked once, so one line for all the rows.
    static let unwritableBatchFolder: CLIErrorCase = {
        let rows = CLIErrorCase.Setup.text("t.csv", "text\nA\nB\nC\n")
        guard CLI.isRoot else {
            return CLIErrorCase(name: "batch: output folder not writable (chmod 555)", arguments: ["batch", "t.csv", "-o", "locked"],
                                setup: [rows, .directory("locked"), .chmod("locked", 0o555)],
                                status: .batchUsage, fragments: ["output folder 'locked' is not writable"], output: .existingDirectory("locked"))
        }
        // Root passes permission bits; a kernel folder refuses even root.
        return CLIErrorCase(name: "batch: output folder not writable (running as root: /proc/sys)",
                            arguments: ["batch", "t.csv", "-o", "/proc/sys"], setup: [rows],
                            status: .batchUsage, fragments: ["output folder '/proc/sys' is not writable"], output: .none)
    }()
}
