import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A scene's animation: a duration, a frame rate, and the animators that move the
/// scene (tracks of keyframes, each keyed by what it changes; orbits; vine growth;
/// physics). Frame i is the scene at exactly t = i / fps (as a display link's
/// timestamp drives a Core Image filter's `inputTime`), so the same scene always
/// gives the same frames.
public struct Timeline: Sendable, Equatable {
    public var duration: Double
    public var fps: Double = 30
    /// Whether the output plays in a loop (an APNG's play count; video players decide for themselves).
    public var loop = false
    /// The lossy codecs' quality (WebM, MP4): 0 smallest, 100 best, 50 the default (see `FFmpegSink.crf`).
    public var quality = Timeline.defaultQuality
    /// The timecode of the first frame, written into a .mov; nil: 00:00:00:00 (00:00:00;00, drop-frame, at 29.97 and 59.94).
    public var timecode: Timecode? = nil
    /// Motion blur for moves (`MotionBlur`); nil: none.
    public var motionBlur: MotionBlur? = nil
    /// Applied in this order: the tracks, in the scene file's order, then `in` and `out`, the orbits
    /// (which place their lights over any track of x or y), the vine's growth, and the physics.
    public private(set) var animators: [Animator] = [.orbits, .vineGrowth]

    public static let durationRange: ClosedRange<Double> = 0.001...3600
    public static let fpsRange: ClosedRange<Double> = 1...240
    public static let qualityRange: ClosedRange<Double> = 0...100
    /// WebM at VP9's CRF 32 and MP4 at x264's CRF 18, as before `quality` existed.
    public static let defaultQuality = 50.0
    /// The most frames one animation may have.
    public static let maximumFrames = 216_000

    public init(duration: Double, fps: Double = 30, loop: Bool = false, tracks: [Track] = []) {
        self.duration = duration
        self.fps = fps
        self.loop = loop
        self.tracks = tracks
    }

    /// The keyframe tracks among the animators.
    public var tracks: [Track] {
        get { animators.compactMap { if case .track(let track) = $0 { track } else { nil } } }
        set { animators = newValue.map(Animator.track) + animators.filter { if case .track = $0 { false } else { true } } }
    }

    /// The scene's `in` and `out` (InOut.swift): after the tracks, whose values they fade, move and scale.
    public var inOut: InOut? {
        get { animators.lazy.compactMap { if case .inOut(let inOut) = $0 { inOut } else { nil } }.first }
        set {
            animators.removeAll { if case .inOut = $0 { true } else { false } }
            if let newValue { animators.insert(.inOut(newValue), at: tracks.count) }
        }
    }

    /// Makes each layer's `in` and `out` into its tracks (over this animation's frames), and
    /// applies them after the scene's (`Animator.layerMoves`); `file` names where in messages.
    mutating func setLayerMoves(of settings: inout RenderSettings, file: String) throws(MercurialError) {
        animators.removeAll { if case .layerMoves = $0 { true } else { false } }
        var any = false
        for i in settings.layers.indices {
            let layer = settings.layers[i]
            guard !layer.entrances.isEmpty || !layer.exits.isEmpty else { settings.layers[i].inOut = nil; continue }
            do throws(MercurialError) {
                settings.layers[i].inOut = try InOut(entrances: layer.entrances, exits: layer.exits, duration: duration,
                                                     lastFrame: lastFrameTime)
            } catch {
                throw error.within("\(file): layers[\(i)]")
            }
            any = true
        }
        if any { animators.insert(.layerMoves, at: tracks.count + (inOut == nil ? 0 : 1)) }
    }

    /// Glyphs as rigid bodies (the scene's `dynamics` block; see Dynamics.swift): the last animator.
    public var dynamics: Dynamics? {
        get { animators.lazy.compactMap { if case .physics(let dynamics) = $0 { dynamics } else { nil } }.first }
        set {
            animators.removeAll { if case .physics = $0 { true } else { false } }
            if let newValue { animators.append(.physics(newValue)) }
        }
    }

