/* SGEMM on the tensor cores, second rung: the same arithmetic as tf32_mma.cu (mma.sync m16n8k8,
 * TF32 operands, FP32 accumulation, one pass or three: the parameter PASSES), fed by a cp.async
 * ring instead of register-staged loads.
 *   - 128x128 block tiles, k tiles of 32, 8 warps as 2 (m) x 4 (n) of 64x32, STAGES k tiles in
 *     flight (global -> shared without a register round trip), one barrier per k tile.
 *   - Each operand keeps its storage order in shared memory, so a 16-byte capable operand moves 16
 *     bytes per copy in either transpose: K-contiguous as [r][k] (row stride BK + 4), R-contiguous
 *     as [k][r] (row stride W + 8). Both make a warp's fragment reads (8 rows x 4 k) hit 32
 *     different banks. Tiles that cross an edge, and operands that are not 16-byte capable, are
 *     copied 4 bytes at a time with zero fill (zeros in the k tail keep the sums exact).
 *   - The split into TF32 hi and lo happens on the fragments, in registers, as they are read: no
 *     second image in shared memory and no extra barrier.
 *   - As in tf32_mma.cu, each k tile's products go into fresh accumulators that are then added to
 *     the running sums with FP32 adds (the tensor cores' accumulation is not round-to-nearest), and
 *     the IEEE guards are the same: Inf/NaN operands have lo = 0 and count as 0 in the cross terms;
 *     a finite value whose TF32 rounding would overflow is truncated instead.
 * The k order of every output element is fixed: results are bitwise reproducible. */
#include <atomic>
#include <cstdint>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"
#include "tf32_split.cuh"

namespace sgemm {
namespace {

constexpr int BM = 128, BN = 128, BK = 32, WM = 64, WN = 32;
constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN, THREADS = 32 * WARPS_M * WARPS_N;
constexpr int MT = WM / 16, NT = WN / 8; /* mma tiles per warp along m and n */
constexpr int STAGES = 4;

/* one operand's stage: KC (K-contiguous storage) as [r][k], else [k][r] */
template <bool KC, int W> struct stage_layout {
    static constexpr int LD = KC ? BK + 4 : W + 8;
    static constexpr int FLOATS = KC ? W * LD : BK * LD;
    static __device__ __forceinline__ int at(int r, int l) { return KC ? r * LD + l : l * LD + r; }
};

template <bool KCA, bool KCB> struct stages {
    using LA = stage_layout<KCA, BM>;
    using LB = stage_layout<KCB, BN>;
    static constexpr int FLOATS = LA::FLOATS + LB::FLOATS;
    static constexpr size_t BYTES = sizeof(float) * STAGES * FLOATS;
};

/* the W x BK tile of an operand (rows r0.., k from k0) into a stage, in chunks of four elements
 * along its contiguous side */
template <bool KC, int W>
__device__ __forceinline__ void copy_tile(const operand &x, uint32_t dst0, int r0, int k0, int kend, int tid)
{
    using L = stage_layout<KC, W>;
    constexpr int CHUNKS = W * BK / 4;
    static_assert(CHUNKS % THREADS == 0, "copy shape");
#pragma unroll
    for (int s = 0; s < CHUNKS / THREADS; ++s) {
        const int c = tid + s * THREADS;
        const int r = KC ? c / (BK / 4) : c % (W / 4) * 4;
        const int l = KC ? c % (BK / 4) * 4 : c / (W / 4);
        const int gr = r0 + r, gl = k0 + l;
        const uint32_t dst = dst0 + 4u * (uint32_t)L::at(r, l);
        const bool whole = KC ? gr < x.rows && gl + 3 < kend : gl < kend && gr + 3 < x.rows;
        if (x.vec && whole) {
            cp_async16(dst, element_ptr<KC>(x, gr, gl), 16u);
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int er = KC ? gr : gr + e, el = KC ? gl + e : gl;
                const bool ok = er < x.rows && el < kend;
                /* either layout: the next element along the contiguous side is the next float */
                cp_async4(dst + 4u * e, ok ? element_ptr<KC>(x, er, el) : x.ptr, ok ? 4u : 0u);
            }
        }
    }
}

__device__ __forceinline__ void mma(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                    uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

template <int PASSES, bool KCA, bool KCB>
__global__ void __launch_bounds__(THREADS, 1) tf32_async_kernel(const problem p, int tiles_m)
{
    using S = stages<KCA, KCB>;
    using LA = typename S::LA;
    using LB = typename S::LB;
    extern __shared__ float4 smem_raw[];
    const float *const smem = reinterpret_cast<const float *>(smem_raw);
    const uint32_t base = smem_addr(smem_raw);

    int tm, tn;
    tile_coords<RASTER_GROUP>((int)blockIdx.x, tiles_m, (int)(gridDim.x / tiles_m), tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int tid = (int)threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN;
    const int g = lane / 4, t = lane % 4; /* the fragment coordinates: group, thread in the group */
    const int ktiles = (p.k + BK - 1) / BK;

    auto issue = [&](int kt) {
        const uint32_t stage = base + 4u * (uint32_t)((kt % STAGES) * S::FLOATS);
        copy_tile<KCA, BM>(p.a, stage, m0, kt * BK, p.k, tid);
        copy_tile<KCB, BN>(p.b, stage + 4u * LA::FLOATS, n0, kt * BK, p.k, tid);
    };
    /* one commit group per k tile, empty ones included, so that wait_group counts tiles */
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles)
            issue(s);
        cp_async_commit();
    }

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                acc[i][j][e] = 0.0f;

    for (int kt = 0; kt < ktiles; ++kt) {
        /* tile kt has landed for every thread, and every thread is done with tile kt - 1, whose
         * stage the copies issued next overwrite */
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        if (kt + STAGES - 1 < ktiles)
            issue(kt + STAGES - 1);
        cp_async_commit();

        const float *as = smem + (kt % STAGES) * S::FLOATS;
        const float *bs = as + LA::FLOATS;
        float part[MT][NT][4];
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    part[i][j][e] = 0.0f;
        /* not unrolled: unrolled, the compiler hoists every step's fragments and splits ahead of
         * the mma and runs out of registers */
#pragma unroll 1
        for (int kk = 0; kk < BK; kk += 8) {
            split_value b[NT][2];
#pragma unroll
            for (int j = 0; j < NT; ++j) {
                const int r = wn + j * 8 + g;
                b[j][0] = split<PASSES>(bs[LB::at(r, kk + t)]);
                b[j][1] = split<PASSES>(bs[LB::at(r, kk + t + 4)]);
            }
#pragma unroll
            for (int i = 0; i < MT; ++i) {
                const int r = wm + i * 16 + g;
                const split_value a0 = split<PASSES>(as[LA::at(r, kk + t)]);
                const split_value a1 = split<PASSES>(as[LA::at(r + 8, kk + t)]);
                const split_value a2 = split<PASSES>(as[LA::at(r, kk + t + 4)]);
                const split_value a3 = split<PASSES>(as[LA::at(r + 8, kk + t + 4)]);
#pragma unroll
                for (int j = 0; j < NT; ++j) {
                    if (PASSES == 3) { /* the small terms first */
                        mma(part[i][j], a0.lo, a1.lo, a2.lo, a3.lo, b[j][0].hx, b[j][1].hx);
                        mma(part[i][j], a0.hx, a1.hx, a2.hx, a3.hx, b[j][0].lo, b[j][1].lo);
                    }
                    mma(part[i][j], a0.hi, a1.hi, a2.hi, a3.hi, b[j][0].hi, b[j][1].hi);
                }
            }
        }
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    acc[i][j][e] += part[i][j][e];
    }
    cp_async_wait<0>();

    /* accumulator e of tile (i, j): row g (+8 for e >= 2), column 2t (+1 for odd e) */
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int row = m0 + wm + i * 16 + g + (e >= 2 ? 8 : 0);
                const int col = n0 + wn + j * 8 + 2 * t + (e & 1);
                if (row < p.m && col < p.n)
                    store_c1(p, row, col, acc[i][j][e]);
            }
}

