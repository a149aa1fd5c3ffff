import ArgumentParser
import Foundation
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

@main
struct Mercurial: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mercurial",
        abstract: "Renders a line of text as an embossed liquid-metal PNG title, lit by four coloured lights.",
        version: MercurialVersion.string,
        subcommands: [Render.self, Watch.self, Edit.self, Animate.self, Batch.self, Inspect.self, Shading.self, Params.self, Materials.self, Fonts.self],
        defaultSubcommand: Render.self
    )

    /// The most arguments taken. ArgumentParser's time grows with the square of
    /// their number (each one parsed is removed from an array), and no real
    /// command line comes near this: settings in bulk belong in a scene file.
    static let maximumArgumentCount = 512

    /// Runs the command; every failure is one `error:` line on stderr and a non-zero exit.
    static func main() {
        Console.prepareStandardStreams()
        SignalCleanup.install()
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count <= maximumArgumentCount else {
            fail("\(arguments.count) command-line arguments, over the limit of \(maximumArgumentCount); put the settings in a scene file and pass it with --params", status: 1)
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let error as MercurialError {
            fail(error.message, status: 1)
        } catch let code as ExitCode {
            // The command has said what went wrong itself (batch: one line per failed row).
            Foundation.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                Console.output(fullMessage(for: error) + "\n", escaping: false)
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
    Console.error("error: " + message)
    exit(status)
}

func warn(_ warning: MercurialWarning) {
    Console.error("warning: \(warning.message)")
}
