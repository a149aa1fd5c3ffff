import Foundation
import Testing
@testable import MercurialKit

/// Lines break where UAX #14 allows, never before a dash or closing punctuation.
@Suite struct LineBreakTests {
    static let card = "Launch 🚀 día — 日本語 ✓"

    @Test func unitsEndAtSpacesAndBetweenIdeographs() {
        let units = LineBreaks.units(Self.card)
        #expect(units.map(\.text) == ["Launch", "🚀", "día —", "日", "本", "語", "✓"], "\(units)")
        #expect(units.map(\.spaced) == [true, true, true, false, false, true, false])
        // Runs of spaces are one; spaces at the start are dropped; a hyphen may end a line.
        #expect(LineBreaks.units("  big   well-known") == [.init(text: "big", spaced: true), .init(text: "well-", spaced: false),
                                                          .init(text: "known", spaced: false)])
        #expect(LineBreaks.units("") == [])
    }

    @Test func noUnitStartsWithADashOrClosingPunctuation() {
        for text in ["día — 日本語", "a—b – c ― d", "タイトルを、ここに。句読点は「行頭」に来ない", "(Hello) world! «oui» ?", "100 % — 5 €"] {
            for unit in LineBreaks.units(text) {
                let first = unit.text.unicodeScalars.first!
                #expect(!(0x2012...0x2015).contains(first.value), "'\(unit.text)' in '\(text)'")
                #expect(!"、。」)!?»".unicodeScalars.contains(first), "'\(unit.text)' in '\(text)'")
            }
        }
    }

    @Test func theLaunchCardHasItsEmojiAndNoLineStartsWithADash() throws {
        var layout = TextLayout(text: Self.card, fontPath: try FontLibrary.resolve("rounded"))
        layout.maxLines = 5
        // Every canvas width from 400 to 1600 px: wherever the lines break, none starts with "—".
        var breaks: Set<String> = []
        for width in stride(from: 400, through: 1600, by: 50) {
            let placement = try TextMask.place(layout, width: width, height: 630, margin: 14)
            #expect(placement.warnings.isEmpty, "\(width): \(placement.warnings)")
            let lines = placement.text.split(separator: "\n")
            for line in lines { #expect(!line.hasPrefix("—"), "\(width) px: \(lines)") }
            breaks.insert(lines.joined(separator: " | "))
        }
        #expect(breaks.count >= 3, "the widths wrap the card several ways: \(breaks)")
        // The rocket is drawn: Noto Color Emoji's bitmap, as a silhouette with ink.
        let placement = try TextMask.place(layout, width: 1200, height: 630, margin: 14)
        #expect(placement.run.missing.isEmpty)
        #expect(placement.fallbackFonts.contains { $0.hasSuffix("NotoColorEmoji.ttf") }, "\(placement.fallbackFonts)")
    }

    @Test func anEmojiIsASilhouetteAsWideAsItsAdvance() throws {
        let result = try TextMask.render(try layout("🚀", size: 160), margin: 0)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let ink = try #require(result.mask.inkBounds(threshold: 0.5))
        // Noto's rocket fills most of a 1.17 em advance (its 136 px bitmap at a 109 px strike).
        #expect(ink.width > 120 && ink.width < 200 && ink.height > 120 && ink.height < 200, "\(ink)")
        // Solid inside (the alpha), anti-aliased at the edge.
        #expect(result.mask.pixels.contains { $0 > 0.99 } && result.mask.pixels.contains { $0 > 0.1 && $0 < 0.9 })
        // Twice the size, twice the ink across: the bitmap is scaled, not drawn at its strike.
        let large = try TextMask.render(try layout("🚀", size: 320), margin: 0)
        let wide = try #require(large.mask.inkBounds(threshold: 0.5))
        #expect(abs(Double(wide.width) / Double(ink.width) - 2) < 0.05, "\(wide.width) against \(ink.width)")
    }

    func clamped(_ text: String, size: Double = 60, width: Int = 600, height: Int = 300, maxLines: Int = 2) throws -> TextPlacement {
        var l = try layout(text, size: size)
        (l.maxLines, l.overflow) = (maxLines, .ellipsis)
        return try TextMask.place(l, width: width, height: height, margin: 14)
    }

    @Test func textTooLongIsCutWithAnEllipsisAtItsSize() throws {
        let fox = "The quick brown fox jumps over the lazy dog and keeps on running far away"
        let cut = try clamped(fox)
        let lines = cut.text.split(separator: "\n")
        #expect(lines.count == 2 && lines[1].hasSuffix("…") && !lines[0].hasSuffix("…"), "\(lines)")
        #expect(cut.size == 60, "kept at its size: \(cut.size)")
        #expect(cut.inkSize.width <= 600 - 28, "\(cut.inkSize)")
        #expect(cut.warnings.count == 1 && cut.warnings[0].message.contains("cut with an ellipsis"), "\(cut.warnings)")
        // As much as fits: the last line with one more word and the mark is wider than the room.
        let shown = lines[1].dropLast()
        let next = fox.split(separator: " ")[lines.joined(separator: " ").split(separator: " ").count]
        let longer = try TextMask.render(try layout(shown + " " + next + "…", size: 60), margin: 0).mask
        #expect(longer.width > 600 - 28, "'\(shown) \(next)…' is \(longer.width) px")
        // The default shrinks the same text to fit instead.
        var shrunk = try layout(fox, size: 60)
        shrunk.maxLines = 2
        #expect(try TextMask.place(shrunk, width: 600, height: 300, margin: 14).size < 60)
    }

    @Test func aWordWiderThanTheLineIsCutInsideIt() throws {
        let cut = try clamped("Supercalifragilisticexpialidocious", size: 80, width: 400, height: 200, maxLines: 1)
        #expect(cut.text.hasPrefix("Super") && cut.text.hasSuffix("…") && cut.text.count < 20, "\(cut.text)")
        #expect(cut.size == 80 && cut.inkSize.width <= 400 - 28)
        // A canvas too low for maxLines lines takes as many as fit.
        let low = try clamped("新しい日本語のタイトルを、ここに。句読点は行頭に来ない", size: 80, width: 600, height: 200, maxLines: 3)
        #expect(!low.text.contains("\n") && low.text.hasSuffix("…"), "\(low.text)")
        // Text that fits is left whole, with no warning.
        let fits = try clamped("Short and sweet")
        #expect(fits.text == "Short and sweet" && fits.warnings.isEmpty)
    }

    @Test func resamplingKeepsTheTotal() {
        // A tent filter's weights sum to one inside; shrinking by 3 averages three samples.
        let taps = ResampleTaps(source: 30, scale: 1.0 / 3, shift: 0)
        var out = [Float](repeating: 0, count: taps.count)
        out.withUnsafeMutableBufferPointer { taps.apply(count: taps.count, into: $0.baseAddress!, stride: 1) { _ in 90 } }
        #expect(taps.count == 10)
        #expect(out[3...6].allSatisfy { abs($0 - 90) < 0.01 }, "\(out)")
        let up = ResampleTaps(source: 2, scale: 4, shift: 0)
        var ramp = [Float](repeating: 0, count: up.count)
        ramp.withUnsafeMutableBufferPointer { up.apply(count: up.count, into: $0.baseAddress!, stride: 1) { Float($0 * 100) } }
        #expect(ramp[3] < ramp[4] && ramp[4] < ramp[5], "enlarging interpolates: \(ramp)")
    }
}
