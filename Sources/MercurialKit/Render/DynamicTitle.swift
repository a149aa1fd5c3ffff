import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A title whose glyphs (or words) are rigid bodies: each piece's mask, height
/// field and normals are made once; each frame steps the physics to the frame's
/// time and draws every piece at its body's position and angle, with its normals
/// turned by the same angle before the shading lookup, so the lights stay fixed in
/// the world while a letter spins (its highlights slide over it).
final class DynamicTitle {
    /// One body's picture, in its own pixels.
    struct Piece {
        var mask: Mask
        var normals: SurfaceNormals
        /// Where the mask's top-left pixel sits on the canvas at rest (as laid out).
        var origin: SIMD2<Double>
        /// The centre of mass in the mask's pixels.
        var centroid: SIMD2<Double>
        /// The body's outline around the centre of mass (at most 12 vertices).
        var hull: [SIMD2<Double>]
        /// The inked part of the mask.
        var ink: PixelBounds
        /// The look each pixel of the mask is shaded with (styled runs); nil: the title's.
        var looks: LookPlane? = nil
        /// The colours a colour emoji keeps over the mask; nil: none.
        var paint: PaintPlane? = nil
    }

    static let maximumBodies = 2_000

    let pieces: [Piece]
    let ropes: [Dynamics.Rope]
    /// Where each rope is drawn to: the top of the ink below the point it is tied to.
    private let ropeEnds: [SIMD2<Double>]
    /// What the ropes are lofted with (the title's shape settings).
    private let ropeShape: TitleShapeSettings
    private let ropeMargin: Int
    let world: PhysicsWorld
    let width: Int, height: Int
    /// The glyphs drawn over a clear canvas (straight alpha), before the backdrop.
    private var layer: Image<RGBA8>
    /// The rows of `layer` the last frame drew on (only those are cleared).
    private var drawnRows: Range<Int> = 0..<0

