/// The parameter table for programs (`mercurial params --json`, which a browser
/// editor builds its controls from) and for docs/parameters.md (`--markdown`, spliced in by
/// `scripts/readme-parameters.sh`).
extension ParameterGroup {
    /// Every parameter as JSON: key, group, name, kind, range or cases, unset word,
    /// default, the value in `settings`, help and CLI flag, in table order.
    public static func json(values settings: RenderSettings = RenderSettings()) -> String {
        let rows = allParameters.map { p -> JSONValue in
            var fields: [(String, JSONValue)] = [("key", .string(p.key)), ("group", .string(p.group)), ("name", .string(p.name)),
                                                 ("kind", .string(p.kind.name))]
            switch p.kind {
            case .number(let range): fields.append(("range", .list([.number(range.lowerBound), .number(range.upperBound)])))
            case .integer(let range): fields.append(("range", .list([.number(Double(range.lowerBound)), .number(Double(range.upperBound))])))
            case .choice(let cases): fields.append(("cases", .list(cases.map(JSONValue.string))))
            default: break
            }
            if let unset = p.unset { fields.append(("unset", .string(unset))) }
            fields += [("default", JSONValue(p.defaultValue)), ("value", JSONValue(p.value(in: settings))),
                       ("help", .string(p.help)), ("flag", p.flag == nil ? .null : .string(p.flagName))]
            return .members(fields)
        }
        let nested = SceneSchema.rows.map { row -> JSONValue in
            var fields: [(String, JSONValue)] = [("key", .string(row.path)), ("group", .string(row.block)),
                                                 ("name", .string(row.name)), ("kind", .string(row.kind))]
            if let range = row.range { fields.append(("range", .list([.number(range.lowerBound), .number(range.upperBound)]))) }
            if let cases = row.cases { fields.append(("cases", .list(cases.map(JSONValue.string)))) }
            fields += [("rangeText", .string(row.rangeDescription)), ("editable", .bool(SceneSchema.isNested(row.path))),
                       ("default", row.defaultValue),
                       ("value", SceneSchema.value(at: row.path, in: settings) ?? .null), ("help", .string(row.help))]
            return .members(fields)
        }
        return JSONValue.members([("parameters", .list(rows)), ("nested", .list(nested))]).text(lines: 2)
    }

    /// Both generated tables of docs/parameters.md: the top-level parameters and the nested keys.
    public static var markdown: String { markdownTopLevel + "\n" + markdownNested }

    /// docs/parameters.md's first table: one row per parameter, with its flag, range, default and meaning.
    public static var markdownTopLevel: String {
        var lines = ["| group | key | flag | range / values | default | meaning |", "| --- | --- | --- | --- | --- | --- |"]
        for p in allParameters {
            let flag: String
            switch (p.flag, p.kind) {
            case (nil, _): flag = ""
            case (_, .bool): flag = "`\(p.flagName)`, `--no-\(p.flagName.dropFirst(2))`"
            default: flag = "`\(p.flagName)`"
            }
            lines.append(markdownRow([p.group, "`\(p.key)`", flag, p.rangeDescription, p.format(p.defaultValue), p.help]))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// docs/parameters.md's table: one row per key of a nested block, by its path.
    public static var markdownNested: String {
        let settable = SceneSchema.settings.keys.map { "`\($0)`" }
        var lines = ["Nested blocks of a scene file (`[]`: each element of a list). The keys in \(orList(settable)) can also be set with `--set PATH=VALUE` and in the editor:", "",
                     "| key | kind | range / values | default | meaning |", "| --- | --- | --- | --- | --- |"]
        for row in SceneSchema.rows {
            lines.append(markdownRow(["`\(row.path)`", row.kind, row.rangeDescription, row.defaultValue.text(), row.help]))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func markdownRow(_ cells: [String]) -> String {
        "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
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
