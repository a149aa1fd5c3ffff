/// Every adjustable setting of a title, declared once.
///
/// As libvips declares each argument of an operation once (name, type, range,
/// default, help) and derives its command line, bindings and docs from that, each
/// row below says once what a setting is: its key, group, kind (with its range or
/// cases), help text, and the key path through which it reads and writes
/// `RenderSettings`. Each row is a field of the scene's one schema
/// (`SceneSchema.settings`, Schema.swift) that carries its `Parameter`. The original app's `ParameterFunction` names what each
/// one does. Everything else is derived from the table: `--set KEY=VALUE`, the
/// dedicated flags' help, scene-file and material keys and their errors,
/// `mercurial params` (and `--json`), validation, and docs/parameters.md's table
/// (`scripts/readme-parameters.sh`).
///
/// A row's default is the value `RenderSettings()` holds, read through the row's
/// own key path, so the table and the renderer can never disagree about it.
///
/// A new parameter is one row (plus its `ParameterFunction` case) and the code
/// that uses its value; a dedicated flag is one more `@Option` line in the CLI.
public enum PositionAxis: String, Sendable, CaseIterable { case x, y, z }

public enum MaterialColorRole: String, Sendable, CaseIterable { case diffuse, specular, ambient }

public enum CanvasSide: String, Sendable, CaseIterable { case width, height }

public enum ParameterFunction: Hashable, Sendable {
    // The original app's:
    case adjustLightPosition(index: Int, axis: PositionAxis)
    case adjustLightHue(index: Int)
    case adjustLightBrightness(index: Int)
    case adjustMaterialShininess
    // Additions to the original:
    case adjustMaterialColor(MaterialColorRole)
    case adjustMaterialReflectivity
    case adjustHeightFieldRadius
    case adjustHeightFieldProfile
    case setBevelDirection
    case adjustShadedMaterialScale
    case setText
    case setFont
    case adjustTextSize
    case adjustCanvasSize(CanvasSide)
    case setAlignment
    case setAnchor
    case adjustPadding
    case adjustLineSpacing
    case adjustLetterSpacing
    case setKerning
    case setFallback
    case adjustMaximumLines
    case setBackground
    case setMask
    case setShadingImage
    case adjustAmbientLightLevel
    case adjustOpacity
    case adjustShift(PositionAxis)
    case adjustZoom
}

/// What kind of value a parameter takes.
public enum ParameterKind: Sendable, Equatable {
    case number(ClosedRange<Double>)
    case integer(ClosedRange<Int>)
    /// One of these words (an enumeration's raw values).
    case choice([String])
    case color
    /// Any string (up to `RenderSettings.maximumTextLength` characters).
    case text
    /// A bundled font name, a font file or a fontconfig name.
    case font
    /// A file; in a scene file, relative to the scene file's folder.
    case path
    case bool

    /// The cases of `E`, in declaration order.
    public static func choice<E: CaseIterable & RawRepresentable>(of _: E.Type) -> ParameterKind where E.RawValue == String {
        .choice(E.allCases.map(\.rawValue))
    }

    /// The name `params --json` gives the kind.
    public var name: String {
        switch self {
        case .number: return "number"
        case .integer: return "integer"
        case .choice: return "enum"
        case .color: return "color"
        case .text: return "text"
        case .font: return "font"
        case .path: return "path"
        case .bool: return "bool"
        }
    }

    /// A number's or whole number's range; nil for other kinds.
    public var range: ClosedRange<Double>? {
        switch self {
        case .number(let range): return range
        case .integer(let range): return Double(range.lowerBound)...Double(range.upperBound)
        default: return nil
        }
    }

    /// A choice's cases; nil for other kinds.
    public var cases: [String]? {
        if case .choice(let cases) = self { return cases } else { return nil }
    }

    /// The range or the choices, as `params` and the help show them.
    public var rangeDescription: String {
        switch self {
        case .number(let range): return rangeText(range)
        case .integer(let range): return "\(range.lowerBound)…\(range.upperBound)"
        case .choice(let cases): return cases.joined(separator: ", ")
        case .color: return "colour"
        case .text: return "text"
        case .font: return "font name or file"
        case .path: return "file"
        case .bool: return "true, false"
        }
    }

