import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A growing vine ornament (source 003's line that sprouts branches, which sprout
/// leaves, as it is drawn): a stem along a path draws on over time; branches sprout
/// from it at random points within the limits below and grow as the stem passes;
/// a leaf unfolds at the end of each grown branch. The same `seed` always gives the
/// same vine. The vine is a coverage mask like the text's, lofted and shaded with it.
public struct Vine: Sendable, Equatable {
    /// Where the stem runs.
    public enum Route: Sendable, Equatable {
        /// Under the text's ink, left to right.
        case underline
        /// Over the text's ink, a half ellipse from its left end to its right end.
        case arc
        /// Through these canvas points, in order.
        case points([SIMD2<Double>])
    }

    public var route: Route = .underline
    public var seed: UInt64 = 1
    /// The stem's width in pixels (branches are thinner, tapering to their tips).
    public var width: Double = 6
    /// When the stem starts to grow and how long it takes, in seconds (a still title shows the vine grown).
    public var start: Double = 0
    public var duration: Double = 2
    /// Mean distance along the stem between branch points, in pixels.
    public var branchSpacing: Double = 40
    /// A branch's angle from the stem, in degrees, and its length in pixels: each drawn at random in its range.
    public var branchAngle: ClosedRange<Double> = 25...60
    public var branchLength: ClosedRange<Double> = 18...50
    /// The chance that a branch point sprouts.
    public var branchChance: Double = 0.85
    /// A leaf's length in pixels.
    public var leafSize: Double = 20
    /// How much of it has grown (0…1): set for each frame from `growth(at:)`; a still title's is whole.
    public var grown: Double = 1

    public init() {}

    /// The most points a route may have, and the most branches a vine grows.
    public static let maximumPoints = 4096
    public static let maximumBranches = 2048

    /// How much of the vine has grown at `time`: 0 before `start`, 1 from `start + duration` (eased, as a plant slows).
    public func growth(at time: Double?) -> Double {
        guard let time else { return 1 }
        let t = min(max((time - start) / duration, 0), 1)
        return 1 - (1 - t) * (1 - t)
    }
}

/// A tapered stroke: a polyline whose width changes linearly from point to point.
struct TaperedStroke: Sendable, Equatable {
    var points: [SIMD2<Double>]
    var widths: [Double]
}

extension Vine {
    /// The stem's route in canvas coordinates, for text whose ink is `ink` on the canvas.
    func routePoints(ink: PixelBounds?) -> [SIMD2<Double>] {
        switch route {
        case .points(let points): return points
        case .underline, .arc:
            guard let ink else { return [] }
            let left = Double(ink.minX), right = Double(ink.maxX + 1)
            if route == .underline {
                // A gentle wave, as a stem is never quite straight.
                // Low enough that a branch and its leaf reaching up stay clear of the letters.
                let y = Double(ink.maxY + 1) + width * 2 + (branchLength.upperBound + leafSize) * 0.6
                let amplitude = width * 0.8
                let count = max(Int((right - left) / 6), 1)
                return (0...count).map { k in
                    let x = left + (right - left) * Double(k) / Double(count)
                    return SIMD2(x, y + amplitude * sin((x - left) / 90 * 2 * .pi))
                }
            }
            // A half ellipse over the ink: centre at the ink's middle, just above its top.
            let cx = (left + right) / 2, rx = (right - left) / 2
            let cy = Double(ink.minY) - width * 2 - (branchLength.upperBound + leafSize) * 0.6, ry = max(rx * 0.25, width * 2)
            return (0...48).map { k in
                let a = Double.pi * (1 - Double(k) / 48)
                return SIMD2(cx + rx * cos(a), cy + ry * (1 - sin(a)) - ry)
            }
        }
    }

    /// The strokes of the vine grown to `growth` (0…1) along `route` (canvas points):
    /// the stem, its branches and their leaves.
    func strokes(along route: [SIMD2<Double>], growth: Double) -> [TaperedStroke] {
        let stem = Polyline(route)
        guard stem.length > 0 else { return [] }
        var random = SplitMix64(seed: seed)
        // Branch points first, from the seed alone, so that growth never changes them.
        struct Branch { var at: Double; var side: Double; var angle: Double; var length: Double; var bend: Double }
        var branches: [Branch] = []
        var s = branchSpacing * random.unit(in: 0.5...1.0)
        var side: Double = random.unit(in: 0...1) < 0.5 ? -1 : 1
        while s < stem.length && branches.count < Self.maximumBranches {
            if random.unit(in: 0...1) < branchChance {
                branches.append(Branch(at: s, side: side, angle: random.unit(in: branchAngle) * .pi / 180,
                                       length: random.unit(in: branchLength), bend: random.unit(in: -0.9...0.9)))
                side = -side
            }
            s += branchSpacing * random.unit(in: 0.6...1.4)
        }
        // Growth runs on past the stem's end until the last branch and its leaf are whole.
        let last = branches.last.map { $0.at + $0.length + leafSize } ?? 0
        let grown = growth * max(stem.length, last)
        var strokes: [TaperedStroke] = []
        // The stem, thinner over its last few widths while it grows.
        let stemPoints = stem.points(upTo: grown, step: 2)
        if stemPoints.count >= 2 {
            let tip = width * 4
            strokes.append(TaperedStroke(points: stemPoints, widths: stemPoints.indices.map { i in
                let fromTip = grown - Double(i) * 2
                return grown >= stem.length ? width : width * (0.45 + 0.55 * min(max(fromTip / tip, 0), 1))
            }))
        }
        for branch in branches where branch.at < grown {
            // A branch grows as fast as the stem, from when the stem's tip passes it.
            let length = min(branch.length, grown - branch.at)
            let base = stem.point(at: branch.at), tangent = stem.tangent(at: branch.at)
            let normal = SIMD2(-tangent.y, tangent.x) * branch.side
            let direction = tangent * cos(branch.angle) + normal * sin(branch.angle)
            // A gentle curve: the direction turns by `bend` radians over the branch.
            var points: [SIMD2<Double>] = [base], widths: [Double] = [width * 0.6]
            let steps = max(Int(length / 2), 1)
            var p = base
            for k in 1...steps {
                let u = Double(k) / Double(steps)
                let turn = branch.bend * Double(k - 1) / Double(steps) * branch.side
                let d = SIMD2(direction.x * cos(turn) - direction.y * sin(turn), direction.x * sin(turn) + direction.y * cos(turn))
                p += d * (length / Double(steps))
                points.append(p)
                widths.append(width * (0.6 - 0.3 * u * length / branch.length))
            }
            strokes.append(TaperedStroke(points: points, widths: widths))
            // The leaf unfolds over a leaf's length of growth after the branch is whole.
            let unfolded = min(max((grown - branch.at - branch.length) / max(leafSize, 1), 0), 1)
            guard length >= branch.length, unfolded > 0, leafSize > 0, points.count >= 2 else { continue }
            let end = points[points.count - 1], along = end - points[points.count - 2]
            let axis = along / max((along * along).sum().squareRoot(), 1e-9)
            strokes.append(Self.leaf(at: end, axis: axis, length: leafSize * unfolded))
        }
        return strokes
    }

    /// A leaf: a stroke along `axis` whose width swells and narrows (a willow leaf's outline).
    static func leaf(at base: SIMD2<Double>, axis: SIMD2<Double>, length: Double) -> TaperedStroke {
        let n = 12
        let points = (0...n).map { base + axis * (length * Double($0) / Double(n)) }
        let widths = (0...n).map { k -> Double in
            let u = Double(k) / Double(n)
            return length * 0.5 * pow(sin(Double.pi * u), 0.8) * (1 - 0.3 * u)
        }
        return TaperedStroke(points: points, widths: widths)
    }
}

private func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }

