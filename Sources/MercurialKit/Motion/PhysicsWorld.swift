import CChipmunk
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where a rigid body is: its centre of mass on the canvas (y down) and its angle
/// in radians (positive turns clockwise on screen).
public struct BodyPose: Sendable, Equatable {
    public var x: Double, y: Double, angle: Double
    public init(x: Double, y: Double, angle: Double) { self.x = x; self.y = y; self.angle = angle }
}

/// A Chipmunk2D space holding the bodies of a `dynamics` block, the canvas's floor
/// and walls, stepped at a fixed rate so that the same scene always moves the same
/// way. Not thread-safe: one frame renderer owns it.
final class PhysicsWorld {
    /// One body: its convex outline around its centre of mass, where that centre starts.
    struct BodySpec: Sendable {
        var vertices: [SIMD2<Double>]
        var position: SIMD2<Double>
        var elasticity: Double, friction: Double, density: Double
        /// When the body is let go (before, it holds still where it was laid out).
        var release: Double
    }

    /// A rope from a fixed point on the canvas to a point of a body.
    struct RopeSpec: Sendable {
        var body: Int
        var anchor: SIMD2<Double>
        /// Where it is tied, around the body's centre of mass (at angle 0).
        var attachment: SIMD2<Double>
        var segments: Int
        var width: Double, density: Double
    }

    let specs: [BodySpec]
    let ropeSpecs: [RopeSpec]
    let dynamics: Dynamics
    let canvas: (width: Double, height: Double)
    private var space: OpaquePointer
    private var bodies: [OpaquePointer] = []
    private var shapes: [OpaquePointer] = []
    /// Each rope's links, from the anchor down, and every joint.
    private var links: [[OpaquePointer]] = []
    private var joints: [OpaquePointer] = []
    /// What the collision callbacks read and write (they can capture nothing): the
    /// body count n and the number of pairs touching now (two Ints), then a flag per
    /// body set when it first touches anything, then an n × n table of the pairs that
    /// overlap as laid out (kerned glyphs' hulls often do), which ignore each other
    /// until they have separated.
    private let shared: UnsafeMutableRawPointer
    private var touched: UnsafeMutablePointer<UInt8> { (shared + 16).assumingMemoryBound(to: UInt8.self) }
    private var touching: Int { shared.load(fromByteOffset: 8, as: Int.self) }
    private var overlapping: UnsafeMutablePointer<UInt8> { touched + specs.count }
    private var released: [Bool], pushed: [Bool], spun: [Bool]
    /// Steps taken since t = 0.
    private(set) var steps = 0
    /// The work done since t = 0 (see `budget`), and the error that stopped it if it ran out.
    private(set) var work = 0
    private(set) var overBudget: MercurialError?
    /// Glyph bodies and rope links.
    var bodyCount: Int { bodies.count + links.reduce(0) { $0 + $1.count } }
    /// Bodies that are moving (let go) — for tests and summaries.
    var releasedCount: Int { released.filter { $0 }.count }

    init(specs: [BodySpec], ropes: [RopeSpec] = [], dynamics: Dynamics, canvasWidth: Int, canvasHeight: Int,
         budget: Int = PhysicsWorld.defaultBudget) {
        self.specs = specs
        self.budget = budget
        self.ropeSpecs = ropes
        self.dynamics = dynamics
        canvas = (Double(canvasWidth), Double(canvasHeight))
        let n = specs.count
        shared = .allocate(byteCount: 16 + n + n * n, alignment: 8)
        shared.storeBytes(of: n, as: Int.self)
        shared.storeBytes(of: 0, toByteOffset: 8, as: Int.self)
        (shared + 16).initializeMemory(as: UInt8.self, repeating: 0, count: n + n * n)
        released = Array(repeating: false, count: specs.count)
        pushed = released
        spun = released
        _ = Self.quietStart
        space = cpSpaceNew()
        build()
    }

