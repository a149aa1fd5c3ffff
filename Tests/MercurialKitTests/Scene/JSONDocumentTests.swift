import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

// MARK: - Helpers (file-private)

private func parseJSON(_ text: String) throws(JSONSyntaxError) -> JSONNode {
    try JSONDocument.parse(Array(text.utf8))
}

/// The error thrown for `bytes`, or nil if they parse.
private func syntaxError(_ bytes: [UInt8]) -> JSONSyntaxError? {
    do {
        _ = try JSONDocument.parse(bytes)
        return nil
    } catch {
        return error
    }
}

private func syntaxError(_ text: String) -> JSONSyntaxError? {
    syntaxError(Array(text.utf8))
}

private func at(_ line: Int, _ column: Int, _ reason: String) -> JSONSyntaxError {
    JSONSyntaxError(location: SourcePosition(line: line, column: column), reason: reason)
}

private func members(_ node: JSONNode) -> [JSONMember]? {
    if case .object(let m) = node.value { return m }
    return nil
}

private func elements(_ node: JSONNode) -> [JSONNode]? {
    if case .array(let e) = node.value { return e }
    return nil
}

private func string(_ node: JSONNode) -> String? {
    if case .string(let s) = node.value { return s }
    return nil
}

private func number(_ node: JSONNode) -> Double? {
    if case .number(let d) = node.value { return d }
    return nil
}

private func bool(_ node: JSONNode) -> Bool? {
    if case .bool(let b) = node.value { return b }
    return nil
}

private func isNull(_ node: JSONNode) -> Bool {
    if case .null = node.value { return true }
    return false
}

private func member(_ node: JSONNode, _ key: String) -> JSONMember? {
    members(node)?.first { $0.key == key }
}

// MARK: - Tests

@Suite struct JSONDocumentTests {

    // MARK: Valid documents

