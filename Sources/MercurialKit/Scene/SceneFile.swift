import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Scene files and materials: JSON objects whose keys set `RenderSettings`.
///
/// Every key may be left out. Errors carry `file:line:column` and the key.
public enum SceneFile {
    public enum Kind: Sendable { case scene, material }

    /// Keys of a scene file: every parameter's key and the structural keys `SceneSchema.structure`
    /// declares (where each may be given, and what reading it does); a material takes
    /// those `SceneSchema.keys(in: .material)` gives.
    public static var keys: [String] { SceneSchema.keys(in: .scene) }

    /// The keys of one object in `lights`: the light parameters' keys without `lightN.`.
    public static let lightKeys = ParameterGroup.allParameters
        .filter { $0.key.hasPrefix("light1.") }.map { String($0.key.dropFirst("light1.".count)) }

    /// Reads a scene file: the material it names (or `material`, when the command
    /// line gives one), then its own keys on top. Returns its animation, if it has one.
    /// `layerMaterials`: the command line's material for a layer, by index, instead of the layer's.
    /// `animation`: the command line's rate, length and start timecode, set in the scene's
    /// "animation" (made when it has none) before it is read, as if the file gave them.
    @discardableResult
    public static func load(_ path: String, into settings: inout RenderSettings, materialOverride: String? = nil,
                            layerMaterials: [Int: String] = [:], animation: AnimationOverride? = nil) throws(MercurialError) -> Timeline? {
        var root = try parse(path, role: "scene file")
        if let animation, case .object(let members) = root.value { root.value = .object(animation.applied(to: members)) }
        return try load(root: root, path: path, into: &settings, materialOverride: materialOverride, layerMaterials: layerMaterials)
    }

    /// An animation's rate, length and start timecode given on the command line (`animate --fps
    /// 29.97 --duration 00:00:05:00 --timecode 01:00:00;00`), each as the scene file writes it.
    public struct AnimationOverride: Sendable {
        public var fps: Double?
        /// Seconds, frames or timecode (`TimeValue`), read at the animation's rate.
        public var duration: String?
        public var timecode: String?

        public init(fps: Double? = nil, duration: String? = nil, timecode: String? = nil) {
            (self.fps, self.duration, self.timecode) = (fps, duration, timecode)
        }

        public var isEmpty: Bool { fps == nil && duration == nil && timecode == nil }

        /// A scene's members with these keys set in its "animation" (one made when it has none and a duration is given).
        func applied(to members: [JSONMember]) -> [JSONMember] {
            let given: [(String, JSONValue?)] = [("duration", duration.map { .string($0) }), ("fps", fps.map { .number($0) }),
                                                 ("timecode", timecode.map { .string($0) })]
            var members = members
            let index = members.firstIndex { $0.key == "animation" }
            guard index != nil || duration != nil else { return members }
            var block: [JSONMember] = []
            if let index, case .object(let existing) = members[index].value.value { block = existing }
            for case let (key, value?) in given {
                let member = JSONMember(key: key, keyLocation: .none, value: JSONNode(value: value, location: .none))
                if let at = block.firstIndex(where: { $0.key == key }) { block[at] = member } else { block.append(member) }
            }
            let animation = JSONMember(key: "animation", keyLocation: index.map { members[$0].keyLocation } ?? .none,
                                       value: JSONNode(value: .object(block), location: index.map { members[$0].value.location } ?? .none))
            if let index { members[index] = animation } else { members.append(animation) }
            return members
        }
    }

    /// Reads a scene given as JSON text; `name` stands for its file in messages and
    /// relative paths.
    @discardableResult
    public static func load(json bytes: [UInt8], name: String, into settings: inout RenderSettings,
                            materialOverride: String? = nil, layerMaterials: [Int: String] = [:]) throws(MercurialError) -> Timeline? {
        let root: JSONNode
        do {
            root = try JSONDocument.parse(bytes)
        } catch {
            throw MercurialError("\(name):\(error.location): \(error.reason)")
        }
        return try load(root: root, path: name, into: &settings, materialOverride: materialOverride,
                        layerMaterials: layerMaterials)
    }

