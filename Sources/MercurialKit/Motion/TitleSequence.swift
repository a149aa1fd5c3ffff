import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A scene's `sequence`: titles shown one after another, each for its `hold`,
/// joined by transitions. Every title shares one canvas, and each may have its own
/// `animation`, whose time starts when the title first appears (at the start of the
/// transition that brings it in).
public struct TitleSequence: Sendable, Equatable {
    public struct Step: Sendable, Equatable {
        /// The title's settings, on the sequence's canvas.
        public var settings: RenderSettings
        public var timeline: Timeline?
        /// Seconds the title is shown alone.
        public var hold: Double
        /// The transition to the next title (nil on the last).
        public var transition: TransitionStep?
        /// The scene file the step names, if it names one.
        public var sceneFile: String?

        public init(settings: RenderSettings, timeline: Timeline? = nil, hold: Double,
                    transition: TransitionStep? = nil, sceneFile: String? = nil) {
            self.settings = settings
            self.timeline = timeline
            self.hold = hold
            self.transition = transition
            self.sceneFile = sceneFile
        }
    }

    /// A transition between two steps: what it does, for how long, and how its time runs.
    public struct TransitionStep: Sendable, Equatable {
        public var transition: Transition
        public var duration: Double
        public var timing: TimingFunction = .linear

        public init(_ transition: Transition, duration: Double, timing: TimingFunction = .linear) {
            self.transition = transition
            self.duration = duration
            self.timing = timing
        }
    }

    public var steps: [Step]
    public var fps: Double = 30
    public var loop = false
    /// The lossy codecs' quality, as an animation's (`Timeline.quality`).
    public var quality = Timeline.defaultQuality
    /// Warnings from laying out the titles (a missing glyph, an empty mask), each naming its title.
    public var warnings: [MercurialWarning] = []

    public static let maximumSteps = 1000

    public init(steps: [Step], fps: Double = 30, loop: Bool = false) {
        self.steps = steps
        self.fps = fps
        self.loop = loop
    }

    /// Every hold plus every transition, in seconds.
    public var duration: Double { steps.reduce(0) { $0 + $1.hold + ($1.transition?.duration ?? 0) } }

    /// The frame rate as an exact fraction (29.97 is 30000/1001).
    public var rate: FrameRate { FrameRate(fps) }

    public var frameCount: Int { rate.frameCount(duration: duration) }

    /// One title on the sequence's time line, as Remotion's `TransitionSeries` lays
    /// out its sequences: the title appears at `appears` (when the transition that
    /// brings it in starts, or 0), is shown alone from `holdStart` to `holdEnd`, and
    /// then, with `transition`, fades into the next over the transition's duration:
    /// each transition overlaps the two titles it joins.
    public struct Clip: Sendable, Equatable {
        public var appears: Double
        public var holdStart: Double
        public var holdEnd: Double
        /// The transition to the next title (nil on the last, whatever the scene says).
        public var transition: TransitionStep?
    }

    /// The titles as clips, in order.
    public var clips: [Clip] {
        var clips: [Clip] = []
        var cursor = 0.0      // where the current segment starts
        var appeared = 0.0    // when the current title appeared
        for (i, step) in steps.enumerated() {
            let holdStart = cursor
            cursor += step.hold
            let out = i + 1 < steps.count ? step.transition : nil
            clips.append(Clip(appears: appeared, holdStart: holdStart, holdEnd: cursor, transition: out))
            if let out {
                appeared = cursor
                cursor += out.duration
            }
        }
        return clips
    }

    /// What is on screen at a moment of the sequence.
    public enum Moment: Sendable, Equatable {
        /// Title `step` alone, at `localTime` of its own animation.
        case title(step: Int, localTime: Double)
        /// The transition from title `from` to title `from + 1`, at `progress` 0…1 (after
        /// its timing function), each title at its own local time.
        case transition(from: Int, progress: Double, fromTime: Double, toTime: Double)
    }

    /// What is on screen at `time` seconds from the start: a pure function of the time.
    public func moment(at time: Double) -> Moment {
        let clips = self.clips
        for (i, clip) in clips.enumerated() {
            if time < clip.holdEnd { return .title(step: i, localTime: time - clip.appears) }
            if let t = clip.transition, time < clip.holdEnd + t.duration {
                let x = (time - clip.holdEnd) / t.duration
                return .transition(from: i, progress: t.timing.progress(x), fromTime: time - clip.appears,
                                   toTime: time - clip.holdEnd)
            }
        }
        // Past the end: the last title, its animation running on (holding its last values).
        return .title(step: steps.count - 1, localTime: time - (clips.last?.appears ?? 0))
    }