    /// `seconds`: how far the animation runs (for the physics' budget, checked before any work).
    init(settings: RenderSettings, dynamics: Dynamics, width: Int, height: Int, seconds: Double = 0,
         budget: Int = PhysicsWorld.defaultBudget) throws(MercurialError) {
        guard settings.mask == nil, let text = settings.text else {
            throw MercurialError("\"dynamics\" moves the glyphs of a text; give \"text\" instead of \"mask\"")
        }
        let placement = try TextMask.place(try TitleRenderer.textLayout(settings, text: text), frame: settings.textFrame)
        guard placement.canvasWidth == width && placement.canvasHeight == height else {
            throw MercurialError("the title's canvas is \(placement.canvasWidth)×\(placement.canvasHeight), not \(width)×\(height)")
        }
        let groups = Self.group(placement.run.bitmaps, into: dynamics.bodies)
        guard groups.count <= Self.maximumBodies else {
            throw MercurialError.limit("the title has \(groups.count) glyphs, over the limit of \(Self.maximumBodies) bodies for \"dynamics\"; use shorter text or \"bodies\": \"words\"")
        }
        let bodies = groups.count + dynamics.ropes.reduce(0) { $0 + $1.segments }
        let least = PhysicsWorld.leastWork(bodies: bodies, seconds: seconds, dynamics: dynamics)
        guard least <= Double(budget) else {
            let steps = Int(least) / max(bodies, 1)
            throw MercurialError.limit("\"dynamics\" would take at least \(Int(least)) body-steps (\(bodies) bodies\(dynamics.ropes.isEmpty ? "" : ", rope links included") × \(steps) steps: \(formatNumber(seconds)) s at \(formatNumber(dynamics.stepsPerSecond)) steps a second), over the physics budget of \(budget); \(PhysicsWorld.budgetAdvice)")
        }
        let margin = settings.loftMargin
        var pieces: [Piece] = []
        for group in groups {
            // Canvas position of each bitmap's top-left pixel.
            let dx = placement.originX + placement.offsetX, dy = placement.originY + placement.offsetY
            let minX = group.map { $0.left + dx }.min() ?? 0, minY = group.map { $0.top + dy }.min() ?? 0
            let maxX = group.map { $0.left + dx + $0.width }.max() ?? 0, maxY = group.map { $0.top + dy + $0.height }.max() ?? 0
            let run = GlyphRun(bitmaps: group)
            let mask = run.draw(width: maxX - minX + 2 * margin, height: maxY - minY + 2 * margin,
                                offsetX: dx - minX + margin, offsetY: dy - minY + margin)
            guard let ink = mask.inkBounds(threshold: 0) else { continue }
            let outline = ConvexHull.body(of: Self.hullPoints(mask), maximumVertices: 12)
            let centroid = ConvexHull.centroid(outline)
            let looks = run.drawLooks(width: mask.width, height: mask.height, offsetX: dx - minX + margin, offsetY: dy - minY + margin)
            let paint = run.drawPaint(width: mask.width, height: mask.height, offsetX: dx - minX + margin, offsetY: dy - minY + margin)
            let normals = TitleShape.lofted(mask, settings.shape, paint: paint).keptNormals
            pieces.append(Piece(mask: mask, normals: normals,
                                origin: SIMD2(Double(minX - margin), Double(minY - margin)),
                                centroid: centroid, hull: outline.map { $0 - centroid }, ink: ink, looks: looks, paint: paint))
        }
        self.pieces = pieces
        self.width = width
        self.height = height
        var ropes: [PhysicsWorld.RopeSpec] = []
        var ropeEnds: [SIMD2<Double>] = []
        for (i, rope) in dynamics.ropes.enumerated() {
            guard rope.body < pieces.count else {
                let at = rope.bodyLocation.map { "\($0): " } ?? ""
                throw MercurialError("\(at)\"dynamics.ropes[\(i)].body\" is \(rope.body), but the title has \(pieces.count) bodies (numbered from 0); use 0…\(pieces.count - 1)")
            }
            let piece = pieces[rope.body]
            let attachment = Self.topOfHull(piece)
            ropeEnds.append(Self.topOfInk(piece))
            let tied = piece.origin + piece.centroid + attachment
            ropes.append(PhysicsWorld.RopeSpec(body: rope.body, anchor: rope.anchor ?? SIMD2(tied.x, 0),
                                               attachment: attachment, segments: rope.segments,
                                               width: rope.width, density: rope.density))
        }
        let hung = Set(ropes.map(\.body))
        let specs = pieces.enumerated().map { i, p in
            PhysicsWorld.BodySpec(vertices: p.hull, position: p.origin + p.centroid,
                                  elasticity: dynamics.elasticity(of: i), friction: dynamics.friction(of: i),
                                  density: dynamics.density(of: i),
                                  release: hung.contains(i) ? 0 : dynamics.releaseTime(of: i))
        }
        world = PhysicsWorld(specs: specs, ropes: ropes, dynamics: dynamics, canvasWidth: width, canvasHeight: height,
                             budget: budget)
        self.ropes = dynamics.ropes
        self.ropeEnds = ropeEnds
        ropeShape = settings.shape
        ropeMargin = margin
        layer = Image(width: width, height: height, repeating: .clear)
    }

    /// The inked glyph bitmaps grouped into bodies (each glyph, each word, or the whole
    /// title), in text order: the physics' bodies and a reveal's letters.
    static func group(_ bitmaps: [GlyphRun.Bitmap], into bodies: Dynamics.Bodies) -> [[GlyphRun.Bitmap]] {
        var groups: [[GlyphRun.Bitmap]] = []
        var lastWord = -1
        for bitmap in bitmaps where !bitmap.coverage.isEmpty && bitmap.coverage.contains(where: { $0 > 0 }) {
            if bodies == .title || (bodies == .words && bitmap.word == lastWord), !groups.isEmpty {
                groups[groups.count - 1].append(bitmap)
            } else {
                groups.append([bitmap])
            }
            lastWord = bitmap.word
        }
        return groups
    }

