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

/// Standard output and standard error, written so that no failure can stop the
/// program: a closed, full or broken stream loses the text, nothing else. Every
/// line has its control characters escaped, so text quoted from a file or an
/// argument cannot steer the terminal.
enum Console {
    /// Makes sure descriptors 0, 1 and 2 are open (on /dev/null if they were
    /// closed), so that no file opened later takes their place and receives
    /// messages; and turns a reader that has gone into EPIPE errors, not death.
    static func prepareStandardStreams() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 {
            let null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != fd { dup2(null, fd); close(null) }
        }
        signal(SIGPIPE, SIG_IGN)
    }

    static func error(_ line: String) { write(line, to: STDERR_FILENO) }
    static func output(_ line: String, escaping: Bool = true) { write(line, to: STDOUT_FILENO, escaping: escaping) }

    /// Writes `text` and a newline (with `escaping`, every control character in `text` escaped).
    private static func write(_ text: String, to fd: Int32, escaping: Bool = true) {
        let body = text.hasSuffix("\n") ? String(text.dropLast()) : text
        let bytes = Array(((escaping ? body.escapedForTerminal : body) + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
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
