import ArgumentParser
import Dispatch
import FoundationEssentials
import MercurialKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Render a title for each row of a CSV or JSON Lines file.",
        usage: "mercurial batch <file> [-o <dir>] [--name <template>] [--shard <K/N|auto>] [<options>]",
        discussion: """
        A CSV's header row names parameter keys (text, size, light1.hue, diffuse, …);
        each row sets them on the base scene (--params, --material, --set), an empty
        cell keeping the base's value. Other columns (a slug) serve --name: {slug}.
        A JSON Lines file has one scene object a line. A bad row is reported as
        FILE:LINE and the others still render. Rows render in one process, two at a
        time, each on every core. The output folder is made if missing; each title
        appears whole (written aside and renamed), never through a symbolic link,
        and no two rows write one file.

        To split a job over machines, give each one a shard: row r (1-based) belongs
        to shard ((r − 1) mod N) + 1, so no coordination is needed. --shard auto
        reads K and N from the scheduler that started the task:
          Slurm array      SLURM_ARRAY_TASK_ID, _COUNT, _MIN, _STEP
          Kubernetes       JOB_COMPLETION_INDEX (give the count: --shard auto/N)
          AWS Batch        AWS_BATCH_JOB_ARRAY_INDEX (_SIZE, or auto/N)
          Cloud Run        CLOUD_RUN_TASK_INDEX, CLOUD_RUN_TASK_COUNT
          Google Batch     BATCH_TASK_INDEX, BATCH_TASK_COUNT
          GNU parallel     PARALLEL_SEQ (auto/N), or --shard {}/N
        A task run twice, or again after a kill, with --skip-existing renders only
        the rows whose title is missing or carries another recipe.

        Exit status: 0 every row written or skipped; 65 some rows refused for their
        input (retrying will not help); 75 a failure worth retrying (disk full, an
        I/O error, a signal); 64 a bad command line, batch file or base scene.

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

    @Option(parsing: .unconditional, help: ArgumentHelp("Render only shard K of N (1 ≤ K ≤ N): rows K, K + N, K + 2N, …; auto (or auto/N) reads them from the scheduler (see below).", valueName: "K/N"))
    var shard: String?

    @Flag(help: "Leave a row alone when its file is a whole title carrying the same recipe (resuming a killed or repeated task).")
    var skipExisting = false

    @Option(help: ArgumentHelp("Append a line of JSON for each row as it finishes (row, output, SHA-256, written/skipped/refused/failed).", valueName: "file"))
    var manifest: String?

    @Option(help: ArgumentHelp("PNG compression: fast, small or none (as render's).", valueName: "level"))
    var compression: PNGFile.Compression = .fast

    @Flag(help: "Leave out the recipe each PNG otherwise carries.")
    var noMetadata = false

    @OptionGroup var still: StillOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @OptionGroup var progressOption: ProgressOption

    /// sysexits' codes, which a scheduler can act on (Kubernetes' pod failure policy,
    /// Slurm's requeue): retry a 75, not a 65.
    enum Exit {
        static let usage: Int32 = 64, dataError: Int32 = 65, software: Int32 = 70, temporaryFailure: Int32 = 75
    }

    func run() throws {
        // Before anything is rendered: what is wrong is the command, its files or the
        // machine (a folder on a full disk), not a row.
        let prepared: (run: BatchRun, encoding: StillEncoding, folder: OutputFolder, total: Int)
        do {
            prepared = try prepare()
        } catch let error as MercurialError {
            Console.error("error: \(error.message)")
            throw ExitCode(error.kind == .resource ? Exit.temporaryFailure : error.kind == .internal ? Exit.software : Exit.usage)
        }
        let (run, encoding, folder, _) = prepared
        // A signal stops the workers between bands (the titles being written are removed
        // at once), and the batch ends with 75 after telling what was done.
        SignalCleanup.installDeferred()
        let start = ContinuousClock.now
        let noMetadata = self.noMetadata, compression = self.compression, skipExisting = self.skipExisting && !noMetadata
        // Two titles at a time (each render also spreads over the cores), each worker
        // taking the next row as it is read. Not a task group: with the workers on the
        // cooperative pool, 24 small titles took 1.1 s instead of 0.2 s here (measured;
        // each render blocks a pool thread while its own pixel loops want the cores).
        DispatchQueue.concurrentPerform(iterations: max(1, min(2, prepared.total))) { _ in
            while let job = run.nextJob() {
                do {
                    // (--skip-existing is refused with --no-metadata: a title is known by its recipe.)
                    if skipExisting {
                        let recipe = SceneRecipe.json(for: job.settings)
                        if folder.holdsTitle(job.name, recipe: recipe, encoding: encoding) {
                            try run.skipped(job, recipe: recipe, since: start)
                            continue
                        }
                    }
                    // As render writes its title: a large one band by band, through the folder.
                    let still = StillJob(settings: job.settings, encoding: encoding, compression: compression,
                                         recipe: !noMetadata)
                    let report = try RenderJob.run(still, to: .folder(folder, name: job.name), cancellation: .signal)
                    try run.rendered(job, warnings: report.warnings, recipe: report.recipe, since: start)
                } catch {
                    run.failed(job, error, since: start)
                }
            }
        }
        let outcome = run.finish()
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if let signal = SignalCleanup.stopRequested {
            Console.error("error: stopped by signal \(signal) after \(outcome.rendered + outcome.skipped) of \(prepared.total) titles; run it again with --skip-existing to finish")
            throw ExitCode(Exit.temporaryFailure)
        }
        if !quiet {
            var counts: [String] = []
            if outcome.skipped > 0 { counts.append("\(outcome.skipped) skipped") }
            if outcome.refused > 0 { counts.append("\(outcome.refused) refused") }
            if outcome.failed > 0 { counts.append("\(outcome.failed) failed") }
            Console.output("\(run.place)\(run.shardNote): \(outcome.rendered) title\(outcome.rendered == 1 ? "" : "s") in "
                           + String(cFormat: "%.2f s (%.1f titles/s)", seconds, Double(outcome.rendered) / max(seconds, 1e-9))
                           + (counts.isEmpty ? "" : ", " + counts.joined(separator: ", ")))
        }
        if outcome.failed > 0 { throw ExitCode(Exit.temporaryFailure) }
        if outcome.faults > 0 { throw ExitCode(Exit.software) }
        if outcome.refused > 0 { throw ExitCode(Exit.dataError) }
    }

    /// The options checked, the base scene and the batch file read, the folder and the manifest opened.
    private func prepare() throws -> (run: BatchRun, encoding: StillEncoding, folder: OutputFolder, total: Int) {
        let shard = try self.shard.map { try BatchShard.parse($0, environment: ProcessInfo.processInfo.environment) }
        if skipExisting && noMetadata {
            throw MercurialError("--skip-existing tells a finished title by the recipe it carries, which --no-metadata leaves out; drop one of them")
        }
        let (format, ext) = StillFormat.forTemplate(name)
        let encoding = try StillEncoding.checked(format, quality: still.quality, lossless: still.lossless,
                                                 progressive: still.progressive)
        try InputFile.refuseIfNotRegular(file, role: "batch file")
        let base = try materialOptions.settings(sceneFile: sceneOption.sceneFile)
        var batch = try BatchFile(path: file)
        batch.markup = materialOptions.markup
        let place = "\(UserPath(checked: file))"
        try Self.checkColumns(batch, template: name, place: place)
        try batch.checkLayerColumns(layers: base.layers.count)
        let folder = try OutputFolder(output, create: true)
        let manifest = try self.manifest.map { try BatchManifest(path: $0) }
        let total = shard?.count(of: batch.rowCount) ?? batch.rowCount
        let progress = Progress(total, of: "title", style: try progressOption.style(quiet: quiet))
        let run = BatchRun(batch: batch, rows: try batch.rows(), base: base, template: name, extension: ext, shard: shard,
                           folder: folder, place: place, progress: progress, manifest: manifest)
        return (run, encoding, folder, total)
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
    /// The row's number (1-based, as `{row}`) and its line in the file.
    var row: Int
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
    private let shard: BatchShard?
    private let folder: OutputFolder
    /// The batch file, for messages.
    let place: String
    private let progress: Progress
    private let manifest: BatchManifest?
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
        var done = 0, rendered = 0, skipped = 0
        /// Rows refused for their input; failed for the machine (worth retrying); a fault of this program.
        var refused = 0, failed = 0, faults = 0
        var stopped = false
        var manifestBroken = false
    }

    init(batch: BatchFile, rows: sending BatchFile.Rows, base: RenderSettings, template: String, extension ext: String,
         shard: BatchShard?, folder: OutputFolder, place: String, progress: Progress, manifest: BatchManifest?) {
        self.batch = batch
        self.base = base
        self.template = template
        fileExtension = ext
        self.shard = shard
        self.folder = folder
        self.place = place
        self.progress = progress
        self.manifest = manifest
        state = Mutex(State(rows: rows))
    }

    /// ` (shard 2/3, SLURM_ARRAY_TASK_ID=3)` for the summary, or nothing.
    var shardNote: String {
        guard let shard else { return "" }
        return " (shard \(shard.index)/\(shard.count)\(shard.source == "--shard" ? "" : ", " + shard.source))"
    }

    /// The next row of the shard with its settings and name; rows that fail on the
    /// way are reported. Nil at the end.
    func nextJob() -> BatchJob? {
        state.withLock { state -> BatchJob? in
            while !state.stopped {
                let row: BatchFile.Row
                do throws(MercurialError) {
                    if SignalCleanup.stopRequested != nil { state.stopped = true; return nil }
                    if let shard, !shard.contains(state.rows.nextIndex) {
                        if try !state.rows.skip() { state.stopped = true }
                        continue
                    }
                    guard let next = try state.rows.next() else { state.stopped = true; return nil }
                    row = next
                } catch {
                    report(error.message, error.kind, &state)
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
                    return BatchJob(row: row.index, line: row.line, settings: settings, name: name)
                } catch {
                    report("\(place):\(row.line): \(error.message)", error.kind, &state)
                    record(BatchManifest.Entry(row: row.index, line: row.line, status: .refused, error: error.message), &state)
                }
            }
            return nil
        }
    }

    /// `job`'s title written; its line in the manifest (with the file's SHA-256, read back).
    func rendered(_ job: BatchJob, warnings: [MercurialWarning], recipe: String?, since start: ContinuousClock.Instant) throws(MercurialError) {
        let entry = try manifestEntry(job, .written, recipe: recipe)
        state.withLock { state in
            state.rendered += 1
            state.done += 1
            record(entry, &state)
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

    /// `job` left alone: its file is already the title it would write.
    func skipped(_ job: BatchJob, recipe: String, since start: ContinuousClock.Instant) throws(MercurialError) {
        let entry = try manifestEntry(job, .skipped, recipe: recipe)
        state.withLock { state in
            state.skipped += 1
            state.done += 1
            record(entry, &state)
            progress.update(done: state.done, since: start)
        }
    }

    /// `job` not written: refused for its input, failed for the machine, or stopped by a
    /// signal (then neither told nor counted: the rerun does it).
    func failed(_ job: BatchJob, _ error: any Error, since start: ContinuousClock.Instant) {
        let error = error as? MercurialError ?? MercurialError.internal("\(error)")
        state.withLock { state in
            if SignalCleanup.stopRequested != nil { return }
            report("\(place):\(job.line): \(error.message)", error.kind, &state)
            let status: BatchManifest.Status = error.kind == .resource || error.kind == .internal ? .failed : .refused
            record(BatchManifest.Entry(row: job.row, line: job.line, status: status, output: "\(folder.display(job.name))",
                                       error: error.message), &state)
            progress.update(done: state.done, since: start)
        }
    }

    /// The manifest's line for `job`'s file (nil without `--manifest`): hashing it is done outside the lock.
    private func manifestEntry(_ job: BatchJob, _ status: BatchManifest.Status, recipe: String?) throws(MercurialError) -> BatchManifest.Entry? {
        guard manifest != nil else { return nil }
        return BatchManifest.Entry(row: job.row, line: job.line, status: status, output: "\(folder.display(job.name))",
                                   sha256: try folder.sha256(of: job.name),
                                   recipeSHA256: recipe.map { CardSignature.hex(CardSignature.sha256(Array($0.utf8))) })
    }

    /// Appends `entry` to the manifest; a manifest that cannot be written is told once and fails the batch (75).
    private func record(_ entry: BatchManifest.Entry?, _ state: inout State) {
        guard let manifest, let entry, !state.manifestBroken else { return }
        do {
            try manifest.append(entry)
        } catch {
            state.manifestBroken = true
            progress.clear()
            Console.error("error: \(error.message)")
            state.failed += 1
        }
    }

    private func report(_ message: String, _ kind: MercurialError.Kind, _ state: inout State) {
        progress.clear()
        Console.error("error: \(message)")
        switch kind {
        case .input, .limit: state.refused += 1
        case .resource: state.failed += 1
        case .internal: state.faults += 1
        }
        state.done += 1
    }

    /// Tells the missing glyphs, once a character; the counts of titles.
    func finish() -> (rendered: Int, skipped: Int, refused: Int, failed: Int, faults: Int) {
        progress.clear()
        return state.withLock { state in
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
            return (state.rendered, state.skipped, state.refused, state.failed, state.faults)
        }
    }
}
