import ArgumentParser
import Dispatch
import FoundationEssentials
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Render a scene file, then render again on every save of it or of anything it uses.",
        discussion: """
        Watches the scene file and its material, font, shading image and mask with
        inotify; editors that save by renaming (vim, VS Code, sed -i) are caught.
        A bad save prints its error and leaves the last good PNG alone. Ctrl-C stops.
        A scene with an "animation" or a "sequence" renders all its frames on every
        save, to the form the output's name chooses (as 'mercurial animate' does; a
        .png is an APNG).

        Example: mercurial watch scene.json -o title.png --background black
        """
    )

    @Argument(help: "The scene file (JSON) to watch.")
    var scene: String

    @OptionGroup var options: RenderOptions
    @OptionGroup var still: StillOptions

    func run() throws {
        try InputFile.refuseIfNotRegular(scene, role: "scene file")
        try OutputFile.validate(options.output)
        // Refuse up front an output that would overwrite the scene or what it uses
        // (each render checks again, as the scene may change).
        try InputFiles.checkOutput(options.output, against: [("scene file", scene)])
        if let settings = try? options.resolvedSettings(sceneFile: scene) {
            try InputFiles.checkOutput(options.output, against: InputFiles.of(settings, sceneFile: scene))
        }
        // A still scene is written in the format the name says; .webm, .mov and .mp4 are
        // for an animated scene (as animate's).
        let animated = (try? AnimationFormat.forPath(options.output)).map { $0 != .apng } ?? false
        let encoding = animated ? StillEncoding(format: .png) : try still.encoding(options.output, command: "watch")
        let (scene, options) = (scene, options)
        Task {
            do throws(MercurialError) {
                try await WatchSession(scene: scene, options: options, encoding: encoding).start()
            } catch {
                fail(error.message, status: error.kind.exitStatus)
            }
        }
        dispatchMain()
    }
}

