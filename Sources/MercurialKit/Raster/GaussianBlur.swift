/// A separable Gaussian blur of a coverage mask, computed only over a region and
/// reading zero beyond the image's border.
///
/// A sampled Gaussian is used directly (two passes of 2⌈4σ⌉ + 1 taps, each pass a
/// run of vectorisable multiply-adds over a contiguous row) because it is the one
/// separable kernel that is also isotropic: the liquid loft's normals on a disc
/// must point radially whatever the direction, which box-blur approximations of a
/// Gaussian only roughly do.
struct GaussianBlur: Sendable {
    let sigma: Float
    /// The kernel ends this many σ from its centre.
    static let reachInSigmas: Float = 4
    /// Taps −reach…reach, summing to 1.
    let weights: [Float]
    var reach: Int { weights.count / 2 }

    /// The kernel's taps either side of its centre at `sigma`.
    static func reach(sigma: Float) -> Int { max(1, Int((reachInSigmas * sigma).rounded(.up))) }

    init(sigma: Float) {
        precondition(sigma > 0 && sigma.isFinite, "sigma must be positive and finite, got \(sigma)")
        self.sigma = sigma
        let reach = Self.reach(sigma: sigma)
        var w = (-reach...reach).map { k -> Float in exp(-Float(k * k) / (2 * sigma * sigma)) }
        let sum = w.reduce(0, +)
        for i in w.indices { w[i] /= sum }
        weights = w
    }
}

extension GaussianBlur {
    /// The horizontal pass for one mask row: `source` is the row (zero outside the
    /// columns of `ink`), `target` receives `region.width` blurred values, and `line`
    /// (`region.width + 2·reach` floats, kept zero outside the ink's columns between
    /// calls) holds the row's coverage from `region.minX − reach` on.
    @inline(__always)
    func blurRow(_ source: UnsafePointer<Float>, into target: UnsafeMutablePointer<Float>, region: PixelBounds,
                 ink: PixelBounds, line: UnsafeMutableBufferPointer<Float>, weights w: UnsafeBufferPointer<Float>) {
        let rw = region.width, start = region.minX - reach
        let from = max(start, ink.minX), to = min(region.maxX + reach, ink.maxX)
        if from <= to {
            for x in from...to { line[x - start] = source[x] }
        }
        let line = line.baseAddress!
        Self.weightedSum(rw, taps: w.count, weights: w.baseAddress!, into: target) { k in UnsafePointer(line + k) }
    }

    /// `out[x]` = Σ `weights[k]` · `source(k)[x]` for x in 0..<`count`, each sum taken
    /// from 0 in the order of k: the blur's one multiply-add loop, for both passes.
    /// The sums of 32 columns at a time are kept in registers through all the taps
    /// (a running sum in memory was stored and loaded again at every tap); each
    /// pixel's products are added in the same order as before, so to the bit the same.
    @inline(__always)
    static func weightedSum(_ count: Int, taps: Int, weights: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                            source: (Int) -> UnsafePointer<Float>) {
        #if DEBUG
        // A debug build leaves `SIMD8` unspecialised: the test suite's renders took 2.5 times
        // as long. The same sums, a tap at a time (tests hold the two to the bit).
        weightedSumByTap(count, taps: taps, weights: weights, into: out, source: source)
        #else
        weightedSumInRegisters(count, taps: taps, weights: weights, into: out, source: source)
        #endif
    }

    /// `weightedSum` with a running sum in memory, a tap at a time.
    static func weightedSumByTap(_ count: Int, taps: Int, weights: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                                 source: (Int) -> UnsafePointer<Float>) {
        out.update(repeating: 0, count: count)
        for k in 0..<taps {
            let wk = weights[k], s = source(k)
            for x in 0..<count { out[x] += wk * s[x] }
        }
    }

    /// `weightedSum` with the sums of 32 columns in registers.
    @inline(__always)
    static func weightedSumInRegisters(_ count: Int, taps: Int, weights: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                                       source: (Int) -> UnsafePointer<Float>) {
        typealias V = SIMD8<Float>
        let stride = MemoryLayout<V>.stride
        var x = 0
        while x + 32 <= count {
            var a0 = V(), a1 = V(), a2 = V(), a3 = V()
            for k in 0..<taps {
                let wk = V(repeating: weights[k])
                let s = UnsafeRawPointer(source(k) + x)
                a0 += wk * s.loadUnaligned(as: V.self)
                a1 += wk * s.loadUnaligned(fromByteOffset: stride, as: V.self)
                a2 += wk * s.loadUnaligned(fromByteOffset: 2 * stride, as: V.self)
                a3 += wk * s.loadUnaligned(fromByteOffset: 3 * stride, as: V.self)
            }
            let o = UnsafeMutableRawPointer(out + x)
            o.storeBytes(of: a0, as: V.self)
            o.storeBytes(of: a1, toByteOffset: stride, as: V.self)
            o.storeBytes(of: a2, toByteOffset: 2 * stride, as: V.self)
            o.storeBytes(of: a3, toByteOffset: 3 * stride, as: V.self)
            x += 32
        }
        while x + 8 <= count {
            var a = V()
            for k in 0..<taps { a += V(repeating: weights[k]) * UnsafeRawPointer(source(k) + x).loadUnaligned(as: V.self) }
            UnsafeMutableRawPointer(out + x).storeBytes(of: a, as: V.self)
            x += 8
        }
        while x < count {
            var a: Float = 0
            for k in 0..<taps { a += weights[k] * source(k)[x] }
            out[x] = a
            x += 1
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
