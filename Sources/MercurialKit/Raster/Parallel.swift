import Dispatch
import Synchronization

/// Runs `body` over `0..<count` split into contiguous bands, the bands spread
/// across all cores with `DispatchQueue.concurrentPerform`.
///
/// `work` is roughly what the whole loop costs one core, in nanoseconds (here: a pixel of new
/// memory filled about 1, a blur tap 1/8, a pixel shaded 6, an entry of the liquid curve's
/// table 16). A loop that gives it runs on the calling thread when it is too small to pay for
/// threads: the first parallel loop of a process starts Dispatch's workers (0.7–0.9 ms of a
/// one-shot render here, more than a 64×64 title's whole render), later ones only wake them.
/// Without `work`, the loop is split by `minimumBand` alone. The bands never change a
/// result, only the time it takes.
func parallelBands(_ count: Int, minimumBand: Int = 16, work: Int? = nil, _ body: (Range<Int>) -> Void) {
    guard count > 0 else { return }
    let small = work.map { $0 < ParallelWork.minimum(started: ParallelWork.started.load(ordering: .relaxed)) } ?? false
    let bands = small ? 1 : max(1, min(count / max(minimumBand, 1), ProcessInfoCores.count * 4))
    if bands == 1 {
        body(0..<count)
        return
    }
    ParallelWork.started.store(true, ordering: .relaxed)
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

/// When a loop is worth Dispatch's threads (see `parallelBands`).
enum ParallelWork {
    /// Whether this process has run a loop on several threads yet (its workers are then up).
    static let started = Atomic<Bool>(false)

    /// The least work worth spreading: before the first parallel loop, about 0.5 ms of it on
    /// one core (less than starting the workers costs, which the render's later loops share:
    /// at 2 ms the 1080p title's first loops stayed on one core, 0.95 → 1.07 of the time);
    /// after, about 65 µs.
    static func minimum(started: Bool) -> Int { started ? 1 << 16 : 1 << 19 }
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