    /// What a value of this kind must be, for "must be …" errors.
    var expectation: String {
        switch self {
        case .number(let range): return "a number in \(rangeText(range))"
        case .integer(let range): return "a whole number in \(range.lowerBound)…\(range.upperBound)"
        case .choice(let cases): return "one of \(orList(cases))"
        case .color: return "a colour (a name or #rrggbb)"
        case .text, .font, .path: return "a string"
        case .bool: return "true or false"
        }
    }
}

public enum ParameterValue: Sendable, Equatable, CustomStringConvertible {
    case number(Double)
    case integer(Int)
    case choice(String)
    case color(RGBColor)
    case text(String)
    case bool(Bool)
    /// No value (`nil` in the settings); the row's `unset` word says what that means.
    case unset

    public var description: String {
        switch self {
        case .number(let v): return formatNumber(v)
        case .integer(let v): return String(v)
        case .choice(let s), .text(let s): return s
        case .color(let c): return c.hex
        case .bool(let on): return on ? "true" : "false"
        case .unset: return "unset"
        }
    }
}

/// One row of the table.
public struct Parameter: Sendable {
    public let key: String
    public let group: String
    /// A short label, e.g. for an editor's control.
    public let name: String
    /// What the parameter does, in the original app's vocabulary.
    public let parameterFunction: ParameterFunction
    public let kind: ParameterKind
    /// The word that means "no value" (`auto`, `transparent`, `none`), for settings
    /// that may be nil; nil when a value is required.
    public let unset: String?
    public let help: String
    /// The value name of the parameter's own CLI flag (`--size <px>`); nil when it is set with `--set` only.
    public let flag: String?
    fileprivate let read: @Sendable (RenderSettings) -> ParameterValue
    let write: @Sendable (inout RenderSettings, ParameterValue) -> Void

    /// A row: key, group, label, what it does, its kind, and the key path of the
    /// setting it reads and writes (whose type must suit the kind: `Double` for a
    /// number, `Int` for an integer, a `ParameterChoice` enum for a choice, an
    /// optional for a row with an `unset` word).
    init<Value: ParameterStorable>(_ key: String, _ group: String, _ name: String, _ function: ParameterFunction,
                                   _ kind: ParameterKind, _ path: WritableKeyPath<RenderSettings, Value> & Sendable,
                                   unset: String? = nil, flag: String? = nil, help: String) {
        self.init(key, group, name, function, kind, unset: unset, flag: flag, help: help,
                  get: { $0[keyPath: path] }, set: { $0[keyPath: path] = $1 })
    }

    /// A row of light `index`, by its key path inside a light (`\.hue`). The four lights share
    /// these five key paths: one written through `lights[index]` is a key path of its own for
    /// each index, made at run time (sharing them took a small title from 35.30 to 34.56 M instructions).
    init<Value: ParameterStorable>(_ key: String, _ group: String, _ name: String, _ function: ParameterFunction,
                                   _ kind: ParameterKind, light index: Int, _ path: WritableKeyPath<Light, Value> & Sendable,
                                   help: String) {
        self.init(key, group, name, function, kind, unset: nil, flag: nil, help: help,
                  get: { $0.scene.lights[index][keyPath: path] }, set: { $0.scene.lights[index][keyPath: path] = $1 })
    }

    private init<Value: ParameterStorable>(_ key: String, _ group: String, _ name: String, _ function: ParameterFunction,
                                           _ kind: ParameterKind, unset: String?, flag: String?, help: String,
                                           get: @escaping @Sendable (RenderSettings) -> Value,
                                           set: @escaping @Sendable (inout RenderSettings, Value) -> Void) {
        self.key = key
        self.group = group
        self.name = name
        parameterFunction = function
        self.kind = kind
        self.unset = unset
        self.flag = flag
        self.help = help
        read = { get($0).parameterValue }
        write = { settings, value in
            guard let stored = Value(parameterValue: value) else {
                preconditionFailure("\(value) is the wrong kind of value for \(key); validate it first")
            }
            set(&settings, stored)
        }
    }

    public func value(in settings: RenderSettings) -> ParameterValue { read(settings) }

    /// The value `RenderSettings()` starts with.
    public var defaultValue: ParameterValue { read(RenderSettings()) }

    /// `value` as a user writes it: the `unset` word for no value.
    public func format(_ value: ParameterValue) -> String {
        value == .unset ? (unset ?? "none") : value.description
    }

