import FoundationEssentials

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

    static let maximumRopes = 64
}

// MARK: - Reading and writing the block

extension Dynamics {
    /// Reads a scene's `dynamics` object (declared in `SceneSchema.dynamics`); times are
    /// checked against the animation's `duration`.
    static func read(_ node: JSONNode, file: String, duration: Double) throws(MercurialError) -> Dynamics {
        var reader = SceneAnimation.Reader(file: file)
        reader.duration = duration
        var dynamics = SceneSchema.dynamics.defaultValue
        try SceneSchema.dynamics.read(node, "dynamics", onto: &dynamics, reader)
        return dynamics
    }
}
