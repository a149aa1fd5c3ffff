import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A curve the text's baseline follows: each glyph is placed at its distance along the
/// curve and turned to the curve's direction there, its top away from a circle's centre.
public struct TextPath: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Round a circle, centred on `start`.
        case arc
        /// Round a circle, beginning at `start`.
        case circle
        /// Through `points`, from the first.
        case points
    }

    public var type: Kind = .arc
    /// The circle's radius in pixels (arc and circle).
    public var radius: Double = 300
    /// Degrees clockwise from the circle's top: where the text's middle (arc) or start (circle) is.
    public var start: Double = 0
    /// The curve through these points, in pixels, y down (points): on a canvas of a given
    /// width and height, its pixels (the text is where the path is, as a vine's route);
    /// else relative, the canvas sized to the ink.
    public var points: [SIMD2<Double>] = []

    public init() {}

    public static let maximumPoints = 4096

    /// The length of the curve before the text runs past its end (nil: it may go round again).
    var length: Double? {
        switch type {
        case .arc, .circle: return 2 * Double.pi * radius
        case .points: return zip(points, points.dropFirst()).reduce(0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
        }
    }

    /// The point at distance `s` along the curve, for text `total` pixels long, and the
    /// direction there as a clockwise angle from +x in radians (y down).
    func frame(at s: Double, total: Double) -> (point: SIMD2<Double>, angle: Double) {
        frames(total: total)(s)
    }

    /// `frame(at:total:)` for many distances: a path's pieces and where each starts along it
    /// are found once, and each distance's piece by bisection.
    func frames(total: Double) -> (Double) -> (point: SIMD2<Double>, angle: Double) {
        switch type {
        case .arc, .circle:
            let (radius, start, shift) = (radius, start * .pi / 180, type == .arc ? total / 2 : 0)
            return { s in
                let phi = start + (s - shift) / radius
                return (SIMD2(radius * sin(phi), -radius * cos(phi)), phi)
            }
        case .points:
            // The pieces of the curve, repeated points left out, and the distance each starts at.
            let pieces = zip(points, points.dropFirst()).filter { $0.0 != $0.1 }
            guard !pieces.isEmpty else { let first = points.first ?? .zero; return { _ in (first, 0) } }
            var starts: [Double] = [], walked = 0.0
            for (a, b) in pieces {
                starts.append(walked)
                walked += hypot(b.x - a.x, b.y - a.y)
            }
            return { s in
                // The last piece that starts at or before `s` (the first before the start; past
                // the last point the text runs on along the last piece's direction).
                var (low, high) = (0, pieces.count - 1)
                while low < high {
                    let mid = (low + high + 1) / 2
                    if starts[mid] <= s { low = mid } else { high = mid - 1 }
                }
                let (a, b) = pieces[low]
                let t = (s - starts[low]) / hypot(b.x - a.x, b.y - a.y)
                return (a + (b - a) * t, atan2(b.y - a.y, b.x - a.x))
            }
        }
    }
}