/// A polyline measured by arc length.
struct Polyline {
    let vertices: [SIMD2<Double>]
    /// Arc length at each vertex.
    let lengths: [Double]
    var length: Double { lengths.last ?? 0 }

    init(_ vertices: [SIMD2<Double>]) {
        self.vertices = vertices
        var total = 0.0
        lengths = vertices.indices.map { i in
            if i > 0 { total += distance(vertices[i], vertices[i - 1]) }
            return total
        }
    }

    /// The segment holding arc length `s` and how far along it (0…1).
    private func locate(_ s: Double) -> (Int, Double) {
        var lo = 0, hi = vertices.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if lengths[mid] <= s { lo = mid } else { hi = mid }
        }
        let span = lengths[hi] - lengths[lo]
        return (lo, span > 0 ? min(max((s - lengths[lo]) / span, 0), 1) : 0)
    }

    func point(at s: Double) -> SIMD2<Double> {
        guard vertices.count > 1 else { return vertices.first ?? .zero }
        let (i, u) = locate(s)
        return vertices[i] + (vertices[i + 1] - vertices[i]) * u
    }

    func tangent(at s: Double) -> SIMD2<Double> {
        guard vertices.count > 1 else { return SIMD2(1, 0) }
        let (i, _) = locate(s)
        let d = vertices[i + 1] - vertices[i]
        let l = (d * d).sum().squareRoot()
        return l > 0 ? d / l : SIMD2(1, 0)
    }

    /// Points every `step` of arc length from 0 to `end`, and `end` itself.
    func points(upTo end: Double, step: Double) -> [SIMD2<Double>] {
        let end = min(end, length)
        guard end > 0 else { return [] }
        var result = stride(from: 0.0, to: end, by: step).map { point(at: $0) }
        result.append(point(at: end))
        return result
    }
}

