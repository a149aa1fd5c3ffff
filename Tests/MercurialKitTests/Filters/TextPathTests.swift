import Foundation
import Testing
@testable import MercurialKit

/// `textPath`: the baseline follows a circle or points, each glyph turned to the curve.
@Suite struct TextPathTests {
    func onPath(_ text: String, _ path: TextPath, size: Double = 60) throws -> TextLayout {
        var l = TextLayout(text: text, fontPath: try FontLibrary.resolve("rounded"))
        (l.size, l.textPath) = (size, path)
        return l
    }

    func circle(_ radius: Double, _ type: TextPath.Kind = .circle, start: Double = 0) -> TextPath {
        var path = TextPath()
        (path.type, path.radius, path.start) = (type, radius, start)
        return path
    }

    @Test func theCircleRunsClockwiseFromItsTop() {
        let path = circle(100)
        let top = path.frame(at: 0, total: 50), right = path.frame(at: .pi * 50, total: 50)
        #expect(abs(top.point.x) < 1e-9 && abs(top.point.y + 100) < 1e-9 && top.angle == 0)
        #expect(abs(right.point.x - 100) < 1e-9 && abs(right.point.y) < 1e-9 && abs(right.angle - .pi / 2) < 1e-12)
        // An arc is centred on its start: half the text before it.
        let arc = circle(100, .arc)
        #expect(abs(arc.frame(at: 25, total: 50).point.x) < 1e-9)
    }