    @Test func nestedDocumentValuesOrderAndPositions() throws {
        let text = """
        {
          "name": "scene",
          "size": [640, 480],
          "radius": -1.5e2,
          "flags": {"on": true, "off": false, "none": null},
          "empty": [{}, []]
        }
        """
        let root = try parseJSON(text)
        #expect(root.location == SourcePosition(line: 1, column: 1))
        let ms = try #require(members(root))
        #expect(ms.map(\.key) == ["name", "size", "radius", "flags", "empty"])
        #expect(ms.map(\.keyLocation) == [
            SourcePosition(line: 2, column: 3),
            SourcePosition(line: 3, column: 3),
            SourcePosition(line: 4, column: 3),
            SourcePosition(line: 5, column: 3),
            SourcePosition(line: 6, column: 3),
        ])

        #expect(string(ms[0].value) == "scene")
        #expect(ms[0].value.location == SourcePosition(line: 2, column: 11))

        // Key on line 3 and its array value.
        let size = ms[1]
        #expect(size.keyLocation.description == "3:3")
        #expect(size.value.location == SourcePosition(line: 3, column: 11))
        let sizes = try #require(elements(size.value))
        #expect(sizes.compactMap(number) == [640, 480])
        #expect(sizes.map(\.location) == [SourcePosition(line: 3, column: 12),
                                           SourcePosition(line: 3, column: 17)])

        #expect(number(ms[2].value) == -150)
        #expect(ms[2].value.location == SourcePosition(line: 4, column: 13))

        let flags = ms[3].value
        #expect(members(flags)?.map(\.key) == ["on", "off", "none"])
        #expect(member(flags, "on").flatMap { bool($0.value) } == true)
        #expect(member(flags, "off").flatMap { bool($0.value) } == false)
        #expect(member(flags, "none").map { isNull($0.value) } == true)
        #expect(member(flags, "off")?.keyLocation == SourcePosition(line: 5, column: 25))

        let empty = try #require(elements(ms[4].value))
        #expect(empty.count == 2)
        #expect(members(empty[0])?.isEmpty == true)
        #expect(elements(empty[1])?.isEmpty == true)
        #expect(empty[1].location == SourcePosition(line: 6, column: 17))
    }

    @Test func scalarRootsAndTypeNames() throws {
        #expect(bool(try parseJSON("true")) == true)
        #expect(isNull(try parseJSON(" null ")))
        #expect(string(try parseJSON("\"hi\"")) == "hi")
        #expect(number(try parseJSON("\n\n   42")) == 42)
        #expect(try parseJSON("\n\n   42").location == SourcePosition(line: 3, column: 4))

        #expect(try parseJSON("{}").value.typeName == "an object")
        #expect(try parseJSON("[]").value.typeName == "an array")
        #expect(try parseJSON("\"\"").value.typeName == "a string")
        #expect(try parseJSON("0").value.typeName == "a number")
        #expect(try parseJSON("false").value.typeName == "a boolean")
        #expect(try parseJSON("null").value.typeName == "null")
    }

    @Test func columnsCountUnicodeScalars() throws {
        let root = try parseJSON("{\"é\": \"ü😀\", \"k\": 1}")
        let k = try #require(member(root, "k"))
        #expect(k.keyLocation == SourcePosition(line: 1, column: 13))
        #expect(k.value.location == SourcePosition(line: 1, column: 18))
        #expect(string(try #require(member(root, "é")).value) == "ü😀")

        #expect(syntaxError("[\"ééé\", x]")?.location == SourcePosition(line: 1, column: 9))
    }

    @Test func crlfLineEndings() throws {
        let root = try parseJSON("{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}")
        #expect(member(root, "b")?.keyLocation == SourcePosition(line: 3, column: 3))
        #expect(syntaxError("{\r\n  \"a\": 1,\r\n  \"a\": 2}")
                == at(3, 3, "duplicate key \"a\" (first at 2:3)"))
    }

    @Test func validNumbers() throws {
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", 0), ("7", 7), ("-12.25", -12.25), ("1.5e-3", 0.0015),
            ("1E+2", 100), ("2e2", 200), ("0.5", 0.5), ("1e-999", 0),
            ("123456789012345678901234567890", 1.2345678901234568e29),
        ]
        for (text, expected) in cases {
            #expect(number(try parseJSON(text)) == expected, "\(text)")
        }
        let negZero = try #require(number(try parseJSON("-0")))
        #expect(negZero.sign == .minus)
    }

    @Test func stringEscapes() throws {
        let node = try parseJSON(#"["a\"b\\c\/d", "\b\f\n\r\t", "\u00e9\u0041", "\uD83D\uDE00!", "\u0000"]"#)
        let items = try #require(elements(node)).compactMap(string)
        #expect(items == ["a\"b\\c/d", "\u{8}\u{C}\n\r\t", "éA", "😀!", "\u{0}"])
        #expect(string(try parseJSON("\"plain ünïcode 😀\"")) == "plain ünïcode 😀")
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let root = try JSONDocument.parse(bom + Array("{\n  \"a\": [true]}".utf8))
        #expect(root.location == SourcePosition(line: 1, column: 1))
        #expect(member(root, "a")?.keyLocation == SourcePosition(line: 2, column: 3))

        let scalar = try JSONDocument.parse(bom + Array("true".utf8))
        #expect(bool(scalar) == true)
        #expect(syntaxError(bom + Array("[x]".utf8))?.location == SourcePosition(line: 1, column: 2))
        #expect(syntaxError(bom) == at(1, 1, "the file is empty"))
        // A BOM anywhere else is not whitespace.
        #expect(syntaxError(Array(" ".utf8) + bom + Array("1".utf8))?.location == SourcePosition(line: 1, column: 2))
    }

    // MARK: Errors

    @Test func emptyInput() {
        #expect(syntaxError("") == at(1, 1, "the file is empty"))
        #expect(syntaxError("  \n\t\r\n ") == at(1, 1, "the file is empty"))
    }

    @Test func missingSeparators() {
        #expect(syntaxError("{\"a\": 1 \"b\": 2}") == at(1, 9, "expected ',' or '}' after an object member"))
        #expect(syntaxError("[1 2]") == at(1, 4, "expected ',' or ']' after an array element"))
        #expect(syntaxError("[\n  1,\n  2\n  3\n]") == at(4, 3, "expected ',' or ']' after an array element"))
        #expect(syntaxError("{\"a\" 1}") == at(1, 6, "expected ':' after the key \"a\""))
        #expect(syntaxError("{a: 1}") == at(1, 2, "expected a string key in double quotes"))
        #expect(syntaxError("[1, ]")?.reason == "trailing comma before ']'")
        #expect(syntaxError("[1, ]")?.location == SourcePosition(line: 1, column: 3))
        #expect(syntaxError("{\"a\": 1,\n}") == at(1, 8, "trailing comma before '}'"))
        #expect(syntaxError("[,1]") == at(1, 2, "expected a value but found ','"))
        #expect(syntaxError("{\"a\": }") == at(1, 7, "expected a value but found '}'"))
    }

    @Test func duplicateKeys() {
        let text = """
        {
          "radius": 1,
          "name": "x",
          "radius": 2
        }
        """
        #expect(syntaxError(text) == at(4, 3, "duplicate key \"radius\" (first at 2:3)"))

        // Large objects use a different lookup path.
        var big = "{"
        for i in 0..<20 { big += "\"k\(i)\": \(i), " }
        big += "\"k5\": 0}"
        let error = syntaxError(big)
        #expect(error?.reason == "duplicate key \"k5\" (first at 1:\(2 + (0..<5).map { "\"k\($0)\": \($0), ".count }.reduce(0, +)))")
        #expect(error?.location.line == 1)

        // The same key in different objects is fine.
        #expect(syntaxError("{\"a\": {\"a\": 1}, \"b\": [{\"a\": 2}, {\"a\": 3}]}") == nil)
    }

    @Test func nestingLimit() throws {
        let depth = JSONDocument.maximumDepth
        #expect(depth == 256)
        let ok = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var node = try parseJSON(ok)
        for _ in 1..<depth {
            node = try #require(elements(node)?.first)
        }
        #expect(elements(node)?.isEmpty == true)

        let tooDeep = String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)
        #expect(syntaxError(tooDeep) == at(1, 257, "nesting deeper than 256 levels"))

        let objects = String(repeating: "{\"a\":", count: depth + 1) + "1" + String(repeating: "}", count: depth + 1)
        #expect(syntaxError(objects)?.reason == "nesting deeper than 256 levels")
    }

    @Test func veryDeepNestingFailsCleanlyAndQuickly() {
        let clock = ContinuousClock()
        let start = clock.now
        let open = String(repeating: "[", count: 5000)
        #expect(syntaxError(open) == at(1, 257, "nesting deeper than 256 levels"))
        #expect(syntaxError(open + String(repeating: "]", count: 5000)) == at(1, 257, "nesting deeper than 256 levels"))
        #expect(syntaxError(String(repeating: "{\"k\": ", count: 5000))?.reason == "nesting deeper than 256 levels")
        #expect(clock.now - start < .seconds(2))
    }

    @Test func nonFiniteTokens() {
        #expect(syntaxError("{\"x\": NaN}") == at(1, 7, "NaN is not valid JSON; use a number"))
        #expect(syntaxError("[Infinity]") == at(1, 2, "Infinity is not valid JSON; use a number"))
        #expect(syntaxError("[1, -Infinity]") == at(1, 5, "-Infinity is not valid JSON; use a number"))
        #expect(syntaxError("nan") == at(1, 1, "nan is not valid JSON; use a number"))
        #expect(syntaxError("[True]") == at(1, 2, "True is not valid JSON; did you mean true?"))
        #expect(syntaxError("[truex]")?.location == SourcePosition(line: 1, column: 2))
        #expect(syntaxError("[hello]")?.reason == "unexpected word 'hello'; strings must be in double quotes")
    }

    @Test func outOfRangeNumbers() {
        #expect(syntaxError("[1e999]") == at(1, 2, "number 1e999 is out of range"))
        #expect(syntaxError("{\n \"r\": -2.5E400}") == at(2, 7, "number -2.5E400 is out of range"))
    }

    @Test func invalidNumberSyntax() {
        #expect(syntaxError("01") == at(1, 1, "leading zeros are not allowed in numbers"))
        #expect(syntaxError("[-007]") == at(1, 2, "leading zeros are not allowed in numbers"))
        #expect(syntaxError("[+1]") == at(1, 2, "a number cannot start with '+'"))
        #expect(syntaxError("[.5]")?.location == SourcePosition(line: 1, column: 2))
        #expect(syntaxError("[-.5]")?.location == SourcePosition(line: 1, column: 3))
        #expect(syntaxError("[1.]") == at(1, 4, "expected a digit after the decimal point"))
        #expect(syntaxError("[1.e5]") == at(1, 4, "expected a digit after the decimal point"))
        #expect(syntaxError("[1e]") == at(1, 4, "expected a digit in the exponent"))
        #expect(syntaxError("[1e+]") == at(1, 5, "expected a digit in the exponent"))
        #expect(syntaxError("[0x1F]") == at(1, 2, "hexadecimal numbers are not valid JSON"))
        #expect(syntaxError("[-]") == at(1, 3, "expected a digit after '-'"))
        #expect(syntaxError("[1.5.3]") == at(1, 5, "expected ',' or ']' after an array element"))
    }

    @Test func invalidUTF8() {
        // Inside a string.
        #expect(syntaxError([0x5B, 0x22, 0x61, 0x62, 0xFF, 0x22, 0x5D]) == at(1, 5, "invalid UTF-8"))
        // After a valid multi-byte scalar: é counts as one column.
        #expect(syntaxError(Array("[\"é".utf8) + [0xC3, 0x28, 0x22, 0x5D]) == at(1, 4, "invalid UTF-8"))
        // Overlong encoding, encoded surrogate, truncated sequence at end.
        #expect(syntaxError([0x22, 0xC0, 0x80, 0x22]) == at(1, 2, "invalid UTF-8"))
        #expect(syntaxError([0x22, 0xED, 0xA0, 0x80, 0x22]) == at(1, 2, "invalid UTF-8"))
        #expect(syntaxError([0x22, 0x61, 0xE2, 0x82]) == at(1, 3, "invalid UTF-8"))
        // Outside a string, on line 2.
        #expect(syntaxError(Array("[1,\n ".utf8) + [0xFE, 0x5D]) == at(2, 2, "invalid UTF-8"))
        // Valid but unexpected non-ASCII outside a string.
        #expect(syntaxError("[é]") == at(1, 2, "unexpected character 'é'"))
    }

    @Test func unterminatedStrings() {
        #expect(syntaxError("{\"a\": \"abc") == at(1, 7, "unterminated string"))
        #expect(syntaxError("[\"abc\n\"]") == at(1, 2, "unterminated string"))
        #expect(syntaxError("[\"abc\\") == at(1, 2, "unterminated string"))
        #expect(syntaxError("{\"ke") == at(1, 2, "unterminated string"))
    }

    @Test func controlCharactersAndEscapes() {
        #expect(syntaxError("[\"a\tb\"]") == at(1, 4, "control character in string"))
        #expect(syntaxError([0x22, 0x61, 0x01, 0x22]) == at(1, 3, "control character in string"))
        #expect(syntaxError(#"["a\qb"]"#) == at(1, 4, "invalid escape \\q"))
        #expect(syntaxError(#"["\x41"]"#) == at(1, 3, "invalid escape \\x"))
        #expect(syntaxError(#"["\u12G4"]"#)?.location == SourcePosition(line: 1, column: 3))
        #expect(syntaxError("'single'") == at(1, 1, "strings must use double quotes"))
        #expect(syntaxError("// comment\n{}") == at(1, 1, "comments are not allowed in JSON"))
    }

    @Test func loneSurrogates() {
        #expect(syntaxError(#"["\uD83D"]"#) == at(1, 3, "unpaired surrogate \\uD83D in string"))
        #expect(syntaxError(#"["ab\uD83Dx"]"#) == at(1, 5, "unpaired surrogate \\uD83D in string"))
        #expect(syntaxError(#"["\uD83D\u0041"]"#) == at(1, 3, "unpaired surrogate \\uD83D in string"))
        #expect(syntaxError(#"["\uDE00"]"#) == at(1, 3, "unpaired surrogate \\uDE00 in string"))
        #expect(syntaxError(#"["\uD83D\uD83D"]"#) == at(1, 3, "unpaired surrogate \\uD83D in string"))
    }

    @Test func unexpectedEndOfInput() {
        #expect(syntaxError("{\"a\": [1, 2") == at(1, 12, "unexpected end of input"))
        #expect(syntaxError("[") == at(1, 2, "unexpected end of input"))
        #expect(syntaxError("{\"a\"") == at(1, 5, "unexpected end of input"))
        #expect(syntaxError("{\"a\":\n") == at(2, 1, "unexpected end of input"))
        #expect(syntaxError("[1,") == at(1, 4, "unexpected end of input"))
        #expect(syntaxError("-") == at(1, 2, "unexpected end of input"))
    }

    @Test func trailingText() {
        #expect(syntaxError("{\"a\": 1} x") == at(1, 10, "unexpected text after the JSON value"))
        #expect(syntaxError("[1][2]") == at(1, 4, "unexpected text after the JSON value"))
        #expect(syntaxError("true\n\nfalse") == at(3, 1, "unexpected text after the JSON value"))
        #expect(syntaxError("1 2") == at(1, 3, "unexpected text after the JSON value"))
        #expect(syntaxError("{}\n  \n") == nil)
    }

    // MARK: Performance

    @Test func tenMegabyteStringParsesQuickly() throws {
        let count = 10_000_000
        let bytes = Array("{\"s\":\"".utf8)
            + [UInt8](repeating: 0x61, count: count)
            + Array("\", \"t\":1}".utf8)

        let clock = ContinuousClock()
        let start = clock.now
        let root = try JSONDocument.parse(bytes)
        let elapsed = clock.now - start

        let s = try #require(member(root, "s").flatMap { string($0.value) })
        #expect(s.utf8.count == count)
        #expect(s == String(repeating: "a", count: count))
        // The column after the string counts every scalar of it.
        #expect(member(root, "t")?.keyLocation == SourcePosition(line: 1, column: count + 10))
        // Generous bound: quadratic behaviour would take minutes.
        #expect(elapsed < .seconds(5))
    }

    @Test func largeEscapedAndMultibyteStringParsesQuickly() throws {
        // 1 MB of "é\n" escapes and multi-byte scalars, exercising the
        // escape buffer and UTF-8 validation paths.
        let unit = #"é\n😀\u0041"#
        let repeats = 100_000
        let text = "\"" + String(repeating: unit, count: repeats) + "\""
        let clock = ContinuousClock()
        let start = clock.now
        let s = try #require(string(try parseJSON(text)))
        #expect(clock.now - start < .seconds(5))
        #expect(s == String(repeating: "é\n😀A", count: repeats))
    }
}
