import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Whether a job should stop, asked between its stages and, in a title rendered in
/// bands, before each band is written: a signal (the command line), a closed page
/// (the editor), a deadline (the server). A job never reads a process-wide flag; the
/// one that runs it says what stops it.
public struct Cancellation: Sendable {
    private let reason: @Sendable () -> String?

    /// `reason` answers nil while the job may go on, else why it must stop.
    public init(_ reason: @escaping @Sendable () -> String?) { self.reason = reason }

    public static let never = Cancellation { nil }

    /// Stops a job once `instant` has passed, saying it took longer than `limit`.
    public static func deadline(_ instant: ContinuousClock.Instant, limit: Duration) -> Cancellation {
        Cancellation { ContinuousClock.now >= instant ? "the render took longer than its deadline of \(format(limit))" : nil }
    }

    /// Stops for either reason, this one first.
    public func or(_ other: Cancellation) -> Cancellation {
        Cancellation { reason() ?? other.reason() }
    }

    /// Why the job must stop, or nil.
    public var stopReason: String? { reason() }
    public var isCancelled: Bool { reason() != nil }

    /// The error `check()` would throw now, or nil while the job may go on.
    public var stopError: MercurialError? { reason().map { MercurialError.resource("stopped: \($0)") } }

    /// Throws, as a resource error (the same input may go through another time), if the job must stop.
    public func check() throws(MercurialError) {
        if let stopError { throw stopError }
    }

    /// The job this thread is running: set by `RenderJob.run` for the length of the job,
    /// read by the sinks and loops that take long (`Cancellation.checkCurrent()`).
    @TaskLocal public static var current = Cancellation.never

    /// `current.check()`.
    public static func checkCurrent() throws(MercurialError) { try current.check() }

    private static func format(_ limit: Duration) -> String {
        let ms = Double(limit.components.seconds) * 1000 + Double(limit.components.attoseconds) / 1e15
        return ms >= 1000 && ms.truncatingRemainder(dividingBy: 1000) == 0 ? "\(Int(ms / 1000)) s" : "\(Int(ms.rounded())) ms"
    }
}

/// Where a job's scene may find fonts, materials and images.
///
/// `.files`: as the command line reads a scene (a bundled name, an installed font, or a
/// path, relative to the scene's folder). `.namesOnly`: a request's scene, which names
/// bundled fonts and materials and installed font families only; no key may name a
/// file (a mask, a shading image, a font or material by path), so that nothing a
/// request says reads a file outside the data folder.
public struct ResourceStore: Sendable, Equatable {
    public enum Access: Sendable, Equatable { case files, namesOnly }
    public var access: Access

    public static let files = ResourceStore(access: .files)
    public static let namesOnly = ResourceStore(access: .namesOnly)

    /// A scene given as JSON text, read under this store's rules; `name` stands for it in
    /// messages (and, with `.files`, relative paths are taken from its folder).
    public func scene(json bytes: [UInt8], name: String) throws(MercurialError) -> (settings: RenderSettings, timeline: Timeline?) {
        if access == .namesOnly {
            let root: JSONNode
            do { root = try JSONDocument.parse(bytes) } catch { throw MercurialError("\(name):\(error.location): \(error.reason)") }
            try checkMaterials(in: root, name: name)
        }
        var settings = RenderSettings()
        let timeline = try SceneFile.load(json: bytes, name: name, into: &settings)
        try check(settings, name: name)
        return (settings, timeline)
    }

    /// Applies the material `name` under this store's rules.
    public func applyMaterial(_ name: String, to settings: inout RenderSettings, key: String = "material") throws(MercurialError) {
        if access == .namesOnly { try Self.checkMaterialName(name, key: key) }
        try Materials.apply(name, to: &settings)
    }

    /// Refuses settings (and their layers') that name a file, under `.namesOnly`.
    public func check(_ settings: RenderSettings, name: String) throws(MercurialError) {
        guard access == .namesOnly else { return }
        func refuse(_ key: String, _ value: String) -> MercurialError {
            MercurialError("\(name): \"\(key)\" names a file ('\(value.escapedForTerminal)'); a served scene names bundled fonts and materials, and installed font families, by name only")
        }
        func visit(_ s: RenderSettings, prefix: String) throws(MercurialError) {
            if let mask = s.mask { throw refuse(prefix + "mask", mask) }
            if let image = s.image { throw refuse(prefix + "image", image.file) }
            if let image = s.shadingImage { throw refuse(prefix + "shadingImage", image) }
            if try Self.namesAFile(s.font) { throw refuse(prefix + "font", s.font) }
            for (i, run) in s.runs.enumerated() {
                if let font = run.font, try Self.namesAFile(font) { throw refuse(prefix + "text[\(i)].font", font) }
            }
            for fallback in s.fallbackFonts where try Self.namesAFile(fallback.name) {
                throw refuse(prefix + "fallbackFonts", fallback.name)
            }
            for (i, layer) in s.layers.enumerated() { try visit(layer.settings, prefix: "layers[\(i)].") }
        }
        try visit(settings, prefix: "")
    }

