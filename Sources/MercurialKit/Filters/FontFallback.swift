import CFontconfig
import Foundation
import Synchronization

/// The installed faces that can draw a character the chosen face lacks, as fontconfig
/// ranks them: faces whose charset has it, closest to the chosen face's weight and slant.
/// The answers are cached for the process (a batch asks the same questions title after
/// title); the cache is bounded and emptied when full.
enum FontFallback {
    struct Candidate: Sendable, Hashable {
        var path: String
        var index: Int
    }

    /// The most faces tried for one character (the next is tried when one fails to load).
    static let candidatesPerCharacter = 3
    /// The most cached answers; a title of every script uses a few hundred.
    static let cacheLimit = 4096

    static func candidates(for scalar: Unicode.Scalar, like path: String) -> [Candidate] {
        state.withLock { state in
            let key = "\(scalar.value) \(path)"
            if let known = state.answers[key] { return known }
            if state.config == nil { state.config = FcInitLoadConfigAndFonts() }
            guard let config = state.config else { return [] }
            let style = self.style(of: path, in: &state)
            state.queryCount += 1
            let found = sorted(config, scalar: scalar, weight: style.weight, slant: style.slant, excluding: path)
            if state.answers.count >= cacheLimit { state.answers.removeAll() }
            state.answers[key] = found
            return found
        }
    }

    /// Whether the font file at `path` (as it is now) is known to have all of `scalars`.
    static func covers(_ scalars: Set<UInt32>, path: String) -> Bool {
        guard let stamp = stamp(path) else { return false }
        return state.withLock { $0.covered[stamp]?.isSuperset(of: scalars) == true }
    }

    /// Remembers that the font file at `path` has all of `scalars`.
    static func remember(_ scalars: Set<UInt32>, coveredBy path: String) {
        guard let stamp = stamp(path) else { return }
        state.withLock { state in
            if state.covered.count >= 64 || (state.covered[stamp]?.count ?? 0) + scalars.count > 65536 { state.covered.removeAll() }
            state.covered[stamp, default: []].formUnion(scalars)
        }
    }

    /// The file's path, size and modification time: a font changed in place is read again.
    static func stamp(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_size):\(info.st_mtim.tv_sec):\(info.st_mtim.tv_nsec):\(path)"
    }

    /// How many answers are cached, and how many times fontconfig was asked (for tests).
    static var cachedAnswers: Int { state.withLock { $0.answers.count } }
    static var queries: Int { state.withLock { $0.queryCount } }

    /// The weight and slant fontconfig reads from the face at `path` (regular, roman if unreadable).
    private static func style(of path: String, in state: inout State) -> (weight: Int32, slant: Int32) {
        if let known = state.styles[path] { return known }
        var style = (weight: Int32(FC_WEIGHT_REGULAR), slant: Int32(FC_SLANT_ROMAN))
        var count: Int32 = 0
        if let pattern = FcFreeTypeQuery(path, 0, nil, &count) {
            defer { FcPatternDestroy(pattern) }
            var value: Int32 = 0
            var real = 0.0
            if FcPatternGetInteger(pattern, FC_WEIGHT, 0, &value) == FcResultMatch {
                style.weight = value
            } else if FcPatternGetDouble(pattern, FC_WEIGHT, 0, &real) == FcResultMatch {
                style.weight = Int32(real.rounded())
            }
            if FcPatternGetInteger(pattern, FC_SLANT, 0, &value) == FcResultMatch { style.slant = value }
        }
        if state.styles.count >= cacheLimit { state.styles.removeAll() }
        state.styles[path] = style
        return style
    }

    private static func sorted(_ config: OpaquePointer, scalar: Unicode.Scalar, weight: Int32, slant: Int32,
                               excluding path: String) -> [Candidate] {
        guard let pattern = FcPatternCreate(), let charset = FcCharSetCreate() else { return [] }
        defer { FcPatternDestroy(pattern); FcCharSetDestroy(charset) }
        FcCharSetAddChar(charset, scalar.value)
        FcPatternAddCharSet(pattern, FC_CHARSET, charset)
        FcPatternAddInteger(pattern, FC_WEIGHT, weight)
        FcPatternAddInteger(pattern, FC_SLANT, slant)
        FcPatternAddBool(pattern, FC_SCALABLE, FcTrue)
        FcConfigSubstitute(config, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let fonts = FcFontSort(config, pattern, FcFalse, nil, &result) else { return [] }
        defer { FcFontSetDestroy(fonts) }
        var found: [Candidate] = []
        for i in 0..<Int(fonts.pointee.nfont) where found.count < candidatesPerCharacter {
            guard let font = fonts.pointee.fonts[i] else { continue }
            var set: OpaquePointer?
            var file: UnsafeMutablePointer<FcChar8>?
            var index: Int32 = 0
            var scalable: FcBool = FcFalse
            guard FcPatternGetCharSet(font, FC_CHARSET, 0, &set) == FcResultMatch, let set,
                  FcCharSetHasChar(set, scalar.value) != 0,
                  FcPatternGetBool(font, FC_SCALABLE, 0, &scalable) == FcResultMatch, scalable != 0,
                  FcPatternGetString(font, FC_FILE, 0, &file) == FcResultMatch, let file else { continue }
            _ = FcPatternGetInteger(font, FC_INDEX, 0, &index)
            let candidate = Candidate(path: String(cString: file), index: Int(index))
            if candidate.path != path && !found.contains(candidate) { found.append(candidate) }
        }
        return found
    }

    /// fontconfig's configuration (used only under the lock) and the cached answers.
    private struct State {
        var config: OpaquePointer?
        var queryCount = 0
        var answers: [String: [Candidate]] = [:]
        var covered: [String: Set<UInt32>] = [:]
        var styles: [String: (weight: Int32, slant: Int32)] = [:]
    }
    private static let state = Mutex(State())
}

