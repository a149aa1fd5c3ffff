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

    public static let maximumPixels = Double(PNGFile.maximumSide)

    /// `"safe"`, `"5%"` or `"40"` (pixels).
    public static func parse(_ text: String) -> PlacementMargin? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t == "safe" { return .safe }
        if t.hasSuffix("%") {
            guard let v = Double(t.dropLast().trimmingCharacters(in: .whitespaces)), v.isFinite, (0..<50).contains(v) else { return nil }
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
        }
    }

    /// Whether it needs the canvas's size (a share of it).
    var isRelative: Bool { if case .pixels = self { return false } else { return true } }

    /// The margin in pixels on a side of `length` pixels.
    func pixels(of length: Int) -> Int {
        switch self {
        case .pixels(let v): return Int(pixel: v)
        case .percent(let v): return Int(pixel: Double(length) * v / 100)
        case .safe: return Int((Double(length) * 0.05).rounded())
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

    public init(width: Int? = nil, height: Int? = nil, loftMargin: Int) {
        self.width = width
        self.height = height
        self.loftMargin = loftMargin
    }

    /// The space kept between the ink and the edges on a side of `length` pixels (nil:
    /// sized to the ink): the margin (the loft's when none is given) or the padding,
    /// whichever is larger. A share of the canvas needs the canvas's size.
    func inset(_ length: Int?, side: String) throws(MercurialError) -> Int {
        let margin: Int?
        if let m = self.margin {
            guard let length else {
                if m.isRelative {
                    throw MercurialError("margin \"\(m)\" is a share of the canvas, but the canvas's \(side) is sized to the text; give --width and --height, or a margin in px")
                }
                return max(m.pixels(of: 0), padding ?? 0)
            }
            margin = m.pixels(of: length)
        } else {
            margin = padding == nil ? loftMargin : nil
        }
        return max(margin ?? 0, padding ?? 0)
    }

    /// Where the ink's first column (row) goes on a side of `length` pixels, with `inset`
    /// kept at both ends, for ink `ink` pixels long, placed at `side` (0 start, 1 middle, 2 end).
    static func position(length: Int, inset: Int, ink: Int, side: Int, offset: Double) -> Int {
        let free = length - 2 * inset - ink
        // The middle keeps the integer halving of the centred title before anchors.
        let start = side == 0 ? inset : side == 1 ? (length - ink) / 2 : inset + free
        return start + Int(pixel: offset)
    }
}
