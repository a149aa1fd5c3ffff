// A small, strict JSON (RFC 8259) parser that records source positions.
//
// Scene files need error messages of the form `file:line:column: reason`, and
// they need the position of every key so that semantic errors ("unknown key",
// "expected a number") can point at the right place. Foundation's
// JSONSerialization gives neither positions nor duplicate-key detection, so
// this file implements the grammar directly.
//
// Design notes:
// * The parser is iterative (an explicit stack of open containers), so deep
//   nesting can never overflow the machine stack; depth is additionally
//   limited to `JSONDocument.maximumDepth`.
// * It works on an `UnsafeBufferPointer` over the input and accumulates
//   string contents as bytes, decoding each string once, so large inputs
//   parse in linear time.
// * Columns count Unicode scalars (a multi-byte UTF-8 sequence is one
//   column), starting at 1. A leading byte-order mark is skipped and does
//   not count as a column.

import FoundationEssentials

/// A 1-based position in a source file. `column` counts Unicode scalars.
public struct SourcePosition: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) { (self.line, self.column) = (line, column) }

    /// `"line:column"`.
    public var description: String { "\(line):\(column)" }
}

/// A JSON value together with the position of its first character.
public struct JSONNode: Sendable {
    public var value: JSONValue
    public var location: SourcePosition

    public init(value: JSONValue, location: SourcePosition) { (self.value, self.location) = (value, location) }
}

public enum JSONValue: Sendable {
    /// Members in source order. Keys are unique (the parser rejects duplicates).
    case object([JSONMember])
    case array([JSONNode])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// A phrase naming the kind of value, for messages such as
    /// "expected a number but found a string".
    public var typeName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// One `"key": value` pair of an object.
public struct JSONMember: Sendable {
    public var key: String
    /// Position of the opening quote of the key.
    public var keyLocation: SourcePosition
    public var value: JSONNode

    public init(key: String, keyLocation: SourcePosition, value: JSONNode) {
        (self.key, self.keyLocation, self.value) = (key, keyLocation, value)
    }
}

/// A syntax error, located at the offending character.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public var location: SourcePosition
    public var reason: String

    public init(location: SourcePosition, reason: String) { (self.location, self.reason) = (location, reason) }
}

public enum JSONDocument {
    /// The maximum number of nested arrays/objects.
    public static let maximumDepth = 256

    /// Parses one JSON value (optionally preceded by a UTF-8 BOM and
    /// surrounded by whitespace) from UTF-8 bytes.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        let result: Result<JSONNode, JSONSyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONDocumentParser(buffer)
            do throws(JSONSyntaxError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

// MARK: - Implementation

private enum JSONByte {
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22          // "
    static let apostrophe: UInt8 = 0x27     // '
    static let plus: UInt8 = 0x2B           // +
    static let comma: UInt8 = 0x2C          // ,
    static let minus: UInt8 = 0x2D          // -
    static let dot: UInt8 = 0x2E            // .
    static let slash: UInt8 = 0x2F          // /
    static let zero: UInt8 = 0x30
    static let nine: UInt8 = 0x39
    static let colon: UInt8 = 0x3A          // :
    static let openBracket: UInt8 = 0x5B    // [
    static let backslash: UInt8 = 0x5C      // \
    static let closeBracket: UInt8 = 0x5D   // ]
    static let openBrace: UInt8 = 0x7B      // {
    static let closeBrace: UInt8 = 0x7D     // }
}

/// An array or object that has been opened but not yet closed.
private struct JSONOpenContainer {
    var isObject: Bool
    var location: SourcePosition
    var elements: [JSONNode] = []
    var members: [JSONMember] = []
    /// Key positions for duplicate detection; built lazily once an object
    /// has more than `linearSearchLimit` members.
    var keyIndex: [String: SourcePosition]? = nil
    var pendingKey: String = ""
    var pendingKeyLocation = SourcePosition(line: 0, column: 0)

    static let linearSearchLimit = 8

    init(isObject: Bool, location: SourcePosition) {
        self.isObject = isObject
        self.location = location
    }
}

private struct JSONDocumentParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let end: Int
    /// Offset of the first byte after the BOM (0 or 3).
    var contentStart = 0
    var index = 0
    var line = 1
    var lineStart = 0
    // Column cache: the column of `cachePosition` on the line starting at
    // `cacheLineStart`. Locations are requested in increasing order, so
    // counting from the cache keeps column computation linear overall.
    var cacheLineStart = -1
    var cachePosition = 0
    var cacheColumn = 1

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.end = bytes.count
    }