    /// The frame rate as an exact fraction (29.97 is 30000/1001).
    public var rate: FrameRate { FrameRate(fps) }

    public var frameCount: Int { rate.frameCount(duration: duration) }

    /// The time of frame `index`.
    public func time(ofFrame index: Int) -> Double { rate.time(ofFrame: index) }

    /// The time of the last frame.
    public var lastFrameTime: Double { time(ofFrame: frameCount - 1) }

    /// `base` with every animator's change at `time` applied, in order.
    public func settings(at time: Double, base: RenderSettings) -> RenderSettings {
        var settings = base
        for animator in animators { animator.apply(to: &settings, at: time) }
        return settings
    }
}

/// One keyframed value and what it drives.
public struct Track: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        public static func == (a: Target, b: Target) -> Bool {
            switch (a, b) {
            case let (.parameter(p), .parameter(q)): return p.key == q.key
            case let (.leaf(p, _), .leaf(q, _)): return p == q
            case let (.layer(i, p), .layer(j, q)): return i == j && p == q
            default: return false
            }
        }

        /// A parameter of the table (`light1.hue`, `radius`, …).
        case parameter(Parameter)
        /// A number or colour of a nested block (`pointLights[0].x`, `vine.width`), by its path.
        case leaf(path: String, SchemaLeaf<RenderSettings>)
        /// One of the above in the layer at this index of `layers` (`layers[1].size`).
        indirect case layer(Int, Target)

        /// Sets what this target drives in `settings` to `value`.
        func set(_ value: ParameterValue, in settings: inout RenderSettings) {
            switch self {
            case .parameter(let p):
                // Values were checked against the range when read; a timing curve that
                // overshoots is held at the range's ends.
                p.write(&settings, p.clamped(value))
            case .leaf(_, let leaf):
                leaf.set(&settings, value)
            case .layer(let index, let target):
                // The reader checked the index against the scene's layers.
                if settings.layers.indices.contains(index) { target.set(value, in: &settings.layers[index].settings) }
            }
        }
    }

    public var key: String
    public var target: Target
    public var keyframes: Keyframes<ParameterValue>

    public init(key: String, target: Target, keyframes: Keyframes<ParameterValue>) {
        self.key = key
        self.target = target
        self.keyframes = keyframes
    }

    public func apply(at time: Double, to settings: inout RenderSettings) {
        target.set(keyframes.value(at: time), in: &settings)
    }
}

/// A point light's circular path: centre, radius in pixels, seconds per turn
/// (negative: anticlockwise on screen), starting at angle `phase` turns.
public struct Orbit: Sendable, Equatable {
    public var cx: Double, cy: Double, r: Double, period: Double, phase: Double = 0

    public init(cx: Double, cy: Double, r: Double, period: Double, phase: Double = 0) {
        self.cx = cx; self.cy = cy; self.r = r; self.period = period; self.phase = phase
    }

    public func position(at time: Double) -> (x: Double, y: Double) {
        let angle = 2 * Double.pi * (phase + time / period)
        return (cx + r * cos(angle), cy + r * sin(angle))
    }
}

extension RenderSettings {
    /// Moves every orbiting point light to where it is at `time`.
    mutating func applyOrbits(at time: Double) {
        for i in pointLights.indices {
            if let orbit = pointLights[i].orbit {
                (pointLights[i].x, pointLights[i].y) = orbit.position(at: time)
            }
        }
        for i in layers.indices { layers[i].settings.applyOrbits(at: time) }
    }

    /// The point lighting these settings ask for, or nil when there are no point lights.
    public var pointLighting: PointLighting? {
        pointLights.isEmpty ? nil : PointLighting(lights: pointLights, ambientLightLevel: ambientLightLevel)
    }
}

extension Parameter {
    /// `value` held inside this parameter's range.
    func clamped(_ value: ParameterValue) -> ParameterValue {
        if case .number(let range) = kind, case .number(let v) = value {
            return .number(min(max(v, range.lowerBound), range.upperBound))
        }
        return value
    }

}

