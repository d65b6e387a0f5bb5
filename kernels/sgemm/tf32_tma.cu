/* SGEMM on the tensor cores, fifth rung: the wgmma arithmetic of tf32_wgmma.cu (one TF32 pass or
 * three, the parameter PASSES) with the raw FP32 tiles brought in by TMA, for the shapes where every
 * element takes part in few products (thin M or N, long K, small squares), which the pre-split rung
 * (tf32_presplit.cu) pays for in traffic: docs/notes/sgemm.md, "the thin-shape rung".
 *   - Block tiles of 64x128 or 128x64 (BM; the side of C that is shorter gets the 64), k tiles of
 *     32; two roles, warp-specialised: two splitter warpgroups (the first of their threads also
 *     produces) and one MMA warpgroup.
 *   - The producer thread copies each k tile of A and B, as the operands lie in memory, into
 *     one of RAW_STAGES raw stages with TMA (tensor_map.h: 128-byte swizzle, zeros past every edge),
 *     completing on the stage's "raw full" mbarrier. A K-contiguous operand is one box of 32 k x R
 *     rows; an R-contiguous one R / 32 boxes of 32 rows x 32 k.
 *   - The splitters read a raw stage (a K-contiguous operand as float4 of 4 k; an R-contiguous one
 *     as 4 scalars of one row down k: both take the fewest wavefronts), free it ("raw empty"),
 *     split (on the bits: split()'s results in fewer instructions, with one test a tile for values
 *     near FLT_MAX, Inf or NaN, which take split() itself) into the hi and lo images of one of
 *     IMAGE_STAGES image stages (wgmma_tf32.cuh's layout) once the MMAs have freed it ("image
 *     empty"), and arrive on its "image full".
 *   - The MMA warpgroup computes D (64 x 128) = X Y^T: X the 64-row operand's tile, Y the 128-row
 *     one's (so D is the tile of C, or its transpose when BM == 128), wgmma m64n128k8 on lo*hi,
 *     hi*lo, hi*hi for each 8 k (the small terms first), into fresh accumulators added to the
 *     running sums with FP32 adds after each k tile (the accuracy design of the earlier rungs).
 *     It only issues MMAs and adds: the splitting of the next tiles runs beside it.
 *   - Inf and NaN (three passes) keep their hi and have lo 0, so a cross term may make a NaN where
 *     IEEE gives Inf; every output they reach comes out Inf or NaN, and every output that comes out
 *     Inf or NaN is computed again in FP32 on the CUDA cores (fp32_dot), which gives IEEE's answer
 *     (an overflow included). No flags, and no third image that the MMAs would read.
 *   - K is split where the tiles leave multiprocessors idle: `splits` blocks per tile, each over its
 *     own run of at least MIN_SLICE k tiles, write their sums to the workspace, and a reduction adds
 *     them in slice order and applies alpha and beta (bitwise reproducible).
 * Accepts operands TMA can read (16-byte aligned, leading dimension a multiple of 4) on sm_90a;
 * the selector takes another variant for the others. */
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "bulk_copy.cuh"
#include "sgemm_device.cuh"
#include "sgemm_internal.h"
#include "tensor_map.h"
#include "tf32_split.cuh"
#include "wgmma_tf32.cuh"

