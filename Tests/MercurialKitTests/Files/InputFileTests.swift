import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// `InputFile`'s two whole-file reads, into an array and into memory of the caller's: the
/// same bytes, to the end of a file whose size lies, and never past the budget.
@Suite struct InputFileTests {
    static func allocated(_ path: String, limit: Int) throws -> [UInt8] {
        let buffer = try InputFile.readAllocated(path, role: "test", limit: limit)
        defer { buffer.deallocate() }
        return Array(buffer)
    }

    @Test func bothReadsGiveTheFilesBytes() async throws {
        try await CLI.withTemporaryDirectory { dir in
            var generator = SystemRandomNumberGenerator()
            for count in [0, 1, 4096, 200_003] {
                let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let path = dir.appendingPathComponent("f\(count)").path
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                #expect(try InputFile.read(path, role: "test", limit: 1 << 20) == bytes, "\(count) bytes into an array")
                #expect(try Self.allocated(path, limit: 1 << 20) == bytes, "\(count) bytes into allocated memory")
            }
        }
    }

    /// /proc's files say they are empty: both reads go on to the end.
    @Test func aFileWhoseSizeLiesIsReadToItsEnd() throws {
        let array = try InputFile.read("/proc/self/cmdline", role: "test", limit: 1 << 20)
        #expect(array.count > 1 && array.last == 0, "\(array.count) bytes")
        #expect(try Self.allocated("/proc/self/cmdline", limit: 1 << 20) == array)
    }

    @Test func aFileOverTheLimitIsRefused() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("big").path
            try Data(repeating: 7, count: 5000).write(to: URL(fileURLWithPath: path))
            #expect(throws: MercurialError.self) { try InputFile.read(path, role: "test", limit: 4999) }
            #expect(throws: MercurialError.self) { try Self.allocated(path, limit: 4999) }
            #expect(try Self.allocated(path, limit: 5000).count == 5000)
            #expect(throws: MercurialError.self) { try InputFile.read("/proc/self/cmdline", role: "test", limit: 1) }
            #expect(throws: MercurialError.self) { try Self.allocated("/proc/self/cmdline", limit: 1) }
        }
    }
}
