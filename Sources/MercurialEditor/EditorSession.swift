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

    public private(set) var settings: RenderSettings
    /// The scene file's members in its order: `settings` are this document read as a
    /// scene (its preset, then its keys), and a save writes it (see `SceneDocument`).
    private var document: SceneDocument
    /// The scene's animation, as the document gives it (for a sequence: its length and rate, without tracks).
    private var timeline: Timeline?
    /// The scene's sequence of titles, when it has one: the playhead is then always on one of its frames.
    private var sequence: TitleSequence?
    /// Counts the reads of the scene from disk: a title's own scene file may have changed, not the scene's.
    private var sceneReads = 0
    /// Each preset's settings on their own (what a key equal to them need not say).
    private var presets: [String: RenderSettings] = [:]
    /// The animation's frame shown, when the page's timeline has put its playhead there.
    public private(set) var playhead: Int?
    /// Counts every change to the settings: from a page, a material, or the files on disk.
    public private(set) var revision = 0
    /// The scene file loaded and watched, if it exists.
    public nonisolated let scenePath: String
    /// The folder of the scene file (absolute): the only folder paths from a page may name.
    public nonisolated let folder: String
    public private(set) var frame: EditorFrame?
    /// The frames before `frame` that a page may still show, newest last: at most
    /// three, and no more than fit in `keptBytes` with `frame` (an 8K frame is 133 MB: none).
    private var earlierFrames: [EditorFrame] = []
    /// Frame requests waiting for the next frame (see `waitForFrame`).
    private var frameWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextFrameWaiter = 0
    private var stopped = false
    /// The most the frames kept may take: the newest, the earlier ones and the spare canvases.
    static let keptBytes = 160 << 20
    /// Above this resident size, after a frame, the earlier frames and spare canvases are let go.
    static let pressureBytes = 384 << 20
    /// The last render's error (nil when it rendered).
    public private(set) var lastError: String?
    private var lastTag: String?
    private var frameCounter = 0
    private var clients: [Int: AsyncStream<[UInt8]>.Continuation] = [:]
    private var nextClient = 0
    /// Carries only "something changed": each render takes the newest snapshot as it
    /// starts, so the order in which changes reach the pipeline cannot matter.
    private var pipeline: RenderPipeline<Void>?
    private var watcher: FileWatcher?
    private var watchedFiles: [String] = []
    private let renderCache = RenderCache()
    private var keepAlive: Task<Void, Never>?
    /// The scene file as the editor last read or wrote it (nil: it has not read or
    /// written one): a save refuses to replace a file that changed since.
    private var onDisk: DiskState?
    /// The bytes "Export PNG" last wrote, for the download.
    public private(set) var exported: [UInt8]?
    /// The families fontconfig lists, read once.
    public nonisolated let installedFamilies: [String]
    public nonisolated let bundledFonts: [String]
    public nonisolated let materials: [String]

    /// The text a session without a scene file starts from.
    public static let defaultText = "MercurialText"

    /// A session editing `scenePath`: loaded if it exists (an error if it cannot be
    /// read), otherwise started from the default material and text and created by
    /// the first save.
    public init(scenePath: String) throws(MercurialError) {
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
        for client in clients.values { client.finish() }
        clients.removeAll()
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
        let id = nextFrameWaiter
        nextFrameWaiter += 1
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.wakeFrameWaiter(id)
        }
        // The continuation is stored before this actor can run the cancellation's task.
        await withTaskCancellationHandler {
            await withCheckedContinuation { frameWaiters[id] = $0 }
        } onCancel: {
            Task { await self.wakeFrameWaiter(id) }
        }
        timer.cancel()
    }

    /// Whether `stop` was called.
    public var isStopped: Bool { stopped }

    private func wakeFrameWaiter(_ id: Int) {
        frameWaiters.removeValue(forKey: id)?.resume()
    }

    private func wakeFrameWaiters() {
        let waiting = frameWaiters
        frameWaiters.removeAll()
        waiting.values.forEach { $0.resume() }
    }

    /// How many renders have started (for tests of the coalescing).
    public func renderCount() async -> Int { await pipeline?.renderCount ?? 0 }

    /// Returns once no render is in flight or pending.
    public func waitUntilIdle() async { await pipeline?.waitUntilIdle() }

    // MARK: Changes

    /// A change from a page: `key` a parameter's key (or `material`), `value` as
    /// the command line's `--set KEY=VALUE` takes it.
    public struct Change: Sendable {
        public var key: String
        public var value: String
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// Applies `changes` together, or none of them: the error is the command line's
    /// for the same `--set` (and names the key in `failedKey`). Returns the new
    /// revision, whether anything changed (when nothing did, no frame follows) and the
    /// keyframes an edit at the playhead ADDED (key → seconds): their undo takes them out
    /// rather than setting them to the value before.
    /// Each change is recorded in the document (see `record`), and the settings are the
    /// document read again: what is shown is what a save writes.
    public func apply(_ changes: [Change], tag: String?) throws(EditorChangeError)
        -> (revision: Int, changed: Bool, addedKeyframes: [String: Double]) {
        var next = settings
        var nextDocument = document
        var nextTimeline = timeline
        var nextSequence = sequence
        var nextPlayhead = playhead
        var added: [String: Double] = [:]
        for change in changes {
            if change.key == Self.playheadKey {
                nextPlayhead = try Self.frame(change.value, of: nextTimeline)
                continue
            }
            do {
                if change.key == Self.keyframeKey || change.key.hasPrefix(Self.keyframeKey + ":") {
                    try keyframe(change.value, of: next, timeline: nextTimeline, sequence: nextSequence != nil, in: &nextDocument)
                } else if nextSequence == nil, let timeline = nextTimeline, let frame = nextPlayhead,
                          timeline.tracks.contains(where: { $0.key == change.key }) {
                    // As After Effects does: a key with a track, edited at the playhead, sets
                    // (or adds) its keyframe there; its base value would only be overridden.
                    var edited = next
                    if let path = Self.documentPath(change.key), case .key("layers") = path[0] {
                        // A layer's key: set in a copy of the document, read as the file's would be.
                        var trial = nextDocument
                        try trial.assign(change.key, path, Self.jsonValue(change.value))
                        try checkLayers(trial["layers"], had: document["layers"])
                        edited = try trial.load(as: scenePath).settings
                    } else {
                        try applyOne(change, to: &edited)
                    }
                    let t = timeline.time(ofFrame: min(frame, timeline.frameCount - 1))
                    if nextDocument.keyframeValue(change.key, at: t) == nil { added[change.key] = t }
                    try setKeyframe(change.key, at: t, of: edited, in: &nextDocument)
                } else if let path = Self.documentPath(change.key) {
                    try Self.checkStepKey(change.key, path)
                    // The animation's, dynamics', in/out's, layers' and a sequence step's keys: set in the
                    // document, checked as the file's are when it is read. A whole block (`layers`, `in`)
                    // set to none is taken out.
                    let value = Self.jsonValue(change.value)
                    if path.count == 1, case .key(let block) = path[0] {
                        let taken = ["none", "null"].contains(change.value.trimmingCharacters(in: .whitespaces))
                        nextDocument.set(block, taken ? nil : value)
                    } else {
                        try nextDocument.assign(change.key, path, value)
                    }
                    if case .key("layers") = path[0] { try checkLayers(nextDocument["layers"], had: document["layers"]) }
                    if case .key("sequence") = path[0] { try checkSteps(nextDocument["sequence"], had: document["sequence"]) }
                } else {
                    try applyOne(change, to: &next)
                    try record(change, from: next, in: &nextDocument)
                }
                let loaded = try nextDocument.load(as: scenePath)
                (next, nextTimeline, nextSequence) = (loaded.settings, loaded.timeline, loaded.sequence)
            } catch {
                throw EditorChangeError(key: change.key, message: error.message, kind: error.kind)
            }
        }
        nextPlayhead = Self.playhead(nextPlayhead, in: nextTimeline, sequence: nextSequence)
        // A sequence's steps are not settings: any change to its scene is one to show.
        let moved = nextPlayhead != playhead || nextTimeline != timeline
            || (nextSequence != nil && nextDocument.text != document.text)
        document = nextDocument
        (timeline, sequence, playhead) = (nextTimeline, nextSequence, nextPlayhead)
        guard next != settings || moved else { return (revision, false, added) }
        settings = next
        changed(tag: tag)
        return (revision, true, added)
    }

    /// The playhead kept within `timeline` (nil without one); a sequence's is on a frame from the start.
    static func playhead(_ frame: Int?, in timeline: Timeline?, sequence: TitleSequence?) -> Int? {
        guard let timeline, let frame = frame ?? (sequence == nil ? nil : 0) else { return nil }
        return min(frame, timeline.frameCount - 1)
    }

    /// A number as a message shows it (`2`, `0.5`).
    static func number(_ value: Double) -> String { String(format: "%g", value) }

    /// The path of a key the editor sets in the document, as the file holds it: those the scene
    /// file's reader reads with the timeline (`animation.fps`, `dynamics.ropes`, `in`, `out.duration`,
    /// a sequence's step: `sequence[1].hold`, `sequence[0].scene.text`) and the layers (`layers`,
    /// `layers[1].text`), read over the scene's top level; nil for the others.
    static func documentPath(_ key: String) -> [SchemaPathStep]? {
        guard !key.hasPrefix("animation.tracks"), let path = SchemaPathStep.parse(key),
              case .key(let block)? = path.first else { return nil }
        switch block {
        case "animation", "dynamics": return path.count > 1 ? path : nil
        case "in", "out", "layers", "sequence": return path
        default: return nil
        }
    }

    /// What a page puts in a layer is held to what it may put at the top level: a bundled
    /// material, a font or file inside the scene's folder, no fallback fonts (they name files).
    /// A layer's value the file already had (read from disk, sent back with the list) stays.
    private func checkLayers(_ layers: JSONValue?, had: JSONValue?) throws(MercurialError) {
        func fields(_ list: JSONValue?) -> [(index: Int, member: JSONMember)] {
            guard case .array(let items)? = list else { return [] }
            return items.enumerated().flatMap { index, item -> [(index: Int, member: JSONMember)] in
                guard case .object(let members) = item.value else { return [] }
                return members.map { (index, $0) }
            }
        }
        let kept = Set(fields(had).map { $0.member.key + "=" + $0.member.value.value.text() })
        for (index, member) in fields(layers) where !kept.contains(member.key + "=" + member.value.value.text()) {
            let key = "layers[\(index)].\(member.key)"
            if member.key == "fallbackFonts" { throw MercurialError("\(key) names font files, which the editor does not take; give the layer a \"font\"") }
            guard case .string(let text) = member.value.value else { continue }
            if member.key == "material" {
                guard materials.contains(text) else {
                    throw MercurialError("unknown material '\(text)' for \(key); bundled: \(materials.joined(separator: ", "))")
                }
            } else if let parameter = try? ParameterGroup.parameter(forKey: member.key), parameter.key == member.key {
                switch parameter.kind {
                case .path: _ = try inputFile(text, of: parameter, key: key)
                case .font: _ = try allowedFont(text)
                default: break
                }
            }
        }
    }

    /// What a page puts in a sequence's steps is held to what it may put at the top level: a
    /// step's scene is an inline object (a scene FILE is named in the file, not from the page),
    /// its keys name no file (no font, mask or shading image, no fallback fonts, no layers or
    /// nested sequence) and its material is a bundled one. A step's scene, or one of its inline
    /// scene's values, that the file already had (read from disk, sent back with the list when a
    /// step is moved or taken out) stays.
    private func checkSteps(_ steps: JSONValue?, had: JSONValue?) throws(MercurialError) {
        func scenes(_ list: JSONValue?) -> [(index: Int, scene: JSONValue)] {
            guard case .array(let items)? = list else { return [] }
            return items.enumerated().compactMap { index, item in
                guard case .object(let members) = item.value,
                      let scene = members.first(where: { $0.key == "scene" }) else { return nil }
                return (index, scene.value.value)
            }
        }
        func fields(_ scene: JSONValue) -> [JSONMember] {
            if case .object(let members) = scene { return members } else { return [] }
        }
        let before = scenes(had)
        let keptFiles = Set(before.compactMap { if case .string(let file) = $0.scene { file } else { nil } })
        let kept = Set(before.flatMap { fields($0.scene) }.map { $0.key + "=" + $0.value.value.text() })
        let namesFiles: Set<String> = ["fallbackFonts", "layers", "sequence", "generator", "fontSHA256"]
        for (index, scene) in scenes(steps) {
            switch scene {
            case .string(let file):
                guard keptFiles.contains(file) else {
                    throw MercurialError("sequence[\(index)].scene names a scene file, which the editor does not take; give the step an inline scene ({\"text\": …}) or name the file in the scene file")
                }
            case .object(let members):
                for member in members where !kept.contains(member.key + "=" + member.value.value.text()) {
                    let key = "sequence[\(index)].scene.\(member.key)"
                    if member.key == "material" {
                        guard case .string(let name) = member.value.value, materials.contains(name) else {
                            throw MercurialError("\(key) must be a bundled material (\(materials.joined(separator: ", "))); a material file is named in the scene file")
                        }
                    } else if namesFiles.contains(member.key) {
                        throw MercurialError("\(key) is not set from the page; edit it in the scene file")
                    } else if let parameter = try? ParameterGroup.parameter(forKey: member.key), parameter.key == member.key,
                              parameter.kind == .path || parameter.kind == .font {
                        throw MercurialError("\(key) names a file, which the editor does not take for a step; set it in the scene file")
                    }
                }
            default: break   // the scene file's reader words the error
            }
        }
    }

    /// Refuses a `path` a page may not set: of a sequence's step, all but its hold, its
    /// transition, its inline scene's material or a parameter of it that names no file (a page
    /// never names a file to read: see `insideFolder`; a step's scene file, font or mask would
    /// be read as named). The whole list is checked by `checkSteps`.
    static func checkStepKey(_ key: String, _ path: [SchemaPathStep]) throws(MercurialError) {
        guard case .key("sequence")? = path.first else { return }
        var settable = path.count == 1   // the whole list: its steps are checked by `checkSteps`
        if path.count >= 3, case .index = path[1], case .key(let field) = path[2] {
            switch field {
            case "hold": settable = path.count == 3
            case "transition": settable = true
            case "scene":
                if path.count == 4, case .key(let name) = path[3] {
                    if name == "material" { settable = true }   // a bundled one: see `checkSteps`
                    else if let parameter = try? ParameterGroup.parameter(forKey: name), parameter.key == name {
                        settable = parameter.kind != .path && parameter.kind != .font
                    }
                }
            default: break
            }
        }
        guard settable else {
            throw MercurialError("'\(key)' is not set from the page: the editor sets the steps, a step's \"hold\", its \"transition\" and the keys of its inline \"scene\" that name no file (sequence[0].scene.text); edit the rest in the scene file")
        }
    }

    /// The scene file as the editor holds it (the page reads the animation's and dynamics' values from it).
    public var documentJSON: String { document.text }

    /// The pseudo-key of a change that adds, removes or moves a keyframe: its value is
    /// `{"key": K, "t": seconds, "remove": false}`, the keyframe taking K's value as it is now,
    /// or `{"key": K, "t": seconds, "to": seconds}`, K's keyframe at `t` moved to `to` (with its
    /// timing), or `{"key": K, "t": seconds, "timing": "easeIn"}`, its easing to the next one
    /// (null: linear), or `{"key": K, "t": seconds, "value": V}` (with a timing or not), the
    /// keyframe put as given.
    /// (`@keyframe:K` is the same change, for a batch changing the keyframes of several keys.)
    public static let keyframeKey = "@keyframe"

    private func keyframe(_ text: String, of settings: RenderSettings, timeline: Timeline?, sequence: Bool,
                          in document: inout SceneDocument) throws(MercurialError) {
        guard let root = try? JSONDocument.parse(Array(text.utf8)),
              case .string(let key)? = root.value.at([.key("key")]), case .number(let t)? = root.value.at([.key("t")]) else {
            throw MercurialError("a keyframe is {\"key\": KEY, \"t\": SECONDS}")
        }
        guard let timeline else {
            throw MercurialError("this scene has no \"animation\"; add one (e.g. \"animation\": {\"duration\": 2}) to keyframe its values")
        }
        guard !sequence else {
            throw MercurialError("a sequence's titles are keyframed in their own scenes: give a step's \"scene\" an \"animation\" with \"tracks\"")
        }
        func check(_ t: Double) throws(MercurialError) {
            guard t >= 0, t <= timeline.duration else {
                throw MercurialError("a keyframe at \(Self.number(t)) s is outside the animation: give a time from 0 to \(Self.number(timeline.duration)) s")
            }
        }
        try check(t)
        if case .number(let to)? = root.value.at([.key("to")]) {
            try check(to)
            try document.moveKeyframe(key, from: t, to: to)
            return
        }
        if case .bool(true)? = root.value.at([.key("remove")]) {
            document.keyframe(key, at: t, value: nil)
            return
        }
        let (value, timing) = (root.value.at([.key("value")]), root.value.at([.key("timing")]))
        guard value != nil || timing != nil else {
            try setKeyframe(key, at: t, of: settings, in: &document)
            return
        }
        // A value given (an undo putting back a keyframe it took out): set as given, checked
        // as the file's when the document is read again.
        if let value {
            guard timeline.tracks.contains(where: { $0.key == key }) || Self.value(of: key, in: settings) != nil else {
                throw MercurialError("'\(key)' is no key a track can animate (see 'mercurial params')")
            }
            document.keyframe(key, at: t, value: value)
        }
        if let timing {
            // The easing from this keyframe to the next (null: linear, left out).
            switch timing {
            case .string(let text):
                _ = try TimingFunction.parse(text)
                try document.keyframeTiming(key, at: t, timing)
            case .null:
                try document.keyframeTiming(key, at: t, nil)
            default:
                throw MercurialError("a keyframe's timing is a name such as \"easeIn\" or cubicBezier(x1, y1, x2, y2)")
            }
        }
    }

    /// A change's value as JSON, or as a string when it is not JSON (`Jane Doe`, `gold`).
    static func jsonValue(_ text: String) -> JSONValue {
        (try? JSONDocument.parse(Array(text.utf8)))?.value ?? .string(text)
    }

    /// Puts the keyframe of `key` at `t` in `document`, with the value `settings` give the key.
    private func setKeyframe(_ key: String, at t: Double, of settings: RenderSettings,
                             in document: inout SceneDocument) throws(MercurialError) {
        guard let value = Self.value(of: key, in: settings) else {
            throw MercurialError("'\(key)' is no key a track can animate (see 'mercurial params')")
        }
        document.keyframe(key, at: t, value: value)
    }

    /// The value `settings` give a track's key: a parameter, a nested block's number or colour,
    /// or either of a layer (`layers[1].size`).
    static func value(of key: String, in settings: RenderSettings) -> JSONValue? {
        if let layer = ScenePath.layerKey(key), settings.layers.indices.contains(layer.index) {
            return value(of: layer.key, in: settings.layers[layer.index].settings)
        }
        if let parameter = try? ParameterGroup.parameter(forKey: key), parameter.key == key {
            return JSONValue(parameter.value(in: settings))
        }
        return SceneSchema.value(at: key, in: settings)
    }

    /// A playhead's value from a page: a frame of the animation, or `none`.
    static func frame(_ value: String, of timeline: Timeline?) throws(EditorChangeError) -> Int? {
        if value == "none" { return nil }
        guard let timeline else {
            throw EditorChangeError(key: playheadKey, message: "this scene has no \"animation\"; add one (e.g. \"animation\": {\"duration\": 2}) to move through time")
        }
        guard let index = Int(value), (0..<timeline.frameCount).contains(index) else {
            throw EditorChangeError(key: playheadKey, message: "frame '\(value)' is not in the animation: give a frame from 0 to \(timeline.frameCount - 1) (\(Self.number(timeline.duration)) s at \(Self.number(timeline.fps)) frames/s)")
        }
        return index
    }

    /// The scene's animation, as the page's timeline shows it.
    public var animation: Timeline? { timeline }

    /// The scene's sequence of titles, if it has one.
    public var titleSequence: TitleSequence? { sequence }

    /// The settings as the controls show them: at the playhead, each key with a track takes
    /// the track's value there (an edit of it sets that keyframe; see `apply`).
    public var shownSettings: RenderSettings {
        guard let playhead, let timeline, sequence == nil else { return settings }
        var shown = settings
        for track in timeline.tracks { track.apply(at: timeline.time(ofFrame: playhead), to: &shown) }
        return shown
    }

    /// The keys of the document that the preset does not give (the page marks their controls).
    public var overriddenKeys: [String] {
        document.members.map(\.key).filter { !["material", "description", "generator"].contains($0) }
    }

    /// Writes `change`, applied to `settings`, into `document`.
    private func record(_ change: Change, from settings: RenderSettings, in document: inout SceneDocument) throws(MercurialError) {
        if change.key == "material" {
            document.set("material", .string(change.value))
            return
        }
        let base = try preset(document["material"] == nil ? nil : settings.material)
        if let parameter = try? ParameterGroup.parameter(forKey: change.key) {
            document.record(parameter, from: settings, base: base, folder: folder)
        } else if case .key(let block)? = SchemaPathStep.parse(change.key)?.first {
            document.recordBlock(block, from: settings, base: base)
        }
    }

    /// The settings of the preset `name` alone (nil: the defaults, which are the mercurial preset's).
    private func preset(_ name: String?) throws(MercurialError) -> RenderSettings {
        guard let name else { return RenderSettings() }
        if let known = presets[name] { return known }
        var base = RenderSettings()
        try Materials.apply(name, to: &base)
        presets[name] = base
        return base
    }

    private func applyOne(_ change: Change, to settings: inout RenderSettings) throws(MercurialError) {
        if change.key == "material" {
            // Only a bundled preset: a page never names a file to read.
            guard materials.contains(change.value) else {
                throw MercurialError("unknown material '\(change.value)'; bundled: \(materials.joined(separator: ", "))")
            }
            try Materials.apply(change.value, to: &settings)
            return
        }
        if SceneSchema.isNested(change.key), (try? ParameterGroup.parameter(forKey: change.key)) == nil {
            // A key of a nested block (a control made from the scene schema): no files are named there.
            return try SceneSchema.assign(change.key, text: change.value, to: &settings)
        }
        let parameter = try ParameterGroup.parameter(forKey: change.key)
        var value = try parameter.parse(change.value, culprit: "\(parameter.key) = '\(change.value)'")
        if case .text(let text) = value {
            switch parameter.kind {
            case .path: value = .text(try inputFile(text, of: parameter, key: parameter.key))
            case .font: value = .text(try allowedFont(text))
            default: break
            }
        }
        try settings.set(parameter, to: value)
    }

    /// A file a page names: relative to the scene's folder, and inside it once links are followed.
    func insideFolder(_ text: String, key: String) throws(MercurialError) -> String {
        let user = try UserPath(text, role: key)
        let path = user.isAbsolute ? user.string : folder + "/" + user.string
        guard let real = Self.realPath(path), let base = Self.realPath(folder),
              real.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
            throw MercurialError("\(key) = '\(text)' is not a file in the scene's folder '\(folder)'; the editor reads only files there")
        }
        return real
    }

    /// The file a page names for `parameter` (a mask, a shading image), as `key` (`layers[0].mask`):
    /// inside the scene's folder (`insideFolder`), and checked now as the command line checks it,
    /// so that the change is refused, not the render after it: a FIFO, device or folder at once
    /// (by its `stat`, never opened: a FIFO mask held the change 11 s), a shading image that is not a PNG.
    func inputFile(_ text: String, of parameter: Parameter, key: String) throws(MercurialError) -> String {
        let path = try insideFolder(text, key: key)
        if parameter.key == "shadingImage" {
            _ = try ShadingLookup.read(path)
        } else {
            try InputFile.refuseIfNotRegular(path, role: parameter.key)
        }
        return path
    }

    /// A bundled font, an installed family (with an optional `:style`), or a font file in the scene's folder.
    func allowedFont(_ text: String) throws(MercurialError) -> String {
        let name = text.trimmingCharacters(in: .whitespaces)
        if bundledFonts.contains(name.lowercased()) { return name }
        if UserPath.looksLikePath(name) { return try insideFolder(name, key: "font") }
        let family = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        guard !name.contains("="), installedFamilies.contains(where: { $0.lowercased() == family.lowercased() }) else {
            throw MercurialError("unknown font '\(name)': not bundled (\(bundledFonts.joined(separator: ", "))) and no installed font has that family; see 'mercurial fonts' or 'fc-list'")
        }
        return name
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private func changed(tag: String?) {
        revision += 1
        lastTag = tag
        broadcast(event: "state", json: ["revision": revision, "tag": tag ?? NSNull()])
        scheduleRender()
        rewatch()
    }

    /// The state as it is now, for the render about to start.
    private func snapshot() -> Snapshot {
        Snapshot(settings: settings, revision: revision, tag: lastTag, playhead: playhead, timeline: timeline,
                 animationKey: sequence != nil ? "\(sceneReads)\n" + document.text
                     : (document["animation"]?.text() ?? "") + (document["dynamics"]?.text() ?? ""),
                 sequence: sequence)
    }

    /// Asks for a render. The request travels in a task, and two tasks may reach the
    /// pipeline in either order; that is harmless, as a render reads the newest state
    /// when it starts (a snapshot sent along could overtake a newer one).
    private func scheduleRender() {
        Task { await pipeline?.update(()) }
    }

    // MARK: Files

    /// A watched file changed: the scene is read again, as watch mode reads it;
    /// a font, mask or shading image is rendered again. A sequence is read again whichever
    /// of its files changed (its titles' scenes are read with it).
    func fileChanged(_ path: String) {
        let sceneFile = UserPath(checked: scenePath).symlinkChain().contains(path) || path == scenePath
        // The file as the editor last read or saved it (the watcher reporting the editor's own
        // save): reading it again would put the saved scene back over the changes made since.
        if sceneFile, let onDisk, DiskState(scenePath) == onDisk { return }
        do {
            if sceneFile {
                let (loaded, read, before) = try Self.read(scenePath)
                (document, onDisk, sceneReads) = (read, before, sceneReads + 1)
                (settings, timeline, sequence) = (loaded.settings, loaded.timeline, loaded.sequence)
            } else if sequence != nil {
                // A title's own scene file: the sequence is read again from the scene as edited,
                // so its unsaved changes stay; only the titles' files come from disk. Nothing
                // changed (a save that wrote the same bytes): no new revision.
                let loaded = try document.load(as: scenePath)
                guard loaded.sequence != sequence || loaded.settings != settings else { return }
                (settings, timeline, sequence, sceneReads) = (loaded.settings, loaded.timeline, loaded.sequence, sceneReads + 1)
            }
            // A track or the animation taken away on disk: the playhead stays within what is left.
            playhead = Self.playhead(playhead, in: timeline, sequence: sequence)
        } catch {
            lastError = error.message
            broadcast(event: "render-error", json: ["message": error.message, "revision": revision, "tag": NSNull()])
            return
        }
        changed(tag: "file")
    }

    /// The scene file at `path` read: what it gives, its document, and the file as it was read.
    static func read(_ path: String) throws(MercurialError) -> (SceneDocument.Loaded, SceneDocument, DiskState?) {
        let before = DiskState(UserPath(checked: path).absolute)
        if let bytes = before?.bytes, let parsed = try? SceneDocument(parsing: bytes), parsed["sequence"] != nil {
            return (try parsed.load(as: path), parsed, before)
        }
        var settings = RenderSettings()
        let timeline = try SceneFile.load(path, into: &settings)
        return (SceneDocument.Loaded(settings: settings, timeline: timeline), try SceneDocument(parsing: before?.bytes ?? []), before)
    }

    /// Every file the scene reads (a sequence's titles' too).
    private var inputFiles: [(role: String, path: String)] {
        sequence?.inputFiles(sceneFile: scenePath) ?? InputFiles.of(settings, sceneFile: scenePath)
    }

    private func rewatch() {
        let inputs = sequence?.inputFiles(sceneFile: scenePath) ?? InputFiles.of(settings, sceneFile: nil)
        let files = ([scenePath] + inputs.map(\.path).filter { $0 != scenePath })
            .flatMap { UserPath(checked: $0).symlinkChain() }
        guard files != watchedFiles else { return }
        watchedFiles = files
        watcher?.watch(files)
    }

    // MARK: Rendering

    typealias Rendered = Result<(image: Image<RGBA8>, ms: Double), MercurialError>

    /// Renders a snapshot off the actor (it uses every core).
    static func render(_ snapshot: Snapshot, renderCache: RenderCache) -> Rendered {
        var lap = ContinuousClock.now
        func ms() -> Double {
            let now = ContinuousClock.now
            defer { lap = now }
            let elapsed = lap.duration(to: now)
            return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        }
        do {
            // The page draws the raw pixels: on loopback the 8 MB of a 1080p frame travel in
            // a few milliseconds, while a PNG took 20–30 ms to deflate here and about 100
            // to fetch and decode in a headless Chromium.
            if let index = snapshot.playhead, let sequence = snapshot.sequence {
                let title = try renderCache.frame(index, of: sequence, key: snapshot.animationKey)
                return .success((title, ms()))
            }
            if let index = snapshot.playhead, let timeline = snapshot.timeline {
                let title = try renderCache.frame(index, of: timeline, base: snapshot.settings, key: snapshot.animationKey)
                return .success((title, ms()))
            }
            let title = try renderCache.frame(for: snapshot.settings)
            return .success((title, ms()))
        } catch {
            return .failure(error)
        }
    }

    private func finished(_ snapshot: Snapshot, _ result: Rendered) {
        switch result {
        case .success(let r):
            frameCounter += 1
            lastError = nil
            if let shown = frame {
                // A page may still show one of the last few frames; deltas are made from it.
                earlierFrames.append(shown)
                // The new frame counts against the budget as well: at 8K it fills it, so no
                // earlier frame or spare canvas is kept beside it (each was 133 MB more).
                let bytes = max(1, shown.width * shown.height * 4)
                let keep = min(3, Self.keptBytes / bytes - 1)
                while earlierFrames.count > max(0, keep) {
                    // Its canvas is drawn into again (see `RenderCache.recycle`).
                    let old = earlierFrames.removeFirst()
                    // A frame of the animation shows other settings than its base: not drawn into.
                    if old.playhead == nil {
                        renderCache.recycle(old.image, showing: old.settings,
                                            room: Self.keptBytes - (earlierFrames.count + 1) * bytes)
                    }
                }
            }
            if Self.residentBytes() > Self.pressureBytes {
                // Under pressure: deltas are then made from the whole frame, and a frame drawn afresh.
                earlierFrames.removeAll()
                renderCache.dropSpares()
            }
            let made = EditorFrame(number: frameCounter, revision: snapshot.revision, tag: snapshot.tag, image: r.image,
                                   settings: snapshot.settings,
                                   width: r.image.width, height: r.image.height, milliseconds: r.ms,
                                   playhead: snapshot.playhead)
            frame = made
            wakeFrameWaiters()
            broadcast(event: "frame", json: frameInfo(made))
        case .failure(let error):
            lastError = error.message
            broadcast(event: "render-error", json: ["message": error.message, "revision": snapshot.revision,
                                             "tag": snapshot.tag ?? NSNull()])
        }
    }

    /// This process's resident size, from /proc/self/statm (0 when it cannot be read).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .ascii) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// What a page is told of a frame: its number, the state it shows, size and render time.
    public nonisolated func frameInfo(_ frame: EditorFrame) -> [String: Any] {
        ["n": frame.number, "revision": frame.revision, "tag": frame.tag ?? NSNull(), "frame": frame.playhead ?? NSNull(),
         "width": frame.width, "height": frame.height, "ms": (frame.milliseconds * 10).rounded() / 10]
    }

    /// The newest frame and, when the page's frame `have` is still kept and of the
    /// same size, that frame: the base of the delta the page is sent.
    public func frame(andBase have: Int) -> (frame: EditorFrame, base: EditorFrame?)? {
        guard let frame else { return nil }
        let base = have == frame.number ? frame : earlierFrames.last { $0.number == have }
        return (frame, base.flatMap { $0.width == frame.width && $0.height == frame.height ? $0 : nil })
    }

    /// The shading sphere's PNG for `scene` (made again only when the scene changes).
    public nonisolated func spherePNG(for scene: ShadingScene) throws(MercurialError) -> [UInt8] {
        try renderCache.png(for: scene)
    }

    // MARK: Saving

    /// A save that would replace an edit made on disk since the editor read or wrote the file.
    public struct SaveConflict: Error, Sendable {
        public var message: String
    }

    /// Writes the scene atomically to the scene file; returns its path. Unless
    /// `overwrite`, refuses (`SaveConflict`) when the file changed on disk since the
    /// editor last read or wrote it, even to something that does not parse yet.
    public func save(overwrite: Bool = false) throws -> String {
        let name = UserPath(checked: scenePath)
        if !overwrite, let now = DiskState(scenePath), now != onDisk {
            throw SaveConflict(message: "the scene file '\(name)' changed on disk since the editor last read or saved it; reload it from disk, or overwrite it with the editor's scene")
        }
        // The file's own members in its order, `material` named, the keys equal to the preset's left out.
        var saved = document.pruned(base: try preset(document["material"] == nil ? nil : settings.material),
                                    material: settings.material)
        if saved["description"] == nil {
            saved = SceneDocument(members: [JSONMember(key: "description", keyLocation: .none, value: JSONNode(
                value: .string("A scene saved by mercurial edit; render it with: mercurial render --params \(name.lastComponent)"),
                location: .none))] + saved.members)
        }
        let bytes = Array(saved.text.utf8)
        try OutputFile.write(bytes, to: scenePath)
        // As the file now lays it out: an error in a member then gives its place in the file written.
        document = (try? SceneDocument(parsing: bytes)) ?? saved
        onDisk = DiskState(scenePath)
        return scenePath
    }

    /// Reads the scene file again (the page's "Reload from disk"), or throws its error and changes nothing.
    public func reload() throws(MercurialError) {
        let (loaded, read, before) = try Self.read(scenePath)
        let same = loaded.sequence == nil && loaded.settings == settings && loaded.timeline == timeline && read.text == document.text
        (document, timeline, sequence, onDisk, lastError) = (read, loaded.timeline, loaded.sequence, before, nil)
        sceneReads += 1
        playhead = Self.playhead(playhead, in: timeline, sequence: sequence)
        guard !same else { return }
        settings = loaded.settings
        changed(tag: "file")
    }

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

    /// The video export under way, if any.
    private var videoExport: VideoExport?

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
        broadcast(event: "export", json: ["state": "running", "done": 0, "frames": timeline.frameCount, "path": path])
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

    private func exportProgress(_ job: VideoExport, done: Int, of frames: Int) {
        guard videoExport === job else { return }
        broadcast(event: "export", json: ["state": "running", "done": done, "frames": frames, "path": job.path])
    }

    private func exportFinished(_ job: VideoExport, _ outcome: VideoExport.Outcome) {
        guard videoExport === job else { return }
        videoExport = nil
        switch outcome {
        case .done(let frames): broadcast(event: "export", json: ["state": "done", "done": frames, "frames": frames, "path": job.path])
        case .cancelled: broadcast(event: "export", json: ["state": "cancelled", "message": "export cancelled; nothing was written", "path": job.path])
        case .failed(let message): broadcast(event: "export", json: ["state": "failed", "message": message, "path": job.path])
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

    // MARK: Event stream

    /// A new listener: the stream of server-sent events, starting with the state and
    /// the last frame.
    public func subscribe() -> AsyncStream<[UInt8]> {
        let id = nextClient
        nextClient += 1
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingNewest(64))
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        clients[id] = continuation
        continuation.yield(Self.event("state", ["revision": revision, "tag": lastTag ?? NSNull()]))
        if let frame {
            continuation.yield(Self.event("frame", frameInfo(frame)))
        }
        return stream
    }

    public var clientCount: Int { clients.count }

    private func unsubscribe(_ id: Int) {
        clients[id] = nil
        // The last page closed: nobody waits for the export, and no render is left running.
        if clients.isEmpty { cancelExport() }
    }

    private func broadcast(event: String, json: [String: Any]) {
        broadcast(Self.event(event, json))
    }

    private func broadcast(_ text: String) {
        broadcast(Array(text.utf8))
    }

    private func broadcast(_ bytes: [UInt8]) {
        for client in clients.values { client.yield(bytes) }
    }

    static func event(_ name: String, _ json: [String: Any]) -> [UInt8] {
        Array("event: \(name)\ndata: \(EditorJSON.string(json))\n\n".utf8)
    }
}

/// Where a file lies and when it last changed (links followed).
struct FileStamp: Equatable {
    var device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int

    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        (device, inode, size) = (UInt64(info.st_dev), UInt64(info.st_ino), Int64(info.st_size))
        (seconds, nanoseconds) = (info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
    }
}

/// A file as it is on disk: where it lies (device and inode), its size and time, and its bytes.
struct DiskState: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var bytes: [UInt8]

    /// The file at `path` (links followed), or nil when it cannot be read.
    init?(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= 64 << 20 else { return nil }
        (device, inode, size, modified) = (UInt64(info.st_dev), UInt64(info.st_ino), Int64(info.st_size), info.st_mtim)
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            count += n
        }
        self.bytes = Array(bytes.prefix(count))
    }

    /// The same file unchanged: the same identity, size and time, or else the same bytes.
    static func == (a: DiskState, b: DiskState) -> Bool {
        if a.device == b.device, a.inode == b.inode, a.size == b.size,
           a.modified.tv_sec == b.modified.tv_sec, a.modified.tv_nsec == b.modified.tv_nsec { return true }
        return a.bytes == b.bytes
    }
}

