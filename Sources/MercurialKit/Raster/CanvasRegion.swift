/// A region of content placed in a canvas of one fill colour: what a rendered
/// title (or a text mask) is. Only `content` was computed, at `originX`, `originY`;
/// every other pixel of the `width` × `height` canvas is `fill`.
public struct CanvasRegion<Pixel: Sendable>: Sendable {
    public var width: Int, height: Int
    public var content: Image<Pixel>
    public var originX: Int, originY: Int
    public var fill: Pixel

    public init(width: Int, height: Int, content: Image<Pixel>, originX: Int, originY: Int, fill: Pixel) {
        precondition(originX >= 0 && originY >= 0 && originX + content.width <= width && originY + content.height <= height,
                     "Content \(content.width)×\(content.height) at (\(originX), \(originY)) does not fit a \(width)×\(height) canvas")
        (self.width, self.height, self.content) = (width, height, content)
        (self.originX, self.originY, self.fill) = (originX, originY, fill)
    }

    /// An image that is its whole canvas.
    public init(_ image: Image<Pixel>, fill: Pixel) {
        self.init(width: image.width, height: image.height, content: image, originX: 0, originY: 0, fill: fill)
    }

    /// Canvas rows `rows` as an image: `fill` with the content pasted in. Every way
    /// of showing the canvas goes through here.
    public func rows(_ rows: Range<Int>) -> Image<Pixel> {
        var band = Image<Pixel>(width: width, height: rows.count, repeating: fill)
        let top = max(rows.lowerBound, originY), bottom = min(rows.upperBound, originY + content.height)
        guard top < bottom, content.width > 0 else { return band }
        band.withUnsafeMutableBufferPointer { out in
            content.withUnsafeBufferPointer { part in
                for y in top..<bottom {
                    let source = (y - originY) * content.width, target = (y - rows.lowerBound) * width + originX
                    _ = UnsafeMutableBufferPointer(rebasing: out[target..<(target + content.width)])
                        .update(fromContentsOf: UnsafeBufferPointer(rebasing: part[source..<(source + content.width)]))
                }
            }
        }
        return band
    }

    /// The whole canvas.
    public var image: Image<Pixel> { rows(0..<height) }

    /// Calls `body` with a pointer to each canvas row, without making the whole
    /// canvas: the rows that cross `content` point into one band holding them, all
    /// others at a single row of `fill`.
    public func withRowPointers<R>(_ body: ([UnsafePointer<Pixel>]) throws -> R) rethrows -> R {
        let contentRows = originY..<(originY + content.height)
        let fillRow = [Pixel](repeating: fill, count: max(width, 1))
        let band = rows(contentRows)
        return try fillRow.withUnsafeBufferPointer { fillRow in
            try band.withUnsafeBufferPointer { band in
                let pointers = (0..<height).map { y in
                    contentRows.contains(y) ? band.baseAddress! + (y - originY) * width : fillRow.baseAddress!
                }
                return try body(pointers)
            }
        }
    }
}
