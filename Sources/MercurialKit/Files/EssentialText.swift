#if canImport(Glibc)
import Glibc
#endif

// The library and `mercurial` link FoundationEssentials only, not Foundation: without it
// the program carries no ICU, CoreFoundation or Foundation (93 MB → about 40 MB), and each
// of the Swift runtime's first conformance lookups, which walk every conformance record
// in the binary, walks a third fewer (docs/performance.md). What they used of Foundation
// that Essentials lacks is here: CharacterSet's two whitespace sets for trimming, C's
// printf formats, and NSString's path components.

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` removes: Unicode's space separators, the tab
    /// and the zero-width space).
    public func trimmingWhitespace() -> String {
        trimming { $0 == "\t" || $0 == "\u{200B}" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// Without leading and trailing spaces, tabs and line ends (Foundation's
    /// `.whitespacesAndNewlines`: Unicode's separators, the tab, the zero-width space,
    /// U+000A–U+000D and U+0085).
    public func trimmingWhitespaceAndNewlines() -> String {
        trimming { scalar in
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return (0x09...0x0D).contains(scalar.value) || scalar.value == 0x85 || scalar.value == 0x200B
            }
        }
    }

    private func trimming(_ drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }),
              let last = scalars.lastIndex(where: { !drop($0) }) else { return "" }
        return String(scalars[first...last])
    }
}

extension String {
    /// C's `snprintf` with `format` (numbers only: `%d`, `%.1f`, `%g`, `%04X`…; text goes
    /// in by interpolation).
    public init(cFormat format: String, _ arguments: CVarArg...) {
        self = withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 128)
            let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
            guard needed >= buffer.count else { return String(cString: buffer) }
            return withVaList(arguments) { again in
                var bigger = [CChar](repeating: 0, count: needed + 1)
                _ = vsnprintf(&bigger, bigger.count, format, again)
                return String(cString: bigger)
            }
        }
    }
}

/// A path's parts as NSString gave them: `a/b.png` → `b.png`, `a`, `png`.
public enum PathText {
    /// The last component, trailing slashes ignored (`/` for the root).
    public static func lastComponent(_ path: String) -> String {
        var body = Substring(path)
        while body.count > 1 && body.hasSuffix("/") { body = body.dropLast() }
        guard body.count > 1, let slash = body.lastIndex(of: "/") else { return String(body) }
        return String(body[body.index(after: slash)...])
    }

    /// Everything before the last component, without its trailing slash (`/` for a file at
    /// the root, `` for a bare name).
    public static func deletingLastComponent(_ path: String) -> String {
        var body = Substring(path)
        while body.count > 1 && body.hasSuffix("/") { body = body.dropLast() }
        guard let slash = body.lastIndex(of: "/") else { return "" }
        if slash == body.startIndex { return "/" }
        var head = body[..<slash]
        while head.count > 1 && head.hasSuffix("/") { head = head.dropLast() }
        return String(head)
    }

    /// The last component's extension, without its dot ("" when it has none, or is a dot file).
    public static func pathExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}

/// One variable of the process's environment, read with `getenv`: `ProcessInfo`'s
/// `environment` builds a dictionary of every variable on each call (0.7 M instructions,
/// a fiftieth of a small title's), where a start-up needs two or three of them.
public func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
