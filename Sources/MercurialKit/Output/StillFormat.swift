/// The file format of a still title, chosen by the output's name (`render`, `watch`,
/// `batch`): `.png`, `.jpg`/`.jpeg`, `.webp`, in any case. A name with no extension, and
/// standard output, a device or a FIFO, are PNG, as before; any other extension is
/// refused (`-o card.jpg` wrote PNG bytes under a JPEG name before these formats).
public enum StillFormat: String, Sendable, CaseIterable {
    case png = "PNG", jpeg = "JPEG", webp = "WebP"

    /// The file name's ending a server gives it (`/v1/cards/SHA.EXT`).
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        case .webp: "webp"
        }
    }

    /// Its media type.
    public var mediaType: String { "image/" + (self == .jpeg ? "jpeg" : fileExtension) }

    /// What the refusals list.
    public static let namesTaken = ".png, .jpg (or .jpeg) and .webp"

    /// The format `path` names, or the error saying which names are taken.
    /// `command` names the command in the error.
    public static func forPath(_ path: String, command: String) throws(MercurialError) -> StillFormat {
        guard case .file(let given, _) = try OutputFile.destination(path) else { return .png }
        let name = given.lastComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return .png }
        let ext = name[name.index(after: dot)...].lowercased()
        switch ext {
        case "png": return .png
        case "jpg", "jpeg": return .jpeg
        case "webp": return .webp
        default:
            let stem = String(given.string.dropLast(ext.count))
            let video = ["webm", "mp4", "m4v", "mov", "apng"].contains(ext)
                ? "; for an animation, use mercurial animate SCENE.json -o \(shortQuote(name))" : ""
            let known = OutputFile.otherFormats[ext].map { " (\($0))" } ?? ""
            throw MercurialError("output '\(given)' ends in .\(ext)\(known), but \(command) writes \(namesTaken) stills; name it e.g. '\(UserPath(checked: stem + "png"))'\(video)")
        }
    }

    /// The format a batch's `--name` template asks for by its ending (`{row}.jpg`), and the
    /// extension its files take: .png for any other template, which gets .png added as before.
    public static func forTemplate(_ template: String) -> (format: StillFormat, extension: String) {
        let lower = template.lowercased()
        for (ext, format) in [("jpg", StillFormat.jpeg), ("jpeg", .jpeg), ("webp", .webp)] where lower.hasSuffix("." + ext) {
            return (format, ext)
        }
        return (.png, "png")
    }

    /// The widest and tallest image the format holds: JPEG's 65,500 px a side (libjpeg's
    /// JPEG_MAX_DIMENSION), WebP's 16,383 (14 bits in its header); PNG's is the canvas
    /// limit (`PNGFile.checkCanvas`).
    public var maximumSide: Int? {
        switch self {
        case .png: nil
        case .jpeg: 65_500
        case .webp: 16_383
        }
    }

    /// Refuses a canvas of `width`×`height` that the format cannot hold, before it is rendered.
    public func checkSize(width: Int, height: Int) throws(MercurialError) {
        guard let side = maximumSide, width > side || height > side else { return }
        let other = self == .webp ? "write a .jpg (up to 65,500 px) or a .png" : "write a .png"
        throw MercurialError.limit("the title is \(width)×\(height) pixels, but \(rawValue) holds at most \(side) px a side; use a smaller size or \(other)")
    }
}

/// How a still is encoded: its format and, for JPEG and WebP, the quality.
public struct StillEncoding: Sendable, Equatable {
    public var format: StillFormat
    /// 0–100 (JPEG and lossy WebP); nil is the default, 90.
    public var quality: Int?
    /// WebP only: lossless (VP8L) rather than lossy (VP8).
    public var lossless: Bool
    /// JPEG only: progressive rather than baseline.
    public var progressive: Bool

    public static let defaultQuality = 90

    /// What of the encoding changes a JPEG's or WebP's pixels, for its recipe stamp
    /// (`SceneRecipe.stamp`): a row rendered again at another quality is another title.
    public var stampText: String {
        switch format {
        case .png: "png"
        case .jpeg: "jpeg quality \(quality ?? Self.defaultQuality)\(progressive ? " progressive" : "")"
        case .webp: lossless ? "webp lossless" : "webp quality \(quality ?? Self.defaultQuality)"
        }
    }

    public init(format: StillFormat, quality: Int? = nil, lossless: Bool = false, progressive: Bool = false) {
        self.format = format
        self.quality = quality
        self.lossless = lossless
        self.progressive = progressive
    }

    /// The encoding for `path`'s format, checking that the options fit it (`--quality`
    /// 0–100 and only for JPEG or lossy WebP, `--lossless` only for WebP, `--progressive`
    /// only for JPEG).
    public static func forPath(_ path: String, command: String, quality: Int? = nil, lossless: Bool = false,
                               progressive: Bool = false) throws(MercurialError) -> StillEncoding {
        try checked(StillFormat.forPath(path, command: command), quality: quality, lossless: lossless, progressive: progressive)
    }

    /// The encoding of `format`, checking the options as `forPath` does.
    public static func checked(_ format: StillFormat, quality: Int? = nil, lossless: Bool = false,
                               progressive: Bool = false) throws(MercurialError) -> StillEncoding {
        if let quality {
            guard (0...100).contains(quality) else {
                throw MercurialError("--quality is \(quality); give a whole number from 0 to 100 (default \(defaultQuality))")
            }
            guard format != .png else {
                throw MercurialError("--quality is for .jpg and .webp outputs; a PNG is lossless (its size: --compression fast, small or none)")
            }
            guard !lossless else {
                throw MercurialError("--quality and --lossless both given; a lossless WebP has no quality to set, give one of them")
            }
        }
        if lossless && format != .webp {
            throw MercurialError("--lossless is for .webp outputs; a PNG is always lossless and a JPEG never is")
        }
        if progressive && format != .jpeg {
            throw MercurialError("--progressive is for .jpg outputs")
        }
        return StillEncoding(format: format, quality: quality, lossless: lossless, progressive: progressive)
    }
}