    /// Whether `font` would be read as a file: a path, or a name that is no bundled font
    /// but is a file or folder where the process runs.
    static func namesAFile(_ font: String) throws(MercurialError) -> Bool {
        let trimmed = font.trimmingWhitespace()
        if try FontLibrary.bundled().contains(where: { $0.name.lowercased() == trimmed.lowercased() }) { return false }
        var info = stat()
        return UserPath.looksLikePath(trimmed) || lstat(trimmed, &info) == 0
    }

    static func checkMaterialName(_ name: String, key: String) throws(MercurialError) {
        let bundled = try Materials.bundled().map(\.name)
        guard bundled.contains(name.lowercased()) else {
            throw MercurialError("\"\(key)\": '\(name.escapedForTerminal)' is no bundled material; a served scene names one of: \(bundled.joined(separator: ", "))")
        }
    }

    /// The scene's "material" and each layer's, which must be bundled names.
    private func checkMaterials(in root: JSONNode, name: String) throws(MercurialError) {
        guard case .object(let members) = root.value else { return }
        func checked(_ members: [JSONMember], prefix: String) throws(MercurialError) {
            for member in members where member.key == "material" {
                guard case .string(let value) = member.value.value else { continue }
                do { try Self.checkMaterialName(value, key: prefix + "material") } catch { throw error.within("\(name):\(member.value.location)") }
            }
            // Styled runs' materials too.
            for member in members where member.key == "text" {
                guard case .array(let runs) = member.value.value else { continue }
                for (i, run) in runs.enumerated() {
                    if case .object(let runMembers) = run.value { try checked(runMembers, prefix: prefix + "text[\(i)].") }
                }
            }
        }
        try checked(members, prefix: "")
        for member in members where member.key == SceneSchema.layersKey.key {
            guard case .array(let layers) = member.value.value else { continue }
            for (i, layer) in layers.enumerated() {
                if case .object(let layerMembers) = layer.value { try checked(layerMembers, prefix: "layers[\(i)].") }
            }
        }
    }
}

/// A still to render: the scene (resolved settings: a value, never a path), how to
/// encode it, and whether the PNG carries the recipe.
public struct StillJob: Sendable {
    public var settings: RenderSettings
    public var encoding: StillEncoding
    public var compression: PNGFile.Compression
    public var recipe: Bool
    public var resources: ResourceStore

    public init(settings: RenderSettings, encoding: StillEncoding = StillEncoding(format: .png),
                compression: PNGFile.Compression = .fast, recipe: Bool = true, resources: ResourceStore = .files) {
        self.settings = settings
        self.encoding = encoding
        self.compression = compression
        self.recipe = recipe
        self.resources = resources
    }
}

/// An animation to render: the scene as a scene file gives it (a title and its
/// timeline, or a sequence of titles), the form to write (`AnimationFormat`), and
/// whether the output carries the recipe (an APNG's iTXt chunk, a video's comment).
public struct AnimationJob: Sendable {
    public enum Scene: Sendable {
        /// A title (resolved settings) moved by its timeline: `FrameRenderer`.
        case title(RenderSettings, Timeline)
        /// Titles one after another: `SequenceRenderer`.
        case sequence(TitleSequence)
    }
    public var scene: Scene
    public var format: AnimationFormat
    public var recipe: Bool
    public var resources: ResourceStore
    /// Straight (as rendered) or premultiplied colour, in a form with alpha.
    public var alpha: AlphaMode

    public init(scene: Scene, format: AnimationFormat, recipe: Bool = true, resources: ResourceStore = .files,
                alpha: AlphaMode = .straight) {
        self.scene = scene
        self.format = format
        self.recipe = recipe
        self.resources = resources
        self.alpha = alpha
    }

    /// The scene's recipe (`SceneRecipe.json`), carried unless not `recipe`.
    public var recipeJSON: String {
        switch scene {
        case let .title(settings, timeline): SceneRecipe.json(for: settings, timeline: timeline)
        case .sequence(let sequence): SceneRecipe.json(for: sequence)
        }
    }

    /// The renderer of the scene's frames.
    func frames() throws(MercurialError) -> any AnimationFrames {
        switch scene {
        case let .title(settings, timeline): try FrameRenderer(base: settings, timeline: timeline)
        case .sequence(let sequence): try SequenceRenderer(sequence)
        }
    }

