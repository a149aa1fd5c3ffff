import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The rows of a batch: a CSV file whose header row names parameter keys (`text`
/// among them) and any other columns (a `slug` for `--name`), or a JSON Lines file
/// whose every line is a scene object. Each row overrides a base scene; each is
/// numbered by the line it starts on, for errors. The file is read as a stream:
/// `init` reads it once to check its shape and count its rows, keeping only the
/// header, and `rows()` reads it again a row at a time, so that memory does not
/// grow with the number of rows. A UTF-8 byte-order mark at the start is skipped.
public struct BatchFile: Sendable {
    public struct Row: Sendable {
        /// 1-based: the row's place among the rows.
        public var index: Int
        /// The file's line the row starts on.
        public var line: Int
        public var kind: Kind
    }

    public enum Kind: Sendable {
        /// CSV: a value a column; an empty cell keeps the base scene's value.
        case fields([String])
        /// JSON Lines: one scene object.
        case scene([UInt8])
        /// A row that cannot be used (the wrong number of fields, invalid UTF-8): why.
        case refused(String)
    }

    public enum Format: Sendable { case csv, jsonLines }

    /// A CSV column: a parameter, or another column (`problem` is why it is not a
    /// parameter), which only `--name` templates use.
    public struct Column: Sendable {
        public var name: String
        public var problem: String?
        /// A column that is not a parameter but is a letter or two from one's name: likely a typo.
        public var nearParameter = false
        public var isParameter: Bool { problem == nil }
    }

    public let path: String
    public let format: Format
    /// CSV: the header's columns.
    public let columns: [Column]
    /// Whether a row's text is read as inline markup (styled runs, `TextRuns.markup`), as `--markup` asks.
    public var markup = false
    /// CSV: the line of the header row.
    public let headerLine: Int
    public let rowCount: Int

    /// At most this many rows.
    public static let maximumRows = 1_000_000
    /// A row at most this long, as a scene file.
    public static let maximumRowBytes = 16 * 1024 * 1024

    public init(path: String) throws(MercurialError) {
        self.path = path
        let lower = path.lowercased()
        if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") {
            format = .jsonLines
        } else if lower.hasSuffix(".csv") {
            format = .csv
        } else {
            throw MercurialError("batch file '\(UserPath(checked: path))' is neither .csv nor .jsonl; give a CSV with a header row of parameter keys, or JSON Lines of scene objects")
        }
        let records = try Records(path: path, format: format)
        var columns: [Column] = []
        var headerLine = 1
        if format == .csv {
            guard let header = try records.next(collect: true) else {
                throw MercurialError("batch file '\(UserPath(checked: path))' is empty; give a header row of parameter keys and a row per title")
            }
            headerLine = header.line
            for field in header.fields {
                guard let name = String(validating: field, as: UTF8.self) else {
                    throw MercurialError("\(UserPath(checked: path)):\(header.line): the header is not valid UTF-8; save the file as UTF-8")
                }
                let key = name.trimmingWhitespace()
                do {
                    // A parameter, or a key of the scene's blocks (`emoji`, `features`, `textPath.radius`), as --set takes them.
                    let own = Self.layerColumn(key)?.key ?? key
                    if !SceneSchema.isNested(own) { _ = try ParameterGroup.parameter(forKey: own) }
                    columns.append(Column(name: key))
                } catch {
                    let near = closestMatch(to: Self.layerColumn(key)?.key ?? key, in: ParameterGroup.allParameters.map(\.key)) != nil
                    columns.append(Column(name: key, problem: error.message, nearParameter: near))
                }
            }
        }
        self.columns = columns
        self.headerLine = headerLine
        var count = 0
        while try records.next(collect: false) != nil {
            count += 1
            guard count <= Self.maximumRows else {
                throw MercurialError.limit("batch file '\(UserPath(checked: path))' has over \(Self.maximumRows) rows, the limit; split it (or use --shard)")
            }
        }
        rowCount = count
    }

    /// The rows, read from the file one at a time.
    public func rows() throws(MercurialError) -> Rows {
        let records = try Records(path: path, format: format)
        if format == .csv { _ = try records.next(collect: false) }
        return Rows(file: self, records: records)
    }

    /// The rows of a batch file, read as they are asked for.
    public final class Rows {
        private let file: BatchFile
        private let records: Records
        private var index = 0

        init(file: BatchFile, records: Records) {
            self.file = file
            self.records = records
        }

        /// The index the next row will have.
        public var nextIndex: Int { index + 1 }

        /// Passes over the next row without making its fields (a row of another shard);
        /// false at the end.
        public func skip() throws(MercurialError) -> Bool {
            guard try records.next(collect: false) != nil else { return false }
            index += 1
            return true
        }

        public func next() throws(MercurialError) -> Row? {
            guard let record = try records.next(collect: true) else { return nil }
            index += 1
            guard file.format == .csv else {
                return Row(index: index, line: record.line, kind: .scene(record.fields[0]))
            }
            let expected = file.columns.count
            guard record.fields.count == expected else {
                let count = record.fields.count
                return Row(index: index, line: record.line, kind: .refused(
                    "\(count) field\(count == 1 ? "" : "s"), but the header has \(expected); quote fields that hold commas"))
            }
            var values: [String] = []
            values.reserveCapacity(expected)
            for (n, field) in record.fields.enumerated() {
                guard let value = String(validating: field, as: UTF8.self) else {
                    return Row(index: index, line: record.line, kind: .refused(
                        "field \(n + 1) ('\(file.columns[n].name.escapedForTerminal)') is not valid UTF-8; save the file as UTF-8"))
                }
                values.append(value)
            }
            return Row(index: index, line: record.line, kind: .fields(values))
        }
    }

    /// `base` with the row applied.
    public func settings(for row: Row, base: RenderSettings) throws(MercurialError) -> RenderSettings {
        var settings = base
        switch row.kind {
        case .fields(let values):
            for (column, value) in zip(columns, values) where column.isParameter && !value.isEmpty {
                // As --set does: a scene's key at the top level and in every layer, a layer's in that layer.
                let path = try ScenePath(column.name)
                if let layer = path.layer, layer >= settings.layers.count {
                    throw MercurialError(Self.missingLayer(column.name, layer, settings.layers.count))
                }
                try settings.set(path, text: value)
            }
        case .scene(let bytes):
            try SceneFile.load(json: bytes, name: path, into: &settings)
        case .refused(let why):
            throw MercurialError(why)
        }
        if markup, settings.runs.isEmpty, let text = settings.text { try settings.setMarkup(text) }
        return settings
    }

    /// The row's values of the columns that are not parameters, by column name.
    public func otherColumns(of row: Row) -> [String: String] {
        guard case .fields(let values) = row.kind else { return [:] }
        var out: [String: String] = [:]
        for (column, value) in zip(columns, values) where !column.isParameter { out[column.name] = value }
        return out
    }

    /// The output name for a row from a template such as `{row}-{text}`: `{row}` is
    /// the row's number (zero-padded to the count's width), `{KEY}` a column that is
    /// not a parameter (`other`) or any parameter's value. The name is made safe for file systems (no `/`, no control characters,
    /// no leading dot, at most 200 bytes) and ends in `.png` (or `.EXTENSION`: the template's
    /// own, `StillFormat.forTemplate`).
    public static func name(_ template: String, row: Int, rows: Int, settings: RenderSettings,
                            other: [String: String] = [:], extension ext: String = "png") -> String {
        let out = expand(template) { key in
            if key == "row" {
                let width = String(rows).count
                return String(repeating: "0", count: max(0, width - String(row).count)) + String(row)
            } else if let value = other[key] {
                return value
            } else if let layer = layerColumn(key), let p = try? ParameterGroup.parameter(forKey: layer.key) {
                guard layer.index < settings.layers.count else { return "" }
                let value = p.value(in: settings.layers[layer.index].settings)
                return value == .unset ? "" : p.format(value)
            } else if let p = try? ParameterGroup.parameter(forKey: key) {
                let value = p.value(in: settings)
                return value == .unset ? "" : p.format(value)
            } else if SceneSchema.isNested(key) {
                // A block's key (`emoji`, `textPath.radius`): its value as the scene writes it, a string unquoted.
                switch SceneSchema.value(at: key, in: settings) {
                case .string(let s)?: return s
                case let value?: return value.text()
                case nil: return ""
                }
            }
            return nil
        }
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
        if safe.lowercased().hasSuffix("." + ext) { safe.removeLast(ext.count + 1) }
        while safe.utf8.count > 200 { safe.removeLast() }
        if safe.isEmpty { safe = "title-\(row)" }
        return safe + "." + ext
    }

    /// `layers[N].KEY`: the layer's index and the key (nil for any other column).
    static func layerColumn(_ name: String) -> (index: Int, key: String)? { ScenePath.layerKey(name) }

    /// Refuses, before any row, a `layers[N].KEY` column for a layer the scene lacks
    /// (whatever N: a column past the 16 a scene may have was ignored with a warning).
    public func checkLayerColumns(layers: Int) throws(MercurialError) {
        for column in columns where column.isParameter {
            guard let layer = Self.layerColumn(column.name), layer.index >= layers else { continue }
            throw MercurialError("\(UserPath(checked: path)):\(headerLine): " + Self.missingLayer(column.name, layer.index, layers))
        }
    }

    static func missingLayer(_ column: String, _ index: Int, _ layers: Int) -> String {
        "column '\(column.escapedForTerminal)' names layer \(index), but the scene has "
            + (layers == 0 ? "no \"layers\"" : "\(layers) (layers[0] to layers[\(layers - 1)])") + "; remove the column or give the scene that layer"
    }

    /// The keys a template names in braces.
    public static func keys(of template: String) -> Set<String> {
        var keys: Set<String> = []
        _ = expand(template) { keys.insert($0); return nil }
        return keys
    }

    /// `template` with each `{KEY}` replaced by `value(KEY)`, or kept as it is where that is nil.
    private static func expand(_ template: String, _ value: (String) -> String?) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            out += value(String(rest[rest.index(after: open)..<close])) ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}

