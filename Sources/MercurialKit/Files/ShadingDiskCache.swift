import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Traced shading spheres kept between processes, so that a one-shot `mercurial render`
/// whose sphere an earlier process traced reads 196 KB instead of tracing four lights at
/// 65,536 texels (about a fifth of a small title's CPU time); and the SHA-256 of the font
/// files recipes name, so that the next process does not read and hash the file again
/// (DejaVu Sans Bold's 705 KB: 0.4 ms; a 20 MB CJK font: 10 ms).
///
/// The folder is `$MERCURIAL_CACHE` (`off` turns the cache off), else
/// `$XDG_CACHE_HOME/mercurial/shading`, else `~/.cache/mercurial/shading`. A file is one
/// lookup's texels as bytes (each texel is a byte / 255 already, so nothing is rounded),
/// named by the SHA-256 of the scene, the size and this build of the program, so that a
/// new build never reads an old one's spheres. At most `keptFiles` are kept. It is only
/// a cache: a folder that cannot be made or written, or a file that does not read back
/// whole and for its own key, means the sphere is traced as it would be without one.
public struct ShadingDiskCache: Sendable {
    public static let environmentVariable = "MERCURIAL_CACHE"
    static let keptFiles = 32
    static let magic = Array("MTSHADE1".utf8)
    static let headerBytes = 8 + 32 + 4

    public let folder: String

    public init(folder: String) { self.folder = folder }

    /// The folder the environment names; nil when `MERCURIAL_CACHE=off` or there is no home.
    public static func fromEnvironment(_ variable: (String) -> String? = environmentValue) -> ShadingDiskCache? {
        if let named = variable(environmentVariable), !named.isEmpty {
            return named == "off" ? nil : ShadingDiskCache(folder: named)
        }
        if let cache = variable("XDG_CACHE_HOME"), cache.hasPrefix("/") {
            return ShadingDiskCache(folder: cache + "/mercurial/shading")
        }
        if let home = variable("HOME"), home.hasPrefix("/") {
            return ShadingDiskCache(folder: home + "/.cache/mercurial/shading")
        }
        return nil
    }

    /// This build of the program: its version and its executable's size and time, read once.
    static let build: String = {
        let executable = FileStamp("/proc/self/exe").map { "\($0.size) \($0.seconds).\($0.nanoseconds)" } ?? "unknown"
        return "mercurial \(MercurialVersion.string) \(executable)"
    }()