/// An invalid change: the key it was for and the command line's message.
public struct EditorChangeError: Error, Sendable {
    public var key: String
    public var message: String
    /// Whose the error is, as the command line's (an HTTP status from it).
    public var kind: MercurialError.Kind = .input
}

/// What renders keep between frames: the `FrameRenderer` (mask and normals, built
/// again only when the text, font, size or loft change) and the shading sphere's PNG
/// for the last scene (made again only when the lights or material change).
final class RenderCache: Sendable {
    /// The session's pipeline renders one frame at a time, so only one render uses
    /// the renderer at once; the lock guards the fields against the page's requests.
    private struct State {
        var renderer: (key: Key, kept: Kept<FrameRenderer>)?
        /// Canvases of frames the session let go of, with the settings each shows: a
        /// frame is drawn into one of these (only its inked pixels, when only the shading
        /// changed), not into a copy of the last frame's 8 MB.
        var spares: [(image: Image<RGBA8>, settings: RenderSettings)] = []
        var scene: ShadingScene?
        var png: [UInt8] = []
        /// The animation's renderer, for the settings and animation (by its JSON) it was made for.
        var animated: (base: RenderSettings, key: String, kept: Kept<FrameRenderer>)?
        /// The sequence's renderer, for the scene (by its JSON) it was made for.
        var sequence: (key: String, kept: Kept<SequenceRenderer>)?
    }
    private let state = Mutex(State())

