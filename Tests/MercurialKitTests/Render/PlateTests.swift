import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// `plate`: a box behind the ink, sized to it with padding, with an accent bar; kept inside
/// the margin; the same in memory, in bands and in frames; moved and faded with the title.
@Suite struct PlateTests {
    static func scene(_ json: String) throws -> (settings: RenderSettings, timeline: Timeline?) {
        var s = RenderSettings()
        let timeline = try SceneFile.load(json: Array(json.utf8), name: "plate.json", into: &s)
        return (s, timeline)
    }

    /// The edges of the pixels with any alpha: left and top the first, right and bottom one past the last.
    static func edges(_ image: Image<RGBA8>, over: UInt8 = 0) -> (left: Int, top: Int, right: Int, bottom: Int)? {
        InOutTests.inkBox(only(image) { $0.a > over }).map { ($0.minX, $0.minY, $0.maxX + 1, $0.maxY + 1) }
    }

    /// `image` with the pixels that are not `kept` cleared.
    static func only(_ image: Image<RGBA8>, _ kept: (RGBA8) -> Bool) -> Image<RGBA8> {
        Image(width: image.width, height: image.height, pixels: image.pixels.map { kept($0) ? $0 : .clear })
    }

    static let title = #""text": "Jane Doe", "size": 80, "radius": 6"#

