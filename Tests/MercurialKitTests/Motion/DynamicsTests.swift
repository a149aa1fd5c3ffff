import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

func dropSettings(text: String = "Mercurial", width: Int = 480, height: Int = 200) -> RenderSettings {
    var s = RenderSettings()
    s.text = text
    s.width = width
    s.height = height
    s.size = 80
    s.radius = 6
    // The face these scenes' figures were measured with (Dosis ExtraBold, the default
    // until Quicksand Bold): the physics is under test here, not the letters' shapes.
    s.font = "dosis"
    return s
}

/// The hull of `piece` placed at `pose`, on the canvas.
func worldHull(_ piece: DynamicTitle.Piece, _ pose: BodyPose) -> [SIMD2<Double>] {
    let c = cos(pose.angle), s = sin(pose.angle)
    return piece.hull.map { SIMD2(c * $0.x - s * $0.y + pose.x, s * $0.x + c * $0.y + pose.y) }
}

/// How deep two convex polygons overlap (0 when apart), by separating axes.
func penetration(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>]) -> Double {
    var least = Double.infinity
    for poly in [a, b] {
        for i in poly.indices {
            let e = poly[(i + 1) % poly.count] - poly[i]
            let axis = SIMD2(-e.y, e.x) / (e * e).sum().squareRoot()
            let pa = a.map { ($0 * axis).sum() }, pb = b.map { ($0 * axis).sum() }
            let overlap = (pa.max() ?? 0) - (pb.min() ?? 0) < (pb.max() ?? 0) - (pa.min() ?? 0)
                ? (pa.max() ?? 0) - (pb.min() ?? 0) : (pb.max() ?? 0) - (pa.min() ?? 0)
            if overlap <= 0 { return 0 }
            least = min(least, overlap)
        }
    }
    return least
}

/// Whether `p` lies inside the convex polygon `poly` grown by `slack` pixels.
func inside(_ p: SIMD2<Double>, _ poly: [SIMD2<Double>], slack: Double) -> Bool {
    let orientation = ConvexHull.area(poly) > 0 ? 1.0 : -1.0
    for i in poly.indices {
        let a = poly[i], b = poly[(i + 1) % poly.count], e = b - a
        let cross = (e.x * (p.y - a.y) - e.y * (p.x - a.x)) * orientation
        if cross < -slack * (e * e).sum().squareRoot() { return false }
    }
    return true
}

@Suite struct DynamicsTests {
    static func dropTimeline(_ d: Dynamics, duration: Double = 2, fps: Double = 10) -> Timeline {
        var t = Timeline(duration: duration, fps: fps)
        t.dynamics = d
        return t
    }

    static var bouncy: Dynamics {
        var d = Dynamics()
        d.push = Dynamics.Push(direction: SIMD2(1, -1), magnitude: 0.3)
        d.spin = 4
        d.delay = 0.1
        d.stagger = 0.1
        return d
    }

