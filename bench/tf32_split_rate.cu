/* How fast can warps split FP32 tiles into TF32 hi/lo shared-memory images, with no MMA beside
 * them? The question a thin-shape 3xTF32 kernel (the split done by producer warps while consumer
 * warpgroups only issue wgmma) has to answer first: docs/notes/sgemm.md estimates that it pays if
 * the producers reach several elements a cycle per SM (3.3 to read B of 64x4096x4096 once at the
 * memory's rate, about 8 to keep pace with the MMAs), where the split inside tf32_wgmma.cu measured
 * 1.2.
 *
 * The operand is B of an NN product seen as R x K, K-contiguous (element (r, k) at b[r * ld + k]):
 * R = 4096 rows (B's columns), K = 4096. A block owns 128 rows and one K slice and walks it in
 * 32-deep k tiles: each thread loads its float4s of the next tile into registers (16-byte loads;
 * a warp covers 8 rows x 64 bytes), splits the current tile with the tensor-core variants' split
 * (tf32_split.cuh, guards for Inf/NaN and FLT_MAX included), and stores hi and lo as one 16-byte
 * store each at the wgmma image offsets (wgmma_tf32.cuh: a warp's stores hit every bank once per
 * wavefront), into two stages of shared memory; one block barrier per tile stands for the hand-off
 * to consumers. The "copy" mode stores the raw float4 twice instead of splitting: what the loads and
 * stores alone cost. Every element is split exactly once per run, as in a 64-row-tile kernel at
 * m = 64. "split (bits)" rounds to TF32 on the bits instead of by cvt.rna (which ptxas expands on
 * sm_90); the program also checks it against the cvt.rna split on every 32-bit input. The
 * "bulk-fed" rows feed the split by cp.async.bulk into shared memory instead of registers
 * (bulk_kernel).
 * Usage: tf32_split_rate [CSV [ROWS K]]   (a table to stdout) */
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <cuda.h>
#include <cuda_runtime.h>

#include "bulk_copy.cuh"
#include "tensor_map.h"
#include "tf32_split.cuh"
#include "wgmma_tf32.cuh"

