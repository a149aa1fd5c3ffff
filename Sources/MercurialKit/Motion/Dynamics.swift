import Foundation

/// The `dynamics` block of a scene: the title's glyphs (or words) become rigid
/// bodies that fall, bounce and spin, as UIKit Dynamics' gravity, collision, push
/// and item behaviours move views. Units follow UIKit: a gravity magnitude of 1 is
/// 1000 px/s², and a push of magnitude 1 gives a 100 × 100 px body of density 1 a
/// speed of 100 px/s (lighter bodies go faster). The physics is Chipmunk2D's, with
/// a fixed time step, so a scene always gives the same frames.
public struct Dynamics: Sendable, Equatable {
    public enum Bodies: String, Sendable, CaseIterable { case glyphs, words, title }

    public var bodies: Bodies = .glyphs
    /// Gravity's direction on the canvas (y down); its length does not matter.
    public var gravityDirection = SIMD2<Double>(0, 1)
    /// 1 = 1000 px/s², as UIGravityBehavior's magnitude.
    public var gravityMagnitude = 1.0
    /// How much of its speed a body keeps in a collision (UIDynamicItemBehavior's elasticity).
    public var elasticity = 0.4
    public var friction = 0.5
    public var density = 1.0
    /// The floor's y on the canvas (nil: the canvas's bottom edge); `false` in the file: no floor.
    public var floor: Double? = nil
    public var hasFloor = true
    /// Walls at the canvas's left and right edges.
    public var walls = true
    /// A ceiling at the canvas's top edge.
    public var ceiling = false
    public var push: Push? = nil
    /// Angular velocity (radians/s, positive clockwise on screen) added to a body on its
    /// first collision, when it is not already spinning, as the source's collision delegate does.
    public var spin = 0.0
    /// Seconds before the first body is let go, and further seconds for each next body.
    public var delay = 0.0
    public var stagger = 0.0
    /// Per-body release times in seconds, overriding `delay` and `stagger` (by index; the rest use those).
    public var delays: [Double] = []
    /// Per-body overrides of elasticity, friction and density, by index.
    public var overrides: [Int: BodyMaterial] = [:]
    /// Physics steps per second (fixed, whatever the frame rate).
    public var stepsPerSecond = 240.0
    /// Ropes that bodies hang from.
    public var ropes: [Rope] = []

    /// A rope from a fixed point to a body, as the source's chain of UIAttachmentBehaviors:
    /// `segments` short rigid links joined by pivot joints, drawn as a smooth stroked
    /// path through their centres and embossed like the letters.
    public struct Rope: Sendable, Equatable {
        /// Which body hangs from it (from 0, in text order).
        public var body = 0
        /// The fixed end on the canvas; nil: straight above the body's top, at the canvas's top edge.
        public var anchor: SIMD2<Double>? = nil
        public var segments = 12
        /// The stroke's width in pixels.
        public var width = 8.0
        /// The rope's mass per pixel of length, against a body's density per px².
        public var density = 1.0
        /// Where `body` was given (`file:line:column`), for the error when the title has no such body.
        public var bodyLocation: String? = nil
        public init(body: Int = 0, anchor: SIMD2<Double>? = nil, segments: Int = 12, width: Double = 8, density: Double = 1) {
            self.body = body; self.anchor = anchor; self.segments = segments; self.width = width; self.density = density
        }

        public static func == (a: Rope, b: Rope) -> Bool {
            a.body == b.body && a.anchor == b.anchor && a.segments == b.segments && a.width == b.width && a.density == b.density
        }
    }

    /// An instantaneous push (UIPushBehaviorModeInstantaneous) at time `at`.
    public struct Push: Sendable, Equatable {
        public var direction = SIMD2<Double>(1, 0)
        public var magnitude = 1.0
        public var at = 0.0
        public init(direction: SIMD2<Double> = SIMD2(1, 0), magnitude: Double = 1, at: Double = 0) {
            self.direction = direction; self.magnitude = magnitude; self.at = at
        }
    }

    public struct BodyMaterial: Sendable, Equatable {
        public var elasticity: Double?, friction: Double?, density: Double?
        public init(elasticity: Double? = nil, friction: Double? = nil, density: Double? = nil) {
            self.elasticity = elasticity; self.friction = friction; self.density = density
        }
    }

    public init() {}

    /// When body `index` is let go.
    public func releaseTime(of index: Int) -> Double {
        index < delays.count ? delays[index] : delay + stagger * Double(index)
    }

    public func elasticity(of index: Int) -> Double { overrides[index]?.elasticity ?? elasticity }
    public func friction(of index: Int) -> Double { overrides[index]?.friction ?? friction }
    public func density(of index: Int) -> Double { overrides[index]?.density ?? density }

