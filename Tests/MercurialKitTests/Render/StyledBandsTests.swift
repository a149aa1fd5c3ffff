import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Layer styles drawn band by band in the streamed path (`StyledBands`) against the whole render.
@Suite struct StyledBandsTests {
    /// Drop shadow, outer glow and inner shadow, the shadow falling further than a band (down or up).
    static func styles(shadowAngle: Double, stroke: Stroke.Position?, spread: Double) -> LayerStyles {
        var styles = LayerStyles()
        var shadow = DropShadow()
        (shadow.angle, shadow.distance, shadow.size, shadow.spread) = (shadowAngle, 40, 7, spread)
        styles.dropShadow = shadow
        var glow = OuterGlow()
        (glow.size, glow.spread) = (9, spread)
        styles.outerGlow = glow
        var inner = InnerShadow()
        (inner.distance, inner.size, inner.spread, inner.color) = (4, 5, spread, RGBColor(r: 0.2, g: 0, b: 0.4))
        styles.innerShadow = inner
        if let stroke {
            var s = Stroke()
            (s.width, s.position, s.color) = (2.5, stroke, RGBColor(r: 0.9, g: 0.1, b: 0.1))
            styles.stroke = s
        }
        return styles
    }

    /// A red point light at `at` over a gradient when `lit`, else neither.
    static func light(_ settings: inout RenderSettings, _ lit: Bool, at: (x: Double, y: Double)) {
        settings.pointLights = lit ? [PointLight(x: at.x, y: at.y, color: RGBColor(r: 1, g: 0.2, b: 0.1),
                                                 intensity: 0.9, range: 90)] : []
        settings.backgroundGradient = lit ? BackgroundGradient(
            gradient: Gradient(stops: [.init(color: RGBColor(r: 0.9, g: 0.1, b: 0.3), location: 0),
                                       .init(color: RGBColor(r: 0.1, g: 0.1, b: 0.6), location: 1)]),
            startPoint: [0, 0.2], endPoint: [1, 0.9]) : nil
    }

    /// How many pixels differ, how many of those show (either is not fully transparent),
    /// and by how many levels at most those do.
    static func differences(_ a: Image<RGBA8>, _ b: Image<RGBA8>) -> (count: Int, visible: Int, worst: Int) {
        let differing = zip(a.pixels, b.pixels).indices(where: { $0 != $1 })
        let visible = differing.filter { a.pixels[$0].a > 0 || b.pixels[$0].a > 0 }
        return (differing.count, visible.count,
                visible.map { StreamingRenderTests.levels(a.pixels[$0], b.pixels[$0]) }.max() ?? 0)
    }

