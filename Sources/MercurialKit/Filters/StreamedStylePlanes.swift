/// Rows of `width` values kept in order, the rows from `first` to `end`: a window down
/// an image too large to hold, which drops its rows from the top as they are used.
struct RowWindow<Value> {
    let width: Int
    private(set) var first: Int
    private var storage: [Value] = []

    /// `reserving`: room for that many rows from the start (a whole plane's).
    init(width: Int, first: Int = 0, reserving rows: Int = 0) {
        self.width = width
        self.first = first
        storage.reserveCapacity(rows * width)
    }

    var end: Int { first + storage.count / width }

    mutating func append(_ row: UnsafePointer<Value>) {
        storage.append(contentsOf: UnsafeBufferPointer(start: row, count: width))
    }

    /// Forgets the rows above `y`.
    mutating func drop(below y: Int) {
        let n = min(max(y - first, 0), end - first)
        storage.removeFirst(n * width)
        first += n
    }

    /// A copy of `rows` (all held); all the rows held are given as they are, not copied.
    func copy(_ rows: Range<Int>) -> [Value] {
        if rows == first..<end { return storage }
        return Array(storage[(rows.lowerBound - first) * width..<(rows.upperBound - first) * width])
    }

    func withRow<R>(_ y: Int, _ body: (UnsafePointer<Value>) -> R) -> R {
        storage.withUnsafeBufferPointer { body($0.baseAddress! + (y - first) * width) }
    }

    /// Every held row: `row(y)` is held row `y`, or nil when it is not held.
    func withRows<R>(_ body: (_ row: (Int) -> UnsafePointer<Value>?) -> R) -> R {
        storage.withUnsafeBufferPointer { held in
            body { y in y >= first && y < end ? held.baseAddress.map { $0 + (y - first) * width } : nil }
        }
    }
}

/// A step of a style plane made a row at a time, top to bottom: it is given the rows
/// in order (`push`), then told there are no more (`finish`), and hands its rows on as
/// each is made.
private protocol PlaneStep: AnyObject {
    func push(_ row: UnsafeMutablePointer<Float>)
    func finish()
}

/// The rows as they are finished: what the band being drawn reads (and a metal stroke's outline, `then`).
private final class FinishedRows: PlaneStep {
    var rows: RowWindow<Float>
    let then: (any PlaneStep)?
    init(width: Int, reserving: Int, then: (any PlaneStep)?) {
        rows = RowWindow(width: width, reserving: reserving)
        self.then = then
    }
    func push(_ row: UnsafeMutablePointer<Float>) {
        rows.append(row)
        then?.push(row)
    }
    func finish() { then?.finish() }
}

/// A stroke in the title's metal, streamed: its plane's finished rows lofted and shaded
/// `chunk` rows at a time, each from a window of the plane's rows and the title's
/// coverage reaching `reach` rows either side (`LayerStylePlanes.metalReach`), by the
/// whole plane's code (`LayerStylePlanes.metalOutline`), then lit by the point lights
/// where the rows sit on the canvas. It holds the shaded rows not yet dropped.
final class StreamedMetalOutline: PlaneStep {
    let bounds: PixelBounds, chunk: Int, reach: Int
    let stroke: Stroke
    let metal: StrokeMetal
    private var ring: RowWindow<Float>, ink: RowWindow<Float>
    private(set) var shaded: RowWindow<RGBA8>
    private var done = 0

    init(bounds: PixelBounds, stroke: Stroke, metal: StrokeMetal, chunk: Int) {
        (self.bounds, self.stroke, self.metal) = (bounds, stroke, metal)
        reach = LayerStylePlanes.metalReach(metal.loft, stroke: stroke)
        self.chunk = max(chunk, 2 * reach)
        (ring, ink, shaded) = (RowWindow(width: bounds.width), RowWindow(width: bounds.width), RowWindow(width: bounds.width))
    }

    /// The rows of values and pixels it holds at most besides the shaded rows: its windows
    /// of plane and coverage rows, and a step's masks, heights, normals (two values) and pixels.
    var stepRows: Int { 2 * (chunk + 2 * reach + 1) + 6 * (chunk + 2 * reach) }

