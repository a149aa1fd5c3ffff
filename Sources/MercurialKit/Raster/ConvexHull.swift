import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Convex hulls of point sets and their simplification, for the physics bodies of
/// the `dynamics` block: a glyph's body is the convex hull of its inked pixels,
/// simplified to a few vertices by removing the points that make the smallest
/// angles (as the SKPhysicsBody (ConvexHull) category of the source does for
/// drawn shapes).
public enum ConvexHull {
    /// The convex hull of `points` (Andrew's monotone chain), counter-clockwise in
    /// a y-up frame (clockwise on a y-down canvas), without collinear points. Fewer
    /// than three distinct points come back as they are (deduplicated, sorted).
    public static func hull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        var unique: [SIMD2<Double>] = []
        unique.reserveCapacity(sorted.count)
        for p in sorted where unique.last != p { unique.append(p) }
        guard unique.count >= 3 else { return unique }
        var lower: [SIMD2<Double>] = [], upper: [SIMD2<Double>] = []
        for p in unique {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in unique.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// `polygon` (convex, in order) with vertices removed one at a time, always the
    /// one where the outline turns least (the flattest corner, whose removal cuts the
    /// least off), until at most `maximumVertices` remain. Removing a vertex of a
    /// convex polygon keeps it convex.
    public static func simplified(_ polygon: [SIMD2<Double>], maximumVertices: Int = 12) -> [SIMD2<Double>] {
        var p = polygon
        let limit = max(3, maximumVertices)
        while p.count > limit {
            var best = 0, smallest = Double.infinity
            for i in p.indices {
                let turn = turningAngle(p[(i + p.count - 1) % p.count], p[i], p[(i + 1) % p.count])
                if turn < smallest { smallest = turn; best = i }
            }
            p.remove(at: best)
        }
        return p
    }

    /// The convex hull of `points`, simplified to at most `maximumVertices`.
    public static func body(of points: [SIMD2<Double>], maximumVertices: Int = 12) -> [SIMD2<Double>] {
        simplified(hull(points), maximumVertices: maximumVertices)
    }

    /// The angle (0…π) by which the direction a → b turns to become b → c.
    static func turningAngle(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Double {
        let u = b - a, v = c - b
        return abs(atan2(u.x * v.y - u.y * v.x, u.x * v.x + u.y * v.y))
    }

    /// The signed area (positive counter-clockwise in a y-up frame) of `polygon`.
    public static func area(_ polygon: [SIMD2<Double>]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var sum = 0.0
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            sum += a.x * b.y - a.y * b.x
        }
        return sum / 2
    }

    /// The centre of mass of the polygon's area (its vertices' mean when it has none).
    public static func centroid(_ polygon: [SIMD2<Double>]) -> SIMD2<Double> {
        let a = area(polygon)
        guard abs(a) > 1e-12 else {
            return polygon.isEmpty ? .zero : polygon.reduce(.zero, +) / Double(polygon.count)
        }
        var sum = SIMD2<Double>.zero
        for i in polygon.indices {
            let p = polygon[i], q = polygon[(i + 1) % polygon.count]
            sum += (p + q) * (p.x * q.y - q.x * p.y)
        }
        return sum / (6 * a)
    }

    /// Whether `polygon` turns the same way at every vertex (and not at all nowhere).
    public static func isConvex(_ polygon: [SIMD2<Double>]) -> Bool {
        guard polygon.count >= 3 else { return false }
        var sign = 0.0
        for i in polygon.indices {
            let c = cross(polygon[i], polygon[(i + 1) % polygon.count], polygon[(i + 2) % polygon.count])
            if c == 0 { return false }
            if sign == 0 { sign = c } else if (c > 0) != (sign > 0) { return false }
        }
        return true
    }

    /// The z of (b − a) × (c − b): positive when a → b → c turns counter-clockwise (y up).
    @inline(__always)
    static func cross(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Double {
        (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
    }
}
