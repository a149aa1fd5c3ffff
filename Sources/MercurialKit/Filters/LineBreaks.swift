import CUniBreak

/// Where a line may end, by the Unicode line breaking algorithm (UAX #14, libunibreak):
/// after a space, after a hyphen, between two ideographs or kana, never before closing
/// punctuation or a small kana, never after opening punctuation. One tailoring, as
/// typesetters and CSS's `line-break: strict` do for punctuation: no line starts with
/// a dash (U+2012…U+2015); the break moves to after it.
enum LineBreaks {
    /// A piece of a paragraph that may end a line, and whether a space followed it.
    struct Unit: Equatable {
        var text: String
        var spaced: Bool
    }

    /// `paragraph` (one line of the text, no newline) cut at every break opportunity; runs of
    /// spaces are one space, and spaces at the start are dropped (as wrapping at spaces did).
    static func units(_ paragraph: String) -> [Unit] {
        _ = initialised
        let bytes = Array(paragraph.utf8)
        guard !bytes.isEmpty else { return [] }
        var breaks = [CChar](repeating: CChar(LINEBREAK_NOBREAK), count: bytes.count)
        bytes.withUnsafeBufferPointer { b in
            breaks.withUnsafeMutableBufferPointer { set_linebreaks_utf8(b.baseAddress, b.count, nil, $0.baseAddress) }
        }
        // No break before a dash: the opportunity after the byte before it is taken away.
        let scalars = paragraph.unicodeScalars
        var offset = 0
        for scalar in scalars {
            if (0x2012...0x2015).contains(scalar.value), offset > 0 { breaks[offset - 1] = CChar(LINEBREAK_NOBREAK) }
            offset += scalar.utf8.count
        }
        var units: [Unit] = []
        var start = 0
        for end in 0..<bytes.count where breaks[end] == CChar(LINEBREAK_ALLOWBREAK) || end == bytes.count - 1 {
            // The piece's bytes without its spaces at either end, by index: reversing and dropping
            // made nested generic collections whose metadata cost a small title 0.7 M instructions.
            let pieceStart = start
            start = end + 1
            var last = end
            while last >= pieceStart && bytes[last] == 0x20 { last -= 1 }
            var first = pieceStart
            while first <= last && bytes[first] == 0x20 { first += 1 }
            let text = first <= last ? String(decoding: bytes[first...last], as: UTF8.self) : ""
            let spaced = last < end
            if text.isEmpty {
                // Spaces alone (a paragraph's start): a space after the unit before, if any.
                if spaced, !units.isEmpty { units[units.count - 1].spaced = true }
                continue
            }
            units.append(Unit(text: text, spaced: spaced))
        }
        return units
    }

    /// Units on one line as text: a space after each that had one, but the last.
    static func joined(_ units: some Collection<Unit>) -> String {
        units.enumerated().map { i, unit in unit.text + (unit.spaced && i < units.count - 1 ? " " : "") }.joined()
    }

    /// libunibreak's tables, indexed once per process before the first use.
    private static let initialised: Void = { init_linebreak() }()
}
