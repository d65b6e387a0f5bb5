/* SGEMM on the tensor cores: mma.sync m16n8k8 with TF32 operands and FP32 accumulation, in one or
 * three passes (the parameter PASSES):
 *   1: C = A_hi B_hi                                  (TF32: 10-bit mantissas, cuBLAS's TF32 mode)
 *   3: C = A_lo B_hi + A_hi B_lo + A_hi B_hi          (3xTF32: each operand split into a TF32 high
 *      part and a TF32 remainder, the lo*lo term dropped: FP32-class accuracy)
 * Block tile 128x128, k tiles of 16, 8 warps as 2 (m) x 4 (n) of 64x32; each k tile is read from
 * global memory into registers (guarded scalar loads: any transposes, leading dimensions, alignment
 * and edges) while the previous one computes, then split once into hi/lo TF32 images in shared
 * memory (rows of 136 words: the fragment reads of a warp hit 32 different banks).
 * Each k tile accumulates in fresh registers, added to the running sums with FP32 adds (the tensor
 * cores' accumulation is not round-to-nearest: over long K its bias reached TF32's error).
 * IEEE: the split of tf32_split.cuh; an infinite or NaN operand has lo = 0 and takes part in the
 * cross terms as 0 (so Inf * finite stays Inf and NaN stays NaN: Inf - Inf, or Inf * a lo of 0 or
 * of the other sign, would make a NaN); a finite value whose TF32 rounding overflows (|x| near
 * FLT_MAX) is truncated instead.
 * Subnormal operands lose what lies below TF32's bit positions (their lo parts vanish): relative
 * errors of up to 2^-7 of such an operand (docs/sgemm_accuracy.md).
 * The k order of every output element is fixed: results are bitwise reproducible. */
#include <cstdint>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"
#include "tf32_split.cuh"

