import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

func bundledFont(_ name: String) throws -> String { try FontLibrary.resolve(name) }

func layout(_ text: String, font: String = "rounded", size: Double = 100) throws -> TextLayout {
    var l = TextLayout(text: text, fontPath: try FontLibrary.resolve(font))
    l.size = size
    return l
}

@Suite struct TextMaskTests {
    @Test func canvasIsInkPlusMarginOnEverySide() throws {
        let result = try TextMask.render(try layout("Mercury"), margin: 14)
        let ink = try #require(result.mask.inkBounds(threshold: 0))
        #expect(ink.minX == 14 && ink.minY == 14)
        #expect(result.mask.width - 1 - ink.maxX == 14)
        #expect(result.mask.height - 1 - ink.maxY == 14)
        #expect(result.warnings.isEmpty)
        // Anti-aliased: partial coverage exists, and the strokes are solid inside.
        #expect(result.mask.pixels.contains { $0 > 0.1 && $0 < 0.9 })
        #expect(result.mask.pixels.contains { $0 == 1 })
    }

    @Test func inkHeightFollowsTheEmSize() throws {
        let small = try TextMask.render(try layout("H", size: 100), margin: 0).mask
        let large = try TextMask.render(try layout("H", size: 200), margin: 0).mask
        let ratio = Double(large.height) / Double(small.height)
        #expect(abs(ratio - 2) < 0.05, "cap height ratio \(ratio)")
    }

    @Test func kerningTightensAV() throws {
        var kerned = try layout("AVAVAV", font: "serif", size: 120)
        var plain = kerned
        plain.kerning = false
        kerned.kerning = true
        let withKerning = try TextMask.render(kerned, margin: 0).mask.width
        let without = try TextMask.render(plain, margin: 0).mask.width
        #expect(withKerning < without - 20, "kerned \(withKerning) px vs unkerned \(without) px")
    }

    @Test func letterSpacingWidensEachGap() throws {
        var spaced = try layout("ABCD", size: 80)
        let base = try TextMask.render(spaced, margin: 0).mask.width
        spaced.letterSpacing = 10
        let wider = try TextMask.render(spaced, margin: 0).mask.width
        #expect(wider - base == 30, "three gaps of 10 px: \(base) → \(wider)")
    }

    @Test func multipleLinesStackAndAlign() throws {
        let one = try TextMask.render(try layout("Wide line", size: 80), margin: 0).mask
        var two = try layout("Wide line\\nI", size: 80)
        let centred = try TextMask.render(two, margin: 0).mask
        #expect(centred.height > one.height * 2 - 20)
        #expect(centred.width == one.width)
        func columnOfSecondLine(_ mask: Mask) -> Int {
            let y = mask.height - 5
            return (0..<mask.width).first { mask[$0, y] > 0.5 } ?? -1
        }
        two.alignment = .left
        let left = columnOfSecondLine(try TextMask.render(two, margin: 0).mask)
        two.alignment = .right
        let right = columnOfSecondLine(try TextMask.render(two, margin: 0).mask)
        let centre = columnOfSecondLine(centred)
        #expect(left < centre && centre < right, "I at \(left), \(centre), \(right)")
        #expect(left < 20 && right > one.width - 40)
        // A real newline is the same as the two characters \n.
        var real = try layout("Wide line\nI", size: 80)
        real.alignment = .center
        #expect(try same(TextMask.render(real, margin: 0).mask.pixels, centred.pixels))
    }

    @Test func lineSpacingMovesTheSecondLine() throws {
        var l = try layout("A\\nB", size: 80)
        let normal = try TextMask.render(l, margin: 0).mask.height
        l.lineSpacing = 2
        let double = try TextMask.render(l, margin: 0).mask.height
        #expect(double > normal + 60)
    }