    /// The plate reaches exactly `padding` past the ink on each side ([x, y], per side, one
    /// number): on a canvas sized to the text (which grows to hold it) and on a given one,
    /// where the plate, not the ink, meets the margin.
    @Test func thePlateSizesToTheInkWithItsPadding() throws {
        for (padding, sides) in [("[30, 12]", (12, 30, 12, 30)), ("[5, 40, 20, 10]", (5, 40, 20, 10)), ("16", (16, 16, 16, 16))] {
            for canvas in ["", #", "width": 900, "height": 300, "anchor": "top-left", "margin": 40"#] {
                let bare = try TitleRenderer.render(Self.scene("{\(Self.title)\(canvas)}").settings).image
                let plated = try Self.scene(##"{\##(Self.title)\##(canvas), "plate": {"color": "#203040", "opacity": 1, "padding": \##(padding)}}"##).settings
                let image = try TitleRenderer.render(plated).image
                let ink = try #require(Self.edges(bare)), plate = try #require(Self.edges(image, over: 127))
                let what = "padding \(padding)\(canvas.isEmpty ? ", sized to the text" : ", on a canvas"): plate \(plate), ink \(ink)"
                #expect(abs((plate.right - plate.left) - (ink.right - ink.left + sides.1 + sides.3)) <= 1
                        && abs((plate.bottom - plate.top) - (ink.bottom - ink.top + sides.0 + sides.2)) <= 1, "\(what)")
                if canvas.isEmpty {
                    #expect(plate.left >= 0 && plate.top >= 0 && plate.right <= image.width && plate.bottom <= image.height,
                            "the canvas grew to hold the plate: \(what), canvas \(image.width)×\(image.height)")
                } else {
                    #expect(abs(plate.left - 40) <= 1 && abs(plate.top - 40) <= 1, "\(what)")
                }
            }
        }
    }

    /// In the safe area at 1920×1080 the plate, not the ink, meets the graphics-safe lines
    /// (96 px left, 54 px bottom); its colour is under the ink and its bar along the left.
    @Test func thePlateKeepsToTheMarginAndHasItsColourAndBar() throws {
        let json = ##"{\##(Self.title), "width": 1920, "height": 1080, "anchor": "bottom-left", "margin": "safe", "plate": {"color": "#203040", "opacity": 1, "padding": [30, 12], "radius": 8, "bar": {"side": "left", "width": 10, "color": "#ff0000"}}}"##
        let image = try TitleRenderer.render(Self.scene(json).settings).image
        let plate = try #require(Self.edges(image, over: 127))
        #expect(abs(plate.left - 96) <= 1 && abs(plate.bottom - 1026) <= 1, "\(plate)")
        let middleY = (plate.top + plate.bottom) / 2
        #expect(image[plate.left + 4, middleY] == RGBA8(r: 255, g: 0, b: 0, a: 255), "the bar: \(image[plate.left + 4, middleY])")
        #expect(image[plate.left + 14, middleY] == RGBA8(r: 0x20, g: 0x30, b: 0x40, a: 255), "the plate: \(image[plate.left + 14, middleY])")
        // A rounded corner leaves its corner pixel clear.
        #expect(image[plate.left, plate.top].a == 0 && image[plate.left + 8, plate.top].a == 255)
    }

    /// Bands (forced), whole and animation frames draw the same plate (flat, and in metal).
    @Test(arguments: ["\"#203040\"", "\"material\""])
    func bandsFramesAndTheStillAgree(_ color: String) throws {
        let json = ##"{\##(Self.title), "plate": {"color": \##(color), "opacity": 0.8, "padding": [30, 12], "radius": 8, "bar": {"side": "bottom", "width": 6}}, "dropShadow": {"distance": 6, "size": 8}, "animation": {"duration": 1, "fps": 10}}"##
        let (settings, timeline) = try Self.scene(json)
        let whole = try TitleRenderer.render(settings).image
        let (streamed, _) = try StreamingRenderTests.streamed(settings, bandHeight: 16)
        #expect(StyledBandsTests.differences(streamed, whole).count == 0, "bands: \(StyledBandsTests.differences(streamed, whole))")
        let frames = try FrameRenderer(base: settings, timeline: try #require(timeline))
        #expect(try same(frames.frame(3).pixels, whole.pixels), "a frame is the still")
        // In metal the plate is lofted and shaded: its edge rises, so down from its top the colour changes.
        let plate = try #require(Self.edges(whole, over: 150))
        let column = (plate.top + 1...plate.top + 5).map { whole[(plate.left + plate.right) / 2, $0] }
        #expect(color.contains("material") ? Set(column).count >= 3 : Set(column).count == 1, "\(column)")
    }

    /// A metal plate that stays while the lights turn is lofted once for all the frames (each
    /// frame the still's, byte for byte); one that slides is lofted each frame it moves.
    @Test func aStillMetalPlateIsLoftedOnce() throws {
        let json = ##"{"text": "Hg", "size": 60, "width": 400, "height": 200, "plate": {"color": "material", "padding": 20, "radius": 6}, "animation": {"duration": 1, "fps": 10, "tracks": {"light1.hue": [{"t": 0, "value": 0}, {"t": 1, "value": 0.5}]}}}"##
        let (settings, timeline) = try Self.scene(json)
        let frames = try FrameRenderer(base: settings, timeline: try #require(timeline))
        for index in 0..<6 {
            let frame = try frames.frame(index)
            #expect(frame.pixels == (try TitleRenderer.render(timeline!.settings(at: timeline!.time(ofFrame: index), base: settings)).image.pixels),
                    "frame \(index) is its still")
        }
        #expect(frames.styleCache.plateLofts == 1, "lofted \(frames.styleCache.plateLofts) times")
        let sliding = json.replacingOccurrences(of: ##""animation""##, with: ##""in": {"type": "slide", "distance": 50, "duration": 1}, "animation""##)
        let (moved, movedTimeline) = try Self.scene(sliding)
        let slide = try FrameRenderer(base: moved, timeline: try #require(movedTimeline))
        for index in 0..<4 { _ = try slide.frame(index) }
        #expect(slide.styleCache.plateLofts == 4, "a moving plate is lofted where each frame puts it: \(slide.styleCache.plateLofts)")
    }

    /// In a stack of layers the name's plate sizes to the name, the stack (plates included)
    /// keeps to the margin, and the role sits `gap` below the plate.
    @Test func aLayersPlateIsPartOfItsBoxInTheStack() throws {
        let json = ##"{"width": 1920, "height": 1080, "anchor": "bottom-left", "margin": "safe", "radius": 6, "layers": [{"name": "name", "text": "Jane Doe", "size": 96, "plate": {"color": "#203040", "opacity": 1, "padding": [36, 16]}}, {"name": "role", "below": "name", "gap": 20, "text": "Director", "size": 40}]}"##
        let settings = try Self.scene(json).settings
        let boxes = try LayeredTitle.inkBoxes(of: settings)
        let image = try TitleRenderer.render(settings).image
        // The plate's pixels: its colour, opaque.
        let plateOnly = Self.only(image) { $0 == RGBA8(r: 0x20, g: 0x30, b: 0x40, a: 255) }
        let plate = try #require(Self.edges(plateOnly))
        #expect(abs(plate.left - 96) <= 1 && boxes[0].minX == 96, "plate \(plate), box \(boxes[0])")
        #expect(boxes[1].minY == boxes[0].maxY + 1 + 20, "the role 20 px below the plate: \(boxes)")
        #expect(boxes[1].maxY == 1080 - 54 - 1, "the stack's bottom on the safe line: \(boxes[1])")
        #expect(abs((plate.bottom - plate.top) - (boxes[0].height)) <= 1, "plate \(plate), box \(boxes[0])")
    }

    /// The plate's keys: padding as one, two or four numbers; refusals name the key.
    @Test func plateKeysAreReadAndRefused() throws {
        let two = try Self.scene(##"{"text": "T", "plate": {"padding": [10, 4]}}"##).settings
        #expect(two.plate?.padding == SIMD4(4, 10, 4, 10))
        #expect(SceneRecipe.json(for: two).contains(#""padding": [4, 10, 4, 10]"#))
        for (json, says) in [(##"{"text": "T", "plate": {"padding": [1, 2, 3]}}"##, "has 3 values"),
                             (##"{"text": "T", "plate": {"padding": -4}}"##, "\"plate.padding\""),
                             (##"{"text": "T", "plate": {"bar": {"side": "middle"}}}"##, "\"left\", \"right\", \"top\" or \"bottom\""),
                             (##"{"text": "T", "plate": {"color": "materal"}}"##, "did you mean \"material\"")] {
            let error = #expect(throws: MercurialError.self) { _ = try Self.scene(json) }
            #expect(error?.message.contains(says) == true, "\(json): \(String(describing: error))")
        }
    }

    /// A track fades the plate (`plate.opacity`) and turns its colour.
    @Test func tracksAnimateThePlate() throws {
        let json = ##"{\##(Self.title), "plate": {"color": "#203040", "opacity": 1, "padding": 20}, "animation": {"duration": 1, "fps": 10, "tracks": {"plate.opacity": [{"t": 0, "value": 0}, {"t": 0.9, "value": 1}], "plate.color": [{"t": 0, "value": "#ff0000"}, {"t": 0.9, "value": "#203040"}]}}}"##
        let (settings, timeline) = try Self.scene(json)
        let frames = try FrameRenderer(base: settings, timeline: try #require(timeline))
        let first = try frames.frame(0), last = try frames.frame(9)
        let corner = { (image: Image<RGBA8>) in image[6, image.height / 2] }
        #expect(corner(first).a == 0 && corner(last) == RGBA8(r: 0x20, g: 0x30, b: 0x40, a: 255), "\(corner(first)) → \(corner(last))")
        let half = corner(try frames.frame(4))
        #expect(half.a > 60 && half.a < 200 && half.r > half.b, "half-way: \(half)")
    }
}
