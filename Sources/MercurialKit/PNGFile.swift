import CPNG
import CPNGWriter
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing PNGs through libpng's simplified API (`png_image_*`),
/// which reports errors through its return value and never longjmps into Swift.
public enum PNGFile {
    /// The largest canvas accepted on either side, in pixels.
    public static let maximumSide = 16_384
    /// The largest canvas accepted in total, in pixels (268 M, a 16384² square).
    public static let maximumPixels = 268_435_456
    /// The largest PNG file read, in bytes.
    public static let maximumFileBytes = 512 * 1024 * 1024

    public enum Compression: String, Sendable, CaseIterable {
        /// libpng's `PNG_IMAGE_FLAG_FAST`: quicker to write, somewhat larger file.
        case fast
        /// libpng's default filters and zlib level: smaller file, slower to write.
        case small
    }

    /// A decoded PNG: 8-bit RGBA, colour not premultiplied, whatever the file's colour type.
    public static func read(_ path: String, role: String) throws(MercurialError) -> Image<RGBA8> {
        let bytes = try readFile(path, role: role)
        return try decode(bytes, name: path, role: role)
    }

    /// Decodes PNG `bytes`; `name` and `role` ("mask", "shading image") appear in errors.
    public static func decode(_ bytes: [UInt8], name: String, role: String) throws(MercurialError) -> Image<RGBA8> {
        func fail(_ why: String) -> MercurialError {
            MercurialError("\(role) '\(name)' \(why); give a valid PNG file")
        }
        guard bytes.count >= 8, bytes[0] == 0x89, bytes[1] == 0x50, bytes[2] == 0x4E, bytes[3] == 0x47 else {
            throw fail(bytes.isEmpty ? "is empty" : "is not a PNG (wrong signature)")
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let began = bytes.withUnsafeBytes { raw in
            png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count)
        }
        guard began != 0 else { throw fail("cannot be read (\(message(of: image)))") }
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0 else { throw fail("has no pixels (\(width)×\(height))") }
        try checkCanvas(width: width, height: height, what: "\(role) '\(name)'")
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
        var pixels = [RGBA8](repeating: .clear, count: width * height)
        let finished = pixels.withUnsafeMutableBytes { raw in
            png_image_finish_read(&image, nil, raw.baseAddress, Int32(width * 4), nil)
        }
        guard finished != 0 else { throw fail("is damaged (\(message(of: image)))") }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// Encodes `image` as an 8-bit RGBA PNG in memory (libpng's full write API,
    /// through the small C shim in CPNGWriter, so that filters and zlib can be tuned).
    public static func encode(_ image: Image<RGBA8>, compression: Compression = .fast) throws(MercurialError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let ok = image.withUnsafeBufferPointer { pixels in
            pixels.withMemoryRebound(to: UInt8.self) { bytes in
                mercurial_png_encode(bytes.baseAddress, UInt32(image.width), UInt32(image.height),
                                     compression == .fast ? 1 : 0, &output, &size, &message, message.count)
            }
        }
        guard ok != 0, let output else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw MercurialError("cannot encode the PNG (\(reason.isEmpty ? "unknown libpng error" : reason))")
        }
        defer { mercurial_png_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// Refuses a canvas that is empty or larger than the limits, before anything is allocated.
    public static func checkCanvas(width: Int, height: Int, what: String) throws(MercurialError) {
        guard width > 0, height > 0 else {
            throw MercurialError("\(what) has size \(width)×\(height); width and height must be at least 1 pixel")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width <= maximumSide, height <= maximumSide, !overflow, pixels <= maximumPixels else {
            throw MercurialError("\(what) is \(width)×\(height) pixels, over the limit of \(maximumSide) px a side and \(maximumPixels / 1_048_576) M pixels; use a smaller size")
        }
    }

    private static func message(of image: png_image) -> String {
        var copy = image.message
        let text = withUnsafeBytes(of: &copy) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "unknown libpng error" : text
    }

    /// Reads a whole regular file, refusing directories and files over `limit` before reading them.
    static func readFile(_ path: String, role: String, limit: Int = maximumFileBytes) throws(MercurialError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno
            if reason == ENOENT || reason == ENOTDIR {
                throw MercurialError("\(role) '\(path)' does not exist; check the path")
            }
            throw MercurialError("\(role) '\(path)' cannot be read (\(String(cString: strerror(reason)))); check its permissions")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw MercurialError("\(role) '\(path)' cannot be read (\(String(cString: strerror(errno))))")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw MercurialError("\(role) '\(path)' is a directory; give a file")
        }
        guard Int(info.st_size) <= limit else {
            throw MercurialError("\(role) '\(path)' is larger than \(limit / 1_048_576) MB; use a smaller file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw MercurialError("\(role) '\(path)' cannot be read (\(String(cString: strerror(errno))))")
            }
            bytes.append(contentsOf: chunk[0..<n])
            guard bytes.count <= limit else {
                throw MercurialError("\(role) '\(path)' is larger than \(limit / 1_048_576) MB; use a smaller file")
            }
        }
        return bytes
    }
}