    /// The rows the outline lags its plane by.
    var delay: Int { chunk + reach }

    /// The title's coverage placed in the plane, a row (they come before the plane's rows).
    func pushCoverage(_ row: UnsafeMutablePointer<Float>) { ink.append(row) }

    func push(_ row: UnsafeMutablePointer<Float>) {
        ring.append(row)
        while done < bounds.height && ring.end >= min(done + chunk + reach, bounds.height) { step() }
    }

    func finish() {
        while done < bounds.height { step() }
    }

    private func step() {
        let w = bounds.width
        let lo = max(done - reach, 0), hi = min(done + chunk + reach, ring.end), last = min(done + chunk, hi)
        let (coverage, normals) = LayerStylePlanes.metalOutline(
            ring: Mask(width: w, height: hi - lo, pixels: ring.copy(lo..<hi)),
            ink: Mask(width: w, height: hi - lo, pixels: ink.copy(lo..<hi)), stroke: stroke, loft: metal.loft)
        let rows = (done - lo) * w..<(last - lo) * w
        var image = Image<RGBA8>(width: w, height: last - done, repeating: .clear)
        ShadedMaterial.shade(normals: SurfaceNormals(width: w, height: last - done, xy: Array(normals.xy[rows])),
                             coverage: Mask(width: w, height: last - done, pixels: Array(coverage.pixels[rows])),
                             shading: metal.shading, into: &image)
        metal.lighting?.apply(to: &image, originX: bounds.minX, originY: bounds.minY + done)
        image.withUnsafeBufferPointer { p in
            for y in 0..<image.height { shaded.append(p.baseAddress! + y * w) }
        }
        done = last
        ring.drop(below: done - reach)
        ink.drop(below: done - reach)
    }

    /// Forgets the shaded rows above `y` (from the plane's top).
    func drop(below y: Int) { shaded.drop(below: y) }
}

/// A recipe's distance-field step over windows of rows: `chunk` rows at a time, from
/// them and `reach` rows either side (`PlaneRecipe.shapeReach`: no row further can change them).
private final class WindowedShape: PlaneStep {
    let width: Int, height: Int, reach: Int, chunk: Int
    let shape: (Mask) -> [Float]
    let next: any PlaneStep
    private var input: RowWindow<Float>
    private var done = 0

    init(width: Int, height: Int, reach: Int, chunk: Int, shape: @escaping (Mask) -> [Float], next: any PlaneStep) {
        (self.width, self.height, self.reach, self.chunk, self.shape, self.next) = (width, height, reach, chunk, shape, next)
        // Room for the rows of its first window at once.
        input = RowWindow(width: width, reserving: min(chunk + reach, height))
    }

    func push(_ row: UnsafeMutablePointer<Float>) {
        input.append(row)
        while done < height && input.end >= min(done + chunk + reach, height) { step() }
    }

    func finish() {
        while done < height { step() }
        next.finish()
    }

    private func step() {
        let lo = max(done - reach, 0), hi = min(done + chunk + reach, input.end)
        var values = shape(Mask(width: width, height: hi - lo, pixels: input.copy(lo..<hi)))
        let last = min(done + chunk, hi)
        values.withUnsafeMutableBufferPointer { v in
            for y in done..<last { next.push(v.baseAddress! + (y - lo) * width) }
        }
        done = last
        input.drop(below: done - reach)
    }
}

/// One of a plane's three box passes (`BoxBlur`), streamed: rows are taken `batch` at a
/// time, blurred along on both cores, then down the columns (split between the cores)
/// with running sums, added and taken in the same order whatever the bands, so each
/// value of a band is the whole plane's to the last bit.
private final class StreamedBoxPass: PlaneStep {
    static let batch = 32
    let width: Int, height: Int, radius: Int
    let next: any PlaneStep
    private let scale: Float
    /// The rows received, blurred along once a batch is full: the batch and the 2·radius
    /// rows before it, which the sums take away again.
    private let capacity: Int
    private var ring: [Float]
    private var sums: [Float], out: [Float]
    private var received = 0, summed = 0

