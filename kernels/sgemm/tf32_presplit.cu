/* SGEMM on the tensor cores, fourth rung: the split into TF32 parts paid once per element, before
 * the GEMM, instead of once per block tile that reads it (docs/notes/sgemm.md, "a fourth rung").
 * One TF32 pass or three (3xTF32; the parameter PASSES), Hopper's wgmma (sm_90a).
 *   1. pack: each operand, seen as R x K, is cut into chunks of 128 rows x 32 k; a block per chunk
 *      writes its TF32 images (hi; with three passes also lo) to the workspace in the layout shared
 *      memory wants (wgmma_tf32.cuh), zeros past the edges. Chunks of one row block follow each
 *      other along k, so a block tile's k walk reads contiguous memory.
 *      Inf and NaN (three passes) keep their hi and get lo 0.
 *   2. gemm: 128x128 block tiles; a producer warp bulk-copies (cp.async.bulk) each k tile's A and B
 *      chunks into one of STAGES shared stages, completing on the stage's "full" mbarrier; two
 *      consumer warpgroups of 64 x 128 wait on it, issue wgmma m64n128k8 (lo*hi, hi*lo, hi*hi: the
 *      small terms first), and free the stage on its "empty" mbarrier. Each k tile's products go
 *      into fresh accumulators, added to the running sums with FP32 adds (the accuracy design of the
 *      earlier rungs).
 *      Grids of fewer tiles than the GPU has multiprocessors split K: `splits` blocks per tile, each
 *      over its own run of k tiles, write their sums to the workspace, and a reduction adds them in
 *      slice order and applies alpha and beta.
 *   3. Inf and NaN (three passes): the rule of tf32_outputs.cuh (hi kept, lo 0, every output that
 *      comes out Inf or NaN computed again in FP32, in the epilogue or the reduction); no flags.
 * The workspace holds the images (about 4 bytes an element of A and B per image), and the slices'
 * sums when K is split.
 * The k order of every output element is fixed: results are bitwise reproducible. */
#include <atomic>
#include <cstdint>

#include "bulk_copy.cuh"
#include "sgemm_device.cuh"
#include "sgemm_internal.h"
#include "tf32_outputs.cuh"
#include "tf32_split.cuh"
#include "wgmma_tf32.cuh"

