// The Gaussian blur's multiply-add loop (GaussianBlur.swift), at the widest vector
// width the processor has. It is C, not Swift, because Swift cannot compile one
// function for several instruction sets and pick among them at run time: the
// package must run on any x86-64 (SSE2), while AVX-512 sums 16 columns a register
// against SSE2's 4 (a 161-tap pass over a 1080p mask: 21 ms at SSE2, 8.4 at AVX2,
// 5.4 at AVX-512, on one core). Every level adds the same products in the same
// order, a rounded multiply then a rounded add, so the bits do not depend on it.
#include "weighted_sum.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// A fused multiply-add rounds once where a multiply and an add round twice: never fuse.
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

#define SOURCE(k) (base + (offsets ? offsets[k] : (ptrdiff_t)(k) * step))

// The scalar tail, for columns past the last whole register (all of them off x86-64).
static void weighted_sum_scalar(long from, long count, long taps, const float *weights, float *out,
                                const float *base, const ptrdiff_t *offsets, ptrdiff_t step) {
    for (long x = from; x < count; x++) {
        float a = 0;
        for (long k = 0; k < taps; k++) a += weights[k] * SOURCE(k)[x];
        out[x] = a;
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

// Four registers of sums, W columns each, carried through every tap.
#define WEIGHTED_SUM(NAME, ATTRIBUTES, V, W, LOAD, STORE, SET1, MUL, ADD, ZERO)                              \
    ATTRIBUTES static long NAME(long count, long taps, const float *weights, float *out, const float *base,  \
                                const ptrdiff_t *offsets, ptrdiff_t step) {                                  \
        long x = 0;                                                                                          \
        for (; x + 4 * W <= count; x += 4 * W) {                                                             \
            V a0 = ZERO, a1 = ZERO, a2 = ZERO, a3 = ZERO;                                                    \
            for (long k = 0; k < taps; k++) {                                                                \
                const float *s = SOURCE(k) + x;                                                              \
                V w = SET1(weights[k]);                                                                      \
                a0 = ADD(a0, MUL(w, LOAD(s)));                                                               \
                a1 = ADD(a1, MUL(w, LOAD(s + W)));                                                           \
                a2 = ADD(a2, MUL(w, LOAD(s + 2 * W)));                                                       \
                a3 = ADD(a3, MUL(w, LOAD(s + 3 * W)));                                                       \
            }                                                                                                \
            STORE(out + x, a0);                                                                              \
            STORE(out + x + W, a1);                                                                          \
            STORE(out + x + 2 * W, a2);                                                                      \
            STORE(out + x + 3 * W, a3);                                                                      \
        }                                                                                                    \
        for (; x + W <= count; x += W) {                                                                     \
            V a = ZERO;                                                                                      \
            for (long k = 0; k < taps; k++) a = ADD(a, MUL(SET1(weights[k]), LOAD(SOURCE(k) + x)));          \
            STORE(out + x, a);                                                                               \
        }                                                                                                    \
        return x;                                                                                            \
    }

WEIGHTED_SUM(weighted_sum_sse2, , __m128, 4, _mm_loadu_ps, _mm_storeu_ps, _mm_set1_ps, _mm_mul_ps, _mm_add_ps,
             _mm_setzero_ps())
WEIGHTED_SUM(weighted_sum_avx2, __attribute__((target("avx2"))), __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps,
             _mm256_set1_ps, _mm256_mul_ps, _mm256_add_ps, _mm256_setzero_ps())
WEIGHTED_SUM(weighted_sum_avx512, __attribute__((target("avx512f"))), __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps,
             _mm512_set1_ps, _mm512_mul_ps, _mm512_add_ps, _mm512_setzero_ps())

static mercurial_simd_level detected(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return MERCURIAL_SIMD_AVX512;
    if (__builtin_cpu_supports("avx2")) return MERCURIAL_SIMD_AVX2;
    return MERCURIAL_SIMD_BASELINE;
}
#else
static mercurial_simd_level detected(void) { return MERCURIAL_SIMD_BASELINE; }
#endif

static mercurial_simd_level capped(mercurial_simd_level level) {
    const char *cap = getenv("MERCURIAL_SIMD");
    if (!cap) return level;
    mercurial_simd_level most = strcmp(cap, "baseline") == 0 ? MERCURIAL_SIMD_BASELINE
                              : strcmp(cap, "avx2") == 0     ? MERCURIAL_SIMD_AVX2
                                                             : MERCURIAL_SIMD_AVX512;
    return level < most ? level : most;
}

// Found on first use; every thread that races to find it finds the same value.
static _Atomic int best_level = -1;

mercurial_simd_level mercurial_simd_best(void) {
    int level = atomic_load_explicit(&best_level, memory_order_relaxed);
    if (level < 0) {
        level = (int)capped(detected());
        atomic_store_explicit(&best_level, level, memory_order_relaxed);
    }
    return (mercurial_simd_level)level;
}

void mercurial_weighted_sum_at(mercurial_simd_level level, long count, long taps, const float *weights, float *out,
                               const float *base, const ptrdiff_t *offsets, ptrdiff_t step) {
    long done = 0;
#if defined(__x86_64__)
    switch (level) {
    case MERCURIAL_SIMD_AVX512: done = weighted_sum_avx512(count, taps, weights, out, base, offsets, step); break;
    case MERCURIAL_SIMD_AVX2: done = weighted_sum_avx2(count, taps, weights, out, base, offsets, step); break;
    default: done = weighted_sum_sse2(count, taps, weights, out, base, offsets, step); break;
    }
#else
    (void)level;
#endif
    weighted_sum_scalar(done, count, taps, weights, out, base, offsets, step);
}

void mercurial_weighted_sum(long count, long taps, const float *weights, float *out, const float *base,
                            const ptrdiff_t *offsets, ptrdiff_t step) {
    mercurial_weighted_sum_at(mercurial_simd_best(), count, taps, weights, out, base, offsets, step);
}
