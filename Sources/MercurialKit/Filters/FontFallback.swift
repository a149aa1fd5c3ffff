import CFontconfig
import FoundationEssentials
import Synchronization

/// The installed faces that can draw a character the chosen face lacks, as fontconfig
/// ranks them: faces whose charset has it, closest to the chosen face's weight and slant.
/// A character first looks itself up in the installed faces' charsets (no face has it:
/// nothing more is asked); fontconfig then sorts only the faces that have it, once for
/// every character those same faces have (a script's characters share them), for each
/// weight and slant. That is the order a sort of every installed face for the character
/// alone gives them: faces that have a character rank before all that lack it, so the
/// others change nothing, not even which faces claim the pattern's languages.
/// The answers are cached for the process (a batch asks the same questions title after
/// title); the caches are bounded and emptied when full.
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
            if state.installed == nil { state.installed = installed(config) }
            let installed = state.installed ?? []
            let having = installed.indices.filter { FcCharSetHasChar(installed[$0].charset, scalar.value) != 0 }
            var found: [Candidate] = []
            if !having.isEmpty {
                let style = self.style(of: path, in: &state)
                let sortKey = SortKey(style: style.key, faces: having)
                let order: [Candidate]
                if let known = state.sorted[sortKey] {
                    order = known
                } else {
                    if state.sorted.count >= 512 { state.sorted.removeAll() }
                    order = sorted(having.map { installed[$0].pattern }, config: config, like: style.pattern)
                    state.sorted[sortKey] = order
                    state.sortCount += 1
                }
                for candidate in order where found.count < candidatesPerCharacter
                    && candidate.path != path && !found.contains(candidate) {
                    found.append(candidate)
                }
            }
            if state.answers.count >= cacheLimit { state.answers.removeAll() }
            state.answers[key] = found
            return found
        }
    }

    /// Whether the font file at `path` (as it is now) is known to have all of `scalars`.
    static func covers(_ scalars: Set<UInt32>, path: String) -> Bool {
        guard let stamp = FileStamp(path) else { return false }
        return state.withLock { $0.covered[stamp]?.isSuperset(of: scalars) == true }
    }

    /// Remembers that the font file at `path` has all of `scalars`.
    static func remember(_ scalars: Set<UInt32>, coveredBy path: String) {
        guard let stamp = FileStamp(path) else { return }
        state.withLock { state in
            if state.covered.count >= 64 || (state.covered[stamp]?.count ?? 0) + scalars.count > 65536 { state.covered.removeAll() }
            state.covered[stamp, default: []].formUnion(scalars)
        }
    }

    /// How many answers are cached, and how many times fontconfig sorted faces (for tests).
    static var cachedAnswers: Int { state.withLock { $0.answers.count } }
    static var sorts: Int { state.withLock { $0.sortCount } }

    /// fontconfig's pattern for a face like the one at `path`: its weight and slant
    /// (regular, roman if unreadable), with the configuration's substitutions.
    private static func style(of path: String, in state: inout State) -> (pattern: OpaquePointer?, key: Int64) {
        if let known = state.styles[path] { return (state.patterns[known], known) }
        var weight = Int32(FC_WEIGHT_REGULAR), slant = Int32(FC_SLANT_ROMAN)
        var count: Int32 = 0
        if let pattern = FcFreeTypeQuery(path, 0, nil, &count) {
            defer { FcPatternDestroy(pattern) }
            var value: Int32 = 0
            var real = 0.0
            if FcPatternGetInteger(pattern, FC_WEIGHT, 0, &value) == FcResultMatch {
                weight = value
            } else if FcPatternGetDouble(pattern, FC_WEIGHT, 0, &real) == FcResultMatch {
                weight = Int32(real.rounded())
            }
            if FcPatternGetInteger(pattern, FC_SLANT, 0, &value) == FcResultMatch { slant = value }
        }
        let key = Int64(weight) << 32 | Int64(UInt32(bitPattern: slant))
        if state.styles.count >= cacheLimit { state.styles.removeAll() }
        state.styles[path] = key
        if state.patterns[key] == nil, let pattern = FcPatternCreate() {
            // A few weights and slants are asked about; fonts of odd ones start over.
            if state.patterns.count >= 16 {
                state.patterns.values.forEach { FcPatternDestroy($0) }
                state.patterns.removeAll()
                state.styles = [path: key]
            }
            FcPatternAddInteger(pattern, FC_WEIGHT, weight)
            FcPatternAddInteger(pattern, FC_SLANT, slant)
            FcPatternAddBool(pattern, FC_SCALABLE, FcTrue)
            if let config = state.config { FcConfigSubstitute(config, pattern, FcMatchPattern) }
            FcDefaultSubstitute(pattern)
            state.patterns[key] = pattern
        }
        return (state.patterns[key], key)
    }

    /// An installed scalable face: its pattern and charset (the configuration's) and file.
    struct InstalledFace {
        var pattern: OpaquePointer
        var charset: OpaquePointer
        var candidate: Candidate
    }

    /// The installed scalable faces with a file, as fontconfig lists them.
    private static func installed(_ config: OpaquePointer) -> [InstalledFace] {
        var faces: [InstalledFace] = []
        for kind in [FcSetSystem, FcSetApplication] {
            guard let set = FcConfigGetFonts(config, kind) else { continue }
            for i in 0..<Int(set.pointee.nfont) {
                guard let font = set.pointee.fonts[i] else { continue }
                var charset: OpaquePointer?
                var file: UnsafeMutablePointer<FcChar8>?
                var index: Int32 = 0
                var scalable: FcBool = FcFalse
                guard FcPatternGetCharSet(font, FC_CHARSET, 0, &charset) == FcResultMatch, let charset,
                      FcPatternGetBool(font, FC_SCALABLE, 0, &scalable) == FcResultMatch, scalable != 0,
                      FcPatternGetString(font, FC_FILE, 0, &file) == FcResultMatch, let file else { continue }
                _ = FcPatternGetInteger(font, FC_INDEX, 0, &index)
                faces.append(InstalledFace(pattern: font, charset: charset,
                                           candidate: Candidate(path: String(cString: file), index: Int(index))))
            }
        }
        return faces
    }

    /// `fonts` (installed faces' patterns) in fontconfig's order for `pattern`.
    private static func sorted(_ fonts: [OpaquePointer], config: OpaquePointer, like pattern: OpaquePointer?) -> [Candidate] {
        guard let pattern, let set = FcFontSetCreate() else { return [] }
        defer { FcFontSetDestroy(set) }
        for font in fonts {
            FcPatternReference(font)
            if FcFontSetAdd(set, font) == 0 { FcPatternDestroy(font) }
        }
        var sets: [UnsafeMutablePointer<FcFontSet>?] = [set]
        var result = FcResultNoMatch
        guard let sorted = FcFontSetSort(config, &sets, 1, pattern, FcFalse, nil, &result) else { return [] }
        defer { FcFontSetDestroy(sorted) }
        var order: [Candidate] = []
        for i in 0..<Int(sorted.pointee.nfont) {
            var file: UnsafeMutablePointer<FcChar8>?
            var index: Int32 = 0
            guard let font = sorted.pointee.fonts[i],
                  FcPatternGetString(font, FC_FILE, 0, &file) == FcResultMatch, let file else { continue }
            _ = FcPatternGetInteger(font, FC_INDEX, 0, &index)
            order.append(Candidate(path: String(cString: file), index: Int(index)))
        }
        return order
    }

    /// A weight and slant, and the installed faces (by their place in the list) that have a character.
    private struct SortKey: Hashable {
        var style: Int64
        var faces: [Int]
    }

    /// fontconfig's configuration, installed faces and patterns (used only under the lock) and the cached answers.
    private struct State {
        var config: OpaquePointer?
        var installed: [InstalledFace]?
        /// Each font's weight and slant, and fontconfig's pattern for each weight and slant.
        var styles: [String: Int64] = [:]
        var patterns: [Int64: OpaquePointer] = [:]
        var sorted: [SortKey: [Candidate]] = [:]
        var sortCount = 0
        var answers: [String: [Candidate]] = [:]
        var covered: [FileStamp: Set<UInt32>] = [:]
    }
    private static let state = Mutex(State())
}

