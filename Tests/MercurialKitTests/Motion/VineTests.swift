import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite struct VineTests {
    static let ink = PixelBounds(minX: 40, minY: 60, maxX: 560, maxY: 130)

    static func mask(_ vine: Vine, growth: Double, width: Int = 600, height: Int = 220) -> Mask {
        var mask = Mask(width: width, height: height, repeating: 0)
        StrokeRaster.draw(vine.strokes(along: vine.routePoints(ink: ink), growth: growth), into: &mask, origin: SIMD2(0, 0))
        return mask
    }

    @Test func theSameSeedGivesTheSameVineAndAnotherSeedAnother() {
        var vine = Vine()
        vine.seed = 42
        let a = Self.mask(vine, growth: 0.8), b = Self.mask(vine, growth: 0.8)
        #expect(same(a.pixels, b.pixels))
        vine.seed = 43
        let c = Self.mask(vine, growth: 0.8)
        let differing = zip(a.pixels, c.pixels).filter { $0 != $1 }.count
        #expect(differing > 200, "seeds 42 and 43 differ in \(differing) pixels")
    }

    @Test func itGrowsFromNothingAndOnlyGrows() {
        let vine = Vine()
        #expect(Self.mask(vine, growth: 0).pixels.allSatisfy { $0 == 0 })
        var previous: Float = 0
        var previousStrokes = 0
        for g in stride(from: 0.1, through: 1.0, by: 0.1) {
            let strokes = vine.strokes(along: vine.routePoints(ink: Self.ink), growth: g)
            let total = Self.mask(vine, growth: g).pixels.reduce(0, +)
            #expect(total > previous, "coverage at growth \(g): \(total), before \(previous)")
            #expect(strokes.count >= previousStrokes)
            previous = total
            previousStrokes = strokes.count
        }
        // Time: nothing before the start, all of it from start + duration, still titles whole.
        var timed = Vine()
        timed.start = 1
        timed.duration = 2
        #expect(timed.growth(at: 0.5) == 0 && timed.growth(at: 3) == 1 && timed.growth(at: nil) == 1)
        #expect(timed.growth(at: 2) > 0.5 && timed.growth(at: 2) < 1)
    }

    /// Branches keep to their limits: angle from the stem, length, and where they start.
    @Test func branchesKeepToTheirLimits() {
        var vine = Vine()
        vine.route = .points([SIMD2(20, 100), SIMD2(1020, 100)])
        vine.branchAngle = 30...45
        vine.branchLength = 20...30
        vine.branchSpacing = 50
        vine.leafSize = 0
        let strokes = vine.strokes(along: vine.routePoints(ink: nil), growth: 1)
        let branches = strokes.dropFirst()
        // About one branch in every spacing, times the chance.
        #expect(branches.count >= 12 && branches.count <= 20, "\(branches.count) branches")
        for branch in branches {
            let start = branch.points[0], next = branch.points[1]
            #expect(abs(start.y - 100) < 1e-6, "a branch starts on the stem")
            let angle = atan2(abs(next.y - start.y), next.x - start.x) * 180 / .pi
            #expect(angle >= 29 && angle <= 46, "angle \(angle)")
            let length = zip(branch.points, branch.points.dropFirst()).reduce(0) { $0 + (($1.1 - $1.0) * ($1.1 - $1.0)).sum().squareRoot() }
            #expect(length >= 19.9 && length <= 30.1, "length \(length)")
        }
        // Both sides of the stem.
        #expect(branches.contains { $0.points[1].y < 100 } && branches.contains { $0.points[1].y > 100 })
    }

    @Test func leavesUnfoldAtTheEndsOfGrownBranches() {
        var vine = Vine()
        vine.route = .points([SIMD2(20, 100), SIMD2(620, 100)])
        vine.leafSize = 16
        let grown = vine.strokes(along: vine.routePoints(ink: nil), growth: 1)
        let withoutLeaves: Vine = { var v = vine; v.leafSize = 0; return v }()
        let bare = withoutLeaves.strokes(along: withoutLeaves.routePoints(ink: nil), growth: 1)
        // One leaf a branch; a leaf's widest point is about half its length.
        #expect(grown.count == 2 * bare.count - 1)
        // Each leaf follows its branch, swells to about half its length and closes at both ends.
        for k in stride(from: 2, to: grown.count, by: 2) {
            let leaf = grown[k], branch = grown[k - 1]
            #expect(leaf.points[0] == branch.points[branch.points.count - 1])
            #expect(leaf.widths.max()! > 6 && leaf.widths.max()! < 9 && leaf.widths.first! < 0.5 && leaf.widths.last! < 0.5)
        }
    }

    @Test func aTaperedStrokeCoversItsWidth() {
        var mask = Mask(width: 100, height: 40, repeating: 0)
        StrokeRaster.draw([TaperedStroke(points: [SIMD2(10, 20), SIMD2(90, 20)], widths: [10, 2])], into: &mask,
                          origin: SIMD2(0, 0))
        // Width 10 at the left (radius 4.875 at x = 12.5): rows 16…23 covered, 15 and 24 at 0.875, 14 and 25 not.
        #expect((16...23).allSatisfy { mask[12, $0] == 1 } && abs(mask[12, 15] - 0.875) < 0.01 && abs(mask[12, 24] - 0.875) < 0.01)
        #expect(mask[12, 14] == 0 && mask[12, 25] == 0)
        #expect(mask[88, 20] > 0.5 && mask[88, 23] == 0)
        #expect(StrokeRaster.bounds([TaperedStroke(points: [SIMD2(10, 20), SIMD2(90, 20)], widths: [10, 2])])
                == PixelBounds(minX: 4, minY: 14, maxX: 92, maxY: 26))
    }
}

