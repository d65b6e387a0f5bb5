/* SGEMM on the tensor cores, fifth rung: the wgmma arithmetic of tf32_wgmma.cu (one TF32 pass or
 * three, the parameter PASSES) with the raw FP32 tiles brought in by TMA, for the shapes where every
 * element takes part in few products (thin M or N, long K, small squares), which the pre-split rung
 * (tf32_presplit.cu) pays for in traffic: docs/notes/sgemm.md, "the thin-shape rung".
 *   - Block tiles of 64x128 or 128x64 (BM; the side of C that is shorter gets the 64), k tiles of
 *     32. X is the 64-row operand's tile, Y the 128-row one's; D (64 x 128) = X Y^T is the tile of C,
 *     or its transpose when BM == 128. Two roles, warp-specialised: two splitter warpgroups (the
 *     first of their threads also produces) and one MMA warpgroup, which takes registers from the
 *     splitters (setmaxnreg).
 *   - The producer thread copies each k tile of A and B, as the operands lie in memory, into one of
 *     RAW_STAGES raw stages with TMA (tensor_map.h: 128-byte swizzle, zeros past every edge),
 *     completing on the stage's "raw full" mbarrier. A K-contiguous operand is one box of 32 k x R
 *     rows; an R-contiguous one R / 32 boxes of 32 rows x 32 k. Every warp frees a raw stage once it
 *     has read its part ("raw empty").
 *   - The splitters read Y from a raw stage (K-contiguous as float4 of 4 k; R-contiguous as 4 scalars
 *     of one row down k: both take the fewest wavefronts) and split it (on the bits: split()'s
 *     results in fewer instructions, with one test a share for values near FLT_MAX, Inf or NaN,
 *     which take split() itself) into the hi and lo images of one of IMAGE_STAGES image stages
 *     (wgmma_tf32.cuh's layout) once the MMAs have freed it ("image empty"); then "image full".
 *   - The MMA warpgroup reads X from the raw stage itself, as the A fragments of wgmma (16 values a
 *     thread a k tile), splits them in registers by the same rule, and issues wgmma m64n128k8 with A
 *     from registers and Y's images by descriptor: lo*hi, hi*lo, hi*hi for each 8 k (the small terms
 *     first), into fresh accumulators added to the running sums with FP32 adds after each k tile
 *     (the accuracy design of the earlier rungs). Tile t + 1's X is read and split while tile t's
 *     MMAs run. X never goes through an image: a third less shared-memory traffic a tile than
 *     splitting both operands into images, and the MMAs read 4 KB of images per instruction, not 6.
 *   - Inf and NaN (three passes): the rule of tf32_outputs.cuh (hi kept, lo 0, every output that
 *     comes out Inf or NaN computed again in FP32), so no third image.
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
#include "tf32_outputs.cuh"
#include "tf32_split.cuh"
#include "wgmma_tf32.cuh"

namespace sgemm {
namespace {

constexpr int BK = wg::BK;              /* 32 */
constexpr int TILE = 192;               /* BM + BN: 64 + 128 or 128 + 64 */
constexpr int SPLITTERS = 256;          /* two warpgroups split Y */
constexpr int THREADS = 128 + SPLITTERS; /* the MMA warpgroup first (12 warps: 168 registers each at launch) */
/* setmaxnreg: the MMA warpgroup holds 64 sums, 64 partial sums and two k tiles of X's hi and lo
 * fragments (64): it takes registers from the splitters, the total staying 168 a thread */
constexpr int MMA_REGISTERS = 232, SPLITTER_REGISTERS = 136;
static_assert(128 * MMA_REGISTERS + SPLITTERS * SPLITTER_REGISTERS <= THREADS * 168, "the block's registers");
constexpr int ACC = 64;                 /* accumulators per MMA thread: 64 x 128 over 128 threads */
constexpr int ROW_BYTES = BK * 4;       /* a raw or image row of one k tile: 128 bytes */
constexpr int MIN_SLICE = 8;
enum { HI = 0, LO = 1 };

