import Foundation
import MercurialKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Export PNG and Export video, written beside the scene file.
extension EditorSession {
    /// Renders the full-size PNG (with its recipe) and writes it atomically beside
    /// the scene file, named after it; returns its path and bytes.
    public func export() async throws(MercurialError) -> (path: String, bytes: [UInt8]) {
        let name = UserPath(checked: scenePath).lastComponent
        let stem = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
        let path = folder + "/" + (stem.isEmpty ? "title" : stem) + ".png"
        try Self.refuseLink(path, by: "Export PNG")
        let settings = self.settings
        try InputFiles.checkOutput(path, against: InputFiles.of(settings, sceneFile: scenePath))
        let result = await Task.detached { () -> Result<[UInt8], MercurialError> in
            Result { () throws(MercurialError) in
                let title = try TitleRenderer.render(settings)
                let recipe = try SceneRecipe.pngChunk(SceneRecipe.json(for: settings))
                return try PNGSink(compression: .fast, ancillary: [recipe]).encode(title.canvas)
            }
        }.value
        let bytes = try result.get()
        // Checked again: a link planted while the title rendered is not followed either.
        try Self.refuseLink(path, by: "Export PNG")
        try OutputFile.write(bytes, to: path)
        exported = bytes
        return (path, bytes)
    }

    // MARK: Exporting the animation

    /// Starts rendering the animation to `<scene>.webm`, `.mov` or `.apng` beside the scene
    /// file, as `mercurial animate` would; progress goes to every page as `export` events
    /// (`running`, then `done`, `failed` or `cancelled`). Returns the path it writes.
    public func exportVideo(format name: String) throws(MercurialError) -> String {
        guard videoExport == nil else { throw MercurialError("an export is running already; wait for it or cancel it") }
        guard let timeline else {
            throw MercurialError("this scene has no \"animation\" to export; add one (e.g. \"animation\": {\"duration\": 2}) or use Export PNG")
        }
        let ext = ["webm": "webm", "mov": "mov", "png": "apng", "apng": "apng"][name]
        guard let ext else { throw MercurialError("unknown video format '\(name)'; the editor exports webm, mov or png (APNG)") }
        let file = UserPath(checked: scenePath).lastComponent
        let stem = file.hasSuffix(".json") ? String(file.dropLast(5)) : file
        let path = folder + "/" + (stem.isEmpty ? "title" : stem) + "." + ext
        try Self.refuseLink(path, by: "Export video")
        try OutputFile.validate(path)
        try InputFiles.checkOutput(path, against: inputFiles)
        let format = try AnimationFormat.forPath(path)
        let job = VideoExport(path: path)
        videoExport = job
        // As `mercurial animate` makes its frames and recipe.
        let frames: VideoExport.Frames, recipe: String
        if let sequence {
            (frames, recipe) = ({ () throws(MercurialError) in try SequenceRenderer(sequence) }, SceneRecipe.json(for: sequence))
        } else {
            let settings = self.settings
            (frames, recipe) = ({ () throws(MercurialError) in try FrameRenderer(base: settings, timeline: timeline) },
                                SceneRecipe.json(for: settings, timeline: timeline))
        }
        broadcast(event: "export", ExportEvent(state: "running", done: 0, frames: timeline.frameCount, path: path))
        // On a Dispatch thread: the frames block it for seconds, and the server needs the pool meanwhile.
        DispatchQueue.global(qos: .userInitiated).async { [weak self] in
            let outcome = job.run(frames, format: format, recipe: recipe) { done in
                Task { await self?.exportProgress(job, done: done, of: timeline.frameCount) }
            }
            Task { await self?.exportFinished(job, outcome) }
        }
        return path
    }

    /// Stops the export under way (its partial file is removed); false when none runs.
    @discardableResult
    public func cancelExport() -> Bool {
        guard let videoExport else { return false }
        videoExport.cancel()
        return true
    }

    public var isExporting: Bool { videoExport != nil }

    func exportProgress(_ job: VideoExport, done: Int, of frames: Int) {
        guard videoExport === job else { return }
        broadcast(event: "export", ExportEvent(state: "running", done: done, frames: frames, path: job.path))
    }

    func exportFinished(_ job: VideoExport, _ outcome: VideoExport.Outcome) {
        guard videoExport === job else { return }
        videoExport = nil
        switch outcome {
        case .done(let frames): broadcast(event: "export", ExportEvent(state: "done", done: frames, frames: frames, path: job.path))
        case .cancelled: broadcast(event: "export", ExportEvent(state: "cancelled", message: "export cancelled; nothing was written", path: job.path))
        case .failed(let message): broadcast(event: "export", ExportEvent(state: "failed", message: message, path: job.path))
        }
    }

    /// The export's name is derived, not given: it is never a link to follow out of the folder.
    /// `export` is the page's button that would write it ("Export PNG", "Export video").
    static func refuseLink(_ path: String, by export: String) throws(MercurialError) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return }
        let kind = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a regular file"
        throw MercurialError("'\(UserPath(checked: path))' is \(kind); \(export) writes only a plain file beside the scene: remove it or move it away")
    }
}

/// One video export: renders the frames into the sink until done or cancelled.
final class VideoExport: Sendable {
    enum Outcome: Sendable { case done(Int), cancelled, failed(String) }
    let path: String
    private let cancelled = Mutex(false)

    init(path: String) { self.path = path }

    func cancel() { cancelled.withLock { $0 = true } }
    var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Makes the renderer of the frames (a `FrameRenderer`, or a sequence's).
    typealias Frames = @Sendable () throws(MercurialError) -> any AnimationFrames

    /// The frames as `mercurial animate` renders them (the same renderer and sink);
    /// `progress` is told after each frame. A cancel or an error removes the partial file.
    func run(_ frames: Frames, format: AnimationFormat, recipe: String, progress: (Int) -> Void) -> Outcome {
        do {
            let renderer = try frames()
            let sink = try format.sink(path: path, width: renderer.width, height: renderer.height, fps: renderer.fps,
                                       frameCount: renderer.frameCount, loop: renderer.loop, quality: renderer.quality,
                                       recipe: recipe)
            do {
                for index in 0..<renderer.frameCount {
                    if isCancelled {
                        sink.discard()
                        return .cancelled
                    }
                    try sink.write(try renderer.frame(index))
                    progress(index + 1)
                }
                try sink.finish()
            } catch {
                sink.discard()
                return .failed(error.message)
            }
            return .done(renderer.frameCount)
        } catch {
            return .failed(error.message)
        }
    }
}