    /// Reads a scene held in memory as its members (the editor's document): no text is
    /// written or parsed. A member's errors give its place in the file it was read from;
    /// one set since (its location `.none`) names the file alone.
    @discardableResult
    public static func load(members: [JSONMember], name: String, into settings: inout RenderSettings) throws(MercurialError) -> Timeline? {
        do {
            return try load(root: JSONNode(value: .object(members), location: .none), path: name, into: &settings,
                            materialOverride: nil)
        } catch {
            throw error.withoutPlace(in: name)
        }
    }

    static func load(root: JSONNode, path: String, into settings: inout RenderSettings,
                     materialOverride: String?, layerMaterials: [Int: String] = [:]) throws(MercurialError) -> Timeline? {
        guard case .object(let members) = root.value else {
            throw MercurialError("\(path):\(root.location): a scene file must be a JSON object {…}, not \(root.value.typeName)")
        }
        if let sequence = members.first(where: { $0.key == "sequence" }) {
            throw MercurialError("\(path):\(sequence.keyLocation): this scene is a \"sequence\" of titles, which only 'mercurial animate' and 'mercurial watch' render; render one of its titles' scenes instead")
        }
        let material = try applyMaterial(of: members, override: materialOverride, from: path, to: &settings)
        // The keys the scene's own "material" sets, which `unusedKeys` weighs (none when the command line's replaces it).
        let presetKeys = materialOverride == nil ? material ?? [] : []
        let preset = settings
        try apply(members, from: path, kind: .scene, to: &settings)
        let animation = members.first(where: { $0.key == "animation" })
        if let layers = members.first(where: { $0.key == SceneSchema.layersKey.key }) {
            // A layer's in and out count frames at the animation's rate, and fit in its duration.
            var reader = SceneAnimation.Reader(file: path)
            if let animation {
                var timing = SceneSchema.animation.defaultValue
                try SceneSchema.animation.read(animation.value, "animation", onto: &timing, reader)
                (reader.duration, reader.fps) = (timing.duration, timing.fps)
            }
            let read = try readLayers(layers, from: path, scene: members, preset: preset, over: settings,
                                      materials: layerMaterials, reader: reader)
            settings.layers = read.layers
            // A title's recipe writes every key at the top and in each layer, on purpose.
            if !members.contains(where: { $0.key == "generator" }) {
                settings.unusedKeys = unusedKeys(of: members, presetKeys: presetKeys, layers: read.keys, file: path)
            }
        }
        let dynamics = members.first(where: { $0.key == "dynamics" })
        let inOut = members.filter { $0.key == "in" || $0.key == "out" }
        guard let animation else {
            if let needy = dynamics ?? inOut.first {
                throw MercurialError("\(path):\(needy.keyLocation): \"\(needy.key)\" needs an \"animation\" with a \"duration\", e.g. \"animation\": {\"duration\": 3}")
            }
            return nil
        }
        var timeline = try SceneAnimation.Reader(file: path).timeline(animation.value, settings: settings)
        if let dynamics { timeline.dynamics = try Dynamics.read(dynamics.value, file: path, duration: timeline.duration) }
        if !inOut.isEmpty {
            var reader = SceneAnimation.Reader(file: path)
            reader.duration = timeline.duration
            reader.fps = timeline.fps
            var presets: [String: [Entrance]] = [:]
            for member in inOut { presets[member.key] = try SceneSchema.moves.read(member.value, member.key, reader) }
            do {
                timeline.inOut = try InOut(entrances: presets["in"] ?? [], exits: presets["out"] ?? [],
                                           duration: timeline.duration, lastFrame: timeline.lastFrameTime)
            } catch {
                throw error.within("\(path):\(inOut[inOut.count - 1].keyLocation)")
            }
        }
        try timeline.setLayerMoves(of: &settings, file: path)
        return timeline
    }

