#if canImport(Glibc)
import Glibc
#endif

/// A path the user gave (on the command line or in a scene file), handled as
/// bytes: any length from one byte, trailing slashes, no NUL. Everything that
/// takes a user's path apart or puts one together goes through here.
public struct UserPath: Sendable, Hashable, CustomStringConvertible {
    /// The path exactly as given.
    public let string: String

    /// Checks `string` as a path; `role` ("output", "mask", …) names it in errors.
    public init(_ string: String, role: String) throws(MercurialError) {
        guard !string.isEmpty else {
            throw MercurialError("the \(role) path is empty; give a file name")
        }
        guard !string.utf8.contains(0) else {
            throw MercurialError("the \(role) path '\(string.escapedForTerminal)' contains a NUL byte, which no file name can hold; remove it")
        }
        self.string = string
    }

    /// A path known to be good: built from checked parts, or one that was checked before.
    public init(checked string: String) { self.string = string }

    /// The path for messages: control characters escaped.
    public var description: String { string.escapedForTerminal }

    public var isAbsolute: Bool { string.utf8.first == Self.slash }

    /// The folder that holds the file: `a` → `.`, `/a` → `/`, `a/b/` → `a`, `a//b` → `a`, `/` → `/`.
    public var directory: String {
        let bytes = Self.trimmingTrailingSlashes(Array(string.utf8))
        guard let slash = bytes.lastIndex(of: Self.slash) else { return "." }
        var end = slash
        while end > 0 && bytes[end - 1] == Self.slash { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// The last component, without trailing slashes: `a/b/` → `b`, `/` → `/`.
    public var lastComponent: String {
        let bytes = Self.trimmingTrailingSlashes(Array(string.utf8))
        guard let slash = bytes.lastIndex(of: Self.slash), bytes.count > 1 else {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(decoding: bytes[(slash + 1)...], as: UTF8.self)
    }

    /// A path written inside `file` (a scene or material) is relative to that file's folder.
    public func relative(to file: String) -> UserPath {
        if isAbsolute { return self }
        let folder = UserPath(checked: file).directory
        if folder == "." { return self }
        return UserPath(checked: folder == "/" ? "/" + string : folder + "/" + string)
    }

    /// The absolute path, with `.`, `..` and repeated slashes removed by their
    /// spelling (symbolic links are not followed).
    public var absolute: String {
        var components: [Substring] = []
        let full = isAbsolute ? string : Self.currentDirectory() + "/" + string
        for part in full.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { _ = components.popLast(); continue }
            components.append(part)
        }
        return "/" + components.joined(separator: "/")
    }

    /// Whether a name given where a bundled name is also allowed (a font, a material)
    /// is meant as a file: it has a folder or a file extension we read.
    public static func looksLikePath(_ value: String) -> Bool {
        let lower = value.lowercased()
        return value.contains("/") || value.hasPrefix(".")
            || [".ttf", ".otf", ".ttc", ".otc", ".woff", ".woff2", ".pfb", ".json", ".png"].contains { lower.hasSuffix($0) }
    }

    /// Every path a symbolic link chain passes through, starting with this one and
    /// ending with the file it finally names (which may not exist). At most 40 links.
    public func symlinkChain() -> [String] {
        var chain = [string]
        var current = self
        for _ in 0..<40 {
            guard let target = current.linkTarget() else { break }
            current = UserPath(checked: target).relative(to: current.string)
            chain.append(current.string)
        }
        return chain
    }

    /// What this path finally names once every symbolic link is followed, whether
    /// or not that exists; nil for a link loop.
    public func followingLinks() -> UserPath? {
        var current = self
        for _ in 0..<40 {
            guard let target = current.linkTarget() else { return current }
            current = UserPath(checked: target).relative(to: current.string)
        }
        return nil
    }

    /// The target of the symbolic link at this path, or nil if it is not a link.
    func linkTarget() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(string, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static let slash = UInt8(ascii: "/")

    private static func trimmingTrailingSlashes(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var end = bytes.count
        while end > 1 && bytes[end - 1] == slash { end -= 1 }
        return bytes[..<end]
    }
}

extension String {
    /// The text with every character that could steer a terminal (C0 and C1
    /// controls, DEL, bidirectional overrides, line separators) written as an escape,
    /// so that text from a file or an argument prints as what it is.
    public var escapedForTerminal: String {
        guard unicodeScalars.contains(where: Self.steersTerminal) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            guard Self.steersTerminal(scalar) else { out.unicodeScalars.append(scalar); continue }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    /// JSON text (a recipe) made safe for a terminal and still the same JSON: every
    /// character that could steer a terminal but a line break or a tab becomes a
    /// `\uXXXX` escape, which means the same character inside a JSON string (and
    /// outside one the text was not JSON anyway).
    public var jsonEscapedForTerminal: String {
        guard unicodeScalars.contains(where: { $0 != "\n" && $0 != "\t" && Self.steersTerminal($0) }) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if scalar == "\n" || scalar == "\t" || !Self.steersTerminal(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }

    private static func steersTerminal(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