    /// The corners of the pixels a body is made of (coverage ≥ ½, or any ink when
    /// none is that dark): only the first and last such pixel of each row, as the
    /// hull needs no more.
    static func hullPoints(_ mask: Mask) -> [SIMD2<Double>] {
        var points: [SIMD2<Double>] = []
        for threshold: Float in [0.5, 0] where points.isEmpty {
            mask.withUnsafeBufferPointer { m in
                for y in 0..<mask.height {
                    let row = y * mask.width
                    guard let first = (0..<mask.width).first(where: { m[row + $0] > threshold }),
                          let last = (0..<mask.width).last(where: { m[row + $0] > threshold }) else { continue }
                    for x in [first, last + 1] {
                        points.append(SIMD2(Double(x), Double(y)))
                        points.append(SIMD2(Double(x), Double(y + 1)))
                    }
                }
            }
        }
        return points
    }

    /// Where a rope is tied to `piece`, around its centre of mass: the top of its
    /// outline straight above the centre of mass, so that it hangs upright (a rope
    /// tied to the ink there, often just above the centre, would let it turn over).
    static func topOfHull(_ piece: Piece) -> SIMD2<Double> {
        var top = Double.infinity
        for i in piece.hull.indices {
            let a = piece.hull[i], b = piece.hull[(i + 1) % piece.hull.count]
            guard (a.x <= 0 && b.x >= 0) || (b.x <= 0 && a.x >= 0) else { continue }
            let y = a.x == b.x ? min(a.y, b.y) : a.y + (0 - a.x) / (b.x - a.x) * (b.y - a.y)
            top = min(top, y)
        }
        return SIMD2(0, top.isFinite ? top : piece.hull.map(\.y).min() ?? 0)
    }

    /// Where a rope is drawn to on `piece`, around its centre of mass: the top of the ink
    /// in the column of the centre of mass (or the nearest inked column), 2 px in.
    static func topOfInk(_ piece: Piece) -> SIMD2<Double> {
        let mask = piece.mask
        let centre = min(max(Int(piece.centroid.x), 0), mask.width - 1)
        for offset in 0..<mask.width {
            for x in [centre - offset, centre + offset] where x >= 0 && x < mask.width {
                if let y = (0..<mask.height).first(where: { mask[x, $0] >= 0.5 }) {
                    return SIMD2(Double(x) + 0.5, Double(y) + 2) - piece.centroid
                }
            }
        }
        return SIMD2(0, Double(piece.ink.minY) - piece.centroid.y)
    }

    /// The path of rope `index` now, through its links' centres, smoothed.
    func ropePath(_ index: Int) -> [SIMD2<Double>] {
        var points = world.ropePath(index)
        guard index < ropes.count, let pose = world.poses.dropFirst(ropes[index].body).first else { return points }
        // On down to the ink, turned with the body.
        let end = ropeEnds[index], c = cos(pose.angle), s = sin(pose.angle)
        points.append(SIMD2(c * end.x - s * end.y + pose.x, s * end.x + c * end.y + pose.y))
        return RopeStroke.smoothPath(points)
    }

    /// The bodies' poses at `time`.
    func poses(at time: Double) -> [BodyPose] {
        world.advance(to: time)
        return world.poses
    }

