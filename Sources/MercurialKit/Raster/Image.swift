/// A width × height raster of `Pixel`s stored row-major in one contiguous array.
///
/// Modelled on swift-image's `Image<Pixel>`: a plain value type, preconditions
/// that say what went wrong, and `withUnsafe…` access for hot loops.
public struct Image<Pixel: Sendable>: Sendable {
    public let width: Int
    public let height: Int
    public private(set) var pixels: [Pixel]

    public init(width: Int, height: Int, pixels: [Pixel]) {
        precondition(width >= 0 && height >= 0, "Image size must not be negative: \(width)×\(height)")
        precondition(pixels.count == width * height,
                     "Image of \(width)×\(height) needs \(width * height) pixels, got \(pixels.count)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public init(width: Int, height: Int, repeating value: Pixel) {
        precondition(width >= 0 && height >= 0, "Image size must not be negative: \(width)×\(height)")
        let count = width * height
        // Filling uninitialised storage is several times faster than Array(repeating:)
        // for a struct pixel such as RGBA8.
        let pixels = [Pixel](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.initialize(repeating: value)
            initialized = count
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    public var count: Int { width * height }

    public subscript(x: Int, y: Int) -> Pixel {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height,
                         "Pixel (\(x), \(y)) is outside the \(width)×\(height) image")
            return pixels[y * width + x]
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height,
                         "Pixel (\(x), \(y)) is outside the \(width)×\(height) image")
            pixels[y * width + x] = newValue
        }
    }
}

// MARK: - Unsafe access for hot loops

extension Image {
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Pixel>) throws -> R) rethrows -> R {
        try pixels.withUnsafeBufferPointer(body)
    }

    public mutating func withUnsafeMutableBufferPointer<R>(
        _ body: (UnsafeMutableBufferPointer<Pixel>) throws -> R
    ) rethrows -> R {
        try pixels.withUnsafeMutableBufferPointer { try body($0) }
    }
}

// MARK: - Transformations

extension Image {
    public func map<T>(_ transform: (Pixel) throws -> T) rethrows -> Image<T> {
        Image<T>(width: width, height: height, pixels: try pixels.map(transform))
    }

    /// The sub-image `width × height` starting at (`x`, `y`), which must lie inside this image.
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) -> Image {
        precondition(x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= width && y + h <= height,
                     "Crop \(w)×\(h) at (\(x), \(y)) does not fit in a \(width)×\(height) image")
        var out: [Pixel] = []
        out.reserveCapacity(w * h)
        for row in y..<(y + h) {
            out.append(contentsOf: pixels[(row * width + x)..<(row * width + x + w)])
        }
        return Image(width: w, height: h, pixels: out)
    }
}

/// An 8-bit RGBA pixel, colour not premultiplied by alpha.
public struct RGBA8: Sendable, Equatable, Hashable {
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }
    public static let clear = RGBA8(r: 0, g: 0, b: 0, a: 0)
}

/// Grey coverage, 0 (outside) … 1 (inside).
public typealias Mask = Image<Float>
/// Which look (shading page) each pixel of a mask takes: 0 the title's, k a styled run's.
public typealias LookPlane = Image<UInt8>
/// The colours colour emoji keep (`emoji: "color"`), straight, each pixel's alpha how much of it they cover; clear elsewhere.
public typealias PaintPlane = Image<RGBA8>
/// Heights, 0 at the mask's edge … 1 on the plateau.
public typealias HeightField = Image<Float>

extension Image where Pixel == UInt8 {
    /// Runs `body` with the plane's pixels, or nil when there is no plane (for hot loops that take either).
    static func withOptionalBuffer<R>(_ plane: Image<UInt8>?, _ body: (UnsafePointer<UInt8>?) -> R) -> R {
        guard let plane else { return body(nil) }
        return plane.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
