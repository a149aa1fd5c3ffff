import ArgumentParser
import Dispatch
import Foundation
import MercurialKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a title for each row of a CSV or JSON Lines file.",
        usage: "mercurial batch <file> [-o <dir>] [--name <template>] [--shard <K/N>] [<options>]",
        discussion: """
        A CSV's header row names parameter keys (text, size, light1.hue, diffuse, …);
        each row sets them on the base scene (--params, --material, --set), an empty
        cell keeping the base's value. Other columns (a slug) serve --name: {slug}.
        A JSON Lines file has one scene object a line. A bad row is reported as
        FILE:LINE and the others still render; the exit status is 1 if any failed.
        Rows render in one process, two at a time, each on every core. The output
        folder is made if missing; no title is written through a symbolic link in
        it, and no two rows write one file.

        To split a job over machines, give each one a shard: row r (1-based) belongs
        to shard ((r − 1) mod N) + 1, so no coordination is needed; e.g. over SSH:
          parallel -S host1,host2 mercurial batch t.csv --shard {}/2 -o out ::: 1 2

        Examples:
          mercurial batch titles.csv --params base.json -o out --name '{row}-{text}'
          mercurial batch episodes.jsonl --material gold -o titles
        """
    )

    @Argument(help: "A .csv file (a header row of parameter keys) or a .jsonl file (a scene object a line).")
    var file: String

    @OptionGroup var sceneOption: SceneFileOption
    @OptionGroup var materialOptions: MaterialOptions

    @Option(name: [.short, .long], help: ArgumentHelp("The folder to write the titles in (made if missing).", valueName: "dir"))
    var output: String = "."

    @Option(help: ArgumentHelp("Each title's file name: {row} is the row's number, {KEY} a column's or any parameter's value; made safe for file systems, .png added unless it ends in .png, .jpg (.jpeg) or .webp, the format it is then written in.", valueName: "template"))
    var name: String = "{row}-{text}"

    @Option(parsing: .unconditional, help: ArgumentHelp("Render only shard K of N (1 ≤ K ≤ N): rows K, K + N, K + 2N, …", valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("PNG compression: fast, small or none (as render's).", valueName: "level"))
    var compression: PNGFile.Compression = .fast

    @Flag(help: "Leave out the recipe each PNG otherwise carries.")
    var noMetadata = false

    @OptionGroup var still: StillOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @OptionGroup var progressOption: ProgressOption

    /// `--shard K/N`.
    struct Shard: Sendable {
        var k: Int, n: Int

        /// Parsed by hand: ArgumentParser would take `-1/2` for an unknown flag and say "Missing value".
        init(_ argument: String) throws(MercurialError) {
            let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else {
                throw MercurialError("--shard '\(argument.escapedForTerminal)' is not a shard; give K/N with 1 ≤ K ≤ N, e.g. --shard 1/2")
            }
            self.k = k
            self.n = n
        }

        func contains(_ row: Int) -> Bool { (row - 1) % n == k - 1 }

        /// How many of `rows` rows are in the shard.
        func count(of rows: Int) -> Int { rows / n + (rows % n >= k ? 1 : 0) }
    }

    func run() throws {
        let shard = try self.shard.map { argument throws(MercurialError) in try Shard(argument) }
        let (format, ext) = StillFormat.forTemplate(name)
        let encoding = try StillEncoding.checked(format, quality: still.quality, lossless: still.lossless,
                                                 progressive: still.progressive)
        try InputFile.refuseIfNotRegular(file, role: "batch file")
        let base = try materialOptions.settings(sceneFile: sceneOption.sceneFile)
        let batch = try BatchFile(path: file)
        let place = "\(UserPath(checked: file))"
        try Self.checkColumns(batch, template: name, place: place)
        try batch.checkLayerColumns(layers: base.layers.count)
        let folder = try OutputFolder(output, create: true)

        let total = shard?.count(of: batch.rowCount) ?? batch.rowCount
        let progress = Progress(total, of: "title", style: try progressOption.style(quiet: quiet))
        let run = BatchRun(batch: batch, rows: try batch.rows(), base: base, template: name, extension: ext, shard: shard,
                           folder: folder, place: place, progress: progress)
        let start = ContinuousClock.now
        let noMetadata = self.noMetadata, compression = self.compression
        // Two titles at a time (each render also spreads over the cores), each worker
        // taking the next row as it is read. Not a task group: with the workers on the
        // cooperative pool, 24 small titles took 1.1 s instead of 0.2 s here (measured;
        // each render blocks a pool thread while its own pixel loops want the cores).
        DispatchQueue.concurrentPerform(iterations: max(1, min(2, total))) { _ in
            while let job = run.nextJob() {
                do {
                    // As render writes its title: a large one band by band, through the folder.
                    let still = StillJob(settings: job.settings, encoding: encoding, compression: compression,
                                         recipe: !noMetadata)
                    let report = try RenderJob.run(still, to: .folder(folder, name: job.name), cancellation: .signal)
                    run.rendered(job, warnings: report.warnings, since: start)
                } catch {
                    run.failed(line: job.line, (error as? MercurialError)?.message ?? "\(error)", since: start)
                }
            }
        }
        progress.clear()
        let outcome = run.finish()
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if !quiet {
            Console.output(String(format: "%@: %d title%@ in %.2f s (%.1f titles/s)%@", place, outcome.rendered,
                                  outcome.rendered == 1 ? "" : "s", seconds, Double(outcome.rendered) / max(seconds, 1e-9),
                                  outcome.failed == 0 ? "" : ", \(outcome.failed) failed"))
        }
        if outcome.failed > 0 { throw ExitCode(1) }
    }

    /// Columns that are not parameters serve `--name` (a CMS export's `slug`); one
    /// that no template uses is ignored with a warning, or refused if it is close to a
    /// parameter's name (a typo would otherwise lose its values silently).
    static func checkColumns(_ batch: BatchFile, template: String, place: String) throws(MercurialError) {
        let used = BatchFile.keys(of: template)
        for column in batch.columns where !used.contains(column.name) {
            guard let problem = column.problem else { continue }
            if column.nearParameter {
                throw MercurialError("\(place):\(batch.headerLine): column \(problem)")
            }
            warn(MercurialWarning("\(place):\(batch.headerLine): column '\(column.name.escapedForTerminal)' is not a parameter and --name does not use it ({\(column.name.escapedForTerminal)}); it is ignored"))
        }
    }
}

