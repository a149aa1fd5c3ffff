import Foundation
import Testing
import MercurialTestSupport

/// Issue 31: long work is not silent without a terminal. animate counts frames and batch
/// titles, in plain lines when standard error is not a terminal (as here), a bar on one;
/// every command ends with a summary line.
@Suite struct ProgressTests {
    static let scene = #"{"text": "Hi", "size": 30, "width": 120, "height": 60, "animation": {"duration": 1, "fps": 12}}"#

    @Test func animateCountsFramesInPlainLines() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(Self.scene.utf8).write(to: dir.appendingPathComponent("s.json"))
            // The default (auto) without a terminal is plain, as MERCURIAL_PROGRESS unset leaves it.
            let r = try await CLI.run(["animate", "s.json", "-o", "a.apng"], in: dir, environment: ["MERCURIAL_PROGRESS": nil],
                                      timeout: .seconds(120))
            #expect(r.status == 0, "\(r)")
            let lines = r.stderrLines
            // The first line at once, then every few seconds, and the last.
            #expect(lines.first?.hasPrefix("frame 1/12  ") == true, "\(lines)")
            #expect(lines.last?.hasPrefix("frame 12/12  ") == true, "\(lines)")
            #expect(lines.allSatisfy { $0.range(of: #"^frame \d+/12  [0-9.]+ frames/s  \d+ s left$"#, options: .regularExpression) != nil },
                    "\(lines)")
            #expect(r.stdout.hasPrefix("a.apng: 12 frames"), "\(r)")
            // --progress none, -q, and the environment's default each silence it.
            for (arguments, environment) in [(["--progress", "none"], [String: String?]()), (["-q"], [:]),
                                             ([], ["MERCURIAL_PROGRESS": "none"])] {
                let quiet = try await CLI.run(["animate", "s.json", "-o", "b.apng"] + arguments, in: dir, environment: environment,
                                              timeout: .seconds(120))
                #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(arguments) \(environment): \(quiet)")
            }
            let bad = try await CLI.run(["animate", "s.json", "-o", "c.apng"], in: dir, environment: ["MERCURIAL_PROGRESS": "loud"])
            #expect(bad.status == 1 && bad.stderrLines == ["error: MERCURIAL_PROGRESS is 'loud'; give auto, bar, plain or none"], "\(bad)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("c.apng").path))
        }
    }

    @Test func batchCountsTitles() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("text\nOne\nTwo\nThree\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            let r = try await CLI.run(["batch", "t.csv", "-o", "out", "--progress", "plain"], in: dir, timeout: .seconds(120))
            #expect(r.status == 0, "\(r)")
            #expect(r.stderrLines.first?.hasPrefix("title ") == true && r.stderrLines.last?.hasPrefix("title 3/3  ") == true,
                    "\(r.stderrLines)")
            #expect(r.stderrLines.allSatisfy { $0.contains("titles/s") && !$0.contains("frame") }, "\(r.stderrLines)")
        }
    }

    @Test func shadingEndsWithASummaryLine() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["shading", "--size", "64", "-o", "s.png"], in: dir)
            #expect(r.status == 0 && r.stdout == "s.png 64×64\n" && r.stderr.isEmpty, "\(r)")
            let quiet = try await CLI.run(["shading", "--size", "64", "-o", "q.png", "-q"], in: dir)
            #expect(quiet.status == 0 && quiet.stdout.isEmpty, "\(quiet)")
        }
    }
}