    @Test func twoRunsGiveIdenticalFrames() throws {
        var base = dropSettings()
        base.background = RGBColor(r: 0.05, g: 0.05, b: 0.08)
        let timeline = Self.dropTimeline(Self.bouncy)
        func all() throws -> [[RGBA8]] {
            let r = try FrameRenderer(base: base, timeline: timeline)
            return try (0..<timeline.frameCount).map { try r.frame($0).pixels }
        }
        let a = try all(), b = try all()
        #expect(a == b)
        #expect(Set(a.map { $0.hashValue }).count > timeline.frameCount / 2, "the letters move")
        // Frame 0 is the still title: nothing has been let go yet.
        let still = try TitleRenderer.render(base).image.pixels
        let diff = zip(a[0], still).map { abs(Int($0.r) - Int($1.r)) + abs(Int($0.g) - Int($1.g)) + abs(Int($0.b) - Int($1.b)) }
        // Each glyph is lofted on its own, so where two glyphs nearly touch the loft differs a little.
        #expect(Double(diff.reduce(0, +)) / Double(diff.count) < 0.2 && diff.filter { $0 > 8 }.count < diff.count / 500,
                "frame 0 is the still title, but for where glyphs nearly touch")
        // Going back re-runs the same steps.
        let r = try FrameRenderer(base: base, timeline: timeline)
        _ = try r.frame(15)
        #expect(try same(r.frame(7).pixels, a[7]))
    }

    @Test func lettersFallAndComeToRestOnTheFloorInsideTheCanvas() throws {
        let title = try DynamicTitle(settings: dropSettings(), dynamics: Self.bouncy, width: 480, height: 200)
        let rest = title.poses(at: 8)
        let later = title.poses(at: 8.5)
        for (i, piece) in title.pieces.enumerated() {
            let hull = worldHull(piece, rest[i])
            let xs = hull.map(\.x), ys = hull.map(\.y)
            #expect(xs.min()! > -1 && xs.max()! < 481 && ys.min()! > -1, "body \(i) stays inside: \(hull)")
            #expect(ys.max()! < 201, "body \(i) is never below the floor")
            #expect(abs(rest[i].x - later[i].x) < 0.5 && abs(rest[i].y - later[i].y) < 0.5
                    && abs(rest[i].angle - later[i].angle) < 0.01, "body \(i) is at rest: \(rest[i]) then \(later[i])")
            // At rest on the floor, or on another letter that is.
            let onFloor = ys.max()! > 198
            let onLetter = title.pieces.indices.contains { j in
                j != i && penetration(worldHull(title.pieces[j], rest[j]), hull.map { $0 + SIMD2(0, 1.5) }) > 0
            }
            #expect(onFloor || onLetter, "body \(i) rests on something: lowest y \(ys.max()!)")
            for j in title.pieces.indices where j > i {
                #expect(penetration(hull, worldHull(title.pieces[j], rest[j])) < 1, "bodies \(i) and \(j) do not overlap")
            }
        }
    }

    @Test func aDroppedLetterReboundsLowerEachTimeAndNeverGoesThroughTheFloor() throws {
        var d = Dynamics()
        d.elasticity = 0.4
        let title = try DynamicTitle(settings: dropSettings(text: "H", width: 200, height: 400), dynamics: d, width: 200, height: 400)
        let piece = title.pieces[0]
        var apexes: [Double] = []
        var previous = title.poses(at: 0)[0], rising = false, deepest = 0.0
        for step in 1...960 {
            let pose = title.poses(at: Double(step) / 240)[0]
            deepest = max(deepest, worldHull(piece, pose).map(\.y).max()!)
            if pose.y < previous.y - 1e-6 { rising = true } else if rising && pose.y > previous.y + 1e-6 {
                rising = false
                apexes.append(previous.y)
            }
            previous = pose
        }
        #expect(deepest < 400.5, "never below the floor: \(deepest)")
        #expect(apexes.count >= 2, "it bounces at least twice: \(apexes)")
        let resting = title.poses(at: 6)[0].y
        apexes = apexes.filter { resting - $0 > 0.5 }   // not the sub-pixel settling at the end
        #expect(zip(apexes, apexes.dropFirst()).allSatisfy { $0 < $1 }, "each rebound is lower (larger y): \(apexes)")
        // Energy: each rebound rises e² = 0.16 of the height it fell from.
        let start = title.poses(at: 0)[0].y
        let heights = [resting - start] + apexes.map { resting - $0 }
        for (fall, rise) in zip(heights, heights.dropFirst()) where rise > 2 {
            #expect(abs(rise / fall - 0.16) < 0.04, "rebound \(rise) px after a fall of \(fall) px")
        }
        let rest = worldHull(piece, title.poses(at: 6)[0]).map(\.y).max()!
        #expect(abs(rest - 400) < 1, "it comes to rest on the floor: \(rest)")
    }

    @Test func aPushMovesTheBodiesInItsDirection() throws {
        var d = Dynamics()
        d.gravityMagnitude = 0
        d.push = Dynamics.Push(direction: SIMD2(3, 0), magnitude: 1, at: 0.5)
        let title = try DynamicTitle(settings: dropSettings(text: "Hi", width: 2000), dynamics: d, width: 2000, height: 200)
        let start = title.poses(at: 0), before = title.poses(at: 0.45)
        let a = title.poses(at: 0.75), b = title.poses(at: 1)
        #expect(start == before, "nothing moves before the push")
        for i in start.indices {
            #expect(b[i].x > start[i].x + 10 && abs(b[i].y - start[i].y) < 0.01, "body \(i) moves right only")
            // UIKit's units: magnitude 1 gives a 100 × 100 body of density 1 a speed of 100 px/s.
            let speed = (b[i].x - a[i].x) / 0.25
            let expected = 100 * 10_000 / abs(ConvexHull.area(title.pieces[i].hull))
            #expect(abs(speed / expected - 1) < 0.01, "body \(i): \(speed) px/s, expected \(expected)")
        }
    }

    @Test func aSpinKickTurnsALetterOnItsFirstLanding() throws {
        var d = Dynamics()
        let still = try DynamicTitle(settings: dropSettings(text: "H", width: 300, height: 300), dynamics: d, width: 300, height: 300)
        #expect(abs(still.poses(at: 1.5)[0].angle) < 0.01, "a flat letter dropped straight lands flat")
        d.spin = 6
        let spun = try DynamicTitle(settings: dropSettings(text: "H", width: 300, height: 300), dynamics: d, width: 300, height: 300)
        let before = spun.poses(at: 0.3)[0]
        #expect(before.angle == 0 && !spun.world.hasTouched(0), "no spin before it lands")
        #expect(abs(spun.poses(at: 1.5)[0].angle) > 0.2 && spun.world.hasTouched(0))
    }

    @Test func lettersAreLetGoOneAfterAnother() throws {
        var d = Dynamics()
        d.delay = 0.2
        d.stagger = 0.3
        let title = try DynamicTitle(settings: dropSettings(text: "abc"), dynamics: d, width: 480, height: 200)
        let start = title.poses(at: 0), t = title.poses(at: 0.45)
        #expect(t[0].y > start[0].y + 5 && t[1] == start[1] && t[2] == start[2], "only the first has gone at 0.45 s")
        let u = title.poses(at: 0.75)
        #expect(u[1].y > start[1].y && u[2] == start[2])
    }

    @Test func wordsAreOneBodyEach() throws {
        var d = Dynamics()
        d.bodies = .words
        let title = try DynamicTitle(settings: dropSettings(text: "Flex Monkey\nText", width: 900, height: 400), dynamics: d, width: 900, height: 400)
        #expect(title.pieces.count == 3)
    }

    /// A shading image whose right half (normals with x > 0) is red and the rest black.
    static let rightIsRed: ShadingLookup = {
        var image = Image<RGBA8>(width: 64, height: 64, repeating: RGBA8(r: 0, g: 0, b: 0, a: 255))
        for y in 0..<64 { for x in 40..<64 { image[x, y] = RGBA8(r: 255, g: 0, b: 0, a: 255) } }
        return ShadingLookup(image)
    }()

    /// Where, relative to the body's centre, the red (lit from the right) pixels are on average.
    static func redCentre(_ piece: DynamicTitle.Piece, angle: Double) -> SIMD2<Double> {
        var layer = Image<RGBA8>(width: 300, height: 300, repeating: .clear)
        DynamicTitle.draw(piece, at: BodyPose(x: 150, y: 150, angle: angle), shading: rightIsRed, into: &layer)
        var sum = SIMD2<Double>.zero, weight = 0.0
        for y in 0..<300 { for x in 0..<300 where layer[x, y].a > 0 {
            let w = Double(layer[x, y].r) * Double(layer[x, y].a)
            sum += SIMD2(Double(x) + 0.5 - 150, Double(y) + 0.5 - 150) * w
            weight += w
        } }
        return sum / max(weight, 1)
    }

    @Test func aTurnedLetterKeepsItsHighlightOnTheLitSide() throws {
        let title = try DynamicTitle(settings: dropSettings(text: "I", width: 300, height: 300), dynamics: Dynamics(), width: 300, height: 300)
        let piece = title.pieces[0]
        let upright = Self.redCentre(piece, angle: 0)
        let turned = Self.redCentre(piece, angle: .pi / 2)
        // Upright, the bar's right edge faces the light; turned a quarter clockwise, the bar
        // lies flat and what faces right is its end. Unturned normals would put the red
        // along the bottom edge instead (the old right side).
        #expect(upright.x > 3 && abs(upright.y) < 2, "\(upright)")
        #expect(turned.x > 3 && abs(turned.y) < turned.x / 4, "the lit side stays on the right: \(turned)")
    }
}

