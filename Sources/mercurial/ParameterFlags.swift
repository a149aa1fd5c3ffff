import ArgumentParser
import MercurialKit

// Dedicated flags for rows of the parameter table.
//
// swift-argument-parser needs each flag declared as a stored property, so a
// parameter's flag is one line, named as the row's key:
//
//     @Option(help: .parameter("size"), transform: decimalFlag) var size: Double?
//
// Everything else comes from the row: the help text with the default and range
// (`ArgumentHelp.parameter`), the value name, the validation and its messages.
// `applyParameterFlags` finds every such property by reflection (the labels of
// swift-argument-parser's property wrappers are `_` + the property's name) and
// sets the row with that key, so there is no list of flags to keep in step.
// `ParameterFlagTests` checks that the rows that declare a flag and these
// properties match one to one.

extension ArgumentHelp {
    /// Help for the flag of the parameter `key`: the row's help, default and range.
    static func parameter(_ key: String) -> ArgumentHelp {
        guard let help = parameterHelps[key] else {
            preconditionFailure("the parameter table has no row '\(key)' with a flag")
        }
        return help
    }

    /// Every flag's help, made once: ArgumentParser makes the options several times a
    /// parse (to look for pass-through arguments, to parse, to decode).
    private static let parameterHelps: [String: ArgumentHelp] = Dictionary(
        ParameterGroup.allParameters.compactMap { row in row.flag.map { (row.key, ArgumentHelp(flagHelp(row), valueName: $0)) } },
        uniquingKeysWith: { first, _ in first })

    /// Help for the flag of the scene's nested key `key` (`--margin`): the schema's help
    /// and its default, as a parameter's flag shows it (null is auto on the command line).
    static func nested(_ key: String, valueName: String, note: String = "", defaultText: String? = nil) -> ArgumentHelp {
        guard let field = SceneSchema.settings.field(key), let row = SceneSchema.row(at: key) else {
            preconditionFailure("the scene's schema has no key '\(key)'")
        }
        var value: String
        switch row.defaultValue {
        case .null: value = "auto"
        case .array(let items): value = items.map { $0.value.text() }.joined(separator: ",")
        default: value = row.defaultValue.text()
        }
        if let defaultText { value = defaultText }
        return ArgumentHelp(field.help.prefix(1).uppercased() + field.help.dropFirst() + note + " (default: \(value)).", valueName: valueName)
    }

    static func flagHelp(_ row: Parameter) -> String {
        var text = row.help.prefix(1).uppercased() + row.help.dropFirst()
        let defaultText: String
        switch (row.kind, row.defaultValue) {
        case (.bool, .bool(let on)): defaultText = on ? "on" : "off"
        default: defaultText = row.format(row.defaultValue)
        }
        var notes = ["default: \(defaultText)"]
        switch row.kind {
        case .number(let range):
            notes.append("range \(row.rangeDescription)")
            if range.lowerBound < 0 { text += "; write negative values as \(row.flagName)=-4" }
        case .integer:
            notes.append("range \(row.rangeDescription)")
        default:
            break
        }
        return "\(text) (\(notes.joined(separator: ", ")))."
    }
}

extension ArgumentHelp {
    /// Help for a flag that sets the nested key `path` (`animation.quality`): its schema row's help, default and range.
    static func nested(_ path: String) -> ArgumentHelp {
        guard let row = SceneSchema.row(at: path) else {
            preconditionFailure("the schema has no row '\(path)'")
        }
        var notes: [String] = []
        if case .number(let value) = row.defaultValue { notes.append("default: \(String(cFormat: "%g", value))") }
        notes.append("range \(row.rangeDescription)")
        let text = row.help.prefix(1).uppercased() + row.help.dropFirst()
        return ArgumentHelp("\(text) (\(notes.joined(separator: ", "))); sets the scene's \(path).", valueName: row.name)
    }
}

/// The number a flag gives the nested key `path`, refused outside its schema row's range.
func nestedFlagNumber(_ value: Double, flag: String, path: String) throws(MercurialError) -> Double {
    guard let range = SceneSchema.rows.first(where: { $0.path == path })?.range, !range.contains(value) else { return value }
    throw MercurialError("\(flag) \(String(cFormat: "%g", value)) is out of range \(String(cFormat: "%g", range.lowerBound))…\(String(cFormat: "%g", range.upperBound)); give a number in that range")
}

/// A number flag's value, for every `Double` flag (`@Option(..., transform: decimalFlag)`):
/// swift-argument-parser reads a `Double` with Swift's `Double(_:)`, which took `--quality 0x10`
/// as 16 (issue 31).
func decimalFlag(_ text: String) throws(MercurialError) -> Double {
    guard let value = Double(decimal: text) else {
        throw MercurialError("give a decimal number, e.g. 16 or 0.5" + (Double(text) == nil ? "" : ", not a hexadecimal one"))
    }
    return value
}

