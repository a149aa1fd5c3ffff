extension Double {
    /// `text` read as a decimal number: an optional sign, digits with an optional point
    /// (`4`, `-0.5`, `.5`, `3.`) and an optional exponent (`1e3`, `2E-2`), or `nan`, `inf`
    /// or `infinity` (which range checks then refuse by name); nil for anything else.
    /// Swift's `Double(_:)`, which swift-argument-parser uses for a `Double` flag, also
    /// takes hexadecimal: `0x10` is 16, `0x1p3` is 8.
    public init?(decimal text: some StringProtocol) {
        var bytes = text.utf8[...]
        let unsigned = String(text.drop { $0 == "+" || $0 == "-" }.prefix(9)).lowercased()
        if ["nan", "inf", "infinity"].contains(unsigned), text.count - unsigned.count <= 1, let value = Double(String(text)) {
            self = value
            return
        }
        func skipDigits() -> Int {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var digits = skipDigits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            digits += skipDigits()
        }
        guard digits > 0 else { return nil }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard skipDigits() > 0 else { return nil }
        }
        guard bytes.isEmpty, let value = Double(String(text)) else { return nil }
        self = value
    }
}
