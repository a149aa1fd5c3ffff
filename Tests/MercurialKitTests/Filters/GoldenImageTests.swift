import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite struct GoldenImageTests {
    static let cases: [(file: String, text: String, material: String?, background: String?, profile: LoftProfile)] = [
        ("golden-mercurial.png", "Mercurial", nil, nil, .chisel),
        ("golden-chrome.png", "Chrome", "chrome", "#202020", .chisel),
        ("golden-liquid.png", "Mercurial", nil, nil, .liquid),
    ]

    /// Runs `mercurial render` as the golden image was made and compares the PNG it
    /// wrote, channel by channel: the mean difference must stay under 0.5 levels and
    /// no pixel may be off by more than 24 (anti-aliasing and float rounding move a
    /// few edge pixels; a changed look, or content shifted by a pixel, moves many).
    @Test(arguments: cases.map(\.file))
    func writtenPNGMatchesTheGoldenImage(_ file: String) async throws {
        let spec = try #require(Self.cases.first { $0.file == file })
        try await CLI.withTemporaryDirectory { dir in
            var arguments = ["render", spec.text, "--size", "72", "--profile", spec.profile.rawValue, "-o", "written.png", "--quiet"]
            if let material = spec.material { arguments += ["--material", material] }
            if let background = spec.background { arguments += ["--background", background] }
            let r = try await CLI.run(arguments, in: dir)
            #expect(r.termination == .exit && r.status == 0 && r.stderr.isEmpty, "\(r)")
            let written = try CLI.readPNG(dir.appendingPathComponent("written.png"))
            let golden = try PNGFile.read(fixture(file), role: "golden image")
            #expect(written.width == golden.width && written.height == golden.height)
            guard written.width == golden.width && written.height == golden.height else { return }
            var total = 0, worst = 0, off = 0
            for (a, b) in zip(written.pixels, golden.pixels) {
                for d in [Int(a.r) - Int(b.r), Int(a.g) - Int(b.g), Int(a.b) - Int(b.b), Int(a.a) - Int(b.a)] {
                    total += abs(d)
                    worst = max(worst, abs(d))
                    if abs(d) > 8 { off += 1 }
                }
            }
            let mean = Double(total) / Double(written.count * 4)
            #expect(mean < 0.5, "mean channel difference \(mean)")
            #expect(worst <= 24, "largest channel difference \(worst), \(off) channels off by more than 8")
        }
    }

    /// A region pasted into its canvas lands exactly at its origin, and every encoding
    /// of the canvas decodes to the same pixels.
    @Test func theCanvasIsTheRegionAtItsOrigin() throws {
        let content = Image(width: 3, height: 2, pixels: (0..<6).map { RGBA8(r: UInt8($0 + 1), g: 0, b: 0, a: 255) })
        let fill = RGBA8(r: 0, g: 0, b: 9, a: 255)
        let canvas = CanvasRegion(width: 7, height: 5, content: content, originX: 4, originY: 2, fill: fill)
        let image = canvas.image
        for y in 0..<5 {
            for x in 0..<7 {
                let inside = (4..<7).contains(x) && (2..<4).contains(y)
                #expect(image[x, y] == (inside ? content[x - 4, y - 2] : fill), "(\(x), \(y))")
            }
        }
        for compression in PNGFile.Compression.allCases {
            let decoded = try PNGFile.decode(PNGSink(compression: compression).encode(canvas), name: "canvas", role: "test")
            #expect(same(decoded.pixels, image.pixels), "\(compression)")
        }
    }
}