template <int PASSES> struct shape {
    static constexpr int IMAGES = PASSES == 3 ? 2 : 1;       /* hi, lo */
    static constexpr int RAW = TILE * ROW_BYTES;              /* a raw stage: A's rows, then B's */
    static constexpr int Y_IMAGE = 128 * ROW_BYTES;           /* one image of the 128-row operand */
    static constexpr int IMAGE_STAGE = IMAGES * Y_IMAGE;
    static constexpr int RAW_STAGES = PASSES == 3 ? 4 : 6, IMAGE_STAGES = 4;
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

/* Raw tiles are swizzled (chunk c of box row x at chunk c ^ (x % 8)): the byte offset of element
 * (r, k) of an R x 32 operand tile, K-contiguous (row r, 128 bytes of k) or R-contiguous (boxes of
 * 32 rows, one 128-byte row per k) */
template <bool KC> __device__ __forceinline__ int raw_offset(int r, int k)
{
    return KC ? r * ROW_BYTES + (((k / 4) ^ (r % 8)) << 4) + k % 4 * 4
              : r / 32 * 32 * ROW_BYTES + k * ROW_BYTES + ((((r % 32) / 4) ^ (k % 8)) << 4) + r % 4 * 4;
}

/* A splitter's share of the 128 x 32 Y tile: 4 units of 4 values, unit i at row r0 + 32 i,
 * k 4 kq..4 kq + 3 (sid: the splitter's index, 0..255). Unit i's raw values and image slot lie
 * UNIT_STEP bytes after unit i - 1's, whatever the layout: a thread keeps two bases.
 *   K-contiguous: a warp covers 8 rows x 4 float4 along k (its 8-lane wavefronts: 8 rows, one k
 *   quad); R-contiguous: a warp covers 32 rows (one box) at one k quad, read as 4 scalars down k. */
constexpr int UNIT_STEP = 32 * ROW_BYTES, UNITS = 4;

template <bool KC> struct share {
    int raw;      /* unit 0's float4 (K-contiguous) or first scalar's column base (R-contiguous) */
    int image;    /* unit 0's 16 bytes in an image (wgmma_tf32.cuh's layout) */
    int down[4];  /* R-contiguous: the 4 scalars' offsets from raw, k = 4 kq + j */

    __device__ __forceinline__ explicit share(int sid)
    {
        const int r0 = KC ? sid / 64 * 8 + sid % 8 : sid % 32, kq = KC ? sid / 8 % 8 : sid / 32;
        image = wg::image_offset(r0, 4 * kq);
        if (KC) {
            raw = raw_offset<true>(r0, 4 * kq);
        } else {
            raw = r0 % 4 * 4;
#pragma unroll
            for (int j = 0; j < 4; ++j)
                down[j] = raw_offset<false>(r0, 4 * kq + j) - raw;
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

/* X's fragments for one k tile, as mma_rs128 takes them: [ks] for k 8 ks..8 ks + 7 */
struct x_fragments {
    uint32_t hi[BK / 8][4], lo[BK / 8][4];
};

/* where an MMA thread's 16 values of X lie in a raw tile, value e of k step ks at
 * raw_offset(16 warp + g + 8 (e & 1), 8 ks + tq + 4 (e >> 1)): the swizzle makes the offsets
 * depend on the thread, not on the tile, so they are worked out once. K-contiguous: rows 8 apart
 * are 1024 bytes apart (the same chunk XOR), so 8 offsets, one per (ks, e >> 1); R-contiguous:
 * k 8 apart are 1024 bytes apart, so 4, one per (e & 1, e >> 1). */
template <bool KC> struct x_places {
    int at[KC ? 8 : 4];

    __device__ __forceinline__ x_places(int lane, int warp)
    {
        const int r = 16 * warp + lane / 4, tq = lane % 4;
#pragma unroll
        for (int i = 0; i < (KC ? 8 : 4); ++i)
            at[i] = KC ? raw_offset<true>(r, 8 * (i / 2) + tq + 4 * (i % 2))
                       : raw_offset<false>(r + 8 * (i / 2), tq + 4 * (i % 2));
    }
    __device__ __forceinline__ int of(int ks, int e) const
    {
        return KC ? at[2 * ks + e / 2] + (e & 1) * 8 * ROW_BYTES : at[2 * (e & 1) + e / 2] + ks * 8 * ROW_BYTES;
    }
};

/* an MMA thread's 16 values of the X tile at raw, split into its fragments (the same fast / exact
 * rule as the splitters, one test for the 16) */
template <int PASSES, bool KC> __device__ __forceinline__ void split_x(const char *raw, const x_places<KC> &at, x_fragments &f)
{
    float4 v[BK / 8];
#pragma unroll
    for (int ks = 0; ks < BK / 8; ++ks)
        v[ks] = make_float4(*reinterpret_cast<const float *>(raw + at.of(ks, 0)),
                            *reinterpret_cast<const float *>(raw + at.of(ks, 1)),
                            *reinterpret_cast<const float *>(raw + at.of(ks, 2)),
                            *reinterpret_cast<const float *>(raw + at.of(ks, 3)));
    uint32_t big = 0;
#pragma unroll
    for (int ks = 0; ks < BK / 8; ++ks)
        big = max(big, max_bits(v[ks]));
    uint4 hi[BK / 8], lo[BK / 8];
    if (big < FAST_LIMIT) {
#pragma unroll
        for (int ks = 0; ks < BK / 8; ++ks)
            split4_fast<PASSES>(v[ks], hi[ks], lo[ks]);
    } else {
#pragma unroll
        for (int ks = 0; ks < BK / 8; ++ks) {
            uint4 hx;
            split4_exact<PASSES>(v[ks], hi[ks], hx, lo[ks]);
        }
    }
#pragma unroll
    for (int ks = 0; ks < BK / 8; ++ks) {
        f.hi[ks][0] = hi[ks].x, f.hi[ks][1] = hi[ks].y, f.hi[ks][2] = hi[ks].z, f.hi[ks][3] = hi[ks].w;
        f.lo[ks][0] = lo[ks].x, f.lo[ks][1] = lo[ks].y, f.lo[ks][2] = lo[ks].z, f.lo[ks][3] = lo[ks].w;
    }
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

/* the mbarriers and stages of a block */
template <int PASSES> struct pipeline {
    using S = shape<PASSES>;
    char *raw;                    /* RAW_STAGES raw stages, 1024-aligned */
    uint32_t raw_base, image_base;
    uint32_t raw_full, raw_empty, image_full, image_empty;

    __device__ __forceinline__ explicit pipeline(char *smem)
    {
        raw = smem + ((1024 - (smem_addr(smem) & 1023)) & 1023);
        raw_base = smem_addr(raw);
        image_base = raw_base + S::RAW_STAGES * S::RAW;
        raw_full = image_base + S::IMAGE_STAGES * S::IMAGE_STAGE;
        raw_empty = raw_full + 8 * S::RAW_STAGES;
        image_full = raw_empty + 8 * S::RAW_STAGES;
        image_empty = image_full + 8 * S::IMAGE_STAGES;
    }
    __device__ __forceinline__ void wait_raw(int t) const
    {
        mbar_wait(raw_full + 8 * (t % S::RAW_STAGES), (unsigned)(t / S::RAW_STAGES) & 1u);
    }
    __device__ __forceinline__ const char *raw_stage(int t) const
    {
        return raw + t % S::RAW_STAGES * S::RAW;
    }
    /* a warp is done reading raw stage t (lane 0 arrives once the warp's reads are done) */
    __device__ __forceinline__ void free_raw(int t, int lane) const
    {
        __syncwarp();
        if (lane == 0)
            mbar_arrive(raw_empty + 8 * (t % S::RAW_STAGES));
    }
};

template <int PASSES, int BM, bool KCA, bool KCB>
__global__ void __launch_bounds__(THREADS, 1)
    tf32_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                    const problem p, int tiles_m, int kslice, int splits, float *sums)
{
#ifdef SHIM_WGMMA_DEVICE
    constexpr int BN = TILE - BM;
    /* X: the 64-row operand (A when BM == 64), in the MMA warpgroup's registers; Y: the 128-row one,
     * in images; KCX, KCY: their layouts; X_AT, Y_AT: where their rows lie in a raw stage */
    constexpr bool KCX = BM == 64 ? KCA : KCB, KCY = BM == 64 ? KCB : KCA;
    constexpr int X_AT = BM == 64 ? 0 : BM * ROW_BYTES, Y_AT = BM == 64 ? BM * ROW_BYTES : 0;
    using S = shape<PASSES>;
    extern __shared__ __align__(1024) char smem[];
    const pipeline<PASSES> pl(smem);

    const int slice = (int)blockIdx.x % splits, tile = (int)blockIdx.x / splits;
    const int m0 = tile % tiles_m * BM, n0 = tile / tiles_m * BN;
    const int ktiles = (p.k + BK - 1) / BK;
    const int kt0 = slice * kslice, tiles = min(kslice, ktiles - kt0);
    const int tid = (int)threadIdx.x, lane = tid % 32, warp = tid / 32;

    if (tid == 0) {
        for (int st = 0; st < S::RAW_STAGES; ++st) {
            mbar_init(pl.raw_full + 8 * st, 1);                    /* the producer's expect_tx */
            mbar_init(pl.raw_empty + 8 * st, THREADS / 32);         /* one arrival per warp */
        }
        for (int st = 0; st < S::IMAGE_STAGES; ++st) {
            mbar_init(pl.image_full + 8 * st, SPLITTERS);          /* every splitter, after its stores */
            mbar_init(pl.image_empty + 8 * st, 4);                 /* one arrival per MMA warp */
        }
        mbar_init_fence();
    }
    __syncthreads();

    if (tid >= 128) { /* the splitters: Y of raw stage t % RAW_STAGES into image stage t % IMAGE_STAGES */
        wg::shrink_registers<SPLITTER_REGISTERS>();
        const int sid = tid - 128;
        /* the first splitter also produces: tile t's copies into raw stage t % RAW_STAGES (a
         * thirteenth warp would cost the MMA warpgroup registers) */
        auto produce = [&](int t) {
            const int st = t % S::RAW_STAGES;
            if (t >= S::RAW_STAGES) /* every warp has read tile t - RAW_STAGES */
                mbar_wait(pl.raw_empty + 8 * st, (unsigned)(t / S::RAW_STAGES - 1) & 1u);
            mbar_expect(pl.raw_full + 8 * st, S::RAW);
            const int k0 = (kt0 + t) * BK;
            const uint32_t dst = pl.raw_base + st * S::RAW;
            copy_tile<KCA, BM>(&map_a, dst, m0, k0, pl.raw_full + 8 * st);
            copy_tile<KCB, BN>(&map_b, dst + BM * ROW_BYTES, n0, k0, pl.raw_full + 8 * st);
        };
        if (sid == 0)
            for (int t = 0; t < min(S::RAW_STAGES - 1, tiles); ++t)
                produce(t);
        const share<KCY> sy(sid);
        char *const images = smem + (pl.image_base - smem_addr(smem));
        for (int t = 0; t < tiles; ++t) {
            /* RAW_STAGES - 1 tiles ahead: the stage tile t - 1 used, which the other warps have
             * most likely read by now */
            if (sid == 0 && t + S::RAW_STAGES - 1 < tiles)
                produce(t + S::RAW_STAGES - 1);
            pl.wait_raw(t);
            const char *const ytile = pl.raw_stage(t) + Y_AT;
            float4 v[UNITS];
#pragma unroll
            for (int i = 0; i < UNITS; ++i)
                v[i] = sy.read(ytile, i);
            pl.free_raw(t, lane);
            const int is = t % S::IMAGE_STAGES;
            if (t >= S::IMAGE_STAGES) /* the MMAs of tile t - IMAGE_STAGES have read this image stage */
                mbar_wait(pl.image_empty + 8 * is, (unsigned)(t / S::IMAGE_STAGES - 1) & 1u);
            char *const to = images + is * S::IMAGE_STAGE + sy.image;
            /* one test for the whole share: the rounding on the bits when no value is near FLT_MAX,
             * Inf or NaN, split() on each value otherwise */
            uint32_t big = 0;
#pragma unroll
            for (int i = 0; i < UNITS; ++i)
                big = max(big, max_bits(v[i]));
            if (big < FAST_LIMIT) {
#pragma unroll
                for (int i = 0; i < UNITS; ++i)
                    store_fast<PASSES>(to + i * UNIT_STEP, S::Y_IMAGE, v[i]);
            } else {
#pragma unroll
                for (int i = 0; i < UNITS; ++i)
                    store_exact<PASSES>(to + i * UNIT_STEP, S::Y_IMAGE, v[i]);
            }
            /* the tensor cores read the images through the async proxy */
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
            mbar_arrive(pl.image_full + 8 * is);
        }
        return;
    }

    /* the MMA warpgroup: D (64 x 128) = X Y^T over the tile's k range (D is the tile of C, or its
     * transpose when BM == 128). X's fragments of tile t + 1 are read and split while tile t's MMAs
     * run, into the other of two fragment sets */
    wg::grow_registers<MMA_REGISTERS>();
    float acc[ACC], part[ACC];
#pragma unroll
    for (int i = 0; i < ACC; ++i)
        acc[i] = part[i] = 0.0f;
    const x_places<KCX> xat(lane, warp);
    auto load_x = [&](int t, x_fragments &f) {
        pl.wait_raw(t);
        split_x<PASSES, KCX>(pl.raw_stage(t) + X_AT, xat, f);
        pl.free_raw(t, lane);
    };
    auto step = [&](int t, const x_fragments &cur, x_fragments &next) {
        const int is = t % S::IMAGE_STAGES;
        mbar_wait(pl.image_full + 8 * is, (unsigned)(t / S::IMAGE_STAGES) & 1u);
        uint32_t y = pl.image_base + is * S::IMAGE_STAGE;
        asm volatile("" : "+r"(y));
        wg::fence_registers<128>(part);
        wg::mma_fence();
#pragma unroll
        for (int ks = 0; ks < BK / 8; ++ks) {
            const uint32_t yk = y + ks * 2 * wg::CORE_K;
            if (PASSES == 3) { /* the small terms first */
                wg::mma_rs128(part, cur.lo[ks], wg::descriptor(yk + HI * S::Y_IMAGE), ks);
                wg::mma_rs128(part, cur.hi[ks], wg::descriptor(yk + LO * S::Y_IMAGE), 1);
                wg::mma_rs128(part, cur.hi[ks], wg::descriptor(yk + HI * S::Y_IMAGE), 1);
            } else {
                wg::mma_rs128(part, cur.hi[ks], wg::descriptor(yk + HI * S::Y_IMAGE), ks);
            }
        }
        wg::mma_commit();
        if (t + 1 < tiles)
            load_x(t + 1, next);
        wg::mma_wait_all();
        wg::fence_registers<128>(part);
        __syncwarp();
        if (lane == 0)
            mbar_arrive(pl.image_empty + 8 * is);
#pragma unroll
        for (int i = 0; i < ACC; ++i)
            acc[i] += part[i];
    };
    x_fragments f0, f1;
    if (tiles > 0)
        load_x(0, f0);
    for (int t = 0; t < tiles; t += 2) {
        step(t, f0, f1);
        if (t + 1 < tiles)
            step(t + 1, f1, f0);
    }

    /* accumulator 4 j + e: D row 16 warp + g (+ 8 for e >= 2), column 8 j + 2 tq (+ 1 for odd e);
     * with K split, the sums (alpha and beta are the reduction's); tf32_outputs.cuh */
    const int g = lane / 4, tq = lane % 4;
    const int64_t total = (int64_t)p.m * p.n;
    auto at = [&](int i, int &row, int &col) { /* accumulator i's place in C */
        const int di = warp * 16 + g + (i % 4 >= 2 ? 8 : 0), dj = 8 * (i / 4) + 2 * tq + (i & 1);
        row = BM == 64 ? m0 + di : m0 + dj;
        col = BM == 64 ? n0 + dj : n0 + di;
    };
    store_sums<PASSES>(p, KCA, !KCB, acc, splits > 1 ? sums + slice * total : nullptr, at);
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
    cudaError_t err = smem_attribute_once(kernel, shape<PASSES>::SMEM);
    if (err != cudaSuccess)
        return err;
    const problem q = make_problem(p);
    float *sums = g.splits > 1 ? sums_of(p) : nullptr;
    kernel<<<(unsigned)((int64_t)g.tiles_m * g.tiles_n * g.splits), THREADS, shape<PASSES>::SMEM, p->stream>>>(
        map_a, map_b, q, g.tiles_m, g.kslice, g.splits, sums);
    err = cudaGetLastError();
    if (err == cudaSuccess && g.splits > 1)
        err = reduce_slices<PASSES>(p, q, sums, g.splits);
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
 * the H200 with the X operand in registers (2026-11-23, docs/notes/sgemm.md "the thin-shape rung"):
 * within 6 % of the measured time on 2048^3, 1000^3 (NN, TT), 64x4096x4096 (NN, TT),
 * 8192x128x8192 (NN, TN) and 128x8192x8192; 9 % under it on 16384x16384x256, which pre-split
 * takes. */
double tf32_tma_cost(const shim_sgemm_args *p, int passes)
{
    constexpr double BYTES_PER_S = 3.0e12, BLOCK_S = 2.9e-6, LAUNCH_S = 4.0e-6, REDUCE_S = 4.0e-6;
    const double tile_s = passes == 3 ? 0.83e-6 : 0.62e-6;
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
