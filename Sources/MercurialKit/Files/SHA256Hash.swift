import COpenSSL

/// A SHA-256 taken piece by piece: OpenSSL's block functions, without EVP's start-up
/// (see `mercurial_sha256_begin` in the COpenSSL shim).
struct SHA256Hash {
    private var context = SHA256_CTX()

    init() { mercurial_sha256_begin(&context) }

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        mercurial_sha256_add(&context, base, bytes.count)
    }

    /// The 32-byte digest of everything added (the hash is done with).
    mutating func digest() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
            mercurial_sha256_end(&context, buffer.baseAddress!)
            count = 32
        }
    }
}
