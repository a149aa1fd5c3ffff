/// A key of a scene file's top level that is no parameter: where it may be given, what
/// reading it does and its help, declared once in `SceneSchema.structure`. The lists the
/// readers check against (the keys of a scene, of a material, of a layer, beside a
/// sequence; the scene-wide keys; the keys that set no setting) are derived from it.
public struct SchemaKey: Sendable {
    /// The places a key may be given.
    public struct Places: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A title's scene: a scene file's top level, or a sequence step's scene.
        public static let scene = Places(rawValue: 1)
        /// A material file.
        public static let material = Places(rawValue: 2)
        /// One of a scene's `layers`.
        public static let layer = Places(rawValue: 4)
        /// The top level of a file that holds a `sequence`, beside it.
        public static let sequence = Places(rawValue: 8)
        /// Everywhere a title's keys go.
        public static let title: Places = [.scene, .material, .layer, .sequence]
    }

    /// What reading the key does where a scene's keys are applied.
    public enum Role: Sendable, Equatable {
        /// It sets settings there (a block, `lights`, `fallbackFonts`).
        case setting
        /// It names the preset the other keys are read over (`material`), read before them.
        case preset
        /// It sets nothing: a comment, or what a recipe records.
        case note
        /// A part of the scene read on its own: its animation, what moves it, its layers, its sequence.
        case part
    }

    public typealias Read = @Sendable (inout RenderSettings, JSONMember, _ file: String) throws(MercurialError) -> Void

    public let key: String
    /// What `params` would call its value's kind: string, array, object, or a block's kind.
    public let kind: String
    public let places: Places
    public let role: Role
    public let help: String
    /// What is said after "belongs to the scene, not to one of its layers" when a layer gives it.
    public let layerNote: String
    /// Reads a `.setting` key onto the settings.
    let read: Read?

    public init(_ key: String, kind: String, places: Places, role: Role, help: String, layerNote: String = "",
                read: Read? = nil) {
        (self.key, self.kind, self.places, self.role, self.help, self.layerNote, self.read) =
            (key, kind, places, role, help, layerNote, read)
    }

    /// A nested block of the scene's schema (`vine`, `dropShadow`): a setting, given anywhere a title's keys go.
    init(block field: SchemaField<RenderSettings>) {
        self.init(field.key, kind: field.value.kind, places: .title, role: .setting, help: field.help,
                  read: { settings, member, file throws(MercurialError) in
                      try field.read(&settings, member.value, member.key, SceneAnimation.Reader(file: file))
                  })
    }

    /// Whether the key sets nothing where a scene's keys are applied (it is read on its own, or is a note).
    public var setsNoSetting: Bool { role == .note || role == .part }
}

extension SceneSchema {
    /// A scene's `material`: the preset its keys, and those of each layer, are read over.
    public static let materialKey = SchemaKey(
        "material", kind: "string", places: [.scene, .layer, .sequence], role: .preset,
        help: "the material preset the keys are read over: a bundled name (see 'mercurial materials') or a material file's path")

    /// A scene's `layers`: each a `layer` object (its own keys) with a scene's keys, read by `SceneFile.readLayers`.
    /// A material's `layers` is read by no one (as it always was).
    public static let layersKey = SchemaKey(
        "layers", kind: "array", places: [.scene, .material], role: .part,
        help: "up to \(TitleLayer.maximum) titles stacked on one canvas, each a scene's keys with its own name, below and gap")

    /// Every top-level key of a scene that is no parameter, in the order did-you-mean weighs them:
    /// the blocks are the fields of `settings` that are no parameter.
    public static var structure: [SchemaKey] {
        return [
            materialKey,
            SchemaKey("lights", kind: "array", places: .title, role: .setting,
                      help: "up to \(ParameterGroup.lightCount) light objects {hue, brightness, x, y, z}, light1 first",
                      read: { settings, member, file throws(MercurialError) in try SceneFile.applyLights(member, file, to: &settings) }),
            SchemaKey("description", kind: "string", places: .title, role: .note, help: "a comment"),
            SchemaKey("animation", kind: "object", places: [.scene, .sequence], role: .part,
                      help: "the duration, frame rate and tracks (beside a sequence: its frame rate and looping)"),
        ] + blocks.fields.map(SchemaKey.init(block:)) + [
            SchemaKey("dynamics", kind: "object", places: .scene, role: .part, help: "rigid-body physics that moves the title's glyphs"),
            SchemaKey("in", kind: "object", places: [.scene, .layer], role: .part,
                      help: "how the title comes in: a move or a list of moves that run together (a layer's own, after its delay)"),
            SchemaKey("out", kind: "object", places: [.scene, .layer], role: .part,
                      help: "how the title goes out: a move or a list of moves that run together (a layer's own, before the last frame)"),
            SchemaKey("generator", kind: "string", places: .title, role: .note, help: "the version of mercurial that wrote a recipe"),
            SchemaKey("fontSHA256", kind: "string", places: .title, role: .note, help: "the SHA-256 of the font file a recipe's title was made with"),
            SchemaKey("fallbackFonts", kind: "array", places: .title, role: .setting,
                      help: "the faces a recipe's title took characters its font lacks from",
                      read: { settings, member, file throws(MercurialError) in
                          settings.fallbackFonts = try SceneFile.fallbackFonts.read(member.value, member.key, SceneAnimation.Reader(file: file))
                      }),
            SchemaKey("sequence", kind: "array", places: [.scene, .sequence], role: .part,
                      help: "titles shown one after another, joined by transitions"),
            layersKey,
        ]
    }

    /// The declaration of the top-level key `key` that is no parameter, or nil.
    public static func structuralKey(_ key: String) -> SchemaKey? { structure.first { $0.key == key } }

    /// The declaration of `key` when it is a structural key that may not be given in `place`; nil for
    /// one that may, a parameter or an unknown key.
    public static func refused(_ key: String, in place: SchemaKey.Places) -> SchemaKey? {
        structuralKey(key).flatMap { $0.places.contains(place) ? nil : $0 }
    }

    /// The keys a scene's top level may give in `place`, parameters first: every parameter (but
    /// `text` in a material, which sets no text), then the structural keys declared for that place.
    public static func keys(in place: SchemaKey.Places) -> [String] {
        let parameters = ParameterGroup.allParameters.map(\.key).filter { place != .material || $0 != "text" }
        return parameters + structure.filter { $0.places.contains(place) }.map(\.key)
    }
}