    /// Gravity as an acceleration in px/s².
    public var gravity: SIMD2<Double> {
        let length = (gravityDirection * gravityDirection).sum().squareRoot()
        return length > 0 ? gravityDirection / length * gravityMagnitude * 1000 : .zero
    }

    // MARK: - Limits

    static let elasticityRange: ClosedRange<Double> = 0...1
    static let frictionRange: ClosedRange<Double> = 0...10
    static let densityRange: ClosedRange<Double> = 0.001...1000
    static let magnitudeRange: ClosedRange<Double> = 0...100
    static let spinRange: ClosedRange<Double> = -200...200
    static let stepsRange: ClosedRange<Double> = 60...2000
    static let directionRange: ClosedRange<Double> = -1e6...1e6
    static let keys = ["bodies", "gravity", "elasticity", "friction", "density", "floor", "walls", "ceiling",
                       "push", "spin", "delay", "stagger", "delays", "bodyOverrides", "stepsPerSecond", "ropes"]
    static let ropeKeys = ["body", "anchor", "segments", "width", "density"]
    static let maximumRopes = 64
    static let gravityKeys = ["direction", "magnitude"]
    static let pushKeys = ["direction", "magnitude", "at"]
    static let overrideKeys = ["index", "elasticity", "friction", "density"]
}

// MARK: - Reading and writing the block

extension Dynamics {
    /// Reads a scene's `dynamics` object; times are checked against the animation's `duration`.
    static func read(_ node: JSONNode, file: String, duration: Double) throws(MercurialError) -> Dynamics {
        let r = SceneAnimation.Reader(file: file)
        var d = Dynamics()
        func flag(_ m: JSONMember) throws(MercurialError) -> Bool {
            guard case .bool(let on) = m.value.value else { throw r.fail(m.value, "\"dynamics.\(m.key)\" must be true or false") }
            return on
        }
        func direction(_ node: JSONNode, _ name: String) throws(MercurialError) -> SIMD2<Double> {
            guard case .array(let items) = node.value, items.count == 2 else {
                throw r.fail(node, "\"\(name)\" must be a vector [dx, dy] on the canvas (y down), e.g. [0, 1]")
            }
            let v = SIMD2(try r.number(items[0], name, in: directionRange), try r.number(items[1], name, in: directionRange))
            guard v != .zero else { throw r.fail(node, "\"\(name)\" is [0, 0], which points nowhere; give e.g. [0, 1] for down") }
            return v
        }
        let times = 0...duration
        for m in try r.object(node, "dynamics", keys: keys) {
            let name = "dynamics.\(m.key)"
            switch m.key {
            case "bodies":
                guard case .string(let s) = m.value.value, let b = Bodies(rawValue: s) else {
                    throw r.fail(m.value, "\"\(name)\" must be \"glyphs\", \"words\" or \"title\"")
                }
                d.bodies = b
            case "gravity":
                for g in try r.object(m.value, name, keys: gravityKeys) {
                    if g.key == "direction" {
                        d.gravityDirection = try direction(g.value, "\(name).direction")
                    } else {
                        d.gravityMagnitude = try r.number(g.value, "\(name).magnitude", in: magnitudeRange)
                    }
                }
            case "elasticity": d.elasticity = try r.number(m.value, name, in: elasticityRange)
            case "friction": d.friction = try r.number(m.value, name, in: frictionRange)
            case "density": d.density = try r.number(m.value, name, in: densityRange)
            case "floor":
                if case .bool(let on) = m.value.value { d.hasFloor = on } else {
                    d.floor = try r.number(m.value, "\(name) (y in canvas pixels, or true/false)", in: -1e6...1e6)
                    d.hasFloor = true
                }
            case "walls": d.walls = try flag(m)
            case "ceiling": d.ceiling = try flag(m)
            case "push":
                var push = Push()
                for p in try r.object(m.value, name, keys: pushKeys) {
                    switch p.key {
                    case "direction": push.direction = try direction(p.value, "\(name).direction")
                    case "magnitude": push.magnitude = try r.number(p.value, "\(name).magnitude", in: magnitudeRange)
                    default: push.at = try r.number(p.value, "\(name).at", in: times)
                    }
                }
                d.push = push
            case "spin": d.spin = try r.number(m.value, name, in: spinRange)
            case "delay": d.delay = try r.number(m.value, name, in: times)
            case "stagger": d.stagger = try r.number(m.value, name, in: 0...duration)
            case "delays":
                guard case .array(let items) = m.value.value, items.count <= 10_000 else {
                    throw r.fail(m.value, "\"\(name)\" must be an array of up to 10000 times in seconds, one per body")
                }
                d.delays = []
                for item in items { d.delays.append(try r.number(item, name, in: times)) }
            case "bodyOverrides":
                guard case .array(let items) = m.value.value, items.count <= 10_000 else {
                    throw r.fail(m.value, "\"\(name)\" must be an array of {\"index\", \"elasticity\", \"friction\", \"density\"}")
                }
                for item in items {
                    var index: Int?
                    var material = BodyMaterial()
                    for o in try r.object(item, name, keys: overrideKeys) {
                        let field = "\(name).\(o.key)"
                        switch o.key {
                        case "index":
                            let v = try r.number(o.value, field, in: 0...9_999)
                            guard v == v.rounded() else { throw r.fail(o.value, "\"\(field)\" must be a whole number (bodies count from 0)") }
                            index = Int(v)
                        case "elasticity": material.elasticity = try r.number(o.value, field, in: elasticityRange)
                        case "friction": material.friction = try r.number(o.value, field, in: frictionRange)
                        default: material.density = try r.number(o.value, field, in: densityRange)
                        }
                    }
                    guard let index else { throw r.fail(item, "an entry of \"\(name)\" needs \"index\", the body's number from 0") }
                    d.overrides[index] = material
                }
            case "ropes":
                guard case .array(let items) = m.value.value, items.count <= maximumRopes else {
                    throw r.fail(m.value, "\"\(name)\" must be an array of up to \(maximumRopes) ropes {\"body\", \"anchor\", \"segments\", \"width\"}")
                }
                for (i, item) in items.enumerated() {
                    var rope = Rope()
                    for o in try r.object(item, "\(name)[\(i)]", keys: ropeKeys) {
                        let field = "\(name)[\(i)].\(o.key)"
                        switch o.key {
                        case "body", "segments":
                            let v = try r.number(o.value, field, in: o.key == "body" ? 0...9_999 : 1...200)
                            guard v == v.rounded() else { throw r.fail(o.value, "\"\(field)\" must be a whole number") }
                            if o.key == "body" {
                                rope.body = Int(v)
                                rope.bodyLocation = "\(file):\(o.value.location)"
                            } else {
                                rope.segments = Int(v)
                            }
                        case "anchor":
                            guard case .array(let xy) = o.value.value, xy.count == 2 else {
                                throw r.fail(o.value, "\"\(field)\" must be a point [x, y] in canvas pixels")
                            }
                            rope.anchor = SIMD2(try r.number(xy[0], field, in: -1e5...1e5), try r.number(xy[1], field, in: -1e5...1e5))
                        case "width": rope.width = try r.number(o.value, field, in: 1...200)
                        default: rope.density = try r.number(o.value, field, in: densityRange)
                        }
                    }
                    d.ropes.append(rope)
                }
            default: d.stepsPerSecond = try r.number(m.value, name, in: stepsRange)
            }
        }
        return d
    }