    /// Every file the sequence reads, with its role.
    public func inputFiles(sceneFile: String) -> [(role: String, path: String)] {
        var files = [(role: "scene file", path: sceneFile)]
        for step in steps {
            for file in InputFiles.of(step.settings, sceneFile: step.sceneFile)
                where !files.contains(where: { $0.path == file.path }) {
                files.append(file)
            }
        }
        return files
    }
}

/// Renders a sequence's frames: each title through its own `FrameRenderer`, and
/// the transitions between them into one reused canvas. A title's renderer is made
/// when the title first appears and dropped once it has gone, so at most three
/// canvases are held however long the sequence is.
public final class SequenceRenderer: AnimationFrames {
    public let sequence: TitleSequence
    public let width: Int, height: Int
    public var warnings: [MercurialWarning] { sequence.warnings }
    private var titles: [Int: FrameRenderer] = [:]
    private var canvas: Image<RGBA8>
    /// The transition being played (from title `from`), prepared once for the canvas.
    private var playing: (from: Int, transition: Transition.Prepared)?

    public init(_ sequence: TitleSequence) throws(MercurialError) {
        guard !sequence.steps.isEmpty else { throw MercurialError("the sequence has no titles; add steps to \"sequence\"") }
        self.sequence = sequence
        let first = try Self.renderer(sequence, 0)
        width = first.width
        height = first.height
        titles[0] = first
        canvas = Image(width: width, height: height, repeating: .clear)
    }

    private static func renderer(_ sequence: TitleSequence, _ i: Int) throws(MercurialError) -> FrameRenderer {
        let step = sequence.steps[i]
        do {
            return try FrameRenderer(base: step.settings, timeline: step.timeline ?? Timeline(duration: 1))
        } catch {
            throw error.within("title \(i + 1) of the sequence")
        }
    }

    /// Title `i`'s renderer, made when first asked for; those more than one step away are dropped.
    private func title(_ i: Int) throws(MercurialError) -> FrameRenderer {
        if let known = titles[i] { return known }
        let made = try Self.renderer(sequence, i)
        guard (made.width, made.height) == (width, height) else {
            throw MercurialError("title \(i + 1) of the sequence is \(made.width)×\(made.height), but title 1 is \(width)×\(height); give them one \"width\" and \"height\"")
        }
        titles = titles.filter { abs($0.key - i) <= 1 }
        titles[i] = made
        return made
    }

    public var fps: Double { sequence.fps }
    public var frameCount: Int { sequence.frameCount }
    public var loop: Bool { sequence.loop }
    public var quality: Double { sequence.quality }
    public var timecode: Timecode { Timecode.start(at: sequence.rate) }

    /// Frame `index` (at t = index / fps): a title's own frame, or a transition's
    /// into the renderer's canvas. Use it before asking for the next.
    public func frame(_ index: Int) throws(MercurialError) -> Image<RGBA8> {
        switch sequence.moment(at: sequence.rate.time(ofFrame: index)) {
        case let .title(step, localTime):
            playing = nil
            return try title(step).frame(at: localTime)
        case let .transition(from, progress, fromTime, toTime):
            let first = try title(from).frame(at: fromTime)
            let second = try title(from + 1).frame(at: toTime)
            let transition: Transition.Prepared
            if let playing, playing.from == from {
                transition = playing.transition
            } else {
                transition = (sequence.steps[from].transition?.transition ?? .dissolve).prepared(width: width, height: height)
                playing = (from, transition)
            }
            transition.render(from: first, to: second, time: progress, into: &canvas)
            return canvas
        }
    }
}

/// What `animate` and `watch` need of an animation: its frames and their rate.
public protocol AnimationFrames: AnyObject {
    var width: Int { get }
    var height: Int { get }
    var fps: Double { get }
    var frameCount: Int { get }
    var loop: Bool { get }
    /// The lossy codecs' quality, 0…100.
    var quality: Double { get }
    /// The first frame's timecode, for a .mov.
    var timecode: Timecode { get }
    var warnings: [MercurialWarning] { get }
    func frame(_ index: Int) throws(MercurialError) -> Image<RGBA8>
}

extension FrameRenderer: AnimationFrames {
    public var fps: Double { timeline.fps }
    public var frameCount: Int { timeline.frameCount }
    public var loop: Bool { timeline.loop }
    public var quality: Double { timeline.quality }
    public var timecode: Timecode { timeline.timecode ?? Timecode.start(at: timeline.rate) }
}

// MARK: - Reading a sequence from a scene file

extension TitleSequence {
    /// The sequence a scene file holds, or nil when it has no `"sequence"`.
    /// `adjust` is applied to each title's settings after its scene (the command
    /// line's flags); `materialOverride` replaces the material each title starts from, and
    /// `layerMaterials` (by index) those of its layers.
    public static func load(_ path: String, materialOverride: String? = nil, layerMaterials: [Int: String] = [:],
                            adjust: (inout RenderSettings) throws -> Void = { _ in }) throws -> TitleSequence? {
        try load(root: try SceneFile.parse(path, role: "scene file"), path: path, materialOverride: materialOverride,
                 layerMaterials: layerMaterials, adjust: adjust)
    }