#define CHECK(call)                                                                                                  \
    do {                                                                                                             \
        cudaError_t e_ = (call);                                                                                     \
        if (e_ != cudaSuccess) {                                                                                     \
            fprintf(stderr, "tf32_split_rate.cu:%d: %s: %s\n", __LINE__, #call, cudaGetErrorString(e_));           \
            exit(1);                                                                                                 \
        }                                                                                                            \
    } while (0)

namespace {

constexpr int ROWS = 128;                          /* rows a block owns */
constexpr int BK = sgemm::wg::BK;                  /* k of a tile: 32 */
constexpr int F4 = ROWS * BK / 4;                  /* float4 of a tile */
constexpr int IMAGE = ROWS * BK * 4;               /* bytes of one image */
constexpr int STAGE = 2 * IMAGE;                   /* hi and lo */

/* The split with the TF32 rounding done on the bits (tf32_split.cuh: split4_fast, and split4_exact
 * (split() itself) when one of the four values is near FLT_MAX, Inf or NaN), where ptxas expands
 * cvt.rna.tf32.f32 into a longer sequence on sm_90. Whether it equals split() on every input is
 * checked below. */
__device__ __forceinline__ void split4_bits(const float4 &x, uint4 &hi, uint4 &hx, uint4 &lo)
{
    if (sgemm::max_bits(x) < sgemm::FAST_LIMIT) {
        sgemm::split4_fast<3>(x, hi, lo);
        hx = hi;
    } else {
        sgemm::split4_exact<3>(x, hi, hx, lo);
    }
}

__device__ __forceinline__ void split4_bits(const float4 &x, uint4 &hi, uint4 &lo)
{
    uint4 hx;
    split4_bits(x, hi, hx, lo);
}

enum mode { COPY, SPLIT_CVT, SPLIT_BITS };

/* every 32-bit pattern through both splits: counts of inputs whose hi, lo or hx differ, and of
 * those where both hi are NaN (a NaN's payload is not a difference that matters) */
__global__ void agree_kernel(unsigned long long *counts, uint32_t *first)
{
    unsigned long long diff = 0, nan_only = 0;
    for (uint64_t e = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; e < (1ull << 32);
         e += (uint64_t)gridDim.x * blockDim.x) {
        const float x = __uint_as_float((uint32_t)e);
        const sgemm::split_value a = sgemm::split<3>(x);
        uint4 h4, x4, l4; /* the four-value path, with three ordinary neighbours */
        split4_bits(make_float4(x, 1.0f, -2.5f, 0.375f), h4, x4, l4);
        const sgemm::split_value b = {h4.x, x4.x, l4.x};
        if (a.hi != b.hi || a.lo != b.lo || a.hx != b.hx) {
            const bool both_nan = isnan(__uint_as_float(a.hi)) && isnan(__uint_as_float(b.hi)) && a.lo == b.lo &&
                                  a.hx == b.hx;
            if (both_nan) {
                ++nan_only;
            } else {
                ++diff;
                const unsigned long long slot = atomicAdd(&counts[2], 1ull);
                if (slot < 4) { /* input, and hi/lo of both */
                    first[5 * slot] = (uint32_t)e;
                    first[5 * slot + 1] = a.hi, first[5 * slot + 2] = a.lo;
                    first[5 * slot + 3] = b.hi, first[5 * slot + 4] = b.lo;
                }
            }
        }
    }
    atomicAdd(&counts[0], diff);
    atomicAdd(&counts[1], nan_only);
}

template <int THREADS, int MODE>
__global__ void __launch_bounds__(THREADS) split_kernel(const float *__restrict__ b, int64_t ld, int ktiles,
                                                         int per_slice, int slices, float *__restrict__ sink,
                                                         const __grid_constant__ CUtensorMap)
{
    constexpr int PER = F4 / THREADS;
    extern __shared__ uint4 smem[];
    const int tile = (int)blockIdx.x / slices, slice = (int)blockIdx.x % slices;
    const int tid = (int)threadIdx.x;
    const float *src[PER];
    int off[PER];
#pragma unroll
    for (int i = 0; i < PER; ++i) {
        const int f = tid + i * THREADS;
        const int r = f / 64 * 8 + f % 8, kq = f / 8 % 8;
        src[i] = b + (int64_t)(tile * ROWS + r) * ld + (int64_t)slice * per_slice * BK + 4 * kq;
        off[i] = sgemm::wg::image_offset(r, 4 * kq);
    }
    const int tiles = min(per_slice, ktiles - slice * per_slice); /* the last slice may be shorter */
    float4 next[PER];
#pragma unroll
    for (int i = 0; i < PER; ++i)
        next[i] = __ldg(reinterpret_cast<const float4 *>(src[i]));
    char *const base = reinterpret_cast<char *>(smem);
    for (int t = 0; t < tiles; ++t) {
        float4 cur[PER];
#pragma unroll
        for (int i = 0; i < PER; ++i)
            cur[i] = next[i];
        if (t + 1 < tiles)
#pragma unroll
            for (int i = 0; i < PER; ++i)
                next[i] = __ldg(reinterpret_cast<const float4 *>(src[i] + (t + 1) * BK));
        char *const stage = base + (t & 1) * STAGE;
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            uint4 hi, lo;
            if (MODE == SPLIT_CVT) {
                const sgemm::split_value x = sgemm::split<3>(cur[i].x), y = sgemm::split<3>(cur[i].y),
                                         z = sgemm::split<3>(cur[i].z), w = sgemm::split<3>(cur[i].w);
                hi = make_uint4(x.hi, y.hi, z.hi, w.hi);
                lo = make_uint4(x.lo, y.lo, z.lo, w.lo);
            } else if (MODE == SPLIT_BITS) {
                split4_bits(cur[i], hi, lo);
            } else {
                hi = lo = make_uint4(__float_as_uint(cur[i].x), __float_as_uint(cur[i].y),
                                     __float_as_uint(cur[i].z), __float_as_uint(cur[i].w));
            }
            *reinterpret_cast<uint4 *>(stage + off[i]) = hi;
            *reinterpret_cast<uint4 *>(stage + IMAGE + off[i]) = lo;
        }
        __syncthreads(); /* the hand-off of a stage to its consumers */
    }
    /* keep the images alive: one word per thread of the last stage */
    sink[blockIdx.x * THREADS + tid] = reinterpret_cast<const float *>(base + ((tiles - 1) & 1) * STAGE)[tid];
}

/* The splitting warps of the fed kernels: for each tile, wait for raw stage t % STAGES ("full"),
 * read this thread's float4s at raw_off (the stage's layout), free the stage ("empty", one arrival a
 * warp), split on the bits, store hi and lo at the image offsets (one image stage: nothing reads
 * it), and meet at a named barrier (the hand-off). */
template <int THREADS, int STAGES>
__device__ __forceinline__ void split_fed(const char *raw, int stage_bytes, const int (&raw_off)[F4 / THREADS],
                                          char *img, uint32_t full, uint32_t empty, int tiles, int tid,
                                          float *__restrict__ sink)
{
    constexpr int PER = F4 / THREADS;
    int img_off[PER];
#pragma unroll
    for (int i = 0; i < PER; ++i) {
        const int f = tid + i * THREADS;
        img_off[i] = sgemm::wg::image_offset(f / 64 * 8 + f % 8, 4 * (f / 8 % 8));
    }
    for (int t = 0; t < tiles; ++t) {
        const int st = t % STAGES;
        sgemm::mbar_wait(full + 8 * st, (unsigned)(t / STAGES) & 1u);
        float4 v[PER];
#pragma unroll
        for (int i = 0; i < PER; ++i)
            v[i] = *reinterpret_cast<const float4 *>(raw + st * stage_bytes + raw_off[i]);
        __syncwarp();
        if (tid % 32 == 0)
            sgemm::mbar_arrive(empty + 8 * st);
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            uint4 hi, lo;
            split4_bits(v[i], hi, lo);
            *reinterpret_cast<uint4 *>(img + img_off[i]) = hi;
            *reinterpret_cast<uint4 *>(img + IMAGE + img_off[i]) = lo;
        }
        asm volatile("bar.sync 1, %0;\n" ::"r"(THREADS) : "memory"); /* the hand-off, splitters only */
    }
    sink[blockIdx.x * THREADS + tid] = reinterpret_cast<const float *>(img)[tid];
}