/// A small seeded generator (SplitMix64), so that a vine's `seed` gives the same vine
/// on every machine and every run; Swift's own generator cannot be seeded.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `range`.
    mutating func unit(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * Double(next() >> 11) / Double(1 << 53)
    }
}

/// Tapered strokes drawn into a coverage mask: each segment a capsule whose radius
/// goes linearly from one end's to the other's, anti-aliased over one pixel; where
/// strokes overlap, a pixel keeps its largest coverage.
enum StrokeRaster {
    /// Draws `strokes` into `mask`, whose top-left pixel is at `origin` on the canvas.
    static func draw(_ strokes: [TaperedStroke], into mask: inout Mask, origin: SIMD2<Int>) {
        let (w, h) = (mask.width, mask.height)
        mask.withUnsafeMutableBufferPointer { out in draw(strokes, into: out.baseAddress!, width: w, rows: 0..<h, origin: origin) }
    }

    /// Draws `strokes` into rows `rows` of a mask `width` pixels wide whose top-left pixel
    /// is at `origin` on the canvas; `out` holds those rows (`width` values a row, from the first):
    /// each pixel as the whole mask has it (a vine's rows are drawn a few at a time, `VineRowSource`).
    static func draw(_ strokes: [TaperedStroke], into out: UnsafeMutablePointer<Float>, width w: Int, rows: Range<Int>,
                     origin: SIMD2<Int>) {
        let o = SIMD2(Double(origin.x), Double(origin.y))
        for stroke in strokes {
            let points = stroke.points.map { $0 - o }
            for i in 0..<max(points.count - 1, 1) {
                let j = min(i + 1, points.count - 1)
                let a = points[i], b = points[j]
                let ra = stroke.widths[i] / 2, rb = stroke.widths[j] / 2
                let reach = max(ra, rb) + 1
                let e = b - a, length2 = (e * e).sum()
                guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite, reach.isFinite else { continue }
                // The box's pixels within the rows (clamped before they become integers: a point may lie far off).
                func within(_ v: Double, _ range: Range<Int>) -> Int {
                    Int(min(max(v, Double(range.lowerBound)), Double(range.upperBound)))
                }
                let x0 = within((min(a.x, b.x) - reach).rounded(.down), 0..<w)
                let x1 = within((max(a.x, b.x) + reach).rounded(.up), 0..<w)
                let y0 = within((min(a.y, b.y) - reach).rounded(.down), rows)
                let y1 = within((max(a.y, b.y) + reach).rounded(.up), rows)
                guard x0 < x1, y0 < y1 else { continue }
                for y in y0..<y1 {
                    let row = out + (y - rows.lowerBound) * w
                    for x in x0..<x1 {
                        let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5) - a
                        let t = length2 > 1e-12 ? min(max((p * e).sum() / length2, 0), 1) : 0
                        let d = p - e * t
                        let radius = ra + (rb - ra) * t
                        let coverage = Float(min(max(radius + 0.5 - (d * d).sum().squareRoot(), 0), 1))
                        if coverage > row[x] { row[x] = coverage }
                    }
                }
            }
        }
    }

    /// The canvas box the strokes cover (with a pixel for anti-aliasing), or nil when empty.
    static func bounds(_ strokes: [TaperedStroke]) -> PixelBounds? {
        var lo = SIMD2(Double.infinity, .infinity), hi = -lo
        for stroke in strokes {
            for (p, width) in zip(stroke.points, stroke.widths) where p.x.isFinite && p.y.isFinite {
                lo = pointwiseMin(lo, p - width / 2 - 1)
                hi = pointwiseMax(hi, p + width / 2 + 1)
            }
        }
        guard lo.x <= hi.x, lo.y <= hi.y else { return nil }
        return PixelBounds(minX: Int(lo.x.rounded(.down)), minY: Int(lo.y.rounded(.down)),
                           maxX: Int(hi.x.rounded(.up)), maxY: Int(hi.y.rounded(.up)))
    }
}

