import ArgumentParser
import FoundationEssentials
import MercurialKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How long work shows its progress on standard error.
enum ProgressStyle: String, ChoiceArgument, Sendable {
    /// A bar on a terminal, plain lines anywhere else.
    case auto
    /// One line redrawn in place, at most ten times a second.
    case bar
    /// A line when the work starts and one every few seconds (a log, a CI job, a pipe).
    case plain
    case none
}

/// `--progress`, for the commands whose work takes a while (animate, batch). Its default
/// is `MERCURIAL_PROGRESS` when that is set, else auto.
struct ProgressOption: ParsableArguments {
    @Option(help: ArgumentHelp("How progress is shown on standard error: auto (a bar on a terminal, a plain line every \(Int(Progress.plainInterval.components.seconds)) s elsewhere), bar, plain or none. Default: $MERCURIAL_PROGRESS, else auto.", valueName: "style"))
    var progress: ProgressStyle?

    /// The style, unless `quiet`; an unknown `MERCURIAL_PROGRESS` is an error, as a flag's would be.
    func style(quiet: Bool) throws(MercurialError) -> ProgressStyle {
        guard !quiet else { return .none }
        if let progress { return progress }
        guard let value = ProcessInfo.processInfo.environment["MERCURIAL_PROGRESS"], !value.isEmpty else { return .auto }
        guard let style = ProgressStyle(rawValue: value) else {
            throw MercurialError("MERCURIAL_PROGRESS is '\(value.escapedForTerminal)'; give auto, bar, plain or none")
        }
        return style
    }
}

/// Progress on standard error through `total` items named `unit` (frame, title): a bar
/// with the rate and time left, redrawn at most ten times a second, or plain lines.
final class Progress: Sendable {
    static let plainInterval: Duration = .seconds(5)
    let total: Int
    let unit: String
    let bar: Bool
    let plain: Bool
    private let lastDraw = Mutex<ContinuousClock.Instant?>(nil)

    init(_ total: Int, of unit: String, style: ProgressStyle) {
        self.total = total
        self.unit = unit
        let terminal = isatty(STDERR_FILENO) == 1
        bar = style == .bar || (style == .auto && terminal)
        plain = style == .plain || (style == .auto && !terminal)
    }

    func update(done: Int, since start: ContinuousClock.Instant) {
        guard bar || plain else { return }
        let now = ContinuousClock.now
        let due = lastDraw.withLock { last in
            // A plain log gets its first line at once, then one every few seconds, and the last.
            let wait: Duration = bar ? .milliseconds(100) : Self.plainInterval
            guard done == total || last.map({ now - $0 >= wait }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        let elapsed = Double((now - start).components.seconds) + Double((now - start).components.attoseconds) / 1e18
        let rate = Double(done) / max(elapsed, 1e-9)
        let left = Double(total - done) / max(rate, 1e-9)
        let counts = "\(unit) \(done)/\(total)  \(String(cFormat: "%.1f", rate)) \(unit)s/s  \(String(cFormat: "%.0f", left)) s left"
        if bar {
            let width = 30, filled = width * done / max(total, 1)
            let drawn = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
            write("\r\(drawn) \(counts) ")
        } else {
            write(counts + "\n")
        }
    }

    /// Takes the bar off the line before anything else is printed there.
    func clear() {
        guard bar else { return }
        write("\r" + String(repeating: " ", count: 80) + "\r")
    }

    private func write(_ text: String) {
        _ = text.withCString { Glibc.write(STDERR_FILENO, $0, strlen($0)) }
    }
}
