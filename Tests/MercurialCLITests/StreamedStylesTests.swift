import Foundation
import Testing
import MercurialTestSupport

/// Layer styles on a title too large to hold, drawn band by band.
@Suite struct StreamedStylesTests {
    /// `mercurial render Streamed --size 2400` with `options` (an 11,339×2,101 canvas, over
    /// the old in-memory limit of 16 M pixels): its peak memory in KB, checking that it
    /// rendered and that its PNG has more pixels than that limit.
    static func peakOfAStyledTitleOverTheOldLimit(_ options: String) async throws -> Int {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.shell("/usr/bin/time -f 'peak %M' \"$M\" render Streamed --size 2400 \(options) -o s.png",
                                        in: dir, timeout: .seconds(300))
            #expect(r.status == 0, "\(r)")
            let png = try Data(contentsOf: dir.appendingPathComponent("s.png"))
            // The IHDR's width and height, big-endian, after the signature and the chunk's length and type.
            let size = [16, 20].map { png[$0..<($0 + 4)].reduce(0) { $0 << 8 | Int($1) } }
            #expect(size[0] * size[1] > 16 * 1_048_576, "\(size)")
            return r.stderrLines.last.flatMap { $0.hasPrefix("peak ") ? Int($0.dropFirst(5)) : nil } ?? .max
        }
    }

    /// A styled title renders in memory that grows with its width: this canvas's shadow
    /// plane alone would be 95 MB whole, with the title and the drawn region 280 MB;
    /// streamed it peaks at 143 MB (debug build), 41 MB over the same title without the
    /// shadow (277 MB when the window was made never to drop a row).
    @Test func aStyledTitleOverTheOldLimitRendersInBoundedMemory() async throws {
        let peak = try await Self.peakOfAStyledTitleOverTheOldLimit("--set dropShadow.size=10 --set dropShadow.distance=300")
        #expect(peak < 200 * 1024, "peak \(peak) KB")
    }

    /// Moved by part of a pixel and zoomed, the same title streams too, its region placed
    /// band by band: 160 MB (debug build), where it was placed whole, in memory, at 460 MB.
    @Test func aMovedAndZoomedStyledTitleRendersInBoundedMemory() async throws {
        let peak = try await Self.peakOfAStyledTitleOverTheOldLimit(
            "--set dropShadow.size=10 --set dropShadow.distance=300 --set zoom=0.9 --set shiftX=50.5")
        #expect(peak < 200 * 1024, "peak \(peak) KB")
    }

    /// A stroke in the title's metal is lofted, shaded and lit band by band too (it was
    /// refused over 16 M pixels): a 12 px one peaks at 246 MB (debug build) against 162 MB
    /// in black; whole, the title, its mask, heights and normals and the outline's plane,
    /// heights and normals would take over 1 GB.
    @Test func aMetalStrokeOverTheOldLimitRendersInBoundedMemory() async throws {
        let peak = try await Self.peakOfAStyledTitleOverTheOldLimit("--set stroke.width=12 --set stroke.color=material")
        #expect(peak < 320 * 1024, "peak \(peak) KB")
    }
}