namespace sgemm {
namespace {

constexpr int BK = wg::BK;              /* 32 */
constexpr int TILE = 192;               /* BM + BN: 64 + 128 or 128 + 64 */
constexpr int SPLITTERS = 256;          /* two warpgroups split */
constexpr int THREADS = 128 + SPLITTERS; /* the MMA warpgroup first (12 warps: 168 registers each) */
constexpr int ACC = 64;                 /* accumulators per MMA thread: 64 x 128 over 128 threads */
constexpr int ROW_BYTES = BK * 4;       /* a raw or image row of one k tile: 128 bytes */
constexpr int MIN_SLICE = 8;
enum { HI = 0, LO = 1 };
static_assert(TILE * BK / 4 == 6 * SPLITTERS, "a splitter's share of a k tile: 6 units of 4 values");

template <int PASSES> struct shape {
    static constexpr int IMAGES = PASSES == 3 ? 2 : 1;       /* hi, lo */
    static constexpr int RAW = TILE * ROW_BYTES;              /* a raw stage: A's rows, then B's */
    /* an image stage: the 64-row operand's images (X), then the 128-row one's (Y) */
    static constexpr int X_IMAGE = 64 * ROW_BYTES, Y_IMAGE = 128 * ROW_BYTES, Y_BASE = IMAGES * X_IMAGE;
    static constexpr int IMAGE_STAGE = IMAGES * TILE * ROW_BYTES;
    static constexpr int RAW_STAGES = PASSES == 3 ? 3 : 6, IMAGE_STAGES = 3;
    /* 1024 for aligning the raw stages (the swizzle's unit), then the stages and the mbarriers:
     * raw full and empty, image full and empty */
    static constexpr int SMEM = 1024 + RAW_STAGES * RAW + IMAGE_STAGES * IMAGE_STAGE + 2 * (RAW_STAGES + IMAGE_STAGES) * 8;
};
static_assert(shape<3>::SMEM <= 227 * 1024 && shape<1>::SMEM <= 227 * 1024, "one block per SM");

struct grid_plan {
    int bm, bn, tiles_m, tiles_n, ktiles, kslice, splits;
};

grid_plan plan_of(const shim_sgemm_args *p)
{
    grid_plan g;
    g.bm = p->m < p->n ? 64 : 128;
    g.bn = TILE - g.bm;
    g.tiles_m = (p->m + g.bm - 1) / g.bm;
    g.tiles_n = (p->n + g.bn - 1) / g.bn;
    g.ktiles = (p->k + BK - 1) / BK;
    g.kslice = kslice_for((int64_t)g.tiles_m * g.tiles_n, g.ktiles, MIN_SLICE);
    g.splits = std::max(1, (g.ktiles + g.kslice - 1) / g.kslice);
    return g;
}

/* ---- the kernel -------------------------------------------------------------------------------- */

/* A splitter's share of an R x 32 operand tile: R / 32 units of 4 values, unit i at row r0 + 32 i,
 * k 4 kq..4 kq + 3 (sid: the splitter's index, 0..255). Unit i's raw values and image slot lie
 * UNIT_STEP bytes after unit i - 1's, whatever the layout: a thread keeps two bases per operand.
 *   K-contiguous: a warp covers 8 rows x 4 float4 along k (its 8-lane wavefronts: 8 rows, one k
 *   quad); R-contiguous: a warp covers 32 rows (one box) at one k quad, read as 4 scalars down k.
 * Raw tiles are swizzled (chunk c of box row x at chunk c ^ (x % 8)). */
constexpr int UNIT_STEP = 32 * ROW_BYTES;

template <bool KC> struct share {
    int raw;      /* unit 0's float4 (K-contiguous) or first scalar's column base (R-contiguous) */
    int image;    /* unit 0's 16 bytes in an image (wgmma_tf32.cuh's layout) */
    int down[4];  /* R-contiguous: the 4 scalars' offsets from raw, k = 4 kq + j */

    __device__ __forceinline__ explicit share(int sid)
    {
        const int r0 = KC ? sid / 64 * 8 + sid % 8 : sid % 32, kq = KC ? sid / 8 % 8 : sid / 32;
        image = wg::image_offset(r0, 4 * kq);
        if (KC) {
            raw = r0 * ROW_BYTES + ((kq ^ (r0 % 8)) << 4);
        } else {
            raw = r0 % 4 * 4;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int k = 4 * kq + j;
                down[j] = k * ROW_BYTES + (((r0 / 4) ^ (k % 8)) << 4);
            }
        }
    }