    @Test func fixedCanvasCentresAndShrinks() throws {
        let fits = try TextMask.render(try layout("Hi", size: 60), width: 400, height: 200, margin: 10)
        #expect(fits.canvasWidth == 400 && fits.canvasHeight == 200)
        #expect(fits.mask.width < 400 && fits.mask.height < 200, "only the ink and margin are drawn")
        #expect(fits.size == 60 && fits.warnings.isEmpty)
        let ink = try #require(fits.canvasMask.inkBounds(threshold: 0))
        #expect(abs((ink.minX + ink.maxX) / 2 - 200) <= 1 && abs((ink.minY + ink.maxY) / 2 - 100) <= 1)

        let shrunk = try TextMask.render(try layout("A long title", size: 300), width: 400, height: 100, margin: 10)
        #expect(shrunk.size < 300)
        let inkShrunk = try #require(shrunk.canvasMask.inkBounds(threshold: 0))
        #expect(inkShrunk.minX >= 10 && inkShrunk.maxX <= 389 && inkShrunk.minY >= 10 && inkShrunk.maxY <= 89)
        #expect(shrunk.warnings.contains { $0.message.contains("shrunk") })
    }

    @Test func missingGlyphsAreNamedOnce() throws {
        var l = try layout("Fly ✈ ✈", size: 60)
        l.fallback = false
        let result = try TextMask.render(l, margin: 4)
        #expect(result.warnings.count == 1)
        let message = try #require(result.warnings.first?.message)
        #expect(message.contains("✈") && message.contains("U+2708"))
    }

    @Test func emptyTextIsRefused() throws {
        for text in ["", "   ", "\n\t", "\\n"] {
            #expect(throws: MercurialError.self) { try TextMask.render(try layout(text), margin: 4) }
        }
    }

    @Test func arabicIsShapedRightToLeftWithLigatures() throws {
        let font = FontSet(primary: try FontFace(path: try FontLibrary.resolve("DejaVu Sans:bold")), fallback: false)
        // Lam + alef form one ligature glyph in DejaVu Sans.
        let ligature = try font.layOut(try layout("لا", font: "DejaVu Sans:bold", size: 80), size: 80)
        #expect(ligature.bitmaps.count == 1)
        // Right to left: the first letter, beh, is drawn right of the last, alef.
        let word = try font.layOut(try layout("با", font: "DejaVu Sans:bold", size: 80), size: 80)
        #expect(word.bitmaps.count == 2)
        let (alef, beh) = (word.bitmaps[0], word.bitmaps[1])   // visual order, left to right
        #expect(beh.left > alef.left)
        #expect(alef.height > beh.height, "the tall alef is on the left")
    }

    @Test func devanagariVowelSignIsReordered() throws {
        let path = try FontLibrary.resolve("Lohit Devanagari")
        let font = FontSet(primary: try FontFace(path: path), fallback: false)
        // कि: the i-sign (U+093F) follows KA in memory but is drawn before it.
        var l = TextLayout(text: "कि", fontPath: path)
        l.size = 100
        let run = try font.layOut(l, size: 100)
        #expect(run.missing.isEmpty)
        #expect(run.bitmaps.count == 2)
        let ka = try FontSet(primary: try FontFace(path: path), fallback: false).layOut({ var k = l; k.text = "क"; return k }(), size: 100).bitmaps[0]
        // Drawn first is the vowel sign, whose loop rises above KA's headline; KA comes second.
        #expect(abs(run.bitmaps[1].width - ka.width) <= 1)
        #expect(abs(run.bitmaps[0].width - ka.width) > 1 || run.bitmaps[0].top < ka.top - 5)
        #expect(run.bitmaps[0].top < run.bitmaps[1].top - 5, "vowel sign top \(run.bitmaps[0].top), KA top \(run.bitmaps[1].top)")
    }
}

/// Bands of rows holding ink, top to bottom: one per line of text.
func inkLines(_ mask: Mask) -> [ClosedRange<Int>] {
    var bands: [ClosedRange<Int>] = []
    var start: Int? = nil
    for y in 0...mask.height {
        let inked = y < mask.height && (0..<mask.width).contains { mask[$0, y] > 0 }
        if inked && start == nil { start = y }
        if !inked, let s = start { bands.append(s...(y - 1)); start = nil }
    }
    return bands
}

