#ifndef MERCURIAL_WEIGHTED_SUM_H
#define MERCURIAL_WEIGHTED_SUM_H

#include <stddef.h>

/// The vector width the blur's multiply-add loop runs at.
typedef enum {
    MERCURIAL_SIMD_BASELINE = 0,  ///< SSE2, which every x86-64 has (or the compiler's choice elsewhere)
    MERCURIAL_SIMD_AVX2 = 1,      ///< 8 floats a register
    MERCURIAL_SIMD_AVX512 = 2,    ///< 16 floats a register
} mercurial_simd_level;

/// The widest level this processor and its operating system support, at most
/// MERCURIAL_SIMD (an environment variable: baseline, avx2 or avx512) when it is set.
mercurial_simd_level mercurial_simd_best(void);

/// out[x] = Σ weights[k] · source_k[x] for x in 0..<count, each sum taken from 0
/// and added in the order of k, a multiply and an add per term (never fused): the
/// same bits at every level. source_k is base + offsets[k], or base + k·step when
/// offsets is NULL.
void mercurial_weighted_sum(long count, long taps, const float *weights, float *out,
                            const float *base, const ptrdiff_t *offsets, ptrdiff_t step);

/// The same at a given level (one the processor supports: see mercurial_simd_best).
void mercurial_weighted_sum_at(mercurial_simd_level level, long count, long taps, const float *weights, float *out,
                               const float *base, const ptrdiff_t *offsets, ptrdiff_t step);

#endif
