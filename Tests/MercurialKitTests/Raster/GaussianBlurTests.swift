import Foundation
import CKernels
import Testing
@testable import MercurialKit

/// The blur's multiply-add loop runs at the widest vector width the processor has
/// (CKernels); at every width this processor supports it must give the bits of the
/// plain sum, a tap at a time, for rows read by step (the horizontal pass) and by
/// offsets (the vertical pass).
@Suite struct GaussianBlurTests {
    static let levels: [mercurial_simd_level] = [MERCURIAL_SIMD_BASELINE, MERCURIAL_SIMD_AVX2, MERCURIAL_SIMD_AVX512]
        .filter { $0.rawValue <= mercurial_simd_best().rawValue }

    @Test(arguments: [1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 77, 200])
    func everyVectorWidthGivesTheSumsByTap(count: Int) {
        var random = SystemRandomNumberGenerator()
        for taps in [1, 3, 13, 61] {
            let weights = (0..<taps).map { _ in Float.random(in: 0...1, using: &random) }
            let flat = (0..<(taps * count)).map { _ in Float.random(in: -2...2, using: &random) }
            // Rows in a shuffled order, as the vertical pass's ring holds them.
            let offsets = (0..<taps).map { $0 * count }.shuffled(using: &random)
            var byTap = [Float](repeating: .nan, count: count)
            flat.withUnsafeBufferPointer { f in
                weights.withUnsafeBufferPointer { w in
                    byTap.withUnsafeMutableBufferPointer { out in
                        Self.weightedSumByTap(count, taps: taps, weights: w.baseAddress!, into: out.baseAddress!) {
                            f.baseAddress! + offsets[$0]
                        }
                    }
                    for level in Self.levels {
                        var vector = [Float](repeating: .nan, count: count)
                        offsets.withUnsafeBufferPointer { o in
                            vector.withUnsafeMutableBufferPointer { out in
                                mercurial_weighted_sum_at(level, count, taps, w.baseAddress!, out.baseAddress!,
                                                          f.baseAddress!, o.baseAddress!, 0)
                            }
                        }
                        #expect(vector.map(\.bitPattern) == byTap.map(\.bitPattern),
                                "level \(level.rawValue), \(count) columns, \(taps) taps, by offsets")
                    }
                }
            }
            // By step: row k starts k floats on (the horizontal pass's sliding line).
            let line = Array(flat.prefix(count + taps - 1))
            var stepByTap = [Float](repeating: .nan, count: count)
            line.withUnsafeBufferPointer { l in
                weights.withUnsafeBufferPointer { w in
                    stepByTap.withUnsafeMutableBufferPointer { out in
                        Self.weightedSumByTap(count, taps: taps, weights: w.baseAddress!, into: out.baseAddress!) {
                            l.baseAddress! + $0
                        }
                    }
                    for level in Self.levels {
                        var vector = [Float](repeating: .nan, count: count)
                        vector.withUnsafeMutableBufferPointer { out in
                            mercurial_weighted_sum_at(level, count, taps, w.baseAddress!, out.baseAddress!, l.baseAddress!, nil, 1)
                        }
                        #expect(vector.map(\.bitPattern) == stepByTap.map(\.bitPattern),
                                "level \(level.rawValue), \(count) columns, \(taps) taps, by step")
                    }
                }
            }
        }
    }

    /// The sum with a running sum in memory, a tap at a time: the reference.
    static func weightedSumByTap(_ count: Int, taps: Int, weights: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                                 source: (Int) -> UnsafePointer<Float>) {
        out.update(repeating: 0, count: count)
        for k in 0..<taps {
            let wk = weights[k], s = source(k)
            for x in 0..<count { out[x] += wk * s[x] }
        }
    }

    /// The level chosen is the widest the kernel says this processor has (/proc/cpuinfo's
    /// flags), so that the test above reaches it: a detection that fell back to a narrower
    /// width would leave the wide paths untested and the blur slow.
    @Test func theWidestLevelIsTheProcessorsWidest() throws {
        #if arch(x86_64) && os(Linux)
        try #require(ProcessInfo.processInfo.environment["MERCURIAL_SIMD"] == nil, "MERCURIAL_SIMD caps the level")
        let info = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = Set(info.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? [])
        let expected = flags.contains("avx512f") ? MERCURIAL_SIMD_AVX512 : flags.contains("avx2") ? MERCURIAL_SIMD_AVX2 : MERCURIAL_SIMD_BASELINE
        #expect(mercurial_simd_best() == expected, "flags: avx512f \(flags.contains("avx512f")), avx2 \(flags.contains("avx2"))")
        #endif
    }
}
