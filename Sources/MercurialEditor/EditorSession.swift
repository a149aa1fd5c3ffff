import Foundation
import MercurialKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One preview the editor has rendered: the title's canvas, and the scene of the
/// shading sphere beside it (traced when the page asks for it, off the path from a
/// change to its preview).
public struct EditorFrame: Sendable {
    /// Counts up from 1 with every frame rendered.
    public var number: Int
    /// The revision of the state it shows, and the tag of the change that made it.
    public var revision: Int
    public var tag: String?
    /// The canvas, straight-alpha RGBA: the page draws these bytes as they are.
    public var image: Image<RGBA8>
    /// The settings it was rendered with.
    var settings: RenderSettings
    public var scene: ShadingScene { settings.scene }
    public var width: Int
    public var height: Int
    public var milliseconds: Double
    /// The animation's frame it shows (nil: the scene as edited, without its animation).
    public var playhead: Int? = nil
    /// The point lights' centres in that frame, canvas pixels (its tracks and orbits move them);
    /// nil for the scene as edited, a sequence's frame, or a scene without point lights.
    var pointLights: [[Double]]? = nil

    /// The canvas as a PNG (for `/frame`; the page itself draws the raw pixels).
    public func png() throws(MercurialError) -> [UInt8] { try PNGSink(compression: .fast).encode(image) }
}