/// A row to render: its settings and its file's name in the output folder.
struct BatchJob: Sendable {
    var line: Int
    var settings: RenderSettings
    var name: String
}

/// The rows being rendered: the workers take the next row as it is read, so memory
/// does not grow with their number; errors are printed as they happen; missing
/// glyphs are gathered and told once per character at the end.
final class BatchRun: Sendable {
    private let batch: BatchFile
    private let base: RenderSettings
    private let template: String
    /// The files' extension (`StillFormat.forTemplate`).
    private let fileExtension: String
    private let shard: Batch.Shard?
    private let folder: OutputFolder
    private let place: String
    private let progress: Progress
    private let state: Mutex<State>

    /// The most characters whose rows are told; the rest are counted.
    static let trackedCharacters = 256
    /// The most rows named for a character.
    static let namedRows = 5

    struct Missing: Hashable { var font: String, character: Character }

    struct State: ~Copyable {
        var rows: BatchFile.Rows
        /// Each name written (by its hash: 8 bytes a row, not the name; two names
        /// sharing a 64-bit hash, about 1 in 10^7 at a million rows, would be
        /// refused as a clash) and the line that wrote it.
        var names: [Int: Int32] = [:]
        var missing: [Missing: (lines: [Int], count: Int)] = [:]
        var missingOrder: [Missing] = []
        var untrackedRows = 0
        var done = 0, rendered = 0, failed = 0
        var stopped = false
    }