/// One `mercurial watch`: the file watcher feeding the render pipeline (the
/// editor's too), which renders the newest change, one render at a time.
actor WatchSession {
    nonisolated let scene: String
    nonisolated let options: RenderOptions
    /// How a still scene is written (the output's name and --quality, --lossless, --progressive).
    nonisolated let encoding: StillEncoding
    private var watcher: FileWatcher?
    private var pipeline: RenderPipeline<String>?
    /// Files of the last scene that loaded, kept when a bad save cannot be read.
    private var lastGoodFiles: [String] = []
    /// What the last render's watch covered (nil before the first).
    private var watchedChains: Set<String>?
    /// The folder the output is written in (nil for a stream such as `-`).
    nonisolated let outputFolder: String?

    /// Isolated (async) so that the pipeline and the watcher, which call back into
    /// the session, are made here; they hold it for as long as the process runs.
    init(scene: String, options: RenderOptions, encoding: StillEncoding) async throws(MercurialError) {
        self.scene = scene
        self.options = options
        self.encoding = encoding
        outputFolder = OutputFile.folder(of: options.output)
        pipeline = RenderPipeline { reason in await self.renderOnce(reason) }
        watcher = try FileWatcher { path in
            let name = UserPath(checked: path).lastComponent
            let what = FileWatcher.isDirectory(path) || path == self.outputFolder
                ? "folder \(name) \(FileWatcher.isDirectory(path) ? "is back" : "is gone")"
                : "\(name) \(FileManager.default.fileExists(atPath: path) ? "changed" : "is gone")"
            Task { await self.update(what) }
        }
        watcher?.watch(UserPath(checked: scene).symlinkChain(), folders: outputFolder.map { [$0] } ?? [])
    }

    func start() async {
        // Stopping a watch is its normal end: exit 0, the temporary file removed.
        SignalCleanup.install(exitStatus: 0)
        await update("started")
    }

    private func update(_ reason: String) async {
        await pipeline?.update(reason)
    }

    private func remember(_ files: [String]) { lastGoodFiles = files }

    /// Loads the scene afresh, renders it and replaces the output; on a bad
    /// save prints the error and leaves the last good PNG alone. Off the actor:
    /// it blocks its thread while it renders.
    private nonisolated func renderOnce(_ reason: String) async {
        let clock = ContinuousClock.now
        var started = timespec()
        clock_gettime(CLOCK_REALTIME, &started)
        // The scene and its links as they are before the render reads them (see `watchAgain`).
        let sceneBefore = UserPath(checked: scene).symlinkChain().map(SeenFile.init)
        var files = [scene]
        var rendered = false
        do {
            let summary: String
            if let sequence = try options.materialOptions.sequence(sceneFile: scene, flags: [options], finish: opaqueForMP4) {
                // A sequence of titles renders all its frames on every save.
                let inputs = sequence.inputFiles(sceneFile: scene)
                files = inputs.map(\.path)
                await remember(files)
                try InputFiles.checkOutput(options.output, against: inputs)
                summary = try renderAnimation(.sequence(sequence))
            } else {
                let (settings, timeline) = try options.materialOptions.settingsAndTimeline(sceneFile: scene, flags: [options])
                let inputs = InputFiles.of(settings, sceneFile: scene)
                files = inputs.map(\.path)
                await remember(files)
                try InputFiles.checkOutput(options.output, against: inputs)
                if let timeline {
                    // An animated scene renders its whole animation on every save.
                    var opaque = settings
                    opaqueForMP4(&opaque)
                    summary = try renderAnimation(.title(opaque, timeline))
                } else {
                    if let format = try? AnimationFormat.forPath(options.output), format != .apng {
                        throw MercurialError("output '\(options.output)' is \(format), which needs an \"animation\" in the scene; add one or write a .png")
                    }
                    let size = try options.writeTitle(settings, to: options.output, encoding: encoding)
                    summary = "\(size.width)×\(size.height)"
                }
            }
            report(reason, summary, since: clock)
            rendered = true
        } catch let error as MercurialError {
            let lastGood = await lastGoodFiles
            if !lastGood.isEmpty { files = lastGood }
            Console.error("error: \(error.message) (\(Self.timestamp()), still watching)")
        } catch {
            Console.error("error: \(error) (\(Self.timestamp()), still watching)")
        }
        await watchAgain(files, since: started, rendered: rendered, sceneBefore: sceneBefore)
    }

    /// The line for one render: the time, what changed, the output, what was written and how long it took.
    private nonisolated func report(_ reason: String, _ summary: String, since clock: ContinuousClock.Instant) {
        let elapsed = clock.duration(to: .now)
        let ms = Int((Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15).rounded())
        if !options.quiet {
            say("\(Self.timestamp()) \(reason) → \(options.output) \(summary) in \(ms) ms\n")
        }
    }

    /// H.264 has no alpha: an .mp4 goes on black when there is no background.
    private nonisolated func opaqueForMP4(_ settings: inout RenderSettings) {
        if (try? AnimationFormat.forPath(options.output)) == .mp4 && settings.background == nil
            && settings.backgroundGradient == nil {
            settings.background = .black
        }
    }

    /// Watches `files` (and what their links lead to) again, and renders again if
    /// one changed after `started`.
    private func watchAgain(_ files: [String], since started: timespec, rendered: Bool, sceneBefore: [SeenFile?]) async {
        // A symbolic link is watched with every file it leads to, so that editing
        // its target and pointing it elsewhere are both seen.
        let chains = files.flatMap { UserPath(checked: $0).symlinkChain() }
        watcher?.watch(chains, folders: outputFolder.map { [$0] } ?? [])
        // After a render, a file watched now that the last watch did not cover (a link pointed
        // at it, or back after a failed load) may have been saved after the render read it and
        // before it was watched, within the tick its mtime cannot tell apart: render once more.
        let before = watchedChains
        watchedChains = Set(chains)
        if rendered, let before, let fresh = chains.first(where: { !before.contains($0) }), FileManager.default.fileExists(atPath: fresh) {
            await update("\(UserPath(checked: fresh).lastComponent) changed")
            return
        }
        // The scene (or a file its links lead to) saved while this render read it: rendered
        // again. Its save's event may have come while the file was not watched (a link pointed
        // at it moments before), and its mtime can lie a clock tick before `started`: a link
        // pointed at c.json as c.json was written was read empty, reported, and never rendered
        // again (seen once in CI).
        if UserPath(checked: scene).symlinkChain().map(SeenFile.init) != sceneBefore {
            await update("\(UserPath(checked: scene).lastComponent) changed")
            return
        }
        // A file that changed after this render began, while it may not yet have been
        // watched (a link pointed elsewhere mid-render), is rendered again.
        for path in chains {
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let changed = info.st_mtim.tv_sec > started.tv_sec
                || (info.st_mtim.tv_sec == started.tv_sec && info.st_mtim.tv_nsec >= started.tv_nsec)
            if changed {
                let name = UserPath(checked: path).lastComponent
                await update("\(name) changed")
                break
            }
        }
    }

    /// Renders every frame to the output (its form chosen by its name, a .png being
    /// an APNG), carrying the recipe as animate's does; returns what to report.
    private nonisolated func renderAnimation(_ scene: AnimationJob.Scene) throws(MercurialError) -> String {
        let job = AnimationJob(scene: scene, format: try AnimationFormat.forPath(options.output), recipe: !options.noMetadata)
        let report = try RenderJob.run(job, to: options.output, cancellation: .signal,
                                       prepared: { renderer in renderer.warnings.forEach(warn) })
        return "\(report.frames) frames \(report.width)×\(report.height)"
    }

    private nonisolated func say(_ line: String) {
        // With the PNG on standard output, the render lines go with the diagnostics.
        if OutputFile.isStandardOutput(options.output) { Console.error(line) } else { Console.output(line) }
    }

    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return String(cFormat: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}
