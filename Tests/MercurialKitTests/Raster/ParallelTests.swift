import Synchronization
import Testing
@testable import MercurialKit

/// `parallelBands`: a loop whose work is too small for threads runs in one band on the
/// calling thread; one that names no work, or enough, is split across the cores.
@Suite struct ParallelTests {
    /// The bands one call ran, in order of their starts.
    static func bands(_ count: Int, minimumBand: Int, work: Int?) -> [Range<Int>] {
        let ran = Mutex<[Range<Int>]>([])
        parallelBands(count, minimumBand: minimumBand, work: work) { band in ran.withLock { $0.append(band) } }
        return ran.withLock { $0 }.sorted { $0.lowerBound < $1.lowerBound }
    }

    @Test func aSmallLoopRunsInOneBand() {
        #expect(Self.bands(1000, minimumBand: 1, work: 1000) == [0..<1000])
        // Less than the least work even once the workers are up.
        #expect(Self.bands(1000, minimumBand: 1, work: ParallelWork.minimum(started: true) - 1) == [0..<1000])
    }

    @Test(.enabled(if: ProcessInfoCores.count > 1, "one core: every loop is one band"))
    func aLargeLoopIsSplitAcrossTheCores() {
        let expected = min(1000, ProcessInfoCores.count * 4)
        for work in [nil, ParallelWork.minimum(started: false)] {
            let bands = Self.bands(1000, minimumBand: 1, work: work)
            #expect(bands.count == expected, "work \(String(describing: work))")
            #expect(bands.first?.lowerBound == 0 && bands.last?.upperBound == 1000
                    && zip(bands, bands.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(bands)")
        }
        let started = ParallelWork.started.load(ordering: .relaxed)
        #expect(started)
    }

    /// Before the first parallel loop, starting the workers is paid too: a loop needs more work.
    @Test func startingTheWorkersAsksForMoreWork() {
        #expect(ParallelWork.minimum(started: false) > 4 * ParallelWork.minimum(started: true))
    }
}