extension Vine {
    /// The title's mask (`mask` at `origin` on a `canvas`) with the vine, grown as far
    /// as `grown`, drawn in: the region widened to the vine (within the canvas) plus
    /// the margin the loft needs, each pixel the larger of the two coverages.
    func drawn(with mask: Mask, at origin: (x: Int, y: Int), canvas: (width: Int, height: Int),
               margin: Int) -> (mask: Mask, origin: (x: Int, y: Int)) {
        let ink = mask.inkBounds(threshold: 0).map {
            PixelBounds(minX: $0.minX + origin.x, minY: $0.minY + origin.y, maxX: $0.maxX + origin.x, maxY: $0.maxY + origin.y)
        }
        let region = PixelBounds(minX: origin.x, minY: origin.y, maxX: origin.x + mask.width - 1, maxY: origin.y + mask.height - 1)
        guard let (strokes, widened) = layout(ink: ink, region: region, canvas: canvas, margin: margin) else { return (mask, origin) }
        let (x0, y0) = (widened.minX, widened.minY)
        var drawn = Mask(width: widened.width, height: widened.height, repeating: 0)
        // The text's region lies inside the widened one (both within the canvas).
        let w = drawn.width
        mask.withUnsafeBufferPointer { source in
            drawn.withUnsafeMutableBufferPointer { target in
                for y in 0..<mask.height {
                    (target.baseAddress! + (origin.y + y - y0) * w + (origin.x - x0))
                        .update(from: source.baseAddress! + y * mask.width, count: mask.width)
                }
            }
        }
        StrokeRaster.draw(strokes, into: &drawn, origin: SIMD2(x0, y0))
        return (drawn, (x0, y0))
    }

    /// The vine's strokes, grown as far as `grown`, for a title whose ink is `ink` and
    /// region `region` (both on the canvas), and that region widened to the strokes
    /// (within the canvas) plus the margin the loft needs; nil when the vine draws nothing.
    func layout(ink: PixelBounds?, region: PixelBounds, canvas: (width: Int, height: Int),
                margin: Int) -> (strokes: [TaperedStroke], region: PixelBounds)? {
        let strokes = self.strokes(along: routePoints(ink: ink), growth: grown)
        guard let box = StrokeRaster.bounds(strokes) else { return nil }
        let x0 = max(min(region.minX, box.minX - margin), 0), y0 = max(min(region.minY, box.minY - margin), 0)
        let x1 = min(max(region.maxX + 1, box.maxX + margin + 1), canvas.width)
        let y1 = min(max(region.maxY + 1, box.maxY + margin + 1), canvas.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return (strokes, PixelBounds(minX: x0, minY: y0, maxX: x1 - 1, maxY: y1 - 1))
    }
}
