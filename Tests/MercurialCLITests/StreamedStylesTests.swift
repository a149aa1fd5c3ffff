import Foundation
import Testing
import MercurialTestSupport

/// Layer styles on a title too large to hold, drawn band by band.
@Suite struct StreamedStylesTests {
    /// A styled title over the old in-memory limit (a region of 16 M pixels) renders, in
    /// memory that grows with its width: this 11,339×2,101 canvas's shadow plane alone would
    /// be 95 MB whole, with the title and the drawn region 280 MB; streamed it peaks at
    /// 143 MB (debug build), 41 MB over the same title without the shadow (277 MB when
    /// the window was made never to drop a row).
    @Test func aStyledTitleOverTheOldLimitRendersInBoundedMemory() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.shell("/usr/bin/time -f 'peak %M' \"$M\" render Streamed --size 2400 --set dropShadow.size=10 --set dropShadow.distance=300 -o s.png",
                                        in: dir, timeout: .seconds(240))
            #expect(r.status == 0, "\(r)")
            let peak = r.stderrLines.last.flatMap { $0.hasPrefix("peak ") ? Int($0.dropFirst(5)) : nil } ?? .max
            #expect(peak < 200 * 1024, "peak \(peak) KB")
            let png = try Data(contentsOf: dir.appendingPathComponent("s.png"))
            // The IHDR's width and height, big-endian, after the signature and the chunk's length and type.
            let size = [16, 20].map { png[$0..<($0 + 4)].reduce(0) { $0 << 8 | Int($1) } }
            #expect(size[0] * size[1] > 16 * 1_048_576, "\(size)")
        }
    }
}
