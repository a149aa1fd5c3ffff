import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where the bundled `fonts/` and `materials/` live, found wherever the binary
/// is started from: `$MERCURIAL_DATA`, then `share/mercurial` beside the
/// executable's directory (an install), then the source tree it was built from.
public enum DataDirectory {
    public static let environmentVariable = "MERCURIAL_DATA"

    /// The first candidate that holds a `fonts/` folder, or nil when none does.
    public static let root: String? = {
        candidates.lazy.compactMap { $0() }.first { access($0 + "/fonts/fonts.json", F_OK) == 0 }
    }()

    /// Where to look, in order, each worked out only when the ones before it lack the fonts
    /// (a start-up then costs a `getenv`): `$MERCURIAL_DATA`, `share/mercurial` beside the
    /// program's `bin/`, and this source tree.
    static let candidates: [@Sendable () -> String?] = [
        { environmentValue(environmentVariable).flatMap { $0.isEmpty ? nil : $0 } },
        {
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink("/proc/self/exe", &target, target.count - 1)
            guard count > 0 else { return nil }
            let executable = String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let prefix = PathText.deletingLastComponent(PathText.deletingLastComponent(executable))
            return (prefix.hasSuffix("/") ? prefix : prefix + "/") + "share/mercurial"
        },
        // This file is Sources/MercurialKit/Files/DataDirectory.swift in the source tree.
        { (0..<4).reduce(#filePath) { path, _ in PathText.deletingLastComponent(path) } },
    ]

    public static func folder(_ name: String) throws(MercurialError) -> String {
        guard let root else {
            throw MercurialError("cannot find the bundled fonts and materials; set \(environmentVariable) to the folder that holds fonts/ and materials/")
        }
        return root + "/" + name
    }
}