template <int PASSES, bool KCA, bool KCB> cudaError_t launch_layout(const problem &q, int tiles_m, int blocks,
                                                                     cudaStream_t stream)
{
    void (*kernel)(const problem, int) = tf32_async_kernel<PASSES, KCA, KCB>;
    constexpr size_t smem = stages<KCA, KCB>::BYTES;
    const cudaError_t err = smem_attribute_once(kernel, (int)smem);
    if (err != cudaSuccess)
        return err;
    kernel<<<(unsigned)blocks, THREADS, smem, stream>>>(q, tiles_m);
    return cudaGetLastError();
}

template <int PASSES> cudaError_t launch(const shim_sgemm_args *p)
{
    const problem q = make_problem(p);
    const int tiles_m = (p->m + BM - 1) / BM;
    const int64_t blocks = (int64_t)tiles_m * ((p->n + BN - 1) / BN);
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    /* op(A) is K-contiguous when A is stored transposed; op(B)^T when B is not */
    const bool kca = p->transa != 0, kcb = p->transb == 0;
    if (kca)
        return kcb ? launch_layout<PASSES, true, true>(q, tiles_m, (int)blocks, p->stream)
                   : launch_layout<PASSES, true, false>(q, tiles_m, (int)blocks, p->stream);
    return kcb ? launch_layout<PASSES, false, true>(q, tiles_m, (int)blocks, p->stream)
               : launch_layout<PASSES, false, false>(q, tiles_m, (int)blocks, p->stream);
}

} // namespace

int tf32_async_accepts(const shim_sgemm_args *p)
{
    return (int64_t)((p->m + BM - 1) / BM) * ((p->n + BN - 1) / BN) <= INT32_MAX;
}
cudaError_t tf32_async_launch(const shim_sgemm_args *p)
{
    return launch<1>(p);
}
cudaError_t tf32x3_async_launch(const shim_sgemm_args *p)
{
    return launch<3>(p);
}

} // namespace sgemm
