import Foundation

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
    /// Applied in this order: the tracks, in the scene file's order, then the orbits
    /// (which place their lights over any track of x or y), the vine's growth, and the physics.
    public private(set) var animators: [Animator] = [.orbits, .vineGrowth]

    public static let durationRange: ClosedRange<Double> = 0.001...3600
    public static let fpsRange: ClosedRange<Double> = 1...240
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

    /// Glyphs as rigid bodies (the scene's `dynamics` block; see Dynamics.swift): the last animator.
    public var dynamics: Dynamics? {
        get { animators.lazy.compactMap { if case .physics(let dynamics) = $0 { dynamics } else { nil } }.first }
        set {
            animators.removeAll { if case .physics = $0 { true } else { false } }
            if let newValue { animators.append(.physics(newValue)) }
        }
    }

    public var frameCount: Int { max(1, Int((duration * fps).rounded())) }

    /// The time of frame `index`.
    public func time(ofFrame index: Int) -> Double { Double(index) / fps }

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
            case let (.pointLight(i, f), .pointLight(j, g)): return i == j && f == g
            case let (.gradientColor(i), .gradientColor(j)): return i == j
            case let (.gradientPoint(e, a), .gradientPoint(f, b)): return e == f && a == b
            default: return false
            }
        }

        /// A parameter of the table (`light1.hue`, `radius`, …).
        case parameter(Parameter)
        case pointLight(index: Int, field: PointLightField)
        case gradientColor(index: Int)
        case gradientPoint(end: Bool, axis: Int)

    }

    public enum PointLightField: String, Sendable, CaseIterable { case x, y, color, intensity, range }

    public var key: String
    public var target: Target
    public var keyframes: Keyframes<ParameterValue>

    public init(key: String, target: Target, keyframes: Keyframes<ParameterValue>) {
        self.key = key
        self.target = target
        self.keyframes = keyframes
    }

    public func apply(at time: Double, to settings: inout RenderSettings) {
        let value = keyframes.value(at: time)
        switch (target, value) {
        case let (.parameter(p), v):
            // Values were checked against the range when read; a timing curve that
            // overshoots is held at the range's ends.
            p.parameterFunction.apply(p.clamped(v), to: &settings)
        case let (.pointLight(i, field), v) where i < settings.pointLights.count:
            switch (field, v) {
            case let (.x, .number(n)): settings.pointLights[i].x = n
            case let (.y, .number(n)): settings.pointLights[i].y = n
            case let (.intensity, .number(n)): settings.pointLights[i].intensity = max(n, 0)
            case let (.range, .number(n)): settings.pointLights[i].range = max(n, 0)
            case let (.color, .color(c)): settings.pointLights[i].color = c
            default: break
            }
        case let (.gradientColor(i), .color(c)):
            if var g = settings.backgroundGradient, i < g.gradient.stops.count {
                g.gradient.stops[i].color = c
                settings.backgroundGradient = g
            }
        case let (.gradientPoint(end, axis), .number(n)):
            if var g = settings.backgroundGradient {
                if end { g.endPoint[axis] = n } else { g.startPoint[axis] = n }
                settings.backgroundGradient = g
            }
        default:
            break
        }
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

/// The scene-file keys this file reads: `animation`, `pointLights` and
/// `backgroundGradient` (`ambientLightLevel` is a row of the parameter table).
public enum SceneAnimation {
    public static let keys = ["animation", "pointLights", "backgroundGradient"]
    static let pointLightKeys = ["x", "y", "color", "intensity", "range", "constantIntensityOverRange", "orbit"]
    static let gradientKeys = ["colors", "locations", "startPoint", "endPoint"]
    static let animationKeys = ["duration", "fps", "loop", "tracks"]
    static let keyframeKeys = ["t", "value", "timing"]
    static let orbitKeys = ["cx", "cy", "r", "period", "phase"]
    /// At most this many point lights.
    public static let maximumPointLights = 64
    /// At most this many keyframes in one track.
    public static let maximumKeyframes = 10_000

    struct Reader {
        let file: String

        func fail(_ node: JSONNode, _ message: String) -> MercurialError {
            MercurialError("\(file):\(node.location): \(message)")
        }

        func object(_ node: JSONNode, _ name: String, keys: [String]) throws(MercurialError) -> [JSONMember] {
            guard case .object(let members) = node.value else {
                throw fail(node, "\"\(name)\" must be an object {…}, not \(node.value.typeName)")
            }
            for m in members where !keys.contains(m.key) {
                let hint = closestMatch(to: m.key, in: keys).map { "; did you mean \"\($0)\"?" }
                    ?? "; known keys: \(keys.joined(separator: ", "))"
                throw MercurialError("\(file):\(m.keyLocation): unknown key \"\(shortQuote(m.key))\" in \"\(name)\"\(hint)")
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

        func point(_ node: JSONNode, _ name: String) throws(MercurialError) -> SIMD2<Double> {
            guard case .array(let items) = node.value, items.count == 2 else {
                throw fail(node, "\"\(name)\" must be a point [x, y] in unit coordinates, e.g. [0.5, 0]")
            }
            return SIMD2(try number(items[0], name, in: -10...10), try number(items[1], name, in: -10...10))
        }

        func pointLights(_ node: JSONNode) throws(MercurialError) -> [PointLight] {
            guard case .array(let items) = node.value else {
                throw fail(node, "\"pointLights\" must be an array of light objects, not \(node.value.typeName)")
            }
            guard items.count <= maximumPointLights else {
                throw fail(node, "\"pointLights\" has \(items.count) lights, over the limit of \(maximumPointLights); remove some")
            }
            var lights: [PointLight] = []
            for (i, item) in items.enumerated() {
                let name = "pointLights[\(i)]"
                var light = PointLight(x: 0, y: 0)
                var placed = (x: false, y: false)
                for m in try object(item, name, keys: pointLightKeys) {
                    let field = "\(name).\(m.key)"
                    switch m.key {
                    case "x": light.x = try number(m.value, field, in: -1e6...1e6); placed.x = true
                    case "y": light.y = try number(m.value, field, in: -1e6...1e6); placed.y = true
                    case "color": light.color = try color(m.value, field)
                    case "intensity": light.intensity = try number(m.value, field, in: 0...10)
                    case "range": light.range = try number(m.value, field, in: 0...1e6)
                    case "constantIntensityOverRange":
                        guard case .bool(let on) = m.value.value else { throw fail(m.value, "\"\(field)\" must be true or false") }
                        light.constantIntensityOverRange = on
                    default:   // orbit
                        var orbit = Orbit(cx: 0, cy: 0, r: 0, period: 1)
                        for o in try object(m.value, field, keys: orbitKeys) {
                            let f = "\(field).\(o.key)"
                            switch o.key {
                            case "cx": orbit.cx = try number(o.value, f, in: -1e6...1e6)
                            case "cy": orbit.cy = try number(o.value, f, in: -1e6...1e6)
                            case "r": orbit.r = try number(o.value, f, in: 0...1e6)
                            case "period":
                                orbit.period = try number(o.value, f, in: -3600...3600)
                                guard orbit.period != 0 else { throw fail(o.value, "\"\(f)\" is 0; give the seconds per turn (negative turns the other way)") }
                            default: orbit.phase = try number(o.value, f, in: -1000...1000)
                            }
                        }
                        light.orbit = orbit
                        (light.x, light.y) = orbit.position(at: 0)
                        placed = (true, true)
                    }
                }
                guard placed.x && placed.y else {
                    throw fail(item, "\"\(name)\" needs a position: \"x\" and \"y\" in canvas pixels, or an \"orbit\"")
                }
                lights.append(light)
            }
            return lights
        }

        func backgroundGradient(_ node: JSONNode) throws(MercurialError) -> BackgroundGradient? {
            if case .null = node.value { return nil }
            var colors: [RGBColor] = [], locations: [Float]? = nil
            var start = SIMD2<Double>(0.5, 0), end = SIMD2<Double>(0.5, 1)
            var colorsNode = node
            for m in try object(node, "backgroundGradient", keys: gradientKeys) {
                let field = "backgroundGradient.\(m.key)"
                switch m.key {
                case "colors":
                    colorsNode = m.value
                    guard case .array(let items) = m.value.value, !items.isEmpty, items.count <= 256 else {
                        throw fail(m.value, "\"\(field)\" must be an array of 1 to 256 colours")
                    }
                    for item in items { colors.append(try color(item, field)) }
                case "locations":
                    guard case .array(let items) = m.value.value else {
                        throw fail(m.value, "\"\(field)\" must be an array of numbers in 0…1")
                    }
                    var list: [Float] = []
                    for item in items { list.append(Float(try number(item, field, in: 0...1))) }
                    guard zip(list, list.dropFirst()).allSatisfy({ $0 <= $1 }) else {
                        throw fail(m.value, "\"\(field)\" must not decrease")
                    }
                    locations = list
                case "startPoint": start = try point(m.value, field)
                default: end = try point(m.value, field)
                }
            }
            guard !colors.isEmpty else { throw fail(node, "\"backgroundGradient\" needs \"colors\"") }
            var gradient = Gradient(colors: colors)
            if let locations {
                guard locations.count == colors.count else {
                    throw fail(colorsNode, "\"backgroundGradient\" has \(colors.count) colors but \(locations.count) locations; give one location per colour")
                }
                gradient = Gradient(stops: zip(colors, locations).map { Gradient.Stop(color: $0, location: $1) })
            }
            return BackgroundGradient(gradient: gradient, startPoint: start, endPoint: end)
        }

        func timeline(_ node: JSONNode, settings: RenderSettings) throws(MercurialError) -> Timeline {
            let members = try object(node, "animation", keys: animationKeys)
            guard let durationMember = members.first(where: { $0.key == "duration" }) else {
                throw fail(node, "\"animation\" needs \"duration\", in seconds")
            }
            var timeline = Timeline(duration: try number(durationMember.value, "animation.duration", in: Timeline.durationRange))
            for m in members {
                switch m.key {
                case "fps": timeline.fps = try number(m.value, "animation.fps", in: Timeline.fpsRange)
                case "loop":
                    guard case .bool(let on) = m.value.value else { throw fail(m.value, "\"animation.loop\" must be true or false") }
                    timeline.loop = on
                default: continue
                }
            }
            guard timeline.duration * timeline.fps <= Double(Timeline.maximumFrames) else {
                throw fail(durationMember.value, "the animation has \(Int(timeline.duration * timeline.fps)) frames, over the limit of \(Timeline.maximumFrames); shorten \"duration\" or lower \"fps\"")
            }
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

        /// What a track's key drives, and what kind of value it takes.
        func target(_ member: JSONMember, settings: RenderSettings) throws(MercurialError)
            -> (Track.Target, ParameterKind) {
            let key = member.key
            let at = "\(file):\(member.keyLocation)"
                if key.hasPrefix("pointLight"), let dot = key.firstIndex(of: "."),
               let n = Int(key[key.index(key.startIndex, offsetBy: 10)..<dot]),
               let field = Track.PointLightField(rawValue: String(key[key.index(after: dot)...])) {
                guard n >= 1 && n <= settings.pointLights.count else {
                    throw MercurialError("\(at): track \"\(key)\" names point light \(n), but the scene has \(settings.pointLights.count); add it to \"pointLights\"")
                }
                let domain: ParameterKind
                switch field {
                case .color: domain = .color
                case .intensity: domain = .number(0...10)
                case .range: domain = .number(0...1e6)
                case .x, .y: domain = .number(-1e6...1e6)
                }
                return (.pointLight(index: n - 1, field: field), domain)
            }
            if key.hasPrefix("backgroundGradient.") {
                let field = key.dropFirst("backgroundGradient.".count)
                guard let gradient = settings.backgroundGradient else {
                    throw MercurialError("\(at): track \"\(key)\" needs a \"backgroundGradient\" in the scene")
                }
                let points = ["startX": (false, 0), "startY": (false, 1), "endX": (true, 0), "endY": (true, 1)]
                if let (end, axis) = points[String(field)] { return (.gradientPoint(end: end, axis: axis), .number(-10...10)) }
                if field.hasPrefix("color"), let n = Int(field.dropFirst(5)) {
                    guard n >= 1 && n <= gradient.gradient.stops.count else {
                        throw MercurialError("\(at): track \"\(key)\" names colour \(n), but the gradient has \(gradient.gradient.stops.count)")
                    }
                    return (.gradientColor(index: n - 1), .color)
                }
            }
            if let parameter = try? ParameterGroup.parameter(forKey: key) {
                switch parameter.kind {
                case .number, .color: return (.parameter(parameter), parameter.kind)
                default:
                    throw MercurialError("\(at): track \"\(key)\" is \(parameter.kind.expectation.replacingOccurrences(of: "a ", with: "", options: .anchored)); only numbers and colours can be keyframed")
                }
            } else {
                var known = ParameterGroup.allParameters.map(\.key)
                known += settings.pointLights.indices.flatMap { i in Track.PointLightField.allCases.map { "pointLight\(i + 1).\($0.rawValue)" } }
                if let g = settings.backgroundGradient {
                    known += ["backgroundGradient.startX", "backgroundGradient.startY", "backgroundGradient.endX", "backgroundGradient.endY"]
                    known += g.gradient.stops.indices.map { "backgroundGradient.color\($0 + 1)" }
                }
                let hint = closestMatch(to: key, in: known).map { "; did you mean \"\($0)\"?" } ?? " (see 'mercurial params')"
                throw MercurialError("\(at): unknown track \"\(shortQuote(key))\"\(hint)")
            }
        }

        func track(_ member: JSONMember, duration: Double, settings: RenderSettings) throws(MercurialError) -> Track {
            let (target, domain) = try target(member, settings: settings)
            let name = "animation.tracks.\(shortQuote(member.key))"
            guard case .array(let items) = member.value.value, !items.isEmpty else {
                throw fail(member.value, "\"\(name)\" must be a non-empty array of keyframes {\"t\": seconds, \"value\": …}")
            }
            guard items.count <= maximumKeyframes else {
                throw fail(member.value, "\"\(name)\" has \(items.count) keyframes, over the limit of \(maximumKeyframes)")
            }
            var frames: [Keyframe<ParameterValue>] = []
            for item in items {
                let fields = try object(item, name, keys: keyframeKeys)
                guard let t = fields.first(where: { $0.key == "t" }), let v = fields.first(where: { $0.key == "value" }) else {
                    throw fail(item, "a keyframe of \"\(name)\" needs \"t\" (seconds) and \"value\"")
                }
                let time = try number(t.value, "\(name) t", in: 0...duration)
                if let previous = frames.last, time <= previous.time {
                    throw fail(t.value, "keyframes of \"\(name)\" are out of order: t = \(formatNumber(time)) comes after t = \(formatNumber(previous.time)); list them in increasing time")
                }
                let value: ParameterValue
                switch domain {
                case .number(let range): value = .number(try number(v.value, name, in: range))
                case .color: value = .color(try color(v.value, name))
                default: throw fail(v.value, "\"\(name)\" cannot be keyframed")
                }
                var timing = TimingFunction.linear
                if let tm = fields.first(where: { $0.key == "timing" }) {
                    guard case .string(let s) = tm.value.value else { throw fail(tm.value, "\"timing\" must be a string such as \"easeOut\"") }
                    do { timing = try TimingFunction.parse(s) } catch { throw fail(tm.value, error.message) }
                }
                frames.append(Keyframe(time: time, value: value, timing: timing))
            }
            let period: Double? = member.key.hasSuffix(".hue") ? 1 : nil
            return Track(key: member.key, target: target, keyframes: Keyframes(frames, period: period))
        }
    }
}
