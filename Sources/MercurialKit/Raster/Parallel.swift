import Dispatch

/// Runs `body` over `0..<count` split into contiguous bands, the bands spread
/// across all cores with `DispatchQueue.concurrentPerform`.
func parallelBands(_ count: Int, minimumBand: Int = 16, _ body: (Range<Int>) -> Void) {
    guard count > 0 else { return }
    let bands = max(1, min(count / max(minimumBand, 1), ProcessInfoCores.count * 4))
    if bands == 1 {
        body(0..<count)
        return
    }
    // The bands touch disjoint parts of the callers' buffers, which is why the
    // (non-Sendable) body may run on several threads at once.
    withoutActuallyEscaping(body) { body in
        nonisolated(unsafe) let body = body
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let start = count * band / bands
            let end = count * (band + 1) / bands
            body(start..<end)
        }
    }
}

enum ProcessInfoCores {
    static let count: Int = {
        #if canImport(Glibc)
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
        return 1
        #endif
    }()
}

#if canImport(Glibc)
import Glibc
#endif