/// Loads a scene with `dynamics` and returns its timeline.
func loadDynamicScene(_ json: String) throws(MercurialError) -> Timeline? {
    var settings = RenderSettings()
    return try SceneFile.load(json: Array(json.utf8), name: "drop.json", into: &settings)
}

func dynamicsError(_ block: String, animation: String = "\"animation\": {\"duration\": 2}, ") -> String {
    do {
        _ = try loadDynamicScene("{\"text\": \"Hi\", \(animation)\"dynamics\": \(block)}")
        return "no error"
    } catch {
        return error.message
    }
}

@Suite struct DynamicsSceneTests {
    @Test func theBlockIsReadAndWrittenBackInTheRecipe() throws {
        let timeline = try loadDynamicScene("""
        {"text": "Hi", "animation": {"duration": 3, "fps": 25},
         "dynamics": {"bodies": "words", "gravity": {"direction": [1, 2], "magnitude": 0.5}, "elasticity": 0.7,
                      "friction": 0.2, "density": 3, "floor": 180, "walls": false, "ceiling": true,
                      "push": {"direction": [-1, 0], "magnitude": 2, "at": 0.5}, "spin": -3, "delay": 0.1,
                      "stagger": 0.05, "delays": [0, 1], "bodyOverrides": [{"index": 1, "density": 9}],
                      "stepsPerSecond": 480, "ropes": [{"body": 1, "anchor": [10, 0], "segments": 5, "width": 4}, {}]}}
        """)
        let d = try #require(timeline?.dynamics)
        #expect(d.bodies == .words && d.gravityMagnitude == 0.5 && d.elasticity == 0.7 && d.friction == 0.2)
        #expect(d.floor == 180 && !d.walls && d.ceiling && d.spin == -3 && d.stepsPerSecond == 480)
        #expect(d.push == Dynamics.Push(direction: SIMD2(-1, 0), magnitude: 2, at: 0.5))
        #expect(d.releaseTime(of: 1) == 1 && d.releaseTime(of: 3) == 0.1 + 3 * 0.05)
        #expect(d.density(of: 1) == 9 && d.density(of: 0) == 3)
        #expect(d.ropes == [Dynamics.Rope(body: 1, anchor: SIMD2(10, 0), segments: 5, width: 4), Dynamics.Rope()])
        #expect(abs(d.gravity.x - 500 / 5.0.squareRoot()) < 1e-9, "magnitude 1 is 1000 px/s²")
        // The recipe an animation carries holds the block, and reads back the same.
        var settings = RenderSettings()
        settings.text = "Hi"
        let recipe = SceneRecipe.json(for: settings, timeline: timeline)
        var again = RenderSettings()
        let back = try SceneFile.load(json: Array(recipe.utf8), name: "recipe", into: &again)
        #expect(back?.dynamics == d)
    }