/// The chosen face and the installed faces that draw what it lacks, for one render.
/// Text the chosen face covers never asks fontconfig anything.
final class FontSet {
    /// `faces[0]` is the chosen face; the others were loaded for characters it lacks.
    private(set) var faces: [FontFace]
    let fallback: Bool
    /// Fallback faces chosen for a character but not loaded: unreadable, or past the budget.
    private(set) var skipped: [Skipped] = []
    private var forScalar: [UInt32: Int] = [:]
    private var loaded: [FontFallback.Candidate: Int?] = [:]

    /// Faces to try before fontconfig's choice (those a recipe records), and how many of
    /// them are loaded so far (in order, as characters need them); each file's face once.
    private let preferred: [FontFallback.Candidate]
    private var preferredTried = 0
    private var preferredFaces: [Int] = []

    /// The most bytes of font files one render's fallback faces load. A recipe may list
    /// 4,096 faces, and every installed font may be asked for; a file is counted once
    /// however its path is spelled (`dir/././f.ttf`).
    static let byteBudget = 256 << 20
    private let budget: Int
    private var loadedBytes = 0
    /// The faces opened, by file (device and inode) and index; nil for one that failed.
    private var byFile: [FaceKey: Int?] = [:]
    private var loadedFiles: Set<FileStamp> = []

