import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Writes `json` to a scene file in a fresh folder and loads it.
func loadScene(_ json: String, material: String? = nil) throws(MercurialError) -> RenderSettings {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scene-\(UUID().uuidString)").path
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/scene.json"
    FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
    var settings = RenderSettings()
    try SceneFile.load(path, into: &settings, materialOverride: material)
    return settings
}

func sceneError(_ json: String) -> String {
    do {
        _ = try loadScene(json)
        return "no error"
    } catch {
        return error.message
    }
}

@Suite struct SceneFileTests {
    @Test func everyKeyIsRead() throws {
        let s = try loadScene("""
        {"text": "Hi", "font": "serif", "size": 90, "width": 640, "height": 200, "align": "left",
         "lineSpacing": 1.5, "letterSpacing": 3, "kerning": false, "radius": 7, "scale": 12,
         "background": "#102030", "shininess": 0.1, "reflectivity": 0.5, "diffuse": "gold",
         "specular": "#ff0000", "ambient": "black",
         "reflection": {"colors": ["white", "black"], "locations": [0.2, 0.8]},
         "lights": [{"hue": 0.5}, {"x": -10, "y": 5, "z": 40, "brightness": 0.25}],
         "profile": "chisel", "maxLines": 3, "light3.hue": 0.125, "mask": null}
        """)
        #expect(s.profile == .chisel && s.maxLines == 3 && s.scene.lights[2].hue == 0.125 && s.mask == nil)
        #expect(s.text == "Hi" && s.font == "serif" && s.size == 90 && s.width == 640 && s.height == 200)
        #expect(s.alignment == .left && s.lineSpacing == 1.5 && s.letterSpacing == 3 && !s.kerning)
        #expect(s.radius == 7 && s.scale == 12 && s.background == RGBColor.parse("#102030"))
        #expect(s.scene.material.shininess == 0.1 && s.scene.material.reflectivity == 0.5)
        #expect(s.scene.material.reflection?.stops.map(\.location) == [0.2, 0.8])
        #expect(s.scene.lights[0].hue == 0.5 && s.scene.lights[0].position == [0, 25, 0])
        #expect(s.scene.lights[1].position == [-10, 5, 40] && s.scene.lights[1].brightness == 0.25)
        #expect(s.scene.lights[3] == Light.originalDefaults[3], "untouched lights keep the material's values")
    }

    @Test func nullAndTheUnsetWordClearAValue() throws {
        let s = try loadScene(#"{"background": "red", "width": 300}"#)
        #expect(s.background == RGBColor.parse("red") && s.width == 300)
        #expect(try loadScene(#"{"background": "transparent", "width": null}"#) == RenderSettings())
    }

    @Test func emptySceneIsTheMercurialMaterial() throws {
        #expect(try loadScene("{}") == RenderSettings())
    }

    @Test func sceneKeysOverrideItsMaterial() throws {
        let s = try loadScene(#"{"material": "mercurial", "shininess": 0.2}"#)
        #expect(s.scene.material.shininess == 0.2)
    }

    @Test(arguments: [
        (#"{"radius": 3,}"#, "scene.json:1:13: trailing comma"),
        ("{\n  \"radius\": \"big\"\n}", "scene.json:2:13: \"radius\" must be a number"),
        (#"{"radiu": 3}"#, "scene.json:1:2: unknown key \"radiu\"; did you mean \"radius\"?"),
        (#"{"radius": 500}"#, "radius is 500, out of range 0.5…200"),
        (#"{"lights": [{}, {}, {}, {}, {}]}"#, "\"lights\" has 5 entries, but there are 4 lights"),
        (#"{"lights": [{"hue": 2}]}"#, "light1.hue is 2, out of range 0…1"),
        (#"{"lights": [{"hew": 0.5}]}"#, "did you mean \"hue\""),
        (#"{"lights": [3]}"#, "light 1 must be an object"),
        ("[1, 2]", "must be a JSON object"),
        (#"{"radius": NaN}"#, "NaN is not valid JSON"),
        (#"{"size": 0}"#, "scene.json:1:10: size is 0, out of range 1…8192"),
        (#"{"width": 12.5}"#, "\"width\" is 12.5; give a whole number"),
        (#"{"align": "middle"}"#, "\"align\" is \"middle\", which is not known; use left, center or right"),
        (#"{"profile": 2}"#, "\"profile\" must be one of liquid, chisel or round, not a number"),
        (#"{"maxLines": 0}"#, "\"maxLines\" is 0, out of range 1…100"),
        (#"{"width": 1e300}"#, "\"width\" is 1e+300, out of range 1…16384"),
        (#"{"background": "blurple"}"#, "not a colour"),
        (#"{"material": "unobtainium"}"#, "unknown material 'unobtainium'"),
        (#"{"reflection": {"colors": ["red"], "locations": [0, 1]}}"#, "1 colors but 2 locations"),
        (#"{"radius": 1, "radius": 2}"#, "duplicate key \"radius\""),
        ("", "the file is empty"),
    ])
    func badScenesAreReportedWithTheirPlace(_ json: String, _ fragment: String) {
        let message = sceneError(json)
        #expect(message.contains(fragment), "\(message)")
        if fragment.hasPrefix("scene.json:") == false && message != "no error" {
            #expect(message.contains("scene.json"), "the file is named: \(message)")
        }
    }

    @Test func missingSceneFileIsNamed() {
        var settings = RenderSettings()
        #expect(throws: MercurialError("scene file '/nonexistent/scene.json' does not exist; check the path")) {
            try SceneFile.load("/nonexistent/scene.json", into: &settings)
        }
    }

    @Test func bundledMaterialsAllLoadAndDiffer() throws {
        let presets = try Materials.bundled()
        #expect(presets.contains { $0.name == "mercurial" })
        var seen: [RenderSettings] = []
        for preset in presets {
            var settings = RenderSettings()
            try Materials.apply(preset.name, to: &settings)
            #expect(!preset.description.isEmpty, "\(preset.name) has a description")
            #expect(!seen.contains { $0.scene == settings.scene }, "\(preset.name) differs from the others")
            seen.append(settings)
        }
    }

    /// A material file is parsed once and again only when it changes (its size, time or
    /// inode): the editor reads its scene on every edit, and each read listed the bundled
    /// folder and parsed every material file. The file is rewritten in place with its
    /// size and time put back, which only a kept parse does not see; then touched, which it must.
    @Test func aMaterialFileIsParsedAgainOnlyWhenItChanges() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("material-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/mine.json"
        func write(_ shininess: String) { FileManager.default.createFile(atPath: path, contents: Data(#"{"shininess": \#(shininess)}"#.utf8)) }
        func shininess() throws -> Double {
            var settings = RenderSettings()
            try Materials.apply(path, to: &settings)
            return settings.scene.material.shininess
        }
        write("0.125")
        #expect(try shininess() == 0.125)
        var info = stat()
        #expect(stat(path, &info) == 0)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.write(Data(#"{"shininess": 0.250}"#.utf8))
        try handle.close()
        var times = [info.st_atim, info.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(try shininess() == 0.125, "parsed again though the file's stamp is the same")
        times[1].tv_sec += 2
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(try shininess() == 0.25, "a changed material file is read again")
    }
}
