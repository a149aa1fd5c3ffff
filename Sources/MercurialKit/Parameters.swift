/// Every adjustable setting of a title, as the original app's `Parameter` model:
/// one `ParameterFunction` per way a value changes the scene, `Parameter`s
/// (name, function, value, range) in named `ParameterGroup`s. CLI flags,
/// `--set KEY=VALUE`, scene files and materials all go through it.
public enum PositionAxis: String, Sendable, CaseIterable { case x, y, z }

public enum MaterialColorRole: String, Sendable, CaseIterable { case diffuse, specular, ambient }

public enum ParameterFunction: Hashable, Sendable {
    case adjustLightPosition(index: Int, axis: PositionAxis)
    case adjustLightHue(index: Int)
    case adjustLightBrightness(index: Int)
    case adjustMaterialShininess
    // Additions to the original:
    case adjustMaterialColor(MaterialColorRole)
    case adjustMaterialReflectivity
    case adjustHeightFieldRadius
    case adjustShadedMaterialScale
}

public enum ParameterValue: Sendable, Equatable, CustomStringConvertible {
    case number(Double)
    case color(RGBColor)

    public var description: String {
        switch self {
        case .number(let v): return formatNumber(v)
        case .color(let c): return c.hex
        }
    }
}

public struct Parameter: Sendable, Equatable {
    public enum Domain: Sendable, Equatable {
        case number(ClosedRange<Double>)
        case color
    }

    public let key: String
    public let name: String
    public let parameterFunction: ParameterFunction
    public let domain: Domain
    public let help: String

    /// Checks `value` against the domain: finite and in range, or a colour.
    public func validate(_ value: ParameterValue) throws(MercurialError) {
        switch (domain, value) {
        case (.number(let range), .number(let v)):
            guard v.isFinite else {
                throw MercurialError("\(key) is \(formatNumber(v)), not a finite number; give a number in \(rangeText(range))")
            }
            guard range.contains(v) else {
                throw MercurialError("\(key) is \(formatNumber(v)), out of range \(rangeText(range)); give a number in that range")
            }
        case (.color, .color):
            return
        case (.number(let range), .color):
            throw MercurialError("\(key) takes a number in \(rangeText(range)), not a colour")
        case (.color, .number):
            throw MercurialError("\(key) takes a colour (a name or #rrggbb), not a number")
        }
    }

    /// Reads `text` (from `--set` or a flag) as this parameter's kind of value.
    public func parse(_ text: String) throws(MercurialError) -> ParameterValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch domain {
        case .number(let range):
            guard let v = Double(trimmed) else {
                throw MercurialError("\(key) = '\(text)' is not a number; give a number in \(rangeText(range))")
            }
            return .number(v)
        case .color:
            guard let c = RGBColor.parse(trimmed) else {
                throw MercurialError("\(key) = '\(text)' is not a colour; give a name (e.g. gold) or #rrggbb")
            }
            return .color(c)
        }
    }

    public var rangeDescription: String {
        switch domain {
        case .number(let range): return rangeText(range)
        case .color: return "colour"
        }
    }
}

public struct ParameterGroup: Sendable {
    public let name: String
    public let parameters: [Parameter]
}

extension ParameterGroup {
    public static let lightCount = 4

    /// Every parameter, grouped as `mercurial params` lists them.
    public static let all: [ParameterGroup] = {
        var groups = [
            ParameterGroup(name: "Material", parameters: [
                Parameter(key: "shininess", name: "Shininess", parameterFunction: .adjustMaterialShininess,
                          domain: .number(0.001...0.25), help: "tightness of the highlights (Blinn–Phong exponent 1000×)"),
                Parameter(key: "diffuse", name: "Diffuse colour", parameterFunction: .adjustMaterialColor(.diffuse),
                          domain: .color, help: "colour the lights reveal"),
                Parameter(key: "specular", name: "Specular colour", parameterFunction: .adjustMaterialColor(.specular),
                          domain: .color, help: "colour of the highlights"),
                Parameter(key: "ambient", name: "Ambient colour", parameterFunction: .adjustMaterialColor(.ambient),
                          domain: .color, help: "colour added everywhere"),
                Parameter(key: "reflectivity", name: "Reflectivity", parameterFunction: .adjustMaterialReflectivity,
                          domain: .number(0...1), help: "share of the reflection gradient added"),
            ]),
            ParameterGroup(name: "Height field", parameters: [
                Parameter(key: "radius", name: "Radius", parameterFunction: .adjustHeightFieldRadius,
                          domain: .number(0.5...200), help: "bevel width in pixels"),
                Parameter(key: "scale", name: "Scale", parameterFunction: .adjustShadedMaterialScale,
                          domain: .number(0...100), help: "height multiplier: steeper bevel"),
            ]),
        ]
        for index in 0..<lightCount {
            let prefix = "light\(index + 1)."
            groups.append(ParameterGroup(name: "Light \(index + 1)", parameters: [
                Parameter(key: prefix + "hue", name: "Hue", parameterFunction: .adjustLightHue(index: index),
                          domain: .number(0...1), help: "colour of the light, HSB hue"),
                Parameter(key: prefix + "brightness", name: "Brightness",
                          parameterFunction: .adjustLightBrightness(index: index),
                          domain: .number(0...1), help: "HSB brightness; 0 turns the light off"),
                Parameter(key: prefix + "x", name: "X", parameterFunction: .adjustLightPosition(index: index, axis: .x),
                          domain: .number(-50...50), help: "position, right is +"),
                Parameter(key: prefix + "y", name: "Y", parameterFunction: .adjustLightPosition(index: index, axis: .y),
                          domain: .number(-50...50), help: "position, up is +"),
                Parameter(key: prefix + "z", name: "Z", parameterFunction: .adjustLightPosition(index: index, axis: .z),
                          domain: .number(-10...50), help: "position, towards the viewer is +"),
            ]))
        }
        return groups
    }()