    /// The CLI flag's name: the key in kebab case (`lineSpacing` → `line-spacing`).
    public var flagName: String {
        "--" + key.reduce(into: "") { name, c in
            if c.isUppercase { name += "-" + c.lowercased() } else { name.append(c) }
        }
    }

    /// Checks `value` against the kind: finite and in range, one of the choices, not too long.
    public func validate(_ value: ParameterValue) throws(MercurialError) {
        switch (kind, value) {
        case (_, .unset):
            guard unset != nil else { throw MercurialError("\(key) needs a value; give \(kind.expectation)") }
        case (.number(let range), .number(let v)):
            guard v.isFinite else {
                throw MercurialError("\(key) is \(formatNumber(v)), not a finite number; give a number in \(rangeText(range))")
            }
            guard range.contains(v) else {
                throw MercurialError("\(key) is \(formatNumber(v)), out of range \(rangeText(range)); give a number in that range")
            }
        case (.integer(let range), .integer(let v)):
            guard range.contains(v) else {
                throw MercurialError("\(key) is \(v), out of range \(kind.rangeDescription); give a whole number in that range")
            }
        case (.choice(let cases), .choice(let s)):
            guard cases.contains(s) else {
                throw MercurialError("\(key) is '\(s)', which is not known; use \(orList(cases))\(didYouMean(s, in: cases))")
            }
        case (.text, .text(let s)), (.font, .text(let s)), (.path, .text(let s)):
            guard s.utf8.count <= RenderSettings.maximumTextLength * 4, s.count <= RenderSettings.maximumTextLength else {
                throw MercurialError.limit("\(key) is \(s.count) characters long, over the limit of \(RenderSettings.maximumTextLength); shorten it")
            }
        case (.color, .color), (.bool, .bool):
            return
        default:
            throw MercurialError("\(key) takes \(kind.expectation), not '\(value)'")
        }
    }

    /// Reads `text` (from `--set` or a flag) as this parameter's kind of value;
    /// `culprit` names it in errors (by default `KEY = 'TEXT'`).
    public func parse(_ text: String, culprit: String? = nil) throws(MercurialError) -> ParameterValue {
        let trimmed = text.trimmingWhitespace()
        let culprit = culprit ?? "\(key) = '\(text)'"
        if let unset, trimmed.lowercased() == unset { return .unset }
        let orUnset = unset.map { " or \($0)" } ?? ""
        switch kind {
        case .number(let range):
            guard let v = Double(decimal: trimmed) else {
                // Swift's Double(_:) takes 0x10 as 16: a number, but not one written in decimal.
                let what = Double(trimmed) == nil ? "a number" : "a decimal number"
                throw MercurialError("\(culprit) is not \(what); give a number in \(rangeText(range))\(orUnset)")
            }
            return .number(v)
        case .integer:
            guard let v = Int(trimmed) else {
                throw MercurialError("\(culprit) is not a whole number; give one in \(kind.rangeDescription)\(orUnset)")
            }
            return .integer(v)
        case .choice(let cases):
            guard cases.contains(trimmed.lowercased()) else {
                // A scene file's culprit is in double quotes, and so its suggestion.
                let quote = culprit.hasPrefix("\"") ? "\"" : "'"
                throw MercurialError("\(culprit) is not known; use \(orList(cases))\(didYouMean(trimmed, in: cases, quote: quote))")
            }
            return .choice(trimmed.lowercased())
        case .color:
            guard let c = RGBColor.parse(trimmed) else {
                throw MercurialError("\(culprit) is not a colour; use a name (e.g. gold), #rrggbb\(orUnset)")
            }
            return .color(c)
        case .text, .font, .path:
            return .text(text)
        case .bool:
            switch trimmed.lowercased() {
            case "true", "on", "yes", "1": return .bool(true)
            case "false", "off", "no", "0": return .bool(false)
            default: throw MercurialError("\(culprit) is not true or false")
            }
        }
    }

    public var rangeDescription: String { kind.rangeDescription }
}

extension SchemaField where Root == RenderSettings {
    /// A parameter that a scene file may also give as a list (`text` as styled runs): how the
    /// list is read, and the list written in place of the value (nil: the value).
    struct ListForm: Sendable {
        var read: @Sendable (JSONNode, inout RenderSettings, SceneAnimation.Reader) throws(MercurialError) -> Void
        var write: @Sendable (RenderSettings) -> JSONValue?
    }