    /// Debian builds Chipmunk with its debug checks on, and its first `cpSpaceNew`
    /// prints two lines to standard output (which may be the title's own output,
    /// `-o -`). That first space is made once here with standard output on /dev/null.
    private static let quietStart: Void = {
        fflush(nil)
        let saved = dup(STDOUT_FILENO)
        let null = open("/dev/null", O_WRONLY)
        if saved >= 0 && null >= 0 { dup2(null, STDOUT_FILENO) }
        if let space = cpSpaceNew() { cpSpaceFree(space) }
        fflush(nil)
        if saved >= 0 && null >= 0 { dup2(saved, STDOUT_FILENO) }
        if saved >= 0 { close(saved) }
        if null >= 0 { close(null) }
    }()

    deinit {
        tearDown()
        shared.deallocate()
    }

    private func tearDown() {
        cpSpaceFree(space)
        for joint in joints { cpConstraintFree(joint) }
        for shape in shapes { cpShapeFree(shape) }
        for body in bodies + links.flatMap({ $0 }) { cpBodyFree(body) }
        shapes = []
        bodies = []
        links = []
        joints = []
    }

    private func build() {
        let g = dynamics.gravity
        cpSpaceSetGravity(space, cpv(g.x, g.y))
        cpSpaceSetIterations(space, 30)
        // Bodies that have hardly moved for half a second sleep (as UIKit Dynamics' items come to
        // rest) until something touches, pushes or turns them: a settled pile costs nothing a step.
        cpSpaceSetSleepTimeThreshold(space, Self.sleepAfter)
        let index = spatialHash
        cpSpaceUseSpatialHash(space, index.cell, Int32(index.count))
        // Contacts begin: mark the bodies (a body's user data is its index + 1).
        if let handler = cpSpaceAddDefaultCollisionHandler(space) {
            handler.pointee.userData = shared
            handler.pointee.beginFunc = { arbiter, _, data in
                guard let data else { return cpBool(1) }
                data.storeBytes(of: data.load(fromByteOffset: 8, as: Int.self) + 1, toByteOffset: 8, as: Int.self)
                let (n, flags, i, j) = contactPair(arbiter, data)
                if i >= 0 && j >= 0 && i < n && j < n && flags[n + i * n + j] != 0 { return cpBool(0) }
                if i >= 0 && i < n { flags[i] = 1 }
                if j >= 0 && j < n { flags[j] = 1 }
                return cpBool(1)
            }
            // A pair that overlapped at the start collides like any other once it has come apart.
            handler.pointee.separateFunc = { arbiter, _, data in
                guard let data else { return }
                data.storeBytes(of: data.load(fromByteOffset: 8, as: Int.self) - 1, toByteOffset: 8, as: Int.self)
                let (n, flags, i, j) = contactPair(arbiter, data)
                if i >= 0 && j >= 0 && i < n && j < n {
                    flags[n + i * n + j] = 0
                    flags[n + j * n + i] = 0
                }
            }
        }
        let ground = cpSpaceGetStaticBody(space)
        for (a, b) in boundaries {
            guard let shape = cpSegmentShapeNew(ground, a, b, Self.thickness) else { continue }
            cpShapeSetElasticity(shape, 1)   // Chipmunk multiplies the two: the body's own elasticity counts.
            cpShapeSetFriction(shape, 1)
            cpSpaceAddShape(space, shape)
            shapes.append(shape)
        }
        var bodyShapes: [OpaquePointer] = []
        for (i, spec) in specs.enumerated() {
            guard let body = cpBodyNewKinematic() else { continue }
            cpBodySetPosition(body, cpv(spec.position.x, spec.position.y))
            cpBodySetUserData(body, UnsafeMutableRawPointer(bitPattern: i + 1))
            cpSpaceAddBody(space, body)
            bodies.append(body)
            let vertices = spec.vertices.map { cpv($0.x, $0.y) }
            let shape = vertices.withUnsafeBufferPointer {
                cpPolyShapeNew(body, Int32($0.count), $0.baseAddress, cpTransformIdentity, 0)
            }
            guard let shape else { continue }
            cpShapeSetDensity(shape, spec.density)
            cpShapeSetElasticity(shape, spec.elasticity)
            cpShapeSetFriction(shape, spec.friction)
            cpSpaceAddShape(space, shape)
            shapes.append(shape)
            bodyShapes.append(shape)
        }
        markOverlaps(bodyShapes)
        for rope in ropeSpecs where rope.body < bodies.count { addRope(rope) }
    }

