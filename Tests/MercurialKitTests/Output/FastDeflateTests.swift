import CPNGWriter
import Testing

/// fast_deflate (the `fast` PNG bands' deflate encoder, Sources/CPNGWriter/fast_deflate.c)
/// checked by zlib's inflate: every stream it makes must inflate to the bytes it was given,
/// through block ends, syncs and spliced segments.
@Suite struct FastDeflateTests {
    /// One step of a stream: bytes written, a sync, or a segment (made by another stream
    /// and ended with a sync) appended after a sync.
    enum Step {
        case write([UInt8])
        case sync
        case splice([UInt8])
    }

    /// The raw deflate stream `steps` make, finished.
    static func deflate(_ steps: [Step]) throws -> [UInt8] {
        var stream = fast_deflate()
        defer { fast_deflate_end(&stream) }
        try #require(fast_deflate_begin(&stream) == 1)
        for step in steps {
            switch step {
            case .write(let bytes):
                try #require(bytes.withUnsafeBufferPointer { fast_deflate_write(&stream, $0.baseAddress, $0.count) } == 1)
            case .sync:
                try #require(fast_deflate_sync(&stream) == 1)
            case .splice(let bytes):
                let segment = try segment(bytes)
                try #require(fast_deflate_sync(&stream) == 1)
                try #require(segment.withUnsafeBufferPointer { fast_deflate_append_aligned(&stream, $0.baseAddress, $0.count) } == 1)
            }
        }
        try #require(fast_deflate_finish(&stream) == 1)
        return Array(UnsafeBufferPointer(start: stream.out, count: stream.size))
    }

    /// `bytes` as a byte-aligned segment that is not final (a stream ended with a sync).
    static func segment(_ bytes: [UInt8]) throws -> [UInt8] {
        var stream = fast_deflate()
        defer { fast_deflate_end(&stream) }
        try #require(fast_deflate_begin(&stream) == 1)
        try #require(bytes.withUnsafeBufferPointer { fast_deflate_write(&stream, $0.baseAddress, $0.count) } == 1)
        try #require(fast_deflate_sync(&stream) == 1)
        return Array(UnsafeBufferPointer(start: stream.out, count: stream.size))
    }

    /// zlib's inflate of a raw stream (wrapped in a zlib header and Adler-32 for
    /// `mercurial_zlib_uncompress`), or nil when zlib refuses it.
    static func inflate(_ raw: [UInt8], expecting count: Int, adlerOf original: [UInt8]) -> [UInt8]? {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in original { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let adler: UInt32 = b << 16 | a
        let trailer: [UInt8] = [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        let stream: [UInt8] = [0x78, 0x01] + raw + trailer
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard stream.withUnsafeBufferPointer({ mercurial_zlib_uncompress($0.baseAddress, $0.count, count + 1, &out, &size) }) == 1,
              let out else { return nil }
        defer { mercurial_png_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// Bytes from a fixed seed (xorshift), `runs` of them repeated in runs of 1…600.
    static func bytes(_ count: Int, seed: UInt64, runs: Bool, alphabet: Int = 256) -> [UInt8] {
        var state = seed | 1, out: [UInt8] = []
        out.reserveCapacity(count)
        func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
        while out.count < count {
            let byte = UInt8(next() % UInt64(alphabet))
            let length = runs && next() % 3 == 0 ? Int(next() % 600) + 1 : 1
            out += repeatElement(byte, count: min(length, count - out.count))
        }
        return out
    }

    static let inputs: [(name: String, steps: [Step])] = {
        var inputs: [(name: String, steps: [Step])] = []
        inputs.append(("empty", []))
        inputs.append(("one byte", [.write([7])]))
        inputs.append(("a run of zeros longer than a match", [.write([UInt8](repeating: 0, count: 100_000))]))
        inputs.append(("a run started in one write and continued in the next", [.write([5, 5]), .write([5, 5, 5, 5, 9])]))
        inputs.append(("random bytes", [.write(bytes(50_000, seed: 1, runs: false))]))
        inputs.append(("two symbols", [.write(bytes(70_000, seed: 2, runs: false, alphabet: 2))]))
        inputs.append(("runs, several blocks of tokens", [.write(bytes(400_000, seed: 3, runs: true))]))
        inputs.append(("random bytes, several blocks", [.write(bytes(150_000, seed: 4, runs: false))]))
        var rows: [Step] = []
        for i in 0..<20 {
            rows.append(.write(bytes(7681, seed: UInt64(10 + i), runs: true)))
            rows.append(.sync)
        }
        inputs.append(("rows with syncs between", rows))
        var spliced: [Step] = []
        for i in 0..<10 {
            spliced.append(.write(bytes(3000, seed: UInt64(40 + i), runs: true)))
            spliced.append(.splice([UInt8](repeating: UInt8(i), count: 5000)))
            spliced.append(.splice(bytes(100, seed: UInt64(60 + i), runs: false)))
        }
        inputs.append(("segments spliced between rows", spliced))
        inputs.append(("a splice first and last", [.splice([1, 2, 3]), .write([3, 3, 3, 3, 3]), .splice([0, 0, 0, 0])]))
        return inputs
    }()

    @Test(arguments: inputs.indices)
    func zlibInflatesWhatItMakes(_ index: Int) throws {
        let (name, steps) = Self.inputs[index]
        let original = steps.flatMap { step -> [UInt8] in
            switch step {
            case .write(let bytes), .splice(let bytes): bytes
            case .sync: []
            }
        }
        let raw = try Self.deflate(steps)
        let back = Self.inflate(raw, expecting: original.count, adlerOf: original)
        #expect(back == original, "\(name): \(raw.count) bytes of deflate did not inflate to the \(original.count) given")
    }

    /// Runs become matches: a long run of one byte deflates to a few bytes, not one a byte.
    @Test func runsAreMatches() throws {
        let raw = try Self.deflate([.write([UInt8](repeating: 0, count: 100_000))])
        #expect(raw.count < 1_000, "\(raw.count) bytes for 100,000 zeros")
    }
}
