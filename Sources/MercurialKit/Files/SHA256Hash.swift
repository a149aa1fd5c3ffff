import CNettle

/// A SHA-256 taken piece by piece (Nettle's; see the CNettle shim).
struct SHA256Hash {
    private var context = sha256_ctx()

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
