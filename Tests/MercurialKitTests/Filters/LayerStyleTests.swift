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
        #expect(try same(TitleRenderer.render(timeline.settings(at: 0.9, base: base)).image.pixels, last))
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

    /// A drop shadow and an outer glow are knocked out under the title's own ink (Photoshop's
    /// "Layer knocks out drop shadow", on by default): an edge pixel of the ink shows its own
    /// colour, less opaque, not the shadow through it; `knockout: false` keeps the shadow there.
    /// Beyond the ink, and under opaque ink, nothing changes.
    @Test(arguments: ["dropShadow", "outerGlow"])
    func theShadowAndGlowAreKnockedOutUnderTheInk(_ style: String) throws {
        let plain = try stem()
        func styled(_ knockout: Bool?) throws -> Image<RGBA8> {
            try stem { s in
                try SceneSchema.assign("\(style).color", text: "#00ff00", to: &s)
                try SceneSchema.assign("\(style).opacity", text: "1", to: &s)
                if let knockout { try SceneSchema.assign("\(style).knockout", text: "\(knockout)", to: &s) }
            }
        }
        let knocked = try styled(nil), kept = try styled(false)
        #expect(try same(styled(true).pixels, knocked.pixels), "knocked out by default")
        var edges = 0, greener = 0
        for (i, ink) in plain.pixels.enumerated() {
            let (k, s) = (knocked.pixels[i], kept.pixels[i])
            if ink.a == 0 || ink.a == 255 {
                #expect(k == s, "at \(i) (ink alpha \(ink.a)) the knock-out changes \(s) to \(k)")
                continue
            }
            edges += 1
            // The ink's colour over what the knock-out leaves of the green style: less green, less alpha.
            if Int(s.g) - Int(s.r) > Int(k.g) - Int(k.r) + 8 && k.a < s.a { greener += 1 }
        }
        #expect(edges > 100 && greener > edges / 2, "of \(edges) edge pixels of the ink, \(greener) show less of the \(style) knocked out")
    }

    /// The box blur is a running sum: each of a plane's three passes, along and down,
    /// equals the plain sum of its window (the plane made as a whole title's is, one band).
    @Test func boxBlurMatchesAPlainWindowSum() {
        let w = 23, h = 71, r = 3
        let alphas = (0..<(w * h)).map { UInt8(($0 * 7919) % 13 * 19) }
        let title = Image(width: w, height: h, pixels: alphas.map { RGBA8(r: 0, g: 0, b: 0, a: $0) })
        let recipe = PlaneRecipe(growth: 0, shape: nil, shapeReach: 0, blurRadius: r)
        let plane = StreamedStylePlane.whole(recipe, title: title, region: PixelBounds(minX: 0, minY: 0, maxX: w - 1, maxY: h - 1))
        var values = alphas.map { Float($0) * (1 / 255) }
        /// One plain pass: each value the mean of its window of 2r + 1 along x (`alongX`) or y,
        /// the values past the plane's edge counted as 0.
        func pass(alongX: Bool) {
            let source = values
            for y in 0..<h {
                for x in 0..<w {
                    var sum: Float = 0
                    for k in -r...r {
                        let (i, j) = alongX ? (x + k, y) : (x, y + k)
                        if i >= 0 && i < w && j >= 0 && j < h { sum += source[j * w + i] }
                    }
                    values[y * w + x] = sum / Float(2 * r + 1)
                }
            }
        }
        for _ in 0..<3 {
            pass(alongX: true)
            pass(alongX: false)
        }
        #expect(plane.bounds.width == w && plane.bounds.height == h && plane.values.count == w * h)
        let worst = zip(plane.values, values).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-4, "the plane differs from three plain window sums by \(worst)")
    }
}

/// `stroke.color: "material"`: an outline lofted as a shape of its own and shaded in the title's metal.
@Suite struct MaterialStrokeTests {
    private func metal(_ position: Stroke.Position = .outside, opacity: Double = 1,
                       _ change: (inout RenderSettings) -> Void = { _ in }) throws -> Image<RGBA8> {
        try stem {
            var k = Stroke()
            (k.width, k.position, k.paint, k.opacity) = (6, position, .material, opacity)
            $0.stroke = k
            change(&$0)
        }
    }

