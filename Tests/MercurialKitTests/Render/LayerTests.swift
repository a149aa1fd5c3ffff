import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// `layers`: titles stacked and painted in order on one canvas.
@Suite struct LayerTests {
    static func scene(_ layers: String, top: String = #""width": 1920, "height": 1080, "anchor": "bottom-left", "margin": "safe""#)
        throws -> RenderSettings {
        var settings = RenderSettings()
        try SceneFile.load(json: Array("{\(top), \"layers\": [\(layers)]}".utf8), name: "s.json", into: &settings)
        return settings
    }

    static let lowerThird = #"{"name": "name", "text": "Jane Doe", "size": 80, "material": "gold"}, "#
        + #"{"name": "role", "below": "name", "gap": 16, "text": "Director of Photography", "size": 40, "material": "chrome"}"#

    /// The inked rows' runs (alpha over half), top to bottom, as [first, one past last).
    static func inkedRowRuns(_ image: Image<RGBA8>) -> [(Int, Int)] {
        var runs: [(Int, Int)] = []
        for y in 0..<image.height {
            let inked = (0..<image.width).contains { image.pixels[y * image.width + $0].a > 127 }
            if inked, let last = runs.last, last.1 == y { runs[runs.count - 1].1 = y + 1 } else if inked { runs.append((y, y + 1)) }
        }
        return runs
    }

    /// The issue's lower third: the role's ink bottom on the safe area's edge, the name above it by the gap, both flush left.
    @Test func lowerThirdStacksInTheSafeArea() throws {
        let settings = try Self.scene(Self.lowerThird)
        #expect(settings.layers.count == 2 && settings.layers[1].settings.size == 40 && settings.layers[0].settings.material == "gold")
        let title = try TitleRenderer.render(settings)
        #expect(title.width == 1920 && title.height == 1080 && title.warnings.isEmpty, "\(title.warnings)")
        let runs = Self.inkedRowRuns(title.image)
        try #require(runs.count == 2, "two bands of ink: \(runs)")
        #expect(abs(runs[1].1 - 1026) <= 2, "role's ink bottom \(runs[1].1)")
        #expect(abs(runs[1].0 - runs[0].1 - 16) <= 2, "gap \(runs[1].0 - runs[0].1) between the name's ink and the role's")
        let ink = try #require(PlacementTests.inkEdges(title.image))
        #expect(abs(ink.left - 96) <= 2, "flush left at the safe margin: \(ink)")
        // Each layer is the title it would be alone: the name's band equals the name rendered by itself there.
        var alone = settings.layers[0].settings
        (alone.layers, alone.offset) = ([], .zero)
        (alone.anchor, alone.margin) = (.topLeft, .pixels(0))
        alone.offset = SIMD2(Double(ink.left), Double(runs[0].0))
        let single = try TitleRenderer.render(alone).image
        let y = (runs[0].0 + runs[0].1) / 2
        let row = { (image: Image<RGBA8>) in Array(image.pixels[(y * 1920)..<(y * 1920 + 1920)]) }
        let differing = zip(row(single), row(title.image)).filter { StreamingRenderTests.levels($0, $1) > 2 }.count
        #expect(differing < 40, "\(differing) pixels of the name's middle row differ from the name alone")
    }

    /// A longer name pushes nothing off the safe area: the stack is placed as one box.
    @Test func theStackIsPlacedAsAGroup() throws {
        let top = #""width": 1280, "height": 720, "anchor": "top-right", "margin": "safe", "background": null"#
        let settings = try Self.scene(Self.lowerThird.replacingOccurrences(of: "Jane Doe", with: "Maximiliana Jones-Abernathy"), top: top)
        let image = try TitleRenderer.render(settings).image
        let ink = try #require(PlacementTests.inkEdges(image))
        #expect(abs(ink.top - 36) <= 2 && abs(ink.right - 1216) <= 2 && ink.left >= 64, "\(ink)")
    }

    /// Straight-alpha "over": over a clear pixel it is the pixel; an opaque pixel hides what is under it;
    /// a half-clear pixel over a half-clear one has alpha a + b(1 − a).
    /// A name longer than the safe area is wide wraps there as one title would, and the stack
    /// grows upwards from the safe area's bottom: the role stays under the name, nothing overlaps.
    @Test func aLongNameWrapsAndPushesTheStackUp() throws {
        let long = Self.lowerThird.replacingOccurrences(of: "Jane Doe", with: "Jane Doe-Featherstonehaugh Montgomery Smythe Okonkwo")
        let title = try TitleRenderer.render(try Self.scene(long))
        #expect(title.warnings.isEmpty, "\(title.warnings)")
        let runs = Self.inkedRowRuns(title.image)
        try #require(runs.count >= 3, "the name wraps into two lines or more over the role: \(runs)")
        #expect(abs(runs.last!.1 - 1026) <= 2, "the role's ink bottom \(runs.last!.1) stays on the safe area's edge")
        let ink = try #require(PlacementTests.inkEdges(title.image))
        #expect(ink.left >= 94 && ink.right <= 1824 + 2 && ink.top >= 54, "inside the safe area: \(ink)")
    }

    /// A stack taller than the room inside its margin is shrunk, sizes and gaps alike, to fit it, with a warning.
    @Test func aStackTooTallIsShrunkToFit() throws {
        let tall = #"{"name": "a", "text": "One\nTwo\nThree", "size": 300}, {"below": "a", "gap": 40, "text": "Four\nFive", "size": 200}"#
        let title = try TitleRenderer.render(try Self.scene(tall))
        #expect(title.warnings.contains { $0.message.contains("was shrunk to") && $0.message.contains("1728×972") }, "\(title.warnings)")
        #expect(!title.warnings.contains { $0.message.contains("overlap") }, "\(title.warnings)")
        let ink = try #require(PlacementTests.inkEdges(title.image))
        #expect(ink.top >= 54 - 2 && ink.bottom <= 1026 + 2, "the shrunk stack fits the safe area: \(ink)")
        #expect(ink.bottom - ink.top > 972 * 9 / 10, "and fills most of its height: \(ink)")
    }

    /// A negative gap overlaps a layer with the one it is below, and the stack's box still
    /// holds both (it was the last layer's bottom: a role overlapping a taller name made the
    /// box shorter than the name, and the name's bottom passed the safe area's edge); a gap
    /// lifting the layer above the top of the one it is below is an error naming the gap
    /// and the layers (gap -10000, inside its range, gave a blank title at exit 0, its
    /// warning blaming an offset the user never set).
    @Test func aNegativeGapOverlapsTheLayersWithinTheStacksBox() throws {
        let overlapping = Self.lowerThird.replacingOccurrences(of: "\"gap\": 16", with: "\"gap\": -50")
        let title = try TitleRenderer.render(try Self.scene(overlapping))
        let ink = try #require(PlacementTests.inkEdges(title.image))
        #expect(abs(ink.bottom - 1026) <= 2 && ink.top >= 54, "the overlapping stack sits on the safe area's edge: \(ink)")
        #expect(Self.inkedRowRuns(title.image).count == 1, "the layers overlap")
        for gap in ["-10000", "-200"] {
            let lifted = Self.lowerThird.replacingOccurrences(of: "\"gap\": 16", with: "\"gap\": \(gap)")
            #expect {
                try TitleRenderer.render(try Self.scene(lifted))
            } throws: { error in
                let message = (error as? MercurialError)?.message ?? ""
                return message.contains("layer \"role\": \"gap\" \(gap) lifts it above the top of layer \"name\"")
                    && message.contains("give a \"gap\" from -")
            }
        }
    }