    struct Skipped {
        enum Reason { case unreadable, overBudget }
        var path: String
        var reason: Reason
        /// A face the recipe lists, not one fontconfig chose.
        var fromRecipe: Bool
    }

    private struct FaceKey: Hashable {
        var file: FileStamp
        var index: Int
    }

    init(primary: FontFace, fallback: Bool, preferred: [FallbackFont] = [], byteBudget: Int = FontSet.byteBudget) {
        faces = [primary]
        self.fallback = fallback
        self.preferred = preferred.map { FontFallback.Candidate(path: $0.file, index: $0.index) }
        budget = byteBudget
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

    /// One line for each kind of skipped face, with their count and the first, however many there are.
    var warnings: [MercurialWarning] {
        var lines: [MercurialWarning] = []
        for reason in [Skipped.Reason.unreadable, .overBudget] {
            for fromRecipe in [true, false] {
                let paths = skipped.filter { $0.reason == reason && $0.fromRecipe == fromRecipe }.map(\.path)
                guard let first = paths.first.map({ UserPath(checked: $0) }) else { continue }
                let one = paths.count == 1
                let faces = one ? (fromRecipe ? "the recipe's fallback face '\(first)'" : "installed font '\(first)'")
                    : "\(paths.count) \(fromRecipe ? "of the recipe's fallback faces" : "installed fonts") (the first '\(first)')"
                let drawNothing = one ? "so it draws nothing here" : "so they draw nothing here"
                switch reason {
                case .unreadable:
                    lines.append(MercurialWarning("\(faces) could not be read, \(drawNothing); check \(one ? "it" : "them") with 'fc-query'"))
                case .overBudget:
                    let fix = fromRecipe ? "list fewer fallback fonts in the recipe" : "give a --font that has more of the text"
                    lines.append(MercurialWarning("\(faces) \(one ? "was" : "were") not loaded, as the title's fallback faces reached the limit of \(formatNumber(Double(budget) / 1_048_576)) MB of font files, \(drawNothing); \(fix)"))
                }
            }
        }
        return lines
    }

    private func face(for character: Character, after current: Int?) -> Int {
        let scalars = character.unicodeScalars.filter { !$0.properties.isDefaultIgnorableCodePoint }
        // Spaces and punctuation stay in the run they are in, so that a run is a phrase;
        // a space never asks for another face. But not in a colour emoji face, whose space is
        // the width of an emoji (Noto's is 1.25 em): a space after an emoji is the font's.
        let emoji = current.map { faces[$0].isColorBitmap } ?? false
        if let current, !emoji, character.isWhitespace || character.isPunctuation, faces[current].covers(scalars) {
            return current
        }
        if character.isWhitespace { return emoji ? 0 : current ?? 0 }
        guard fallback, let first = scalars.first, !faces[0].covers(scalars) else { return 0 }
        if let known = forScalar[first.value] { return known }
        let chosen = preferredFace(for: first) ?? FontFallback.candidates(for: first, like: faces[0].path).lazy
            .compactMap { self.load($0, fromRecipe: false) }.first { self.faces[$0].covers([first]) } ?? 0
        forScalar[first.value] = chosen
        return chosen
    }

    /// The first of the recipe's faces, in its order, that has `scalar`: those loaded
    /// already, then the rest, loaded one by one until one has it.
    private func preferredFace(for scalar: Unicode.Scalar) -> Int? {
        if let index = preferredFaces.first(where: { faces[$0].covers([scalar]) }) { return index }
        while preferredTried < preferred.count {
            let candidate = preferred[preferredTried]
            preferredTried += 1
            guard let index = load(candidate, fromRecipe: true), !preferredFaces.contains(index) else { continue }
            preferredFaces.append(index)
            if faces[index].covers([scalar]) { return index }
        }
        return nil
    }

    private func load(_ candidate: FontFallback.Candidate, fromRecipe: Bool) -> Int? {
        if let known = loaded[candidate] { return known }
        let index = open(candidate, fromRecipe: fromRecipe)
        loaded[candidate] = index
        return index
    }

    /// The face `candidate` names: one already open from the same file, or a new one
    /// if it is readable and its file fits the budget.
    private func open(_ candidate: FontFallback.Candidate, fromRecipe: Bool) -> Int? {
        guard let file = FileStamp(candidate.path) else {
            skipped.append(Skipped(path: candidate.path, reason: .unreadable, fromRecipe: fromRecipe))
            return nil
        }
        let key = FaceKey(file: file, index: candidate.index)
        if let known = byFile[key] { return known }
        let newFile = !loadedFiles.contains(file)
        var index: Int?
        if newFile && loadedBytes + file.size > budget {
            skipped.append(Skipped(path: candidate.path, reason: .overBudget, fromRecipe: fromRecipe))
        } else {
            do {
                faces.append(try FontFace(path: candidate.path, index: candidate.index))
                index = faces.count - 1
                if loadedFiles.insert(file).inserted { loadedBytes += file.size }
            } catch {
                skipped.append(Skipped(path: candidate.path, reason: .unreadable, fromRecipe: fromRecipe))
            }
        }
        byFile[key] = index
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

    private init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    deinit { buffer.deallocate() }

    /// The most bytes kept for files not open (a font may be 64 MB).
    static let cacheLimit = 128 << 20

    static func read(_ path: String) throws(MercurialError) -> FontBytes {
        // Keyed by the file, not its path: a recipe spelling one font 300 ways reads it once.
        let stamp = FileStamp(path)
        if let stamp, let known = cache.withLock({ $0.files[stamp] }) { return known }
        let bytes = FontBytes(try InputFile.readAllocated(path, role: "font", limit: TextMask.maximumFontBytes))
        guard !bytes.buffer.isEmpty else { throw MercurialError("font '\(UserPath(checked: path))' is an empty file; give a .ttf or .otf font") }
        if let stamp {
            cache.withLock { cache in
                if cache.bytes + bytes.buffer.count > cacheLimit || cache.files.count >= 64 { cache = Cache() }
                cache.files[stamp] = bytes
                cache.bytes += bytes.buffer.count
            }
        }
        return bytes
    }

    private struct Cache {
        var files: [FileStamp: FontBytes] = [:]
        var bytes = 0
    }
    private static let cache = Mutex(Cache())
}
