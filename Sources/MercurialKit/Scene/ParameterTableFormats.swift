/// The parameter table for programs (`mercurial params --json`, which a browser
/// editor builds its controls from) and for the README (`--markdown`, spliced in by
/// `scripts/readme-parameters.sh`).
extension ParameterGroup {
    /// Every parameter as JSON: key, group, name, kind, range or cases, unset word,
    /// default, the value in `settings`, help and CLI flag, in table order.
    public static func json(values settings: RenderSettings = RenderSettings()) -> String {
        let rows = allParameters.map { p -> String in
            var fields: [(String, String)] = [
                ("key", jsonString(p.key)), ("group", jsonString(p.group)), ("name", jsonString(p.name)),
                ("kind", jsonString(p.kind.name)),
            ]
            switch p.kind {
            case .number(let range):
                fields.append(("range", "[\(formatNumber(range.lowerBound)), \(formatNumber(range.upperBound))]"))
            case .integer(let range):
                fields.append(("range", "[\(range.lowerBound), \(range.upperBound)]"))
            case .choice(let cases):
                fields.append(("cases", "[" + cases.map(jsonString).joined(separator: ", ") + "]"))
            default:
                break
            }
            if let unset = p.unset { fields.append(("unset", jsonString(unset))) }
            fields += [
                ("default", jsonValue(p.defaultValue)), ("value", jsonValue(p.value(in: settings))),
                ("help", jsonString(p.help)), ("flag", p.flag == nil ? "null" : jsonString(p.flagName)),
            ]
            return "    {" + fields.map { "\(jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
        }
        return "{\n  \"parameters\": [\n" + rows.joined(separator: ",\n") + "\n  ]\n}"
    }

    /// The README's table: one row per parameter, with its flag, range, default and meaning.
    public static var markdown: String {
        var lines = ["| group | key | flag | range / values | default | meaning |", "| --- | --- | --- | --- | --- | --- |"]
        for p in allParameters {
            let flag: String
            switch (p.flag, p.kind) {
            case (nil, _): flag = ""
            case (_, .bool): flag = "`\(p.flagName)`, `--no-\(p.flagName.dropFirst(2))`"
            default: flag = "`\(p.flagName)`"
            }
            let cells = [p.group, "`\(p.key)`", flag, p.rangeDescription, p.format(p.defaultValue), p.help]
            lines.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func jsonValue(_ value: ParameterValue) -> String {
        switch value {
        case .number(let v): return formatNumber(v)
        case .integer(let v): return String(v)
        case .bool(let on): return on ? "true" : "false"
        case .unset: return "null"
        case .choice, .color, .text: return jsonString(value.description)
        }
    }

    /// `s` as a JSON string literal (also used for the recipe each title carries).
    static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