/// The chosen face and the installed faces that draw what it lacks, for one render.
/// Text the chosen face covers never asks fontconfig anything.
final class FontSet {
    /// `faces[0]` is the chosen face; the others were loaded for characters it lacks.
    private(set) var faces: [FontFace]
    let fallback: Bool
    /// Installed faces that were chosen for a character but could not be read.
    private(set) var unreadable: [String] = []
    private var forScalar: [UInt32: Int] = [:]
    private var loaded: [FontFallback.Candidate: Int?] = [:]

    /// Faces to try before fontconfig's choice (those a recipe records).
    private let preferred: [FontFallback.Candidate]

    init(primary: FontFace, fallback: Bool, preferred: [FallbackFont] = []) {
        faces = [primary]
        self.fallback = fallback
        self.preferred = preferred.map { FontFallback.Candidate(path: $0.file, index: $0.index) }
    }

    var primary: FontFace { faces[0] }

    /// The paths of the faces `runs` has used besides the chosen one.
    var fallbackPaths: [String] { usedFaces.map { faces[$0].path } }

    /// The faces besides the chosen one that `runs` has given a character to.
    var usedFaces: [Int] { Array(Set(forScalar.values)).filter { $0 != 0 }.sorted() }

    /// `line` cut into runs of one face each: UTF-8 byte ranges and the index of the face.
    func runs(_ line: String) -> [(bytes: Range<Int>, face: Int)] {
        // Text the chosen face covers is one run, found without splitting it into characters.
        if !fallback || line.unicodeScalars.allSatisfy({ $0.properties.isWhitespace || faces[0].covers(CollectionOfOne($0)) }) {
            return [(0..<line.utf8.count, 0)]
        }
        var runs: [(bytes: Range<Int>, face: Int)] = []
        var offset = 0
        for character in line {
            let length = character.utf8.count
            let face = face(for: character, after: runs.last?.face)
            if let last = runs.last, last.face == face {
                runs[runs.count - 1].bytes = last.bytes.lowerBound..<(offset + length)
            } else {
                runs.append((offset..<(offset + length), face))
            }
            offset += length
        }
        return runs
    }