    /// Parses a JSON file into a node, with `file:line:column` on syntax errors. With
    /// `quoting` false the error quotes nothing of the file: a material path can come
    /// from a scene or a title's recipe that someone else wrote, naming a file that is
    /// no material at all (a key, a password file), whose words must not reach the screen.
    static func parse(_ path: String, role: String, quoting: Bool = true) throws(MercurialError) -> JSONNode {
        let bytes = try PNGFile.readFile(path, role: role, limit: 16 * 1024 * 1024)
        do {
            return try JSONDocument.parse(bytes)
        } catch {
            guard quoting else {
                throw MercurialError("\(path):\(error.location): this \(role) is not valid JSON; a \(role) file is a JSON object such as {\"shininess\": 0.1}")
            }
            throw MercurialError("\(path):\(error.location): \(error.reason)")
        }
    }

    /// Applies the members of a scene or material object, in order.
    /// `layerKeys`: a layer's own keys, which its other keys' errors suggest too.
    static func apply(_ members: [JSONMember], from file: String, kind: Kind,
                      to settings: inout RenderSettings, layerKeys: [String] = []) throws(MercurialError) {
        let known = SceneSchema.keys(in: kind == .material ? .material : .scene)
        let structure = SceneSchema.structure
        for member in members {
            let key = member.key
            guard known.contains(key) else {
                let allowed = layerKeys + known
                let hint = closestMatch(to: key, in: allowed).map { "; did you mean \"\($0)\"?" } ?? "; known keys: \(allowed.joined(separator: ", "))"
                throw MercurialError("\(file):\(member.keyLocation): unknown key \"\(key)\"\(hint)")
            }
            if let structural = structure.first(where: { $0.key == key }) {
                // A block, the lights or the fallback fonts is read as declared; the rest set no setting here.
                try structural.read?(&settings, member, file)
            } else {
                // A parameter: the field the scene's schema declares for the key.
                try SceneSchema.settings.field(key)?.read(&settings, member.value, key, SceneAnimation.Reader(file: file))
            }
        }
    }

    /// `layers`: each layer's settings are, from the first to the last said: the defaults, the scene's
    /// preset (`preset`: the settings as the scene's material left them), the layer's preset, the
    /// scene's own keys (`scene`), the layer's own keys (those of a scene plus `name`, `below` and `gap`).
    /// Returns the layers and the keys each gives (for `unusedKeys`).
    /// `materials`: a layer's material given instead of its own (by the command line).
    static func readLayers(_ member: JSONMember, from file: String, scene: [JSONMember], preset: RenderSettings,
                           over top: RenderSettings, materials: [Int: String] = [:],
                           reader: SceneAnimation.Reader? = nil) throws(MercurialError)
        -> (layers: [TitleLayer], keys: [LayerKeys]) {
        guard case .array(let items) = member.value.value else {
            throw typeError(file, member, expected: "an array of layer objects {\"text\": …}")
        }
        guard !items.isEmpty, items.count <= TitleLayer.maximum else {
            throw MercurialError("\(file):\(member.value.location): \"layers\" has \(items.count) layers; give 1 to \(TitleLayer.maximum)")
        }
        let reader = reader ?? SceneAnimation.Reader(file: file)
        var layers: [TitleLayer] = []
        var given: [LayerKeys] = []
        for (index, item) in items.enumerated() {
            let name = "layers[\(index)]"
            guard case .object(let fields) = item.value else {
                throw MercurialError("\(file):\(item.location): \"\(name)\" must be an object {\"text\": …}, not \(item.value.typeName)")
            }
            var base = preset
            base.layers = []
            var layer = TitleLayer(settings: base)
            let preset = try applyMaterial(of: fields, override: materials[index], from: file, to: &layer.settings)
            var keys = LayerKeys(own: slots(of: fields.filter { $0.key != SceneSchema.materialKey.key }), preset: preset)
            try apply(scene, from: file, kind: .scene, to: &layer.settings)
            var rest: [JSONMember] = []
            for field in fields {
                if let own = SceneSchema.layer.field(field.key) {
                    if ["in", "out"].contains(field.key), reader.duration == nil {
                        throw MercurialError("\(file):\(field.keyLocation): \"\(name).\(field.key)\" needs an \"animation\" with a \"duration\", e.g. \"animation\": {\"duration\": 3}")
                    }
                    try own.read(&layer, field.value, "\(name).\(field.key)", reader)
                } else if let sceneKey = SceneSchema.refused(field.key, in: .layer) {
                    throw MercurialError("\(file):\(field.keyLocation): \"\(field.key)\" belongs to the scene, not to one of its layers\(sceneKey.layerNote); move it to the top level")
                } else if field.key != SceneSchema.materialKey.key {
                    rest.append(field)
                }
            }
            try apply(rest, from: file, kind: .scene, to: &layer.settings, layerKeys: SceneSchema.layer.keys)
            if fields.contains(where: { $0.key == "image" }) && layer.settings.image != nil {
                // A layer's own image is the layer: the scene's text is not its (its own text with it is refused).
                if let text = fields.first(where: { $0.key == "text" }) {
                    throw MercurialError("\(file):\(text.keyLocation): \"\(name)\" has both a \"text\" and an \"image\"; a layer is one or the other: give the text a layer of its own")
                }
                (layer.settings.text, layer.settings.shape.runs) = (nil, [])
            }
            if let above = layer.below {
                // A stack is placed by its top layer: a stacked layer's own placement would be dropped.
                // (A recipe writes every layer's keys, which for a stacked one are the scene's.)
                let own: [String: Bool] = ["anchor": layer.settings.anchor != top.anchor, "margin": layer.settings.margin != top.margin,
                                           "offset": layer.settings.offset != top.offset, "padding": layer.settings.padding != top.padding]
                if let field = fields.first(where: { own[$0.key] == true }) {
                    throw MercurialError("\(file):\(field.keyLocation): layer \(index + 1) is \"below\" \"\(above)\", so it moves with that stack, which its top layer's anchor, margin, offset and padding place; its own \"\(field.key)\" would not be used: give it to the stack's top layer, or leave out \"below\" to place this layer on its own")
                }
            }
            keys.stackTop = layer.below == nil
            (layer.ownKeys, layer.presetKeys) = (keys.own, keys.preset)
            layers.append(layer)
            given.append(keys)
        }
        do throws(MercurialError) { _ = try LayeredTitle.stacking(layers) } catch {
            throw error.within("\(file):\(member.value.location)")
        }
        return (layers, given)
    }

