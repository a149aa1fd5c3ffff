import ArgumentParser
import Dispatch
import Foundation
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a scene file, then render again on every save of it or of anything it uses.",
        discussion: """
        Watches the scene file and its material, font, shading image and mask with
        inotify; editors that save by renaming (vim, VS Code, sed -i) are caught.
        A bad save prints its error and leaves the last good PNG alone. Ctrl-C stops.

        Example: mercurial watch scene.json -o title.png --background black
        """
    )

    @Argument(help: "The scene file (JSON) to watch.")
    var scene: String

    @OptionGroup var options: RenderOptions

    func run() throws {
        guard options.materialOptions.sceneFile == nil else {
            throw MercurialError("watch takes the scene file as its argument; leave out --params")
        }
        try OutputFile.validate(options.output)
        let session = try WatchSession(scene: scene, options: options)
        session.start()
        dispatchMain()
    }
}

/// One `mercurial watch`: the file watcher feeding the render pipeline.
final class WatchSession: @unchecked Sendable {
    let scene: String
    let options: RenderOptions
    let encoder: any CanvasEncoder
    private var watcher: FileWatcher?
    private var pipeline: RenderPipeline<String>?
    private var signalSources: [DispatchSourceSignal] = []
    /// Files of the last scene that loaded, kept when a bad save cannot be read.
    private let lock = NSLock()
    private var lastGoodFiles: [String] = []
    private let outputFolder: String

    init(scene: String, options: RenderOptions) throws {
        self.scene = scene
        self.options = options
        encoder = options.encoder
        outputFolder = FileWatcher.absolute(OutputFile.directoryOf(options.output))
        pipeline = RenderPipeline { [unowned self] reason in self.renderOnce(reason) }
        watcher = try FileWatcher { [unowned self] path in
            let name = (path as NSString).lastPathComponent
            let what = FileWatcher.isDirectory(path) || path == self.outputFolder
                ? "folder \(name) \(FileWatcher.isDirectory(path) ? "is back" : "is gone")"
                : "\(name) \(FileManager.default.fileExists(atPath: path) ? "changed" : "is gone")"
            Task { await self.pipeline?.update(what) }
        }
        watcher?.watch([scene], folders: [outputFolder])
    }

    func start() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler {
                TemporaryFiles.shared.removeAll()
                exit(0)
            }
            source.resume()
            signalSources.append(source)
        }
        Task { await pipeline?.update("started") }
    }

    /// Loads the scene afresh, renders it and replaces the output; on a bad
    /// save prints the error and leaves the last good PNG alone.
    private func renderOnce(_ reason: String) {
        let clock = ContinuousClock.now
        var files = [scene]
        do {
            let settings = try options.resolvedSettings(sceneFile: scene)
            files += referencedFiles(settings)
            lock.withLock { lastGoodFiles = files }
            let title = try TitleRenderer.render(settings)
            title.warnings.forEach(warn)
            try OutputFile.write(try encoder.encode(title.canvas), to: options.output)
            let elapsed = clock.duration(to: .now)
            let ms = Int((Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15).rounded())
            if !options.quiet {
                say("\(Self.timestamp()) \(reason) → \(options.output) \(title.width)×\(title.height) in \(ms) ms\n")
            }
        } catch let error as MercurialError {
            files = lock.withLock { lastGoodFiles.isEmpty ? files : lastGoodFiles }
            FileHandle.standardError.write(Data("error: \(error.message) (\(Self.timestamp()), still watching)\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("error: \(error) (\(Self.timestamp()), still watching)\n".utf8))
        }
        watcher?.watch(files, folders: [outputFolder])
    }

    private func referencedFiles(_ settings: RenderSettings) -> [String] {
        var files: [String] = []
        if settings.material.contains("/") || settings.material.hasSuffix(".json") { files.append(settings.material) }
        if let font = try? FontLibrary.resolve(settings.font) { files.append(font) }
        if let path = settings.shadingImage { files.append(path) }
        if let path = settings.mask { files.append(path) }
        return files
    }

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}
