import Foundation
import Testing
@testable import MercurialKit

func dropSettings(text: String = "Mercurial", width: Int = 480, height: Int = 200) -> RenderSettings {
    var s = RenderSettings()
    s.text = text
    s.width = width
    s.height = height
    s.size = 80
    s.radius = 6
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
        #expect(try r.frame(7).pixels == a[7])
    }

    @Test func lettersFallAndComeToRestOnTheFloorInsideTheCanvas() throws {
        let title = try DynamicTitle(settings: dropSettings(), dynamics: Self.bouncy, width: 480, height: 200)
        let rest = title.poses(at: 6)
        let later = title.poses(at: 6.5)
        for (i, piece) in title.pieces.enumerated() {
            let hull = worldHull(piece, rest[i])
            let xs = hull.map(\.x), ys = hull.map(\.y)
            #expect(xs.min()! > -1 && xs.max()! < 481 && ys.min()! > -1, "body \(i) stays inside: \(hull)")
            #expect(ys.max()! < 201, "body \(i) is never below the floor")
            #expect(abs(rest[i].x - later[i].x) < 0.5 && abs(rest[i].y - later[i].y) < 0.5
                    && abs(rest[i].angle - later[i].angle) < 0.01, "body \(i) is at rest")
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
        let title = try DynamicTitle(settings: dropSettings(text: "O", width: 200, height: 400), dynamics: d, width: 200, height: 400)
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
