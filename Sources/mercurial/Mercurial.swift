import ArgumentParser
import FoundationEssentials
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

@main
struct Mercurial: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mercurial",
        abstract: "Renders a line of text as an embossed liquid-metal PNG title, lit by four coloured lights.",
        discussion: """
        'mercurial TEXT' renders TEXT (render is the default command). A text that is a
        command's name or a slip for one (edit, inpsect) is taken as that command or
        refused; to render it, name the command and end the options:
          mercurial render -- inpsect
        """,
        version: MercurialVersion.string,
        subcommands: [Render.self, Watch.self, Edit.self, Serve.self, Sign.self, Animate.self, Batch.self, Inspect.self, Shading.self, Params.self, Materials.self, Fonts.self],
        defaultSubcommand: Render.self
    )

    /// The most arguments taken. ArgumentParser's time grows with the square of
    /// their number (each one parsed is removed from an array), and no real
    /// command line comes near this: settings in bulk belong in a scene file.
    static let maximumArgumentCount = 512

    /// Runs the command; every failure is one `error:` line on stderr and a non-zero exit.
    static func main() {
        Console.prepareStandardStreams()
        ProcessMemory.keepFreedBlocksForReuse()
        SignalCleanup.install()
        let cache = ShadingDiskCache.fromEnvironment()
        ShadingSphere.keepFirstSphere(in: cache)
        SceneRecipe.keepFontHashes(in: cache)
        HeightFieldFromMask.keepFirstCurve(in: cache)
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count <= maximumArgumentCount else {
            fail("\(arguments.count) command-line arguments, over the limit of \(maximumArgumentCount); put the settings in a scene file and pass it with --params", status: MercurialError.Kind.limit.exitStatus)
        }
        if let first = arguments.first, let near = nearSubcommand(first, alone: arguments.count == 1) {
            fail("'\(first)' is not a command; did you mean \(near)? (to render it as a title: mercurial render -- \(first))", status: 64)
        }
        let parser = parser(for: arguments)
        do {
            var command = try parse(arguments)
            try command.run()
        } catch let error as MercurialError {
            fail(error.message, status: error.kind.exitStatus)
        } catch let code as ExitCode {
            // The command has said what went wrong itself (batch: one line per failed row).
            Glibc.exit(code.rawValue)
        } catch {
            let code = parser.exitCode(for: error), message = parser.fullMessage(for: error)
            if code == .success {
                Console.output(message + "\n", escaping: false)
                Glibc.exit(0)
            }
            // ArgumentParser's usage errors: keep its message, on one line.
            fail("\(oneLine(usageError: message, arguments: arguments))\(quoteHint(message, arguments)) (see 'mercurial help')",
                 status: code.rawValue)
        }
    }

    /// The command `arguments` give, as `parser(for:)` parses them.
    static func parse(_ arguments: [String]) throws -> ParsableCommand {
        parser(for: arguments) == Render.self ? try Render.parseAsRoot(Array(arguments.dropFirst())) : try parseAsRoot(arguments)
    }

    /// Which command parses `arguments` (and so makes their errors' messages). `mercurial
    /// render …` is parsed by Render itself: from the root, ArgumentParser first makes all of
    /// render's options only to learn whether one takes the rest of the line (a twentieth of a
    /// 1080p title's time). Help, the version and completion scripts, which name the command,
    /// go through the root, and so does every other command.
    static func parser(for arguments: [String]) -> ParsableCommand.Type {
        arguments.first == "render" && !arguments.contains(where: forTheRoot) ? Render.self : Mercurial.self
    }

    /// An argument that asks ArgumentParser's root for help, the version or a completion
    /// script: `help`, `--help…`, `--version`, `--generate-completion-script`, its
    /// `--experimental…` and `---…` flags, and a single dash with an h (`-h`, `-help`, `-qh`).
    static func forTheRoot(_ argument: String) -> Bool {
        if argument == "help" { return true }
        if argument.hasPrefix("--") {
            return ["--help", "--version", "--generate-completion-script", "--experimental", "---"].contains { argument.hasPrefix($0) }
        }
        return argument.hasPrefix("-") && argument.contains("h")
    }
}