    __device__ __forceinline__ float4 read(const char *tile, int i) const
    {
        const char *at = tile + raw + i * UNIT_STEP;
        if (KC)
            return *reinterpret_cast<const float4 *>(at);
        return make_float4(*reinterpret_cast<const float *>(at + down[0]), *reinterpret_cast<const float *>(at + down[1]),
                           *reinterpret_cast<const float *>(at + down[2]), *reinterpret_cast<const float *>(at + down[3]));
    }
};

/* one unit's images at to (hi, then lo one image apart). Inf and NaN keep their hi (lo 0): the
 * outputs they reach come out Inf or NaN, and are computed again in FP32 (the epilogue, the
 * reduction), so no hx image is needed. */
template <int PASSES> __device__ __forceinline__ void store_images(char *to, int image_bytes, const uint4 &hi, const uint4 &lo)
{
    *reinterpret_cast<uint4 *>(to + HI * image_bytes) = hi;
    if (PASSES == 3)
        *reinterpret_cast<uint4 *>(to + LO * image_bytes) = lo;
}

template <int PASSES> __device__ __forceinline__ void store_fast(char *to, int image_bytes, const float4 &x)
{
    uint4 hi, lo;
    split4_fast<PASSES>(x, hi, lo);
    store_images<PASSES>(to, image_bytes, hi, lo);
}

template <int PASSES> __device__ __forceinline__ void store_exact(char *to, int image_bytes, const float4 &x)
{
    uint4 hi, hx, lo;
    split4_exact<PASSES>(x, hi, hx, lo);
    store_images<PASSES>(to, image_bytes, hi, lo);
}

/* the producer: one k tile of an R-row operand at (r0, k0) into a raw stage */
template <bool KC, int R> __device__ __forceinline__ void copy_tile(const CUtensorMap *map, uint32_t dst, int r0, int k0, uint32_t bar)
{
    if (KC) {
        tma_load_2d(dst, map, k0, r0, bar);
    } else {
#pragma unroll
        for (int b = 0; b < R / 32; ++b)
            tma_load_2d(dst + b * 32 * ROW_BYTES, map, r0 + 32 * b, k0, bar);
    }
}

template <int PASSES, int BM, bool KCA, bool KCB>
__global__ void __launch_bounds__(THREADS, 1)
    tf32_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                    const problem p, int tiles_m, int kslice, int splits, float *sums)
{
#ifdef SHIM_WGMMA_DEVICE
    constexpr int BN = TILE - BM;
    using S = shape<PASSES>;
    extern __shared__ __align__(1024) char smem[];
    char *const raw = smem + ((1024 - (smem_addr(smem) & 1023)) & 1023);
    char *const images = raw + S::RAW_STAGES * S::RAW;
    const uint32_t raw_base = smem_addr(raw), image_base = smem_addr(images);
    const uint32_t raw_full = image_base + S::IMAGE_STAGES * S::IMAGE_STAGE, raw_empty = raw_full + 8 * S::RAW_STAGES;
    const uint32_t image_full = raw_empty + 8 * S::RAW_STAGES, image_empty = image_full + 8 * S::IMAGE_STAGES;

    const int slice = (int)blockIdx.x % splits, tile = (int)blockIdx.x / splits;
    const int m0 = tile % tiles_m * BM, n0 = tile / tiles_m * BN;
    const int ktiles = (p.k + BK - 1) / BK;
    const int kt0 = slice * kslice, tiles = min(kslice, ktiles - kt0);
    const int tid = (int)threadIdx.x, lane = tid % 32, warp = tid / 32;

    if (tid == 0) {
        for (int st = 0; st < S::RAW_STAGES; ++st) {
            mbar_init(raw_full + 8 * st, 1);                  /* the producer's expect_tx */
            mbar_init(raw_empty + 8 * st, SPLITTERS / 32);    /* one arrival per splitter warp */
        }
        for (int st = 0; st < S::IMAGE_STAGES; ++st) {
            mbar_init(image_full + 8 * st, SPLITTERS);        /* every splitter, after its stores */
            mbar_init(image_empty + 8 * st, 4);               /* one arrival per MMA warp */
        }
        mbar_init_fence();
    }
    __syncthreads();

    if (tid >= 128) { /* the splitters: raw stage t % RAW_STAGES into image stage t % IMAGE_STAGES */
        const int sid = tid - 128;
        /* the first splitter also produces: tile t's copies into raw stage t % RAW_STAGES (a
         * thirteenth warp would leave 128 registers a thread, too few for the MMA warpgroup) */
        auto produce = [&](int t) {
            const int st = t % S::RAW_STAGES;
            if (t >= S::RAW_STAGES) /* every splitter has read tile t - RAW_STAGES */
                mbar_wait(raw_empty + 8 * st, (unsigned)(t / S::RAW_STAGES - 1) & 1u);
            mbar_expect(raw_full + 8 * st, S::RAW);
            const int k0 = (kt0 + t) * BK;
            const uint32_t dst = raw_base + st * S::RAW;
            copy_tile<KCA, BM>(&map_a, dst, m0, k0, raw_full + 8 * st);
            copy_tile<KCB, BN>(&map_b, dst + BM * ROW_BYTES, n0, k0, raw_full + 8 * st);
        };
        if (sid == 0)
            for (int t = 0; t < min(S::RAW_STAGES - 1, tiles); ++t)
                produce(t);
        const share<KCA> sa(sid);
        const share<KCB> sb(sid);
        constexpr int UA = BM / 32, UB = BN / 32; /* units of A and of B per splitter */
        /* where A's and B's images start in an image stage: X (the 64-row operand) first */
        constexpr int A_IMAGES = BM == 64 ? 0 : S::Y_BASE, B_IMAGES = BM == 64 ? S::Y_BASE : 0;
        constexpr int A_IMAGE = BM * ROW_BYTES, B_IMAGE = BN * ROW_BYTES; /* one image of each */
        for (int t = 0; t < tiles; ++t) {
            /* RAW_STAGES - 1 tiles ahead: the stage tile t - 1 used, which the other splitters have
             * most likely read by now */
            if (sid == 0 && t + S::RAW_STAGES - 1 < tiles)
                produce(t + S::RAW_STAGES - 1);
            const int st = t % S::RAW_STAGES;
            mbar_wait(raw_full + 8 * st, (unsigned)(t / S::RAW_STAGES) & 1u);
            const char *const stage = raw + st * S::RAW;
            float4 va[UA], vb[UB];
#pragma unroll
            for (int i = 0; i < UA; ++i)
                va[i] = sa.read(stage, i);
#pragma unroll
            for (int i = 0; i < UB; ++i)
                vb[i] = sb.read(stage + BM * ROW_BYTES, i);
            __syncwarp();
            if (lane == 0)
                mbar_arrive(raw_empty + 8 * st);
            const int is = t % S::IMAGE_STAGES;
            if (t >= S::IMAGE_STAGES) /* the MMAs of tile t - IMAGE_STAGES have read this image stage */
                mbar_wait(image_empty + 8 * is, (unsigned)(t / S::IMAGE_STAGES - 1) & 1u);
            char *const image = images + is * S::IMAGE_STAGE;
            char *const ia = image + A_IMAGES + sa.image, *const ib = image + B_IMAGES + sb.image;
            /* one test for the whole share: the rounding on the bits when no value is near FLT_MAX,
             * Inf or NaN, split() on each value otherwise */
            uint32_t big = 0;
#pragma unroll
            for (int i = 0; i < UA; ++i)
                big = max(big, max_bits(va[i]));
#pragma unroll
            for (int i = 0; i < UB; ++i)
                big = max(big, max_bits(vb[i]));
            auto store_share = [&](auto store) {
#pragma unroll
                for (int i = 0; i < UA; ++i)
                    store(ia + i * UNIT_STEP, A_IMAGE, va[i]);
#pragma unroll
                for (int i = 0; i < UB; ++i)
                    store(ib + i * UNIT_STEP, B_IMAGE, vb[i]);
            };
            if (big < FAST_LIMIT)
                store_share([](char *to, int bytes, const float4 &x) { store_fast<PASSES>(to, bytes, x); });
            else
                store_share([](char *to, int bytes, const float4 &x) { store_exact<PASSES>(to, bytes, x); });
            /* the tensor cores read the images through the async proxy */
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
            mbar_arrive(image_full + 8 * is);
        }
        return;
    }

    /* the MMA warpgroup: D (64 x 128) = X Y^T over the tile's k range, X the 64-row operand (A when
     * BM == 64, else B: then D is the tile of C transposed) */
    float acc[ACC], part[ACC];
#pragma unroll
    for (int i = 0; i < ACC; ++i)
        acc[i] = part[i] = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        const int is = t % S::IMAGE_STAGES;
        mbar_wait(image_full + 8 * is, (unsigned)(t / S::IMAGE_STAGES) & 1u);
        uint32_t x = image_base + is * S::IMAGE_STAGE;
        asm volatile("" : "+r"(x));
        const uint32_t y = x + S::Y_BASE;
        wg::fence_registers<128>(part);
        wg::mma_fence();
#pragma unroll
        for (int ks = 0; ks < 4; ++ks) {
            const uint32_t xk = x + ks * 2 * wg::CORE_K, yk = y + ks * 2 * wg::CORE_K;
            if (PASSES == 3) { /* the small terms first */
                wg::mma<128>(part, wg::descriptor(xk + LO * S::X_IMAGE), wg::descriptor(yk + HI * S::Y_IMAGE), ks);
                wg::mma<128>(part, wg::descriptor(xk + HI * S::X_IMAGE), wg::descriptor(yk + LO * S::Y_IMAGE), 1);
                wg::mma<128>(part, wg::descriptor(xk + HI * S::X_IMAGE), wg::descriptor(yk + HI * S::Y_IMAGE), 1);
            } else {
                wg::mma<128>(part, wg::descriptor(xk + HI * S::X_IMAGE), wg::descriptor(yk + HI * S::Y_IMAGE), ks);
            }
        }
        wg::mma_commit();
        wg::mma_wait_all();
        wg::fence_registers<128>(part);
        __syncwarp();
        if (lane == 0)
            mbar_arrive(image_empty + 8 * is);
#pragma unroll
        for (int i = 0; i < ACC; ++i)
            acc[i] += part[i];
    }

    /* accumulator 4 j + e: D row 16 warp + g (+ 8 for e >= 2), column 8 j + 2 tq (+ 1 for odd e);
     * with K split, the sums (alpha and beta are the reduction's). Three passes: a sum that came out
     * Inf or NaN is computed again in FP32 (an Inf or NaN operand, whose lo is 0, or an overflow) */
    const int g = lane / 4, tq = lane % 4;
    const int64_t total = (int64_t)p.m * p.n;