    /// `settings` streamed in bands of 16, 7 and 500 rows against its whole render: the
    /// same pixels when `exact`, else at most one level apart on at most 1 pixel in 200.
    static func expectBandsEqualTheWholeRender(_ settings: RenderSettings, exact: Bool, _ what: String) throws {
        let whole = try TitleRenderer.render(settings).image
        for band in [16, 7, 500] {
            let (image, title) = try StreamingRenderTests.streamed(settings, bandHeight: band)
            #expect(title.width == whole.width && title.height == whole.height)
            #expect(same(image.pixels.count, whole.pixels.count))
            let (count, visible, worst) = Self.differences(image, whole)
            #expect(exact ? count == 0 : worst <= 1 && visible * 200 <= whole.pixels.count,
                    "\(what), band \(band): \(count) pixels differ, \(visible) visibly, by up to \(worst) levels")
        }
    }

    /// Styles without a distance-field step are the whole render's to the bit (their box
    /// passes run down the same sums). With a spread, choke or stroke, the windowed distance
    /// field's rounding may move a few pixels by one level, and change the colour a fully
    /// transparent pixel carries (a mask's tail of 1e-6 there or not), which nothing shows.
    @Test(arguments: [120.0, 290.0])
    func styledBandsEqualTheWholeRender(_ shadowAngle: Double) throws {
        var settings = RenderSettings()
        settings.text = "Hg\\nwave"
        settings.size = 48
        settings.radius = 5
        let blue = RGBColor(r: 0.1, g: 0.2, b: 0.3)
        for (stroke, spread, background) in [(nil, 0.0, nil), (.outside, 30.0, blue), (.inside, 20, nil), (.center, 0, nil), (nil, 25, nil)]
            as [(Stroke.Position?, Double, RGBColor?)] {
            settings.look.styles = Self.styles(shadowAngle: shadowAngle, stroke: stroke, spread: spread)
            settings.background = background
            try Self.expectBandsEqualTheWholeRender(settings, exact: stroke == nil && spread == 0,
                                                    "angle \(shadowAngle), stroke \(String(describing: stroke)), spread \(spread)")
        }
    }

    /// A sized canvas a shadow falls off, and a mask's canvas, stream as they render whole,
    /// bare and with point lights over a gradient (lit before the styles are drawn, composed after).
    @Test func styledMaskAndSizedCanvasEqualTheWholeRender() throws {
        let dir = try StreamingRenderTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("m.png")
        try StreamingRenderTests.write(StreamingRenderTests.maskImage(width: 151, height: 113, alpha: true), to: url)
        var settings = RenderSettings()
        settings.mask = url.path
        settings.radius = 6
        settings.look.styles = Self.styles(shadowAngle: 120, stroke: nil, spread: 0)
        for mask in [true, false] {
            if !mask {
                (settings.mask, settings.text, settings.size, settings.width, settings.height) = (nil, "Hg", 60, 150, 80)
            }
            for lit in [false, true] {
                Self.light(&settings, lit, at: (40, 30))
                let whole = try TitleRenderer.render(settings).image
                let (image, _) = try StreamingRenderTests.streamed(settings, bandHeight: 16)
                #expect(image.width == whole.width && image.height == whole.height)
                #expect(Self.differences(image, whole).count == 0, "mask \(mask), lit \(lit)")
            }
        }
    }

    /// A title whose shadow reaches too far for the windows.
    static let farTooWide = {
        var settings = RenderSettings()
        settings.text = "Far too wide"
        settings.size = 2700
        var shadow = DropShadow()
        (shadow.distance, shadow.angle, shadow.size) = (4096, 90, 10)
        settings.look.styles.dropShadow = shadow
        return settings
    }()

    /// A shadow's halo too large for the windows is an error naming the style and the fix.
    @Test func tooLargeAHaloIsAnError() throws {
        let settings = Self.farTooWide
        #expect(throws: MercurialError.self) { try TitleRenderer.renderPNG(settings, compression: .fast, output: nil) }
        do {
            _ = try TitleRenderer.renderPNG(settings, compression: .fast, output: nil)
        } catch {
            #expect(error.message.contains("\"dropShadow\" reaches too far to draw in bands"), "\(error.message)")
            #expect(error.message.contains("smaller distance or size"))
        }
    }

    /// Moved or zoomed, the same title is held to the same cap with the same error (it was
    /// rendered whole, in memory, past the cap: an 8K title with every style at its
    /// largest took 1.25 GB zoomed, 367 MB moved by 1 px, where unmoved it is refused).
    @Test(arguments: [(1.0, 0.0, 1.0), (0.0, 0.0, 16.0), (100.0, 7.5, 16.0), (-40.5, 3.0, 1.25)])
    func aMovedOrZoomedTitleIsHeldToTheSameCap(_ shiftX: Double, _ shiftY: Double, _ zoom: Double) throws {
        var settings = Self.farTooWide
        (settings.shiftX, settings.shiftY, settings.zoom) = (shiftX, shiftY, zoom)
        do {
            _ = try TitleRenderer.renderPNG(settings, compression: .fast, output: nil)
            Issue.record("a moved or zoomed title past the cap rendered")
        } catch {
            #expect(error.message.contains("\"dropShadow\" reaches too far to draw in bands"), "\(error.message)")
            #expect(error.message.contains("at most 64 M values"), "\(error.message)")
        }
    }

    /// A stroke in the title's metal streams as it renders whole: its outline lofted, shaded
    /// and lit from windows of its plane's rows, inside, outside and centred, in each
    /// profile, with point lights over a gradient and bare; with the band heights of
    /// the other styles' test.
    @Test(arguments: [LoftProfile.liquid, .chisel])
    func aMetalStrokeStreamsAsItRendersWhole(_ profile: LoftProfile) throws {
        var settings = StreamingRenderTests.hgWave(profile, radius: 6)
        for (position, width, lit) in [(Stroke.Position.outside, 5.0, false), (.inside, 3, true), (.center, 4, false),
                                       (.outside, 8, true)] {
            var stroke = Stroke()
            (stroke.width, stroke.position, stroke.material) = (width, position, true)
            settings.look.styles = Self.styles(shadowAngle: 290, stroke: nil, spread: 0)
            settings.look.styles.stroke = stroke
            Self.light(&settings, lit, at: (60, 40))
            try Self.expectBandsEqualTheWholeRender(settings, exact: false, "\(profile) \(position) \(width) lit \(lit)")
        }
    }
}