    @Test(arguments: [
        ("{\"elastcity\": 0.4}", "drop.json:1:59: unknown key \"elastcity\" in \"dynamics\"; did you mean \"elasticity\"?"),
        ("{\"density\": -1}", "\"dynamics.density\" is -1, out of range"),
        ("{\"density\": 0}", "\"dynamics.density\" is 0, out of range"),
        ("{\"elasticity\": 1.5}", "\"dynamics.elasticity\" is 1.5, out of range 0…1"),
        ("{\"gravity\": {\"magnitude\": NaN}}", "drop.json:1:84: NaN is not valid JSON"),
        ("{\"gravity\": {\"direction\": [0, 0]}}", "points nowhere"),
        ("{\"gravity\": {\"direction\": 1}}", "must be a vector [dx, dy]"),
        ("{\"gravity\": {\"magnitud\": 1}}", "did you mean \"magnitude\"?"),
        ("{\"bodies\": \"letters\"}", "\"dynamics.bodies\" must be \"glyphs\", \"words\" or \"title\""),
        ("{\"push\": {\"at\": 5}}", "\"dynamics.push.at\" is 5, out of range 0…2"),
        ("{\"spin\": \"fast\"}", "\"dynamics.spin\" must be a number"),
        ("{\"walls\": 1}", "\"dynamics.walls\" must be true or false"),
        ("{\"bodyOverrides\": [{\"density\": 2}]}", "needs \"index\""),
        ("{\"stepsPerSecond\": 10}", "out of range 60…2000"),
        ("[]", "\"dynamics\" must be an object"),
        ("{\"ropes\": [{\"segments\": 0}]}", "\"dynamics.ropes[0].segments\" is 0, out of range 1…200"),
        ("{\"ropes\": [{\"anchor\": [1]}]}", "\"dynamics.ropes[0].anchor\" must be a point [x, y]"),
        ("{\"ropes\": [{\"lenght\": 3}]}", "unknown key \"lenght\" in \"dynamics.ropes[0]\""),
    ])
    func badBlocksGetOneLineNamingTheCulprit(block: String, expected: String) {
        let message = dynamicsError(block)
        #expect(message.contains(expected), "\(message)")
        #expect(!message.contains("\n"), "one line")
        #expect(message.hasPrefix("drop.json:1:"), "with the place: \(message)")
    }