#pragma unroll
    for (int j = 0; j < 16; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int di = warp * 16 + g + (e >= 2 ? 8 : 0), dj = 8 * j + 2 * tq + (e & 1);
            const int row = BM == 64 ? m0 + di : m0 + dj, col = BM == 64 ? n0 + dj : n0 + di;
            if (row < p.m && col < p.n) {
                if (splits > 1)
                    sums[slice * total + (int64_t)col * p.m + row] = acc[4 * j + e];
                else if (PASSES == 3 && !isfinite(acc[4 * j + e]))
                    store_c1(p, row, col, fp32_dot(p, KCA, !KCB, row, col));
                else
                    store_c1(p, row, col, acc[4 * j + e]);
            }
        }
#else
    (void)map_a;
    (void)map_b;
    (void)p;
    (void)tiles_m;
    (void)kslice;
    (void)splits;
    (void)sums;
    __trap(); /* not built for this GPU: the variant does not accept */
#endif
}

/* split K: C := alpha * (the slices' sums, added in slice order) + beta * C; three passes: a sum
 * that came out Inf or NaN in FP32, as the epilogue does */
template <int PASSES>
__global__ void __launch_bounds__(256) reduce_kernel(const problem p, int transa, int transb, const float *sums, int splits)
{
    const int64_t total = (int64_t)p.m * p.n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        float s = sums[e];
        for (int sl = 1; sl < splits; ++sl)
            s += sums[sl * total + e];
        const int i = (int)(e % p.m), j = (int)(e / p.m);
        store_c1(p, i, j, PASSES == 3 && !isfinite(s) ? fp32_dot(p, transa, transb, i, j) : s);
    }
}