    /// The keys a layer gives: its own, and those its preset sets (nil: it names none).
    struct LayerKeys {
        var own: Set<String>
        var preset: Set<String>?
        var stackTop = true
    }

    /// The settings a list of members sets, one name each: `lights` stands for `light1.hue` … of each
    /// light it gives, a description for nothing.
    static func slots(of members: [JSONMember]) -> Set<String> {
        var slots: Set<String> = []
        for member in members where member.key != "description" {
            guard member.key == "lights", case .array(let lights) = member.value.value else { slots.insert(member.key); continue }
            for (index, light) in lights.enumerated() {
                guard case .object(let fields) = light.value else { continue }
                for field in fields { slots.insert("light\(index + 1).\(field.key)") }
            }
        }
        return slots
    }

    /// The scene's keys that no layer takes, each with a warning that names it: a key every layer
    /// gives itself (the canvas and backdrop only of the first layer, the placement only of a
    /// stack's top layer, which the others move with), the scene's `material` when each layer's
    /// own preset and keys set all it sets. The rest apply, over the layers' presets.
    static func unusedKeys(of scene: [JSONMember], presetKeys: Set<String>, layers: [LayerKeys],
                           file: String) -> [UnusedKey] {
        let sceneSlots = slots(of: scene)
        let notSettings = Set(SceneSchema.structure.filter(\.setsNoSetting).map(\.key))
        var unused: [UnusedKey] = []
        for member in scene where !notSettings.contains(member.key) {
            let key = member.key
            let (relevant, whose) = reach(of: key, layers.map { $0.stackTop })
            let taken = relevant.contains { index in
                let layer = layers[index]
                guard key == SceneSchema.materialKey.key else { return !slots(of: [member]).isSubset(of: layer.own) }
                guard let preset = layer.preset else { return true }
                return !presetKeys.isSubset(of: preset.union(layer.own).union(sceneSlots))
            }
            guard !taken else { continue }
            unused.append(UnusedKey(key: key, message: "\(file):\(member.keyLocation): the scene's \"\(key)\" applies to no layer: \(whose); remove it from the scene or from the layers"))
        }
        return unused
    }

