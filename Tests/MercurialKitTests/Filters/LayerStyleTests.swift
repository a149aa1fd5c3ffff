import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// A tall stem ("I") on a 200×200 canvas: its ink's bounds are easy to step outside of.
private func stem(_ change: (inout RenderSettings) throws -> Void = { _ in }) throws -> Image<RGBA8> {
    var s = RenderSettings()
    s.text = "I"
    s.font = "dosis"
    s.size = 120
    s.width = 200
    s.height = 200
    try change(&s)
    return try TitleRenderer.render(s).image
}

/// The columns and rows where `image` has any alpha.
private func inkBox(_ image: Image<RGBA8>) -> (minX: Int, maxX: Int, minY: Int, maxY: Int) {
    var box = (minX: image.width, maxX: -1, minY: image.height, maxY: -1)
    for y in 0..<image.height {
        for x in 0..<image.width where image[x, y].a > 0 {
            box = (min(box.minX, x), max(box.maxX, x), min(box.minY, y), max(box.maxY, y))
        }
    }
    return box
}

private func luma(_ p: RGBA8) -> Double { 0.2126 * Double(p.r) + 0.7152 * Double(p.g) + 0.0722 * Double(p.b) }

@Suite struct LayerStyleTests {
    /// Photoshop's angle: the light comes from 120° (upper left), the shadow falls down and to the right.
    @Test func dropShadowDarkensAndInksThePixelsBesideTheLettersAwayFromTheLight() throws {
        let plain = try stem()
        let ink = inkBox(plain)
        let shadow = DropShadow()
        let shaded = try stem { $0.dropShadow = shadow }
        let y = (ink.minY + ink.maxY) / 2
        // Just right of the stem (the shadow's side): clear before, inked now.
        for x in (ink.maxX + 1)...(ink.maxX + 4) {
            #expect(plain[x, y].a == 0)
            #expect(shaded[x, y].a > 0, "shadow at (\(x), \(y))")
        }
        // Just below the stem too; towards the light (left, above) far less, and none beyond the blur.
        #expect(shaded[(ink.minX + ink.maxX) / 2, ink.maxY + 3].a > 0)
        #expect(shaded[ink.minX - 3, y].a < shaded[ink.maxX + 3, y].a / 4)
        #expect(shaded[(ink.minX + ink.maxX) / 2, ink.minY - 3].a < shaded[(ink.minX + ink.maxX) / 2, ink.maxY + 3].a / 4)
        #expect(shaded[ink.minX - 6, y].a == 0)

        // Over a white backdrop the same pixels are darker than without the shadow.
        let onWhite = try stem { $0.background = .white }
        let shadedOnWhite = try stem { $0.background = .white; $0.dropShadow = shadow }
        for x in (ink.maxX + 1)...(ink.maxX + 4) {
            #expect(luma(shadedOnWhite[x, y]) < luma(onWhite[x, y]) - 10, "darker at (\(x), \(y))")
        }
        // The title itself is drawn over its shadow, unchanged where it is opaque.
        let centre = ((ink.minX + ink.maxX) / 2, y)
        #expect(shadedOnWhite[centre.0, centre.1] == onWhite[centre.0, centre.1])
    }

    @Test func dropShadowFollowsItsAngleDistanceAndSize() throws {
        let ink = inkBox(try stem())
        let y = (ink.minY + ink.maxY) / 2
        // Light from the right (0°): the shadow falls left.
        let left = try stem { var d = DropShadow(); d.angle = 0; d.distance = 10; d.size = 0; $0.dropShadow = d }
        #expect(left[ink.minX - 5, y].a == UInt8(255 * DropShadow().opacity), "a hard shadow 10 px to the left, at its opacity")
        #expect(left[ink.maxX + 2, y].a == 0)
        // Size 0 is a hard edge: nothing beyond the offset ink.
        #expect(left[ink.minX - 13, y].a == 0)
        // A larger size reaches further.
        let soft = try stem { var d = DropShadow(); d.angle = 0; d.distance = 10; d.size = 12; $0.dropShadow = d }
        #expect(soft[ink.minX - 17, y].a > 0)
        // Spread hardens the edge: at the same size, more opaque at the same place.
        let spread = try stem { var d = DropShadow(); d.angle = 0; d.distance = 10; d.size = 12; d.spread = 60; $0.dropShadow = d }
        #expect(spread[ink.minX - 17, y].a > soft[ink.minX - 17, y].a)
    }