    /// Unchecked: the session's pipeline runs one render at a time, so one thread at a
    /// time uses the renderer (the lock only hands it from one render to the next).
    private final class Kept<Renderer>: @unchecked Sendable {
        let renderer: Renderer
        init(_ renderer: Renderer) { self.renderer = renderer }
    }

    /// What a `FrameRenderer` is built from: the geometry, the shading image it reads
    /// once (its path and the file as it was, so an edit to it is read again) and the
    /// number of layers (it holds a renderer for each).
    struct Key: Equatable {
        var geometry: TitleShapeSettings
        var shadingImage: String?
        var shadingFile: FileStamp?
        var layers: Int

        init(_ settings: RenderSettings) {
            geometry = settings.shape
            layers = settings.layers.count
            shadingImage = settings.shadingImage
            shadingFile = settings.shadingImage.flatMap(FileStamp.init)
        }
    }

    static let keptSpares = 2

    /// The title's canvas for `settings`; as `TitleRenderer.render` gives it, pixel for pixel.
    func frame(for settings: RenderSettings) throws(MercurialError) -> Image<RGBA8> {
        let key = Key(settings)
        // A renderer for other geometry is let go before the new one is built: at 8K each holds hundreds of MB.
        let cached = state.withLock { state -> FrameRenderer? in
            if state.renderer?.key != key { state.renderer = nil }
            return state.renderer?.kept.renderer
        }
        let frameRenderer: FrameRenderer
        if let cached { frameRenderer = cached } else { frameRenderer = try FrameRenderer(base: settings, timeline: Timeline(duration: 1)) }
        var canvas = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
        var shown: RenderSettings?
        if let spare = state.withLock({ $0.spares.popLast() }),
           spare.image.width == frameRenderer.width, spare.image.height == frameRenderer.height {
            (canvas, shown) = (spare.image, spare.settings)
        }
        try frameRenderer.render(settings, into: &canvas, showing: shown)
        let kept = Kept(frameRenderer)
        state.withLock { $0.renderer = (key, kept) }
        return canvas
    }

