/// The parameter table for programs (`mercurial params --json`, which a browser
/// editor builds its controls from) and for docs/parameters.md (`--markdown`, spliced in by
/// `scripts/readme-parameters.sh`).
extension ParameterGroup {
    /// Every key as JSON, the same fields in every row, top-level or nested: key, group, name, kind,
    /// range (`[low, high]` or null), cases (or null), rangeText, unset word (or null), default, the
    /// value in `settings`, help, CLI flag (or null), whether `--set` and the editor change it, and
    /// whether it is a nested block's (listed under "nested"). The parameters first, in table order.
    public static func json(values settings: RenderSettings = RenderSettings()) -> String {
        let rows = allParameters.map { p -> JSONValue in
            jsonRow(key: p.key, group: p.group, name: p.name, kind: p.kind.name, range: p.kind.range, cases: p.kind.cases,
                    rangeText: p.rangeDescription, unset: p.unset, defaultValue: JSONValue(p.defaultValue),
                    value: JSONValue(p.value(in: settings)), help: p.help, flag: p.flag.map { _ in p.flagName },
                    editable: true, nested: false)
        }
        let blocks = SceneSchema.blocks.write(settings)
        let nested = SceneSchema.rows.map { row -> JSONValue in
            jsonRow(key: row.path, group: row.block, name: row.name, kind: row.kind, range: row.range, cases: row.cases,
                    rangeText: row.rangeDescription, unset: nil, defaultValue: row.defaultValue,
                    value: SchemaPathStep.parse(row.path).flatMap { blocks.at($0[...]) } ?? .null, help: row.help, flag: nil,
                    editable: SceneSchema.isNested(row.path), nested: true)
        }
        return JSONValue.members([("parameters", .list(rows)), ("nested", .list(nested))]).text(lines: 2)
    }

    /// One row of `params --json`: every row has these fields, in this order (null where a key has none).
    private static func jsonRow(key: String, group: String, name: String, kind: String, range: ClosedRange<Double>?,
                                cases: [String]?, rangeText: String, unset: String?, defaultValue: JSONValue,
                                value: JSONValue, help: String, flag: String?, editable: Bool, nested: Bool) -> JSONValue {
        .members([("key", .string(key)), ("group", .string(group)), ("name", .string(name)), ("kind", .string(kind)),
                  ("range", range.map { .list([.number($0.lowerBound), .number($0.upperBound)]) } ?? .null),
                  ("cases", cases.map { .list($0.map(JSONValue.string)) } ?? .null),
                  ("rangeText", .string(rangeText)), ("unset", unset.map(JSONValue.string) ?? .null),
                  ("default", defaultValue), ("value", value), ("help", .string(help)),
                  ("flag", flag.map(JSONValue.string) ?? .null), ("editable", .bool(editable)), ("nested", .bool(nested))])
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
        let settable = SceneSchema.blocks.keys.map { "`\($0)`" }
        var lines = ["Nested blocks of a scene file (`[]`: each element of a list). The keys in \(orList(settable)) can also be set with `--set PATH=VALUE` and in the editor:", "",
                     "| key | kind | range / values | default | meaning |", "| --- | --- | --- | --- | --- |"]
        for row in SceneSchema.rows {
            lines.append(markdownRow(["`\(row.path)`", row.kind, row.rangeDescription, row.defaultValue.text(), row.help]))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func markdownRow(_ cells: [String]) -> String {
        "| " + cells.map { $0.replacing("|", with: "\\|") }.joined(separator: " | ") + " |"
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
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(cFormat: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
