import Testing
@testable import MercurialKit

/// The blur's multiply-add loop: a release build keeps 32 columns' sums in registers, a
/// debug build (the test suite's binary) sums a tap at a time; both must give the same bits.
@Suite struct GaussianBlurTests {
    @Test(arguments: [1, 7, 8, 31, 32, 33, 77, 200]) func theSumsInRegistersAreTheSumsByTap(count: Int) {
        var random = SystemRandomNumberGenerator()
        for taps in [1, 3, 13, 61] {
            let weights = (0..<taps).map { _ in Float.random(in: 0...1, using: &random) }
            let rows = (0..<taps).map { _ in (0..<count).map { _ in Float.random(in: -2...2, using: &random) } }
            var inRegisters = [Float](repeating: .nan, count: count), byTap = inRegisters
            let flat = rows.flatMap { $0 }
            flat.withUnsafeBufferPointer { f in
                weights.withUnsafeBufferPointer { w in
                    inRegisters.withUnsafeMutableBufferPointer { out in
                        GaussianBlur.weightedSumInRegisters(count, taps: taps, weights: w.baseAddress!, into: out.baseAddress!) {
                            f.baseAddress! + $0 * count
                        }
                    }
                    byTap.withUnsafeMutableBufferPointer { out in
                        GaussianBlur.weightedSumByTap(count, taps: taps, weights: w.baseAddress!, into: out.baseAddress!) {
                            f.baseAddress! + $0 * count
                        }
                    }
                }
            }
            #expect(inRegisters.map(\.bitPattern) == byTap.map(\.bitPattern), "\(count) columns, \(taps) taps")
        }
    }
}