    init(width: Int, height: Int, radius: Int, next: any PlaneStep) {
        (self.width, self.height, self.radius, self.next) = (width, height, radius, next)
        scale = 1 / Float(2 * radius + 1)
        capacity = Self.batch + 2 * radius + 1
        ring = [Float](repeating: 0, count: capacity * width)
        sums = [Float](repeating: 0, count: width)
        out = [Float](repeating: 0, count: (Self.batch + radius) * width)
    }

    func push(_ row: UnsafeMutablePointer<Float>) {
        let (w, slot) = (width, received % capacity * width)
        ring.withUnsafeMutableBufferPointer { ($0.baseAddress! + slot).update(from: row, count: w) }
        received += 1
        if received - summed == Self.batch { sum(tail: 0..<0) }
    }

    func finish() {
        // The last rows, which no row below adds to.
        sum(tail: max(height - radius, 0)..<height)
        next.finish()
    }

    /// Adds the rows received since the last call to the sums, making row k − radius as
    /// row k is added (the first `radius` rows start the sums), then makes the `tail` rows.
    private func sum(tail: Range<Int>) {
        let added = summed..<received
        let made = max(added.lowerBound - radius, 0)..<max(added.upperBound - radius, 0)
        let (w, r, cap, scale) = (width, radius, capacity, scale)
        ring.withUnsafeMutableBufferPointer { ring in
            let base = ring.baseAddress!
            @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<Float> { base + y % cap * w }
            parallelBands(added.count, minimumBand: 4) { part in
                var line = [Float](repeating: 0, count: w + 2 * r + 1)
                line.withUnsafeMutableBufferPointer { line in
                    for i in part { BoxBlur.blurRow(row(added.lowerBound + i), width: w, radius: r, line: line) }
                }
            }
            sums.withUnsafeMutableBufferPointer { s in
                out.withUnsafeMutableBufferPointer { o in
                    let o = o.baseAddress!
                    parallelBands(w, minimumBand: 256) { columns in
                        // The band's columns from its first, so that each loop is a plain run over pointers.
                        let c0 = columns.lowerBound, count = columns.count, sums = s.baseAddress! + c0
                        @inline(__always) func make(_ y: Int, into n: Int) {
                            let target = o + n * w + c0
                            for i in 0..<count { target[i] = sums[i] * scale }
                            if y - r >= 0 {
                                let remove = row(y - r) + c0
                                for i in 0..<count { sums[i] -= remove[i] }
                            }
                        }
                        for k in added {
                            let add = row(k) + c0
                            for i in 0..<count { sums[i] += add[i] }
                            if k >= r { make(k - r, into: k - r - made.lowerBound) }
                        }
                        for (n, y) in tail.enumerated() { make(y, into: made.count + n) }
                    }
                }
            }
        }
        summed = received
        out.withUnsafeMutableBufferPointer { o in
            for n in 0..<(made.count + tail.count) { next.push(o.baseAddress! + n * w) }
        }
    }
}

/// One style's plane, made a row at a time from the title's rows as they come: the
/// coverage placed in the plane's bounds, the recipe's distance-field step over windows
/// of rows, the box passes streamed. It holds the rows finished and not yet dropped.
/// A title streamed in bands (`StyledBands`) reads its rows a band at a time; a title
/// held whole (`LayerStylePlanes`) is one band, all its rows (`whole`).
final class StreamedStylePlane {
    let bounds: PixelBounds
    let recipe: PlaneRecipe
    /// A stroke's outline in the title's metal, made from the plane's rows as they are finished.
    let metal: StreamedMetalOutline?
    private let finished: FinishedRows
    private let entry: any PlaneStep
    private var row: [Float]
    private var pushed = 0