    @Test func dynamicsNeedAnAnimation() {
        #expect(dynamicsError("{}", animation: "").contains("\"dynamics\" needs an \"animation\""))
    }

    @Test func aMaskCannotHaveDynamics() throws {
        var settings = RenderSettings()
        settings.mask = CLI.fixturePath("rgb8.png")
        #expect(throws: MercurialError.self) {
            _ = try DynamicTitle(settings: settings, dynamics: Dynamics(), width: 10, height: 10)
        }
    }

    @Test func theCommandLineGivesOneErrorLineAndWritesNothing() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = "{\"text\": \"Hi\", \"animation\": {\"duration\": 1}, \"dynamics\": {\"density\": -2}}"
            try Data(scene.utf8).write(to: dir.appendingPathComponent("s.json"))
            let r = try await CLI.run(["animate", "s.json", "-o", "out.png"], in: dir, timeout: .seconds(60))
            #expect(r.status != 0 && r.stderrLines.count == 1 && r.stderrLines[0].hasPrefix("error: s.json:1:"), "\(r)")
            #expect(r.stdout.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.png").path))
        }
    }

    @Test func theExampleAnimatesDeterministicallyThroughTheCommand() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let example = CLI.packageRoot.appendingPathComponent("examples/drop.json").path
            let a = try await CLI.run(["animate", example, "-o", "a.png"], in: dir, timeout: .seconds(120))
            // Debian's Chipmunk prints two lines on its first space; they must not reach the output.
            #expect(a.status == 0 && a.stderr.isEmpty, "\(a)")
            #expect(a.stdout.split(separator: "\n").count == 1 && a.stdout.hasPrefix("a.png: 52 frames 480×200, APNG"), "\(a.stdout)")
            let first = try Data(contentsOf: dir.appendingPathComponent("a.png"))
            #expect(first.count < 1_500_000)
            let c = try await CLI.run(["animate", example, "-o", "c.png", "--quiet"], in: dir, timeout: .seconds(120))
            #expect(c.status == 0)
            #expect(first == (try Data(contentsOf: dir.appendingPathComponent("c.png"))), "two runs, identical bytes")
        }
    }
}

@Suite struct RopeTests {
    static func hanging(push: Double?, segments: Int = 12) throws -> DynamicTitle {
        var d = Dynamics()
        d.bodies = .title
        d.hasFloor = false
        if let push { d.push = Dynamics.Push(direction: SIMD2(1, 0), magnitude: push, at: 0.2) }
        d.ropes = [Dynamics.Rope(body: 0, anchor: SIMD2(240, 0), segments: segments, width: 6)]
        return try DynamicTitle(settings: dropSettings(text: "Hang", width: 480, height: 300), dynamics: d, width: 480, height: 300)
    }

    @Test func aTitleHangsStillFromItsRopeAndSwingsAfterAPush() throws {
        let still = try Self.hanging(push: nil)
        let start = still.poses(at: 0)[0]
        let later = still.poses(at: 2)[0]
        #expect(abs(later.x - start.x) < 1 && abs(later.y - start.y) < 2 && abs(later.angle) < 0.01,
                "a taut rope holds the title where it was laid out: \(start) → \(later)")