    /// The layers (of those whose stack tops are `stackTops`) a key of the scene can reach, and
    /// what decides it: the canvas and backdrop are the first layer's, a stack is placed by its top layer.
    static func reach(of key: String, _ stackTops: [Bool]) -> (layers: [Int], whose: String) {
        switch key {
        case "width", "height", "background", "backgroundGradient":
            (Array(stackTops.indices.prefix(1)), "the first layer gives its own \"\(key)\" (the canvas and its backdrop are the first layer's)")
        case "anchor", "margin", "offset", "padding":
            (stackTops.indices.filter { stackTops[$0] }, "each stack's top layer gives its own \"\(key)\" (a stack is placed by its top layer)")
        case SceneSchema.materialKey.key:
            (Array(stackTops.indices), "each layer's own \"material\" and keys set all that it sets")
        default:
            (Array(stackTops.indices), "every layer gives its own \"\(key)\"")
        }
    }

    /// Applies the preset a title's keys are read over, the one reader of `material` (a scene's, a
    /// layer's, and that of the scene around a sequence): `override` (the command line's) when given,
    /// else the material `members`' "material" names, a bundled name or a path relative to `file`.
    /// Returns the keys the preset sets; nil when there is none.
    static func applyMaterial(of members: [JSONMember], override: String?, from file: String,
                              to settings: inout RenderSettings) throws(MercurialError) -> Set<String>? {
        if let override { return try Materials.apply(override, to: &settings) }
        guard let member = members.first(where: { $0.key == SceneSchema.materialKey.key }) else { return nil }
        guard case .string(let name) = member.value.value else {
            throw typeError(file, member, expected: "a material name or path")
        }
        return try Materials.apply(resolvePath(name, relativeTo: file, at: member.value.location, key: member.key,
                                               onlyIfPathLike: true), to: &settings, location: "\(file):\(member.value.location)")
    }

    /// A recipe's `fallbackFonts`.
    static let fallbackFonts = SchemaValue<[FallbackFont]>.list(SceneSchema.fallbackFont, maximum: FontFallback.cacheLimit, noun: "font", plural: "fonts")

    static func applyLights(_ member: JSONMember, _ file: String,
                                    to settings: inout RenderSettings) throws(MercurialError) {
        guard case .array(let lights) = member.value.value else {
            throw typeError(file, member, expected: "an array of up to \(ParameterGroup.lightCount) light objects")
        }
        guard lights.count <= ParameterGroup.lightCount else {
            throw MercurialError("\(file):\(member.value.location): \"lights\" has \(lights.count) entries, but there are \(ParameterGroup.lightCount) lights; remove \(lights.count - ParameterGroup.lightCount)")
        }
        for (index, light) in lights.enumerated() {
            guard case .object(let fields) = light.value else {
                throw MercurialError("\(file):\(light.location): light \(index + 1) must be an object {\"hue\", \"brightness\", \"x\", \"y\", \"z\"}, not \(light.value.typeName)")
            }
            for field in fields {
                guard lightKeys.contains(field.key) else {
                    let hint = closestMatch(to: field.key, in: lightKeys).map { "; did you mean \"\($0)\"?" } ?? "; a light has hue, brightness, x, y, z"
                    throw MercurialError("\(file):\(field.keyLocation): unknown key \"\(field.key)\" in light \(index + 1)\(hint)")
                }
                let key = "light\(index + 1).\(field.key)"
                try SceneSchema.settings.field(key)?.read(&settings, field.value, key, SceneAnimation.Reader(file: file))
            }
        }
    }