    /// The plane of a title whose region is `region`; its distance-field step takes `chunk`
    /// rows at a time. `metal`: a stroke's outline in the title's metal, made from the plane's rows.
    /// `whole`: every row is kept (room is made for them at once).
    init(_ recipe: PlaneRecipe, region: PixelBounds, chunk: Int, metal: StreamedMetalOutline? = nil, whole: Bool = false) {
        self.recipe = recipe
        bounds = recipe.bounds(region)
        let (w, h) = (bounds.width, bounds.height)
        self.metal = metal
        finished = FinishedRows(width: w, reserving: whole ? h : 0, then: metal)
        var entry: any PlaneStep = finished
        if recipe.blurRadius > 0 {
            for _ in 0..<3 { entry = StreamedBoxPass(width: w, height: h, radius: recipe.blurRadius, next: entry) }
        }
        if let shape = recipe.shape {
            entry = WindowedShape(width: w, height: h, reach: recipe.shapeReach, chunk: chunk, shape: shape, next: entry)
        }
        self.entry = entry
        row = [Float](repeating: 0, count: w)
        // The rows above the title.
        for _ in 0..<recipe.growth { pushRow(nil) }
    }

    /// The whole plane of a title held whole (`title`, lit, over `region`): one band,
    /// its distance-field step one window of all the rows.
    static func whole(_ recipe: PlaneRecipe, title: Image<RGBA8>, region: PixelBounds) -> StylePlane {
        let plane = StreamedStylePlane(recipe, region: region, chunk: recipe.bounds(region).height, whole: true)
        title.withUnsafeBufferPointer { t in
            for y in 0..<title.height { plane.push(t.baseAddress! + y * title.width) }
        }
        plane.finish()
        return plane.window(0..<plane.bounds.height)
    }

    /// The rows of values the steps of `recipe`'s plane hold at most (the box passes'
    /// rings and outputs, the distance-field step's window, mask and values), besides
    /// the finished rows.
    static func stepRows(_ recipe: PlaneRecipe, chunk: Int) -> Int {
        let r = recipe.blurRadius
        return (r > 0 ? 3 * (2 * StreamedBoxPass.batch + 3 * r + 1) : 0)
            + (recipe.shape == nil ? 0 : 3 * (chunk + 2 * recipe.shapeReach))
    }

    /// The rows made, from the plane's top (and, with a metal outline, shaded).
    var made: Int { min(finished.rows.end, metal?.shaded.end ?? .max) }

    /// The next of the title's rows (its region's width of lit pixels).
    func push(_ title: UnsafePointer<RGBA8>) { pushRow(title) }

    /// The title has no more rows: the rows below it, and the plane is finished.
    func finish() {
        while pushed < bounds.height { pushRow(nil) }
        entry.finish()
    }

    private func pushRow(_ title: UnsafePointer<RGBA8>?) {
        let (e, n) = (recipe.growth, bounds.width - 2 * recipe.growth)
        row.withUnsafeMutableBufferPointer { r in
            r.update(repeating: 0)
            // As `LayerStylePlanes.coverage` places it.
            if let title { for x in 0..<n { r[e + x] = Float(title[x].a) * (1 / 255) } }
            metal?.pushCoverage(r.baseAddress!)
            entry.push(r.baseAddress!)
        }
        pushed += 1
    }

    /// The plane holding `rows` (from its top; those beyond the plane are left out).
    func window(_ rows: Range<Int>) -> StylePlane {
        let first = max(rows.lowerBound, finished.rows.first)
        let held = first..<max(min(rows.upperBound, made), first)
        return StylePlane(bounds: bounds, values: held.isEmpty ? [] : finished.rows.copy(held), firstRow: held.lowerBound)
    }

    /// The metal outline's shaded `rows` (from the plane's top, all made) and the first of them.
    func metalWindow(_ rows: Range<Int>) -> (image: Image<RGBA8>, firstRow: Int)? {
        guard let metal else { return nil }
        let first = max(rows.lowerBound, metal.shaded.first)
        let held = first..<max(min(rows.upperBound, metal.shaded.end), first)
        return (Image(width: bounds.width, height: held.count, pixels: held.isEmpty ? [] : metal.shaded.copy(held)),
                held.lowerBound)
    }

    /// Forgets the rows above `y` (from the plane's top).
    func drop(below y: Int) {
        finished.rows.drop(below: y)
        metal?.drop(below: y)
    }
}