// MARK: - Reading the animation parts of a scene file

/// Reading a scene file's nested blocks (declared in SceneSchema.swift) and its animation.
public enum SceneAnimation {
    /// At most this many keyframes in one track.
    public static let maximumKeyframes = 10_000

    public struct Reader: Sendable {
        let file: String
        /// The animation's length, which times in the block being read must not pass.
        var duration: Double? = nil

        /// False for a value that comes from no file (an editor's change, `--set`): messages then start with the key.
        var showsLocation = true
        /// The animation's frame rate, by which a time in frames or timecode is read (nil: 30 until it is known).
        var fps: Double? = nil

        func fail(_ node: JSONNode, _ message: String) -> MercurialError {
            MercurialError(place(node.location) + message)
        }

        func place(_ location: SourcePosition) -> String { showsLocation ? "\(file):\(location): " : "" }

        func object(_ node: JSONNode, _ name: String, keys: [String]) throws(MercurialError) -> [JSONMember] {
            guard case .object(let members) = node.value else {
                throw fail(node, "\"\(name)\" must be an object {…}, not \(node.value.typeName)")
            }
            for m in members where !keys.contains(m.key) {
                let hint = closestMatch(to: m.key, in: keys).map { "; did you mean \"\($0)\"?" }
                    ?? "; known keys: \(keys.joined(separator: ", "))"
                throw MercurialError(place(m.keyLocation) + "unknown key \"\(shortQuote(m.key))\" in \"\(name)\"\(hint)")
            }
            return members
        }

        func number(_ node: JSONNode, _ name: String, in range: ClosedRange<Double>) throws(MercurialError) -> Double {
            guard case .number(let v) = node.value else {
                throw fail(node, "\"\(name)\" must be a number in \(rangeText(range)), not \(node.value.typeName)")
            }
            guard range.contains(v) else {
                throw fail(node, "\"\(name)\" is \(formatNumber(v)), out of range \(rangeText(range)); give a number in that range")
            }
            return v
        }

        func color(_ node: JSONNode, _ name: String) throws(MercurialError) -> RGBColor {
            guard case .string(let s) = node.value, let c = RGBColor.parse(s) else {
                let what: String
                if case .string(let s) = node.value { what = "\"\(shortQuote(s))\"" } else { what = node.value.typeName }
                throw fail(node, "\"\(name)\" is \(what), not a colour; use a name (e.g. gold) or #rrggbb")
            }
            return c
        }

        func timeline(_ node: JSONNode, settings: RenderSettings) throws(MercurialError) -> Timeline {
            var timeline = SceneSchema.animation.defaultValue
            try SceneSchema.animation.read(node, "animation", onto: &timeline, self)
            guard case .object(let members) = node.value else { return timeline }
            if let tracks = members.first(where: { $0.key == "tracks" }) {
                guard case .object(let entries) = tracks.value.value else {
                    throw fail(tracks.value, "\"animation.tracks\" must be an object of key: [keyframes], not \(tracks.value.value.typeName)")
                }
                for entry in entries {
                    timeline.tracks.append(try track(entry, duration: timeline.duration, settings: settings))
                }
            }
            return timeline
        }

        /// What a track's key drives, and what kind of value it takes: a parameter of the
        /// table, or a number or colour the scene schema declares (`pointLights[0].intensity`,
        /// `vine.width`), which the scene must have.
        func target(_ member: JSONMember, settings: RenderSettings) throws(MercurialError)
            -> (Track.Target, ParameterKind) {
            try target(member.key, at: "\(file):\(member.keyLocation)", settings: settings)
        }