/* ---- launch ------------------------------------------------------------------------------------ */

float *sums_of(const shim_sgemm_args *p)
{
    return (float *)(((uintptr_t)p->work + 15) & ~(uintptr_t)15);
}

/* the operand op(X) as R x K: K-contiguous when X is stored transposed for A (not for B) */
bool map_operand(CUtensorMap *map, const float *x, int64_t ld, bool kc, int rows, int k, int box_rows)
{
    return kc ? tensor_map_2d(map, x, k, rows, ld, BK, box_rows) : tensor_map_2d(map, x, rows, k, ld, 32, BK);
}

template <int PASSES, int BM, bool KCA, bool KCB> cudaError_t launch_layout(const shim_sgemm_args *p, const grid_plan &g)
{
    CUtensorMap map_a, map_b;
    if (!map_operand(&map_a, p->a, p->lda, KCA, p->m, p->k, BM) ||
        !map_operand(&map_b, p->b, p->ldb, KCB, p->n, p->k, TILE - BM))
        return cudaErrorInvalidValue; /* accepts() said the operands fit TMA's rules */
    void (*kernel)(const CUtensorMap, const CUtensorMap, const problem, int, int, int, float *) =
        tf32_tma_kernel<PASSES, BM, KCA, KCB>;
    static std::atomic<unsigned long long> configured{0}; /* one per instantiation */
    cudaError_t err = smem_attribute_once(kernel, shape<PASSES>::SMEM, configured);
    if (err != cudaSuccess)
        return err;
    const problem q = make_problem(p);
    float *sums = g.splits > 1 ? sums_of(p) : nullptr;
    kernel<<<(unsigned)((int64_t)g.tiles_m * g.tiles_n * g.splits), THREADS, shape<PASSES>::SMEM, p->stream>>>(
        map_a, map_b, q, g.tiles_m, g.kslice, g.splits, sums);
    err = cudaGetLastError();
    if (err == cudaSuccess && g.splits > 1) {
        const int64_t total = (int64_t)p->m * p->n;
        const int64_t blocks = std::min<int64_t>((total + 255) / 256, (int64_t)sm_count() * 16);
        reduce_kernel<PASSES><<<(unsigned)blocks, 256, 0, p->stream>>>(q, p->transa, p->transb, sums, g.splits);
        err = cudaGetLastError();
    }
    return err;
}