namespace sgemm {
namespace {

constexpr int BM = 128, BN = 128, BK = wg::BK;
constexpr int ROWS = 128;                       /* rows of a chunk: BM == BN */
constexpr int CONSUMERS = BM / 64;              /* warpgroups of 64 rows x BN */
constexpr int THREADS = 128 * (CONSUMERS + 1);  /* and a producer warpgroup (one thread issues) */
constexpr int ACC = BN / 2;
constexpr int IMAGE_BYTES = ROWS * BK * 4;
static_assert(BM == ROWS && BN == ROWS, "one chunk shape for both operands");

template <int PASSES> struct shape {
    static constexpr int IMAGES = PASSES == 3 ? 2 : 1; /* hi, lo */
    static constexpr int CHUNK = IMAGES * IMAGE_BYTES;
    static constexpr int STAGE = 2 * CHUNK; /* A's chunk, then B's */
    static constexpr int STAGES = PASSES == 3 ? 3 : 6;
    static constexpr int SMEM = STAGES * STAGE + 2 * STAGES * 8; /* and the full/empty mbarriers */
};

/* where the workspace puts the images */
struct images {
    const char *a, *b;         /* chunk (row block rb, k tile kt) at (rb * ktiles + kt) * CHUNK */
    float *sums;               /* split K: slice s's m x n sums at s * m * n, column-major */
    int ktiles;
    int kslice;                /* k tiles per slice; ktiles when K is not split */
};

int64_t blocks_of(int rows)
{
    return (rows + ROWS - 1) / ROWS;
}

template <int PASSES> size_t image_bytes(const shim_sgemm_args *p)
{
    const int64_t ktiles = (p->k + BK - 1) / BK;
    return (size_t)((blocks_of(p->m) + blocks_of(p->n)) * ktiles) * shape<PASSES>::CHUNK;
}

/* K is split when the output tiles leave multiprocessors idle: as many slices as fill the GPU once,
 * each at least MIN_SLICE k tiles */
constexpr int MIN_SLICE = 8;

int kslice_of(const shim_sgemm_args *p)
{
    return kslice_for(blocks_of(p->m) * blocks_of(p->n), (p->k + BK - 1) / BK, MIN_SLICE);
}

int splits_of(const shim_sgemm_args *p)
{
    const int ktiles = (p->k + BK - 1) / BK, kslice = kslice_of(p);
    return std::max(1, (ktiles + kslice - 1) / kslice);
}

template <int PASSES> size_t work_bytes(const shim_sgemm_args *p)
{
    const int splits = splits_of(p);
    const size_t sums = splits > 1 ? (size_t)splits * p->m * p->n * sizeof(float) : 0;
    return 128 + image_bytes<PASSES>(p) + sums;
}

template <int PASSES> images layout(const shim_sgemm_args *p)
{
    char *base = (char *)(((uintptr_t)p->work + 127) & ~(uintptr_t)127);
    images im;
    im.ktiles = (p->k + BK - 1) / BK;
    im.a = base;
    im.b = base + (size_t)(blocks_of(p->m) * im.ktiles) * shape<PASSES>::CHUNK;
    im.kslice = kslice_of(p);
    im.sums = im.kslice < im.ktiles ? (float *)(base + image_bytes<PASSES>(p)) : nullptr;
    return im;
}

/* ---- 1. pack --------------------------------------------------------------------------------- */

constexpr int PACK_THREADS = 256;

/* packs chunk c = rb * ktiles + kt of an operand (R x K view, KC: K-contiguous) */
template <int PASSES, bool KC>
__device__ __forceinline__ void pack_chunk(float (&tile)[ROWS][BK + 1], const operand &x, int k, int ktiles, int64_t c,
                                           char *chunks)
{
    const int r0 = (int)(c / ktiles) * ROWS, k0 = (int)(c % ktiles) * BK;
    const int tid = (int)threadIdx.x;
    /* a warp reads one row's 32 k (K-contiguous) or 32 rows of one k (R-contiguous) */
#pragma unroll
    for (int e = 0; e < ROWS * BK / PACK_THREADS; ++e) {
        const int i = tid + e * PACK_THREADS;
        const int r = KC ? i / BK : i % ROWS, l = KC ? i % BK : i / ROWS;
        tile[r][l] = load_or_zero<KC>(x, r0 + r, k0 + l, k);
    }
    __syncthreads();
    /* 16 bytes of an image per thread and step: a core-matrix row, 4 k of one row */
    char *chunk = chunks + c * shape<PASSES>::CHUNK;
#pragma unroll
    for (int e = 0; e < IMAGE_BYTES / 16 / PACK_THREADS; ++e) {
        const int byte = (tid + e * PACK_THREADS) * 16;
        const int r = byte / wg::CORE_N * 8 + byte % wg::CORE_K / 16, l = byte % wg::CORE_N / wg::CORE_K * 4;
        uint32_t hi[4], lo[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const split_value s = split<PASSES>(tile[r][l + j]);
            hi[j] = s.hi;
            lo[j] = s.lo;
        }
        *reinterpret_cast<uint4 *>(chunk + byte) = make_uint4(hi[0], hi[1], hi[2], hi[3]);
        if (PASSES == 3)
            *reinterpret_cast<uint4 *>(chunk + IMAGE_BYTES + byte) = make_uint4(lo[0], lo[1], lo[2], lo[3]);
    }
}

/* block c < chunks_a packs A's chunk c, the others B's chunk c - chunks_a */
template <int PASSES, bool KCA, bool KCB>
__global__ void __launch_bounds__(PACK_THREADS) pack_kernel(const operand a, const operand b, int k, int64_t chunks_a,
                                                            const images im)
{
    __shared__ float tile[ROWS][BK + 1];
    const int64_t c = blockIdx.x;
    if (c < chunks_a)
        pack_chunk<PASSES, KCA>(tile, a, k, im.ktiles, c, (char *)im.a);
    else
        pack_chunk<PASSES, KCB>(tile, b, k, im.ktiles, c - chunks_a, (char *)im.b);
}

/* ---- 2. gemm --------------------------------------------------------------------------------- */

template <int PASSES>
__global__ void __launch_bounds__(THREADS, 1)
    gemm_kernel(const problem p, int transa, int transb, const images im, int tiles_m, int tiles_n)
{
#ifdef SHIM_WGMMA_DEVICE
    using S = shape<PASSES>;
    extern __shared__ __align__(128) char smem[];
    const uint32_t base = smem_addr(smem);
    const uint32_t full = base + S::STAGES * S::STAGE, empty = full + S::STAGES * 8;
    /* block b: tile b % tiles, k slice b / tiles */
    const int tiles = tiles_m * tiles_n, slice = (int)blockIdx.x / tiles;
    int tm, tn;
    tile_coords<RASTER_GROUP>((int)blockIdx.x % tiles, tiles_m, tiles_n, tm, tn);
    const int tid = (int)threadIdx.x, group = tid / 128;
    const int kt0 = slice * im.kslice, count = min(im.ktiles - kt0, im.kslice);

    if (tid == 0) {
        for (int s = 0; s < S::STAGES; ++s) {
            mbar_init(full + 8 * s, 1);                     /* the producer's expect_tx */
            mbar_init(empty + 8 * s, CONSUMERS * 4);        /* one arrival per consumer warp */
        }
        mbar_init_fence();
    }
    __syncthreads();

    if (group == CONSUMERS) { /* the producer */
        if (tid == CONSUMERS * 128) {
            const char *a = im.a + ((size_t)tm * im.ktiles + kt0) * S::CHUNK;
            const char *b = im.b + ((size_t)tn * im.ktiles + kt0) * S::CHUNK;
            for (int kt = 0; kt < count; ++kt) {
                const int s = kt % S::STAGES, round = kt / S::STAGES;
                if (round > 0)
                    mbar_wait(empty + 8 * s, (unsigned)(round - 1) & 1u);
                const uint32_t stage = base + s * S::STAGE;
                mbar_expect(full + 8 * s, 2 * S::CHUNK);
                bulk_copy(stage, a + (size_t)kt * S::CHUNK, S::CHUNK, full + 8 * s);
                bulk_copy(stage + S::CHUNK, b + (size_t)kt * S::CHUNK, S::CHUNK, full + 8 * s);
            }
        }
        return;
    }

    float acc[ACC], part[ACC];
#pragma unroll
    for (int i = 0; i < ACC; ++i)
        acc[i] = part[i] = 0.0f;
    for (int kt = 0; kt < count; ++kt) {
        const int s = kt % S::STAGES;
        mbar_wait(full + 8 * s, (unsigned)(kt / S::STAGES) & 1u);
        /* this warpgroup's 64 rows of A's images, all 128 of B's */
        const uint32_t a_img = base + s * S::STAGE + group * 8 * wg::CORE_N, b_img = base + s * S::STAGE + S::CHUNK;
        wg::fence_registers<BN>(part);
        wg::mma_fence();
#pragma unroll
        for (int ks = 0; ks < BK / 8; ++ks) {
            const uint32_t a = a_img + ks * 2 * wg::CORE_K, b = b_img + ks * 2 * wg::CORE_K;
            if (PASSES == 3) { /* the small terms first */
                wg::mma<BN>(part, wg::descriptor(a + IMAGE_BYTES), wg::descriptor(b), ks);
                wg::mma<BN>(part, wg::descriptor(a), wg::descriptor(b + IMAGE_BYTES), 1);
                wg::mma<BN>(part, wg::descriptor(a), wg::descriptor(b), 1);
            } else {
                wg::mma<BN>(part, wg::descriptor(a), wg::descriptor(b), ks);
            }
        }
        wg::mma_commit();
        wg::mma_wait_all();
        wg::fence_registers<BN>(part);
        __syncwarp();
        if (tid % 32 == 0)
            mbar_arrive(empty + 8 * s); /* this warp is done reading the stage */
#pragma unroll
        for (int i = 0; i < ACC; ++i)
            acc[i] += part[i];
    }

    /* accumulator i = 4 j + e: row g (+ 8 for e >= 2), column 8 j + 2 t (+ 1 for odd e); with K
     * split, the sums; tf32_outputs.cuh */
    const int lane = tid % 32, g = lane / 4, t = lane % 4;
    const int row0 = tm * BM + group * 64 + tid % 128 / 32 * 16 + g, col0 = tn * BN + 2 * t;
    auto at = [&](int i, int &row, int &col) {
        row = row0 + (i % 4 >= 2 ? 8 : 0);
        col = col0 + 8 * (i / 4) + (i & 1);
    };
    float *sums = im.sums ? im.sums + (size_t)slice * p.m * p.n : nullptr;
    store_sums<PASSES>(p, transa, transb, acc, sums, at);
#else
    (void)p;
    (void)transa;
    (void)transb;
    (void)im;
    (void)tiles_m;
    (void)tiles_n;
    __trap(); /* not built for this GPU: the variant does not accept (wgmma_usable) */
#endif
}

/* ---- launch ---------------------------------------------------------------------------------- */

template <int PASSES, bool KCA, bool KCB> cudaError_t pack(const shim_sgemm_args *p, const problem &q, const images &im)
{
    const int64_t chunks_a = blocks_of(p->m) * im.ktiles, chunks_b = blocks_of(p->n) * im.ktiles;
    SHIM_KERNEL_READY((pack_kernel<PASSES, KCA, KCB>));
    pack_kernel<PASSES, KCA, KCB><<<(unsigned)(chunks_a + chunks_b), PACK_THREADS, 0, p->stream>>>(q.a, q.b, p->k,
                                                                                                  chunks_a, im);
    return cudaGetLastError();
}

template <int PASSES> cudaError_t launch(const shim_sgemm_args *p)
{
    using S = shape<PASSES>;
    const problem q = make_problem(p);
    const images im = layout<PASSES>(p);
    /* op(A) is K-contiguous when A is stored transposed; op(B)^T when B is not */
    cudaError_t err = p->transa ? (p->transb ? pack<PASSES, true, false>(p, q, im) : pack<PASSES, true, true>(p, q, im))
                        : (p->transb ? pack<PASSES, false, false>(p, q, im) : pack<PASSES, false, true>(p, q, im));
    if (err != cudaSuccess)
        return err;

    void (*kernel)(const problem, int, int, const images, int, int) = gemm_kernel<PASSES>;
    err = smem_attribute_once(kernel, S::SMEM);
    if (err != cudaSuccess)
        return err;
    const int tiles_m = (int)blocks_of(p->m), tiles_n = (int)blocks_of(p->n);
    const int splits = (im.ktiles + im.kslice - 1) / im.kslice;
    kernel<<<(unsigned)((int64_t)tiles_m * tiles_n * splits), THREADS, S::SMEM, p->stream>>>(q, p->transa, p->transb, im,
                                                                                             tiles_m, tiles_n);
    err = cudaGetLastError();
    if (err == cudaSuccess && splits > 1)
        err = reduce_slices<PASSES>(p, q, im.sums, splits);
    return err;
}

} // namespace

int tf32_presplit_accepts(const shim_sgemm_args *p)
{
    /* one block per output tile and per chunk of either operand */
    const int64_t ktiles = (p->k + BK - 1) / BK;
    return wgmma_usable() && blocks_of(p->m) * blocks_of(p->n) <= INT32_MAX &&
           (blocks_of(p->m) + blocks_of(p->n)) * ktiles <= INT32_MAX;
}
/* Seconds a call is expected to take, for the selector to weigh against the FP32 kernels: the
 * pack's traffic (4 bytes read and 4 written per image, an element of A and B), then the larger of
 * the GEMM's waves and its first reading of the images, then the split's reduction and the
 * launches. Rates measured on the H200 (2026-11-23, docs/notes/sgemm.md): the GEMM kernel alone
 * does about 140 TFLOP/s in three passes and 250 in one; the passes move about 3.5 TB/s. */
double tf32_presplit_cost(const shim_sgemm_args *p, int passes)
{
    constexpr double BYTES_PER_S = 3.5e12, BLOCK_S = 3.0e-6, REDUCE_S = 5.0e-6, LAUNCHES_S = 12.0e-6;
    const double rate = (passes == 3 ? 140.0e12 : 250.0e12) / 132, images = passes == 3 ? 2 : 1;
    const int64_t tiles = blocks_of(p->m) * blocks_of(p->n), splits = splits_of(p);
    const int sms = sm_count();
    const int64_t waves = (tiles * splits + sms - 1) / sms;
    const double block_flops = 2.0 * BM * BN * BK * (double)kslice_of(p);
    const double elements = (double)p->k * ((double)p->m + p->n);
    const double c_bytes = 4.0 * p->m * (double)p->n * (p->beta != 0.0f ? 2 : 1);
    const double pack = elements * 4 * (1 + images) / BYTES_PER_S;
    const double gemm = std::max((double)waves * (block_flops / rate + BLOCK_S),
                                 (elements * 4 * images + c_bytes) / BYTES_PER_S);
    const double reduce = splits > 1 ? REDUCE_S + 2.0 * 4 * splits * p->m * (double)p->n / BYTES_PER_S : 0.0;
    return pack + gemm + reduce + LAUNCHES_S;
}

size_t tf32_presplit_work(const shim_sgemm_args *p)
{
    return work_bytes<1>(p);
}
size_t tf32x3_presplit_work(const shim_sgemm_args *p)
{
    return work_bytes<3>(p);
}
cudaError_t tf32_presplit_launch(const shim_sgemm_args *p)
{
    return launch<1>(p);
}
cudaError_t tf32x3_presplit_launch(const shim_sgemm_args *p)
{
    return launch<3>(p);
}

} // namespace sgemm