    /// Seconds a body must have hardly moved before it sleeps.
    static let sleepAfter = 0.5
    static let thickness = 200.0
    static let reach = 2.0

    /// Boundaries are thick segments whose inner surface is the canvas edge (or the
    /// floor's line), so that fast bodies do not tunnel through them. They reach
    /// `reach` canvas sizes beyond the canvas: far enough that what goes round their
    /// ends is long out of sight, and short enough to fill few cells of the spatial hash.
    private var boundaries: [(cpVect, cpVect)] {
        let t = Self.thickness, w = canvas.width, h = canvas.height
        let r = Self.reach * max(w, h)
        let floorY = dynamics.floor ?? h
        var segments: [(cpVect, cpVect)] = []
        if dynamics.hasFloor { segments.append((cpv(-r, floorY + t), cpv(w + r, floorY + t))) }
        if dynamics.walls {
            segments.append((cpv(-t, -r), cpv(-t, h + r)))
            segments.append((cpv(w + t, -r), cpv(w + t, h + r)))
        }
        if dynamics.ceiling { segments.append((cpv(-r, -t), cpv(w + r, -t))) }
        return segments
    }

    /// Chipmunk's default index, a bounding-box tree, widens each box by a tenth of
    /// a second of its body's travel, so fast bodies' boxes (a push of 100 sends a
    /// small glyph at 10⁵ px/s) cover the canvas and every pair is tested each step:
    /// the cost grew as the square of the glyph count and more. A spatial hash with
    /// cells about a body's size (the median of the bodies' larger extents) tests only
    /// near neighbours; its table has ten cells a body, as Chipmunk advises, plus as
    /// many as the boundaries cover, so that they do not crowd the bodies' cells.
    var spatialHash: (cell: Double, count: Int) {
        let extents = specs.map { spec -> Double in
            let xs = spec.vertices.map(\.x), ys = spec.vertices.map(\.y)
            return max((xs.max() ?? 0) - (xs.min() ?? 0), (ys.max() ?? 0) - (ys.min() ?? 0))
        }.sorted()
        let cell = max(extents.isEmpty ? 100 : extents[extents.count / 2], 8)
        let boundaryCells = boundaries.reduce(0.0) { total, segment in
            let (a, b) = segment
            let t = 2 * Self.thickness
            return total + (abs(b.x - a.x) + t) / cell * ((abs(b.y - a.y) + t) / cell)
        }
        return (cell, 10 * specs.count + min(Int(boundaryCells), 1 << 22) + 64)
    }

