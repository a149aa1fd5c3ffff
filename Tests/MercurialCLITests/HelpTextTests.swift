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

    /// Issue 31: usage lines of 248 and 161 characters; -o's help told animate and watch
    /// about render --from; --margin and --offset showed no default.
    @Test func usageLinesAreShortAndEachOptionSaysItsDefault() async throws {
        for command in ["render", "watch", "edit", "animate", "batch", "inspect", "shading", "params", "materials", "fonts"] {
            let text = try await help([command])
            let usage = text.split(separator: "\n").first { $0.hasPrefix("USAGE:") } ?? ""
            #expect(!usage.isEmpty && usage.count <= 100, "\(command): \(usage.count) characters: \(usage)")
            if ["animate", "watch"].contains(command) { #expect(!text.contains("TITLE-N"), "\(command): \(text)") }
        }
        let render = try await help(["render"]).replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression)
        #expect(render.contains("radius plus 4 px (default: auto)"), "\(render)")
        #expect(render.contains("--offset=-20,10 (default: 0,0)"), "\(render)")
        #expect(!render.contains("null:"), "\(render)")
    }

    @Test func theTopLevelHelpSaysHowToRenderACommandsName() async throws {
        let text = try await help([])
        #expect(text.contains("mercurial render -- inpsect"), "\(text)")
    }
}