/* The same split fed by bulk copies: a producer warp (ISSUERS of its lanes: 1 or 32) copies each
 * k tile's 128 rows of 128 bytes with cp.async.bulk into one of RAW_STAGES raw stages (rows 144 bytes apart, so that
 * a warp's 16-byte reads of 8 rows x 4 float4 take the minimum 4 wavefronts), completing on the
 * stage's "full" mbarrier; the splitting warps wait on it, read their float4s from shared memory,
 * split on the bits, store hi and lo at the image offsets (one image stage: nothing reads it), free
 * the raw stage on its "empty" mbarrier (one arrival per warp), and meet at a named barrier per
 * tile (the hand-off). Several tiles are in flight without registers holding them. */
constexpr int RAW_STAGES = 4, RAW_ROW = 144, RAW_STAGE = ROWS * RAW_ROW;
constexpr int BULK_SMEM = RAW_STAGES * RAW_STAGE + STAGE + 2 * RAW_STAGES * 8;

template <int THREADS, int ISSUERS>
__global__ void __launch_bounds__(THREADS + 32) bulk_kernel(const float *__restrict__ b, int64_t ld, int ktiles,
                                                             int per_slice, int slices, float *__restrict__ sink,
                                                             const __grid_constant__ CUtensorMap)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int PER = F4 / THREADS, WARPS = THREADS / 32;
    extern __shared__ __align__(128) char smem_b[];
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem_b);
    const uint32_t image = base + RAW_STAGES * RAW_STAGE, full = image + STAGE, empty = full + RAW_STAGES * 8;
    const int tile = (int)blockIdx.x / slices, slice = (int)blockIdx.x % slices;
    const int tid = (int)threadIdx.x;
    const int tiles = min(per_slice, ktiles - slice * per_slice);
    if (tid == 0) {
        for (int st = 0; st < RAW_STAGES; ++st) {
            sgemm::mbar_init(full + 8 * st, 1);
            sgemm::mbar_init(empty + 8 * st, WARPS);
        }
        sgemm::mbar_init_fence();
    }
    __syncthreads();
    if (tid >= THREADS) { /* the producer warp: ISSUERS of its lanes issue the copies, lane 0 the expect */
        const int lane = tid - THREADS;
        if (lane < ISSUERS) {
            const float *rows = b + (int64_t)tile * ROWS * ld + (int64_t)slice * per_slice * BK;
            for (int t = 0; t < tiles; ++t) {
                const int st = t % RAW_STAGES;
                if (t >= RAW_STAGES)
                    sgemm::mbar_wait(empty + 8 * st, (unsigned)(t / RAW_STAGES - 1) & 1u);
                if (lane == 0)
                    sgemm::mbar_expect(full + 8 * st, ROWS * BK * 4);
                if (ISSUERS > 1)
                    __syncwarp();
                for (int r = lane; r < ROWS; r += ISSUERS)
                    sgemm::bulk_copy(base + st * RAW_STAGE + r * RAW_ROW, rows + (int64_t)r * ld + t * BK, BK * 4,
                                     full + 8 * st);
            }
        }
        return;
    }
    int raw_off[PER]; /* rows RAW_ROW bytes apart */
