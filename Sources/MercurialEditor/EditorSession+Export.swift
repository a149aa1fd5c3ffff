import Foundation
import MercurialKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Export PNG and Export video, written beside the scene file.
extension EditorSession {
    /// Renders the full-size PNG (with its recipe) as `mercurial render` writes it (a
    /// `StillJob`, run into memory) and writes it atomically beside the scene file,
    /// named after it; returns its path and bytes.
    public func export() async throws(MercurialError) -> (path: String, bytes: [UInt8]) {
        let name = UserPath(checked: scenePath).lastComponent
        let stem = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
        let path = folder + "/" + (stem.isEmpty ? "title" : stem) + ".png"
        try Self.refuseLink(path, by: "Export PNG")
        let settings = self.settings
        try InputFiles.checkOutput(path, against: InputFiles.of(settings, sceneFile: scenePath))
        let result = await Task.detached { () -> Result<[UInt8], MercurialError> in
            Result { () throws(MercurialError) in
                let memory = MemoryOutput()
                _ = try RenderJob.run(StillJob(settings: settings), to: .memory(memory))
                guard let bytes = memory.bytes else { throw MercurialError("Export PNG rendered no file") }
                return bytes
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
        // As `mercurial animate` renders it: the same job.
        let animation = AnimationJob(scene: sequence.map { .sequence($0) } ?? .title(settings, timeline),
                                     format: try AnimationFormat.forPath(path))
        let job = VideoExport(path: path)
        videoExport = job
        broadcast(event: "export", ExportEvent(state: "running", done: 0, frames: timeline.frameCount, path: path))
        // On a Dispatch thread: the frames block it for seconds, and the server needs the pool meanwhile.
        DispatchQueue.global(qos: .userInitiated).async { [weak self] in
            let outcome = job.run(animation) { done in
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

/// One video export: runs its `AnimationJob` until done or cancelled.
final class VideoExport: Sendable {
    enum Outcome: Sendable { case done(Int), cancelled, failed(String) }
    let path: String
    private let cancelled = Mutex(false)

    init(path: String) { self.path = path }

    func cancel() { cancelled.withLock { $0 = true } }
    var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Runs `job` to the export's path as `mercurial animate` does (`RenderJob.run`), stopped
    /// by `cancel`; `progress` is told after each frame. A cancel or an error removes the partial file.
    func run(_ job: AnimationJob, progress: (Int) -> Void) -> Outcome {
        let cancellation = Cancellation { [self] in isCancelled ? "the export was cancelled" : nil }
        do {
            return .done(try RenderJob.run(job, to: path, cancellation: cancellation, progress: progress).frames)
        } catch {
            return isCancelled ? .cancelled : .failed(error.message)
        }
    }
}