    /// The key of `scene` traced at `size`: the bits of every number the scene holds, lists
    /// counted, with the size and the build. Written out here rather than by `JSONEncoder`,
    /// which took 1.3 M instructions, 3 % of a small title's; `ShadingDiskCacheTests` holds the
    /// scene's types to the stored properties named here, so that one added later fails there.
    static func key(_ scene: ShadingScene, size: Int) -> [UInt8] {
        var bytes = Array("shading 2\n\(build)\n\(size)\n".utf8)
        func add(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        func add(_ value: Float) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        func add(_ count: Int) { withUnsafeBytes(of: Int64(count).littleEndian) { bytes += $0 } }
        func add(_ color: RGBColor) { add(color.r); add(color.g); add(color.b) }
        add(scene.lights.count)
        for light in scene.lights {
            add(light.hue); add(light.brightness)
            add(light.position.x); add(light.position.y); add(light.position.z)
        }
        let material = scene.material
        add(material.shininess); add(material.diffuse); add(material.specular); add(material.ambient)
        add(material.reflection.map(\.stops.count) ?? -1)
        for stop in material.reflection?.stops ?? [] { add(stop.color); add(stop.location) }
        add(material.reflectivity)
        return CardSignature.sha256(bytes)
    }

    private func path(_ key: [UInt8]) -> String { folder + "/" + CardSignature.hex(key) }

    /// The lookup kept for `key`, or nil when there is none that reads back whole.
    func read(_ key: [UInt8], size: Int) -> ShadingLookup? {
        let texels = 3 * size * size
        guard var bytes = entry(key, magic: Self.magic, payload: 4 + texels),
              bytes[40..<44].enumerated().reduce(0, { $0 | Int($1.element) << (8 * $1.offset) }) == size else { return nil }
        bytes.removeSubrange(0..<Self.headerBytes)   // in place: the texels are the rest of the file
        return ShadingLookup(width: size, height: size, texels: bytes)
    }

    /// Keeps `lookup` under `key`, written whole or not at all (`OutputFile`); then the
    /// oldest files past `keptFiles` go.
    func write(_ lookup: ShadingLookup, _ key: [UInt8], size: Int) {
        // Renders trace 256² spheres (196 KB); a larger one is not worth a file.
        guard size <= 512 else { return }
        keep(Self.magic + key + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + lookup.texelBytes(), key)
    }

    /// The file kept for `key` when it reads back whole: `magic`, the key, then `payload` bytes.
    private func entry(_ key: [UInt8], magic: [UInt8], payload: Int) -> [UInt8]? {
        let count = magic.count + key.count + payload
        guard let bytes = try? InputFile.read(path(key), role: "shading cache", limit: count), bytes.count == count,
              bytes.starts(with: magic), Array(bytes[magic.count..<(magic.count + key.count)]) == key else { return nil }
        return bytes
    }

    /// Keeps `bytes` as `key`'s file, written whole or not at all (`OutputFile`); then the
    /// oldest files past `keptFiles` go.
    private func keep(_ bytes: [UInt8], _ key: [UInt8]) {
        guard makeFolder(), (try? OutputFile.write(bytes, to: path(key))) != nil else { return }
        prune()
    }

    // MARK: Fonts' SHA-256

    static let fontMagic = Array("MTFONT01".utf8)

    /// The key of the font file at `path` as `info` finds it: the path, the device and
    /// inode, the size and both times (the change time moves with any write, even one that
    /// keeps the modification time, and cannot be set back), with this build.
    static func fontKey(_ path: String, _ info: stat) -> [UInt8] {
        let times = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
        return CardSignature.sha256(Array("font sha256 1\n\(build)\n\(path)\n\(info.st_dev) \(info.st_ino) \(info.st_size) \(times)\n".utf8))
    }

    /// The SHA-256 kept for the font file `key` names, or nil.
    func fontHash(_ key: [UInt8]) -> [UInt8]? {
        entry(key, magic: Self.fontMagic, payload: 32).map { Array($0.suffix(32)) }
    }

    /// Keeps `hash` for the font file `key` names (as a sphere is kept, and pruned with them).
    func keepFontHash(_ hash: [UInt8], _ key: [UInt8]) {
        guard hash.count == 32 else { return }
        keep(Self.fontMagic + key + hash, key)
    }

    // MARK: Liquid curves

    static let curveMagic = Array("MTCURVE1".utf8)

    /// The key of the liquid loft's height curve for `radius`, with this build (whose code
    /// makes the curve).
    static func curveKey(radius: Float) -> [UInt8] {
        CardSignature.sha256(Array("liquid curve 1\n\(build)\n\(radius.bitPattern)\n".utf8))
    }

    /// The `count` floats kept for the curve `key` names, or nil. Unlike a sphere's bytes, a
    /// float a disk changed could be any number (a NaN traps where a height becomes a pixel
    /// position), so the file ends with the SHA-256 of its floats, which must match.
    func curve(_ key: [UInt8], count: Int) -> [Float]? {
        guard let bytes = entry(key, magic: Self.curveMagic, payload: 4 * count + 32) else { return nil }
        let start = Self.curveMagic.count + key.count, end = start + 4 * count
        return bytes.withUnsafeBytes { raw -> [Float]? in
            // Hashed where they lie, not copied out first.
            var hash = SHA256Hash()
            hash.add(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
            guard hash.digest().elementsEqual(raw[end...]) else { return nil }
            return [Float](unsafeUninitializedCapacity: count) { floats, made in
                for i in 0..<count {
                    floats[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: start + 4 * i, as: UInt32.self)))
                }
                made = count
            }
        }
    }

    /// Keeps the curve's `floats` for `key`, then their SHA-256 (as a sphere is kept, and
    /// pruned with them).
    func keepCurve(_ floats: [Float], _ key: [UInt8]) {
        var payload: [UInt8] = []
        payload.reserveCapacity(4 * floats.count)
        for value in floats { withUnsafeBytes(of: value.bitPattern.littleEndian) { payload += $0 } }
        keep(Self.curveMagic + key + payload + CardSignature.sha256(payload), key)
    }

    /// The folder and its parents, made private to the user where they are new.
    private func makeFolder() -> Bool {
        var info = stat()
        if stat(folder, &info) == 0 { return info.st_mode & S_IFMT == S_IFDIR }
        return (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                         attributes: [.posixPermissions: 0o700])) != nil
    }

    /// The files past the newest `keptFiles` removed, and temporaries of processes gone.
    private func prune() {
        TemporaryName.removeStale(in: folder, prefix: nil)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let kept = names.filter { $0.utf8.count == 64 && $0.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) } }
        guard kept.count > Self.keptFiles else { return }
        let dated = kept.map { name in (name: name, stamp: FileStamp(folder + "/" + name)) }
        let oldestFirst = dated.sorted { ($0.stamp?.seconds ?? 0, $0.stamp?.nanoseconds ?? 0) < ($1.stamp?.seconds ?? 0, $1.stamp?.nanoseconds ?? 0) }
        for file in oldestFirst.prefix(kept.count - Self.keptFiles) { unlink(folder + "/" + file.name) }
    }
}