#pragma unroll
    for (int i = 0; i < PER; ++i) {
        const int f = tid + i * THREADS;
        raw_off[i] = (f / 64 * 8 + f % 8) * RAW_ROW + f / 8 % 8 * 16;
    }
    split_fed<THREADS, RAW_STAGES>(smem_b, RAW_STAGE, raw_off, smem_b + RAW_STAGES * RAW_STAGE, full, empty, tiles, tid,
                                   sink);
#endif
}

/* The same again with the tile brought in by one TMA copy (cp.async.bulk.tensor.2d: a 32 x 128 box
 * of a tensor map over B, 128-byte swizzle: in each 1024-byte group of 8 rows, row r's 16-byte
 * chunk c lies at chunk c ^ r, so that a warp's reads of 8 rows x 4 float4 take the minimum 4
 * wavefronts) into one of STAGES raw stages of 16 KB; otherwise as bulk_kernel. One instruction a
 * tile instead of 128 row copies. */
constexpr int TMA_RAW = ROWS * BK * 4;
template <int STAGES> constexpr int tma_smem()
{
    return 1024 + STAGES * TMA_RAW + STAGE + 2 * STAGES * 8;
}

template <int THREADS, int STAGES>
__global__ void __launch_bounds__(THREADS + 32) tma_kernel(const float *__restrict__, int64_t, int ktiles, int per_slice,
                                                            int slices, float *__restrict__ sink,
                                                            const __grid_constant__ CUtensorMap map)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int PER = F4 / THREADS, WARPS = THREADS / 32;
    extern __shared__ __align__(1024) char smem_t[];
    char *const raw = smem_t + ((1024 - (__cvta_generic_to_shared(smem_t) & 1023)) & 1023); /* 1024-aligned */
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(raw);
    const uint32_t full = base + STAGES * TMA_RAW + STAGE, empty = full + STAGES * 8;
    char *const img = raw + STAGES * TMA_RAW;
    const int tile = (int)blockIdx.x / slices, slice = (int)blockIdx.x % slices;
    const int tid = (int)threadIdx.x;
    const int tiles = min(per_slice, ktiles - slice * per_slice);
    if (tid == 0) {
        for (int st = 0; st < STAGES; ++st) {
            sgemm::mbar_init(full + 8 * st, 1);
            sgemm::mbar_init(empty + 8 * st, WARPS);
        }
        sgemm::mbar_init_fence();
    }
    __syncthreads();
    if (tid >= THREADS) {
        if (tid == THREADS)
            for (int t = 0; t < tiles; ++t) {
                const int st = t % STAGES;
                if (t >= STAGES)
                    sgemm::mbar_wait(empty + 8 * st, (unsigned)(t / STAGES - 1) & 1u);
                sgemm::mbar_expect(full + 8 * st, TMA_RAW);
                const int k0 = (slice * per_slice + t) * BK, r0 = tile * ROWS;
                sgemm::tma_load_2d(base + st * TMA_RAW, &map, k0, r0, full + 8 * st);
            }
        return;
    }
    int raw_off[PER]; /* 128-byte rows, swizzled */