@Suite struct VineSceneTests {
    static let scene = #"""
    {"text": "Vine", "size": 60, "width": 320, "height": 180, "radius": 4,
     "vine": {"path": "underline", "seed": 9, "width": 5, "start": 0.2, "duration": 1, "branchAngle": [20, 50],
              "branchLength": [10, 24], "leafSize": 12},
     "animation": {"duration": 1.5, "fps": 10}}
    """#

    static func load(_ json: String) throws -> (RenderSettings, Timeline?) {
        var settings = RenderSettings()
        let timeline = try SceneFile.load(json: Array(json.utf8), name: "s.json", into: &settings)
        return (settings, timeline)
    }

    @Test func aSceneVineIsReadAndItsRecipeReadsBackTheSame() throws {
        let (settings, _) = try Self.load(Self.scene)
        let vine = try #require(settings.vine)
        #expect(vine.seed == 9 && vine.width == 5 && vine.branchAngle == 20...50 && vine.leafSize == 12 && vine.route == .underline)
        let (again, _) = try Self.load(SceneRecipe.json(for: settings))
        #expect(again.vine == vine)
    }

    /// The vine draws on: no vine before its start, part of it midway, all of it at the end,
    /// and the same frames every run.
    @Test func anAnimatedVineGrowsFrameByFrame() throws {
        let (settings, timeline) = try Self.load(Self.scene)
        let renderer = try FrameRenderer(base: settings, timeline: try #require(timeline))
        var plain = settings
        plain.vine = nil
        let textOnly = try TitleRenderer.render(plain).image
        func inked(_ image: Image<RGBA8>) -> Int { image.pixels.filter { $0.a > 0 }.count }
        let first = try renderer.frame(0)
        #expect(same(first.pixels, textOnly.pixels), "before its start the vine is not there")
        let middle = inked(try renderer.frame(6)), last = inked(try renderer.frame(14))
        #expect(middle > inked(textOnly) + 200 && last > middle + 200, "text \(inked(textOnly)), middle \(middle), end \(last)")
        let still = try TitleRenderer.render(settings).image
        #expect(try same(renderer.frame(14).pixels, still.pixels), "the last frame is the still title, vine grown")
        let again = try FrameRenderer(base: settings, timeline: try #require(timeline))
        #expect(try same(again.frame(6).pixels, (try renderer.frame(6)).pixels))
    }
}