    /// A chain of `segments` links, each a thin rod with no shape (it collides with
    /// nothing), joined end to end by pivot joints, from the anchor to the body.
    private func addRope(_ rope: RopeSpec) {
        let body = bodies[rope.body]
        let end = specs[rope.body].position + rope.attachment
        let span = end - rope.anchor
        let length = max((span * span).sum().squareRoot(), 1e-3)
        let linkLength = length / Double(rope.segments)
        let direction = span / length
        let angle = atan2(direction.y, direction.x)
        let mass = max(rope.density * rope.width * linkLength, 1e-6)
        let moment = cpMomentForBox(mass, linkLength, rope.width)
        var chain: [OpaquePointer] = []
        var previous = cpSpaceGetStaticBody(space)
        var previousEnd = cpv(rope.anchor.x, rope.anchor.y)   // in the previous body's own frame
        for i in 0..<rope.segments {
            guard let link = cpBodyNew(mass, moment) else { return }
            let centre = rope.anchor + direction * (Double(i) + 0.5) * linkLength
            cpBodySetPosition(link, cpv(centre.x, centre.y))
            cpBodySetAngle(link, angle)
            cpSpaceAddBody(space, link)
            chain.append(link)
            if let joint = cpPivotJointNew2(previous, link, previousEnd, cpv(-linkLength / 2, 0)) {
                cpSpaceAddConstraint(space, joint)
                joints.append(joint)
            }
            previous = link
            previousEnd = cpv(linkLength / 2, 0)
        }
        if let joint = cpPivotJointNew2(previous, body, previousEnd, cpv(rope.attachment.x, rope.attachment.y)) {
            cpSpaceAddConstraint(space, joint)
            joints.append(joint)
        }
        // The links are far lighter than a title and a chain of pivots alone would
        // stretch under it, so a slide joint (as the source makes a b2RopeJoint of a
        // distance joint) keeps the body within the rope's length of the anchor.
        if let limit = cpSlideJointNew(cpSpaceGetStaticBody(space), body, cpv(rope.anchor.x, rope.anchor.y),
                                       cpv(rope.attachment.x, rope.attachment.y), 0, length) {
            cpSpaceAddConstraint(space, limit)
            joints.append(limit)
        }
        links.append(chain)
    }

    /// Rope `index`'s path: the anchor, each link's centre, and where it is tied.
    func ropePath(_ index: Int) -> [SIMD2<Double>] {
        guard index < links.count, index < ropeSpecs.count else { return [] }
        let rope = ropeSpecs[index]
        var points = [rope.anchor]
        for link in links[index] {
            let p = cpBodyGetPosition(link)
            points.append(SIMD2(p.x, p.y))
        }
        let tied = cpBodyLocalToWorld(bodies[rope.body], cpv(rope.attachment.x, rope.attachment.y))
        points.append(SIMD2(tied.x, tied.y))
        return points
    }

    /// Records which bodies' shapes overlap where they start.
    private func markOverlaps(_ list: [OpaquePointer]) {
        let n = specs.count
        guard list.count == n else { return }
        let boxes = list.map { cpShapeCacheBB($0) }
        for i in 0..<n {
            for j in (i + 1)..<max(n, i + 1) where cpBBIntersects(boxes[i], boxes[j]) != 0 {
                if cpShapesCollide(list[i], list[j]).count > 0 {
                    overlapping[i * n + j] = 1
                    overlapping[j * n + i] = 1
                }
            }
        }
    }

    /// Back to t = 0.
    func reset() {
        tearDown()
        space = cpSpaceNew()
        shared.storeBytes(of: 0, toByteOffset: 8, as: Int.self)
        touched.update(repeating: 0, count: specs.count + specs.count * specs.count)
        released = Array(repeating: false, count: specs.count)
        pushed = released
        spun = released
        steps = 0
        work = 0
        overBudget = nil
        build()
    }

    /// The physics' work is counted in body-steps (a body, rope links included, for a
    /// step), and a pair of touching bodies for a step costs this many: 2,000 glyphs
    /// flying apart (push 100, elasticity 1) cost 0.44 µs a body-step, and resting in
    /// a pile 1.9 µs more for each touching pair and step (scripts/physics-growth.sh).
    /// Sleeping pairs still count (Chipmunk keeps their arbiters), so a settled pile's count errs high.
    static let contactWeight = 4
    /// The work a scene may take: 10⁸ units, about 45 s of CPU time on the machine
    /// measured, or what `MERCURIAL_PHYSICS_BUDGET` says (a whole number).
    static let defaultBudget = ProcessInfo.processInfo.environment["MERCURIAL_PHYSICS_BUDGET"]
        .flatMap { Int($0) }.map { max($0, 0) } ?? 100_000_000
    let budget: Int

    /// The work of `time` seconds of `bodies` bodies before any contact: the least a scene costs.
    static func leastWork(bodies: Int, seconds: Double, dynamics: Dynamics) -> Double {
        Double(bodies) * (max(seconds, 0) * dynamics.stepsPerSecond).rounded()
    }

