import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite struct ShadingDiskCacheTests {
    /// The default scene and a reflective, coloured one: both kinds of sphere the sum makes.
    static let scenes: [ShadingScene] = {
        var gold = ShadingScene()
        gold.material.reflection = Gradient(colors: [.white, RGBColor(r: 0.4, g: 0.2, b: 0)])
        gold.material.reflectivity = 0.4
        gold.material.ambient = RGBColor(grey: 0.05)
        gold.lights[2].hue = 0.1
        return [ShadingScene(), gold]
    }()

    /// A fresh cache (as a new process has) that takes its first sphere from `folder`.
    static func process(_ folder: URL) -> ShadingCache {
        let cache = ShadingCache()
        cache.keepFirstSphere(in: ShadingDiskCache(folder: folder.path))
        return cache
    }

    static func keptFiles(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }
    }

    @Test(arguments: 0..<2)
    func aSphereReadBackIsTheSphereTraced(_ which: Int) async throws {
        let scene = Self.scenes[which]
        try await CLI.withTemporaryDirectory { dir in
            let folder = dir.appendingPathComponent("cache/shading")
            let first = Self.process(folder)
            let traced = first.lookup(scene, size: 256)
            #expect(first.tracedLayers == 4)
            #expect(Self.keptFiles(folder).count == 1)
            let second = Self.process(folder)
            let read = second.lookup(scene, size: 256)
            #expect(second.tracedLayers == 0, "the second process traced the sphere again")
            #expect(read == traced, "the sphere read back differs from the one traced")
            #expect(read == ShadingLookup(ShadingSphere.render(scene, size: 256, antialiasedRim: false)))
            // A new folder is the user's only.
            let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
            #expect(mode == 0o700)
        }
    }

    @Test func onlyAProcesssFirstSphereGoesToDisk() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let cache = Self.process(dir)
            _ = cache.lookup(Self.scenes[0], size: 64)
            _ = cache.lookup(Self.scenes[1], size: 64)
            #expect(Self.keptFiles(dir).count == 1)
            let next = Self.process(dir)
            _ = next.lookup(Self.scenes[1], size: 64)
            #expect(next.tracedLayers == 4, "the second scene was kept too")
        }
    }

    /// A file cut short, another scene's file under this name, a wrong size or bytes
    /// past the end: each is traced again, as if there were none, and written whole.
    @Test(arguments: ["cut", "other key", "other size", "longer", "folder"])
    func aFileThatDoesNotReadBackWholeIsTracedAgain(_ damage: String) async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = Self.scenes[1]
            let expected = ShadingCache().lookup(scene, size: 64)
            _ = Self.process(dir).lookup(scene, size: 64)
            let name = try #require(Self.keptFiles(dir).first)
            let file = dir.appendingPathComponent(name)
            var bytes = try Data(contentsOf: file)
            switch damage {
            case "cut": bytes = bytes.prefix(bytes.count - 1)
            case "other key": bytes[8] ^= 1
            case "other size": bytes[40] ^= 1
            case "longer": bytes.append(0)
            default:
                try FileManager.default.removeItem(at: file)
                try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
            }
            if damage != "folder" { try bytes.write(to: file) }
            let again = Self.process(dir)
            #expect(again.lookup(scene, size: 64) == expected)
            #expect(again.tracedLayers == 4, "\(damage): the damaged file was taken")
            if damage != "folder" {
                let fixed = Self.process(dir)
                #expect(fixed.lookup(scene, size: 64) == expected)
                #expect(fixed.tracedLayers == 0, "\(damage): the file was not written anew")
            }
        }
    }

    @Test func aFolderThatCannotBeMadeOnlyMeansTracing() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let blocker = dir.appendingPathComponent("file")
            try Data("x".utf8).write(to: blocker)
            let cache = Self.process(blocker.appendingPathComponent("shading"))
            #expect(cache.lookup(Self.scenes[0], size: 64) == ShadingCache().lookup(Self.scenes[0], size: 64))
            #expect(cache.tracedLayers == 4)
        }
    }

    @Test func everyPropertyOfTheSceneAndTheSizeAreInTheKey() {
        let base = ShadingScene()
        var changed: [(String, ShadingScene)] = []
        func change(_ note: String, _ edit: (inout ShadingScene) -> Void) {
            var scene = base
            edit(&scene)
            changed.append((note, scene))
        }
        change("hue") { $0.lights[3].hue += 0.001 }
        change("brightness") { $0.lights[0].brightness = 0.9 }
        change("position") { $0.lights[1].position.z += 1e-9 }
        change("a fifth light") { $0.lights.append(Light.originalDefaults[0]) }
        change("shininess") { $0.material.shininess = 0.03 }
        change("diffuse") { $0.material.diffuse.g += 0.001 }
        change("specular") { $0.material.specular.b = 0.5 }
        change("ambient") { $0.material.ambient.r = 0.01 }
        change("reflection") { $0.material.reflection = Gradient(colors: [.white, .black]) }
        change("reflectivity") { $0.material.reflectivity = 0.5 }
        var keys = Set([ShadingDiskCache.key(base, size: 256)])
        #expect(ShadingDiskCache.key(ShadingScene(), size: 256) == ShadingDiskCache.key(base, size: 256))
        #expect(keys.insert(ShadingDiskCache.key(base, size: 128)).inserted, "size")
        for (note, scene) in changed {
            #expect(keys.insert(ShadingDiskCache.key(scene, size: 256)).inserted, "\(note) is not in the key")
        }
    }

    /// The key names the scene's stored properties one by one: a property added to one of
    /// these types, and not to the key, is caught here (then add it to `key` and to the
    /// changes above).
    @Test func theKeyNamesEveryStoredPropertyOfTheScene() {
        let stop = Gradient.Stop(color: .white, location: 0)
        let types: [(value: Any, properties: [String])] = [
            (ShadingScene(), ["lights", "material"]),
            (Light.originalDefaults[0], ["hue", "brightness", "position"]),
            (SphereMaterial(), ["shininess", "diffuse", "specular", "ambient", "reflection", "reflectivity"]),
            (RGBColor.white, ["r", "g", "b"]),
            (Gradient(stops: [stop]), ["stops"]),
            (stop, ["color", "location"]),
        ]
        for (value, properties) in types {
            let stored = Mirror(reflecting: value).children.compactMap(\.label)
            #expect(stored == properties, "\(type(of: value)) has \(stored); the shading key names \(properties)")
        }
    }

    @Test func theOldestFilesPastTheLimitGo() async throws {
        try await CLI.withTemporaryDirectory { dir in
            var names: [String] = []
            for n in 0..<(ShadingDiskCache.keptFiles + 3) {
                var scene = ShadingScene()
                scene.lights[0].hue = Double(n) / 100
                _ = Self.process(dir).lookup(scene, size: 8)
                names.append(CardSignature.hex(ShadingDiskCache.key(scene, size: 8)))
                // Files a second apart, so that their times order them on any file system.
                let file = dir.appendingPathComponent(names[n]).path
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000 + Double(n))],
                                                      ofItemAtPath: file)
            }
            #expect(Set(Self.keptFiles(dir)) == Set(names.suffix(ShadingDiskCache.keptFiles)))
        }
    }

    /// The liquid loft's curve, kept by one process, reads back to the bit in the next; a
    /// file cut short, or kept for another radius, is not read.
    @Test func aLiquidCurveReadBackIsTheCurveMade() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let disk = ShadingDiskCache(folder: dir.path)
            let made = LiquidCurve(radius: 7.25).floats
            let key = ShadingDiskCache.curveKey(radius: 7.25)
            #expect(disk.curve(key, count: LiquidCurve.floatCount) == nil)
            disk.keepCurve(made, key)
            let read = try #require(disk.curve(key, count: LiquidCurve.floatCount))
            #expect(read.map(\.bitPattern) == made.map(\.bitPattern))
            #expect(LiquidCurve(floats: read).floats.map(\.bitPattern) == made.map(\.bitPattern))
            #expect(disk.curve(ShadingDiskCache.curveKey(radius: 7.5), count: LiquidCurve.floatCount) == nil)
            let file = dir.appendingPathComponent(CardSignature.hex(key))
            let bytes = try Data(contentsOf: file)
            // A float the disk changed (here to a NaN) fails the file's SHA-256.
            var changed = bytes
            let at = 8 + 32 + 4 * 100
            changed.replaceSubrange(at..<(at + 4), with: [0x00, 0x00, 0xC0, 0x7F])
            try changed.write(to: file)
            #expect(disk.curve(key, count: LiquidCurve.floatCount) == nil, "a changed float was read")
            try bytes.dropLast(4).write(to: file)
            #expect(disk.curve(key, count: LiquidCurve.floatCount) == nil, "a file cut short was read")
            try bytes.write(to: file)
            #expect(disk.curve(key, count: LiquidCurve.floatCount) != nil)
        }
    }

    @Test func theEnvironmentNamesTheFolderOrTurnsItOff() {
        #expect(ShadingDiskCache.fromEnvironment { ["MERCURIAL_CACHE": "off", "HOME": "/h"][$0] } == nil)
        #expect(ShadingDiskCache.fromEnvironment { ["MERCURIAL_CACHE": "/c", "HOME": "/h"][$0] }?.folder == "/c")
        #expect(ShadingDiskCache.fromEnvironment { ["XDG_CACHE_HOME": "/x", "HOME": "/h"][$0] }?.folder == "/x/mercurial/shading")
        #expect(ShadingDiskCache.fromEnvironment { ["XDG_CACHE_HOME": "relative", "HOME": "/h"][$0] }?.folder == "/h/.cache/mercurial/shading")
        #expect(ShadingDiskCache.fromEnvironment { ["HOME": "/h"][$0] }?.folder == "/h/.cache/mercurial/shading")
        #expect(ShadingDiskCache.fromEnvironment { _ in nil } == nil)
    }
}

