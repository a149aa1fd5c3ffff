import FoundationEssentials

/// Where the bundled `fonts/` and `materials/` live, found wherever the binary
/// is started from: `$MERCURIAL_DATA`, then `share/mercurial` beside the
/// executable's directory (an install), then the source tree it was built from.
public enum DataDirectory {
    public static let environmentVariable = "MERCURIAL_DATA"

    /// The first candidate that holds a `fonts/` folder, or nil when none does.
    public static let root: String? = {
        candidates().first { FileManager.default.fileExists(atPath: $0 + "/fonts/fonts.json") }
    }()

    static func candidates() -> [String] {
        var list: [String] = []
        if let fromEnvironment = ProcessInfo.processInfo.environment[environmentVariable], !fromEnvironment.isEmpty {
            list.append(fromEnvironment)
        }
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let prefix = PathText.deletingLastComponent(PathText.deletingLastComponent(executable))
            list.append((prefix.hasSuffix("/") ? prefix : prefix + "/") + "share/mercurial")
        }
        // This file is Sources/MercurialKit/Files/DataDirectory.swift in the source tree.
        var source = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { source.deleteLastPathComponent() }
        list.append(source.path)
        return list
    }

    public static func folder(_ name: String) throws(MercurialError) -> String {
        guard let root else {
            throw MercurialError("cannot find the bundled fonts and materials; set \(environmentVariable) to the folder that holds fonts/ and materials/")
        }
        return root + "/" + name
    }
}
