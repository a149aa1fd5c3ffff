import CFontconfig
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A font the user can name: a bundled one, a file, or an installed font.
public struct BundledFont: Sendable, Equatable, Decodable {
    public var name: String
    public var file: String
    public var family: String
    public var style: String
    public var license: String
    public var source: String
    public var `default`: Bool
}

/// Finds fonts: `--font` takes a bundled name (`rounded`, `serif`, `display`), a
/// path to any TTF/OTF, or an installed font's fontconfig name (`"DejaVu Sans:bold"`).
public enum FontLibrary {
    public static func bundled() throws(MercurialError) -> [BundledFont] {
        let folder = try DataDirectory.folder("fonts")
        let list = folder + "/fonts.json"
        // Read once for as long as the file stays the same (a render asks three times).
        let stamp = FileStamp(list)
        if let stamp, let kept = read.withLock({ $0 }), kept.stamp == stamp { return kept.fonts }
        guard let bytes = try? InputFile.read(list, role: "font list", limit: 1 << 20),
              let fonts = try? JSONDecoder().decode([BundledFont].self, from: Data(bytes)) else {
            throw MercurialError("the bundled font list '\(folder)/fonts.json' is missing or damaged; reinstall mercurial")
        }
        if let stamp { read.withLock { $0 = (stamp, fonts) } }
        return fonts
    }

    private static let read = Mutex<(stamp: FileStamp, fonts: [BundledFont])?>(nil)

    public static func defaultFontName() throws(MercurialError) -> String {
        try bundled().first { $0.default }?.name ?? "rounded"
    }

    /// The path of the font file `name` stands for.
    public static func resolve(_ name: String) throws(MercurialError) -> String {
        let trimmed = name.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw MercurialError("the font name is empty; give a bundled name, a file or an installed font") }
        let fonts = try bundled()
        if let font = fonts.first(where: { $0.name.lowercased() == trimmed.lowercased() }) {
            return try DataDirectory.folder("fonts") + "/" + font.file
        }
        let path = try UserPath(trimmed, role: "font")
        var info = stat()
        let exists = lstat(trimmed, &info) == 0
        if UserPath.looksLikePath(trimmed) || exists {
            guard exists else {
                throw MercurialError("font file '\(path)' does not exist; check the path, or use a bundled font (\(fonts.map(\.name).joined(separator: ", ")))")
            }
            // Reading the font checks what kind of file it is.
            return trimmed
        }
        if let installed = fontconfigMatch(trimmed) { return installed }
        throw MercurialError("unknown font '\(trimmed)': not bundled (\(fonts.map(\.name).joined(separator: ", "))), not a file, and no installed font has that family; see 'mercurial fonts' or 'fc-list'")
    }

    /// An installed font whose family matches the pattern's, through fontconfig.
    static func fontconfigMatch(_ pattern: String) -> String? {
        fontconfigLock.withLock { _ in
            guard let config = FcInitLoadConfigAndFonts() else { return nil }
            defer { FcConfigDestroy(config) }
            guard let parsed = FcNameParse(pattern) else { return nil }
            defer { FcPatternDestroy(parsed) }
            var requestedFamily: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(parsed, FC_FAMILY, 0, &requestedFamily) == FcResultMatch,
                  let requestedFamily else { return nil }
            let wanted = String(cString: requestedFamily).lowercased()
            FcConfigSubstitute(config, parsed, FcMatchPattern)
            FcDefaultSubstitute(parsed)
            var result = FcResultNoMatch
            guard let match = FcFontMatch(config, parsed, &result) else { return nil }
            defer { FcPatternDestroy(match) }
            var family: UnsafeMutablePointer<FcChar8>?
            var file: UnsafeMutablePointer<FcChar8>?
            // fontconfig always finds something; only accept a real family match.
            var index: Int32 = 0
            var matched = false
            while FcPatternGetString(match, FC_FAMILY, index, &family) == FcResultMatch, let family {
                if String(cString: family).lowercased() == wanted { matched = true; break }
                index += 1
            }
            guard matched, FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
            return String(cString: file)
        }
    }

    /// The families of the installed fonts fontconfig knows, sorted (for an editor's font menu).
    public static func installedFamilies() -> [String] {
        fontconfigLock.withLock { _ in
            guard let config = FcInitLoadConfigAndFonts() else { return [] }
            defer { FcConfigDestroy(config) }
            guard let pattern = FcPatternCreate() else { return [] }
            defer { FcPatternDestroy(pattern) }
            guard let objects = FcObjectSetCreate() else { return [] }
            defer { FcObjectSetDestroy(objects) }
            FcObjectSetAdd(objects, FC_FAMILY)
            guard let list = FcFontList(config, pattern, objects) else { return [] }
            defer { FcFontSetDestroy(list) }
            var families = Set<String>()
            for i in 0..<Int(list.pointee.nfont) {
                var family: UnsafeMutablePointer<FcChar8>?
                if let font = list.pointee.fonts[i], FcPatternGetString(font, FC_FAMILY, 0, &family) == FcResultMatch,
                   let family {
                    families.insert(String(cString: family))
                }
            }
            return families.sorted()
        }
    }

    /// fontconfig is not thread-safe: one call into it at a time.
    private static let fontconfigLock = Mutex(())
}