    /// Draws the title with its bodies at `poses` (the physics animator's, with `world`
    /// stepped to them) and `settings`' lights, point lights and backdrop into `canvas`.
    func render(poses: [BodyPose], settings: RenderSettings, shading: ShadingLookup, into canvas: inout Image<RGBA8>) {
        let rows = drawnRows, width = self.width
        layer.withUnsafeMutableBufferPointer { p in
            if !rows.isEmpty { (p.baseAddress! + rows.lowerBound * width).update(repeating: .clear, count: rows.count * width) }
        }
        var top = height, bottom = 0
        // Ropes first, behind the letters: stroked, lofted and shaded like them.
        for (i, rope) in ropes.enumerated() {
            guard let (mask, origin) = RopeStroke.mask(ropePath(i), width: rope.width, margin: ropeMargin,
                                                       clip: (width, height)),
                  let ink = mask.inkBounds(threshold: 0) else { continue }
            let normals = TitleShape.lofted(mask, ropeShape).keptNormals
            let piece = Piece(mask: mask, normals: normals, origin: SIMD2(Double(origin.x), Double(origin.y)),
                              centroid: .zero, hull: [], ink: ink)
            if let drawn = Self.draw(piece, at: BodyPose(x: piece.origin.x, y: piece.origin.y, angle: 0),
                                     shading: shading, into: &layer) {
                top = min(top, drawn.lowerBound)
                bottom = max(bottom, drawn.upperBound)
            }
        }
        for (piece, pose) in zip(pieces, poses) {
            if let drawn = Self.draw(piece, at: pose, shading: shading, into: &layer) {
                top = min(top, drawn.lowerBound)
                bottom = max(bottom, drawn.upperBound)
            }
        }
        drawnRows = top < bottom ? top..<bottom : 0..<0
        Compositing(settings).draw(&layer, at: (0, 0), into: &canvas, shading: shading)
    }

