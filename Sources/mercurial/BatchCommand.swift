import ArgumentParser
import Dispatch
import Foundation
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a title for every row of a CSV or JSON Lines file, in one process on every core.",
        discussion: """
        A CSV's header row names parameter keys (text, size, light1.hue, material colours,
        …); each row sets them on the base scene (--params, --material, --set), an empty
        cell keeping the base's value. A JSON Lines file has one scene object a line.
        A bad row is reported as FILE:LINE and the others still render; the exit status
        is 1 if any row failed.

        To split a job over machines, give each one a shard: row r (1-based) belongs to
        shard ((r − 1) mod N) + 1, so no coordination is needed, e.g. with GNU parallel:
          parallel -S host1,host2 mercurial batch titles.csv --shard {}/2 -o out ::: 1 2

        Examples:
          mercurial batch titles.csv --params base.json -o out --name '{row}-{text}'
          mercurial batch episodes.jsonl --material gold -o titles
        """
    )

    @Argument(help: "A .csv file (a header row of parameter keys) or a .jsonl file (a scene object a line).")
    var file: String

    @OptionGroup var sceneOption: SceneFileOption
    @OptionGroup var materialOptions: MaterialOptions

    @Option(name: [.short, .long], help: ArgumentHelp("The folder to write the titles in.", valueName: "dir"))
    var output: String = "."

    @Option(help: ArgumentHelp("Each title's file name: {row} is the row's number, {KEY} any parameter's value; made safe for file systems, .png added.", valueName: "template"))
    var name: String = "{row}-{text}"

    @Option(help: ArgumentHelp("Render only shard K of N (1 ≤ K ≤ N): rows K, K + N, K + 2N, …", valueName: "K/N"))
    var shard: Shard?

    @Option(help: ArgumentHelp("PNG compression: fast, small or none (as render's).", valueName: "level"))
    var compression: PNGFile.Compression = .fast

    @Flag(help: "Leave out the recipe each PNG otherwise carries.")
    var noMetadata = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    struct Shard: ExpressibleByArgument {
        var k: Int, n: Int
        init?(argument: String) {
            let parts = argument.split(separator: "/")
            guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else { return nil }
            self.k = k
            self.n = n
        }
    }

    func run() throws {
        let folder = output.hasSuffix("/") && output.count > 1 ? String(output.dropLast()) : output
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MercurialError("output folder '\(UserPath(checked: folder))' does not exist; create it or give another with -o")
        }
        try InputFile.refuseIfNotRegular(file, role: "batch file")
        let base = try materialOptions.settings(sceneFile: sceneOption.sceneFile)
        let batch = try BatchFile(path: file)
        let rows = batch.rows.filter { row in shard.map { (row.index - 1) % $0.n == $0.k - 1 } ?? true }
        let place = "\(UserPath(checked: file))"

        // First the settings and names of every row, so that two rows never write one file.
        var planned: [(row: BatchFile.Row, settings: RenderSettings, path: String)] = []
        var failures: [(line: Int, message: String)] = []
        var taken: [String: Int] = [:]
        for row in rows {
            do {
                let settings = try batch.settings(for: row, base: base)
                let path = folder + "/" + BatchFile.name(name, row: row.index, rows: batch.rows.count, settings: settings)
                if let other = taken[path] {
                    failures.append((row.line, "output '\(UserPath(checked: path))' is also line \(other)'s; put {row} in --name"))
                    continue
                }
                taken[path] = row.line
                try OutputFile.validate(path)
                planned.append((row, settings, path))
            } catch {
                failures.append((row.line, error.message))
            }
        }

        // Then the titles, two at a time (each render also spreads over the cores).
        let lock = NSLock()
        nonisolated(unsafe) var done = 0
        let progress = Progress(frames: planned.count, enabled: !quiet && isatty(STDERR_FILENO) == 1)
        let start = ContinuousClock.now
        let encoder = PNGEncoder(compression: compression)
        let noMetadata = self.noMetadata
        nonisolated(unsafe) var renderFailures: [(line: Int, message: String)] = []
        let workers = max(1, min(2, planned.count))
        let jobs = planned
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for j in stride(from: worker, to: jobs.count, by: workers) {
                let job = jobs[j]
                do {
                    let title = try TitleRenderer.render(job.settings)
                    var bytes = try encoder.encode(title.canvas)
                    if !noMetadata { bytes = try SceneRecipe.embedding(SceneRecipe.json(for: job.settings), in: bytes) }
                    try OutputFile.write(bytes, to: job.path)
                } catch {
                    let message = (error as? MercurialError)?.message ?? "\(error)"
                    lock.withLock { renderFailures.append((job.row.line, message)) }
                }
                lock.withLock {
                    done += 1
                    progress.update(done: done, since: start)
                }
            }
        }
        progress.clear()
        failures += renderFailures
        for failure in failures.sorted(by: { $0.line < $1.line }) {
            Console.error("error: \(place):\(failure.line): \(failure.message)")
        }
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rendered = jobs.count - renderFailures.count
        if !quiet {
            Console.output(String(format: "%@: %d titles in %.2f s (%.1f titles/s)%@", place, rendered, seconds,
                                  Double(rendered) / max(seconds, 1e-9),
                                  failures.isEmpty ? "" : ", \(failures.count) failed"))
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }
}