#pragma unroll
    for (int i = 0; i < PER; ++i) {
        const int f = tid + i * THREADS;
        const int r = f / 64 * 8 + f % 8, kq = f / 8 % 8;
        raw_off[i] = r * 128 + ((kq ^ (r % 8)) * 16);
    }
    split_fed<THREADS, STAGES>(raw, TMA_RAW, raw_off, img, full, empty, tiles, tid, sink);
#endif
}

/* a tensor map over the rows x k operand (k contiguous, leading dimension ld), 32 x 128 boxes: the
 * library's (tensor_map.h), as the TMA-fed kernels make theirs */
CUtensorMap tensor_map(const float *b, int rows, int k, int64_t ld)
{
    CUtensorMap map;
    if (!sgemm::tensor_map_2d(&map, b, k, rows, ld, BK, ROWS)) {
        fprintf(stderr, "tf32_split_rate: no tensor map (the driver lacks cuTensorMapEncodeTiled, or it refused)\n");
        exit(1);
    }
    return map;
}

struct result {
    double ms, elems_per_cycle_sm, gbps;
    int blocks;
};

using kernel_fn = void (*)(const float *, int64_t, int, int, int, float *, CUtensorMap);

/* a producer kernel as measured: its splitting threads, the producer warp beside them (bulk-fed),
 * its shared memory, and the most blocks a SM that memory allows */
struct method {
    const char *name;
    kernel_fn kernel;
    int threads, producer_threads, smem, max_blocks_per_sm;
};

result measure(const method &me, const float *b, int rows, int k, int blocks_per_sm, int sms, double clock_hz,
               float *sink)
{
    const CUtensorMap map = tensor_map(b, rows, k, k);
    const int tiles_r = rows / ROWS, ktiles = k / BK;
    /* K slices so that the grid is at most blocks_per_sm blocks on every multiprocessor */
    const int want = sms * blocks_per_sm / tiles_r > 0 ? sms * blocks_per_sm / tiles_r : 1;
    const int per_slice = (ktiles + want - 1) / want, slices = (ktiles + per_slice - 1) / per_slice;
    const int blocks = tiles_r * slices;
    CHECK(cudaFuncSetAttribute(me.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, me.smem));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    float best = 1e30f;
    for (int rep = 0; rep < 7; ++rep) { /* the first is a warm-up */
        CHECK(cudaEventRecord(t0));
        me.kernel<<<blocks, me.threads + me.producer_threads, me.smem>>>(b, k, ktiles, per_slice, slices, sink, map);
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, t0, t1));
        if (rep > 0 && ms < best)
            best = ms;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaEventDestroy(t0));
    CHECK(cudaEventDestroy(t1));
    const double elems = (double)rows * k;
    return {best, elems / (best * 1e-3 * clock_hz * sms), elems * 4.0 / (best * 1e-3) / 1e9, blocks};
}

} // namespace