    /// The pixels 1…4 px beyond the stem's left and right edges at mid-height, and above and below its middle.
    private func band(_ image: Image<RGBA8>, _ ink: (minX: Int, maxX: Int, minY: Int, maxY: Int)) -> [RGBA8] {
        let y = (ink.minY + ink.maxY) / 2, x = (ink.minX + ink.maxX) / 2
        return (1...4).flatMap { d in [image[ink.maxX + d, y], image[ink.minX - d, y], image[x, ink.minY - d], image[x, ink.maxY + d]] }
    }

    @Test func anOutsideMetalStrokeVariesWithItsNormalsAndIsLitByTheLights() throws {
        let plain = try stem()
        let ink = inkBox(plain)
        let stroked = try metal()
        let ring = band(stroked, ink)
        for p in ring { #expect(p.a == 255, "the outline covers the band: \(p)") }
        // Not a flat colour: the rim's colours vary across it and from side to side, as its normals turn.
        #expect(Set(ring.map { [$0.r, $0.g, $0.b] }).count >= 8, "\(ring)")
        let y = (ink.minY + ink.maxY) / 2
        #expect(stroked[ink.maxX + 2, y] != stroked[ink.minX - 2, y])
        // A colour stroke there is one colour.
        let flat = try stem { var k = Stroke(); k.width = 6; $0.stroke = k }
        #expect(Set(band(flat, ink).map { [$0.r, $0.g, $0.b] }).count == 1)
        // The same lights: turning the lights' hue turns the outline's colours, as it does the title's.
        let relit = try metal {
            for i in 0..<4 { $0.scene.lights[i].hue = ($0.scene.lights[i].hue + 0.5).truncatingRemainder(dividingBy: 1) }
        }
        let changed = zip(ring, band(relit, ink)).filter { $0 != $1 }.count
        #expect(changed >= ring.count / 2, "\(changed) of \(ring.count) pixels changed")
        // Under the title: where the title is opaque it is as it was.
        let centre = ((ink.minX + ink.maxX) / 2, y)
        #expect(stroked[centre.0, centre.1] == plain[centre.0, centre.1])
        // On a transparent backdrop its alpha is its coverage times its opacity; nothing beyond its width.
        let half = try metal(opacity: 0.5)
        #expect(abs(Int(half[ink.maxX + 3, y].a) - 128) <= 1, "\(half[ink.maxX + 3, y])")
        #expect(stroked[ink.maxX + 9, y].a == 0)
    }

    @Test func anInsideOrCentredMetalStrokeIsARingOverTheTitle() throws {
        let plain = try stem()
        let ink = inkBox(plain)
        let y = (ink.minY + ink.maxY) / 2
        let firstOpaque = (ink.minX...ink.maxX).first { plain[$0, y].a == 255 }!
        let inside = try metal(.inside)
        #expect(inside[firstOpaque + 2, y] != plain[firstOpaque + 2, y], "the ring is drawn over the letters' edge")
        #expect(inside[ink.maxX + 2, y].a == 0, "and clipped to the ink")
        let centre = try metal(.center)
        #expect(centre[ink.maxX + 1, y].a > 200 && centre[ink.maxX + 6, y].a == 0)
        // Across the ring its colour varies (it rises from both edges).
        let across = (-2...2).map { centre[ink.maxX + $0, y] }
        #expect(Set(across.map { [$0.r, $0.g, $0.b] }).count >= 3, "\(across)")
        // The middle of the letters keeps its metal.
        #expect(inside[(ink.minX + ink.maxX) / 2, y] == plain[(ink.minX + ink.maxX) / 2, y])
    }

    /// In an animation the outline is lofted once; it is shaded again only when the lights change.
    @Test func anAnimatedMetalStrokeIsLoftedOnceAndShadedPerLightChange() throws {
        var base = animatedSettings()
        var k = Stroke()
        (k.width, k.paint) = (5, .material)
        base.stroke = k
        let lit = Timeline(duration: 1, fps: 10, tracks: [try track("light1.hue", [(0, .number(0)), (1, .number(0.5))])])
        let renderer = try FrameRenderer(base: base, timeline: lit)
        let first = try renderer.frame(0).pixels
        let last = try renderer.frame(9).pixels
        #expect(first != last)
        #expect(renderer.styleCache.builds == 1 && renderer.styleCache.metalShadings == 2)
        // Each frame is the still of its settings.
        #expect(try same(TitleRenderer.render(lit.settings(at: 0.9, base: base)).image.pixels, last))

        // The backdrop moves, the lights stay: the shaded outline is reused.
        let backdrop = Timeline(duration: 1, fps: 10, tracks: [try track("background", [(0, .color(.black)), (1, .color(.white))])])
        let still = try FrameRenderer(base: base, timeline: backdrop)
        for i in [0, 4, 9] { _ = try still.frame(i) }
        #expect(still.styleCache.builds == 1 && still.styleCache.metalShadings == 1)
        #expect(try same(TitleRenderer.render(backdrop.settings(at: 0.9, base: base)).image.pixels, still.frame(9).pixels))

        // A point light moving over it: the outline is lit again each frame, and the styles' masks,
        // made from the lit alpha (point lights raise it at the letters' edges), are made again:
        // each frame is still the still of its time, for a metal or a coloured stroke and a shadow.
        base.pointLights = [PointLight(x: 0, y: 60)]
        base.dropShadow = DropShadow()
        let path = "pointLights[0].x"
        let leaf = try #require(SceneSchema.leaf(at: path))
        let sweep = Timeline(duration: 1, fps: 10, tracks: [
            Track(key: path, target: .leaf(path: path, leaf),
                  keyframes: Keyframes([Keyframe(time: 0, value: .number(0)), Keyframe(time: 1, value: .number(320))]))])
        let swept = try FrameRenderer(base: base, timeline: sweep)
        let frames = try (0..<10).map { try swept.frame($0).pixels }
        #expect(Set(frames).count == 10)
        #expect(swept.styleCache.builds == 10 && swept.styleCache.metalShadings == 10)
        for paint in [k.paint, .color(.black)] {
            base.stroke?.paint = paint
            let renderer = try FrameRenderer(base: base, timeline: sweep)
            for i in [3, 9] {
                let still = try TitleRenderer.render(sweep.settings(at: sweep.time(ofFrame: i), base: base)).image.pixels
                #expect(try same(renderer.frame(i).pixels, still), "frame \(i) with \(paint) is its still")
            }
        }
    }

    @Test func strokeColorTakesMaterialThroughSetRecipesAndRefusesItsTrack() throws {
        var s = RenderSettings()
        s.text = "Hi"
        try s.set(assignment: "stroke.color=material")
        #expect(s.stroke?.paint == .material)
        let recipe = SceneRecipe.json(for: s)
        #expect(recipe.contains(#""color": "material""#))
        var again = RenderSettings()
        _ = try SceneFile.load(json: Array(recipe.utf8), name: "recipe", into: &again)
        #expect(again.stroke == s.stroke)
        try s.set(assignment: "stroke.color=#ff0000")
        #expect(s.stroke?.paint == .color(RGBColor(r: 1, g: 0, b: 0)))

        func error(_ json: String) -> String {
            var settings = RenderSettings()
            do { _ = try SceneFile.load(json: Array(json.utf8), name: "s.json", into: &settings); return "" } catch { return error.message }
        }
        let typo = error(#"{"text": "Hi", "stroke": {"color": "materail"}}"#)
        #expect(typo.contains("s.json:1:") && typo.contains(#"did you mean "material"?"#), "\(typo)")
        #expect(error(#"{"text": "Hi", "stroke": {"color": "gld"}}"#).contains(#"not a colour; use a name (e.g. gold), #rrggbb or "material""#))
        let tracked = #"{"text": "Hi", "stroke": {"color": "material"}, "animation": {"duration": 1, "tracks": {"stroke.color": [{"t": 0, "value": "red"}]}}}"#
        #expect(error(tracked).contains(#"track "stroke.color" animates the stroke's colour, but "stroke.color" is "material""#), "\(error(tracked))")
        #expect(error(tracked.replacingOccurrences(of: #""material""#, with: #""blue""#)) == "")
    }
}