/// The fonts' SHA-256 kept on disk between processes: read back as written, and never
/// for a file that has changed, whatever it keeps of its old stamp.
@Suite struct FontHashDiskCacheTests {
    static func sha256(_ url: URL) throws -> [UInt8] { CardSignature.sha256(Array(try Data(contentsOf: url))) }

    @Test func aFontsHashIsKeptAndReadBack() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let font = dir.appendingPathComponent("f.ttf"), cache = ShadingDiskCache(folder: dir.appendingPathComponent("cache").path)
            try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }).write(to: font)
            let first = try SceneRecipe.fileSHA256(font.path, disk: cache)
            #expect(try first == Self.sha256(font))
            let files = ShadingDiskCacheTests.keptFiles(dir.appendingPathComponent("cache"))
            #expect(files.count == 1)
            // What is read back is the file's: a kept hash made wrong on purpose comes back as kept.
            let kept = dir.appendingPathComponent("cache/" + files[0])
            var bytes = Array(try Data(contentsOf: kept))
            bytes[bytes.count - 1] ^= 0xFF
            try Data(bytes).write(to: kept)
            #expect(try SceneRecipe.fileSHA256(font.path, disk: cache) == Array(bytes.suffix(32)), "the hash was not read from disk")
            // A kept file cut short is not used.
            try Data(bytes.prefix(50)).write(to: kept)
            #expect(try SceneRecipe.fileSHA256(font.path, disk: cache) == first)
        }
    }

    /// Rewritten in place with the same size and its modification time set back: the change
    /// time still moves, so the key does and the new bytes are hashed.
    @Test func aFontChangedInPlaceIsHashedAgain() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let font = dir.appendingPathComponent("f.ttf"), cache = ShadingDiskCache(folder: dir.appendingPathComponent("cache").path)
            try Data(repeating: 1, count: 4096).write(to: font)
            let before = try SceneRecipe.fileSHA256(font.path, disk: cache)
            var old = stat()
            #expect(stat(font.path, &old) == 0)
            try await Task.sleep(for: .milliseconds(20))
            let handle = try FileHandle(forWritingTo: font)
            try handle.write(contentsOf: Data(repeating: 2, count: 4096))
            try handle.close()
            var times = [old.st_atim, old.st_mtim]
            #expect(utimensat(AT_FDCWD, font.path, &times, 0) == 0)
            var new = stat()
            #expect(stat(font.path, &new) == 0 && new.st_ino == old.st_ino && new.st_size == old.st_size
                    && new.st_mtim.tv_sec == old.st_mtim.tv_sec && new.st_mtim.tv_nsec == old.st_mtim.tv_nsec)
            let after = try SceneRecipe.fileSHA256(font.path, disk: cache)
            #expect(try after != before && after == Self.sha256(font))
        }
    }
}
