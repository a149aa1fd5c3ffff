/// A linear-free, plain RGB colour with components in 0…1 (as stored in the PNG).
public struct RGBColor: Sendable, Equatable, Hashable, Encodable, CustomStringConvertible {
    public var r: Float, g: Float, b: Float

    public init(r: Float, g: Float, b: Float) {
        self.r = r; self.g = g; self.b = b
    }

    public init(grey: Float) { self.init(r: grey, g: grey, b: grey) }

    /// HSB (a.k.a. HSV) with hue, saturation and brightness in 0…1, as UIColor takes them.
    public init(hue: Double, saturation: Double, brightness: Double) {
        let h = (hue - hue.rounded(.down)) * 6   // 0 ..< 6, hue 1 wraps to 0
        let sector = Int(h) % 6
        let f = h - Double(Int(h))
        let v = brightness, s = saturation
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        let (r, g, b): (Double, Double, Double)
        switch sector {
        case 0: (r, g, b) = (v, t, p)
        case 1: (r, g, b) = (q, v, p)
        case 2: (r, g, b) = (p, v, t)
        case 3: (r, g, b) = (p, q, v)
        case 4: (r, g, b) = (t, p, v)
        default: (r, g, b) = (v, p, q)
        }
        self.init(r: Float(r), g: Float(g), b: Float(b))
    }

    public static let black = RGBColor(grey: 0)
    public static let white = RGBColor(grey: 1)

    public static func + (a: RGBColor, b: RGBColor) -> RGBColor {
        RGBColor(r: a.r + b.r, g: a.g + b.g, b: a.b + b.b)
    }
    public static func * (a: RGBColor, b: RGBColor) -> RGBColor {
        RGBColor(r: a.r * b.r, g: a.g * b.g, b: a.b * b.b)
    }
    public static func * (a: RGBColor, k: Float) -> RGBColor {
        RGBColor(r: a.r * k, g: a.g * k, b: a.b * k)
    }

    /// `#rrggbb`, the form `parse` reads back.
    public var hex: String {
        func byte(_ v: Float) -> String {
            let n = Int((min(max(v, 0), 1) * 255).rounded())
            let s = String(n, radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + byte(r) + byte(g) + byte(b)
    }

    public var description: String { hex }

    /// Reads `#rgb`, `#rrggbb` or a CSS colour name (`gold`, `navy`, …).
    /// Returns nil for anything else; `transparent` is handled by callers that allow it.
    public static func parse(_ text: String) -> RGBColor? {
        let s = text.trimmingWhitespace().lowercased()
        if s.hasPrefix("#") {
            let digits = Array(s.dropFirst())
            guard digits.allSatisfy({ $0.isHexDigit }) else { return nil }
            let values = digits.compactMap { $0.hexDigitValue }
            switch values.count {
            case 3:
                return RGBColor(r: Float(values[0] * 17) / 255, g: Float(values[1] * 17) / 255,
                                b: Float(values[2] * 17) / 255)
            case 6:
                return RGBColor(r: Float(values[0] * 16 + values[1]) / 255,
                                g: Float(values[2] * 16 + values[3]) / 255,
                                b: Float(values[4] * 16 + values[5]) / 255)
            default:
                return nil
            }
        }
        guard let rgb = namedColors[s] else { return nil }
        return RGBColor(r: Float((rgb >> 16) & 0xff) / 255, g: Float((rgb >> 8) & 0xff) / 255,
                        b: Float(rgb & 0xff) / 255)
    }

    public static var colorNames: [String] { namedColors.keys.sorted() }
}

import FoundationEssentials

/// A selection of CSS colour names.
private let namedColors: [String: UInt32] = [
    "black": 0x000000, "white": 0xffffff, "gray": 0x808080, "grey": 0x808080,
    "silver": 0xc0c0c0, "darkgray": 0xa9a9a9, "darkgrey": 0xa9a9a9, "dimgray": 0x696969,
    "lightgray": 0xd3d3d3, "lightgrey": 0xd3d3d3, "gainsboro": 0xdcdcdc, "whitesmoke": 0xf5f5f5,
    "red": 0xff0000, "darkred": 0x8b0000, "crimson": 0xdc143c, "firebrick": 0xb22222,
    "maroon": 0x800000, "orange": 0xffa500, "darkorange": 0xff8c00, "coral": 0xff7f50,
    "tomato": 0xff6347, "gold": 0xffd700, "goldenrod": 0xdaa520, "yellow": 0xffff00,
    "khaki": 0xf0e68c, "olive": 0x808000, "lime": 0x00ff00, "green": 0x008000,
    "darkgreen": 0x006400, "forestgreen": 0x228b22, "seagreen": 0x2e8b57, "teal": 0x008080,
    "cyan": 0x00ffff, "aqua": 0x00ffff, "turquoise": 0x40e0d0, "skyblue": 0x87ceeb,
    "lightblue": 0xadd8e6, "steelblue": 0x4682b4, "blue": 0x0000ff, "navy": 0x000080,
    "midnightblue": 0x191970, "royalblue": 0x4169e1, "indigo": 0x4b0082, "purple": 0x800080,
    "violet": 0xee82ee, "magenta": 0xff00ff, "fuchsia": 0xff00ff, "orchid": 0xda70d6,
    "pink": 0xffc0cb, "hotpink": 0xff69b4, "deeppink": 0xff1493, "brown": 0xa52a2a,
    "chocolate": 0xd2691e, "sienna": 0xa0522d, "peru": 0xcd853f, "tan": 0xd2b48c,
    "beige": 0xf5f5dc, "ivory": 0xfffff0, "linen": 0xfaf0e6, "snow": 0xfffafa,
    "slategray": 0x708090, "slategrey": 0x708090, "darkslategray": 0x2f4f4f,
    "darkslategrey": 0x2f4f4f, "charcoal": 0x36454f,
]

/// Colours at locations 0…1 along the vertical axis, top (0) to bottom (1), as
/// CAGradientLayer takes `colors` and `locations`.
public struct Gradient: Sendable, Equatable, Encodable {
    public struct Stop: Sendable, Equatable, Encodable {
        public var color: RGBColor
        public var location: Float
        public init(color: RGBColor, location: Float) { self.color = color; self.location = location }
    }
    public var stops: [Stop]   // sorted by location, at least one

    public init(stops: [Stop]) {
        precondition(!stops.isEmpty, "A gradient needs at least one stop")
        self.stops = stops.sorted { $0.location < $1.location }
    }

    /// Evenly spaced colours, as CAGradientLayer does when `locations` is nil.
    public init(colors: [RGBColor]) {
        precondition(!colors.isEmpty, "A gradient needs at least one colour")
        let n = colors.count
        self.init(stops: colors.enumerated().map { i, c in
            Stop(color: c, location: n == 1 ? 0 : Float(i) / Float(n - 1))
        })
    }

    /// The colour at `t` (0 top … 1 bottom), constant beyond the end stops.
    public func color(at t: Float) -> RGBColor {
        guard let first = stops.first, let last = stops.last else { return .black }
        if t <= first.location { return first.color }
        if t >= last.location { return last.color }
        for i in 1..<stops.count where t <= stops[i].location {
            let a = stops[i - 1], b = stops[i]
            let span = b.location - a.location
            let f = span > 0 ? (t - a.location) / span : 1
            return a.color * (1 - f) + b.color * f
        }
        return last.color
    }
}