    /// Frame `index` of the animation, as `mercurial animate` writes it: the same
    /// `FrameRenderer`, kept while the settings and the animation stay (a scrub or a play
    /// then changes only what the tracks change).
    func frame(_ index: Int, of timeline: Timeline, base: RenderSettings, key: String) throws(MercurialError) -> Image<RGBA8> {
        let cached = state.withLock { state -> FrameRenderer? in
            guard let animated = state.animated, animated.base == base, animated.key == key else {
                state.animated = nil
                return nil
            }
            return animated.kept.renderer
        }
        let renderer: FrameRenderer
        if let cached { renderer = cached } else { renderer = try FrameRenderer(base: base, timeline: timeline) }
        let image = try renderer.frame(index)
        let kept = Kept(renderer)
        state.withLock { $0.animated = (base, key, kept) }
        return image
    }

    /// Frame `index` of the sequence, as `mercurial animate` writes it: the same
    /// `SequenceRenderer`, kept while the scene (`key`, its JSON) stays.
    func frame(_ index: Int, of sequence: TitleSequence, key: String) throws(MercurialError) -> Image<RGBA8> {
        let cached = state.withLock { state -> SequenceRenderer? in
            guard let kept = state.sequence, kept.key == key else {
                state.sequence = nil
                return nil
            }
            return kept.kept.renderer
        }
        let renderer: SequenceRenderer
        if let cached { renderer = cached } else { renderer = try SequenceRenderer(sequence) }
        let image = try renderer.frame(index)
        let kept = Kept(renderer)
        state.withLock { $0.sequence = (key, kept) }
        return image
    }

    /// A frame's canvas that the session no longer keeps (a page's request may still
    /// hold it: then drawing into it copies it first, as values do).
    /// At most `keptSpares`, and no more than `room` bytes of them.
    func recycle(_ image: Image<RGBA8>, showing settings: RenderSettings, room: Int) {
        let keep = max(0, min(Self.keptSpares, room / max(1, image.width * image.height * 4)))
        state.withLock { state in
            state.spares.append((image, settings))
            while state.spares.count > keep { state.spares.removeFirst() }
        }
    }

    func dropSpares() { state.withLock { $0.spares.removeAll() } }

    static let size = 256

    func png(for scene: ShadingScene) throws(MercurialError) -> [UInt8] {
        if let cached = state.withLock({ $0.scene == scene ? $0.png : nil }) { return cached }
        let image = ShadingSphere.render(scene, size: Self.size, antialiasedRim: true)
        let bytes = try PNGSink(compression: .fast).encode(image)
        state.withLock { state in
            state.scene = scene
            state.png = bytes
        }
        return bytes
    }
}

/// JSON text for responses and events.
enum EditorJSON {
    static func string(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
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

