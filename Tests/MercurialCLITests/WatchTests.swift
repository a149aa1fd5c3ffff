import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Records what a fake renderer saw; it never lets two renders overlap silently.
actor RenderLog {
    var rendered: [Int] = []
    var inFlight = 0
    var maximumInFlight = 0

    func begin(_ state: Int) {
        inFlight += 1
        maximumInFlight = max(maximumInFlight, inFlight)
        rendered.append(state)
    }

    func end() { inFlight -= 1 }
}

/// Runs `wait`, but gives up after `seconds` with a recorded issue instead of hanging
/// the test run (a continuation that is never resumed cannot be cancelled, so the
/// wait runs in a task of its own that is left behind).
func waitWithDeadline(_ what: String, seconds: Int = 20, sourceLocation: SourceLocation = #_sourceLocation,
                      _ wait: @escaping @Sendable () async -> Void) async {
    let finished = FinishedFlag()
    Task { await wait(); await finished.set() }
    let deadline = ContinuousClock.now + .seconds(seconds)
    while await !finished.isSet {
        guard ContinuousClock.now < deadline else {
            Issue.record("\(what) did not happen within \(seconds) s", sourceLocation: sourceLocation)
            return
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
}

private actor FinishedFlag {
    var isSet = false
    func set() { isSet = true }
}

@Suite struct RenderPipelineTests {
    @Test func updatesDuringARenderAreCoalescedAndTheLastIsNeverLost() async {
        let log = RenderLog()
        let pipeline = RenderPipeline<Int> { state in
            await log.begin(state)
            try? await Task.sleep(for: .milliseconds(40))   // a slow render
            await log.end()
        }
        for state in 1...100 {
            await pipeline.update(state)
            if state % 25 == 0 { try? await Task.sleep(for: .milliseconds(60)) }
        }
        await waitWithDeadline("the pipeline to go idle") { await pipeline.waitUntilIdle() }
        let rendered = await log.rendered
        #expect(await log.maximumInFlight == 1, "never two renders at once")
        #expect(rendered.first == 1)
        #expect(rendered.last == 100, "the last state is rendered: \(rendered)")
        #expect(rendered.count >= 2 && rendered.count <= 12, "a handful of renders, not 100: \(rendered)")
        #expect(rendered == rendered.sorted(), "states are rendered in order")
        #expect(await pipeline.isBusy == false)
        #expect(await pipeline.pendingUpdate == false)
    }

    @Test func anIdlePipelineRendersAtOnce() async {
        let log = RenderLog()
        let pipeline = RenderPipeline<Int> { state in
            await log.begin(state)
            await log.end()
        }
        await pipeline.update(7)
        await waitWithDeadline("the first render") { await pipeline.waitUntilIdle() }
        await pipeline.update(8)
        await waitWithDeadline("the second render") { await pipeline.waitUntilIdle() }
        #expect(await log.rendered == [7, 8])
        #expect(await pipeline.renderCount == 2)
    }
}

/// What a `mercurial watch` has printed so far. The pipes' handlers hold this, not
/// the `WatchProcess`, so a handler that runs late never reads a freed object.
private final class WatchOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var out = "", err = ""

    func append(_ data: Data, stdout: Bool) {
        let text = String(decoding: data, as: UTF8.self)
        lock.withLock { if stdout { out += text } else { err += text } }
    }

    func lines(stdout: Bool) -> [String] {
        lock.withLock { (stdout ? out : err).split(separator: "\n").map(String.init) }
    }
}

/// A running `mercurial watch`, its output collected line by line. Use it through
/// `WatchProcess.run`, which stops the process however the test ends.
final class WatchProcess: @unchecked Sendable {
    let process = Process()
    private let output = WatchOutput()
    private let pipes = (stdout: Pipe(), stderr: Pipe())

    /// With `standardOutput`, stdout goes there (e.g. /dev/full) instead of being collected.
    /// Prefer `WatchProcess.run`; a process started here is stopped when this object goes.
    init(_ arguments: [String], in directory: URL, standardOutput: FileHandle? = nil) throws {
        process.executableURL = try CLI.binary()
        process.arguments = ["watch"] + arguments
        process.currentDirectoryURL = directory
        process.standardOutput = standardOutput ?? pipes.stdout
        process.standardError = pipes.stderr
        process.standardInput = FileHandle.nullDevice
        for (pipe, isStdout) in [(pipes.stdout, true), (pipes.stderr, false)] {
            pipe.fileHandleForReading.readabilityHandler = { [output] handle in
                let data = handle.availableData
                if data.isEmpty { handle.readabilityHandler = nil } else { output.append(data, stdout: isStdout) }
            }
        }
        try process.run()
    }

    /// Starts `mercurial watch arguments`, runs `body`, and stops the process
    /// afterwards, also when `body` throws.
    static func run<R>(_ arguments: [String], in directory: URL,
                       _ body: (WatchProcess) async throws -> R) async throws -> R {
        let watch = try WatchProcess(arguments, in: directory)
        defer { watch.stop() }
        return try await body(watch)
    }

    var renderLines: [String] { output.lines(stdout: true) }
    var errorLines: [String] { output.lines(stdout: false) }

    /// Waits (up to 20 s) until `condition` holds.
    func wait(_ what: String, until condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw CLI.SetupError(description: "timed out waiting for \(what); stdout \(renderLines), stderr \(errorLines)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func waitForRender(after count: Int) async throws {
        try await wait("render \(count + 1)") { renderLines.count > count }
    }

    /// Ends the process if it still runs: SIGTERM, then SIGKILL after 2 s; never waits longer than 4 s.
    func stop() {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        process.terminate()
        for _ in 0..<2 {
            let deadline = Date(timeIntervalSinceNow: 2)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            guard process.isRunning else { return }
            kill(pid, SIGKILL)
        }
    }

    deinit { stop() }
}

@Suite(.serialized) struct WatchModeTests {
    func write(_ json: String, to url: URL) throws {
        try Data(json.utf8).write(to: url)
    }

    /// Waits until the watched output shows what a one-shot render of `scene` gives
    /// (an extra render of an earlier state may come first under load; the last must match).
    func waitUntilOutput(_ output: URL, matches scene: URL, in dir: URL, _ watch: WatchProcess) async throws {
        let expected = try await oneShot(scene, in: dir)
        try await watch.wait("the output to match the scene") { (try? CLI.readPNG(output).pixels) == expected }
    }

    /// The pixels a one-shot `mercurial render --params` gives for the same scene.
    func oneShot(_ scene: URL, in dir: URL) async throws -> [RGBA8] {
        let reference = dir.appendingPathComponent("reference.png")
        let result = try await CLI.run(["render", "--params", scene.path, "-o", reference.path, "--quiet"], in: dir)
        #expect(result.status == 0, "\(result)")
        return try CLI.readPNG(reference).pixels
    }

    @Test func everyKindOfSaveIsRenderedAndBadSavesKeepTheLastGoodPNG() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = dir.appendingPathComponent("scene.json")
            let output = dir.appendingPathComponent("title.png")
            try write(#"{"text": "One", "size": 60}"#, to: scene)
            try await WatchProcess.run([scene.path, "-o", output.path], in: dir) { watch in
                try await watch.waitForRender(after: 0)
                try await waitUntilOutput(output, matches: scene, in: dir, watch)
                #expect(watch.renderLines[0].contains("started → ") && watch.renderLines[0].contains(" ms"))

                // A plain write.
                try write(#"{"text": "Two", "size": 60, "material": "mercurial", "shininess": 0.1}"#, to: scene)
                try await watch.waitForRender(after: 1)
                #expect(watch.renderLines[1].contains("scene.json changed → "), "\(watch.renderLines)")
                try await waitUntilOutput(output, matches: scene, in: dir, watch)

                // A rename-style save, as vim and VS Code do.
                let temporary = dir.appendingPathComponent(".scene.json.swp")
                try write(#"{"text": "Three", "size": 60, "radius": 4}"#, to: temporary)
                #expect(rename(temporary.path, scene.path) == 0)
                try await watch.waitForRender(after: 2)
                try await waitUntilOutput(output, matches: scene, in: dir, watch)
                let good = try Data(contentsOf: output)

                // A bad edit: reported, and the last good PNG is left alone.
                try write("{\"text\": \"Four\",\n \"radius\": }", to: scene)
                try await watch.wait("the error") { watch.errorLines.contains { $0.contains("scene.json:2:12") } }
                #expect(watch.errorLines.allSatisfy { $0.hasPrefix("error: ") }, "\(watch.errorLines)")
                #expect(try Data(contentsOf: output) == good)

                // Then a good one.
                try write(#"{"text": "Five", "size": 60}"#, to: scene)
                try await watch.waitForRender(after: 3)
                try await waitUntilOutput(output, matches: scene, in: dir, watch)

                // Deleted, then created again.
                try FileManager.default.removeItem(at: scene)
                try await watch.wait("the missing-file error") { watch.errorLines.contains { $0.contains("does not exist") } }
                try write(#"{"text": "Six", "size": 60, "background": "black"}"#, to: scene)
                try await watch.waitForRender(after: 4)
                try await waitUntilOutput(output, matches: scene, in: dir, watch)
                #expect(watch.process.isRunning)

                // Ctrl-C: exit status 0, promptly, no temporary files left.
                let stopped = ContinuousClock.now
                watch.process.interrupt()
                try await watch.wait("exit") { !watch.process.isRunning }
                #expect(stopped.duration(to: .now) < .seconds(2))
                #expect(watch.process.terminationReason == .exit && watch.process.terminationStatus == 0)
                #expect(CLI.temporaryFiles(in: dir).isEmpty)
            }
        }
    }

    /// The number of frames an APNG's acTL announces (nil: not an APNG).
    func apngFrames(_ url: URL) -> Int? {
        guard let d = try? Data(contentsOf: url), d.count > 49,
              String(decoding: d[(8 + 25 + 4)..<(8 + 25 + 8)], as: UTF8.self) == "acTL" else { return nil }
        let b = [UInt8](d[(8 + 25 + 8)..<(8 + 25 + 12)])
        return Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
    }

    @Test func anAnimatedSceneRendersItsAnimationOnEverySave() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = dir.appendingPathComponent("scene.json")
            let output = dir.appendingPathComponent("title.png")
            func animation(_ seconds: Double) -> String {
                #"{"text": "Go", "size": 40, "animation": {"duration": \#(seconds), "fps": 10, "tracks": {"light1.hue": [{"t": 0, "value": 0}, {"t": \#(seconds), "value": 0.5}]}}}"#
            }
            try write(animation(0.5), to: scene)
            try await WatchProcess.run([scene.path, "-o", output.path], in: dir) { watch in
                try await watch.wait("a 5-frame APNG") { apngFrames(output) == 5 }
                // The summary line is printed just after the file is in place.
                try await watch.wait("its summary line") { !watch.renderLines.isEmpty }
                #expect(watch.renderLines.first?.contains("5 frames") == true, "\(watch.renderLines)")
                // It carries its recipe, as animate's APNG does.
                let recipe = try SceneRecipe.read(fromPNGFile: output.path)
                #expect(recipe?.contains("\"animation\": {\"duration\": 0.5") == true, "\(String(describing: recipe))")
                try write(animation(0.8), to: scene)
                try await watch.wait("an 8-frame APNG") { apngFrames(output) == 8 }
                // Without the animation, the same output is a still PNG again.
                try write(#"{"text": "Go", "size": 40}"#, to: scene)
                try await watch.wait("a still PNG") { apngFrames(output) == nil && (try? CLI.readPNG(output)) != nil }
            }
        }
    }

    /// A sequence renders all its frames on every save, also of a file one of its steps names.
    @Test func aSequenceRendersOnEverySaveOfItOrItsSteps() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = dir.appendingPathComponent("scene.json")
            let step = dir.appendingPathComponent("two.json")
            let output = dir.appendingPathComponent("title.png")
            func sequence(_ hold: Double) -> String {
                #"{"width": 120, "height": 60, "size": 30, "animation": {"fps": 10}, "sequence": [{"scene": {"text": "A"}, "hold": \#(hold), "transition": {"type": "swipe", "duration": 0.2}}, {"scene": "two.json", "hold": 0.2}]}"#
            }
            try write(#"{"text": "B"}"#, to: step)
            try write(sequence(0.2), to: scene)
            try await WatchProcess.run([scene.path, "-o", output.path], in: dir) { watch in
                try await watch.wait("a 6-frame APNG") { apngFrames(output) == 6 }
                #expect(try SceneRecipe.read(fromPNGFile: output.path)?.contains("\"sequence\"") == true)
                try write(sequence(0.5), to: scene)
                try await watch.wait("a 9-frame APNG") { apngFrames(output) == 9 }
                try write(#"{"text": "C", "material": "gold"}"#, to: step)
                try await watch.wait("a render for the step's file") {
                    watch.renderLines.contains { $0.contains("two.json changed") && $0.contains("9 frames") }
                }
            }
        }
    }

    @Test func editingTheMaterialFileItUsesRendersAgain() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = dir.appendingPathComponent("scene.json")
            let material = dir.appendingPathComponent("mine.json")
            let output = dir.appendingPathComponent("title.png")
            try write(#"{"description": "test", "shininess": 0.05}"#, to: material)
            try write(#"{"text": "Mat", "size": 50, "material": "mine.json"}"#, to: scene)
            try await WatchProcess.run([scene.path, "-o", output.path], in: dir) { watch in
                try await watch.waitForRender(after: 0)
                try write(#"{"description": "test", "shininess": 0.2, "diffuse": "red"}"#, to: material)
                try await watch.waitForRender(after: 1)
                #expect(watch.renderLines[1].contains("mine.json changed"), "\(watch.renderLines)")
                try await waitUntilOutput(output, matches: scene, in: dir, watch)
                watch.process.terminate()
                try await watch.wait("exit") { !watch.process.isRunning }
                #expect(watch.process.terminationStatus == 0, "SIGTERM exits with 0")
            }
        }
    }

    @Test func faultsAreReportedAndOutputResumesOnceFixed() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = dir.appendingPathComponent("scene.json")
            let outFolder = dir.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: outFolder, withIntermediateDirectories: false)
            let output = outFolder.appendingPathComponent("title.png")
            try write(#"{"text": "Fault", "size": 50}"#, to: scene)
            try await WatchProcess.run([scene.path, "-o", output.path], in: dir) { watch in
                try await watch.waitForRender(after: 0)
                func errors(containing text: String) -> Bool { watch.errorLines.contains { $0.contains(text) } }

                // The scene replaced by a directory.
                try FileManager.default.removeItem(at: scene)
                try FileManager.default.createDirectory(at: scene, withIntermediateDirectories: false)
                try await watch.wait("the directory error") { errors(containing: "is a directory") }
                try FileManager.default.removeItem(at: scene)

                // Filled with garbage.
                try Data([0xff, 0x00, 0x7b, 0x42, 0x13]).write(to: scene)
                try await watch.wait("the garbage error") { errors(containing: "scene.json:1:") }
                #expect(watch.process.isRunning)

                // Made unreadable (root reads it anyway, so there it simply renders).
                try write(#"{"text": "Locked", "size": 50}"#, to: scene)
                try await watch.waitForRender(after: 1)
                chmod(scene.path, 0o000)
                if CLI.isRoot {
                    try await watch.waitForRender(after: 2)
                } else {
                    try await watch.wait("the permission error") { errors(containing: "cannot be read") }
                }
                chmod(scene.path, 0o644)
                try write(#"{"text": "Again", "size": 50}"#, to: scene)
                // (Restoring the permissions may itself cause a render of the old text first.)
                let again = try await oneShot(scene, in: dir)
                try await watch.wait("the title of the good save") { (try? CLI.readPNG(output).pixels) == again }

                // The output folder removed while watching: reported at once, and the
                // title is written again as soon as the folder is back, with no edit.
                try FileManager.default.removeItem(at: outFolder)
                try await watch.wait("the missing-folder error") { errors(containing: "output directory") }
                let rendersWithoutFolder = watch.renderLines.count
                try FileManager.default.createDirectory(at: outFolder, withIntermediateDirectories: false)
                try await watch.waitForRender(after: rendersWithoutFolder)
                #expect(watch.renderLines.last?.contains("folder out is back") == true, "\(watch.renderLines)")
                try await waitUntilOutput(output, matches: scene, in: dir, watch)
                #expect(watch.errorLines.allSatisfy { $0.hasPrefix("error: ") && !$0.contains("Fatal") })

                watch.process.interrupt()
                try await watch.wait("exit") { !watch.process.isRunning }
                #expect(watch.process.terminationStatus == 0)
                #expect(CLI.temporaryFiles(in: outFolder).isEmpty)
            }
        }
    }

    // MARK: - Hostile input (issue 10)

    /// Writes `json` to `scene.json` in `dir` and starts watching it into `output`.
    func startWatch(_ json: String, in dir: URL, output: String = "title.png",
                    standardOutput: FileHandle? = nil) throws -> (WatchProcess, scene: URL, output: URL) {
        let scene = dir.appendingPathComponent("scene.json")
        let outputURL = dir.appendingPathComponent(output)
        try write(json, to: scene)
        return (try WatchProcess([scene.path, "-o", outputURL.path], in: dir, standardOutput: standardOutput), scene, outputURL)
    }

    /// Ctrl-C: the watch exits with status 0.
    func stop(_ watch: WatchProcess) async throws {
        watch.process.interrupt()
        try await watch.wait("exit") { !watch.process.isRunning }
        #expect(watch.process.terminationReason == .exit && watch.process.terminationStatus == 0)
    }

    /// Points the symbolic link `link` at `target` the way `ln -sf` does: a new link
    /// renamed over the old one (`atomically`), or the old one removed first.
    func retarget(_ link: URL, to target: String, atomically: Bool) throws {
        if atomically {
            let temporary = link.deletingLastPathComponent().appendingPathComponent(".link-\(UUID().uuidString)")
            #expect(symlink(target, temporary.path) == 0)
            #expect(rename(temporary.path, link.path) == 0)
        } else {
            #expect(unlink(link.path) == 0)
            #expect(symlink(target, link.path) == 0)
        }
    }

    @Test(arguments: [true, false])
    func aSymlinkedSceneIsFollowedWhenItIsPointedElsewhere(atomically: Bool) async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = dir.appendingPathComponent("scene.json")
            let b = dir.appendingPathComponent("b.json"), c = dir.appendingPathComponent("c.json")
            let output = dir.appendingPathComponent("title.png")
            try write(#"{"text": "Bee", "size": 50}"#, to: b)
            try write(#"{"text": "Sea", "size": 50}"#, to: c)
            #expect(symlink("b.json", scene.path) == 0)
            let watch = try WatchProcess([scene.path, "-o", output.path], in: dir)
            try await waitUntilOutput(output, matches: b, in: dir, watch)

            // Edits of the current target render.
            try write(#"{"text": "Bee 2", "size": 50}"#, to: b)
            try await waitUntilOutput(output, matches: b, in: dir, watch)

            // Pointed at c.json: renders c, then follows c's edits.
            try retarget(scene, to: "c.json", atomically: atomically)
            try await waitUntilOutput(output, matches: c, in: dir, watch)
            try write(#"{"text": "Sea 2", "size": 50}"#, to: c)
            try await waitUntilOutput(output, matches: c, in: dir, watch)

            // A chain of links: scene.json → d.json → c.json.
            #expect(symlink("c.json", dir.appendingPathComponent("d.json").path) == 0)
            try retarget(scene, to: "d.json", atomically: atomically)
            try write(#"{"text": "Sea 3", "size": 50}"#, to: c)
            try await waitUntilOutput(output, matches: c, in: dir, watch)
            // (A save caught half-written may be reported; nothing else.)
            #expect(watch.errorLines.allSatisfy { $0.hasPrefix("error: ") && !$0.contains("Fatal") }, "\(watch.errorLines)")

            try await stop(watch)
        }
    }

    @Test func aSceneThatComesToNameTheOutputIsRefusedNotLooped() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let (watch, scene, output) = try startWatch(#"{"text": "Logo", "size": 50}"#, in: dir, output: "logo.png")
            try await waitUntilOutput(output, matches: scene, in: dir, watch)
            // The first render's line can come after its file (seen under CI's load): counted once it has.
            try await watch.wait("the first render's line") { watch.renderLines.count >= 1 }
            let good = try Data(contentsOf: output)
            let renders = watch.renderLines.count

            for json in [#"{"mask": "logo.png"}"#, #"{"text": "x", "shadingImage": "./logo.png"}"#] {
                try write(json, to: scene)
                try await watch.wait("the refusal") { watch.errorLines.contains { $0.contains("is the ") && $0.contains("logo.png") } }
                try await Task.sleep(for: .milliseconds(700))
                #expect(watch.renderLines.count == renders, "no render, no loop: \(watch.renderLines)")
                #expect(try Data(contentsOf: output) == good, "the output is untouched")
                #expect(watch.errorLines.count <= 2, "one refusal per save, not a loop: \(watch.errorLines)")
            }

            try write(#"{"text": "Fixed", "size": 50}"#, to: scene)
            try await waitUntilOutput(output, matches: scene, in: dir, watch)
            try await stop(watch)
        }
    }

    @Test func aSceneNamingAFIFODoesNotBlockLaterRenders() async throws {
        try await CLI.withTemporaryDirectory { dir in
            #expect(mkfifo(dir.appendingPathComponent("p.png").path, 0o644) == 0)
            #expect(mkfifo(dir.appendingPathComponent("p.ttf").path, 0o644) == 0)
            let (watch, scene, output) = try startWatch(#"{"mask": "p.png"}"#, in: dir)
            try await watch.wait("the FIFO error") { watch.errorLines.contains { $0.contains("mask") && $0.contains("named pipe") } }
            try write(#"{"text": "Hi", "font": "p.ttf"}"#, to: scene)
            try await watch.wait("the font FIFO error") { watch.errorLines.contains { $0.contains("font") && $0.contains("named pipe") } }
            try write(#"{"text": "Unblocked", "size": 50}"#, to: scene)
            try await waitUntilOutput(output, matches: scene, in: dir, watch)
            try await stop(watch)
        }
    }

    @Test func aFullStandardOutputDoesNotStopTheWatch() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            let (watch, scene, output) = try startWatch(#"{"text": "Full", "size": 50}"#, in: dir, standardOutput: full)
            try await waitUntilOutput(output, matches: scene, in: dir, watch)
            try write(#"{"text": "Still here", "size": 50}"#, to: scene)
            try await waitUntilOutput(output, matches: scene, in: dir, watch)
            #expect(watch.process.isRunning)
            try await stop(watch)
        }
    }
}