    /// Reads `node` as the value of `parameter` and sets it (a parameter field's reader); `null`
    /// unsets a parameter that may be unset, and paths are relative to the scene file.
    static func setParameter(_ parameter: Parameter, _ node: JSONNode, _ file: String,
                             _ settings: inout RenderSettings) throws(MercurialError) {
        let key = parameter.key
        let at = "\(file):\(node.location)"
        func mismatch() -> MercurialError {
            MercurialError("\(at): \"\(key)\" must be \(parameter.kind.expectation)\(parameter.unset == nil ? "" : " or null"), not \(node.value.typeName)")
        }
        let value: ParameterValue
        switch (parameter.kind, node.value) {
        case (_, .null) where parameter.unset != nil:
            value = .unset
        case (.number, .number(let v)):
            value = .number(v)
        case (.integer(let range), .number(let v)):
            guard v >= Double(range.lowerBound) && v <= Double(range.upperBound) else {
                throw MercurialError("\(at): \"\(key)\" is \(formatNumber(v)), out of range \(parameter.rangeDescription); give a whole number in that range")
            }
            guard v == v.rounded() else {
                throw MercurialError("\(at): \"\(key)\" is \(v); give a whole number")
            }
            value = .integer(Int(v))
        case (.bool, .bool(let on)):
            value = .bool(on)
        case (.choice, .string(let s)), (.color, .string(let s)):
            do {
                value = try parameter.parse(s, culprit: "\"\(key)\" is \"\(s)\", which")
            } catch {
                throw error.within(at)
            }
        case (.text, .string), (.font, .string), (.path, .string):
            let s = try string(node, file, key)
            switch parameter.kind {
            case .font: value = .text(try resolvePath(s, relativeTo: file, at: node.location, key: key, onlyIfPathLike: true))
            case .path: value = .text(try resolvePath(s, relativeTo: file, at: node.location, key: key, onlyIfPathLike: false))
            default: value = .text(s)
            }
        default:
            throw mismatch()
        }
        do {
            try settings.set(parameter, to: value)
        } catch {
            throw error.within(at)
        }
    }

    // MARK: - Typed values

    /// The longest string a scene may give (the text, a path, a name), in characters.
    public static let maximumStringLength = RenderSettings.maximumTextLength

    private static func string(_ node: JSONNode, _ file: String, _ key: String) throws(MercurialError) -> String {
        guard case .string(let s) = node.value else {
            throw MercurialError("\(file):\(node.location): \"\(key)\" must be a string, not \(node.value.typeName)")
        }
        if let problem = RenderSettings.lengthProblem(of: s) {
            throw MercurialError("\(file):\(node.location): \"\(key)\" is \(problem); shorten it")
        }
        return s
    }

    private static func typeError(_ file: String, _ member: JSONMember, expected: String) -> MercurialError {
        MercurialError("\(file):\(member.value.location): \"\(member.key)\" must be \(expected), not \(member.value.value.typeName)")
    }

    /// A path written in a scene file is relative to the scene file's folder.
    /// With `onlyIfPathLike`, a bare name (a bundled font or material) is kept as it is.
    static func resolvePath(_ value: String, relativeTo file: String, at location: SourcePosition, key: String,
                            onlyIfPathLike: Bool) throws(MercurialError) -> String {
        let path: UserPath
        do {
            path = try UserPath(value, role: "\"\(key)\"")
        } catch {
            throw error.within("\(file):\(location)")
        }
        if onlyIfPathLike && !UserPath.looksLikePath(value) { return value }
        return path.relative(to: file).string
    }
}

/// The bundled material presets in `materials/*.json`.
public enum Materials {
    public struct Preset: Sendable {
        public var name: String
        public var path: String
        public var description: String
    }

    /// The bundled folder's files as last listed (listed again when the folder changes:
    /// a file added, removed or renamed), and each material file as last parsed (parsed
    /// again when it changes): every scene read names a material, and the editor reads
    /// its scene on every edit, which listed the folder and parsed all nine files each time.
    private struct Cache {
        var folder = ""
        var stamp: FileStamp?
        var files: [String] = []
        var parsed: [String: (stamp: FileStamp, root: JSONNode)] = [:]
    }
    private static let cache = Mutex(Cache())

    public static func bundled() throws(MercurialError) -> [Preset] {
        let (folder, files) = try listing()
        return files.map { file in
            let path = folder + "/" + file
            var description = ""
            if let root = try? parsed(path, quoting: true), case .object(let members) = root.value,
               let d = members.first(where: { $0.key == "description" }), case .string(let s) = d.value.value {
                description = s
            }
            return Preset(name: String(file.dropLast(5)), path: path, description: description)
        }
    }