    init(batch: BatchFile, rows: sending BatchFile.Rows, base: RenderSettings, template: String, extension ext: String,
         shard: Batch.Shard?, folder: OutputFolder, place: String, progress: Progress) {
        self.batch = batch
        self.base = base
        self.template = template
        fileExtension = ext
        self.shard = shard
        self.folder = folder
        self.place = place
        self.progress = progress
        state = Mutex(State(rows: rows))
    }

    /// The next row of the shard with its settings and name; rows that fail on the
    /// way are reported. Nil at the end.
    func nextJob() -> BatchJob? {
        state.withLock { state -> BatchJob? in
            while !state.stopped {
                let row: BatchFile.Row
                do throws(MercurialError) {
                    if let shard, !shard.contains(state.rows.nextIndex) {
                        if try !state.rows.skip() { state.stopped = true }
                        continue
                    }
                    guard let next = try state.rows.next() else { state.stopped = true; return nil }
                    row = next
                } catch {
                    report(error.message, &state)
                    state.stopped = true
                    return nil
                }
                do throws(MercurialError) {
                    let settings = try batch.settings(for: row, base: base)
                    let name = BatchFile.name(template, row: row.index, rows: batch.rowCount, settings: settings,
                                              other: batch.otherColumns(of: row), extension: fileExtension)
                    if let other = state.names[name.hashValue] {
                        throw MercurialError("output '\(folder.display(name))' is also line \(other)'s; put {row} in --name")
                    }
                    state.names[name.hashValue] = Int32(clamping: row.line)
                    try folder.check(name)
                    return BatchJob(line: row.line, settings: settings, name: name)
                } catch {
                    report("\(place):\(row.line): \(error.message)", &state)
                }
            }
            return nil
        }
    }

    func rendered(_ job: BatchJob, warnings: [MercurialWarning], since start: ContinuousClock.Instant) {
        state.withLock { state in
            state.rendered += 1
            state.done += 1
            for case let missing? in warnings.map(\.missingGlyphs) {
                var untracked = false
                for character in missing.characters {
                    let key = Missing(font: missing.font, character: character)
                    if let seen = state.missing[key] {
                        // The first rows by line, whichever worker finishes first.
                        let lines = (seen.lines + [job.line]).sorted().prefix(Self.namedRows)
                        state.missing[key] = (Array(lines), seen.count + 1)
                    } else if state.missingOrder.count < Self.trackedCharacters {
                        state.missing[key] = ([job.line], 1)
                        state.missingOrder.append(key)
                    } else {
                        untracked = true
                    }
                }
                if untracked { state.untrackedRows += 1 }
            }
            progress.update(done: state.done, since: start)
        }
    }

    func failed(line: Int, _ message: String, since start: ContinuousClock.Instant) {
        state.withLock { state in
            report("\(place):\(line): \(message)", &state)
            progress.update(done: state.done, since: start)
        }
    }

    private func report(_ message: String, _ state: inout State) {
        progress.clear()
        Console.error("error: \(message)")
        state.failed += 1
        state.done += 1
    }

    /// Tells the missing glyphs, once a character; the counts of titles.
    func finish() -> (rendered: Int, failed: Int) {
        state.withLock { state in
            let missing = state.missing
            for key in state.missingOrder.sorted(by: { (missing[$0]?.lines.first ?? 0) < (missing[$1]?.lines.first ?? 0) }) {
                guard let seen = missing[key] else { continue }
                let lines = seen.lines.map(String.init).joined(separator: ", ")
                let more = seen.count - seen.lines.count
                let rows = seen.count == 1 ? "line \(lines)" : "lines \(lines)\(more > 0 ? " and \(more) more row\(more == 1 ? "" : "s")" : "")"
                warn(MercurialWarning("\(place): font '\(key.font.escapedForTerminal)' has no glyph for \(MercurialWarning.describe(key.character)), left blank in \(rows)"))
            }
            if state.untrackedRows > 0 {
                warn(MercurialWarning("\(place): \(state.untrackedRows) more row\(state.untrackedRows == 1 ? "" : "s") lack glyphs for still other characters"))
            }
            return (state.rendered, state.failed)
        }
    }
}