        let swung = try Self.hanging(push: 3)
        let path0 = swung.world.ropePath(0)
        let length = ((path0.last! - path0.first!) * (path0.last! - path0.first!)).sum().squareRoot()
        var xs: [Double] = []
        for step in 0...150 {
            let t = Double(step) / 50
            _ = swung.poses(at: t)
            let path = swung.world.ropePath(0)
            let tied = path.last!
            let reach = ((tied - path[0]) * (tied - path[0])).sum().squareRoot()
            #expect(reach <= length + 1, "the body stays within the rope's length at t = \(t): \(reach) > \(length)")
            #expect(path[0] == SIMD2(240, 0), "the rope's top stays at its anchor")
            xs.append(tied.x)
        }
        #expect(xs.max()! > 240 + 40 && xs.min()! < 240 - 10, "it swings right, then back past the anchor: \(xs.min()!)…\(xs.max()!)")
    }

    @Test func theRopesPathRunsFromTheAnchorThroughEveryLinkToTheBody() throws {
        let title = try Self.hanging(push: 2, segments: 9)
        _ = title.poses(at: 0.7)
        let points = title.world.ropePath(0)
        #expect(points.count == 9 + 2)
        let smooth = title.ropePath(0)
        #expect(smooth.first == points.first)
        #expect(smooth.last!.y > points.last!.y, "drawn on down to the ink")
        for p in points {
            #expect(smooth.contains { (($0 - p) * ($0 - p)).sum() < 1e-18 }, "the spline passes through \(p)")
        }
    }

    @Test func aStrokeIsAsWideAsAsked() throws {
        let path = RopeStroke.smoothPath([SIMD2(10, 50), SIMD2(60, 50), SIMD2(110, 50)])
        let (mask, origin) = try #require(RopeStroke.mask(path, width: 8, margin: 4))
        // Across the middle: 8 px of full coverage, give or take the anti-aliased edges.
        let column = 60 - origin.x
        let across = (0..<mask.height).map { mask[column, $0] }.reduce(0, +)
        #expect(abs(across - 8) < 0.05, "coverage across the stroke sums to its width: \(across)")
        #expect(mask[column, 50 - origin.y] == 1 && mask[column, 56 - origin.y] == 0)
    }

    @Test func theRopeIsDrawnInTheMaterialBehindTheTitle() throws {
        var base = dropSettings(text: "Hang", width: 480, height: 300)
        base.background = .black
        var d = Dynamics()
        d.bodies = .title
        d.ropes = [Dynamics.Rope(body: 0, anchor: SIMD2(240, 0), segments: 10, width: 8)]
        var timeline = Timeline(duration: 1, fps: 5)
        timeline.dynamics = d
        let frame = try FrameRenderer(base: base, timeline: timeline).frame(0)
        let title = try DynamicTitle(settings: base, dynamics: d, width: 480, height: 300)
        let top = title.world.ropePath(0).last!
        // Half-way down the rope it is lit metal; beside it, the black backdrop.
        let y = Int(top.y / 2)
        let across = (232...248).map { frame[$0, y] }
        let brightest = across.map { Int($0.r) + Int($0.g) + Int($0.b) }.max() ?? 0
        let beside = frame[260, y]
        #expect(brightest > 100, "the rope's highlight: \(across)")
        #expect(beside == RGBA8(r: 0, g: 0, b: 0, a: 255))
    }

    @Test func aRopeOnAMissingBodyIsRefusedBeforeAnyFrameWithItsPlace() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = "{\"text\": \"Hi\", \"animation\": {\"duration\": 1}, \"dynamics\": {\"ropes\": [{\"body\": 5}]}}"
            try Data(scene.utf8).write(to: dir.appendingPathComponent("s.json"))
            let r = try await CLI.run(["animate", "s.json", "-o", "out.png"], in: dir, timeout: .seconds(60))
            #expect(r.status != 0 && r.stderrLines == ["error: s.json:1:78: \"dynamics.ropes[0].body\" is 5, but the title has 2 bodies (numbered from 0); use 0…1"], "\(r)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.png").path))
        }
    }

    @Test func theSwingExampleAnimatesDeterministicallyThroughTheCommand() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let example = CLI.packageRoot.appendingPathComponent("examples/swing.json").path
            let a = try await CLI.run(["animate", example, "-o", "a.png", "--quiet"], in: dir, timeout: .seconds(120))
            let b = try await CLI.run(["animate", example, "-o", "b.png", "--quiet"], in: dir, timeout: .seconds(120))
            #expect(a.status == 0 && a.stderr.isEmpty && b.status == 0, "\(a) \(b)")
            let first = try Data(contentsOf: dir.appendingPathComponent("a.png"))
            #expect(first == (try Data(contentsOf: dir.appendingPathComponent("b.png"))), "two runs, identical bytes")
            #expect(first.count < 1_500_000)
        }
    }

    @Test func aRopeNeedsABodyThatExists() {
        var d = Dynamics()
        d.ropes = [Dynamics.Rope(body: 7)]
        #expect {
            _ = try DynamicTitle(settings: dropSettings(text: "Hi"), dynamics: d, width: 480, height: 200)
        } throws: { error in
            (error as? MercurialError)?.message.contains("\"dynamics.ropes[0].body\" is 7, but the title has 2 bodies") == true
        }
    }
}