        /// `key`'s target in `settings`; `prefix` (`layers[1].`) is what names `settings` in a layered scene.
        /// In a scene with `layers` a track moves one layer (`layers[0].light1.hue`): the top level is only
        /// where the layers start from.
        func target(_ key: String, at: String, settings: RenderSettings, prefix: String = "") throws(MercurialError)
            -> (Track.Target, ParameterKind) {
            let full = prefix + key
            if prefix.isEmpty, key.hasPrefix("layers[") {
                guard let (index, rest) = ScenePath.layerKey(key) else {
                    throw MercurialError("\(at): track \"\(shortQuote(key))\" names no layer's key; write it as layers[N].KEY, e.g. \"layers[0].light1.hue\"")
                }
                try ScenePath(key).checkLayer(in: settings, role: "\(at): track ")
                if let above = settings.layers[index].below, rest.hasPrefix("offset") {
                    throw MercurialError("\(at): track \"\(shortQuote(key))\": layer \(index) is \"below\" \"\(above)\", so its place is the stack's; move the stack by the offset of its top layer (the one without \"below\")")
                }
                let (inner, kind) = try target(rest, at: at, settings: settings.layers[index].settings, prefix: "layers[\(index)].")
                return (.layer(index, inner), kind)
            }
            if prefix.isEmpty, !settings.layers.isEmpty {
                let hint = (try? target(key, at: at, settings: settings.layers[0].settings, prefix: "layers[0].")) != nil
                    ? "; did you mean \"layers[0].\(shortQuote(key))\"?" : ""
                throw MercurialError("\(at): track \"\(shortQuote(key))\": in a scene with \"layers\" a track moves one layer; name it as layers[N].KEY\(hint)")
            }
            if let parameter = try? ParameterGroup.parameter(forKey: key) {
                switch parameter.kind {
                case .number, .color: return (.parameter(parameter), parameter.kind)
                default:
                    throw MercurialError("\(at): track \"\(full)\" is \(parameter.kind.expectation.trimmingPrefix("a ")); only numbers and colours can be keyframed")
                }
            }
            if let leaf = SceneSchema.leaf(at: key) {
                if case .missing(let problem) = leaf.get(settings) {
                    throw MercurialError("\(at): track \"\(shortQuote(full))\" \(problem)")
                }
                return (.leaf(path: key, leaf), leaf.kind)
            }
            let known = (ParameterGroup.allParameters.map(\.key) + SceneSchema.leafPaths(in: settings)).map { prefix + $0 }
            let hint = closestMatch(to: full, in: known).map { "; did you mean \"\($0)\"?" } ?? " (see 'mercurial params')"
            throw MercurialError("\(at): unknown track \"\(shortQuote(full))\"\(hint)")
        }

        func track(_ member: JSONMember, duration: Double, settings: RenderSettings) throws(MercurialError) -> Track {
            var (target, domain) = try target(member, settings: settings)
            // A hue's keyframes are turns (see `Keyframes.period`): a track may go round more than once.
            let isHue = member.key.hasSuffix(".hue")
            if isHue { domain = .number(-100...100) }
            let name = "animation.tracks.\(shortQuote(member.key))"
            guard case .array(let items) = member.value.value, !items.isEmpty else {
                throw fail(member.value, "\"\(name)\" must be a non-empty array of keyframes {\"t\": seconds, \"value\": …}")
            }
            guard items.count <= maximumKeyframes else {
                throw fail(member.value, "\"\(name)\" has \(items.count) keyframes, over the limit of \(maximumKeyframes)")
            }
            var frames: [Keyframe<ParameterValue>] = []
            var reader = self
            reader.duration = duration
            let schema = SceneSchema.keyframe(domain)
            for (i, item) in items.enumerated() {
                var frame = schema.defaultValue
                try schema.read(item, "\(name)[\(i)]", onto: &frame, reader)
                if let previous = frames.last, frame.time <= previous.time, case .object(let fields) = item.value,
                   let t = fields.first(where: { $0.key == "t" }) {
                    throw fail(t.value, "keyframes of \"\(name)\" are out of order: t = \(formatNumber(frame.time)) comes after t = \(formatNumber(previous.time)); list them in increasing time")
                }
                frames.append(frame)
            }
            let period: Double? = isHue ? 1 : nil
            return Track(key: member.key, target: target, keyframes: Keyframes(frames, period: period))
        }
    }
}