    /// The bundled folder and its material files (listed again only when its stamp changes).
    private static func listing() throws(MercurialError) -> (folder: String, files: [String]) {
        let folder = try DataDirectory.folder("materials")
        let stamp = FileStamp(folder)
        if let files = cache.withLock({ $0.folder == folder && stamp != nil && $0.stamp == stamp ? $0.files : nil }) {
            return (folder, files)
        }
        let listed = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        cache.withLock { ($0.folder, $0.stamp, $0.files) = (folder, stamp, listed) }
        return (folder, listed)
    }

    /// The material file at `path`, parsed (kept while the file stays as it was; an error is not kept).
    static func parsed(_ path: String, quoting: Bool) throws(MercurialError) -> JSONNode {
        let stamp = FileStamp(path)
        if let stamp, let kept = cache.withLock({ $0.parsed[path] }), kept.stamp == stamp { return kept.root }
        let root = try SceneFile.parse(path, role: "material", quoting: quoting)
        if let stamp {
            cache.withLock { cache in
                // The bundled nine and a few of the user's: a batch naming many files keeps no more than 64.
                if cache.parsed.count >= 64 { cache.parsed.removeAll() }
                cache.parsed[path] = (stamp, root)
            }
        }
        return root
    }

    /// Applies the material `nameOrPath` (a bundled name or a JSON file); returns the keys it sets.
    @discardableResult
    public static func apply(_ nameOrPath: String, to settings: inout RenderSettings,
                             location: String? = nil) throws(MercurialError) -> Set<String> {
        let path: String
        if UserPath.looksLikePath(nameOrPath) {
            path = try UserPath(nameOrPath, role: "material").string
        } else {
            // The bundled names only (each edit in the editor reads its scene's material): no file is read for them.
            let (folder, files) = try listing()
            let names = files.map { String($0.dropLast(5)) }
            var info = stat()
            if !names.contains(nameOrPath.lowercased()), lstat(nameOrPath, &info) == 0 {
                // Not a bundled name, but a file: read it as a material.
                return try apply("./" + nameOrPath, to: &settings, location: location)
            }
            guard names.contains(nameOrPath.lowercased()) else {
                let hint = closestMatch(to: nameOrPath, in: names).map { "did you mean '\($0)'? " } ?? ""
                throw MercurialError("\(location.map { $0 + ": " } ?? "")unknown material '\(nameOrPath)'; \(hint)bundled: \(names.joined(separator: ", "))")
            }
            path = folder + "/" + nameOrPath.lowercased() + ".json"
        }
        let root = try parsed(path, quoting: false)
        guard case .object(let members) = root.value else {
            throw MercurialError("\(path):\(root.location): a material must be a JSON object {…}, not \(root.value.typeName)")
        }
        try SceneFile.apply(members, from: path, kind: .material, to: &settings)
        settings.material = nameOrPath
        return SceneFile.slots(of: members)
    }
}

// What a key does in a scene with layers, as the editor shows it before the key is set.
extension RenderSettings {
    /// Why a value of the scene's `key` would change no layer (each layer it can reach gives its
    /// own); nil when some layer takes it, or the scene has no layers. `key` is a parameter's
    /// (`radius`, `light2.hue`) or a block's (`dropShadow`).
    public func noLayerTakes(_ key: String) -> String? {
        guard !layers.isEmpty else { return nil }
        let (reached, whose) = SceneFile.reach(of: key, layers.map { $0.below == nil })
        let taken = reached.contains { index in
            let layer = layers[index]
            guard key == SceneSchema.materialKey.key else { return !layer.ownKeys.contains(key) }
            return layer.presetKeys == nil
        }
        return taken ? nil : "the scene's \"\(key)\" applies to no layer: \(whose)"
    }

    /// Why `key` given by layer `index` would change nothing (the canvas is the first layer's,
    /// a stack is placed by its top layer); nil when it applies.
    public func layer(_ index: Int, ignores key: String) -> String? {
        guard layers.indices.contains(index) else { return nil }
        let (reached, whose) = SceneFile.reach(of: key, layers.map { $0.below == nil })
        guard !reached.contains(index) else { return nil }
        return "layer \(index + 1)'s \"\(key)\" is not used: " + whose.replacing(" gives its own", with: " gives")
    }
}
