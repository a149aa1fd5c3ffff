import Foundation
import Testing
@testable import MercurialKit

@Suite(.serialized) struct BatchTests {
    static let deadline: Duration = .seconds(120)

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
            #expect(r.termination == .exit && r.status == 1, "\(r)")
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
            #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("t.csv:3:") && r.stderr.contains("put {row} in --name"), "\(r)")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("Same.png").path))
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
                     fragments: ["t.csv:1: column unknown parameter 'light1.hew'", "did you mean 'light1.hue'?"], output: .none),
        CLIErrorCase(name: "batch: unclosed quote", arguments: ["batch", "t.csv"],
                     setup: [.text("t.csv", "text\n\"A\nB\n")], fragments: ["t.csv:2: a quoted field is never closed"], output: .none),
        CLIErrorCase(name: "batch: wrong field count", arguments: ["batch", "t.csv"],
                     setup: [.text("t.csv", "text,size\nA,40,9\n")], fragments: ["t.csv:2: 3 fields, but the header has 2"],
                     output: .none),
        CLIErrorCase(name: "batch: missing output folder", arguments: ["batch", "t.csv", "-o", "nowhere"],
                     setup: [.text("t.csv", "text\nA\n")], fragments: ["output folder 'nowhere' does not exist"], output: .none),
        CLIErrorCase(name: "batch: neither csv nor jsonl", arguments: ["batch", "t.txt"],
                     setup: [.text("t.txt", "text\nA\n")], fragments: ["neither .csv nor .jsonl"], output: .none),
        CLIErrorCase(name: "render: several maps to standard output", arguments: ["render", "Hi", "--emit", "color,normal", "-o", "-"],
                     fragments: ["-o must name a file"], output: .none),
        CLIErrorCase(name: "batch: bad shard", arguments: ["batch", "t.csv", "--shard", "4/3"],
                     setup: [.text("t.csv", "text\nA\n")], status: .usage, fragments: ["--shard"], output: .none),
    ]
}
