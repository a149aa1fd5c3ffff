import Foundation
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

/// What a page may name: files inside the scene's folder, bundled materials and fonts, the keys of a sequence's steps that name no file.
extension EditorSession {
    /// What a page puts in a layer is held to what it may put at the top level: a bundled
    /// material, a font or file inside the scene's folder, no fallback fonts (they name files).
    /// A layer's value the file already had (read from disk, sent back with the list) stays.
    func checkLayers(_ layers: JSONValue?, had: JSONValue?) throws(MercurialError) {
        func fields(_ list: JSONValue?) -> [(index: Int, member: JSONMember)] {
            guard case .array(let items)? = list else { return [] }
            return items.enumerated().flatMap { index, item -> [(index: Int, member: JSONMember)] in
                guard case .object(let members) = item.value else { return [] }
                return members.map { (index, $0) }
            }
        }
        let kept = Set(fields(had).map { $0.member.key + "=" + $0.member.value.value.text() })
        for (index, member) in fields(layers) where !kept.contains(member.key + "=" + member.value.value.text()) {
            let key = "layers[\(index)].\(member.key)"
            if member.key == "fallbackFonts" { throw MercurialError("\(key) names font files, which the editor does not take; give the layer a \"font\"") }
            guard case .string(let text) = member.value.value else { continue }
            if member.key == "material" {
                guard materials.contains(text) else {
                    throw MercurialError("unknown material '\(text)' for \(key); bundled: \(materials.joined(separator: ", "))")
                }
            } else if let parameter = try? ParameterGroup.parameter(forKey: member.key), parameter.key == member.key {
                switch parameter.kind {
                case .path: _ = try inputFile(text, of: parameter, key: key)
                case .font: _ = try allowedFont(text)
                default: break
                }
            }
        }
    }

    /// What a page puts in a sequence's steps is held to what it may put at the top level: a
    /// step's scene is an inline object (a scene FILE is named in the file, not from the page),
    /// its keys name no file (no font, mask or shading image, no fallback fonts, no layers or
    /// nested sequence) and its material is a bundled one. A step's scene, or one of its inline
    /// scene's values, that the file already had (read from disk, sent back with the list when a
    /// step is moved or taken out) stays.
    func checkSteps(_ steps: JSONValue?, had: JSONValue?) throws(MercurialError) {
        func scenes(_ list: JSONValue?) -> [(index: Int, scene: JSONValue)] {
            guard case .array(let items)? = list else { return [] }
            return items.enumerated().compactMap { index, item in
                guard case .object(let members) = item.value,
                      let scene = members.first(where: { $0.key == "scene" }) else { return nil }
                return (index, scene.value.value)
            }
        }
        func fields(_ scene: JSONValue) -> [JSONMember] {
            if case .object(let members) = scene { return members } else { return [] }
        }
        let before = scenes(had)
        let keptFiles = Set(before.compactMap { if case .string(let file) = $0.scene { file } else { nil } })
        let kept = Set(before.flatMap { fields($0.scene) }.map { $0.key + "=" + $0.value.value.text() })
        let namesFiles: Set<String> = ["fallbackFonts", "layers", "sequence", "generator", "fontSHA256", "image"]
        for (index, scene) in scenes(steps) {
            switch scene {
            case .string(let file):
                guard keptFiles.contains(file) else {
                    throw MercurialError("sequence[\(index)].scene names a scene file, which the editor does not take; give the step an inline scene ({\"text\": …}) or name the file in the scene file")
                }
            case .object(let members):
                for member in members where !kept.contains(member.key + "=" + member.value.value.text()) {
                    let key = "sequence[\(index)].scene.\(member.key)"
                    if member.key == "material" {
                        guard case .string(let name) = member.value.value, materials.contains(name) else {
                            throw MercurialError("\(key) must be a bundled material (\(materials.joined(separator: ", "))); a material file is named in the scene file")
                        }
                    } else if namesFiles.contains(member.key) {
                        throw MercurialError("\(key) is not set from the page; edit it in the scene file")
                    } else if let parameter = try? ParameterGroup.parameter(forKey: member.key), parameter.key == member.key,
                              parameter.kind == .path || parameter.kind == .font {
                        throw MercurialError("\(key) names a file, which the editor does not take for a step; set it in the scene file")
                    }
                }
            default: break   // the scene file's reader words the error
            }
        }
    }

