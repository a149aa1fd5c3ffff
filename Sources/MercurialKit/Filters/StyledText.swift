/// How one styled run of a title's text is shaped (`TextRun`, resolved for layout).
public struct RunStyle: Sendable, Equatable {
    /// A font file path, or nil: the title's.
    public var fontPath: String? = nil
    /// Its em size at the title's asked size (scaled with the title when that is fitted), or nil: the title's.
    public var size: Double? = nil
    public var letterSpacing: Double? = nil
    /// Pixels the baseline is raised by.
    public var baselineShift: Double = 0
    /// The look its pixels are shaded with (the style plane's value).
    public var look: Int = 0

    public init() {}
}

/// Which run each Unicode scalar of a text belongs to, carried over to the text as it is wrapped
/// or cut: the text laid out is the original with spaces turned into line breaks or dropped and,
/// when cut, "…" added, so its other scalars are the original's in order. A scalar that is no
/// original one (a break, "…") takes the run of the scalar before it.
struct RunAligner {
    private let scalars: [Unicode.Scalar]
    private let runs: [UInt8]
    private var next = 0
    private var last: UInt8

    init(_ text: String, runs: [UInt8]) {
        scalars = Array(text.unicodeScalars)
        self.runs = runs
        last = runs.first ?? 0
    }

    /// The runs of `text`'s scalars, taken from where the last call left off.
    mutating func runs(of text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if !scalar.properties.isWhitespace, let at = scalars[next...].firstIndex(of: scalar) {
                last = runs[at]
                next = at + 1
            }
            out.append(last)
        }
        return out
    }

    /// The runs of `text` from the original's start.
    static func runs(of text: String, in original: String, runs: [UInt8]) -> [UInt8] {
        var aligner = RunAligner(original, runs: runs)
        return aligner.runs(of: text)
    }
}

extension TextLayout {
    /// The lines, each with the run of each of its scalars (empty for plain text).
    var styledLines: [(text: String, runs: [UInt8])] {
        let lines = self.lines
        guard !runs.isEmpty else { return lines.map { ($0, []) } }
        var aligner = RunAligner(text, runs: scalarRuns)
        return lines.map { ($0, aligner.runs(of: $0)) }
    }

    /// Byte ranges of `line` (its scalars' runs `runs`) that belong to one run each, in order.
    static func runPieces(_ line: String, runs: [UInt8]) -> [(bytes: Range<Int>, run: Int)] {
        guard !runs.isEmpty else { return [(0..<line.utf8.count, -1)] }
        var pieces: [(bytes: Range<Int>, run: Int)] = []
        var offset = 0
        for (scalar, run) in zip(line.unicodeScalars, runs) {
            let length = scalar.utf8.count
            if let last = pieces.last, last.run == Int(run) {
                pieces[pieces.count - 1].bytes = last.bytes.lowerBound..<(offset + length)
            } else {
                pieces.append((offset..<(offset + length), Int(run)))
            }
            offset += length
        }
        return pieces
    }
}