    // MARK: Positions

    mutating func location(at position: Int) -> SourcePosition {
        guard position >= lineStart else { return locationFromStart(position) }
        if cacheLineStart != lineStart || position < cachePosition {
            cacheLineStart = lineStart
            cachePosition = lineStart
            cacheColumn = 1
        }
        var column = cacheColumn
        var p = cachePosition
        let limit = min(position, end)
        while p < limit {
            if bytes[p] & 0xC0 != 0x80 { column += 1 }
            p += 1
        }
        cachePosition = limit
        cacheColumn = column
        return SourcePosition(line: line, column: column)
    }

    /// Slow path for positions before the current line (only used for errors).
    func locationFromStart(_ position: Int) -> SourcePosition {
        var line = 1
        var start = contentStart
        var p = contentStart
        while p < position {
            let b = bytes[p]
            if b == JSONByte.newline {
                line += 1
                start = p + 1
            } else if b == JSONByte.carriageReturn {
                if p + 1 < end && bytes[p + 1] == JSONByte.newline { p += 1 }
                line += 1
                start = p + 1
            }
            p += 1
        }
        var column = 1
        p = start
        while p < position {
            if bytes[p] & 0xC0 != 0x80 { column += 1 }
            p += 1
        }
        return SourcePosition(line: line, column: column)
    }

    mutating func error(_ reason: String, at position: Int) -> JSONSyntaxError {
        JSONSyntaxError(location: location(at: position), reason: reason)
    }

    mutating func endOfInput() -> JSONSyntaxError {
        error("unexpected end of input", at: end)
    }

