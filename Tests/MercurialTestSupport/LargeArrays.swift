import Testing

/// A long array in a failed expectation is described by its length and first elements,
/// not in full (two frames' pixels are millions of elements).
extension Array: @retroactive CustomTestStringConvertible {
    public var testDescription: String {
        count <= 64 ? String(describing: self) : "\(count) elements, starting \(String(describing: Array(prefix(4))))"
    }
}

/// Whether `a` equals `b`: `#expect(same(a, b))` for large arrays. A failed `==` over two
/// collections inside `#expect` is diffed element by element, and two 2 M-pixel frames
/// did not finish in three minutes, so a failing test looked like a hang; a failed call's
/// arguments are only described (15 s for the same frames in a debug build, most of it
/// Swift Testing reflecting over their elements).
public func same<T: Equatable>(_ a: T, _ b: T) -> Bool { a == b }