    @Test func outerGlowSurroundsTheLettersInItsColour() throws {
        let ink = inkBox(try stem())
        var glow = OuterGlow()
        glow.color = RGBColor(r: 1, g: 0, b: 0)
        glow.size = 8
        glow.opacity = 1
        let glowing = try stem { $0.outerGlow = glow }
        let y = (ink.minY + ink.maxY) / 2, x = (ink.minX + ink.maxX) / 2
        for p in [glowing[ink.minX - 3, y], glowing[ink.maxX + 3, y], glowing[x, ink.minY - 3], glowing[x, ink.maxY + 3]] {
            #expect(p.a > 0 && p.r == 255 && p.g == 0, "\(p)")
        }
        #expect(glowing[ink.maxX + 14, y].a == 0, "beyond its size")
    }

    @Test func strokeDrawsAnOutlineOutsideInsideOrAcrossTheEdge() throws {
        let plain = try stem()
        let ink = inkBox(plain)
        let y = (ink.minY + ink.maxY) / 2
        func stroked(_ position: Stroke.Position) throws -> Image<RGBA8> {
            try stem { var k = Stroke(); k.color = RGBColor(r: 0, g: 0, b: 1); k.width = 4; k.position = position; $0.stroke = k }
        }
        let outside = try stroked(.outside)
        #expect(outside[ink.maxX + 2, y] == RGBA8(r: 0, g: 0, b: 255, a: 255), "\(outside[ink.maxX + 2, y])")
        #expect(outside[ink.maxX + 7, y].a == 0)
        // Inside: the letters' outer 4 px turn blue, nothing outside them is drawn.
        let inside = try stroked(.inside)
        let firstInked = (ink.minX...ink.maxX).first { plain[$0, y].a == 255 }!
        #expect(inside[firstInked + 1, y] == RGBA8(r: 0, g: 0, b: 255, a: 255))
        #expect(inside[ink.maxX + 2, y].a == 0)
        #expect(inside[(ink.minX + ink.maxX) / 2, y] == plain[(ink.minX + ink.maxX) / 2, y], "the middle keeps its metal")
        let centre = try stroked(.center)
        #expect(centre[ink.maxX + 1, y].b == 255 && centre[ink.maxX + 1, y].a > 200)
        #expect(centre[ink.maxX + 5, y].a == 0)
    }

