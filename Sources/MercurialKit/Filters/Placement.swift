/// The point of the canvas a title's ink box is placed against.
public enum Anchor: String, Sendable, CaseIterable {
    case topLeft = "top-left", top, topRight = "top-right"
    case left, center, right
    case bottomLeft = "bottom-left", bottom, bottomRight = "bottom-right"

    /// Where the ink sits in the room left for it: 0 at the left (top), 1 at the right (bottom).
    var horizontal: Int {
        switch self {
        case .topLeft, .left, .bottomLeft: return 0
        case .top, .center, .bottom: return 1
        case .topRight, .right, .bottomRight: return 2
        }
    }

    var vertical: Int {
        switch self {
        case .topLeft, .top, .topRight: return 0
        case .left, .center, .right: return 1
        case .bottomLeft, .bottom, .bottomRight: return 2
        }
    }

    /// The lines' alignment that goes with the anchor's side.
    public var alignment: TextLayout.Alignment { [.left, .center, .right][horizontal] }
}

/// The space between the canvas's edges and the box the ink is placed in.
public enum PlacementMargin: Sendable, Equatable, CustomStringConvertible {
    case pixels(Double)
    /// A share of the canvas: of its width at the left and right, of its height at the top and bottom.
    case percent(Double)
    /// EBU R 95's graphics-safe area: 5 % of the width and of the height on each side.
    case safe
    /// One of the others a side: top, right, bottom, left (CSS's order; a scene's `[x, y]` is `[y, x, y, x]`).
    indirect case sides(PlacementMargin, PlacementMargin, PlacementMargin, PlacementMargin)

    public static let maximumPixels = Double(PNGFile.maximumSide)

    /// `"safe"`, `"5%"` or `"40"` (pixels).
    public static func parse(_ text: String) -> PlacementMargin? {
        let t = text.trimmingWhitespace().lowercased()
        if t == "safe" { return .safe }
        if t.hasSuffix("%") {
            guard let v = Double(t.dropLast().trimmingWhitespace()), v.isFinite, (0..<50).contains(v) else { return nil }
            return .percent(v)
        }
        guard let v = Double(t.hasSuffix("px") ? String(t.dropLast(2)) : t), v.isFinite, (0...maximumPixels).contains(v) else { return nil }
        return .pixels(v)
    }

    public var description: String {
        switch self {
        case .pixels(let v): return formatNumber(v)
        case .percent(let v): return formatNumber(v) + "%"
        case .safe: return "safe"
        case let .sides(top, right, bottom, left): return "[\(top), \(right), \(bottom), \(left)]"
        }
    }

    /// Whether it needs the canvas's size (a share of it).
    var isRelative: Bool {
        switch self {
        case .pixels: return false
        case let .sides(top, right, bottom, left): return [top, right, bottom, left].contains { $0.isRelative }
        default: return true
        }
    }

    /// The margin in pixels at the start and end of an axis of `length` pixels: the left and
    /// right for the width (`horizontal`), the top and bottom for the height.
    func pixels(of length: Int, horizontal: Bool) -> (start: Int, end: Int) {
        switch self {
        case let .sides(top, right, bottom, left):
            return horizontal ? (left.pixels(of: length, horizontal: true).start, right.pixels(of: length, horizontal: true).start)
                : (top.pixels(of: length, horizontal: false).start, bottom.pixels(of: length, horizontal: false).start)
        case .pixels(let v): return (Int(pixel: v), Int(pixel: v))
        case .percent(let v): return (Int(pixel: Double(length) * v / 100), Int(pixel: Double(length) * v / 100))
        case .safe: return (Int((Double(length) * 0.05).rounded()), Int((Double(length) * 0.05).rounded()))
        }
    }
}

/// Where a title goes on its canvas: the canvas's size (nil: sized to the ink), the
/// anchor, the margin and padding, the offset, and the loft's margin (the bevel's skirt
/// kept around the ink in the region drawn).
public struct TextFrame: Sendable, Equatable {
    public var width: Int?
    public var height: Int?
    /// The loft's margin around the ink: radius + 4.
    public var loftMargin: Int
    public var anchor: Anchor = .center
    /// nil: the loft's margin.
    public var margin: PlacementMargin? = nil
    /// Clear space kept around the ink; nil: none beyond the margin.
    public var padding: Int? = nil
    public var offset = SIMD2<Double>(0, 0)
    /// The widest the ink may be: text wraps and shrinks to fit it, whatever the canvas. nil: the canvas's room.
    public var maxWidth: Int? = nil
    /// A plate's padding (top, right, bottom, left), kept inside the margin on a side of a given length.
    public var platePadding: SIMD4<Double>? = nil

    public init(width: Int? = nil, height: Int? = nil, loftMargin: Int) {
        self.width = width
        self.height = height
        self.loftMargin = loftMargin
    }

    /// The space kept between the ink and the edges at the start and end of a side of
    /// `length` pixels (nil: sized to the ink; `side` "width" or "height"): the margin (the
    /// loft's when none is given) or the padding, whichever is larger, at each end. A share
    /// of the canvas needs the canvas's size.
    func inset(_ length: Int?, side: String) throws(MercurialError) -> Inset {
        let horizontal = side == "width"
        let margin: (start: Int, end: Int)?
        if let m = self.margin {
            if length == nil && m.isRelative {
                throw MercurialError("margin \"\(m)\" is a share of the canvas, but the canvas's \(side) is sized to the text; give --width and --height, or a margin in px")
            }
            margin = m.pixels(of: length ?? 0, horizontal: horizontal)
        } else {
            margin = padding == nil ? (loftMargin, loftMargin) : nil
        }
        var inset = Inset(start: max(margin?.start ?? 0, padding ?? 0), end: max(margin?.end ?? 0, padding ?? 0))
        if let plate = platePadding, length != nil {
            // The plate, not the ink, meets the margin (a side sized to the text grows by the plate's reach instead).
            inset.start += Int((horizontal ? plate[3] : plate[0]).rounded(.up))
            inset.end += Int((horizontal ? plate[1] : plate[2]).rounded(.up))
        }
        return inset
    }

    /// The space kept at the start (left, top) and end (right, bottom) of a side.
    struct Inset: Equatable {
        var start: Int, end: Int
        var total: Int { start + end }
    }

    /// Where the ink's first column (row) goes on a side of `length` pixels, with `inset`
    /// kept at its ends, for ink `ink` pixels long, placed at `side` (0 start, 1 middle, 2 end).
    static func position(length: Int, inset: Inset, ink: Int, side: Int, offset: Double) -> Int {
        // The middle keeps the integer halving of the centred title before anchors (and per-side margins).
        let middle = inset.start == inset.end ? (length - ink) / 2 : inset.start + (length - inset.total - ink) / 2
        let start = side == 0 ? inset.start : side == 1 ? middle : length - inset.end - ink
        return start + Int(pixel: offset)
    }
}