    /// The sequence of a scene held in memory as its members (the editor's document): no text
    /// is written or parsed; a member set since the file was read names the file alone.
    public static func load(members: [JSONMember], name: String) throws -> TitleSequence? {
        do {
            return try load(root: JSONNode(value: .object(members), location: .none), path: name)
        } catch let error as MercurialError {
            throw error.withoutPlace(in: name)
        }
    }

    static func load(root: JSONNode, path: String, materialOverride: String? = nil, layerMaterials: [Int: String] = [:],
                     adjust: (inout RenderSettings) throws -> Void = { _ in }) throws -> TitleSequence? {
        guard case .object(let members) = root.value,
              let sequenceMember = members.first(where: { $0.key == "sequence" }) else { return nil }
        let reader = SceneAnimation.Reader(file: path)

        // The scene around the sequence: settings every title starts from, and the frame rate.
        var base = RenderSettings()
        let own = members.filter { $0.key != "sequence" && $0.key != "animation" }
        // Keys that shape one title's own scene would apply to no title here (they were ignored).
        if let titleOnly = own.first(where: { SceneSchema.refused($0.key, in: .sequence) != nil }) {
            throw MercurialError("\(path):\(titleOnly.keyLocation): \"\(titleOnly.key)\" beside \"sequence\" would apply to no title; put it in the \"scene\" of each step that should have it")
        }
        _ = try SceneFile.applyMaterial(of: own, override: materialOverride, from: path, to: &base)
        try SceneFile.apply(own, from: path, kind: .scene, to: &base)
        var sequence = TitleSequence(steps: [])
        if let animation = members.first(where: { $0.key == "animation" }) {
            let own = SceneSchema.sequenceAnimation
            for m in try reader.object(animation.value, "animation", keys: own.keys + ["duration", "tracks"]) {
                guard let field = own.field(m.key) else {
                    throw MercurialError("\(path):\(m.keyLocation): a sequence's \"animation\" takes only \"fps\", \"loop\" and \"quality\": its length is the sum of the holds and transitions, and each title's tracks go in that title's own \"animation\"")
                }
                try field.read(&sequence, m.value, "animation.\(m.key)", reader)
            }
        }

        // The steps.
        guard case .array(let items) = sequenceMember.value.value, !items.isEmpty else {
            throw reader.fail(sequenceMember.value, "\"sequence\" must be a non-empty array of steps {\"scene\": …, \"hold\": seconds, \"transition\": {…}}")
        }
        guard items.count <= maximumSteps else {
            throw reader.fail(sequenceMember.value, "\"sequence\" has \(items.count) steps, over the limit of \(maximumSteps)")
        }
        var explicitCanvas: [Bool] = []
        for (i, item) in items.enumerated() {
            let name = "sequence[\(i)]"
            let fields = try reader.object(item, name, keys: SceneSchema.sequenceStep.keys)
            guard let sceneField = fields.first(where: { $0.key == "scene" }) else {
                throw reader.fail(item, "\"\(name)\" needs \"scene\": a scene file's path or a scene object {\"text\": …}")
            }
            var settings = base
            var timeline: Timeline?
            var sceneFile: String?
            let stepMembers: [JSONMember]
            switch sceneField.value.value {
            case .string(let file):
                let resolved = try SceneFile.resolvePath(file, relativeTo: path, at: sceneField.value.location,
                                                         key: "\(name).scene", onlyIfPathLike: false)
                if isSameFile(resolved, path) {
                    throw reader.fail(sceneField.value, "\"\(name).scene\" is this sequence's own file; a step must name another scene")
                }
                let stepRoot: JSONNode
                do {
                    stepRoot = try SceneFile.parse(resolved, role: "scene file")
                } catch {
                    throw error.within("\(path):\(sceneField.value.location): \"\(name).scene\"")
                }
                if case .object(let m) = stepRoot.value, let nested = m.first(where: { $0.key == "sequence" }) {
                    throw MercurialError("\(resolved):\(nested.keyLocation): this scene, step \(i + 1) of \(path), holds a \"sequence\" itself; sequences do not nest, so list its titles in \(path)")
                }
                timeline = try SceneFile.load(root: stepRoot, path: resolved, into: &settings, materialOverride: materialOverride,
                                              layerMaterials: layerMaterials)
                sceneFile = resolved
                if case .object(let m) = stepRoot.value { stepMembers = m } else { stepMembers = [] }
            case .object(let m):
                if let nested = m.first(where: { $0.key == "sequence" }) {
                    throw MercurialError("\(path):\(nested.keyLocation): \"\(name).scene\" holds a \"sequence\" itself; sequences do not nest, so list its titles here")
                }
                timeline = try SceneFile.load(root: sceneField.value, path: path, into: &settings, materialOverride: materialOverride,
                                              layerMaterials: layerMaterials)
                stepMembers = m
            default:
                throw reader.fail(sceneField.value, "\"\(name).scene\" must be a scene file's path or a scene object {…}, not \(sceneField.value.value.typeName)")
            }
            do {
                try adjust(&settings)
            } catch let error as MercurialError {
                throw error.within("\(path): \(name)")
            }
            explicitCanvas.append(stepMembers.contains { $0.key == "width" || $0.key == "height" })
            var step = Step(settings: settings, timeline: timeline, hold: 1, sceneFile: sceneFile)
            for field in fields {
                switch field.key {
                case "scene": continue
                case "transition":
                    if i == items.count - 1 {
                        throw MercurialError("\(path):\(field.keyLocation): the last step has a \"transition\" but no title after it; remove it or add a step")
                    }
                    step.transition = try SceneSchema.transition(field.value, "\(name).transition", reader)
                default: try SceneSchema.sequenceStep.field(field.key)?.read(&step, field.value, "\(name).\(field.key)", reader)
                }
            }
            sequence.steps.append(step)
        }
        guard sequence.duration > 0 else {
            throw reader.fail(sequenceMember.value, "the sequence lasts 0 seconds; give its steps a \"hold\" or a transition")
        }
        guard sequence.duration * sequence.fps <= Double(Timeline.maximumFrames) else {
            throw reader.fail(sequenceMember.value, "the sequence has \(Int(sequence.duration * sequence.fps)) frames, over the limit of \(Timeline.maximumFrames); shorten its holds and transitions or lower \"fps\"")
        }
        try sequence.shareCanvas(explicit: explicitCanvas, file: path)
        return sequence
    }