namespace sgemm {
namespace {

constexpr int BM = 128, BN = 128, BK = 16, THREADS = 256, STRIDE = 136;
constexpr int PER_THREAD = BM * BK / THREADS; /* elements of A (and of B) each thread loads per k tile */

/* a hi part for the cross terms: 0 where the value is Inf or NaN (its hi term alone carries it, so
 * that Inf * lo of the other operand, which may be 0 or of the other sign, adds no NaN) */
__device__ __forceinline__ uint32_t finite_or_zero(uint32_t hi)
{
    return (hi & 0x7f800000u) == 0x7f800000u ? 0u : hi;
}

__device__ __forceinline__ void mma(float c[4], const uint32_t a[4], const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

struct tiles {
    uint32_t a_hi[BK][STRIDE], b_hi[BK][STRIDE]; /* [k][m], [k][n] */
    uint32_t a_lo[BK][STRIDE], b_lo[BK][STRIDE];
};

/* the k tile from k0 of op(A) (rows bm0..) and op(B) (columns bn0..) into registers; outside the
 * matrices, zeros. Thread t covers (for a k-contiguous operand) k = t % 16 and rows t / 16 + 16 r,
 * else rows t % 128 and k = t / 128 + 2 r: consecutive threads read consecutive addresses. */
__device__ __forceinline__ void load_tile(const shim_sgemm_args &p, int bm0, int bn0, int k0, float ra[PER_THREAD],
                                          float rb[PER_THREAD])
{
    const int t = threadIdx.x;
#pragma unroll
    for (int r = 0; r < PER_THREAD; ++r) {
        int i, kk;
        if (p.transa) { /* A stored k x m: a[kk + i * lda] */
            kk = t % BK;
            i = t / BK + (THREADS / BK) * r;
        } else { /* a[i + kk * lda] */
            i = t % BM;
            kk = t / BM + (THREADS / BM) * r;
        }
        const int gi = bm0 + i, gk = k0 + kk;
        ra[r] = gi < p.m && gk < p.k ? p.a[p.transa ? gk + (int64_t)gi * p.lda : gi + (int64_t)gk * p.lda] : 0.0f;
        int j;
        if (!p.transb) { /* B stored k x n: b[kk + j * ldb] */
            kk = t % BK;
            j = t / BK + (THREADS / BK) * r;
        } else { /* b[j + kk * ldb] */
            j = t % BN;
            kk = t / BN + (THREADS / BN) * r;
        }
        const int gj = bn0 + j, gk2 = k0 + kk;
        rb[r] = gj < p.n && gk2 < p.k ? p.b[p.transb ? gj + (int64_t)gk2 * p.ldb : gk2 + (int64_t)gj * p.ldb] : 0.0f;
    }
}

template <int PASSES> __device__ __forceinline__ void store_tile(const shim_sgemm_args &p, tiles &s,
                                                                 const float ra[PER_THREAD], const float rb[PER_THREAD])
{
    const int t = threadIdx.x;
#pragma unroll
    for (int r = 0; r < PER_THREAD; ++r) {
        int i = p.transa ? t / BK + (THREADS / BK) * r : t % BM;
        int kk = p.transa ? t % BK : t / BM + (THREADS / BM) * r;
        const split_value a = split<PASSES>(ra[r]);
        s.a_hi[kk][i] = a.hi;
        if (PASSES == 3)
            s.a_lo[kk][i] = a.lo;
        int j = p.transb ? t % BN : t / BK + (THREADS / BK) * r;
        kk = p.transb ? t / BN + (THREADS / BN) * r : t % BK;
        const split_value b = split<PASSES>(rb[r]);
        s.b_hi[kk][j] = b.hi;
        if (PASSES == 3)
            s.b_lo[kk][j] = b.lo;
    }
}

template <int PASSES> __global__ void __launch_bounds__(THREADS) tf32_mma_kernel(const shim_sgemm_args p)
{
    __shared__ tiles s;
    const int bm0 = blockIdx.x * BM, bn0 = blockIdx.y * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = (warp % 2) * 64, wn = (warp / 2) * 32;
    const int gid = lane / 4, tig = lane % 4;

    float acc[4][4][4] = {};
    float ra[PER_THREAD], rb[PER_THREAD];
    load_tile(p, bm0, bn0, 0, ra, rb);
    for (int k0 = 0; k0 < p.k; k0 += BK) {
        store_tile<PASSES>(p, s, ra, rb);
        __syncthreads();
        if (k0 + BK < p.k)
            load_tile(p, bm0, bn0, k0 + BK, ra, rb); /* in flight while this tile computes */
        /* this k tile's products go into a fresh accumulator, added to acc below with FP32 adds: the
         * tensor cores' own accumulation does not round to nearest, and over a long K its bias would
         * grow to TF32's size (measured: 5e-4 of sum |a b| at K = 65536, all-positive inputs) */
        float part[4][4][4] = {};
#pragma unroll
        for (int ks = 0; ks < BK; ks += 8) {
            uint32_t a_hi[4][4], a_lo[4][4], b_hi[4][2], b_lo[4][2];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi) {
                const int r = wm + mi * 16 + gid;
                a_hi[mi][0] = s.a_hi[ks + tig][r];
                a_hi[mi][1] = s.a_hi[ks + tig][r + 8];
                a_hi[mi][2] = s.a_hi[ks + tig + 4][r];
                a_hi[mi][3] = s.a_hi[ks + tig + 4][r + 8];
                if (PASSES == 3) {
                    a_lo[mi][0] = s.a_lo[ks + tig][r];
                    a_lo[mi][1] = s.a_lo[ks + tig][r + 8];
                    a_lo[mi][2] = s.a_lo[ks + tig + 4][r];
                    a_lo[mi][3] = s.a_lo[ks + tig + 4][r + 8];
                }
            }
#pragma unroll
            for (int nj = 0; nj < 4; ++nj) {
                const int c = wn + nj * 8 + gid;
                b_hi[nj][0] = s.b_hi[ks + tig][c];
                b_hi[nj][1] = s.b_hi[ks + tig + 4][c];
                if (PASSES == 3) {
                    b_lo[nj][0] = s.b_lo[ks + tig][c];
                    b_lo[nj][1] = s.b_lo[ks + tig + 4][c];
                }
            }
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int nj = 0; nj < 4; ++nj) {
                    if (PASSES == 3) { /* the small terms first */
                        const uint32_t ax[4] = {finite_or_zero(a_hi[mi][0]), finite_or_zero(a_hi[mi][1]),
                                                finite_or_zero(a_hi[mi][2]), finite_or_zero(a_hi[mi][3])};
                        const uint32_t bx[2] = {finite_or_zero(b_hi[nj][0]), finite_or_zero(b_hi[nj][1])};
                        mma(part[mi][nj], a_lo[mi], bx);
                        mma(part[mi][nj], ax, b_lo[nj]);
                    }
                    mma(part[mi][nj], a_hi[mi], b_hi[nj]);
                }
        }
#pragma unroll
        for (int mi = 0; mi < 4; ++mi)
#pragma unroll
            for (int nj = 0; nj < 4; ++nj)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    acc[mi][nj][e] += part[mi][nj][e];
        __syncthreads();
    }

    /* c0, c1: row gid, columns 2 tig and 2 tig + 1; c2, c3: row gid + 8 */
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int nj = 0; nj < 4; ++nj)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int row = bm0 + wm + mi * 16 + gid + (e >= 2 ? 8 : 0);
                const int col = bn0 + wn + nj * 8 + tig * 2 + (e & 1);
                if (row < p.m && col < p.n) {
                    float *dst = p.c + row + (int64_t)col * p.ldc;
                    const float v = p.alpha * acc[mi][nj][e];
                    *dst = p.beta == 0.0f ? v : v + p.beta * *dst;
                }
            }
}

template <int PASSES> cudaError_t launch(const shim_sgemm_args *p)
{
    const dim3 grid((unsigned)((p->m + BM - 1) / BM), (unsigned)((p->n + BN - 1) / BN));
    if (grid.y > 65535)
        return cudaErrorInvalidConfiguration;
    SHIM_KERNEL_READY(tf32_mma_kernel<PASSES>);
    tf32_mma_kernel<PASSES><<<grid, THREADS, 0, p->stream>>>(*p);
    return cudaGetLastError();
}

} // namespace

int tf32_mma_accepts(const shim_sgemm_args *p)
{
    return (p->n + BN - 1) / BN <= 65535;
}
cudaError_t tf32_mma_launch(const shim_sgemm_args *p)
{
    return launch<1>(p);
}
cudaError_t tf32x3_mma_launch(const shim_sgemm_args *p)
{
    return launch<3>(p);
}

} // namespace sgemm
