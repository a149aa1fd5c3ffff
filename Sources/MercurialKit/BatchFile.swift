import Foundation

/// The rows of a batch: a CSV file whose header row names parameter keys (`text`
/// among them), or a JSON Lines file whose every line is a scene object. Each row
/// overrides a base scene; each is numbered by the line it starts on, for errors.
public struct BatchFile: Sendable {
    public struct Row: Sendable {
        /// 1-based: the row's place among the rows.
        public var index: Int
        /// The file's line the row starts on.
        public var line: Int
        public var kind: Kind
    }

    public enum Kind: Sendable {
        /// CSV: (key, value) pairs; an empty cell keeps the base scene's value.
        case assignments([(key: String, value: String)])
        /// JSON Lines: one scene object.
        case scene([UInt8])
    }

    public var path: String
    public var rows: [Row]

    /// At most this many rows.
    public static let maximumRows = 1_000_000

    public init(path: String) throws(MercurialError) {
        self.path = path
        let bytes = try PNGFile.readFile(path, role: "batch file", limit: 256 * 1024 * 1024)
        if path.lowercased().hasSuffix(".jsonl") || path.lowercased().hasSuffix(".ndjson") {
            rows = Self.jsonLines(bytes)
        } else if path.lowercased().hasSuffix(".csv") {
            rows = try Self.csv(bytes, path: path)
        } else {
            throw MercurialError("batch file '\(UserPath(checked: path))' is neither .csv nor .jsonl; give a CSV with a header row of parameter keys, or JSON Lines of scene objects")
        }
        guard rows.count <= Self.maximumRows else {
            throw MercurialError("batch file '\(UserPath(checked: path))' has \(rows.count) rows, over the limit of \(Self.maximumRows); split it (or use --shard)")
        }
    }

    private static func jsonLines(_ bytes: [UInt8]) -> [Row] {
        var rows: [Row] = []
        var line = 1, start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0A {
            let text = bytes[start..<i]
            if text.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) {
                rows.append(Row(index: rows.count + 1, line: line, kind: .scene(Array(text))))
            }
            line += 1
            start = i + 1
        }
        return rows
    }

    /// RFC 4180 CSV: fields separated by commas, quoted with " (doubled inside), which
    /// may span lines. Parsed here rather than with a CSV package because each row's
    /// error must name the line it starts on, which those do not track.
    private static func csv(_ bytes: [UInt8], path: String) throws(MercurialError) -> [Row] {
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = [], field: [UInt8] = []
        var quoted = false, line = 1, recordLine = 1, i = 0
        func endField() { fields.append(String(decoding: field, as: UTF8.self)); field.removeAll(keepingCapacity: true) }
        func endRecord() {
            endField()
            if !(fields.count == 1 && fields[0].trimmingCharacters(in: .whitespaces).isEmpty) {
                records.append((recordLine, fields))
            }
            fields.removeAll()
        }
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == 0x22 {
                    if i + 1 < bytes.count && bytes[i + 1] == 0x22 { field.append(0x22); i += 1 } else { quoted = false }
                } else {
                    if b == 0x0A { line += 1 }
                    field.append(b)
                }
            } else {
                switch b {
                case 0x22 where field.isEmpty: quoted = true
                case 0x2C: endField()
                case 0x0A:
                    endRecord()
                    line += 1
                    recordLine = line
                case 0x0D: break
                default: field.append(b)
                }
            }
            i += 1
        }
        if quoted {
            throw MercurialError("\(UserPath(checked: path)):\(recordLine): a quoted field is never closed; add the closing \"")
        }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        guard let header = records.first else {
            throw MercurialError("batch file '\(UserPath(checked: path))' is empty; give a header row of parameter keys and a row per title")
        }
        let keys = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        for key in keys {
            do {
                _ = try ParameterGroup.parameter(forKey: key)
            } catch {
                throw MercurialError("\(UserPath(checked: path)):\(header.line): column \(error.message)")
            }
        }
        return try records.dropFirst().enumerated().map { (n, record) throws(MercurialError) -> Row in
            guard record.fields.count == keys.count else {
                throw MercurialError("\(UserPath(checked: path)):\(record.line): \(record.fields.count) fields, but the header has \(keys.count); quote fields that hold commas")
            }
            return Row(index: n + 1, line: record.line, kind: .assignments(Array(zip(keys, record.fields))))
        }
    }

    /// `base` with the row applied.
    public func settings(for row: Row, base: RenderSettings) throws(MercurialError) -> RenderSettings {
        var settings = base
        switch row.kind {
        case .assignments(let pairs):
            for (key, value) in pairs where !value.isEmpty {
                let parameter = try ParameterGroup.parameter(forKey: key)
                let parsed: ParameterValue
                if case .text = parameter.kind { parsed = .text(value) } else { parsed = try parameter.parse(value) }
                try settings.set(parameter, to: parsed)
            }
        case .scene(let bytes):
            try SceneFile.load(json: bytes, name: path, into: &settings)
        }
        return settings
    }

    /// The output name for a row from a template such as `{row}-{text}`: `{row}` is
    /// the row's number (zero-padded to the count's width), `{KEY}` any parameter's
    /// value. The name is made safe for file systems (no `/`, no control characters,
    /// no leading dot, at most 200 bytes) and ends in `.png`.
    public static func name(_ template: String, row: Int, rows: Int, settings: RenderSettings) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let key = String(rest[rest.index(after: open)..<close])
            if key == "row" {
                let width = String(rows).count
                out += String(repeating: "0", count: max(0, width - String(row).count)) + String(row)
            } else if let p = try? ParameterGroup.parameter(forKey: key) {
                let value = p.value(in: settings)
                out += value == .unset ? "" : p.format(value)
            } else {
                out += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        var safe = ""
        for scalar in out.unicodeScalars {
            if scalar == "/" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F || scalar == ":" {
                safe += "_"
            } else if scalar.properties.isWhitespace {
                safe += "-"
            } else {
                safe.unicodeScalars.append(scalar)
            }
        }
        while safe.hasPrefix(".") || safe.hasPrefix("-") { safe.removeFirst() }
        if safe.lowercased().hasSuffix(".png") { safe.removeLast(4) }
        while safe.utf8.count > 200 { safe.removeLast() }
        if safe.isEmpty { safe = "title-\(row)" }
        return safe + ".png"
    }
}