    public static var allParameters: [Parameter] { all.flatMap(\.parameters) }

    /// The parameter with `key`, or an error that suggests the nearest key.
    public static func parameter(forKey key: String) throws(MercurialError) -> Parameter {
        if let p = allParameters.first(where: { $0.key == key.lowercased() }) { return p }
        let suggestion = closestMatch(to: key, in: allParameters.map(\.key))
        throw MercurialError("unknown parameter '\(key)'\(suggestion.map { "; did you mean '\($0)'?" } ?? "") (see 'mercurial params')")
    }
}

/// Reads and writes the value a parameter function controls, like the original's
/// `updateSceneFromParameter`.
extension ParameterFunction {
    public func value(in settings: RenderSettings) -> ParameterValue {
        switch self {
        case let .adjustLightPosition(index, axis):
            let p = settings.scene.lights[index].position
            switch axis {
            case .x: return .number(p.x)
            case .y: return .number(p.y)
            case .z: return .number(p.z)
            }
        case let .adjustLightHue(index): return .number(settings.scene.lights[index].hue)
        case let .adjustLightBrightness(index): return .number(settings.scene.lights[index].brightness)
        case .adjustMaterialShininess: return .number(settings.scene.material.shininess)
        case let .adjustMaterialColor(role):
            switch role {
            case .diffuse: return .color(settings.scene.material.diffuse)
            case .specular: return .color(settings.scene.material.specular)
            case .ambient: return .color(settings.scene.material.ambient)
            }
        case .adjustMaterialReflectivity: return .number(settings.scene.material.reflectivity)
        case .adjustHeightFieldRadius: return .number(settings.radius)
        case .adjustShadedMaterialScale: return .number(settings.scale)
        }
    }

    /// Stores `value` (already validated) in `settings`.
    public func apply(_ value: ParameterValue, to settings: inout RenderSettings) {
        switch (self, value) {
        case let (.adjustLightPosition(index, axis), .number(v)):
            switch axis {
            case .x: settings.scene.lights[index].position.x = v
            case .y: settings.scene.lights[index].position.y = v
            case .z: settings.scene.lights[index].position.z = v
            }
        case let (.adjustLightHue(index), .number(v)): settings.scene.lights[index].hue = v
        case let (.adjustLightBrightness(index), .number(v)): settings.scene.lights[index].brightness = v
        case let (.adjustMaterialShininess, .number(v)): settings.scene.material.shininess = v
        case let (.adjustMaterialColor(role), .color(c)):
            switch role {
            case .diffuse: settings.scene.material.diffuse = c
            case .specular: settings.scene.material.specular = c
            case .ambient: settings.scene.material.ambient = c
            }
        case let (.adjustMaterialReflectivity, .number(v)): settings.scene.material.reflectivity = v
        case let (.adjustHeightFieldRadius, .number(v)): settings.radius = v
        case let (.adjustShadedMaterialScale, .number(v)): settings.scale = v
        default:
            preconditionFailure("\(value) is the wrong kind of value for \(self); validate it first")
        }
    }
}

extension RenderSettings {
    /// Validates and applies one parameter value.
    public mutating func set(_ parameter: Parameter, to value: ParameterValue) throws(MercurialError) {
        try parameter.validate(value)
        parameter.parameterFunction.apply(value, to: &self)
    }

    /// `--set KEY=VALUE`.
    public mutating func set(assignment: String) throws(MercurialError) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw MercurialError("--set '\(assignment)' has no '='; write KEY=VALUE, e.g. --set light1.hue=0.5")
        }
        let key = String(assignment[..<equals]).trimmingCharacters(in: .whitespaces)
        let parameter = try ParameterGroup.parameter(forKey: key)
        try set(parameter, to: try parameter.parse(String(assignment[assignment.index(after: equals)...])))
    }
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