/// The state of one `mercurial edit`: the settings being edited, the scene file
/// they are saved to and reloaded from, the frames rendered, and the pages
/// listening. Every change renders through `RenderPipeline` (at most one render in
/// flight and one pending; the last state is always rendered), and every frame is
/// announced to every page on the event stream.
public actor EditorSession {
    /// The session runs on a serial queue of its own, not on the cooperative pool: a page's
    /// change is applied and answered while renders (which use every core) hold the pool's
    /// threads. On two cores, with both held, a change went unanswered for over 60 s.
    private let executor = QueueExecutor(label: "mercurial.editor-session")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A state to render.
    struct Snapshot: Sendable {
        var settings: RenderSettings
        var revision: Int
        var tag: String?
        /// The animation's frame to show, with the animation (and its JSON, which identifies it).
        var playhead: Int? = nil
        var timeline: Timeline? = nil
        var animationKey = ""
        /// The scene's sequence of titles, shown at `playhead` (then `animationKey` is the whole scene's JSON).
        var sequence: TitleSequence? = nil
    }

    /// The pseudo-key of a change that moves the playhead: its value is a frame number,
    /// or `none` for the scene as edited. It is no key of the scene: not saved, not undone.
    public static let playheadKey = "@frame"

    public internal(set) var settings: RenderSettings
    /// The scene file's members in its order: `settings` are this document read as a
    /// scene (its preset, then its keys), and a save writes it (see `SceneDocument`).
    var document: SceneDocument
    /// The scene's animation, as the document gives it (for a sequence: its length and rate, without tracks).
    var timeline: Timeline?
    /// The scene's sequence of titles, when it has one: the playhead is then always on one of its frames.
    var sequence: TitleSequence?
    /// Counts the reads of the scene from disk: a title's own scene file may have changed, not the scene's.
    var sceneReads = 0
    /// Each preset's settings on their own (what a key equal to them need not say).
    var presets: [String: RenderSettings] = [:]
    /// The animation's frame shown, when the page's timeline has put its playhead there.
    public internal(set) var playhead: Int?
    /// Counts every change to the settings: from a page, a material, or the files on disk.
    public internal(set) var revision = 0
    /// The scene file loaded and watched, if it exists.
    public nonisolated let scenePath: String
    /// The folder of the scene file (absolute): the only folder paths from a page may name.
    public nonisolated let folder: String
    public internal(set) var frame: EditorFrame?
    /// The frames before `frame` that a page may still show, newest last: at most
    /// three, and no more than fit in `keptBytes` with `frame` (an 8K frame is 133 MB: none).
    var earlierFrames: [EditorFrame] = []
    /// Frame requests waiting for the next frame (see `waitForFrame`).
    var frameWaiters = FrameWaiters()
    var stopped = false
    /// The most the frames kept may take: the newest, the earlier ones and the spare canvases.
    static let keptBytes = 160 << 20
    /// Above this resident size of the process, after a frame, the earlier frames and
    /// spare canvases are let go.
    public static let defaultPressureBytes = 384 << 20
    /// This session's threshold (`defaultPressureBytes` for the edit server; a test
    /// sharing its process with hundreds of others, whose size says nothing of this
    /// session, passes `Int.max`).
    public nonisolated let pressureBytes: Int
    /// The last render's error (nil when it rendered).
    public internal(set) var lastError: String?
    var lastTag: String?
    var frameCounter = 0
    /// The pages' event streams.
    var listeners = Listeners()
    /// Carries only "something changed": each render takes the newest snapshot as it
    /// starts, so the order in which changes reach the pipeline cannot matter.
    var pipeline: RenderPipeline<Void>?
    var watcher: FileWatcher?
    var watchedFiles: [String] = []
    let renderCache = RenderCache()
    var keepAlive: Task<Void, Never>?
    /// The scene file as the editor last read or wrote it (nil: it has not read or
    /// written one): a save refuses to replace a file that changed since.
    var onDisk: DiskState?
    /// The scene as the editor last read or saved it (or began it): the page's edits since are
    /// unsaved while `document` differs from it.
    var savedText = ""
    /// Why the scene file on disk and the page's unsaved edits now differ (the file changed
    /// meanwhile); nil when they do not. Neither is lost: the page offers both ways out.
    public internal(set) var diskConflict: String?
    /// The bytes "Export PNG" last wrote, for the download.
    public internal(set) var exported: [UInt8]?
    /// The video export under way, if any.
    var videoExport: VideoExport?

    /// The families fontconfig lists, read once.
    public nonisolated let installedFamilies: [String]
    public nonisolated let bundledFonts: [String]
    public nonisolated let materials: [String]

    /// The text a session without a scene file starts from.
    public static let defaultText = "MercurialText"

    /// A session editing `scenePath`: loaded if it exists (an error if it cannot be
    /// read), otherwise started from the default material and text and created by
    /// the first save.
    public init(scenePath: String, pressureBytes: Int = EditorSession.defaultPressureBytes) throws(MercurialError) {
        self.pressureBytes = pressureBytes
        let path = try UserPath(scenePath, role: "scene file")
        self.scenePath = path.absolute
        folder = UserPath(checked: path.absolute).directory
        guard FileWatcher.isDirectory(folder) else {
            throw MercurialError("the folder of the scene file '\(path)' does not exist; create it, or give a scene file in an existing folder")
        }
        var settings = RenderSettings()
        var info = stat()
        if lstat(scenePath, &info) == 0 {
            try InputFile.refuseIfNotRegular(scenePath, role: "scene file")
            let (loaded, read, before) = try Self.read(scenePath)
            (document, onDisk) = (read, before)
            (settings, timeline, sequence) = (loaded.settings, loaded.timeline, loaded.sequence)
            playhead = Self.playhead(nil, in: timeline, sequence: sequence)
        } else {
            settings.text = Self.defaultText
            document = SceneDocument(members: [])
            document.set("text", .string(Self.defaultText))
        }
        self.settings = settings
        savedText = document.text
        installedFamilies = FontLibrary.installedFamilies()
        bundledFonts = ((try? FontLibrary.bundled()) ?? []).map(\.name)
        materials = ((try? Materials.bundled()) ?? []).map(\.name)
    }

    /// Starts watching the files and renders the first frame.
    public func start() throws(MercurialError) {
        let cache = renderCache
        pipeline = RenderPipeline { [weak self] in
            guard let snapshot = await self?.snapshot() else { return }
            // On a Dispatch thread: a render blocks its thread, and the server's
            // requests need the cooperative pool's few threads meanwhile.
            let result = await withCheckedContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(returning: Self.render(snapshot, renderCache: cache))
                }
            }
            await self?.finished(snapshot, result)
        }
        watcher = try FileWatcher { [weak self] path in
            Task { await self?.fileChanged(path) }
        }
        rewatch()
        keepAlive = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(15))
                await self?.broadcast(": keep-alive\n\n")
            }
        }
        scheduleRender()
    }

    public func stop() {
        keepAlive?.cancel()
        listeners.finish()
        watcher = nil
        stopped = true
        cancelExport()
        wakeFrameWaiters()
    }

    /// Returns once a frame numbered above `number` has been rendered, or `timeout`
    /// has passed, or the session stops: a page's socket and a frame request wait here, so a frame
    /// goes out the moment it is rendered, with no event and request in between.
    /// A cancelled task returns at once (a page's socket that closed).
    public func waitForFrame(after number: Int, timeout: Duration) async {
        guard (frame?.number ?? 0) <= number, !stopped, !Task.isCancelled else { return }
        let id = frameWaiters.newID()
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.wakeFrameWaiter(id)
        }
        // The continuation is stored before this actor can run the cancellation's task.
        await withTaskCancellationHandler {
            await withCheckedContinuation { frameWaiters.add(id, $0) }
        } onCancel: {
            Task { await self.wakeFrameWaiter(id) }
        }
        timer.cancel()
    }

    /// Whether `stop` was called.
    public var isStopped: Bool { stopped }

    func wakeFrameWaiter(_ id: Int) { frameWaiters.wake(id) }

    func wakeFrameWaiters() { frameWaiters.wakeAll() }

    /// The requests waiting for a frame, by the id each was given.
    struct FrameWaiters {
        private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        private var lastID = 0

        mutating func newID() -> Int {
            lastID += 1
            return lastID
        }

        mutating func add(_ id: Int, _ waiter: CheckedContinuation<Void, Never>) { waiting[id] = waiter }

        /// Resumes the request `id`, if it still waits (its time-out and a frame may both come).
        mutating func wake(_ id: Int) { waiting.removeValue(forKey: id)?.resume() }

        mutating func wakeAll() {
            let all = waiting
            waiting.removeAll()
            all.values.forEach { $0.resume() }
        }
    }

    /// How many renders have started (for tests of the coalescing).
    public func renderCount() async -> Int { await pipeline?.renderCount ?? 0 }

    /// Returns once no render is in flight or pending.
    public func waitUntilIdle() async { await pipeline?.waitUntilIdle() }

    /// Whether the page's edits since the scene was last read or saved are unsaved (undone back to it: no).
    public var unsaved: Bool { document.text != savedText }

    func changed(tag: String?) {
        revision += 1
        lastTag = tag
        broadcast(event: "state", StateEvent(revision: revision, tag: OrNull(tag), unsaved: unsaved))
        scheduleRender()
        rewatch()
    }

    /// The state as it is now, for the render about to start.
    func snapshot() -> Snapshot {
        Snapshot(settings: settings, revision: revision, tag: lastTag, playhead: playhead, timeline: timeline,
                 animationKey: sequence != nil ? "\(sceneReads)\n" + document.text
                     : (document["animation"]?.text() ?? "") + (document["dynamics"]?.text() ?? ""),
                 sequence: sequence)
    }

    /// Asks for a render. The request travels in a task, and two tasks may reach the
    /// pipeline in either order; that is harmless, as a render reads the newest state
    /// when it starts (a snapshot sent along could overtake a newer one).
    func scheduleRender() {
        Task { await pipeline?.update(()) }
    }
}

/// An invalid change: the key it was for and the command line's message.
public struct EditorChangeError: Error, Sendable {
    public var key: String
    public var message: String
    /// Whose the error is, as the command line's (an HTTP status from it).
    public var kind: MercurialError.Kind = .input
}

