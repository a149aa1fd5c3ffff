import Foundation
import Testing
import MercurialTestSupport

/// What `--help` says is what the command does.
@Suite struct HelpTextTests {
    func help(_ arguments: [String]) async throws -> String {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(arguments + ["--help"], in: dir)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
            return r.stdout
        }
    }

    @Test func animateAndWatchListOnlyWhatTheyTake() async throws {
        for command in ["animate", "watch"] {
            let text = try await help([command])
            // They take the scene as their argument and refused --params.
            #expect(!text.contains("--params"), "\(command) --help lists --params: \(text)")
            #expect(!text.contains("The PNG to write"), "\(command) writes more than PNGs: \(text)")
            #expect(text.contains("-o, --output <file>"), "\(text)")
        }
        for command in ["render", "batch", "params", "shading"] {
            #expect(try await help([command]).contains("--params <scene.json>"), "\(command) takes --params")
        }
    }

    @Test func theTopLevelHelpSaysHowToRenderACommandsName() async throws {
        let text = try await help([])
        #expect(text.contains("mercurial render -- inpsect"), "\(text)")
    }
}
