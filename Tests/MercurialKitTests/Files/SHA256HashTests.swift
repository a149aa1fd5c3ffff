import Testing
@testable import MercurialKit

/// The SHA-256 the cache keys, font hashes, manifests and card identities are made of:
/// FIPS 180-2's test vectors, whole and added in pieces.
struct SHA256HashTests {
    static let vectors: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ]

    @Test(arguments: vectors)
    func theStandardsVectors(_ message: String, _ digest: String) {
        #expect(CardSignature.hex(CardSignature.sha256(Array(message.utf8))) == digest)
    }

    /// A million "a" added 997 bytes at a time (and the empty pieces between) is the digest of the whole.
    @Test func piecesAddUpToTheWhole() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        var hash = SHA256Hash()
        million.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: 997) {
                hash.add(UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + 997, bytes.count)]))
                hash.add(UnsafeRawBufferPointer(start: nil, count: 0))
            }
        }
        let digest = hash.digest()
        #expect(CardSignature.hex(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(digest == CardSignature.sha256(million))
    }
}
