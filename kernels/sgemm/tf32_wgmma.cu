/* SGEMM on the tensor cores, third rung: Hopper's warpgroup MMA (wgmma, sm_90a) in one TF32 pass or
 * three (3xTF32; the parameter PASSES), the arithmetic of tf32_mma.cu on the faster instruction.
 *   - 128x128 block tiles, k tiles of 32, four warpgroups of 64 rows x 64 columns; each k tile is
 *     wgmma.m64n64k8 x 4 k steps x PASSES per warpgroup. (Two warpgroups of 64 x 128 held 128
 *     accumulator registers per thread and spilled: docs/notes/sgemm.md.)
 *   - Both operands come from shared memory, K-major without swizzle (TF32 has no other form):
 *     8 x 4 "core matrices" of 128 contiguous bytes, the next along k 128 bytes on, the next 8 rows
 *     1024 bytes on. Each is split once, on its way into shared memory, into three images: hi, hx
 *     (hi with Inf/NaN replaced by 0, for the cross terms) and lo. (A from registers, split on the
 *     fragments, needed 48 more registers per thread and spilled.)
 *   - Operands go global -> registers -> shared memory (guarded loads: any transpose, leading
 *     dimension, alignment and edge; zeros past the edges), two shared stages: the next tile is
 *     split and stored while the tensor cores run on this one, and the tile after it is loaded.
 *     A warp's loads and stores cover blocks of 8 rows x 4 k, laid so that its shared-memory stores
 *     hit 32 different banks in either storage order.
 *   - Each k tile's products go into fresh accumulators (the first wgmma of the tile does not add),
 *     then added to the running sums with FP32 adds, as in tf32_mma.cu; the IEEE guards of the split
 *     are the same (Inf/NaN have lo = 0 and count as 0 in the cross terms; a finite value whose TF32
 *     rounding would overflow is truncated).
 * Built for sm_90a only (wgmma has no portable form); elsewhere the variant does not accept.
 * The k order of every output element is fixed: results are bitwise reproducible. */
#include <atomic>
#include <cstdint>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"
#include "tf32_split.cuh"
#include "wgmma_tf32.cuh"

