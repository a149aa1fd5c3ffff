import CKernels

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
        Self.weightedSum(rw, taps: w.count, weights: w.baseAddress!, into: target, base: line.baseAddress!, step: 1)
    }

    /// `out[x]` = Σ `weights[k]` · `source_k[x]` for x in 0..<`count`, each sum taken
    /// from 0 in the order of k, where `source_k` is `base + offsets[k]`, or `base + k·step`
    /// without offsets: the blur's one multiply-add loop, for both passes. In C
    /// (CKernels), at the widest vector width the processor has; every width gives the
    /// same bits as the plain sum a tap at a time (`GaussianBlurTests`).
    @inline(__always)
    static func weightedSum(_ count: Int, taps: Int, weights: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                            base: UnsafePointer<Float>, offsets: UnsafePointer<Int>? = nil, step: Int = 0) {
        mercurial_weighted_sum(count, taps, weights, out, base, offsets, step)
    }
}

#if canImport(Glibc)
import Glibc
#endif
