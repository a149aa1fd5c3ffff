/// How an animation's progress follows time between two keyframes, as Core
/// Animation's `CAMediaTimingFunction` names and defines them: a cubic Bézier from
/// (0, 0) to (1, 1) through two control points, x being time and y progress.
public enum TimingFunction: Sendable, Equatable, CustomStringConvertible {
    case linear
    case easeIn
    case easeOut
    case easeInEaseOut
    case cubicBezier(Double, Double, Double, Double)

    /// The names a scene file may use, with Core Animation's control points.
    public static let named: [(name: String, function: TimingFunction)] = [
        ("linear", .linear), ("easeIn", .easeIn), ("easeOut", .easeOut), ("easeInEaseOut", .easeInEaseOut),
    ]

    /// The two control points (x1, y1, x2, y2).
    public var controlPoints: (Double, Double, Double, Double) {
        switch self {
        case .linear: return (0, 0, 1, 1)
        case .easeIn: return (0.42, 0, 1, 1)
        case .easeOut: return (0, 0, 0.58, 1)
        case .easeInEaseOut: return (0.42, 0, 0.58, 1)
        case let .cubicBezier(x1, y1, x2, y2): return (x1, y1, x2, y2)
        }
    }

    public var description: String {
        if let name = Self.named.first(where: { $0.function == self })?.name { return name }
        let (x1, y1, x2, y2) = controlPoints
        return "cubicBezier(\(formatNumber(x1)), \(formatNumber(y1)), \(formatNumber(x2)), \(formatNumber(y2)))"
    }

    /// How far y1 and y2 may overshoot: progress then stays within about −4…5, so a
    /// slide or a rise moves at most a few times its distance (CSS's "back" eases use
    /// −0.55 and 1.55).
    public static let overshoot: ClosedRange<Double> = -5...5

    /// Reads a name or `cubicBezier(x1, y1, x2, y2)`; x1 and x2 must lie in 0…1 (so
    /// that time runs forwards), y1 and y2 in `overshoot`.
    public static func parse(_ text: String) throws(MercurialError) -> TimingFunction {
        let trimmed = text.trimmingWhitespace()
        if let match = named.first(where: { $0.name.lowercased() == trimmed.lowercased() }) { return match.function }
        let lower = trimmed.lowercased()
        guard lower.hasPrefix("cubicbezier("), lower.hasSuffix(")") else {
            let names = named.map(\.name).joined(separator: ", ")
            throw MercurialError("timing '\(shortQuote(text))' is not known; use \(names) or cubicBezier(x1, y1, x2, y2)"
                                 + didYouMean(trimmed, in: named.map(\.name)))
        }
        let inner = trimmed.dropFirst("cubicBezier(".count).dropLast()
        let numbers = inner.split(separator: ",").map { Double($0.trimmingWhitespace()) }
        guard numbers.count == 4, let x1 = numbers[0], let y1 = numbers[1], let x2 = numbers[2], let y2 = numbers[3],
              [x1, y1, x2, y2].allSatisfy(\.isFinite) else {
            throw MercurialError("timing '\(shortQuote(text))' needs four numbers: cubicBezier(x1, y1, x2, y2)")
        }
        guard (0...1).contains(x1), (0...1).contains(x2) else {
            throw MercurialError("timing '\(shortQuote(text))' has x1 or x2 outside 0…1; time must run forwards")
        }
        guard overshoot.contains(y1), overshoot.contains(y2) else {
            throw MercurialError("timing '\(shortQuote(text))' has y1 or y2 outside \(rangeText(overshoot)); an overshoot that large "
                                 + "would throw the title far off the canvas")
        }
        return .cubicBezier(x1, y1, x2, y2)
    }

    /// The progress at time fraction `x` in 0…1.
    public func progress(_ x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        if case .linear = self { return x }
        let (x1, y1, x2, y2) = controlPoints
        // Bézier coordinate at parameter t: 3(1−t)²t·p1 + 3(1−t)t²·p2 + t³.
        func bezier(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
            let u = 1 - t
            return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
        }
        func slope(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
            let u = 1 - t
            return 3 * u * u * p1 + 6 * u * t * (p2 - p1) + 3 * t * t * (1 - p2)
        }
        // x(t) rises monotonically when x1, x2 ∈ 0…1: Newton's method, falling back on bisection.
        var t = x
        for _ in 0..<8 {
            let error = bezier(t, x1, x2) - x
            if abs(error) < 1e-12 { return bezier(t, y1, y2) }
            let d = slope(t, x1, x2)
            guard abs(d) > 1e-9 else { break }
            t -= error / d
            if t < 0 || t > 1 { break }
        }
        var low = 0.0, high = 1.0
        t = x
        for _ in 0..<60 {
            let value = bezier(t, x1, x2)
            if abs(value - x) < 1e-12 { break }
            if value < x { low = t } else { high = t }
            t = (low + high) / 2
        }
        return bezier(t, y1, y2)
    }
}

/// At most 40 characters of `text`, control characters escaped, for an error message.
func shortQuote(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars.prefix(40) {
        out += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
    }
    return text.unicodeScalars.count > 40 ? out + "…" : out
}