    /// Refuses, under `resources`' rules, a title (each of a sequence's) that names a file.
    func checkResources() throws(MercurialError) {
        if alpha == .premultiplied && !format.hasAlpha {
            throw MercurialError("\(format) has no alpha, so premultiplied alpha changes nothing; leave out --alpha premultiplied, or write .mov (ProRes 4444), .webm or .png")
        }
        switch scene {
        case .title(let settings, _): try resources.check(settings, name: "scene")
        case .sequence(let sequence):
            for (i, step) in sequence.steps.enumerated() { try resources.check(step.settings, name: "sequence[\(i)]") }
        }
    }
}

/// What a job did: the canvas's size, what its render warned of, the recipe it wrote (a
/// JPEG's or WebP's stamp is made from it; nil without one), and how long it took.
public struct JobReport: Sendable {
    public var width: Int, height: Int
    /// The frames written: 1 for a still.
    public var frames: Int = 1
    public var warnings: [MercurialWarning]
    public var recipe: String?
    /// Milliseconds, from the job's start to its output's being made whole.
    public var milliseconds: Double
}

/// The one way a front end renders a file: the command line's render, watch, animate and
/// batch, the editor's exports and the server each make a job and run it here.
public enum RenderJob {
    /// Renders `job` to `output` (a file, a folder's name, or memory), whole or not at
    /// all, stopping with an error when `cancellation` says so.
    public static func run(_ job: StillJob, to output: OutputTarget, cancellation: Cancellation = .never) throws(MercurialError) -> JobReport {
        let start = ContinuousClock.now
        try cancellation.check()
        try job.resources.check(job.settings, name: "scene")
        let recipe = job.recipe ? SceneRecipe.json(for: job.settings) : nil
        let result = Cancellation.$current.withValue(cancellation) {
            Result { () throws(MercurialError) -> WrittenStill in
                try TitleRenderer.writeStill(job.settings, encoding: job.encoding, compression: job.compression,
                                             recipeJSON: recipe, to: output)
            }
        }
        let written = try result.get()
        return JobReport(width: written.width, height: written.height, warnings: written.warnings, recipe: recipe,
                         milliseconds: milliseconds(since: start))
    }

    /// Renders `job`'s frames to the file `path` (a pattern for a PNG sequence) through the
    /// sink its format makes, whole or not at all: the sink is discarded when a frame
    /// fails or `cancellation` says to stop (checked before each frame and, bound as
    /// `Cancellation.current`, within one: by the physics and the sinks). `prepared` is
    /// told of the renderer before the output is opened (to show its warnings);
    /// `progress`, of the frames written after each one.
    public static func run(_ job: AnimationJob, to path: String, cancellation: Cancellation = .never,
                           prepared: (any AnimationFrames) throws(MercurialError) -> Void = { _ in },
                           progress: (_ done: Int) -> Void = { _ in }) throws(MercurialError) -> JobReport {
        let start = ContinuousClock.now
        try cancellation.check()
        try job.checkResources()
        let recipe = job.recipe ? job.recipeJSON : nil
        let result = Cancellation.$current.withValue(cancellation) {
            Result { () throws(MercurialError) -> JobReport in
                let renderer = try job.frames()
                try prepared(renderer)
                var sink = try job.format.sink(path: path, width: renderer.width, height: renderer.height,
                                               fps: renderer.fps, frameCount: renderer.frameCount, loop: renderer.loop,
                                               quality: renderer.quality, timecode: renderer.timecode, recipe: recipe)
                if job.alpha == .premultiplied { sink = PremultipliedSink(sink, width: renderer.width) }
                do throws(MercurialError) {
                    for index in 0..<renderer.frameCount {
                        try cancellation.check()
                        try sink.write(try renderer.frame(index))
                        progress(index + 1)
                    }
                    try cancellation.check()
                    try sink.finish()
                } catch {
                    sink.discard()
                    throw error
                }
                return JobReport(width: renderer.width, height: renderer.height, frames: renderer.frameCount,
                                 warnings: renderer.warnings, recipe: recipe, milliseconds: milliseconds(since: start))
            }
        }
        return try result.get()
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}

/// An output held in memory (a server's answer): the bytes appear, whole, when the
/// output is committed, as a file's do.
public final class MemoryOutput: Sendable {
    private let committed = Mutex<[UInt8]?>(nil)
    public init() {}
    /// The output's bytes once committed; nil before (or after a discarded write).
    public var bytes: [UInt8]? { committed.withLock { $0 } }
    func commit(_ bytes: [UInt8]) { committed.withLock { $0 = bytes } }
}
