import CNettle
import FoundationEssentials

/// A card asked for over HTTP (`mercurial serve`): the scene, from a POST's JSON body
/// or a GET's query, read under `ResourceStore.namesOnly`; the encoding; and the
/// card's identity, the SHA-256 that names it (`/v1/cards/SHA.EXT`) and is its ETag.
public struct CardRequest: Sendable {
    public var settings: RenderSettings
    public var encoding: StillEncoding
    /// The resolved scene (`SceneRecipe.json`): what the card looks like, however it was spelt.
    public var recipe: String

    /// The query parameters that choose the encoding, not the scene (nor are they scene keys).
    public static let encodingKeys: Set<String> = ["format", "quality", "lossless", "progressive"]
    /// The most layers a query may name (a scene file's are bounded by its size).
    public static let maximumLayers = 64
    /// The query parameter that carries the signature.
    public static let signatureKey = "sig"

    /// A scene given as a JSON object (a POST's body), encoded as `encoding` says.
    public init(json bytes: [UInt8], encoding: StillEncoding) throws(MercurialError) {
        let scene = try ResourceStore.namesOnly.scene(json: bytes, name: "scene")
        if scene.timeline != nil {
            throw MercurialError("scene: \"animation\" makes a video, which the server does not render; leave it out for a card")
        }
        try self.init(settings: scene.settings, encoding: encoding)
    }

    /// A scene given as query parameters (`text=Hello&size=80&layers[0].text=…`): the
    /// material (the scene's and each layer's), the canvas and the layers as a scene file
    /// would give them, then every other key as `--set` reads it.
    public init(query: [(key: String, value: String)], encoding: StillEncoding) throws(MercurialError) {
        var layerCount = 0
        var assignments: [(ScenePath, String)] = []
        var skeleton: [(String, JSONValue)] = []
        var layerMaterials: [Int: String] = [:]
        for (key, value) in query where !Self.encodingKeys.contains(key) && key != Self.signatureKey {
            let path = try ScenePath(key)
            if let layer = path.layer {
                guard layer < Self.maximumLayers else {
                    throw MercurialError("'\(key)' names layer \(layer); a scene has at most \(Self.maximumLayers) layers")
                }
                layerCount = max(layerCount, layer + 1)
                if path.key == "material" { layerMaterials[layer] = value; continue }
            } else if ["material", "width", "height"].contains(path.key) {
                // These shape how the rest is read: given first, as a scene file gives them.
                skeleton.append((path.key, path.key == "material" ? .string(value) : Int(value).map { .number(Double($0)) } ?? .string(value)))
                continue
            }
            assignments.append((path, value))
        }
        if layerCount > 0 {
            skeleton.append((SceneSchema.layersKey.key, .list((0..<layerCount).map { i in
                .members(layerMaterials[i].map { [("material", .string($0))] } ?? [])
            })))
        }
        var settings = RenderSettings()
        if !skeleton.isEmpty {
            let json = JSONValue.members(skeleton).text(lines: 1)
            settings = try ResourceStore.namesOnly.scene(json: Array(json.utf8), name: "query").settings
        }
        for (path, value) in assignments {
            do { try settings.set(path, text: value) } catch { throw error.within("query '\(path)'") }
        }
        try self.init(settings: settings, encoding: encoding)
    }

    init(settings: RenderSettings, encoding: StillEncoding) throws(MercurialError) {
        try ResourceStore.namesOnly.check(settings, name: "scene")
        self.settings = settings
        self.encoding = encoding
        recipe = SceneRecipe.json(for: settings)
    }

    /// The card's name and ETag: the SHA-256 of its resolved scene (which holds the
    /// renderer's version and the font's hash), its encoding, and whether it carries the recipe.
    public func identity(withRecipe: Bool) -> String {
        let e = encoding
        let line = "\(recipe)\n\(e.format.fileExtension) q\(e.quality ?? StillEncoding.defaultQuality) l\(e.lossless) p\(e.progressive) r\(withRecipe)"
        return CardSignature.hex(CardSignature.sha256(Array(line.utf8)))
    }

    /// The job that renders the card.
    public func job(withRecipe: Bool) -> StillJob {
        StillJob(settings: settings, encoding: encoding, compression: .fast, recipe: withRecipe, resources: .namesOnly)
    }
}