    /// What to reduce, for the budget's errors.
    static let budgetAdvice = "use fewer glyphs (or \"bodies\": \"words\"), fewer rope \"segments\", a lower \"stepsPerSecond\" or a shorter \"duration\""

    /// Steps the world to `time` (seconds from the start); going back starts again from 0.
    /// Stops early when the job is stopped (`Cancellation.current`: Ctrl-C, for the command
    /// line), or when the work runs over `budget` (`overBudget` says so).
    func advance(to time: Double) {
        let target = Int((max(time, 0) * dynamics.stepsPerSecond).rounded())
        if target < steps { reset() }
        let dt = 1 / dynamics.stepsPerSecond
        let cancellation = Cancellation.current
        while steps < target && overBudget == nil {
            // A stop is seen within a step, not after the frame's steps (seconds with thousands of bodies).
            if cancellation.isCancelled { return }
            let now = Double(steps) * dt
            for i in bodies.indices where !released[i] && now >= specs[i].release - 1e-9 {
                cpBodySetType(bodies[i], CP_BODY_TYPE_DYNAMIC)
                cpBodyActivate(bodies[i])
                released[i] = true
            }
            if let push = dynamics.push, now >= push.at - 1e-9 {
                for i in bodies.indices where released[i] && !pushed[i] {
                    // UIKit: magnitude 1 moves a 100 × 100 body of density 1 at 100 px/s.
                    let length = (push.direction * push.direction).sum().squareRoot()
                    let impulse = push.direction / length * push.magnitude * 100 * 10_000
                    cpBodyActivate(bodies[i])
                    cpBodyApplyImpulseAtLocalPoint(bodies[i], cpv(impulse.x, impulse.y), cpvzero)
                    pushed[i] = true
                }
            }
            cpSpaceStep(space, dt)
            steps += 1
            work += bodyCount + Self.contactWeight * touching
            if work > budget {
                let at = formatNumber((Double(steps) * dt * 100).rounded() / 100)
                overBudget = MercurialError.limit("the physics ran over its budget of \(budget) at \(at) s of the animation (\(bodyCount) bodies, \(touching) pairs touching, \(formatNumber(dynamics.stepsPerSecond)) steps a second); \(Self.budgetAdvice)")
                return
            }
            if dynamics.spin != 0 {
                for i in bodies.indices where released[i] && !spun[i] && touched[i] != 0 {
                    spun[i] = true
                    let w = cpBodyGetAngularVelocity(bodies[i])
                    if abs(w) <= 0.1 { cpBodySetAngularVelocity(bodies[i], w + dynamics.spin) }
                }
            }
        }
    }

    /// Every body's pose now, in the order of `specs`.
    var poses: [BodyPose] {
        bodies.map { body in
            let p = cpBodyGetPosition(body)
            return BodyPose(x: p.x, y: p.y, angle: cpBodyGetAngle(body))
        }
    }

    /// Whether body `index` has touched anything yet.
    func hasTouched(_ index: Int) -> Bool { touched[index] != 0 }
}

/// For the collision callbacks (C function pointers, which capture nothing): the
/// body count and flags in the handler's shared memory, and the two bodies' indices
/// (a body's user data is its index + 1; -1 for a boundary).
private func contactPair(_ arbiter: OpaquePointer?, _ data: UnsafeMutableRawPointer)
    -> (count: Int, flags: UnsafeMutablePointer<UInt8>, i: Int, j: Int) {
    var a: OpaquePointer?, b: OpaquePointer?
    cpArbiterGetBodies(arbiter, &a, &b)
    let i = a.flatMap { cpBodyGetUserData($0) }.map { Int(bitPattern: $0) - 1 } ?? -1
    let j = b.flatMap { cpBodyGetUserData($0) }.map { Int(bitPattern: $0) - 1 } ?? -1
    return (data.load(as: Int.self), (data + 16).assumingMemoryBound(to: UInt8.self), i, j)
}
