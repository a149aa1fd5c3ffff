import ArgumentParser
import Foundation
import MercurialKit

@main
struct Mercurial: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mercurial",
        abstract: "Renders a line of text as an embossed liquid-metal PNG title, lit by four coloured lights.",
        subcommands: [Render.self, Watch.self, Shading.self, Params.self, Materials.self, Fonts.self],
        defaultSubcommand: Render.self
    )

    /// Runs the command; every failure is one `error:` line on stderr and a non-zero exit.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as MercurialError {
            fail(error.message, status: 1)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            // ArgumentParser's usage errors: keep its message, on one line.
            let lines = fullMessage(for: error).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let first = lines.first { !$0.isEmpty } ?? "\(error)"
            let message = first.hasPrefix("Error: ") ? String(first.dropFirst(7)) : first
            fail("\(message) (see 'mercurial help')", status: code.rawValue)
        }
    }
}

func fail(_ message: String, status: Int32) -> Never {
    let line = "error: " + message.replacingOccurrences(of: "\n", with: " ") + "\n"
    FileHandle.standardError.write(line.data(using: .utf8)!)
    Foundation.exit(status)
}

func warn(_ warning: MercurialWarning) {
    FileHandle.standardError.write("warning: \(warning.message)\n".data(using: .utf8)!)
}