    /// A top-level parameter, the one declaration of its key: its `Parameter` row (key, group,
    /// label, what it does, kind, the setting's key path, unset word, CLI flag, help) as a field of
    /// the scene's schema. A scene file's value is read as a parameter's (`SceneFile.setParameter`:
    /// `null` for its unset word, a path relative to the file); `--set` and the editor parse its text.
    init<Value: ParameterStorable>(_ key: String, _ group: String, _ name: String, _ function: ParameterFunction,
                                   _ kind: ParameterKind, _ path: WritableKeyPath<RenderSettings, Value> & Sendable,
                                   unset: String? = nil, flag: String? = nil, help: String,
                                   orList list: ListForm? = nil) {
        self.init(Parameter(key, group, name, function, kind, path, unset: unset, flag: flag, help: help), orList: list)
    }

    /// A parameter of light `index` (see `Parameter`'s light rows).
    init<Value: ParameterStorable>(_ key: String, _ group: String, _ name: String, _ function: ParameterFunction,
                                   _ kind: ParameterKind, light index: Int, _ path: WritableKeyPath<Light, Value> & Sendable,
                                   help: String) {
        self.init(Parameter(key, group, name, function, kind, light: index, path, help: help), orList: nil)
    }

    private init(_ parameter: Parameter, orList list: ListForm?) {
        let key = parameter.key, help = parameter.help, kind = parameter.kind
        self.key = key
        self.help = help
        required = nil
        self.parameter = parameter
        value = SchemaDescription(kind: kind.name, range: kind.range, cases: kind.cases,
                                  rangeDescription: kind.rangeDescription, children: { _ in [] })
        read = { settings, node, _, reader throws(MercurialError) in
            if let list, case .array = node.value { return try list.read(node, &settings, reader) }
            try SceneFile.setParameter(parameter, node, reader.file, &settings)
        }
        write = { settings in list?.write(settings) ?? JSONValue(parameter.value(in: settings)) }
        leaf = { _ in nil }
        assign = { settings, steps, node, name, _ throws(MercurialError) in
            guard steps.isEmpty else { throw MercurialError("'\(name)' has no '\(SchemaPathStep.text(steps))' (see 'mercurial params')") }
            let text = if case .string(let s) = node.value { s } else { node.value.text() }
            try settings.set(parameter, to: try parameter.parse(text))
        }
    }
}

/// The Swift types a row's key path may lead to, and how they map to `ParameterValue`.
protocol ParameterStorable: Sendable {
    init?(parameterValue: ParameterValue)
    var parameterValue: ParameterValue { get }
}

extension Double: ParameterStorable {
    init?(parameterValue: ParameterValue) {
        guard case .number(let v) = parameterValue else { return nil }
        self = v
    }
    var parameterValue: ParameterValue { .number(self) }
}

extension Int: ParameterStorable {
    init?(parameterValue: ParameterValue) {
        guard case .integer(let v) = parameterValue else { return nil }
        self = v
    }
    var parameterValue: ParameterValue { .integer(self) }
}

extension Bool: ParameterStorable {
    init?(parameterValue: ParameterValue) {
        guard case .bool(let v) = parameterValue else { return nil }
        self = v
    }
    var parameterValue: ParameterValue { .bool(self) }
}

extension String: ParameterStorable {
    init?(parameterValue: ParameterValue) {
        guard case .text(let v) = parameterValue else { return nil }
        self = v
    }
    var parameterValue: ParameterValue { .text(self) }
}

extension RGBColor: ParameterStorable {
    init?(parameterValue: ParameterValue) {
        guard case .color(let v) = parameterValue else { return nil }
        self = v
    }
    var parameterValue: ParameterValue { .color(self) }
}

extension Optional: ParameterStorable where Wrapped: ParameterStorable {
    init?(parameterValue: ParameterValue) {
        if parameterValue == .unset { self = .none; return }
        guard let v = Wrapped(parameterValue: parameterValue) else { return nil }
        self = .some(v)
    }
    var parameterValue: ParameterValue { map(\.parameterValue) ?? .unset }
}

/// An enumeration stored by its raw value.
protocol ParameterChoice: ParameterStorable, CaseIterable, RawRepresentable where RawValue == String {}

