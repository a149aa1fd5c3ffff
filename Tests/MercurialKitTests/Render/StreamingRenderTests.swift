import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// The banded render (`TitleRenderer.renderPNG`, forced to stream) against the whole-image one.
@Suite struct StreamingRenderTests {
    /// A mask of anti-aliased discs, a ring, a thin bar and a one-pixel dot, with ink
    /// reaching the left and bottom edges; `alpha` puts the coverage in alpha (else grey).
    static func maskImage(width: Int, height: Int, alpha: Bool) -> Image<RGBA8> {
        var pixels = [RGBA8](repeating: .clear, count: width * height)
        let discs: [(Float, Float, Float, Float)] = [
            (0.3, 0.35, 0.22, 0), (0.72, 0.6, 0.25, 0.12), (0.05, 0.95, 0.12, 0),
        ]
        for y in 0..<height {
            for x in 0..<width {
                let px = Float(x) + 0.5, py = Float(y) + 0.5
                var c: Float = 0
                for (cx, cy, r, hole) in discs {
                    let d = ((px - cx * Float(width)) * (px - cx * Float(width))
                             + (py - cy * Float(height)) * (py - cy * Float(height))).squareRoot()
                    let outer = min(max(r * Float(height) - d + 0.5, 0), 1)
                    let inner = hole > 0 ? min(max(hole * Float(height) - d + 0.5, 0), 1) : 0
                    c = max(c, outer - inner)
                }
                if y == height / 8 && x > width / 10 && x < width - 3 { c = 1 }   // a 1 px bar
                if x == width - 2 && y == 2 { c = 0.4 }                           // a lone dot
                let v = UInt8((c * 255).rounded())
                pixels[y * width + x] = alpha ? RGBA8(r: 200, g: 10, b: 90, a: v) : RGBA8(r: v, g: v, b: v, a: 255)
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// The largest difference between two pixels' channels.
    static func levels(_ a: RGBA8, _ b: RGBA8) -> Int {
        max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)), abs(Int(a.a) - Int(b.a)))
    }

    /// A new empty directory for a test's files (the caller removes it).
    static func scratchDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func write(_ image: Image<RGBA8>, to url: URL) throws {
        try Data(try PNGSink().encode(image)).write(to: url)
    }

    static func streamed(_ settings: RenderSettings, bandHeight: Int, compression: PNGFile.Compression = .fast)
        throws -> (Image<RGBA8>, StreamedTitle) {
        let result = try TitleRenderer.renderPNG(settings, compression: compression, bandHeight: bandHeight,
                                                 force: true, output: nil)
        guard case .streamed(let title) = result else { throw MercurialError("the title was not streamed") }
        let image = try PNGFile.decode(title.bytes, name: "streamed", role: "output")
        // Over a background the title is opaque and written as RGB (colour type 2), else RGBA (6).
        let channels = settings.background != nil ? 3 : 4
        #expect(title.bytes.count > 25 && title.bytes[25] == (channels == 3 ? 2 : 6), "the streamed PNG's colour type")
        // libpng's reader forgives a wrong Adler-32 or missing rows; zlib does not.
        let inflated = PNGFile.strictlyInflatedImageData(title.bytes)?.count
        #expect(inflated == image.height * (image.width * channels + 1), "the streamed zlib stream inflates to \(inflated.map(String.init) ?? "an error")")
        return (image, title)
    }