/// Signed card URLs: the signature is HMAC-SHA256, under the server's key, of the
/// query's canonical form, so that a proxy's re-encoding cannot break it and no
/// other spelling of a different scene can match it.
///
/// The canonical form: every parameter but `sig`, decoded (`%XX`, and `+` as a space),
/// sorted by name (a name given twice is refused), each written `name=value` with every
/// byte but `A–Z a–z 0–9 - . _ ~` as `%XX` (upper case), joined by `&`.
public enum CardSignature {
    /// The parameters of a raw query string, decoded, in order. Refuses bad percent escapes and non-UTF-8.
    public static func parameters(_ query: String) throws(MercurialError) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try decode(String(parts[0])), value = parts.count > 1 ? try decode(String(parts[1])) : ""
            result.append((key, value))
        }
        return result
    }

    /// The canonical form of `parameters` (without `sig`).
    public static func canonical(_ parameters: [(key: String, value: String)]) throws(MercurialError) -> String {
        let kept = parameters.filter { $0.key != CardRequest.signatureKey }
        var seen: Set<String> = []
        for (key, _) in kept where !seen.insert(key).inserted {
            throw MercurialError("query parameter '\(key.escapedForTerminal)' is given twice; give each key once")
        }
        return kept.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            .map { encode($0.key) + "=" + encode($0.value) }.joined(separator: "&")
    }

    /// The signature of `parameters` under `key`, in lower-case hex.
    public static func sign(_ parameters: [(key: String, value: String)], key: [UInt8]) throws(MercurialError) -> String {
        hex(hmac(Array(try canonical(parameters).utf8), key: key))
    }

    /// Whether `parameters` carry `sig`, the signature of the rest under `key`,
    /// compared in constant time (over the digests, never the strings as given).
    public static func verify(_ parameters: [(key: String, value: String)], key: [UInt8]) throws(MercurialError) -> Bool {
        let given = parameters.filter { $0.key == CardRequest.signatureKey }
        guard given.count == 1, let digest = unhex(given[0].value), digest.count == 32 else { return false }
        let expected = hmac(Array(try canonical(parameters).utf8), key: key)
        return mercurial_same_in_constant_time(expected, digest, 32) != 0
    }

    /// The signature of a request body (a POST's scene): HMAC-SHA256 of its bytes as sent.
    public static func verify(body: [UInt8], signature: String?, key: [UInt8]) -> Bool {
        guard let signature, let digest = unhex(signature), digest.count == 32 else { return false }
        return mercurial_same_in_constant_time(hmac(body, key: key), digest, 32) != 0
    }

    public static func hmac(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        mercurial_hmac_sha256(key, key.count, message, message.count, &digest)
        return digest
    }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var hash = SHA256Hash()
        bytes.withUnsafeBytes { hash.add($0) }
        return hash.digest()
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    public static func hex(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out += [hexDigits[Int(b >> 4)], hexDigits[Int(b & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    static func unhex(_ text: String) -> [UInt8]? {
        let digits = Array(text.lowercased().utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let hi = hexDigits.firstIndex(of: digits[i]), let lo = hexDigits.firstIndex(of: digits[i + 1]) else { return nil }
            bytes.append(UInt8(hi << 4 | lo))
        }
        return bytes
    }

    private static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 128, c.isLetter || c.isNumber || "-._~".contains(c) {
                out.append(c)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    private static func decode(_ text: String) throws(MercurialError) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else {
                    throw MercurialError("the query has a bad escape in '\(text.escapedForTerminal)'; write % as %25")
                }
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            default: bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw MercurialError("the query is not UTF-8 once decoded; percent-encode text as UTF-8")
        }
        return decoded
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension CardSignature {
    /// The signing key in the file at `path` (`serve --key`, `sign --key`): its bytes,
    /// without trailing white space; at least 16 of them.
    public static func readKey(_ path: String) throws(MercurialError) -> [UInt8] {
        var bytes = try InputFile.read(path, role: "key file", limit: 4096)
        while let last = bytes.last, [9, 10, 13, 32].contains(last) { bytes.removeLast() }
        guard bytes.count >= 16 else {
            throw MercurialError("key file '\(UserPath(checked: path))' holds \(bytes.count) bytes; a signing key needs at least 16 (e.g. openssl rand -hex 32 > \(UserPath(checked: path)))")
        }
        return bytes
    }
}
