import Foundation
import Testing
@testable import MercurialKit

@Suite struct GoldenImageTests {
    static let cases: [(file: String, text: String, material: String?, background: String?, profile: LoftProfile)] = [
        ("golden-mercurial.png", "Mercurial", nil, nil, .chisel),
        ("golden-chrome.png", "Chrome", "chrome", "#202020", .chisel),
        ("golden-liquid.png", "Mercurial", nil, nil, .liquid),
    ]

    /// Renders as the golden image was made and compares channel by channel: the mean
    /// difference must stay under 0.5 levels and no pixel may be off by more than 24
    /// (anti-aliasing and float rounding move a few edge pixels, a changed look moves many).
    @Test(arguments: cases.map(\.file))
    func renderMatchesTheGoldenImage(_ file: String) throws {
        let spec = try #require(Self.cases.first { $0.file == file })
        var settings = RenderSettings()
        if let material = spec.material { try Materials.apply(material, to: &settings) }
        settings.text = spec.text
        settings.size = 72
        settings.background = spec.background.flatMap(RGBColor.parse)
        settings.profile = spec.profile
        let rendered = try TitleRenderer.render(settings).image
        let golden = try PNGFile.read(fixture(file), role: "golden image")
        #expect(rendered.width == golden.width && rendered.height == golden.height)
        guard rendered.width == golden.width && rendered.height == golden.height else { return }
        var total = 0, worst = 0, off = 0
        for (a, b) in zip(rendered.pixels, golden.pixels) {
            for d in [Int(a.r) - Int(b.r), Int(a.g) - Int(b.g), Int(a.b) - Int(b.b), Int(a.a) - Int(b.a)] {
                total += abs(d)
                worst = max(worst, abs(d))
                if abs(d) > 8 { off += 1 }
            }
        }
        let mean = Double(total) / Double(rendered.count * 4)
        #expect(mean < 0.5, "mean channel difference \(mean)")
        #expect(worst <= 24, "largest channel difference \(worst), \(off) channels off by more than 8")
    }
}
