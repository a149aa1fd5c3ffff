import CPNGWriter
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Every title carries its recipe: the fully resolved scene (every parameter, the
/// lights, the reflection, point lights and backdrop, the font by name and by the
/// SHA-256 of its file, and the tool's version) as a scene file, in a compressed
/// PNG `iTXt` chunk with the keyword `MercurialText scene`. `mercurial inspect`
/// prints it; `render --from` renders it again.
public enum SceneRecipe {
    public static let keyword = "MercurialText scene"
    /// The most bytes a recipe may inflate to when read.
    public static let maximumBytes = 1 << 20

    /// The recipe of `settings` as scene-file JSON. Paths are made absolute so that
    /// the title can be rendered again from anywhere.
    /// `description` replaces the recipe's own (for a scene saved by the editor).
    public static func json(for settings: RenderSettings, timeline: Timeline? = nil, description: String? = nil) -> String {
        value(for: settings, timeline: timeline, description: description).text(lines: 1) + "\n"
    }

    /// The recipe as a JSON value.
    static func value(for settings: RenderSettings, timeline: Timeline? = nil, description: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("description", .string(description ?? "The recipe of a title made by mercurial \(MercurialVersion.string); render it again with: mercurial render --from TITLE.png")),
            ("generator", .string("mercurial \(MercurialVersion.string)")),
        ]
        for row in ParameterGroup.allParameters {
            var value = row.value(in: settings)
            if case .text(let s) = value, row.kind == .path || (row.kind == .font && UserPath.looksLikePath(s)) {
                value = .text(UserPath(checked: s).absolute)
            }
            // Text in styled runs is written as their list, a run's font file by its absolute path.
            if row.key == "text", !settings.runs.isEmpty {
                members.append((row.key, TextRuns.write(settings, absolutePaths: true)))
                continue
            }
            members.append((row.key, JSONValue(value)))
        }
        let fontPath = try? FontLibrary.resolve(settings.font)
        if let fontPath, let hash = try? fileSHA256(fontPath) { members.append(("fontSHA256", .string(hash))) }
        if let fontPath, let used = try? FallbackFont.used(by: settings, fontPath: fontPath), !used.isEmpty {
            members.append(("fallbackFonts", .list(used.map(SceneSchema.fallbackFont.write))))
        }
        for field in SceneSchema.blocks.fields {
            if let value = field.write(settings) { members.append((field.key, value)) }
        }
        if !settings.layers.isEmpty {
            // Each layer with every key it resolved to, so it reads back the same over any top level.
            members.append((SceneSchema.layersKey.key, .list(settings.layers.map { layer in
                guard case .object(let keys) = value(for: layer.settings),
                      case .object(var own) = SceneSchema.layer.write(layer) else { return .null }
                // A still's recipe has no animation, so no layer's in or out either.
                if timeline == nil { own.removeAll { ["in", "out"].contains($0.key) } }
                return .object(own + keys.filter { !["description", "generator"].contains($0.key) })
            })))
        }
        if let timeline {
            members.append(("animation", SceneSchema.animation.write(timeline)))
            if let dynamics = timeline.dynamics { members.append(("dynamics", SceneSchema.dynamics.write(dynamics))) }
            for (key, moves) in [("in", timeline.inOut?.entrances ?? []), ("out", timeline.inOut?.exits ?? [])] {
                if let value = SceneSchema.moves.write(moves) { members.append((key, value)) }
            }
        }
        return .members(members)
    }

    /// The SHA-256 of the font file `font` names (a bundled name, a file or a fontconfig name), in hex.
    public static func fontSHA256(_ font: String) throws(MercurialError) -> String {
        try fileSHA256(try FontLibrary.resolve(font))
    }

    /// The SHA-256 of the font file at `path`, in hex.
    public static func fileSHA256(_ path: String) throws(MercurialError) -> String {
        // A batch writes the same font's hash into every title, and a recipe may name one
        // file many ways: hash each file once for as long as it stays the same.
        let stamp = FileStamp(path)
        if let stamp, let known = hashes.withLock({ $0[stamp] }) { return known }
        let hash = CardSignature.hex(try fileSHA256(path, disk: hashDisk.withLock { $0 }))
        if let stamp {
            hashes.withLock { hashes in
                // A long watch, edit or batch may name any number of font files: keep a few.
                if hashes.count >= 64 { hashes.removeAll(keepingCapacity: true) }
                hashes[stamp] = hash
            }
        }
        return hash
    }

    /// The SHA-256 of the file at `path`, kept in `disk` and read back from it (one-shot
    /// processes: see `keepFontHashes`) under the key of how `stat` finds the file.
    static func fileSHA256(_ path: String, disk: ShadingDiskCache?) throws(MercurialError) -> [UInt8] {
        var info = stat()
        let key = disk != nil && stat(path, &info) == 0 ? ShadingDiskCache.fontKey(path, info) : nil
        if let disk, let key, let kept = disk.fontHash(key) { return kept }
        let sum = CardSignature.sha256(try PNGFile.readFile(path, role: "font", limit: TextMask.maximumFontBytes))
        if let disk, let key { disk.keepFontHash(sum, key) }
        return sum
    }

    /// How many fonts' hashes are kept (for tests: it stays bounded).
    static var keptHashCount: Int { hashes.withLock { $0.count } }

    private static let hashes = Mutex<[FileStamp: String]>([:])

    /// Keeps the fonts' hashes in `disk` too, between processes (the command line's).
    public static func keepFontHashes(in disk: ShadingDiskCache?) {
        hashDisk.withLock { $0 = disk }
    }

    private static let hashDisk = Mutex<ShadingDiskCache?>(nil)

    // MARK: Stamps in JPEG and WebP files

    /// What a JPEG or WebP carries instead of the recipe (a card's few hundred bytes
    /// should not grow by kilobytes): the keyword and the SHA-256 of the recipe and of
    /// what of the encoding changes its pixels. `batch --skip-existing` compares it.
    public static func stamp(_ recipe: String, encoding: StillEncoding) -> String {
        "\(keyword) SHA-256 " + CardSignature.hex(CardSignature.sha256(Array((recipe + "\n" + encoding.stampText).utf8)))
    }

    // MARK: In PNG files

    /// The recipe as a compressed iTXt chunk, for a PNG sink to put right after IHDR.
    public static func pngChunk(_ recipe: String) throws(MercurialError) -> PNGChunk {
        PNGChunk(type: "iTXt", data: try chunkData(recipe))
    }

    /// The recipe as a whole iTXt chunk (length, type, data, CRC).
    public static func chunk(_ recipe: String) throws(MercurialError) -> [UInt8] {
        let data = try chunkData(recipe)
        let typeAndData = Array("iTXt".utf8) + data
        return bigEndian(UInt32(data.count)) + typeAndData
            + bigEndian(typeAndData.withUnsafeBufferPointer { mercurial_crc32(0, $0.baseAddress, $0.count) })
    }

    /// The iTXt chunk's data: keyword, 0, compressed (1), method (0), an empty
    /// language tag and translated keyword (each ended by 0), then the zlib text.
    public static func chunkData(_ recipe: String) throws(MercurialError) -> [UInt8] {
        let text = Array(recipe.utf8)
        var compressed: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard mercurial_zlib_compress(text, text.count, &compressed, &size) != 0, let compressed else {
            throw MercurialError("cannot compress the title's recipe (out of memory)")
        }
        defer { mercurial_png_free(compressed) }
        return Array(keyword.utf8) + [0, 1, 0, 0, 0] + Array(UnsafeBufferPointer(start: compressed, count: size))
    }

    /// The recipe a PNG carries, or nil if it has none.
    public static func read(fromPNG bytes: [UInt8], name: String) throws(MercurialError) -> String? {
        try read(pngOfSize: bytes.count, name: name) { offset, count throws(MercurialError) in
            bytes[offset..<min(offset + count, bytes.count)]
        }
    }

    /// The recipe the PNG file at `path` carries, or nil if it has none. Only the
    /// chunks' headers and the recipe's own chunk are read, so a title of any size,
    /// or one with a huge chunk, costs no more memory than the recipe's cap.
    public static func read(fromPNGFile path: String) throws(MercurialError) -> String? {
        let file = try InputFile.RegularFile(path, role: "title", limit: PNGFile.maximumFileBytes)
        return try read(pngOfSize: file.size, name: path) { offset, count throws(MercurialError) in
            try file.bytes(at: offset, count: count)
        }
    }

    /// The walk of a PNG's chunks to the recipe's, through `bytes(offset, count)`.
    static func read(pngOfSize size: Int, name: String,
                             bytes: (Int, Int) throws(MercurialError) -> ArraySlice<UInt8>) throws(MercurialError) -> String? {
        guard size >= 8, Array(try bytes(0, 8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else {
            throw MercurialError("'\(name)' is not a PNG file; give a title written by mercurial")
        }
        let marker = Array(keyword.utf8) + [0]
        var offset = 8
        while offset + 12 <= size {
            let head = Array(try bytes(offset, 8))
            guard head.count == 8 else { break }
            let length = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: head[4..<8], as: UTF8.self)
            let left = size - offset - 12
            guard length <= left else {
                throw MercurialError("'\(name)' is truncated or damaged: a chunk claims \(length) bytes but the file has \(left) left")
            }
            if type == "iTXt", length >= marker.count, Array(try bytes(offset + 8, marker.count)) == marker {
                // A compressed recipe of at most `maximumBytes` deflates to no more than
                // that plus zlib's few bytes of overhead; an uncompressed one is the text.
                guard length <= maximumBytes + 1024 else {
                    throw MercurialError.limit("'\(name)' carries a recipe of \(length / 1024) KB, over the limit of \(maximumBytes / 1024) KB; render it without --from")
                }
                return try recipe(inChunk: Array(try bytes(offset + 8, length)), name: name)
            }
            if type == "IEND" { break }
            offset += 12 + length
        }
        return nil
    }

    /// The text of the recipe's iTXt chunk `data` (keyword, NUL, compressed flag,
    /// method, language tag and translated keyword each NUL-ended, then the text).
    private static func recipe(inChunk data: [UInt8], name: String) throws(MercurialError) -> String? {
        guard var p = data.firstIndex(of: 0).map({ $0 + 1 }), p + 2 <= data.count else { return nil }
        let isCompressed = data[p] == 1
        p += 2
        for _ in 0..<2 {
            guard let end = data[p...].firstIndex(of: 0) else { p = data.count; break }
            p = end + 1
        }
        let body = Array(data[min(p, data.count)...])
        guard isCompressed else { return String(decoding: body, as: UTF8.self) }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard mercurial_zlib_uncompress(body, body.count, maximumBytes, &out, &size) != 0, let out else {
            throw MercurialError("'\(name)' carries a recipe that is damaged or over \(maximumBytes / 1024) KB; render it without --from")
        }
        defer { mercurial_png_free(out) }
        return String(decoding: UnsafeBufferPointer(start: out, count: size), as: UTF8.self)
    }

    // MARK: JSON text


    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)]
    }
}

extension SceneRecipe {
    /// The recipe of a sequence: its frame rate, and each title's own recipe with its
    /// hold and its transition to the next, as a scene file that animates to the same frames.
    public static func json(for sequence: TitleSequence) -> String {
        let steps = sequence.steps.map { step in
            JSONValue.members([("scene", value(for: step.settings, timeline: step.timeline))]
                + SceneSchema.sequenceStep.fields.compactMap { field in field.write(step).map { (field.key, $0) } })
        }
        let description = "The recipe of a sequence of titles made by mercurial \(MercurialVersion.string); animate it again with: mercurial inspect TITLE.png > scene.json && mercurial animate scene.json -o OUT"
        // Each step's scene one key a line, as a title's recipe is.
        return JSONValue.members([("description", .string(description)), ("animation", SceneSchema.sequenceAnimation.write(sequence)),
                                  ("sequence", .list(steps))]).text(lines: 4) + "\n"
    }
}