extension ParameterChoice {
    init?(parameterValue: ParameterValue) {
        guard case .choice(let s) = parameterValue, let v = Self(rawValue: s) else { return nil }
        self = v
    }
    var parameterValue: ParameterValue { .choice(rawValue) }
}

extension TextLayout.Alignment: ParameterChoice {}
extension LoftProfile: ParameterChoice {}
extension Anchor: ParameterChoice {}
extension BevelDirection: ParameterChoice {}

public struct ParameterGroup: Sendable {
    public let name: String
    public let parameters: [Parameter]
}

extension ParameterGroup {
    public static let lightCount = 4

    /// The table: every parameter, declared as a field of the scene's schema (`SceneSchema.settings`,
    /// whose first fields these are), in the order `mercurial params` lists them.
    static let fields: [SchemaField<RenderSettings>] = {
        var rows: [SchemaField<RenderSettings>] = [
            SchemaField("shininess", "Material", "Shininess", .adjustMaterialShininess, .number(0.001...0.25),
                      \.scene.material.shininess, flag: "value",
                      help: "tightness of the highlights (Blinn–Phong exponent 1000×)"),
            SchemaField("diffuse", "Material", "Diffuse colour", .adjustMaterialColor(.diffuse), .color,
                      \.scene.material.diffuse, help: "colour the lights reveal"),
            SchemaField("specular", "Material", "Specular colour", .adjustMaterialColor(.specular), .color,
                      \.scene.material.specular, help: "colour of the highlights"),
            SchemaField("ambient", "Material", "Ambient colour", .adjustMaterialColor(.ambient), .color,
                      \.scene.material.ambient, help: "colour added everywhere"),
            SchemaField("reflectivity", "Material", "Reflectivity", .adjustMaterialReflectivity, .number(0...1),
                      \.scene.material.reflectivity, help: "share of the reflection gradient added"),
            SchemaField("radius", "Height field", "Radius", .adjustHeightFieldRadius, .number(0.5...200), \.radius,
                      flag: "px", help: "bevel width in pixels, CIHeightFieldFromMask's inputRadius"),
            SchemaField("profile", "Height field", "Profile", .adjustHeightFieldProfile, .choice(of: LoftProfile.self),
                      \.profile, flag: "shape",
                      help: "the loft's shape across a stroke: liquid (soft tubes), chisel (crisp bevel) or round (fillet)"),
            SchemaField("scale", "Height field", "Scale", .adjustShadedMaterialScale, .number(0...100), \.scale,
                      flag: "factor", help: "height multiplier, CIShadedMaterial's inputScale: steeper bevel"),
            SchemaField("bevel", "Height field", "Bevel", .setBevelDirection, .choice(of: BevelDirection.self), \.bevel,
                      flag: "direction", help: "up: raised letters; down: engraved (the loft's slope inverted)"),
        ]
        for index in 0..<lightCount {
            let prefix = "light\(index + 1).", group = "Light \(index + 1)"
            rows += [
                SchemaField(prefix + "hue", group, "Hue", .adjustLightHue(index: index), .number(0...1),
                          light: index, \.hue, help: "colour of the light, HSB hue"),
                SchemaField(prefix + "brightness", group, "Brightness", .adjustLightBrightness(index: index),
                          .number(0...1), light: index, \.brightness, help: "HSB brightness; 0 turns the light off"),
                SchemaField(prefix + "x", group, "X", .adjustLightPosition(index: index, axis: .x), .number(-50...50),
                          light: index, \.position.x, help: "position, right is +"),
                SchemaField(prefix + "y", group, "Y", .adjustLightPosition(index: index, axis: .y), .number(-50...50),
                          light: index, \.position.y, help: "position, up is +"),
                SchemaField(prefix + "z", group, "Z", .adjustLightPosition(index: index, axis: .z), .number(-10...50),
                          light: index, \.position.z, help: "position, towards the viewer is +"),
            ]
        }
        let side = 1...PNGFile.maximumSide
        rows += [
            SchemaField("text", "Layout", "Text", .setText, .text, \.text, unset: "none",
                      help: "the title's text; \\n or a real newline starts a new line; in a scene, also a list of styled runs, each {\"text\", \"font\", \"size\", \"letterSpacing\", \"baselineShift\", \"material\" and the sphere's keys}",
                      orList: SchemaField.ListForm(read: { node, settings, reader throws(MercurialError) in try TextRuns.read(node, into: &settings, reader: reader) },
                                       write: { $0.runs.isEmpty ? nil : TextRuns.write($0) })),
            SchemaField("font", "Layout", "Font", .setFont, .font, \.font, flag: "font",
                      help: "a bundled font (rounded, serif, display, dosis), a TTF/OTF file, or an installed font's fontconfig name such as \"DejaVu Sans:bold\""),
            SchemaField("size", "Layout", "Size", .adjustTextSize, .number(1...8192), \.size, unset: "auto", flag: "px",
                      help: "em size in pixels; auto: 160, or as large as fits --width and --height"),
            SchemaField("width", "Layout", "Width", .adjustCanvasSize(.width), .integer(side), \.width, unset: "auto",
                      flag: "px", help: "canvas width; the text is placed at the anchor and shrunk to fit; auto: the ink plus a margin"),
            SchemaField("height", "Layout", "Height", .adjustCanvasSize(.height), .integer(side), \.height, unset: "auto",
                      flag: "px", help: "canvas height; the text is placed at the anchor and shrunk to fit; auto: the ink plus a margin"),
            SchemaField("align", "Layout", "Alignment", .setAlignment, .choice(of: TextLayout.Alignment.self), \.alignment,
                      unset: "auto", flag: "alignment", help: "alignment of the lines; auto: the anchor's side"),
            SchemaField("anchor", "Layout", "Anchor", .setAnchor, .choice(of: Anchor.self), \.anchor, flag: "point",
                      help: "where the ink box sits on the canvas, inside the margin"),
            SchemaField("padding", "Layout", "Padding", .adjustPadding, .integer(0...PNGFile.maximumSide), \.padding,
                      unset: "none", flag: "px",
                      help: "space kept clear around the ink (at least the margin); a side sized to the text gets it at both ends"),
            SchemaField("lineSpacing", "Layout", "Line spacing", .adjustLineSpacing, .number(0.1...10), \.lineSpacing,
                      flag: "factor", help: "baseline distance as a multiple of the font's line height"),
            SchemaField("letterSpacing", "Layout", "Letter spacing", .adjustLetterSpacing, .number(-1000...1000),
                      \.letterSpacing, flag: "px", help: "extra pixels after each character"),
            SchemaField("kerning", "Layout", "Kerning", .setKerning, .bool, \.kerning, flag: "on/off",
                      help: "apply the font's kerning (GPOS kern)"),
            SchemaField("fallback", "Layout", "Font fallback", .setFallback, .bool, \.fallback, flag: "on/off",
                      help: "draw a character the font lacks from the installed font fontconfig chooses for it"),
            SchemaField("maxLines", "Layout", "Maximum lines", .adjustMaximumLines, .integer(1...100), \.maxLines,
                      flag: "lines", help: "with --width/--height, wrap the text into at most this many lines (at spaces, between ideographs, never before a dash or closing punctuation)"),
            SchemaField("background", "Images", "Background", .setBackground, .color, \.background, unset: "transparent",
                      flag: "color", help: "composite onto a colour: a name, #rrggbb, or transparent"),
            SchemaField("shadingImage", "Images", "Shading image", .setShadingImage, .path, \.shadingImage,
                      unset: "none", flag: "file", help: "use this hemisphere PNG instead of the ray-traced sphere"),
            SchemaField("mask", "Images", "Mask", .setMask, .path, \.mask, unset: "none", flag: "file",
                      help: "emboss this grey or alpha PNG (a logo, line art) instead of text; the canvas is its size"),
            SchemaField("ambientLightLevel", "Point lights", "Ambient light level", .adjustAmbientLightLevel, .number(0...1),
                      \.ambientLightLevel,
                      help: "with pointLights in the scene, the level the title is darkened to where no point light reaches"),
            SchemaField("opacity", "Compositing", "Opacity", .adjustOpacity, .number(0...1), \.opacity, flag: "alpha",
                      help: "the title's alpha, multiplied in as it is put over the backdrop; in/out fade animates it"),
            SchemaField("shiftX", "Compositing", "Shift x", .adjustShift(.x), .number(-100_000...100_000), \.shiftX,
                      help: "the title as drawn moved right by this many pixels (cut at the canvas's edges); in/out slide animates it"),
            SchemaField("shiftY", "Compositing", "Shift y", .adjustShift(.y), .number(-100_000...100_000), \.shiftY,
                      help: "the title as drawn moved down by this many pixels; in/out slide animates it"),
            SchemaField("zoom", "Compositing", "Zoom", .adjustZoom, .number(0...16), \.zoom,
                      help: "the title as drawn scaled about its centre (resampled, not lofted again); in/out scale animates it"),
        ]
        return rows
    }()