    /// The block as scene-file JSON (for the recipe an animation carries).
    public var json: String {
        func n(_ v: Double) -> String { formatNumber(v) }
        func vector(_ v: SIMD2<Double>) -> String { "[\(n(v.x)), \(n(v.y))]" }
        var parts = [
            "\"bodies\": \"\(bodies.rawValue)\"",
            "\"gravity\": {\"direction\": \(vector(gravityDirection)), \"magnitude\": \(n(gravityMagnitude))}",
            "\"elasticity\": \(n(elasticity))", "\"friction\": \(n(friction))", "\"density\": \(n(density))",
            "\"floor\": \(hasFloor ? floor.map(n) ?? "true" : "false")", "\"walls\": \(walls)", "\"ceiling\": \(ceiling)",
            "\"spin\": \(n(spin))", "\"delay\": \(n(delay))", "\"stagger\": \(n(stagger))",
            "\"stepsPerSecond\": \(n(stepsPerSecond))",
        ]
        if let push {
            parts.append("\"push\": {\"direction\": \(vector(push.direction)), \"magnitude\": \(n(push.magnitude)), \"at\": \(n(push.at))}")
        }
        if !ropes.isEmpty {
            let list = ropes.map { rope in
                "{\"body\": \(rope.body), " + (rope.anchor.map { "\"anchor\": \(vector($0)), " } ?? "")
                    + "\"segments\": \(rope.segments), \"width\": \(n(rope.width)), \"density\": \(n(rope.density))}"
            }
            parts.append("\"ropes\": [\(list.joined(separator: ", "))]")
        }
        if !delays.isEmpty { parts.append("\"delays\": [\(delays.map(n).joined(separator: ", "))]") }
        if !overrides.isEmpty {
            let entries = overrides.sorted { $0.key < $1.key }.map { i, o -> String in
                var fields = ["\"index\": \(i)"]
                if let e = o.elasticity { fields.append("\"elasticity\": \(n(e))") }
                if let f = o.friction { fields.append("\"friction\": \(n(f))") }
                if let d = o.density { fields.append("\"density\": \(n(d))") }
                return "{\(fields.joined(separator: ", "))}"
            }
            parts.append("\"bodyOverrides\": [\(entries.joined(separator: ", "))]")
        }
        return "{\(parts.joined(separator: ", "))}"
    }
}