    @Test func glyphsStandOnTheCircleTurnedToIt() throws {
        // Upright strokes round a 300 px circle: each stands out from the centre, so at the
        // sides it lies across (wider than tall) and at the top and bottom it stands up.
        let radius = 150.0
        let placement = try TextMask.place(try onPath(String(repeating: "I ", count: 26), circle(radius)), margin: 0)
        #expect(placement.warnings.isEmpty, "\(placement.warnings)")
        let glyphs = placement.run.bitmaps.filter { $0.coverage.contains { $0 > 0 } }
        #expect(glyphs.count == 26)
        var across = 0, upright = 0
        for g in glyphs {
            // The run's coordinates have the circle's centre at (0, 0).
            let c = SIMD2(Double(g.left) + Double(g.width) / 2, Double(g.top) + Double(g.height) / 2)
            let distance = (c * c).sum().squareRoot()
            #expect(distance > radius && distance < radius + 60, "a stroke \(distance) px from the centre")
            if abs(c.x) > 3 * abs(c.y) { #expect(g.width > 2 * g.height, "at the side: \(g.width)×\(g.height)"); across += 1 }
            if abs(c.y) > 3 * abs(c.x) { #expect(g.height > 2 * g.width, "at the top or bottom: \(g.width)×\(g.height)"); upright += 1 }
        }
        #expect(across >= 4 && upright >= 4, "\(across) at the sides, \(upright) at the top and bottom")
    }

    @Test func textTurningRoundItsCircleKeepsTheCentreStill() throws {
        // A badge's track turns `start`: the circle, not the ink, is placed on the canvas.
        var centres: Set<[Int]> = []
        for start in [0.0, 37, 90, 200, 333] {
            let p = try TextMask.place(try onPath("MERCURIAL TEXT", circle(150, start: start)), width: 480, height: 480, margin: 14)
            centres.insert([p.originX + p.offsetX, p.originY + p.offsetY])
        }
        #expect(centres.count == 1 && centres.first!.allSatisfy { abs($0 - 240) <= 1 }, "the canvas's centre: \(centres)")
    }

    @Test func anArcIsCentredOnItsStart() throws {
        let placement = try TextMask.place(try onPath("MERCURIAL", circle(200, .arc, start: 90)), margin: 0)
        let glyphs = placement.run.bitmaps.filter { !$0.coverage.isEmpty }
        // Round the right of the circle, as many letters above its middle as below.
        #expect(glyphs.allSatisfy { $0.left + $0.width / 2 > 50 }, "\(glyphs.map(\.left))")
        let above = glyphs.filter { $0.top + $0.height / 2 < 0 }.count
        #expect(abs(above - (glyphs.count - above)) <= 1, "\(above) of \(glyphs.count) above")
    }

    @Test func aStraightPathDrawsWhatStraightTextDoes() throws {
        var path = TextPath()
        (path.type, path.points) = (.points, [SIMD2(0, 0), SIMD2(400, 0), SIMD2(2000, 0)])
        let along = try TextMask.render(try onPath("Flat out", path), margin: 4)
        var straight = try onPath("Flat out", path)
        straight.textPath = nil
        let plain = try TextMask.render(straight, margin: 4).mask
        #expect(along.mask.width == plain.width && along.mask.pixels == plain.pixels)
    }

    @Test func pointsOnASizedCanvasAreItsPixels() throws {
        var path = TextPath()
        (path.type, path.points) = (.points, [SIMD2(100, 300), SIMD2(560, 300)])
        // "HIH" has no descender: its ink sits on the path's line, starting at its first point.
        let result = try TextMask.render(try onPath("HIH", path), width: 640, height: 400, margin: 14)
        let ink = try #require(result.canvasMask.inkBounds(threshold: 0.5))
        #expect(abs(ink.maxY - 299) <= 1 && abs(ink.minX - 100) <= 8, "ink \(ink)")
        // Moved with the path, not placed at the anchor.
        (path.points[0].y, path.points[1].y) = (200, 200)
        let higher = try #require(try TextMask.render(try onPath("HIH", path), width: 640, height: 400, margin: 14)
            .canvasMask.inkBounds(threshold: 0.5))
        #expect(higher.maxY == ink.maxY - 100 && higher.minX == ink.minX, "\(higher) against \(ink)")
    }

    @Test func aColourGlyphIsTurnedAsOutlinesAre() throws {
        // A bar 10 wide and 2 high, turned a quarter clockwise about its top-left corner: 2 wide and 10 high, left of it.
        let bar = GlyphRun.Bitmap(left: 0, top: 0, width: 10, height: 2, coverage: [UInt8](repeating: 255, count: 20))
        let turned = bar.rotated(by: .pi / 2, about: SIMD2(0, 0))
        let inked = (0..<turned.height).flatMap { y in (0..<turned.width).compactMap { x in
            turned.coverage[y * turned.width + x] > 127 ? SIMD2(turned.left + x, turned.top + y) : nil } }
        #expect(Set(inked.map(\.x)) == [-2, -1] && Set(inked.map(\.y)) == Set(0..<10), "\(inked)")
        // On an arc the rocket turns with the letters: at the circle's top it stands as drawn,
        // at its right (a quarter turn on) its box is the upright one's turned, width for height.
        func rocket(at start: Double) throws -> GlyphRun.Bitmap {
            try #require(try TextMask.place(try onPath("🚀", circle(150, .arc, start: start), size: 80), margin: 0)
                .run.bitmaps.first { !$0.coverage.isEmpty })
        }
        let top = try rocket(at: 0), right = try rocket(at: 90)
        #expect(abs(top.width - top.height) >= 4, "the rocket's box is not square: \(top.width)×\(top.height)")
        #expect(abs(right.width - top.height) <= 2 && abs(right.height - top.width) <= 2,
                "\(top.width)×\(top.height) at the top, \(right.width)×\(right.height) at the right")
    }

    @Test func textLongerThanTheCircleIsWarnedAboutAndTwoLinesRefused() throws {
        let long = try TextMask.place(try onPath(String(repeating: "round ", count: 20), circle(50)), margin: 0)
        #expect(long.warnings.contains { $0.message.contains("longer than the circle's 314 px round") }, "\(long.warnings)")
        let error = #expect(throws: MercurialError.self) { try TextMask.place(try onPath("two\nlines", circle(100)), margin: 0) }
        #expect(error?.message.contains("takes one line of text") == true)
    }

    @Test func theSceneFileReadsAndChecksIt() throws {
        var settings = RenderSettings()
        _ = try SceneFile.load(json: Array(#"{"textPath": {"type": "arc", "radius": 240, "start": -30}}"#.utf8), name: "p.json", into: &settings)
        #expect(settings.textPath == circle(240, .arc, start: -30))
        for (json, expected) in [(#"{"textPath": {"type": "points"}}"#, #"needs "points": at least 2 points"#),
                                 (#"{"textPath": {"type": "spiral"}}"#, #""textPath.type" must be "arc", "circle" or "points""#),
                                 (#"{"textPath": {"radius": 0}}"#, #""textPath.radius" is 0, out of range 1…100000"#)] {
            var again = RenderSettings()
            let error = #expect(throws: MercurialError.self) { _ = try SceneFile.load(json: Array(json.utf8), name: "p.json", into: &again) }
            #expect(error?.message.contains(expected) == true, "\(json): \(String(describing: error?.message))")
        }
        // A track can turn the text round its circle.
        #expect(SceneSchema.leaf(at: "textPath.start") != nil)
    }
}