int main(int argc, char **argv)
{
    /* argv[2], argv[3]: rows and K (multiples of 128 and 32); the default is B of 64x4096x4096,
     * 64 MB, which does not stay in L2; 4096 x 1024 (16 MB) does */
    const int rows = argc > 3 ? atoi(argv[2]) : 4096, k = argc > 3 ? atoi(argv[3]) : 4096;
    int dev = 0, sms = 0, clock_khz = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    const double clock_hz = clock_khz * 1e3;
    float *b, *sink;
    CHECK(cudaMalloc((void **)&b, sizeof(float) * rows * k));
    CHECK(cudaMalloc((void **)&sink, sizeof(float) << 20));
    CHECK(cudaMemset(b, 0x3f, sizeof(float) * rows * k)); /* finite values near 0.75 */
    FILE *csv = fopen(argc > 1 ? argv[1] : "tf32_split_rate.csv", "w");
    if (!csv) {
        perror("tf32_split_rate: csv");
        return 1;
    }
    fprintf(csv, "mode,threads,blocks_per_sm,blocks,ms,elems_per_cycle_sm,gbps\n");
    printf("B of 64x%dx%d as %d x %d, K-contiguous (%.0f MB); %d SMs at %.0f MHz (the rate uses this clock)\n\n",
           rows, k, rows, k, rows * (double)k * 4 / 1e6, sms, clock_hz / 1e6);
    printf("| mode | threads a block | blocks a SM (at most) | blocks | ms | elements a cycle a SM | GB/s read |\n");
    printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    /* register-fed: two stages of images (64 KB), three blocks a SM at most; bulk-fed: 104 KB, two */
    static const method methods[] = {
        {"split (cvt.rna)", split_kernel<128, SPLIT_CVT>, 128, 0, 2 * STAGE, 3},
        {"split (cvt.rna)", split_kernel<256, SPLIT_CVT>, 256, 0, 2 * STAGE, 3},
        {"split (bits)", split_kernel<128, SPLIT_BITS>, 128, 0, 2 * STAGE, 3},
        {"split (bits)", split_kernel<256, SPLIT_BITS>, 256, 0, 2 * STAGE, 3},
        {"copy", split_kernel<128, COPY>, 128, 0, 2 * STAGE, 3},
        {"copy", split_kernel<256, COPY>, 256, 0, 2 * STAGE, 3},
        {"split (bits) bulk-fed, 1 issuing lane", bulk_kernel<128, 1>, 128, 32, BULK_SMEM, 2},
        {"split (bits) bulk-fed, 32 issuing lanes", bulk_kernel<128, 32>, 128, 32, BULK_SMEM, 2},
        {"split (bits) bulk-fed, 32 issuing lanes", bulk_kernel<256, 32>, 256, 32, BULK_SMEM, 2},
        {"split (bits) TMA-fed, 4 stages", tma_kernel<128, 4>, 128, 32, tma_smem<4>(), 2},
        {"split (bits) TMA-fed, 4 stages", tma_kernel<256, 4>, 256, 32, tma_smem<4>(), 2},
        {"split (bits) TMA-fed, 8 stages", tma_kernel<128, 8>, 128, 32, tma_smem<8>(), 1},
        {"split (bits) TMA-fed, 8 stages", tma_kernel<256, 8>, 256, 32, tma_smem<8>(), 1},
    };
    for (const method &me : methods)
        for (int bps = 1; bps <= me.max_blocks_per_sm; ++bps) {
            const result r = measure(me, b, rows, k, bps, sms, clock_hz, sink);
            printf("| %s | %d%s | %d | %d | %.4f | %.2f | %.0f |\n", me.name, me.threads,
                   me.producer_threads ? " + 32" : "", bps, r.blocks, r.ms, r.elems_per_cycle_sm, r.gbps);
            fprintf(csv, "%s,%d,%d,%d,%.5f,%.3f,%.1f\n", me.name, me.threads, bps, r.blocks, r.ms,
                    r.elems_per_cycle_sm, r.gbps);
        }
    unsigned long long *counts, host[3];
    uint32_t *first, firsts[20] = {0};
    CHECK(cudaMalloc((void **)&counts, sizeof host));
    CHECK(cudaMalloc((void **)&first, sizeof firsts));
    CHECK(cudaMemset(counts, 0, sizeof host));
    agree_kernel<<<sms * 8, 256>>>(counts, first);
    CHECK(cudaMemcpy(host, counts, sizeof host, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(firsts, first, sizeof firsts, cudaMemcpyDeviceToHost));
    printf("\nsplit (bits) against split (cvt.rna) on all 2^32 inputs: %llu differ, %llu differ only in a NaN's bits\n",
           host[0], host[1]);
    fprintf(csv, "agreement,%llu,%llu\n", host[0], host[1]);
    for (unsigned long long i = 0; i < host[0] && i < 4; ++i)
        printf("  input 0x%08x: cvt.rna hi 0x%08x lo 0x%08x, bits hi 0x%08x lo 0x%08x\n", firsts[5 * i],
               firsts[5 * i + 1], firsts[5 * i + 2], firsts[5 * i + 3], firsts[5 * i + 4]);
    fclose(csv);
    return 0;
}