/// ArgumentParser's usage error on one line. A flag's choices, which it lists one a line
/// when there are six or more (`--anchor`), are put on that line, and a value that is a
/// slip for one of them (at most two letters wrong) gets a did-you-mean. A negative number
/// after a flag is taken for a flag itself ("Missing value"), so that error says to join them.
func oneLine(usageError text: String, arguments: [String]) -> String {
    let lines = text.split(separator: "\n").map { $0.trimmingWhitespace() }
    let first = lines.first { !$0.isEmpty } ?? text
    var message = first.hasPrefix("Error: ") ? String(first.dropFirst(7)) : first
    var choices: [String] = []
    if message.hasSuffix(" one of the following:") {
        choices = lines.filter { $0.hasPrefix("- ") }.map { String($0.dropFirst(2)) }
        message = String(message.dropLast(" the following:".count)) + " "
            + choices.dropLast().map { "'\($0)'" }.joined(separator: ", ") + " or '\(choices.last ?? "")'."
    } else if let list = message.firstRange(of: "Please provide one of ") {
        // 'a', 'b' or 'c'.: every other piece between quotes.
        let pieces = message[list.upperBound...].split(separator: "'", omittingEmptySubsequences: false)
        choices = pieces.enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
    if message.hasPrefix("The value '"), let end = message.firstRange(of: "' is invalid") {
        let value = message[message.index(message.startIndex, offsetBy: 11)..<end.lowerBound].lowercased()
        if let near = choices.map({ (name: $0, distance: editDistance(value, $0)) })
            .filter({ $0.distance <= 2 && $0.distance < $0.name.count }).min(by: { $0.distance < $1.distance }) {
            message += " Did you mean '\(near.name)'?"
        }
    }
    if message.hasPrefix("Missing value for '--"), let flag = message.dropFirst(19).split(separator: " ").first,
       let at = arguments.firstIndex(of: String(flag)), at + 1 < arguments.count,
       startsNegativeNumber(arguments[at + 1]) {
        message += "; a negative value goes after an equals sign: \(flag)=\(arguments[at + 1])"
    }
    return message
}

/// What the first argument `word` is a slip for, as it goes in "did you mean …?", when
/// it is one word of letters, no file and not itself a command: a command at most two
/// letters off (added, dropped, wrong or swapped; one for a name of five letters or
/// fewer) or one it begins (`anim`); and, as the only argument, a word people type for
/// an option or a listing (`version`, `list`). `mercurial inpsect title.png` and
/// `mercurial version` would otherwise render the word over title.png.
func nearSubcommand(_ word: String, alone: Bool = false) -> String? {
    let names = Mercurial.configuration.subcommands.map { $0._commandName } + ["help"]
    let lower = word.lowercased()
    guard !names.contains(word), lower.count >= 2, lower.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) }),
          !FileManager.default.fileExists(atPath: word) else { return nil }
    let listings = "'mercurial materials', 'mercurial fonts' or 'mercurial params'"
    let habits = ["version": "'mercurial --version'", "ver": "'mercurial --version'", "usage": "'mercurial help'",
                  "list": listings, "ls": listings]
    if alone, let habit = habits[lower] { return habit }
    guard lower.count >= 3 else { return nil }
    if lower.count >= 4, let begun = names.first(where: { $0.hasPrefix(lower) }) { return "'mercurial \(begun)'" }
    return names.map { (name: $0, distance: editDistance(lower, $0)) }
        .filter { $0.distance <= ($0.name.count <= 5 ? 1 : 2) }
        .min { $0.distance < $1.distance }.map { "'mercurial \($0.name)'" }
}

/// Whether `argument` reads as a negative number: a dash, then a digit or a point.
func startsNegativeNumber(_ argument: String) -> Bool {
    guard argument.hasPrefix("-"), let next = argument.dropFirst().first else { return false }
    return next == "." || ("0"..."9").contains(next)
}

/// For "Unexpected argument 'world'" after a text (`mercurial Hello world`, or "2 unexpected
/// arguments" for three words): a title of several words goes in quotes, as one argument.
func quoteHint(_ usageError: String, _ arguments: [String]) -> String {
    guard let start = usageError.firstRange(of: "nexpected argument"),
          let open = usageError[start.upperBound...].firstIndex(of: "'"),
          let close = usageError[usageError.index(after: open)...].firstIndex(of: "'") else { return "" }
    let extra = String(usageError[usageError.index(after: open)..<close])
    let commands = Set(Mercurial.configuration.subcommands.map { $0._commandName })
    /// A word of the text: not an option, not an option's value, not the command.
    func isWord(_ i: Int) -> Bool {
        !arguments[i].hasPrefix("-") && (i == 0 || !arguments[i - 1].hasPrefix("-")) && !(i == 0 && commands.contains(arguments[i]))
    }
    guard let at = arguments.firstIndex(of: extra), at > 0 else { return "" }
    var first = at, last = at
    while first > 0, isWord(first - 1) { first -= 1 }
    while last + 1 < arguments.count, isWord(last + 1) { last += 1 }
    // Only render takes a text (the default command).
    guard last > first, !commands.contains(arguments[0]) || arguments[0] == "render" else { return "" }
    return "; a title of several words goes in quotes: mercurial render \"\(arguments[first...last].joined(separator: " ").escapedForTerminal)\""
}

/// Optimal string alignment distance: insertions, deletions, substitutions and
/// swaps of neighbours each count one.
func editDistance(_ a: String, _ b: String) -> Int {
    let x = Array(a), y = Array(b)
    var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
    for i in 0...x.count { d[i][0] = i }
    for j in 0...y.count { d[0][j] = j }
    for i in stride(from: 1, through: x.count, by: 1) {
        for j in stride(from: 1, through: y.count, by: 1) {
            let cost = x[i - 1] == y[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
        }
    }
    return d[x.count][y.count]
}

func fail(_ message: String, status: Int32) -> Never {
    Console.error("error: " + message)
    exit(status)
}

func warn(_ warning: MercurialWarning) {
    Console.error("warning: \(warning.message)")
}

extension Cancellation {
    /// What stops the command line's jobs: SIGINT, SIGTERM or SIGHUP once `animate` has
    /// installed `SignalCleanup.installDeferred` (the other commands' handlers end the
    /// process at once, so this never stops them).
    static let signal = Cancellation { SignalCleanup.stopRequested.map { "signal \($0)" } }
}