/// Issue 19, item 16: the physics' cost, its budget, and Ctrl-C during a long frame.
@Suite struct PhysicsCostTests {
    /// Lively settings: bodies fly apart at thousands of px/s and keep going.
    static var lively: Dynamics {
        var d = Dynamics()
        d.elasticity = 1
        d.friction = 0
        d.stepsPerSecond = 2000
        d.push = Dynamics.Push(direction: SIMD2(1, -1), magnitude: 100)
        return d
    }

    /// Chipmunk's bounding-box tree widened fast bodies' boxes over the whole canvas, so
    /// every pair was tested each step; the spatial hash's cells are a body's size.
    @Test func theSpatialHashHasCellsOfABodysSizeAndTenABody() throws {
        let text = Array(repeating: "mercurial", count: 30).joined(separator: " ")
        var settings = dropSettings(text: text, width: 1920, height: 1080)
        settings.size = 40
        let title = try DynamicTitle(settings: settings, dynamics: Self.lively, width: 1920, height: 1080)
        let extents = title.pieces.map { p in
            max(p.hull.map(\.x).max()! - p.hull.map(\.x).min()!, p.hull.map(\.y).max()! - p.hull.map(\.y).min()!)
        }.sorted()
        let index = title.world.spatialHash
        #expect(index.cell >= extents.first! && index.cell <= extents.last!, "cell \(index.cell), bodies \(extents.first!)…\(extents.last!)")
        #expect(index.count >= 10 * title.pieces.count)
        // The boundaries (a floor and two walls here) reach two canvas sizes out, so they fill few cells.
        let boundaryCells = 3 * (5 * 1920 + 400) * 400 / (index.cell * index.cell)
        #expect(index.count <= 10 * title.pieces.count + Int(boundaryCells) + 64)
    }