@Suite struct WordWrapTests {
    func wrapped(_ text: String, width: Int?, height: Int?, size: Double? = nil, maxLines: Int = 5) throws -> TextMaskResult {
        var l = try layout(text)
        l.size = size
        l.maxLines = maxLines
        return try TextMask.render(l, width: width, height: height, margin: 14)
    }

    @Test func theOriginalsTitleFillsItsCanvasInThreeLines() throws {
        let result = try wrapped("Flex Monkey Mercurial Text", width: 1060, height: 765)
        let lines = inkLines(result.mask)
        #expect(lines.count == 3, "\(lines)")
        // As large as fits: the ink reaches the margin on one side or the other.
        let ink = try #require(result.mask.inkBounds(threshold: 0))
        let fillsWidth = Double(ink.width) >= 0.95 * Double(1060 - 28)
        let fillsHeight = Double(result.mask.height - 28) >= 0.95 * Double(765 - 28)
        #expect(fillsWidth || fillsHeight, "ink \(ink.width)×\(ink.height) in 1032×737")
        #expect(result.size > 160, "grew to \(result.size)")
        #expect(result.warnings.isEmpty)
    }

    /// Words with a space after each, as `LineBreaks.units` cuts "a b c".
    func spaced(_ words: [String]) -> [LineBreaks.Unit] {
        words.enumerated().map { LineBreaks.Unit(text: $1, spaced: $0 < words.count - 1) }
    }

    @Test func linesAreBalancedAndExplicitBreaksKept() {
        let metrics = WordMetrics(words: [10, 10, 10, 10, 40], space: 2, lineHeight: 12, ascentPlusDescent: 10)
        // Five words with room for 40 px lines and 3 lines: balanced, widest 40.
        let result = WordWrap.wrap([spaced(["a", "b", "c", "d", "e"])], metrics: metrics, room: (width: 40, height: 60),
                                   maxLines: 3, cap: 10)
        #expect(result.lines == ["a b c", "d", "e"] || result.lines == ["a b", "c d", "e"], "\(String(describing: result.lines))")
        // An explicit break is kept whatever the room.
        let kept = WordWrap.wrap([spaced(["a"]), spaced(["b", "c"])], metrics: WordMetrics(words: [10, 10, 10], space: 2, lineHeight: 12,
                                                                            ascentPlusDescent: 10),
                                 room: (width: 1000, height: 1000), maxLines: 5, cap: 1)
        #expect(kept.lines == nil, "fits as it is: \(String(describing: kept.lines))")
    }

    @Test func maxLinesIsRespectedAndOneLineShrinks() throws {
        let one = try wrapped("Flex Monkey Mercurial Text", width: 1060, height: 765, maxLines: 1)
        #expect(inkLines(one.mask).count == 1)
        let two = try wrapped("Flex Monkey Mercurial Text", width: 1060, height: 765, maxLines: 2)
        #expect(inkLines(two.mask).count == 2)
        #expect(one.size < two.size)
    }

    @Test func explicitNewlinesAreKept() throws {
        let result = try wrapped("Flex\nMonkey Mercurial Text", width: 1060, height: 765)
        let lines = inkLines(result.mask)
        #expect(lines.count >= 2 && lines.count <= 5)
        #expect(try TextMask.render(try layout("Flex\nMonkey"), margin: 14).mask.height > 0)
    }

    @Test func withoutACanvasNothingWrapsAndLongWordsShrink() throws {
        let free = try TextMask.render(try layout("Flex Monkey Mercurial Text"), margin: 14)
        #expect(inkLines(free.mask).count == 1)
        let long = try wrapped("Supercalifragilisticexpialidocious", width: 600, height: 400, size: 160)
        #expect(inkLines(long.mask).count == 1)
        #expect(long.size < 160 && long.warnings.count == 1)
        // With a size asked for, text that fits is neither wrapped nor grown.
        let fits = try wrapped("Hi there", width: 1920, height: 1080, size: 100)
        #expect(inkLines(fits.mask).count == 1 && fits.size == 100)
    }
}