    private func face(for character: Character, after current: Int?) -> Int {
        let scalars = character.unicodeScalars.filter { !$0.properties.isDefaultIgnorableCodePoint }
        // Spaces and punctuation stay in the run they are in, so that a run is a phrase;
        // a space never asks for another face.
        if let current, character.isWhitespace || character.isPunctuation, faces[current].covers(scalars) {
            return current
        }
        if character.isWhitespace { return current ?? 0 }
        guard fallback, let first = scalars.first, !faces[0].covers(scalars) else { return 0 }
        if let known = forScalar[first.value] { return known }
        var chosen = 0
        for candidate in preferred + FontFallback.candidates(for: first, like: faces[0].path) {
            if let index = load(candidate), faces[index].covers([first]) {
                chosen = index
                break
            }
        }
        forScalar[first.value] = chosen
        return chosen
    }

    private func load(_ candidate: FontFallback.Candidate) -> Int? {
        if let known = loaded[candidate] { return known }
        var index: Int?
        do {
            faces.append(try FontFace(path: candidate.path, index: candidate.index))
            index = faces.count - 1
        } catch {
            unreadable.append(candidate.path)
        }
        loaded[candidate] = index
        return index
    }
}

/// An installed face that drew characters a title's font lacks, as its recipe records it.
public struct FallbackFont: Sendable, Equatable {
    public var name: String
    public var file: String
    /// The face's index in a collection (.ttc).
    public var index: Int
    public var sha256: String

    /// The faces that draw what `settings.font` lacks in `settings.text`, in the order first used.
    static func used(by settings: RenderSettings, fontPath path: String) throws(MercurialError) -> [FallbackFont] {
        guard settings.fallback, settings.mask == nil, let text = settings.text else { return [] }
        // A batch's titles in a font that covers them: the font is opened for the first only.
        let scalars = Set(text.unicodeScalars.lazy
            .filter { !$0.properties.isDefaultIgnorableCodePoint && !$0.properties.isWhitespace }.map(\.value))
        if FontFallback.covers(scalars, path: path) { return [] }
        let fonts = FontSet(primary: try FontFace(path: path), fallback: true, preferred: settings.fallbackFonts)
        if fonts.primary.covers(scalars.compactMap(Unicode.Scalar.init)) {
            FontFallback.remember(scalars, coveredBy: path)
            return []
        }
        var layout = TextLayout(text: text, fontPath: fonts.primary.path)
        layout.fallback = true
        for line in layout.lines { _ = fonts.runs(line) }
        var used: [FallbackFont] = []
        for index in fonts.usedFaces {
            let face = fonts.faces[index]
            used.append(FallbackFont(name: face.name, file: face.path, index: face.index,
                                     sha256: try SceneRecipe.fileSHA256(face.path)))
        }
        return used
    }
}

/// A font file's bytes, read once per process while the file is unchanged: a batch opens
/// the same fonts, fallback faces included, for every title. FreeType reads faces from
/// them and never writes, so faces on several threads share them.
// Unchecked: `buffer` is written once, in `init`, and only read after (FreeType never writes to it).
final class FontBytes: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<UInt8>

    private init(_ data: [UInt8]) {
        buffer = .allocate(capacity: data.count)
        _ = buffer.initialize(from: data)
    }

    deinit { buffer.deallocate() }

    /// The most bytes kept for files not open (a font may be 64 MB).
    static let cacheLimit = 128 << 20

    static func read(_ path: String) throws(MercurialError) -> FontBytes {
        let stamp = FontFallback.stamp(path)
        if let stamp, let known = cache.withLock({ $0.files[stamp] }) { return known }
        let data = try PNGFile.readFile(path, role: "font", limit: TextMask.maximumFontBytes)
        guard !data.isEmpty else { throw MercurialError("font '\(UserPath(checked: path))' is an empty file; give a .ttf or .otf font") }
        let bytes = FontBytes(data)
        if let stamp {
            cache.withLock { cache in
                if cache.bytes + data.count > cacheLimit || cache.files.count >= 64 { cache = Cache() }
                cache.files[stamp] = bytes
                cache.bytes += data.count
            }
        }
        return bytes
    }

    private struct Cache {
        var files: [String: FontBytes] = [:]
        var bytes = 0
    }
    private static let cache = Mutex(Cache())
}