    @Test func aSceneOverTheBudgetIsRefusedBeforeAnyWork() throws {
        // 9 glyphs × 2 s × 240 steps = 4,320 body-steps at least.
        #expect(throws: MercurialError.self) {
            _ = try DynamicTitle(settings: dropSettings(), dynamics: Dynamics(), width: 480, height: 200, seconds: 2, budget: 4_000)
        }
        do {
            _ = try DynamicTitle(settings: dropSettings(), dynamics: Dynamics(), width: 480, height: 200, seconds: 2, budget: 4_000)
        } catch {
            #expect(error.message.contains("4320 body-steps") && error.message.contains("budget of 4000"), "\(error.message)")
            #expect(error.message.contains("\"stepsPerSecond\"") && error.message.contains("\"duration\""), "names what to reduce")
        }
        _ = try DynamicTitle(settings: dropSettings(), dynamics: Dynamics(), width: 480, height: 200, seconds: 2, budget: 4_400)
    }

    /// Resting in a pile, bodies touch one another and the floor on every step, which costs more than their count says.
    @Test func aPileThatRunsOverTheBudgetStopsWithAnError() throws {
        let title = try DynamicTitle(settings: dropSettings(), dynamics: Dynamics(), width: 480, height: 200,
                                     seconds: 2, budget: 6_000)
        var canvas = Image<RGBA8>(width: 480, height: 200, repeating: .clear)
        let shading = ShadingSphere.lookup(ShadingScene())
        // Falling, they touch nothing: 9 × 24 body-steps.
        title.render(poses: try Animator.poses(at: 0.1, in: title.world), settings: dropSettings(), shading: shading, into: &canvas)
        #expect(throws: MercurialError.self) {
            _ = try Animator.poses(at: 2, in: title.world)
        }
        #expect(title.world.overBudget?.message.contains("ran over its budget of 6000") == true, "\(String(describing: title.world.overBudget))")
        #expect(title.world.steps < 480, "stopped where it ran over")
        #expect(title.world.work > 6_000 && title.world.work < 6_000 + 2 * 9 + 4 * 40)
    }

    /// 36 glyphs × 3,600 s × 2,000 steps: 2.6 × 10⁸ body-steps, hours of work.
    @Test func theCommandRefusesAnHourOfPhysicsAtOnceWithOneLine() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = """
            {"text": "Mercurial Mercurial Mercurial Mercurial", "width": 480, "height": 200, "animation": {"duration": 3600, "fps": 1},
             "dynamics": {"stepsPerSecond": 2000, "elasticity": 1, "friction": 0}}
            """
            try Data(scene.utf8).write(to: dir.appendingPathComponent("s.json"))
            let r = try await CLI.run(["animate", "s.json", "-o", "out.png"], in: dir, timeout: .seconds(60))
            #expect(r.status != 0 && r.stderrLines.count == 1, "\(r)")
            #expect(r.stderr.hasPrefix("error: ") && r.stderr.contains("over the physics budget"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.png").path))
        }
    }

    /// A frame of a heavy scene is seconds of physics (here 2,000 steps of 64 ropes of 200 links);
    /// Ctrl-C stops within a step, not at the end of the frame, and leaves nothing.
    @Test func ctrlCStopsWithinAFramesPhysics() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let ropes = (0..<64).map { "{\"body\": 0, \"anchor\": [\(20 + 7 * $0), 0], \"segments\": 200, \"width\": 2}" }
            let scene = """
            {"text": "Hi", "width": 480, "height": 300, "size": 60, "animation": {"duration": 30, "fps": 1},
             "dynamics": {"bodies": "title", "floor": false, "stepsPerSecond": 2000, "ropes": [\(ropes.joined(separator: ", "))]}}
            """
            try Data(scene.utf8).write(to: dir.appendingPathComponent("s.json"))
            let process = Process()
            process.executableURL = try CLI.binary()
            process.arguments = ["animate", "s.json", "-o", "frames-%04d.png"]
            process.currentDirectoryURL = dir
            // 29 frames of physics (a budget that allows them): however long this task is kept
            // waiting by the suite's other tests, the animation cannot finish before the signal
            // (with 2 frames, as much as the default budget allows, it once did in a loaded CI run).
            process.environment = ProcessInfo.processInfo.environment.merging(["MERCURIAL_PHYSICS_BUDGET": "10000000000"]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            // The exit is timed where it is seen (a Foundation thread), not when this task
            // next runs: the suite's other tests can keep the task waiting for seconds.
            let exited = ExitTime()
            process.terminationHandler = { _ in exited.mark() }
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            // Frame 0 (t = 0, no steps) is written; then frames of 2,000 steps each (about
            // 15 s apiece in a debug build).
            let written = ContinuousClock.now + .seconds(120)
            func others() -> [String] {
                ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0 != "s.json" }
            }
            while others().isEmpty && process.isRunning && ContinuousClock.now < written { try await Task.sleep(for: .milliseconds(20)) }
            try #require(!others().isEmpty && process.isRunning, "frame 0 written, the next frame under way")
            try await Task.sleep(for: .milliseconds(300))
            let sent = ContinuousClock.now
            kill(process.processIdentifier, SIGINT)
            let deadline = sent + .seconds(60)
            while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            try #require(!process.isRunning, "stopped")
            let took = exited.time.map { sent.duration(to: $0) }
            #expect(took.map { $0 < .seconds(3) } == true, "within a step, not at the frame's end: \(String(describing: took))")
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT)
            #expect(others().isEmpty, "left behind: \(others())")
        }
    }
}

/// When a process's exit was seen.
final class ExitTime: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: ContinuousClock.Instant?
    func mark() { lock.withLock { seen = .now } }
    var time: ContinuousClock.Instant? { lock.withLock { seen } }
}