    /// Band heights either side of the halo, one row, and more than the canvas.
    @Test(arguments: [LoftProfile.liquid, .chisel, .round])
    func bandsEqualTheWholeImage(_ profile: LoftProfile) throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (alpha, background) in [(true, nil), (false, RGBColor(r: 0.1, g: 0.2, b: 0.3))] as [(Bool, RGBColor?)] {
            let url = dir.appendingPathComponent("m.png")
            try Self.write(Self.maskImage(width: 151, height: 113, alpha: alpha), to: url)
            var settings = RenderSettings()
            settings.mask = url.path
            settings.profile = profile
            settings.radius = 6
            settings.background = background
            let whole = try TitleRenderer.render(settings).image
            let halo = profile == .liquid ? GaussianBlur(sigma: 3).reach : Int(7.0) + 8
            for band in [1, halo - 1, halo + 1, 2 * halo + 3, 1000] {
                let (image, title) = try Self.streamed(settings, bandHeight: band)
                #expect(title.width == whole.width && title.height == whole.height)
                // Liquid is exact. The distance field of a band's window measures from another
                // grid origin, so its Float rounding may move a rare pixel by one level.
                let differing = zip(image.pixels, whole.pixels).indices(where: { $0 != $1 })
                let worst = differing.map { Self.levels(image.pixels[$0], whole.pixels[$0]) }.max() ?? 0
                #expect(same(image.pixels.count, whole.pixels.count))
                #expect(profile == .liquid ? differing.isEmpty : worst <= 1 && differing.count <= 4,
                        "\(profile), band \(band), alpha \(alpha): \(differing.count) pixels differ, by up to \(worst) levels")
            }
            // The small compression makes other bytes of the same pixels.
            let small = try Self.streamed(settings, bandHeight: 24, compression: .small).0
            #expect(small.pixels.count == whole.pixels.count
                    && zip(small.pixels, whole.pixels).allSatisfy { Self.levels($0, $1) <= (profile == .liquid ? 0 : 1) })
        }
    }

    /// The two-line title the banded renders are checked with: 48 px, `radius`, in `profile`.
    static func hgWave(_ profile: LoftProfile, radius: Double) -> RenderSettings {
        var settings = RenderSettings()
        (settings.text, settings.size, settings.radius, settings.profile) = ("Hg\\nwave", 48, radius, profile)
        return settings
    }

    /// Text drawn a row at a time from its glyphs, sized to the ink and on a larger canvas.
    @Test(arguments: [LoftProfile.liquid, .round])
    func textBandsEqualTheWholeImage(_ profile: LoftProfile) throws {
        var settings = Self.hgWave(profile, radius: 5)
        for canvas in [nil, (260, 190)] as [(Int, Int)?] {
            settings.width = canvas?.0
            settings.height = canvas?.1
            let whole = try TitleRenderer.render(settings).image
            for band in [1, 13, 500] {
                let (image, title) = try Self.streamed(settings, bandHeight: band)
                #expect(title.width == whole.width && title.height == whole.height)
                #expect(image.pixels.count == whole.pixels.count
                        && zip(image.pixels, whole.pixels).allSatisfy { Self.levels($0, $1) <= (profile == .liquid ? 0 : 1) },
                        "\(profile), band \(band), canvas \(String(describing: canvas))")
            }
        }
    }

    /// A scene's layers stream band by band, together, to the pixels of the layers painted
    /// whole: over a colour, a gradient and nothing, with styles, an opacity and a moved layer.
    @Test func layeredBandsEqualTheWholeImage() throws {
        let layers = #"{"name": "name", "text": "Jane Doe", "size": 60, "material": "gold"}, "#
            + #"{"name": "role", "below": "name", "gap": 10, "text": "Director", "size": 30, "material": "chrome", "opacity": 0.7}, "#
            + #"{"text": "Hg", "size": 50, "anchor": "top-right", "shiftX": -7.5, "outerGlow": {"size": 6}}"#
        let tops = [##""width": 420, "height": 260, "anchor": "bottom-left", "dropShadow": {"distance": 5, "size": 8}"##,
                    ##""width": 420, "height": 260, "background": "#203040""##,
                    ##""width": 420, "height": 260, "backgroundGradient": {"colors": ["#102030", "#a05020"]}, "##
                        + ##""pointLights": [{"x": 100, "y": 60, "color": "#ff8040"}]"##]
        for top in tops {
            var settings = RenderSettings()
            try SceneFile.load(json: Array("{\(top), \"layers\": [\(layers)]}".utf8), name: "s.json", into: &settings)
            let whole = try TitleRenderer.render(settings)
            for band in [1, 17, 1000] {
                let (image, title) = try Self.streamed(settings, bandHeight: band)
                let differing = zip(image.pixels, whole.image.pixels).indices(where: { $0 != $1 }).count
                #expect(image.width == whole.width && image.height == whole.height && differing == 0,
                        "band \(band), \(top): \(differing) pixels differ")
                #expect(title.warnings.map(\.message) == whole.warnings.map(\.message))
            }
        }
    }

    /// A vine streams with its text, drawn into the rows a few at a time, to the pixels of
    /// the whole mask with the vine drawn in: under, over, and along points that leave the canvas.
    @Test func vinedBandsEqualTheWholeImage() throws {
        var settings = RenderSettings()
        settings.text = "Vine"
        settings.size = 60
        (settings.width, settings.height) = (360, 240)
        let plain = try TitleRenderer.render(settings).image
        for route in [Vine.Route.underline, .arc, .points([SIMD2(-20, 200), SIMD2(180, 150), SIMD2(400, 236)])] {
            var vine = Vine()
            (vine.route, vine.seed) = (route, 7)
            settings.vine = vine
            let whole = try TitleRenderer.render(settings).image
            #expect(whole.pixels != plain.pixels, "\(route): the vine is drawn")
            for band in [1, 19, 1000] {
                let (image, _) = try Self.streamed(settings, bandHeight: band)
                let differing = zip(image.pixels, whole.pixels).indices(where: { $0 != $1 }).count
                #expect(image.width == whole.width && image.height == whole.height && differing == 0,
                        "\(route), band \(band): \(differing) pixels differ")
            }
        }
    }

    /// An engraved bevel (`bevel: down`) streams to the whole render's pixels, and differs from a raised one.
    @Test func engravedBevelStreamsToTheSamePixels() throws {
        var settings = RenderSettings()
        settings.text = "Hg"
        settings.size = 48
        settings.radius = 5
        settings.bevel = .down
        let whole = try TitleRenderer.render(settings).image
        let (image, _) = try Self.streamed(settings, bandHeight: 13)
        let differing = zip(image.pixels, whole.pixels).filter { $0 != $1 }.count
        #expect(image.pixels.count == whole.pixels.count && differing == 0, "\(differing) pixels differ")
        settings.bevel = .up
        #expect(try Self.streamed(settings, bandHeight: 13).0.pixels != image.pixels, "the engraved bevel shades otherwise")
    }

    /// A title of the mask at `url`, and a text title on a 200×150 canvas.
    static func maskAndText(_ url: URL) -> [RenderSettings] {
        var mask = RenderSettings()
        mask.mask = url.path
        mask.radius = 6
        var text = RenderSettings()
        text.text = "Hg"
        text.size = 48
        text.radius = 5
        text.width = 200
        text.height = 150
        return [mask, text]
    }

    /// Point lights and a gradient backdrop are applied band by band: the streamed
    /// title is the whole render's, pixel for pixel, for a mask and for text.
    @Test func pointLightsAndGradientsStreamToTheSamePixels() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("m.png")
        try Self.write(Self.maskImage(width: 151, height: 113, alpha: true), to: url)
        let lights = [PointLight(x: 40, y: 30, color: RGBColor(r: 1, g: 0.2, b: 0.1), intensity: 0.9, range: 90),
                      PointLight(x: 120, y: 90, color: RGBColor(r: 0.1, g: 0.4, b: 1), intensity: 0.7, range: 60)]
        let gradient = BackgroundGradient(gradient: Gradient(stops: [.init(color: RGBColor(r: 0.9, g: 0.1, b: 0.3), location: 0),
                                                                     .init(color: RGBColor(r: 0.1, g: 0.1, b: 0.6), location: 1)]),
                                          startPoint: [0, 0.2], endPoint: [1, 0.9])
        var cases: [(String, RenderSettings)] = []
        for (name, lit, graded, background) in [("lights", true, false, nil), ("lights on black", true, false, RGBColor.black),
                                                 ("gradient", false, true, nil), ("both", true, true, nil)]
            as [(String, Bool, Bool, RGBColor?)] {
            for var settings in Self.maskAndText(url) {
                settings.pointLights = lit ? lights : []
                settings.backgroundGradient = graded ? gradient : nil
                settings.background = background
                cases.append(("\(name), \(settings.mask == nil ? "text" : "mask")", settings))
            }
        }
        for (name, settings) in cases {
            let whole = try TitleRenderer.render(settings).image
            for band in [1, 7, 40, 1000] {
                let (image, title) = try Self.streamed(settings, bandHeight: band)
                #expect(title.width == whole.width && title.height == whole.height)
                let differing = zip(image.pixels, whole.pixels).indices(where: { $0 != $1 })
                #expect(image.pixels.count == whole.pixels.count && differing.isEmpty,
                        "\(name), band \(band): \(differing.count) pixels differ")
            }
        }
    }

    /// A moved or zoomed title streams (it was rendered whole, in memory, at any size): its
    /// region placed band by band (`PlacedBands`) is the whole render's, pixel for pixel,
    /// shrunk, enlarged, moved by whole and by part pixels, cut at the canvas's edge and
    /// wholly off it, lit, with a shadow, for a mask and for text.
    @Test func movedAndZoomedTitlesStreamToTheSamePixels() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("m.png")
        try Self.write(Self.maskImage(width: 151, height: 113, alpha: true), to: url)
        let placements: [(shiftX: Double, shiftY: Double, zoom: Double)] = [
            (0, 0, 0.6), (0, 0, 2.7), (3, -4, 1), (2.5, 1.25, 1), (-60, 30, 1.4), (500, 0, 1), (7, 3, 16),
        ]
        for var settings in Self.maskAndText(url) {
            for (i, p) in placements.enumerated() {
                (settings.shiftX, settings.shiftY, settings.zoom) = (p.shiftX, p.shiftY, p.zoom)
                settings.pointLights = i % 2 == 0 ? [PointLight(x: 40, y: 30, color: RGBColor(r: 1, g: 0.2, b: 0.1),
                                                                intensity: 0.9, range: 90)] : []
                var shadow = DropShadow()
                (shadow.distance, shadow.size) = (5, 4)
                settings.look.styles.dropShadow = i % 3 == 0 ? shadow : nil
                let whole = try TitleRenderer.render(settings).image
                for band in [1, 7, 1000] {
                    let (image, title) = try Self.streamed(settings, bandHeight: band)
                    let differing = zip(image.pixels, whole.pixels).indices(where: { $0 != $1 })
                    #expect(title.width == whole.width && title.height == whole.height && differing.isEmpty,
                            "\(settings.mask == nil ? "text" : "mask") \(p), band \(band): \(differing.count) pixels differ")
                }
            }
        }
    }

    /// A radius wider than the ink and the bands, and an empty mask.
    @Test func wideRadiusAndEmptyMask() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("m.png")
        try Self.write(Self.maskImage(width: 90, height: 70, alpha: true), to: url)
        var settings = RenderSettings()
        settings.mask = url.path
        for profile in LoftProfile.allCases {
            settings.profile = profile
            settings.radius = 40
            let whole = try TitleRenderer.render(settings).image
            let image = try Self.streamed(settings, bandHeight: 5).0
            #expect(image.pixels.count == whole.pixels.count
                    && zip(image.pixels, whole.pixels).allSatisfy { Self.levels($0, $1) <= (profile == .liquid ? 0 : 1) },
                    "\(profile)")
        }
        try Self.write(Image(width: 50, height: 40, repeating: .clear), to: url)
        let (image, title) = try Self.streamed(settings, bandHeight: 7)
        #expect(image.pixels.allSatisfy { $0 == .clear } && image.width == 50 && image.height == 40)
        #expect(title.warnings.count == 1)
    }

    /// Ancillary chunks (a recipe) follow the header of a streamed PNG, which libpng reads.
    @Test func ancillaryChunksFollowTheHeader() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("m.png")
        try Self.write(Self.maskImage(width: 60, height: 50, alpha: true), to: url)
        var settings = RenderSettings()
        settings.mask = url.path
        let chunk = PNGChunk(type: "tEXt", data: Array("Comment\u{0}streamed".utf8))
        let outcome = try TitleRenderer.renderPNG(settings, compression: .fast, ancillary: [chunk], force: true, output: nil)
        guard case .streamed(let title) = outcome else { Issue.record("not streamed"); return }
        let bytes = title.bytes
        // Signature 8, IHDR 25, then the chunk: length, type, data.
        #expect(Array(bytes[33..<41]) == [0, 0, 0, UInt8(chunk.data.count)] + Array("tEXt".utf8))
        #expect(Array(bytes[41..<(41 + chunk.data.count)]) == chunk.data)
        #expect(try same(PNGFile.decode(bytes, name: "s", role: "output").pixels, TitleRenderer.render(settings).image.pixels))
    }

    /// The streamed sink owns its file: it appears whole at the end, with the bytes the
    /// sink makes in memory; a render that fails (a damaged mask) leaves nothing, not
    /// even a temporary file. (A write failing midway: `HostileOutputTests`.)
    @Test func streamedSinkWritesItsFileWholeOrNotAtAll() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mask = dir.appendingPathComponent("m.png"), out = dir.appendingPathComponent("out.png")
        try Self.write(Self.maskImage(width: 60, height: 50, alpha: false), to: mask)
        var settings = RenderSettings()
        settings.mask = mask.path
        let chunk = try SceneRecipe.pngChunk(SceneRecipe.json(for: settings))
        let kept = try TitleRenderer.renderPNG(settings, compression: .fast, ancillary: [chunk], force: true, output: nil)
        let written = try TitleRenderer.renderPNG(settings, compression: .fast, ancillary: [chunk], force: true,
                                                  output: .path(out.path))
        guard case .streamed(let inMemory) = kept, case .streamed = written else { Issue.record("not streamed"); return }
        #expect(try [UInt8](Data(contentsOf: out)) == inMemory.bytes)
        #expect(try SceneRecipe.read(fromPNGFile: out.path) == SceneRecipe.json(for: settings))
        // A mask cut short.
        let whole = try [UInt8](Data(contentsOf: mask))
        let failed = dir.appendingPathComponent("failed.png")
        try Data(whole[..<(whole.count * 3 / 4)]).write(to: mask)
        #expect(throws: MercurialError.self) {
            try TitleRenderer.renderPNG(settings, compression: .fast, force: true, output: .path(failed.path))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["m.png", "out.png"])
    }

    /// An in-memory PNG carries its ancillary chunks right after IHDR, whatever the compression.
    @Test(arguments: [PNGFile.Compression.fast, .small, .none])
    func pngSinkPutsAncillaryChunksAfterTheHeader(_ compression: PNGFile.Compression) throws {
        let image = Self.maskImage(width: 40, height: 30, alpha: true)
        let plain = try PNGSink(compression: compression).encode(image)
        let chunk = PNGChunk(type: "tEXt", data: Array("Comment\u{0}in memory".utf8))
        let bytes = try PNGSink(compression: compression, ancillary: [chunk]).encode(image)
        let walk = PNGFile.chunks(of: bytes).chunks
        #expect(walk.map(\.type).prefix(2) == ["IHDR", "tEXt"] && Array(walk[1].data) == chunk.data)
        #expect(bytes.count == plain.count + 12 + chunk.data.count)
        #expect(Array(bytes[..<33]) == Array(plain[..<33]) && Array(bytes[(33 + 12 + chunk.data.count)...]) == Array(plain[33...]))
        #expect(try same(PNGFile.decode(bytes, name: "p", role: "output").pixels, image.pixels))
    }

    /// A large shading image is box-filtered to a small lookup as it is read.
    @Test func largeShadingImageIsDownsampled() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("s.png")
        let image = Image(width: 2050, height: 1500, pixels: [RGBA8](repeating: RGBA8(r: 250, g: 20, b: 30, a: 255), count: 2050 * 750)
                          + [RGBA8](repeating: RGBA8(r: 10, g: 20, b: 30, a: 255), count: 2050 * 750))
        try Self.write(image, to: url)
        let lookup = try ShadingLookup.read(url.path)
        #expect(lookup.width == 410 && lookup.height == 300)   // ÷5
        #expect(lookup.color(normalX: 0, normalY: 0.6).r > 0.97)    // the top half, red
        #expect(lookup.color(normalX: 0, normalY: -0.6).r < 0.05)
        // A small one is kept whole.
        try Self.write(Image(width: 300, height: 200, repeating: .clear), to: url)
        #expect(try ShadingLookup.read(url.path).width == 300)
    }
}