    // MARK: Document

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
        if end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            contentStart = 3
            index = 3
            lineStart = 3
        }
        skipWhitespace()
        if index >= end {
            throw JSONSyntaxError(location: SourcePosition(line: 1, column: 1), reason: "the file is empty")
        }
        let root = try parseValueTree()
        skipWhitespace()
        if index < end {
            throw error("unexpected text after the JSON value", at: index)
        }
        return root
    }

    mutating func skipWhitespace() {
        while index < end {
            switch bytes[index] {
            case JSONByte.space, JSONByte.tab:
                index += 1
            case JSONByte.newline:
                index += 1
                line += 1
                lineStart = index
            case JSONByte.carriageReturn:
                index += 1
                if index < end && bytes[index] == JSONByte.newline { index += 1 }
                line += 1
                lineStart = index
            default:
                return
            }
        }
    }

    /// Parses a complete value, iteratively, using an explicit stack.
    mutating func parseValueTree() throws(JSONSyntaxError) -> JSONNode {
        var stack: [JSONOpenContainer] = []

        parseValue: while true {
            skipWhitespace()
            guard index < end else { throw endOfInput() }
            let start = index
            var node: JSONNode
            switch bytes[start] {
            case JSONByte.openBracket, JSONByte.openBrace:
                let isObject = bytes[start] == JSONByte.openBrace
                if stack.count >= JSONDocument.maximumDepth {
                    throw error("nesting deeper than \(JSONDocument.maximumDepth) levels", at: start)
                }
                let loc = location(at: start)
                index += 1
                skipWhitespace()
                let closer = isObject ? JSONByte.closeBrace : JSONByte.closeBracket
                if index < end && bytes[index] == closer {
                    index += 1
                    node = JSONNode(value: isObject ? .object([]) : .array([]), location: loc)
                } else {
                    stack.append(JSONOpenContainer(isObject: isObject, location: loc))
                    if isObject {
                        try parseKey(into: &stack[stack.count - 1])
                    }
                    continue parseValue
                }
            default:
                node = try parseScalar()
            }

            // Attach the finished value to its container, closing containers
            // as long as their closing bracket follows.
            while true {
                guard !stack.isEmpty else { return node }
                let top = stack.count - 1
                let isObject = stack[top].isObject
                if isObject {
                    let member = JSONMember(key: stack[top].pendingKey,
                                            keyLocation: stack[top].pendingKeyLocation,
                                            value: node)
                    stack[top].members.append(member)
                } else {
                    stack[top].elements.append(node)
                }
                skipWhitespace()
                guard index < end else { throw endOfInput() }
                let closer = isObject ? JSONByte.closeBrace : JSONByte.closeBracket
                let b = bytes[index]
                if b == JSONByte.comma {
                    let commaPosition = index
                    index += 1
                    skipWhitespace()
                    if index < end && bytes[index] == closer {
                        throw error("trailing comma before '\(isObject ? "}" : "]")'", at: commaPosition)
                    }
                    if isObject {
                        try parseKey(into: &stack[top])
                    }
                    continue parseValue
                } else if b == closer {
                    index += 1
                    let container = stack.removeLast()
                    node = JSONNode(value: container.isObject ? .object(container.members)
                                                              : .array(container.elements),
                                    location: container.location)
                } else if isObject {
                    throw error("expected ',' or '}' after an object member", at: index)
                } else {
                    throw error("expected ',' or ']' after an array element", at: index)
                }
            }
        }
    }

    /// Parses `"key" :` and records the key as the container's pending key.
    mutating func parseKey(into container: inout JSONOpenContainer) throws(JSONSyntaxError) {
        skipWhitespace()
        guard index < end else { throw endOfInput() }
        let start = index
        guard bytes[start] == JSONByte.quote else {
            if bytes[start] == JSONByte.apostrophe {
                throw error("expected a string key in double quotes; single quotes are not valid JSON", at: start)
            }
            if bytes[start] == JSONByte.slash {
                throw error("comments are not allowed in JSON", at: start)
            }
            throw error("expected a string key in double quotes", at: start)
        }
        let keyLocation = location(at: start)
        let key = try parseString()

        // Duplicate detection: linear search for small objects, a dictionary
        // for larger ones.
        var first: SourcePosition? = nil
        if container.keyIndex == nil && container.members.count <= JSONOpenContainer.linearSearchLimit {
            for member in container.members where member.key == key {
                first = member.keyLocation
                break
            }
        } else {
            if container.keyIndex == nil {
                var keyIndex: [String: SourcePosition] = [:]
                keyIndex.reserveCapacity(container.members.count * 2)
                for member in container.members {
                    keyIndex[member.key] = member.keyLocation
                }
                container.keyIndex = keyIndex
            }
            first = container.keyIndex![key]
            if first == nil {
                container.keyIndex![key] = keyLocation
            }
        }
        if let first {
            throw JSONSyntaxError(location: keyLocation,
                                  reason: "duplicate key \"\(Self.abbreviate(key))\" (first at \(first))")
        }
        container.pendingKey = key
        container.pendingKeyLocation = keyLocation

        skipWhitespace()
        guard index < end else { throw endOfInput() }
        guard bytes[index] == JSONByte.colon else {
            throw error("expected ':' after the key \"\(Self.abbreviate(key))\"", at: index)
        }
        index += 1
    }

    // MARK: Scalars

    mutating func parseScalar() throws(JSONSyntaxError) -> JSONNode {
        let start = index
        let loc = location(at: start)
        let b = bytes[start]
        switch b {
        case JSONByte.quote:
            return JSONNode(value: .string(try parseString()), location: loc)
        case JSONByte.minus, JSONByte.zero...JSONByte.nine:
            if b == JSONByte.minus, start + 1 < end, Self.isWordByte(bytes[start + 1]), !Self.isDigit(bytes[start + 1]) {
                return JSONNode(value: try parseWord(), location: loc)
            }
            return JSONNode(value: .number(try parseNumber()), location: loc)
        case JSONByte.plus:
            if start + 1 < end, Self.isWordByte(bytes[start + 1]), !Self.isDigit(bytes[start + 1]) {
                return JSONNode(value: try parseWord(), location: loc)
            }
            throw error("a number cannot start with '+'", at: start)
        case JSONByte.dot:
            throw error("a number cannot start with '.'; write a digit before the decimal point", at: start)
        case JSONByte.apostrophe:
            throw error("strings must use double quotes", at: start)
        case JSONByte.slash:
            throw error("comments are not allowed in JSON", at: start)
        case JSONByte.closeBracket, JSONByte.closeBrace, JSONByte.comma, JSONByte.colon:
            throw error("expected a value but found '\(Character(Unicode.Scalar(b)))'", at: start)
        default:
            if Self.isWordByte(b) {
                return JSONNode(value: try parseWord(), location: loc)
            }
            if b >= 0x80 {
                let length = utf8SequenceLength(at: start)
                if length == 0 { throw error("invalid UTF-8", at: start) }
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<start + length]),
                                  as: UTF8.self)
                throw error("unexpected character '\(text)'", at: start)
            }
            throw error("unexpected character \(Self.scalarName(b))", at: start)
        }
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= JSONByte.zero && b <= JSONByte.nine }

    static func isWordByte(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || isDigit(b) || b == 0x5F
    }

    static func scalarName(_ b: UInt8) -> String {
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        let hex = String(b, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    static func abbreviate(_ text: String, limit: Int = 40) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "…"
    }

    /// `true`, `false`, `null`, or an error for any other bare word
    /// (NaN, Infinity, True, unquoted strings, ...). An optional sign may
    /// precede the word.
    mutating func parseWord() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        var p = start
        if bytes[p] == JSONByte.minus || bytes[p] == JSONByte.plus { p += 1 }
        while p < end && Self.isWordByte(bytes[p]) { p += 1 }
        let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<p]), as: UTF8.self)
        switch word {
        case "true": index = p; return .bool(true)
        case "false": index = p; return .bool(false)
        case "null": index = p; return .null
        default: break
        }
        let lower = word.lowercased()
        let unsigned = lower.hasPrefix("-") || lower.hasPrefix("+") ? String(lower.dropFirst()) : lower
        if unsigned == "nan" || unsigned == "infinity" || unsigned == "inf" {
            throw error("\(word) is not valid JSON; use a number", at: start)
        }
        if lower == "true" || lower == "false" || lower == "null" {
            throw error("\(word) is not valid JSON; did you mean \(lower)?", at: start)
        }
        throw error("unexpected word '\(Self.abbreviate(word, limit: 20))'; strings must be in double quotes", at: start)
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        var p = start
        let negative = bytes[p] == JSONByte.minus
        if negative {
            p += 1
            guard p < end else { throw endOfInput() }
            if bytes[p] == JSONByte.dot {
                throw error("a number cannot start with '.'; write a digit before the decimal point", at: p)
            }
            guard Self.isDigit(bytes[p]) else {
                throw error("expected a digit after '-'", at: p)
            }
        }
        if bytes[p] == JSONByte.zero {
            p += 1
            if p < end && Self.isDigit(bytes[p]) {
                throw error("leading zeros are not allowed in numbers", at: start)
            }
            if p < end && (bytes[p] == 0x78 || bytes[p] == 0x58) {   // x X
                throw error("hexadecimal numbers are not valid JSON", at: start)
            }
        } else {
            while p < end && Self.isDigit(bytes[p]) { p += 1 }
        }
        let integerEnd = p
        var isInteger = true
        if p < end && bytes[p] == JSONByte.dot {
            isInteger = false
            p += 1
            guard p < end, Self.isDigit(bytes[p]) else {
                throw error("expected a digit after the decimal point", at: p)
            }
            while p < end && Self.isDigit(bytes[p]) { p += 1 }
        }
        if p < end && (bytes[p] == 0x65 || bytes[p] == 0x45) {       // e E
            isInteger = false
            p += 1
            if p < end && (bytes[p] == JSONByte.plus || bytes[p] == JSONByte.minus) { p += 1 }
            guard p < end, Self.isDigit(bytes[p]) else {
                throw error("expected a digit in the exponent", at: p)
            }
            while p < end && Self.isDigit(bytes[p]) { p += 1 }
        }
        // Fast path: integers of up to 15 digits are exactly representable.
        let digitsStart = negative ? start + 1 : start
        if isInteger && integerEnd - digitsStart <= 15 {
            var magnitude: Int64 = 0
            for q in digitsStart..<integerEnd {
                magnitude = magnitude * 10 + Int64(bytes[q] - JSONByte.zero)
            }
            index = p
            let value = Double(magnitude)
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<p]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("number \(Self.abbreviate(text)) is out of range", at: start)
        }
        index = p
        return value
    }

    // MARK: Strings

    /// Parses a string starting at the opening quote at `index`.
    mutating func parseString() throws(JSONSyntaxError) -> String {
        let open = index
        var p = open + 1
        var runStart = p
        var buffer: [UInt8] = []
        var usedBuffer = false

        while true {
            // Fast scan over plain ASCII.
            while p < end {
                let b = bytes[p]
                if b == JSONByte.quote || b == JSONByte.backslash || b < 0x20 || b >= 0x80 { break }
                p += 1
            }
            guard p < end else { throw error("unterminated string", at: open) }
            let b = bytes[p]
            if b == JSONByte.quote {
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<p])
                index = p + 1
                if !usedBuffer {
                    return String(decoding: run, as: UTF8.self)
                }
                buffer.append(contentsOf: run)
                return String(decoding: buffer, as: UTF8.self)
            }
            if b >= 0x80 {
                let length = utf8SequenceLength(at: p)
                if length == 0 { throw error("invalid UTF-8", at: p) }
                p += length
                continue
            }
            if b < 0x20 {
                if b == JSONByte.newline || b == JSONByte.carriageReturn {
                    throw error("unterminated string", at: open)
                }
                throw error("control character in string", at: p)
            }

            // Backslash escape.
            if !usedBuffer {
                usedBuffer = true
                buffer.reserveCapacity(p - runStart + 16)
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<p]))
            let escape = p
            guard p + 1 < end else { throw error("unterminated string", at: open) }
            let e = bytes[p + 1]
            p += 2
            switch e {
            case JSONByte.quote, JSONByte.backslash, JSONByte.slash: buffer.append(e)
            case 0x62: buffer.append(0x08)   // b
            case 0x66: buffer.append(0x0C)   // f
            case 0x6E: buffer.append(0x0A)   // n
            case 0x72: buffer.append(0x0D)   // r
            case 0x74: buffer.append(0x09)   // t
            case 0x75:                       // u
                let unit = try hex4(at: p, escape: escape, open: open)
                p += 4
                var scalarValue = UInt32(unit)
                if unit >= 0xD800 && unit <= 0xDBFF {
                    // A high surrogate must be followed by \u and a low surrogate.
                    var low: UInt16? = nil
                    if p + 1 < end && bytes[p] == JSONByte.backslash && bytes[p + 1] == 0x75 {
                        let candidate = try hex4(at: p + 2, escape: p, open: open)
                        if candidate >= 0xDC00 && candidate <= 0xDFFF { low = candidate }
                    }
                    guard let low else {
                        throw error("unpaired surrogate \\u\(Self.hex(unit)) in string", at: escape)
                    }
                    p += 6
                    scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                } else if unit >= 0xDC00 && unit <= 0xDFFF {
                    throw error("unpaired surrogate \\u\(Self.hex(unit)) in string", at: escape)
                }
                Self.appendUTF8(scalarValue, to: &buffer)
            default:
                if e >= 0x21 && e < 0x7F {
                    throw error("invalid escape \\\(Character(Unicode.Scalar(e)))", at: escape)
                }
                throw error("invalid escape: '\\' must be followed by one of \" \\ / b f n r t u", at: escape)
            }
            runStart = p
        }
    }

    static func hex(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// Reads four hex digits at `position` (the digits after `\u`).
    mutating func hex4(at position: Int, escape: Int, open: Int) throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for k in 0..<4 {
            let p = position + k
            guard p < end else { throw error("unterminated string", at: open) }
            let b = bytes[p]
            let digit: UInt8
            switch b {
            case 0x30...0x39: digit = b - 0x30
            case 0x41...0x46: digit = b - 0x41 + 10
            case 0x61...0x66: digit = b - 0x61 + 10
            default:
                throw error("invalid escape: \\u must be followed by four hex digits", at: escape)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    static func appendUTF8(_ v: UInt32, to buffer: inout [UInt8]) {
        switch v {
        case 0..<0x80:
            buffer.append(UInt8(v))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | (v >> 6)))
            buffer.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | (v >> 12)))
            buffer.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (v & 0x3F)))
        default:
            buffer.append(UInt8(0xF0 | (v >> 18)))
            buffer.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            buffer.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    /// The length of the well-formed UTF-8 sequence starting at `p`
    /// (whose first byte is >= 0x80), or 0 if it is ill-formed.
    func utf8SequenceLength(at p: Int) -> Int {
        let b0 = bytes[p]
        func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            let q = p + offset
            return q < end && bytes[q] >= low && bytes[q] <= high
        }
        switch b0 {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : 0
        case 0xE0:
            return continuation(1, 0xA0, 0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? 3 : 0
        case 0xED:
            return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0
        case 0xF0:
            return continuation(1, 0x90, 0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4:
            return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default:
            return 0
        }
    }
}

// MARK: - Encoding

/// A value written by `JSONEncoder` (the editor's replies carry the scene as its document holds it).
/// An object's members are encoded by their keys: the encoder's options say their order.
extension JSONValue: Encodable {
    /// An object member's key, as a coding key.
    public struct MemberKey: CodingKey {
        public var stringValue: String
        public var intValue: Int? { nil }
        public init(_ key: String) { stringValue = key }
        public init(stringValue: String) { self.init(stringValue) }
        public init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in members { try container.encode(member.value.value, forKey: MemberKey(member.key)) }
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item.value) }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .number(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }
}