    /// Puts every title on one canvas: the scene's own `width` and `height` when it
    /// gives them, else the largest title's. A title that does not set its canvas is
    /// laid out on it at the size it would have alone (centred), not enlarged to fill it.
    mutating func shareCanvas(explicit: [Bool], file: String) throws(MercurialError) {
        var natural: [(width: Int, height: Int)] = []
        for (i, step) in steps.enumerated() {
            do {
                let (size, found) = try Self.canvasSize(step.settings)
                natural.append(size)
                warnings += found.map { MercurialWarning("title \(i + 1) of the sequence: \($0.message)") }
            } catch {
                throw error.within("\(file): title \(i + 1) of the sequence")
            }
        }
        let width = natural.map(\.width).max() ?? 1, height = natural.map(\.height).max() ?? 1
        for i in steps.indices {
            var s = steps[i].settings
            if s.mask != nil || explicit[i] {
                guard natural[i] == (width, height) else {
                    let why = s.mask != nil ? "its mask is" : "it sets its canvas to"
                    throw MercurialError("\(file): title \(i + 1) of the sequence cannot share the \(width)×\(height) canvas: \(why) \(natural[i].width)×\(natural[i].height); give every title one \"width\" and \"height\" (or give them once, outside \"sequence\")")
                }
                continue
            }
            if s.width == nil || s.height == nil {
                if s.size == nil && s.width == nil && s.height == nil { s.size = TextMask.defaultSize }
                s.width = width
                s.height = height
            }
            steps[i].settings = s
        }
    }

    /// The canvas a title has on its own, from its layout (no glyph is drawn), and the
    /// layout's warnings. Reads what the title needs (font, mask, shading image), so
    /// that a missing file is reported before any frame.
    static func canvasSize(_ settings: RenderSettings) throws(MercurialError)
        -> (size: (width: Int, height: Int), warnings: [MercurialWarning]) {
        try TitleRenderer.validate(settings)
        if let path = settings.shadingImage { _ = try ShadingLookup.read(path) }
        // A scene of layers gives its canvas (validated above), and each layer its own text.
        if !settings.layers.isEmpty, let width = settings.width, let height = settings.height {
            return ((width, height), [])
        }
        if settings.mask != nil {
            let made = try TitleRenderer.titleMask(settings)
            let (canvas, warnings) = (made.canvas, made.warnings)
            return (canvas, warnings)
        }
        guard let text = settings.text else {
            throw MercurialError("there is no text to render; give the step's scene a \"text\"")
        }
        let p = try TextMask.place(try TitleRenderer.textLayout(settings, text: text), frame: settings.textFrame)
        return (settings.canvasHoldingStyles((p.canvasWidth, p.canvasHeight)), p.warnings)
    }

    /// Whether two paths name one file (through links), or one path once resolved.
    static func isSameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        if stat(a, &sa) == 0, stat(b, &sb) == 0 { return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino }
        return UserPath(checked: a).absolute == UserPath(checked: b).absolute
    }
}