/// The records of a batch file, read through a 64 KB buffer: CSV records (RFC 4180:
/// fields separated by commas, quoted with " (doubled inside), which may span lines)
/// or the non-blank lines of JSON Lines. Parsed here rather than with a CSV package
/// because each row's error must name the line it starts on, which those do not track.
final class Records {
    private let path: String
    private let format: BatchFile.Format
    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var position = 0, end = 0, started = false
    private var line = 1

    init(path: String, format: BatchFile.Format) throws(MercurialError) {
        self.path = path
        self.format = format
        fd = try InputFile.open(path, role: "batch file").fd
    }

    deinit { close(fd) }

    private func byte() throws(MercurialError) -> UInt8? {
        if position == end {
            let result = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(MercurialError) in try InputFile.read(fd, into: raw, path: path, role: "batch file") }
            }
            end = try result.get()
            position = 0
            if !started {
                started = true
                // Excel's "CSV UTF-8" starts with a byte-order mark.
                if end >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF { position = 3 }
            }
            if position == end { return nil }
        }
        defer { position += 1 }
        return buffer[position]
    }

    private func tooLong(_ line: Int) -> MercurialError {
        MercurialError.limit("\(UserPath(checked: path)):\(line): the row is over \(BatchFile.maximumRowBytes / 1_048_576) MB; is a quote left open?")
    }

    /// The next record (blank ones skipped): the line it starts on and its fields
    /// (JSON Lines: one, the line); with `collect` false, the fields are left empty.
    func next(collect: Bool) throws(MercurialError) -> (line: Int, fields: [[UInt8]])? {
        format == .csv ? try nextCSV(collect: collect) : try nextLine(collect: collect)
    }

    private func nextLine(collect: Bool) throws(MercurialError) -> (line: Int, fields: [[UInt8]])? {
        var text: [UInt8] = []
        var size = 0, blank = true
        while true {
            let b = try byte()
            if b == nil || b == 0x0A {
                let start = line
                line += 1
                if !blank { return (start, collect ? [text] : []) }
                if b == nil { return nil }
                text.removeAll(keepingCapacity: true)
                size = 0
                continue
            }
            let c = b!
            size += 1
            guard size <= BatchFile.maximumRowBytes else { throw tooLong(line) }
            if c != 0x20 && c != 0x09 && c != 0x0D { blank = false }
            if collect { text.append(c) }
        }
    }

    private func nextCSV(collect: Bool) throws(MercurialError) -> (line: Int, fields: [[UInt8]])? {
        var fields: [[UInt8]] = [], field: [UInt8] = []
        var fieldCount = 0, fieldLength = 0, size = 0
        var quoted = false, blank = true
        var recordLine = line
        func endField() {
            if collect { fields.append(field) }
            field.removeAll(keepingCapacity: true)
            fieldCount += 1
            fieldLength = 0
        }
        while true {
            guard let b = try byte() else {
                if quoted {
                    throw MercurialError("\(UserPath(checked: path)):\(recordLine): a quoted field is never closed; add the closing \"")
                }
                if fieldLength == 0 && fieldCount == 0 { return nil }
                endField()
                return fieldCount == 1 && blank ? nil : (recordLine, fields)
            }
            size += 1
            guard size <= BatchFile.maximumRowBytes else { throw tooLong(recordLine) }
            if quoted {
                if b == 0x22 {
                    guard let next = try byte() else { quoted = false; continue }
                    if next == 0x22 {
                        if collect { field.append(0x22) }
                        fieldLength += 1
                        blank = false
                        continue
                    }
                    quoted = false
                    position -= 1
                } else {
                    if b == 0x0A { line += 1 }
                    if collect { field.append(b) }
                    fieldLength += 1
                    if b != 0x20 && b != 0x09 { blank = false }
                }
                continue
            }
            switch b {
            case 0x22 where fieldLength == 0: quoted = true
            case 0x2C:
                endField()
                blank = false
            case 0x0A:
                line += 1
                endField()
                if !(fieldCount == 1 && blank) { return (recordLine, fields) }
                fields.removeAll(keepingCapacity: true)
                fieldCount = 0
                size = 0
                recordLine = line
            case 0x0D: break
            default:
                if collect { field.append(b) }
                fieldLength += 1
                if b != 0x20 && b != 0x09 { blank = false }
            }
        }
    }
}