/// Peak memory of the streamed render, measured in a child process.
@Suite struct StreamingMemoryTests {
    @Test func largeMaskRendersInBoundedMemory() async throws {
        try await CLI.withTemporaryDirectory { dir in
            // 2560² of ink: in memory this takes about 300 MB.
            let side = 2560
            try StreamingRenderTests.write(CLI.stripedMask(side: side), to: dir.appendingPathComponent("big.png"))
            let r = try await CLI.shell("/usr/bin/time -f 'peak %M' \"$M\" render --mask big.png -o out.png -q",
                                        in: dir, timeout: .seconds(120))
            #expect(r.status == 0, "\(r.stderr)")
            let peak = r.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") }.flatMap { Int($0.dropFirst(5)) }
            let kb = try #require(peak, "no peak in \(r.stderr)")
            #expect(kb < 100_000, "peak \(kb / 1024) MB rendering a 2560² mask")
            let out = try CLI.readPNG(dir.appendingPathComponent("out.png"))
            #expect(out.width == side && out.height == side)
            #expect(CLI.temporaryFiles(in: dir).isEmpty)
        }
    }

    /// A scene's layers and a vine stream as a plain title does: an 8K lower third peaks at
    /// 79 MB (debug build; 303 MB painted whole in memory, release), a 6000×2200 vined title at
    /// 66 MB (128 MB lofted whole, release).
    @Test(arguments: [
        (##"{"width": 7680, "height": 4320, "anchor": "bottom-left", "margin": "safe", "radius": 24, "dropShadow": {"distance": 24, "size": 40}, "##
            + ##""layers": [{"name": "name", "text": "Jane Doe", "size": 384, "material": "gold"}, "##
            + ##"{"name": "role", "below": "name", "gap": 72, "text": "Director of Photography", "size": 176, "material": "chrome"}]}"##,
         150_000),
        (##"{"text": "Mercurial", "size": 1000, "width": 6000, "height": 2200, "background": "#101018", "##
            + ##""vine": {"seed": 7, "width": 35, "branchSpacing": 200, "branchLength": [90, 250], "leafSize": 100}}"##,
         100_000),
    ])
    func layersAndVinesRenderInBoundedMemory(_ scene: String, _ limit: Int) async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(scene.utf8).write(to: dir.appendingPathComponent("scene.json"))
            let r = try await CLI.shell("/usr/bin/time -f 'peak %M' \"$M\" render --params scene.json -o out.png -q",
                                        in: dir, timeout: .seconds(240))
            #expect(r.status == 0, "\(r.stderr)")
            let peak = r.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") }.flatMap { Int($0.dropFirst(5)) }
            let kb = try #require(peak, "no peak in \(r.stderr)")
            #expect(kb < limit, "peak \(kb / 1024) MB")
            #expect(CLI.temporaryFiles(in: dir).isEmpty)
        }
    }

    /// A mask damaged halfway down fails with one error line and leaves no output.
    @Test func damagedLargeMaskLeavesNothing() async throws {
        try await CLI.withTemporaryDirectory { dir in
            var pixels = [RGBA8](repeating: .clear, count: 2400 * 2400)
            for i in pixels.indices {
                let x = i % 2400, y = i / 2400
                pixels[i].a = UInt8((x ^ y) & 0xff)
            }
            let image = Image(width: 2400, height: 2400, pixels: pixels)
            var bytes = try PNGSink().encode(image)
            // Corrupt deflate data past the middle (the chunk's CRC then fails too).
            for i in (bytes.count * 2 / 3)..<(bytes.count * 2 / 3 + 64) { bytes[i] ^= 0x5a }
            try Data(bytes).write(to: dir.appendingPathComponent("bad.png"))
            let r = try await CLI.run(["render", "--mask", "bad.png", "-o", "out.png"], in: dir)
            #expect(r.status == 1)
            #expect(r.stderrLines.count == 1 && r.stderrLines.first?.hasPrefix("error: mask 'bad.png'") == true, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.png").path))
            #expect(CLI.temporaryFiles(in: dir).isEmpty)
        }
    }
}

extension Zip2Sequence {
    /// The offsets at which `predicate` holds.
    func indices(where predicate: (Sequence1.Element, Sequence2.Element) -> Bool) -> [Int] {
        enumerated().compactMap { predicate($0.element.0, $0.element.1) ? $0.offset : nil }
    }
}