    /// Draws `piece` turned by `pose.angle` about its centre of mass, which goes to
    /// (`pose.x`, `pose.y`), over `layer` (straight alpha): each canvas pixel samples
    /// the piece's coverage and normals bilinearly, turns the normal by the angle and
    /// looks its colour up in the shading sphere.
    /// Returns the rows it may have drawn on.
    @discardableResult
    static func draw(_ piece: Piece, at pose: BodyPose, shading: ShadingLookup, into layer: inout Image<RGBA8>) -> Range<Int>? {
        let c = cos(pose.angle), s = sin(pose.angle)
        let centre = piece.centroid
        // The inked rectangle's corners, on the canvas.
        var lo = SIMD2<Double>(.infinity, .infinity), hi = -lo
        for (x, y) in [(piece.ink.minX - 1, piece.ink.minY - 1), (piece.ink.maxX + 2, piece.ink.minY - 1),
                       (piece.ink.minX - 1, piece.ink.maxY + 2), (piece.ink.maxX + 2, piece.ink.maxY + 2)] {
            let d = SIMD2(Double(x), Double(y)) - centre
            let q = SIMD2(c * d.x - s * d.y + pose.x, s * d.x + c * d.y + pose.y)
            lo = pointwiseMin(lo, q)
            hi = pointwiseMax(hi, q)
        }
        guard lo.x.isFinite, lo.y.isFinite, hi.x.isFinite, hi.y.isFinite else { return nil }
        let x0 = max(Int(lo.x.rounded(.down)), 0), x1 = min(Int(hi.x.rounded(.up)), layer.width)
        let y0 = max(Int(lo.y.rounded(.down)), 0), y1 = min(Int(hi.y.rounded(.up)), layer.height)
        guard x0 < x1, y0 < y1 else { return nil }
        let w = piece.mask.width, h = piece.mask.height, layerWidth = layer.width
        let fc = Float(c), fs = Float(s)
        let inkLow = SIMD2(Double(piece.ink.minX) - 1, Double(piece.ink.minY) - 1)
        let inkHigh = SIMD2(Double(piece.ink.maxX) + 1, Double(piece.ink.maxY) + 1)
        let paintPixels = piece.paint?.pixels
        piece.mask.withUnsafeBufferPointer { a in
            piece.normals.xy.withUnsafeBufferPointer { n in
                LookPlane.withOptionalBuffer(piece.looks) { looks in
                shading.withSampler { shading in
                    layer.withUnsafeMutableBufferPointer { out in
                        parallelBands(y1 - y0, minimumBand: 8) { rows in
                            for y in (rows.lowerBound + y0)..<(rows.upperBound + y0) {
                                // Canvas → piece: turn back by the angle about the centre of mass.
                                let dy = Double(y) + 0.5 - pose.y
                                // Only the x where the sample falls in the inked rectangle:
                                // u and v are linear in x, so each bound is an interval of x.
                                var first = Double(x0), last = Double(x1)
                                for (slope, at, low, high) in [(c, s * dy + centre.x - 0.5 - c * pose.x, inkLow.x, inkHigh.x),
                                                               (-s, c * dy + centre.y - 0.5 + s * pose.x, inkLow.y, inkHigh.y)] {
                                    // low < slope · (x + 0.5) + at < high
                                    if abs(slope) < 1e-12 {
                                        if at + slope * 0.5 <= low || at + slope * 0.5 >= high { last = first }
                                    } else {
                                        let a = (low - at) / slope - 0.5, b = (high - at) / slope - 0.5
                                        first = max(first, min(a, b).rounded(.down))
                                        last = min(last, max(a, b).rounded(.up) + 1)
                                    }
                                }
                                guard first < last else { continue }
                                let xa = Int(first), xb = Int(last)
                                var dx = Double(xa) + 0.5 - pose.x
                                let row = out.baseAddress! + y * layerWidth
                                for x in xa..<xb {
                                    // Sample position (pixel centres at i + 0.5).
                                    let u = c * dx + s * dy + centre.x - 0.5
                                    let v = -s * dx + c * dy + centre.y - 0.5
                                    dx += 1
                                    // The mask's margin is empty, so its outermost pixels need no sampling.
                                    guard u >= 0 && v >= 0 && u < Double(w - 1) && v < Double(h - 1) else { continue }
                                    let i0 = Int(u), j0 = Int(v)
                                    let k = j0 * w + i0
                                    let a00 = a[k], a10 = a[k + 1], a01 = a[k + w], a11 = a[k + w + 1]
                                    guard a00 + a10 + a01 + a11 > 0 else { continue }
                                    let tx = Float(u - Double(i0)), ty = Float(v - Double(j0))
                                    // Bilinear weights times coverage; the normals are averaged by them.
                                    let w00 = (1 - tx) * (1 - ty) * a00, w10 = tx * (1 - ty) * a10
                                    let w01 = (1 - tx) * ty * a01, w11 = tx * ty * a11
                                    let alpha = w00 + w10 + w01 + w11
                                    guard alpha > 1e-4 else { continue }
                                    let nx = (w00 * n[k].x + w10 * n[k + 1].x + w01 * n[k + w].x + w11 * n[k + w + 1].x) / alpha
                                    let ny = (w00 * n[k].y + w10 * n[k + 1].y + w01 * n[k + w].y + w11 * n[k + w + 1].y) / alpha
                                    // The normal turned with the piece (normals are y-up, the canvas y-down).
                                    let rx = fc * nx + fs * ny, ry = -fs * nx + fc * ny
                                    // A styled run's look, and an emoji's kept colour: those of the nearest of the four pixels.
                                    let nearest = k + (ty < 0.5 ? 0 : w) + (tx < 0.5 ? 0 : 1)
                                    let look = looks.map { $0[nearest] } ?? 0
                                    var colour = shading.color(at: shading.position(normalX: rx, normalY: ry, look: look))
                                    let a = min(alpha, 1)
                                    if let paint = paintPixels, paint[nearest].a > 0 {
                                        let lit = ShadedMaterial.painted(RGBA8(colour, alpha: 1, over: nil), by: paint[nearest])
                                        colour = RGBColor(r: Float(lit.r) / 255, g: Float(lit.g) / 255, b: Float(lit.b) / 255)
                                    }
                                    // Over another piece (or a rope), stacked; else as it is.
                                    row[x] = row[x].a == 0 ? PixelStack.pixel(colour, alpha: a)
                                        : PixelStack.pixel(PixelStack.over(SIMD4(colour.r * a, colour.g * a, colour.b * a, a),
                                                                           PixelStack.premultiplied(row[x])))
                                }
                            }
                        }
                    }
                }
                }
            }
        }
        return y0..<y1
    }
}

extension GlyphRun {
    /// A run of already rasterised glyphs.
    init(bitmaps: [Bitmap]) {
        self.init(missing: [])
        self.bitmaps = bitmaps
    }
}
