// Shared helpers for the libFuzzer targets in this folder. Compiled into each
// target's module, which imports MercurialKit with @testable (scripts/fuzz.sh
// builds it with -enable-testing), so the targets can call the library's
// internal API as the renderer does.
#if canImport(Glibc)
import Glibc
#endif
@testable import MercurialKit

/// A per-process scratch folder in /dev/shm (RAM), so parallel fuzzers
/// (-jobs/-workers) never share a file. Removed at a normal exit (the end of
/// -max_total_time or -runs); a crashed run leaves it behind (a few KB).
let fuzzScratchFolder: String = {
    let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    let folder = "\(base)/mercurial-fuzz-\(getpid())"
    mkdir(folder, 0o700)
    atexit {
        for name in fuzzScratchFiles { unlink(fuzzScratchFolder + "/" + name) }
        rmdir(fuzzScratchFolder)
    }
    return folder
}()

/// The names the targets write in `fuzzScratchFolder`.
let fuzzScratchFiles = ["scene.json", "font.ttf", "batch.csv", "batch.jsonl"]

/// Writes `size` bytes at `data` to `path` (replacing it); traps if that fails,
/// since a fuzz run that cannot write its input tests nothing.
func writeFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int, to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot create \(path)")
    var written = 0
    while written < size {
        let n = write(fd, data + written, size - written)
        if n < 0 && errno == EINTR { continue }
        precondition(n > 0, "cannot write \(path)")
        written += n
    }
    close(fd)
}

/// The bytes the program has allocated and not freed (ASan's count: memory in its
/// quarantine of freed blocks, which RSS includes, is not in it).
@_silgen_name("__sanitizer_get_current_allocated_bytes")
func sanitizerLiveHeapBytes() -> Int

/// ASan's heap as mapped from the system: live blocks, the quarantine and free lists.
@_silgen_name("__sanitizer_get_heap_size")
func sanitizerHeapBytes() -> Int

/// Inputs run so far. libFuzzer runs inputs one at a time on one thread.
nonisolated(unsafe) var fuzzInputCount = 0

/// How often `fuzzSample` reports: `MERCURIAL_FUZZ_SAMPLE` inputs (default 100,000; 0 never).
let fuzzSampleEvery: Int = getenv("MERCURIAL_FUZZ_SAMPLE").flatMap { Int(String(cString: $0)) } ?? 100_000

/// Called by each target once an input: every `fuzzSampleEvery` inputs one line on
/// stderr with the live heap, ASan's whole heap and the RSS, so that growth over a
/// long run (a cache that never stops growing) can be told from the sanitizer's
/// own cost. `scripts/fuzz-growth.sh` plots them.
func fuzzSample() {
    fuzzInputCount += 1
    guard fuzzSampleEvery > 0, fuzzInputCount % fuzzSampleEvery == 0 else { return }
    var statm = [CChar](repeating: 0, count: 128)
    var rssPages = 0
    if let file = fopen("/proc/self/statm", "r") {
        if fgets(&statm, Int32(statm.count), file) != nil {
            rssPages = String(cString: statm).split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        }
        fclose(file)
    }
    let mb = { (bytes: Int) in "\(bytes * 10 / 1_048_576 / 10).\(bytes * 10 / 1_048_576 % 10)" }
    let line = "fuzz-sample: \(fuzzInputCount) inputs, live heap \(mb(sanitizerLiveHeapBytes())) MB, "
        + "ASan heap \(mb(sanitizerHeapBytes())) MB, RSS \(mb(rssPages * Int(sysconf(Int32(_SC_PAGESIZE))))) MB\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
}

/// With MERCURIAL_FUZZ_VERBOSE set, each input's outcome is printed (to see
/// what a crash file or a corpus entry does: `MERCURIAL_FUZZ_VERBOSE=1 BINARY FILE`).
let fuzzVerbose = getenv("MERCURIAL_FUZZ_VERBOSE") != nil

/// Reports `value` to libFuzzer as coverage (see feedback.c).
@_silgen_name("mercurial_fuzz_feedback")
func fuzzFeedback(_ value: UInt64)

/// FNV-1a of `parts`' text with every digit left out, so that messages that
/// differ only in a number (a glyph index, a size) count as one.
func feedbackValue(_ parts: String...) -> UInt64 {
    if fuzzVerbose { print("fuzz:", parts.joined(separator: " | ")) }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for part in parts {
        for byte in part.utf8 where !(0x30...0x39).contains(byte) {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        hash = (hash ^ 0xff) &* 0x100_0000_01b3
    }
    return hash
}

/// A size's order of magnitude (0, 1, 2–3, 4–7, …), for feedback.
func sizeClass(_ n: Int) -> String {
    n <= 0 ? "0" : String(repeating: "x", count: Int.bitWidth - n.leadingZeroBitCount)
}

/// A scene's animation as `animate` checks it: the frame settings at the first,
/// middle and last frames (keyframes, timing functions, point lights, the
/// background gradient), each validated as a render does.
func checkTimeline(_ timeline: Timeline, base: RenderSettings) throws(MercurialError) {
    let frames = timeline.frameCount
    for index in Set([0, frames / 2, frames - 1]).sorted() {
        let frame = timeline.settings(at: timeline.time(ofFrame: index), base: base)
        try TitleRenderer.validate(frame)
        _ = frame.pointLighting
        // A vine's strokes at this frame's growth, as the title mask would draw them.
        if let vine = frame.vine {
            _ = StrokeRaster.bounds(vine.strokes(along: vine.routePoints(ink: PixelBounds(minX: 0, minY: 0, maxX: 99, maxY: 49)),
                                                 growth: vine.grown))
        }
    }
}