    /// Refuses a `path` a page may not set: of a sequence's step, all but its hold, its
    /// transition, its inline scene's material or a parameter of it that names no file (a page
    /// never names a file to read: see `insideFolder`; a step's scene file, font or mask would
    /// be read as named). The whole list is checked by `checkSteps`.
    static func checkStepKey(_ key: String, _ path: [SchemaPathStep]) throws(MercurialError) {
        guard case .key("sequence")? = path.first else { return }
        var settable = path.count == 1   // the whole list: its steps are checked by `checkSteps`
        if path.count >= 3, case .index = path[1], case .key(let field) = path[2] {
            switch field {
            case "hold": settable = path.count == 3
            case "transition": settable = true
            case "scene":
                if path.count == 4, case .key(let name) = path[3] {
                    if name == "material" { settable = true }   // a bundled one: see `checkSteps`
                    else if let parameter = try? ParameterGroup.parameter(forKey: name), parameter.key == name {
                        settable = parameter.kind != .path && parameter.kind != .font
                    }
                }
            default: break
            }
        }
        guard settable else {
            throw MercurialError("'\(key)' is not set from the page: the editor sets the steps, a step's \"hold\", its \"transition\" and the keys of its inline \"scene\" that name no file (sequence[0].scene.text); edit the rest in the scene file")
        }
    }

    /// The image files `next` names (the title's and its layers') that `before` did not, each
    /// held to the rules of a file a page names (`insideFolder`, a regular file): an image the
    /// scene file already named stays, one a page names must be in the scene's folder.
    func checkImages(_ next: RenderSettings, had before: RenderSettings) throws(MercurialError) {
        func images(_ s: RenderSettings) -> [(key: String, file: String)] {
            ([("image", s.image)] + s.layers.enumerated().map { ("layers[\($0).image", $1.settings.image) })
                .compactMap { key, image in image.map { (key, $0.file) } }
        }
        let kept = Set(images(before).map(\.file))
        for (key, file) in images(next) where !kept.contains(file) {
            let path = try insideFolder(file, key: key)
            try InputFile.refuseIfNotRegular(path, role: "image")
        }
    }

    /// A file a page names: relative to the scene's folder, and inside it once links are followed.
    func insideFolder(_ text: String, key: String) throws(MercurialError) -> String {
        let user = try UserPath(text, role: key)
        let path = user.isAbsolute ? user.string : folder + "/" + user.string
        guard let real = Self.realPath(path), let base = Self.realPath(folder),
              real.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
            throw MercurialError("\(key) = '\(text)' is not a file in the scene's folder '\(folder)'; the editor reads only files there")
        }
        return real
    }

    /// The file a page names for `parameter` (a mask, a shading image), as `key` (`layers[0].mask`):
    /// inside the scene's folder (`insideFolder`), and checked now as the command line checks it,
    /// so that the change is refused, not the render after it: a FIFO, device or folder at once
    /// (by its `stat`, never opened: a FIFO mask held the change 11 s), a shading image that is not a PNG.
    func inputFile(_ text: String, of parameter: Parameter, key: String) throws(MercurialError) -> String {
        let path = try insideFolder(text, key: key)
        if parameter.key == "shadingImage" {
            _ = try ShadingLookup.read(path)
        } else {
            try InputFile.refuseIfNotRegular(path, role: parameter.key)
        }
        return path
    }

    /// A bundled font, an installed family (with an optional `:style`), or a font file in the scene's folder.
    func allowedFont(_ text: String) throws(MercurialError) -> String {
        let name = text.trimmingCharacters(in: .whitespaces)
        if bundledFonts.contains(name.lowercased()) { return name }
        if UserPath.looksLikePath(name) { return try insideFolder(name, key: "font") }
        let family = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        guard !name.contains("="), installedFamilies.contains(where: { $0.lowercased() == family.lowercased() }) else {
            throw MercurialError("unknown font '\(name)': not bundled (\(bundledFonts.joined(separator: ", "))) and no installed font has that family; see 'mercurial fonts' or 'fc-list'")
        }
        return name
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