template <int PASSES, int BM> cudaError_t launch_tile(const shim_sgemm_args *p, const grid_plan &g)
{
    /* op(A) is K-contiguous when A is stored transposed; op(B)^T when B is not */
    const bool kca = p->transa != 0, kcb = p->transb == 0;
    if (kca)
        return kcb ? launch_layout<PASSES, BM, true, true>(p, g) : launch_layout<PASSES, BM, true, false>(p, g);
    return kcb ? launch_layout<PASSES, BM, false, true>(p, g) : launch_layout<PASSES, BM, false, false>(p, g);
}

template <int PASSES> cudaError_t launch(const shim_sgemm_args *p)
{
    const grid_plan g = plan_of(p);
    return g.bm == 64 ? launch_tile<PASSES, 64>(p, g) : launch_tile<PASSES, 128>(p, g);
}

} // namespace

int tf32_tma_accepts(const shim_sgemm_args *p)
{
    if (!wgmma_usable() || !tma_readable(p->a, p->lda) || !tma_readable(p->b, p->ldb) || !tensor_maps_usable())
        return 0;
    const grid_plan g = plan_of(p);
    return (int64_t)g.tiles_m * g.tiles_n * g.splits <= INT32_MAX;
}

size_t tf32_tma_work(const shim_sgemm_args *p)
{
    const grid_plan g = plan_of(p);
    return g.splits > 1 ? 16 + (size_t)g.splits * p->m * p->n * sizeof(float) : 0;
}

/* Seconds a call is expected to take, for the selector to weigh against the other kernels: the
 * blocks' waves (a k tile of a block, TILE_S, and a block's start and end, BLOCK_S) or the operands'
 * first reading from memory if that is longer, then the reduction and the launch. Rates measured on
 * the H200 (2026-11-23, docs/notes/sgemm.md "the thin-shape rung"): within 7 % of the measured time
 * on 2048^3, 4096^3, 1000^3, 64x4096x4096, 8192x128x8192 and 16384x16384x256. */
double tf32_tma_cost(const shim_sgemm_args *p, int passes)
{
    constexpr double BYTES_PER_S = 3.0e12, BLOCK_S = 2.9e-6, LAUNCH_S = 4.0e-6, REDUCE_S = 4.0e-6;
    const double tile_s = passes == 3 ? 1.05e-6 : 0.70e-6;
    const grid_plan g = plan_of(p);
    const int sms = sm_count();
    const int64_t waves = ((int64_t)g.tiles_m * g.tiles_n * g.splits + sms - 1) / sms;
    const double bytes = 4.0 * p->k * ((double)p->m + p->n) + 4.0 * p->m * (double)p->n * (p->beta != 0.0f ? 2 : 1);
    const double gemm = std::max((double)waves * (g.kslice * tile_s + BLOCK_S), bytes / BYTES_PER_S);
    const double reduce = g.splits > 1 ? REDUCE_S + 2.0 * 4 * g.splits * p->m * (double)p->n / BYTES_PER_S : 0.0;
    return gemm + reduce + LAUNCH_S;
}

cudaError_t tf32_tma_launch(const shim_sgemm_args *p)
{
    return launch<1>(p);
}
cudaError_t tf32x3_tma_launch(const shim_sgemm_args *p)
{
    return launch<3>(p);
}

} // namespace sgemm