    /// Every parameter: the rows of the scene schema's parameter fields, in table order.
    public static var allParameters: [Parameter] { SceneSchema.settings.parameters }

    /// The rows grouped, in table order.
    public static var all: [ParameterGroup] {
        allParameters.reduce(into: []) { groups, row in
        if groups.last?.name == row.group {
            groups[groups.count - 1] = ParameterGroup(name: row.group, parameters: groups[groups.count - 1].parameters + [row])
        } else {
            groups.append(ParameterGroup(name: row.group, parameters: [row]))
        }
        }
    }

    /// The parameter with `key`, or an error that suggests the nearest key.
    public static func parameter(forKey key: String) throws(MercurialError) -> Parameter {
        if let p = allParameters.first(where: { $0.key == key }) ?? allParameters.first(where: { $0.key.lowercased() == key.lowercased() }) {
            return p
        }
        let block = key.split(separator: ".", maxSplits: 1).first.map(String.init) ?? key
        if ["in", "out", "animation"].contains(block) {
            let flag = block == "animation" ? "" : " or with animate's --\(block) PRESET"
            throw MercurialError("'\(key)' is not a parameter: a scene's \"\(block)\" is set in the scene file\(flag), not with --set")
        }
        let suggestion = closestMatch(to: key, in: allParameters.map(\.key))
        throw MercurialError("unknown parameter '\(key)'\(suggestion.map { "; did you mean '\($0)'?" } ?? "") (see 'mercurial params')")
    }