/// A flag's value, turned into the value its row takes.
protocol ParameterFlagValue {
    func parameterValue(for row: Parameter) throws(MercurialError) -> ParameterValue
}

extension Double: ParameterFlagValue {
    func parameterValue(for row: Parameter) throws(MercurialError) -> ParameterValue { .number(self) }
}

extension Int: ParameterFlagValue {
    func parameterValue(for row: Parameter) throws(MercurialError) -> ParameterValue { .integer(self) }
}

extension Bool: ParameterFlagValue {
    func parameterValue(for row: Parameter) throws(MercurialError) -> ParameterValue { .bool(self) }
}

/// Text (a colour, a path) is read as the row reads `--set`, with the flag named in errors.
extension String: ParameterFlagValue {
    func parameterValue(for row: Parameter) throws(MercurialError) -> ParameterValue {
        try row.parse(self, culprit: "\(row.flagName) '\(self)'")
    }
}

/// An option's value that is one of an enumeration's raw values.
protocol ChoiceArgument: ExpressibleByArgument, CaseIterable, RawRepresentable where RawValue == String {}

extension ChoiceArgument {
    // ArgumentParser's defaults for these two go through a key path made at run time, and it
    // asks for them each time it makes the options (a tenth of a small title's parsing).
    public static var allValueStrings: [String] { allCases.map { $0.rawValue } }
    public static var allValueDescriptions: [String: String] { [:] }
}

/// The table's enumerations, as swift-argument-parser takes them.
protocol ChoiceFlag: ParameterFlagValue, ChoiceArgument {}

extension ChoiceFlag {
    func parameterValue(for row: Parameter) throws(MercurialError) -> ParameterValue { .choice(rawValue) }
}

extension TextLayout.Alignment: ExpressibleByArgument, ChoiceFlag {}
extension LoftProfile: ExpressibleByArgument, ChoiceFlag {}
extension BevelDirection: ExpressibleByArgument, ChoiceFlag {}
extension Anchor: ExpressibleByArgument, ChoiceFlag {}
extension PNGFile.Compression: ChoiceArgument {}

/// Whether `wrapper` (an options property as reflection sees it) is a parameter's flag, and
/// then its value, nil when not given. Each kind of flag is named: a cast to a protocol had the
/// Swift runtime scan every conformance in the binary for each kind (a twentieth of a small
/// title's time). `ParameterFlagTests` holds every row with a flag to a property found here.
func flagValue(of wrapper: Any) -> (any ParameterFlagValue)?? {
    switch wrapper {
    case let flag as Option<Double?>: .some(flag.wrappedValue)
    case let flag as Option<Int?>: .some(flag.wrappedValue)
    case let flag as Option<String?>: .some(flag.wrappedValue)
    case let flag as Flag<Bool?>: .some(flag.wrappedValue)
    case let flag as Option<TextLayout.Alignment?>: .some(flag.wrappedValue)
    case let flag as Option<LoftProfile?>: .some(flag.wrappedValue)
    case let flag as Option<BevelDirection?>: .some(flag.wrappedValue)
    case let flag as Option<Anchor?>: .some(flag.wrappedValue)
    default: nil
    }
}

/// The parameter flags `arguments` declares: each property named as a row's key, with its value if given.
func parameterFlags(of arguments: any ParsableArguments) -> [(key: String, value: (any ParameterFlagValue)?)] {
    let keys = Set(ParameterGroup.allParameters.map(\.key))
    return Mirror(reflecting: arguments).children.compactMap { child in
        guard let label = child.label, label.hasPrefix("_"), keys.contains(String(label.dropFirst())),
              let value = flagValue(of: child.value) else { return nil }
        return (String(label.dropFirst()), value)
    }
}

/// Sets the row of every parameter flag given in `arguments`, in declaration order.
func applyParameterFlags(of arguments: any ParsableArguments, to settings: inout RenderSettings) throws {
    for (key, value) in parameterFlags(of: arguments) {
        guard let value else { continue }
        let row = try ParameterGroup.parameter(forKey: key)
        try settings.set(row, to: try value.parameterValue(for: row))
    }
    // Flags of the scene's nested keys: a text option named as the key, read as `--set KEY=VALUE`
    // reads it; "x,y" is the point [x, y]. (The keys as a set: finding each label among the
    // blocks' fields, closures and all, cost a small title 0.6 M instructions.)
    let blockKeys = Set(SceneSchema.blocks.keys)
    for child in Mirror(reflecting: arguments).children {
        guard let label = child.label, label.hasPrefix("_"), blockKeys.contains(String(label.dropFirst())),
              let option = child.value as? Option<String?>, let text = option.wrappedValue else { continue }
        let trimmed = text.trimmingWhitespace()
        let json = trimmed.contains(",") && !trimmed.hasPrefix("[") ? "[\(trimmed)]" : trimmed
        try SceneSchema.assign(String(label.dropFirst()), text: json, to: &settings)
    }
}