    /// The recipe carries the layers: read back, the title renders to the same pixels.
    @Test func recipeRoundTrips() throws {
        let settings = try Self.scene(Self.lowerThird)
        var again = RenderSettings()
        try SceneFile.load(json: Array(SceneRecipe.json(for: settings).utf8), name: "recipe", into: &again)
        #expect(again.layers.map(\.name) == ["name", "role"] && again.layers[1].below == "name")
        #expect(try same(TitleRenderer.render(again).image.pixels, TitleRenderer.render(settings).image.pixels))
    }

    @Test func badLayersAreRefused() throws {
        let cases: [(String, String)] = [
            (#"{"name": "a", "text": "A"}, {"below": "b", "text": "B"}"#, #"layer 2 is "below" "b", which names no layer"#),
            (#"{"name": "a", "text": "A"}, {"below": "aa", "text": "B"}"#, #"did you mean "a"?"#),
            (#"{"name": "a", "text": "A"}, {"name": "a", "text": "B"}"#, #"layers 1 and 2 are both named "a""#),
            (#"{"name": "a", "below": "b", "text": "A"}, {"name": "b", "below": "a", "text": "B"}"#, "make a loop"),
            ("", #""layers" has 0 layers; give 1 to 16"#),
            (Array(repeating: #"{"text": "A"}"#, count: 17).joined(separator: ", "), #""layers" has 17 layers; give 1 to 16"#),
            (#"{"text": "A", "sise": 4}"#, #"s.json:1:"#),
            (#"{"text": "A", "animation": {"duration": 1}}"#, "belongs to the scene, not to one of its layers"),
        ]
        for (layers, fragment) in cases {
            do {
                _ = try Self.scene(layers)
                Issue.record("\(layers) was read")
            } catch let error as MercurialError {
                #expect(error.message.contains(fragment), "\(error.message)")
            } catch {
                Issue.record("\(error)")
            }
        }
        // Two layers each placed on their own at the same anchor overlap: a warning, and the title still renders.
        let overlapping = try Self.scene(#"{"text": "Over"}, {"text": "Lapping"}"#)
        let title = try TitleRenderer.render(overlapping)
        #expect(title.warnings.contains { $0.message.contains("layers 1 and 2 overlap") }, "\(title.warnings)")
        // Layers need a canvas.
        #expect(throws: MercurialError.self) { try TitleRenderer.render(Self.scene(#"{"text": "A"}"#, top: #""size": 40"#)) }
    }

    // MARK: - Animated layers

    /// A layered scene and its animation (`animation` is the JSON of its block).
    static func animated(_ layers: String, animation: String,
                         top: String = #""width": 960, "height": 540, "anchor": "top-left", "margin": "safe""#) throws
        -> (settings: RenderSettings, timeline: Timeline) {
        var settings = RenderSettings()
        let json = "{\(top), \"animation\": \(animation), \"layers\": [\(layers)]}"
        let timeline = try #require(try SceneFile.load(json: Array(json.utf8), name: "s.json", into: &settings))
        return (settings, timeline)
    }

    /// The renderer's frame `index` is the still of the scene at that frame's time, pixel for pixel.
    static func expectFramesAreStills(_ settings: RenderSettings, _ timeline: Timeline, frames: [Int],
                                      sourceLocation: SourceLocation = #_sourceLocation) throws -> FrameRenderer {
        let renderer = try FrameRenderer(base: settings, timeline: timeline)
        for index in frames {
            let frame = try renderer.frame(index)
            let still = try TitleRenderer.render(timeline.settings(at: timeline.time(ofFrame: index), base: settings)).image
            let differing = zip(frame.pixels, still.pixels).filter { $0 != $1 }.count
            #expect(frame.width == still.width && frame.height == still.height && differing == 0,
                    "frame \(index): \(differing) pixels differ from the still", sourceLocation: sourceLocation)
        }
        return renderer
    }

    /// Frame 0 of a layered animation with no tracks is `mercurial render` of the scene, over a
    /// backdrop and over a transparent one, with point lights in a layer.
    @Test func frameZeroIsTheStill() throws {
        let lit = #", "pointLights": [{"x": 300, "y": 420, "intensity": 2}]"#
        for top in [#""width": 1280, "height": 720, "anchor": "bottom-left", "margin": "safe""#,
                    #""width": 1280, "height": 720, "anchor": "bottom-left", "margin": "safe", "background": null"#] {
            let (settings, timeline) = try Self.animated(Self.lowerThird.replacingOccurrences(of: #""chrome"}"#, with: #""chrome"\#(lit)}"#),
                                                         animation: #"{"duration": 1, "fps": 2}"#, top: top)
            _ = try Self.expectFramesAreStills(settings, timeline, frames: [0, 1])
        }
    }

    /// Layers that overlap warn in an animation too (the placement finds it, before any frame).
    @Test func overlappingAnimatedLayersWarn() throws {
        let (settings, timeline) = try Self.animated(#"{"text": "Over"}, {"text": "Lapping"}"#, animation: #"{"duration": 1, "fps": 2}"#)
        let renderer = try FrameRenderer(base: settings, timeline: timeline)
        #expect(renderer.warnings.contains { $0.message.contains("layers 1 and 2 overlap") }, "\(renderer.warnings)")
        let (apart, t2) = try Self.animated(Self.lowerThird, animation: #"{"duration": 1, "fps": 2}"#)
        #expect(try FrameRenderer(base: apart, timeline: t2).warnings.isEmpty)
    }

    /// The scene's `in` and `out` move the whole stack: a slide from the left starts it further
    /// left, a fade takes every layer's alpha down; a layer's drop shadow, reaching past its
    /// title's region, is painted whole; every frame is the still of its time.
    @Test func inAndOutMoveTheWholeStackWithItsStyles() throws {
        let plain = #""width": 960, "height": 540, "anchor": "bottom-left", "margin": "safe", "dropShadow": {"distance": 8, "size": 6}"#
        let top = plain + #", "in": {"type": "slide", "side": "left", "distance": 200}, "out": {"type": "fade"}"#
        let (settings, timeline) = try Self.animated(Self.lowerThird, animation: #"{"duration": 2, "fps": 10}"#, top: top)
        let renderer = try Self.expectFramesAreStills(settings, timeline, frames: [1, 10, 18])
        let settled = try #require(PlacementTests.inkEdges(try renderer.frame(10)))
        let sliding = try #require(PlacementTests.inkEdges(try renderer.frame(1)))
        #expect(sliding.left < settled.left - 20, "frame 1's ink \(sliding) is left of the settled \(settled)")
        let still = try TitleRenderer.render(Self.scene(Self.lowerThird, top: plain)).image
        #expect(try same(renderer.frame(10).pixels, still.pixels), "once in, the frame is the still title")
        let fading = try renderer.frame(18).pixels
        #expect(fading.map(\.a).max()! < still.pixels.map(\.a).max()!, "the fade takes the alpha down")
        // The role's shadow falls below its ink, outside the role's title region.
        let runs = Self.inkedRowRuns(still)
        let shadowRow = try #require(runs.last).1 + 3
        #expect((0..<still.width).contains { still.pixels[shadowRow * still.width + $0].a > 0 }, "the role's shadow is there")
    }

    /// Tracks into layers: a colour and a light of one layer move it alone, reusing every layer's
    /// shape; a size moves the layers under it, building that layer's shape again (the name's stays).
    @Test func tracksMoveOneLayer() throws {
        let tracks = #"{"duration": 1, "fps": 4, "tracks": {"layers[1].light1.hue": [{"t": 0, "value": 0}, {"t": 1, "value": 0.5}], "#
            + #""layers[0].pointLights[0].x": [{"t": 0, "value": 100}, {"t": 1, "value": 700}]}}"#
        let named = Self.lowerThird.replacingOccurrences(of: #""gold"}"#, with: #""gold", "pointLights": [{"x": 100, "y": 60}]}"#)
        let (settings, timeline) = try Self.animated(named, animation: tracks)
        #expect(timeline.tracks.map(\.key) == ["layers[1].light1.hue", "layers[0].pointLights[0].x"])
        let renderer = try Self.expectFramesAreStills(settings, timeline, frames: [0, 2, 4])
        #expect(renderer.layerGeometryBuilds == [1, 1], "\(renderer.layerGeometryBuilds)")
        // The role's hue moves; the name's band differs only where its point light moved.
        let first = try renderer.frame(0).pixels, last = try renderer.frame(4).pixels
        #expect(first != last)

        let sized = #"{"duration": 1, "fps": 2, "tracks": {"layers[1].size": [{"t": 0, "value": 40}, {"t": 1, "value": 60}]}}"#
        let (grow, growing) = try Self.animated(Self.lowerThird, animation: sized)
        let growth = try Self.expectFramesAreStills(grow, growing, frames: [0, 1, 2])
        #expect(growth.layerGeometryBuilds == [1, 3], "\(growth.layerGeometryBuilds)")

        // The stack's top layer's offset moves the whole stack: placed again, each layer's shape built again.
        let slid = #"{"duration": 1, "fps": 2, "tracks": {"layers[0].offset.x": [{"t": 0, "value": 0}, {"t": 1, "value": 80}]}}"#
        let (slide, sliding) = try Self.animated(Self.lowerThird, animation: slid)
        let slider = try Self.expectFramesAreStills(slide, sliding, frames: [0, 1, 2])
        #expect(slider.layerGeometryBuilds == [3, 3], "\(slider.layerGeometryBuilds)")
    }

    @Test func badLayerTracksAreRefused() throws {
        let cases: [(String, String)] = [
            (#""layers[5].x""#, #"s.json:1:111: track 'layers[5].x' names layer 5, but the scene has 2 layers (layers[0] to layers[1]); use one of those"#),
            (#""layers[1].sise""#, #"unknown track "layers[1].sise"; did you mean "layers[1].size"?"#),
            (#""layers[1].pointLights[0].x""#, #"track "layers[1].pointLights[0].x""#),
            (#""layers[one].size""#, "write it as layers[N].KEY"),
            (#""layers[0].width""#, "only numbers and colours can be keyframed"),
            (#""light1.hue""#, #"a track moves one layer; name it as layers[N].KEY; did you mean "layers[0].light1.hue"?"#),
            (#""layers[0].font""#, "only numbers and colours can be keyframed"),
            (#""layers[1].offset.x""#, #"layer 1 is "below" "name", so its place is the stack's"#),
        ]
        for (key, fragment) in cases {
            do {
                _ = try Self.animated(Self.lowerThird, animation: "{\"duration\": 1, \"tracks\": {\(key): [{\"t\": 0, \"value\": 1}]}}")
                Issue.record("\(key) was read")
            } catch let error as MercurialError {
                #expect(error.message.contains(fragment), "\(error.message)")
            }
        }
        // The canvas is every frame's (a track cannot change a width; the editor's settings could).
        let (scene, timeline) = try Self.animated(Self.lowerThird, animation: #"{"duration": 1}"#)
        let renderer = try FrameRenderer(base: scene, timeline: timeline)
        var wider = scene
        wider.layers[1].settings.width = 1000
        #expect { try renderer.render(wider) } throws: { ($0 as? MercurialError)?.message.contains("the canvas changes from 960×540 to 1000×540") ?? false }
    }

    /// Memory: each layer is held to one animated title's limits, and all together to twice one's.
    @Test func layersAreBoundedInMemory() throws {
        let uhd = #""width": 3840, "height": 2160"#
        let small = Array(repeating: #"{"text": "A", "size": 40}"#, count: 16).joined(separator: ", ")
        let (many, timeline) = try Self.animated(small, animation: #"{"duration": 1}"#, top: uhd)
        #expect(try FrameRenderer(base: many, timeline: timeline).layerGeometryBuilds.count == 16)
        let large = Array(repeating: #"{"text": "WIDE\nWIDE\nWIDE", "size": 600}"#, count: 16).joined(separator: ", ")
        let (huge, again) = try Self.animated(large, animation: #"{"duration": 1}"#, top: uhd)
        #expect { try FrameRenderer(base: huge, timeline: again) } throws: {
            ($0 as? MercurialError)?.message.contains("an animation's layers are lofted in memory, from at most 32 M pixels together") ?? false
        }
        let (one, alone) = try Self.animated(#"{"text": "WWW\nWWW", "size": 2000}"#, animation: #"{"duration": 1}"#, top: #""width": 7000, "height": 4600"#)
        #expect { try FrameRenderer(base: one, timeline: alone) } throws: { ($0 as? MercurialError)?.message.contains("layer 1: an animated title is lofted in memory") ?? false }
    }
}