    /// The range of a number parameter (e.g. for a stage that checks its own input).
    public static func range(of key: String) -> ClosedRange<Double> {
        guard let row = allParameters.first(where: { $0.key == key }), case .number(let range) = row.kind else {
            preconditionFailure("'\(key)' is not a number parameter")
        }
        return range
    }
}

extension RenderSettings {
    /// Validates and applies one parameter value.
    public mutating func set(_ parameter: Parameter, to value: ParameterValue) throws(MercurialError) {
        try parameter.validate(value)
        parameter.write(&self, value)
    }

    /// `--set PATH=VALUE`: a key of the scene, here and in every layer, or one layer's (`layers[1].size`).
    public mutating func set(assignment: String) throws(MercurialError) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw MercurialError("--set '\(assignment)' has no '='; write KEY=VALUE, e.g. --set light1.hue=0.5")
        }
        try set(try ScenePath(String(assignment[..<equals])), text: String(assignment[assignment.index(after: equals)...]))
    }

    /// Checks every parameter's value against its row.
    public func validateParameters() throws(MercurialError) {
        for parameter in ParameterGroup.allParameters {
            try parameter.validate(parameter.value(in: self))
        }
    }
}

/// "a, b or c".
func orList(_ words: [String]) -> String {
    words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
}

func rangeText(_ range: ClosedRange<Double>) -> String {
    "\(formatNumber(range.lowerBound))…\(formatNumber(range.upperBound))"
}

func formatNumber(_ v: Double) -> String {
    if v.isNaN { return "NaN" }
    if v.isInfinite { return v > 0 ? "infinity" : "-infinity" }
    if v == v.rounded() && abs(v) < 1e15 { return String(Int(v)) }
    return String(v)
}

/// `; did you mean 'WORD'?` (in `quote` marks) for a near miss among `candidates`, else "".
func didYouMean(_ word: String, in candidates: [String], quote: String = "'") -> String {
    closestMatch(to: word, in: candidates).map { "; did you mean \(quote)\($0)\(quote)?" } ?? ""
}

/// The candidate nearest to `word` by edit distance, if it is close enough to be a likely typo.
func closestMatch(to word: String, in candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
    let w = Array(word.lowercased())
    let best = candidates.map { ($0, distance(w, Array($0.lowercased()))) }.min { $0.1 < $1.1 }
    guard let best, best.1 <= max(2, w.count / 3) else { return nil }
    return best.0
}
