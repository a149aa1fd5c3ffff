import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite struct SurfaceMapTests {
    /// The loft of an anti-aliased disc given as a mask file.
    func discSurface(size: Int, radius: Double, bevel: BevelDirection = .up, in dir: URL) throws -> TitleSurface {
        let mask = discMask(size: size, centre: Double(size) / 2, radius: radius)
        let image = mask.map { c in RGBA8(r: 255, g: 255, b: 255, a: UInt8((c * 255).rounded())) }
        let path = dir.appendingPathComponent("disc.png").path
        try Data(PNGSink().encode(image)).write(to: URL(fileURLWithPath: path))
        var settings = RenderSettings()
        settings.mask = path
        settings.bevel = bevel
        return try TitleSurface.make(settings)
    }

    func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }

    @Test(arguments: NormalConvention.allCases)
    func aDiscsNormalMapPointsRadiallyOut(_ convention: NormalConvention) throws {
        try withTemporaryDirectory { dir in
            let surface = try discSurface(size: 160, radius: 60, in: dir)
            let png = try surface.normalMapPNG(convention: convention, bitDepth: 8)
            #expect(png[24] == 8 && png[25] == 2, "8-bit RGB")
            let map = try PNGFile.decode(png, name: "normal map", role: "test")
            var errors: [Double] = []
            for y in 0..<160 {
                for x in 0..<160 {
                    let dx = Double(x) + 0.5 - 80, dy = Double(y) + 0.5 - 80
                    let r = (dx * dx + dy * dy).squareRoot()
                    guard r > 45 && r < 58 else { continue }
                    let p = map[x, y]
                    let nx = Double(p.r) - 127.5, ng = Double(p.g) - 127.5
                    // OpenGL: green up (image y down, so up is −dy); DirectX: green down.
                    let wantY = convention == .opengl ? -dy : dy
                    var delta = atan2(ng, nx) - atan2(wantY, dx)
                    delta = abs(remainder(delta, 2 * .pi)) * 180 / .pi
                    errors.append(delta)
                    #expect(p.b > 128, "pointing out of the surface")
                }
            }
            let mean = errors.reduce(0, +) / Double(errors.count)
            #expect(errors.count > 1000 && mean < 3, "\(convention): mean azimuth error \(mean)° over \(errors.count) pixels")
            // Outside the disc: the flat normal.
            #expect(map[2, 2] == RGBA8(r: 128, g: 128, b: 255, a: 255))
        }
    }

    @Test func aDiscsHeightMapPeaksAtItsCentre() throws {
        try withTemporaryDirectory { dir in
            // A small disc under a wide radius is a dome: highest in the middle.
            let surface = try discSurface(size: 64, radius: 12, in: dir)
            let png = try surface.heightMapPNG()
            #expect(png[24] == 16 && png[25] == 0, "16-bit grey")
            let map = try PNGFile.decode(png, name: "height map", role: "test")
            let centre = map[32, 32].r
            #expect(map.pixels.allSatisfy { $0.r <= centre }, "nothing higher than the centre")
            #expect(map[40, 32].r < centre && map[32, 24].r < centre && map[2, 2].r == 0)
        }
    }

    /// An engraved title's height map is the raised one upside down, as its normals are
    /// turned: the untouched surface white, the disc's middle the deepest point.
    @Test func anEngravedDiscsHeightMapIsTheRaisedOneInverted() throws {
        try withTemporaryDirectory { dir in
            let raised = try discSurface(size: 64, radius: 12, in: dir)
            let engraved = try discSurface(size: 64, radius: 12, bevel: .down, in: dir)
            let up = raised.heightSamples(), down = engraved.heightSamples()
            #expect(up.pixels.max()! > 30000, "a raised dome: \(up.pixels.max()!)")
            let mismatched = zip(up.pixels, down.pixels).filter { Int($0) + Int($1) != 65535 }.count
            #expect(mismatched == 0, "\(mismatched) samples are not the raised map inverted")
            // As a PNG: the flat surface white, the disc's middle the deepest point.
            let map = try PNGFile.decode(engraved.heightMapPNG(), name: "height map", role: "test")
            let centre = map[32, 32].r
            #expect(map[2, 2].r == 255 && map.pixels.allSatisfy { $0.r >= centre } && centre < 128, "centre \(centre)")
        }
    }

    @Test func renderWritesEachMapBesideTheTitle() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["render", "Hi", "--size", "60", "--emit", "color,height,normal",
                                       "--normal-depth", "16", "-o", "t.png"], in: dir)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
            for name in ["t.png", "t-height.png", "t-normal.png"] {
                #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path), "\(name)")
            }
            let normal = [UInt8](try Data(contentsOf: dir.appendingPathComponent("t-normal.png")))
            #expect(normal[24] == 16 && normal[25] == 2, "16-bit RGB")
            let title = try CLI.readPNG(dir.appendingPathComponent("t.png"))
            let height = try CLI.readPNG(dir.appendingPathComponent("t-height.png"))
            #expect(title.width == height.width && title.height == height.height)
            // One map alone takes the output's own name.
            let one = try await CLI.run(["render", "Hi", "--size", "60", "--emit", "height", "-o", "h.png", "-q"], in: dir)
            #expect(one.status == 0 && FileManager.default.fileExists(atPath: dir.appendingPathComponent("h.png").path))
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("h-height.png").path))
        }
    }
}