namespace sgemm {
namespace {

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int WG_N = 64;                             /* a warpgroup's columns: 64 rows x WG_N */
constexpr int WARPGROUPS = BM / 64 * (BN / WG_N);
constexpr int THREADS = 128 * WARPGROUPS;
constexpr int ACC = WG_N / 2;                        /* accumulators per thread */
constexpr int PER_THREAD = BM * BK / THREADS;        /* elements of A (and of B) each thread moves per k tile */
using wg::CORE_K;
using wg::CORE_N;
using wg::descriptor;
using wg::image_offset;
static_assert(BK == wg::BK, "the images' k");
constexpr int IMAGE_BYTES = BN * BK * 4;   /* one 128 x 32 image (BM == BN) */
constexpr int STAGE_BYTES = 6 * IMAGE_BYTES; /* A's three images, then B's */
constexpr int SMEM_BYTES = 2 * STAGE_BYTES;
enum { HI = 0, HX = 1, LO = 2 };

/* This thread's share of a 128 x 32 tile: PER_THREAD elements, at (r0 + dr(e), k0 + dk(e)) from a
 * base (r0, k0) of its own. A warp moves blocks of 8 rows x 4 k, its lanes along the operand's
 * contiguous side first (coalesced loads; stores to 32 different banks of an image). A thread keeps
 * to one or two rows of a K-contiguous operand and to one k of an R-contiguous one, so that its
 * addresses are one or two bases and constant offsets (the steps are multiples of 8 rows and 4 k:
 * in an image they are constant offsets too). */
static_assert(PER_THREAD == 8 || PER_THREAD == 16, "one or two rows, one k, per thread");
struct share {
    int r0, k0;
};

template <bool KC> __device__ __forceinline__ share share_base(unsigned warp, unsigned lane)
{
    if (KC) /* block rows: warp (8 per thread) or 2 warp, 2 warp + 1 (16); k blocks: all 8 */
        return {(int)(warp * (PER_THREAD / 8) * 8 + lane / 4), (int)(lane % 4)};
    /* row blocks: 8 of the 16 (8 per thread) or all 16; one k block: warp / 2 or warp */
    return {(int)(warp % (16 / PER_THREAD) * PER_THREAD * 8 + lane % 8), (int)(warp / (16 / PER_THREAD) * 4 + lane / 8)};
}

template <bool KC> __host__ __device__ constexpr int step_r(int e)
{
    return KC ? e / 8 * 8 : e * 8;
}
template <bool KC> __host__ __device__ constexpr int step_k(int e)
{
    return KC ? e % 8 * 4 : 0;
}

template <bool KC>
__device__ __forceinline__ void load_share(const operand &x, share at, int r0, int k0, int kend, float v[PER_THREAD])
{
    const int r = r0 + at.r0, k = k0 + at.k0;
#pragma unroll
    for (int e = 0; e < PER_THREAD; ++e)
        v[e] = load_or_zero<KC>(x, r + step_r<KC>(e), k + step_k<KC>(e), kend);
}


/* one operand's share of a k tile, split into its images at image0 */
template <int PASSES, bool KC>
__device__ __forceinline__ void store_images(char *image0, share at, const float v[PER_THREAD])
{
    char *base = image0 + image_offset(at.r0, at.k0);
#pragma unroll
    for (int e = 0; e < PER_THREAD; ++e) {
        const split_value s = split<PASSES>(v[e]);
        char *to = base + step_r<KC>(e) / 8 * CORE_N + step_k<KC>(e) / 4 * CORE_K;
        *reinterpret_cast<uint32_t *>(to + HI * IMAGE_BYTES) = s.hi;
        if (PASSES == 3) {
            *reinterpret_cast<uint32_t *>(to + HX * IMAGE_BYTES) = s.hx;
            *reinterpret_cast<uint32_t *>(to + LO * IMAGE_BYTES) = s.lo;
        }
    }
}

/* this thread's share of a k tile into a stage */
template <int PASSES, bool KCA, bool KCB>
__device__ __forceinline__ void store_share(char *stage, share sa, share sb, const float va[PER_THREAD],
                                            const float vb[PER_THREAD])
{
    store_images<PASSES, KCA>(stage, sa, va);
    store_images<PASSES, KCB>(stage + 3 * IMAGE_BYTES, sb, vb);
    /* the tensor cores read these through the async proxy */
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

template <int PASSES, bool KCA, bool KCB>
__global__ void __launch_bounds__(THREADS, 1) tf32_wgmma_kernel(const problem p, int tiles_m)
{
#ifdef SHIM_WGMMA_DEVICE
    extern __shared__ __align__(128) char smem[];
    int tm, tn;
    tile_coords<RASTER_GROUP>((int)blockIdx.x, tiles_m, (int)(gridDim.x / tiles_m), tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int tid = (int)threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wg_m = warp / 4 % (BM / 64), wg_n = warp / 4 / (BM / 64); /* this warpgroup's place */
    const int row0 = wg_m * 64 + warp % 4 * 16, col0 = wg_n * WG_N; /* this warp's 16 rows, its columns */
    const int g = lane / 4, t = lane % 4;           /* the accumulators' coordinates: group, thread in it */
    const int ktiles = (p.k + BK - 1) / BK;
    const uint32_t smem_base = smem_addr(smem);

    const share sa = share_base<KCA>((unsigned)warp, (unsigned)lane), sb = share_base<KCB>((unsigned)warp, (unsigned)lane);
    float va[PER_THREAD], vb[PER_THREAD];
    load_share<KCA>(p.a, sa, m0, 0, p.k, va);
    load_share<KCB>(p.b, sb, n0, 0, p.k, vb);
    store_share<PASSES, KCA, KCB>(smem, sa, sb, va, vb);
    if (ktiles > 1) {
        load_share<KCA>(p.a, sa, m0, BK, p.k, va);
        load_share<KCB>(p.b, sb, n0, BK, p.k, vb);
    }
    __syncthreads();

    float acc[ACC], part[ACC];
#pragma unroll
    for (int i = 0; i < ACC; ++i)
        acc[i] = part[i] = 0.0f;

    for (int kt = 0; kt < ktiles; ++kt) {
        const int s = kt & 1;
        /* this warpgroup's 64 rows of A's images and WG_N rows of B's */
        uint32_t stage = smem_base + s * STAGE_BYTES;
        asm volatile("" : "+r"(stage)); /* computed here, not 24 descriptors per stage held across the loop */
        const uint32_t a_images = stage + wg_m * 8 * CORE_N;
        const uint32_t b_images = stage + 3 * IMAGE_BYTES + wg_n * (WG_N / 8) * CORE_N;
        wg::fence_registers<WG_N>(part);
        wg::mma_fence();
#pragma unroll
        for (int ks = 0; ks < 4; ++ks) {
            const uint32_t a = a_images + ks * 2 * CORE_K, b = b_images + ks * 2 * CORE_K;
            if (PASSES == 3) { /* the small terms first */
                wg::mma<WG_N>(part, descriptor(a + LO * IMAGE_BYTES), descriptor(b + HX * IMAGE_BYTES), ks);
                wg::mma<WG_N>(part, descriptor(a + HX * IMAGE_BYTES), descriptor(b + LO * IMAGE_BYTES), 1);
                wg::mma<WG_N>(part, descriptor(a + HI * IMAGE_BYTES), descriptor(b + HI * IMAGE_BYTES), 1);
            } else {
                wg::mma<WG_N>(part, descriptor(a + HI * IMAGE_BYTES), descriptor(b + HI * IMAGE_BYTES), ks);
            }
        }
        wg::mma_commit();
        /* while the tensor cores run: the next tile into the other stage (last read by the MMAs of
         * tile kt - 1, finished before the barrier that ended it), the one after into registers */
        if (kt + 1 < ktiles) {
            store_share<PASSES, KCA, KCB>(smem + (s ^ 1) * STAGE_BYTES, sa, sb, va, vb);
            if (kt + 2 < ktiles) {
                load_share<KCA>(p.a, sa, m0, (kt + 2) * BK, p.k, va);
                load_share<KCB>(p.b, sb, n0, (kt + 2) * BK, p.k, vb);
            }
        }
        wg::mma_wait_all();
        wg::fence_registers<WG_N>(part);
#pragma unroll
        for (int i = 0; i < ACC; ++i)
            acc[i] += part[i];
        __syncthreads();
    }

    /* accumulator 4 j + e: row g (+ 8 for e >= 2), column 8 j + 2 t (+ 1 for odd e) */
#pragma unroll
    for (int j = 0; j < WG_N / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int row = m0 + row0 + g + (e >= 2 ? 8 : 0);
            const int col = n0 + col0 + 8 * j + 2 * t + (e & 1);
            if (row < p.m && col < p.n)
                store_c1(p, row, col, acc[4 * j + e]);
        }
#else
    (void)p;
    (void)tiles_m;
    __trap(); /* not built for this GPU: the variant does not accept (wgmma_usable) */
#endif
}

template <int PASSES, bool KCA, bool KCB>
cudaError_t launch_layout(const problem &q, int tiles_m, int blocks, cudaStream_t stream)
{
    void (*kernel)(const problem, int) = tf32_wgmma_kernel<PASSES, KCA, KCB>;
    const cudaError_t err = smem_attribute_once(kernel, SMEM_BYTES);
    if (err != cudaSuccess)
        return err;
    kernel<<<(unsigned)blocks, THREADS, SMEM_BYTES, stream>>>(q, tiles_m);
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

/* the current device is a compute capability 9.0 GPU and this file was built for sm_90a; asked once
 * per device */
bool wgmma_usable()
{
#ifndef SHIM_WGMMA_BUILT
    return false;
#else
    static std::atomic<unsigned long long> known{0}, usable{0};
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) {
        cudaGetLastError();
        return false;
    }
    const unsigned long long bit = 1ull << device;
    if (!(known.load(std::memory_order_acquire) & bit)) {
        int major = 0, minor = 0;
        const bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess &&
                        major == 9 && minor == 0;
        cudaGetLastError(); /* the probe's error is not the caller's */
        if (ok)
            usable.fetch_or(bit, std::memory_order_relaxed);
        known.fetch_or(bit, std::memory_order_release);
    }
    return (usable.load(std::memory_order_relaxed) & bit) != 0;
#endif
}

int tf32_wgmma_accepts(const shim_sgemm_args *p)
{
    return wgmma_usable() && (int64_t)((p->m + BM - 1) / BM) * ((p->n + BN - 1) / BN) <= INT32_MAX;
}
cudaError_t tf32_wgmma_launch(const shim_sgemm_args *p)
{
    return launch<1>(p);
}
cudaError_t tf32x3_wgmma_launch(const shim_sgemm_args *p)
{
    return launch<3>(p);
}

} // namespace sgemm
