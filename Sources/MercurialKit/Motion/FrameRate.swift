/// A frame rate as an exact fraction, as ffmpeg, video containers and an APNG's frame
/// delays take it. The broadcast rates written with three decimals (23.976, 29.97,
/// 47.952, 59.94, 119.88: N × 1000/1001, within 0.0005) are N·1000/1001; any other rate
/// is the decimal as written (12.5 is 25/2), when it fits ffmpeg's fractions of 32-bit
/// whole numbers.
public struct FrameRate: Sendable, Equatable, CustomStringConvertible {
    public let numerator: Int
    public let denominator: Int
    /// False when the rate has more digits than a fraction of 32-bit whole numbers holds
    /// (then the fraction is the nearest one that does); scene files refuse such rates.
    public let isExact: Bool

    /// ffmpeg's `AVRational` holds two `int`s.
    public static let largestTerm = Int(Int32.max)

    public init(_ fps: Double) {
        if fps != fps.rounded() {
            let n = (fps * 1.001).rounded()
            if n >= 1, abs(fps - n * 1000 / 1001) < 0.0005 {
                (numerator, denominator, isExact) = (Int(n) * 1000, 1001, true)
                return
            }
        }
        if let (p, q) = Self.decimal(fps), p <= Self.largestTerm, q <= Self.largestTerm {
            (numerator, denominator, isExact) = (p, q, true)
        } else {
            (numerator, denominator) = Self.nearestFraction(fps, largestTerm: Self.largestTerm)
            isExact = false
        }
    }

    public var fps: Double { Double(numerator) / Double(denominator) }

    /// `30000/1001`, `30/1`: as ffmpeg's `-r` takes it and ffprobe's `r_frame_rate` gives it.
    public var description: String { "\(numerator)/\(denominator)" }

    /// The time of frame `index`, index × denominator / numerator seconds: for a whole
    /// rate the same number as index / fps.
    public func time(ofFrame index: Int) -> Double { Double(index * denominator) / Double(numerator) }

    /// How many frames `duration` seconds hold, rounded, and at least one.
    public func frameCount(duration: Double) -> Int {
        max(1, Int((duration * Double(numerator) / Double(denominator)).rounded()))
    }

    /// One frame's duration as a fraction with both terms at most `largestTerm` (an APNG's
    /// delay has 16-bit terms): exact when it fits, else the nearest such fraction.
    public func frameDuration(largestTerm: Int) -> (numerator: Int, denominator: Int) {
        if denominator <= largestTerm && numerator <= largestTerm { return (denominator, numerator) }
        return Self.nearestFraction(Double(denominator) / Double(numerator), largestTerm: largestTerm)
    }

    /// The reduced fraction of the decimal `value` is written as (its shortest form), if it has one.
    static func decimal(_ value: Double) -> (Int, Int)? {
        let text = value.description
        guard value > 0, !text.contains("e") else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        guard fraction.count <= 15, let p = Int(whole + fraction) else { return nil }
        var q = 1
        for _ in 0..<fraction.count { q *= 10 }
        let d = gcd(p, q)
        return (p / d, q / d)
    }

    /// The fraction nearest `value` with both terms at most `largestTerm`, from its
    /// continued fraction (the last convergent, or a semiconvergent when nearer).
    static func nearestFraction(_ value: Double, largestTerm: Int) -> (numerator: Int, denominator: Int) {
        var (p0, q0, p1, q1) = (0, 1, 1, 0)
        var x = value
        while true {
            let a = Int(x.rounded(.down))
            let (p2, q2) = (a * p1 + p0, a * q1 + q0)
            if p2 > largestTerm || q2 > largestTerm {
                // The largest step towards the next convergent that still fits.
                let k = min((largestTerm - p0) / max(p1, 1), (largestTerm - q0) / max(q1, 1))
                let (ps, qs) = (k * p1 + p0, k * q1 + q0)
                if qs > 0, abs(Double(ps) / Double(qs) - value) < abs(Double(p1) / Double(q1) - value) { return (ps, qs) }
                return (p1, q1)
            }
            (p0, q0, p1, q1) = (p1, q1, p2, q2)
            let rest = x - Double(a)
            if rest < 1e-12 { return (p1, q1) }
            x = 1 / rest
        }
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