    @Test func innerShadowDarkensTheInkNearTheEdgeTowardsTheLight() throws {
        let plain = try stem()
        let ink = inkBox(plain)
        let shadowed = try stem { $0.innerShadow = InnerShadow() }
        let y = (ink.minY + ink.maxY) / 2
        let firstOpaque = (ink.minX...ink.maxX).first { plain[$0, y].a == 255 }!
        let lastOpaque = (ink.minX...ink.maxX).last { plain[$0, y].a == 255 }!
        // The light is upper left, so the shadow falls into the left edge, not the right one.
        #expect(luma(shadowed[firstOpaque + 1, y]) < luma(plain[firstOpaque + 1, y]) - 10)
        #expect(abs(luma(shadowed[lastOpaque - 1, y]) - luma(plain[lastOpaque - 1, y])) < 3)
        // Clipped to the ink: nothing outside, the alpha unchanged.
        for x in 0..<plain.width { #expect(shadowed[x, y].a == plain[x, y].a) }
    }

    /// `down` engraves: the loft's normals turn the other way.
    @Test func bevelDownInvertsTheSlope() throws {
        var up = RenderSettings()
        up.text = "O"
        let mask = try TitleRenderer.titleMask(up).mask
        var down = up
        down.bevel = .down
        let a = TitleShape.lofted(mask, up.shape).keptNormals, b = TitleShape.lofted(mask, down.shape).keptNormals
        var tilted = 0
        for i in 0..<a.xy.count where abs(a.xy[i].x) > 0.1 {
            #expect(b.xy[i].x == -a.xy[i].x && b.xy[i].y == -a.xy[i].y)
            tilted += 1
        }
        #expect(tilted > 100)
        #expect(try TitleRenderer.render(up).image.pixels != TitleRenderer.render(down).image.pixels)
    }

    /// A canvas sized to the text grows to hold the shadow, on the sides it reaches.
    @Test func anAutoSizedCanvasGrowsToHoldTheShadow() throws {
        var s = RenderSettings()
        s.text = "I"
        let plain = try TitleRenderer.render(s)
        var d = DropShadow()
        d.angle = 90      // light from above: the shadow falls straight down
        d.distance = 30
        d.size = 4
        s.dropShadow = d
        let shadowed = try TitleRenderer.render(s)
        #expect(shadowed.height >= plain.height + 30)
        #expect(shadowed.width > plain.width && shadowed.width < plain.width + 20)
        // The shadow is whole: the bottom row is clear, the rows above it hold the shadow.
        let image = shadowed.image
        #expect((0..<image.width).allSatisfy { image[$0, image.height - 1].a == 0 })
        #expect(inkBox(image).maxY > image.height - 20)
        // A long diagonal shadow is held too (the canvas grows by 0.7 of it each way), not refused.
        s.dropShadow?.angle = 135
        s.dropShadow?.distance = 2000
        let long = try TitleRenderer.render(s)
        #expect(long.width >= plain.width + 1414 && long.height >= plain.height + 1414)
    }

    /// In an animation the styles' masks are made once while the shape and their sizes
    /// stay; moving the shadow only draws it elsewhere.
    @Test func animatedShadowKeepsItsMaskBetweenFrames() throws {
        let path = "dropShadow.distance"
        let leaf = try #require(SceneSchema.leaf(at: path))
        let timeline = Timeline(duration: 1, fps: 10, tracks: [
            Track(key: path, target: .leaf(path: path, leaf),
                  keyframes: Keyframes([Keyframe(time: 0, value: .number(0)), Keyframe(time: 1, value: .number(20))]))])
        var base = animatedSettings()
        base.dropShadow = DropShadow()
        let renderer = try FrameRenderer(base: base, timeline: timeline)
        let first = try renderer.frame(0).pixels
        let last = try renderer.frame(9).pixels
        #expect(first != last)
        #expect(renderer.styleCache.builds == 1)
        // Each frame is the still of its settings.
        #expect(try TitleRenderer.render(timeline.settings(at: 0.9, base: base)).image.pixels == last)
    }

    @Test func stylesAreNestedKeysOfTheSchema() throws {
        let paths = Set(SceneSchema.rows.map(\.path))
        for key in ["dropShadow.color", "dropShadow.opacity", "dropShadow.angle", "dropShadow.distance", "dropShadow.size",
                    "dropShadow.spread", "outerGlow.size", "outerGlow.spread", "stroke.width", "stroke.position",
                    "stroke.color", "innerShadow.choke"] {
            #expect(paths.contains(key), "\(key)")
        }
        var s = RenderSettings()
        try SceneSchema.assign("dropShadow.distance", text: "12", to: &s)
        #expect(s.dropShadow?.distance == 12 && s.dropShadow?.size == DropShadow().size)
        try SceneSchema.assign("stroke.position", text: "inside", to: &s)
        #expect(s.stroke?.position == .inside)
        #expect(throws: MercurialError.self) { try SceneSchema.assign("dropShadow.distance", text: "-3", to: &s) }
        try s.set(assignment: "bevel=down")
        #expect(s.bevel == .down)
    }

    /// The box blur is a running sum: each pass equals the plain sum of its window.
    @Test func boxBlurMatchesAPlainWindowSum() {
        let w = 23, h = 17, r = 3
        var values = (0..<(w * h)).map { Float(($0 * 7919) % 13) / 13 }
        let source = values
        BoxBlur.blur(&values, width: w, height: h, radius: r, passes: 1)
        for y in 0..<h {
            for x in 0..<w {
                var sum: Float = 0
                for j in (y - r)...(y + r) where j >= 0 && j < h {
                    for i in (x - r)...(x + r) where i >= 0 && i < w { sum += source[j * w + i] }
                }
                #expect(abs(values[y * w + x] - sum / Float((2 * r + 1) * (2 * r + 1))) < 1e-4)
            }
        }
    }
}
