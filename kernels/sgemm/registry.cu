/* The one table of SGEMM variants, and find / select / work_bytes / run. */
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

__global__ void scale_c_kernel(float *c, int64_t ldc, int m, int n, float beta)
{
    const int64_t total = (int64_t)m * n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t j = e / m, i = e % m;
        float *dst = c + j * ldc + i;
        *dst = beta == 0.0f ? 0.0f : beta * *dst;
    }
}

int accepts_any(const shim_sgemm_args *)
{
    return 1;
}
size_t no_work(const shim_sgemm_args *)
{
    return 0;
}

/* the pipelined kernel at one tile configuration, data-parallel */
template <int CFG> cudaError_t pipelined_launch(const shim_sgemm_args *p)
{
    return launch_plan(p, plan_dp(p, CFG));
}

cudaError_t splitk_launch(const shim_sgemm_args *p)
{
    return launch_plan(p, plan_splitk(p));
}
size_t splitk_work(const shim_sgemm_args *p)
{
    return plan_work_bytes(plan_splitk(p));
}
cudaError_t splitk_tail_launch(const shim_sgemm_args *p)
{
    return launch_plan(p, plan_tail(p));
}
size_t splitk_tail_work(const shim_sgemm_args *p)
{
    return plan_work_bytes(plan_tail(p));
}
int splitk_cluster_accepts(const shim_sgemm_args *p)
{
    return plan_splitk_cluster(p).cluster;
}
cudaError_t splitk_cluster_launch(const shim_sgemm_args *p)
{
    return launch_plan(p, plan_splitk_cluster(p));
}
int splitk_groups_accepts(const shim_sgemm_args *p)
{
    const plan pl = plan_splitk_groups(p);
    return pl.cluster > 0 && pl.cluster < pl.splits;
}
cudaError_t splitk_groups_launch(const shim_sgemm_args *p)
{
    return launch_plan(p, plan_splitk_groups(p));
}
size_t splitk_groups_work(const shim_sgemm_args *p)
{
    return plan_work_bytes(plan_splitk_groups(p));
}
int splitk_halves_accepts(const shim_sgemm_args *p)
{
    return plan_split_halves(p).cluster;
}
cudaError_t splitk_halves_launch(const shim_sgemm_args *p)
{
    return launch_plan(p, plan_split_halves(p));
}
cudaError_t streamk_launch(const shim_sgemm_args *p)
{
    return launch_plan(p, plan_streamk(p));
}
size_t streamk_work(const shim_sgemm_args *p)
{
    return plan_work_bytes(plan_streamk(p));
}

enum variant_index {
    V_TF32X3_PRESPLIT,
    V_TF32_PRESPLIT,
    V_TF32X3_TMA,
    V_TF32_TMA,
    V_TF32X3_WGMMA,
    V_TF32_WGMMA,
    V_TF32X3_ASYNC,
    V_TF32_ASYNC,
    V_TF32X3_MMA,
    V_TF32_MMA,
    V_NAIVE,
    V_SMEM_TILED,
    V_COARSE_1D,
    V_COARSE_2D,
    V_VEC4,
    V_WARPTILE,
    V_WARPTILE_128x64,
    V_WARPTILE_128x64x16,
    V_SPLITK_CLUSTER,
    V_SPLITK_GROUPS,
    V_SPLITK_HALVES,
    V_PIPE_128x256_K8,
    V_PIPE_256x128_K8,
    V_PIPE_128x128,
    V_PIPE_128x128_W4,
    V_PIPE_128x128_K8,
    V_PIPE_128x256,
    V_PIPE_64x64,
    V_PIPE_64x64_W4,
    V_PIPE_64x128,
    V_PIPE_128x64,
    V_PIPE_128x64_KG2,
    V_SPLITK,
    V_SPLITK_TAIL,
    V_STREAMK,
    V_TRANSPOSE_FIRST,
    V_COUNT
};

/* ladder order (a split plan whose workspace would pass plan.cu's cap is never made: the planner
 * falls back to a data-parallel plan). The last FP32 entry needing no workspace is what runs when a
 * chosen variant's workspace cannot be had (gpu_kernel_choice.h): pipelined_128x64, the best
 * general kernel; the 8-warp k8 configurations, planned in some layouts only, sit before the others. */
const shim_sgemm_variant variants[] = {
    /* the tensor-core variants first: the FP32 ladder's order below stays what it says */
    {"tf32x3_presplit",
     "3xTF32: operands split once into TF32 hi/lo images in the workspace, bulk-copied to a warp-specialised "
     "wgmma m64n128k8 kernel (2 consumer warpgroups, 3 stages), 128x128x32; Inf/NaN outputs in FP32",
     tf32_presplit_accepts, tf32x3_presplit_work, tf32x3_presplit_launch, SHIM_SGEMM_3XTF32},
    {"tf32_presplit",
     "TF32: operands rounded once into TF32 images in the workspace, bulk-copied to a warp-specialised wgmma "
     "m64n128k8 kernel (2 consumer warpgroups, 6 stages), 128x128x32",
     tf32_presplit_accepts, tf32_presplit_work, tf32_presplit_launch, SHIM_SGEMM_TF32},
    {"tf32x3_tma",
     "3xTF32: raw FP32 tiles by TMA; the 128-row operand split by 2 warpgroups into TF32 hi/lo images, the "
     "64-row one split in the MMA warpgroup's registers; wgmma m64n128k8, 64x128 or 128x64 x32, K split where "
     "tiles are few; Inf/NaN outputs in FP32; TMA-readable operands only",
     tf32_tma_accepts, tf32_tma_work, tf32x3_tma_launch, SHIM_SGEMM_3XTF32},
    {"tf32_tma",
     "TF32: raw FP32 tiles by TMA; the 128-row operand rounded into shared memory, the 64-row one in "
     "registers; wgmma m64n128k8, 64x128 or 128x64 x32, K split where tiles are few; TMA-readable operands only",
     tf32_tma_accepts, tf32_tma_work, tf32_tma_launch, SHIM_SGEMM_TF32},
    {"tf32x3_wgmma", "3xTF32: Hopper wgmma m64n64k8 (4 warpgroups), both operands split into TF32 hi/hx/lo images, 128x128x32",
     tf32_wgmma_accepts, no_work, tf32x3_wgmma_launch, SHIM_SGEMM_3XTF32},
    {"tf32_wgmma", "TF32: Hopper wgmma m64n64k8 (4 warpgroups), one product of TF32-rounded operands, 128x128x32",
     tf32_wgmma_accepts, no_work, tf32_wgmma_launch, SHIM_SGEMM_TF32},
    {"tf32x3_async", "3xTF32: mma.sync m16n8k8 fed by a 4-stage cp.async ring, split on the fragments, 128x128x32",
     tf32_async_accepts, no_work, tf32x3_async_launch, SHIM_SGEMM_3XTF32},
    {"tf32_async", "TF32: mma.sync m16n8k8 fed by a 4-stage cp.async ring, 128x128x32", tf32_async_accepts, no_work,
     tf32_async_launch, SHIM_SGEMM_TF32},
    {"tf32x3_mma", "3xTF32: mma.sync m16n8k8, operands split into TF32 hi + lo, three products, 128x128x16",
     tf32_mma_accepts, no_work, tf32x3_mma_launch, SHIM_SGEMM_3XTF32},
    {"tf32_mma", "TF32: mma.sync m16n8k8, one product of TF32-rounded operands, 128x128x16", tf32_mma_accepts,
     no_work, tf32_mma_launch, SHIM_SGEMM_TF32},
    {"naive", "one thread per element of C, operands from global memory", accepts_any, no_work, naive_launch, SHIM_SGEMM_FP32},
    {"smem_tiled", "32x32 shared-memory tiles, one element of C per thread", accepts_any, no_work,
     smem_tiled_launch, SHIM_SGEMM_FP32},
    {"coarse_1d", "64x64x8 tiles, 8 rows of C per thread", accepts_any, no_work, coarse_1d_launch, SHIM_SGEMM_FP32},
    {"coarse_2d", "128x128x8 tiles, 8x8 register block per thread", accepts_any, no_work, coarse_2d_launch, SHIM_SGEMM_FP32},
    {"vec4", "coarse_2d with 16-byte global and shared loads", accepts_any, no_work, vec4_launch, SHIM_SGEMM_FP32},
    {"warptile", "128x128x8, 64x32 warp tiles, double-buffered shared memory and fragments", accepts_any,
     no_work, warptile_launch, SHIM_SGEMM_FP32},
    {"warptile_128x64", "warptile at 128x64x8: 64x32 warp tiles, 8x8 per thread, 3 blocks per SM",
     accepts_any, no_work, warptile_128x64_launch, SHIM_SGEMM_FP32},
    {"warptile_128x64x16",
     "warptile_128x64 with k tiles of 16: half the barriers, twice the registers in flight", accepts_any,
     no_work, warptile_128x64x16_launch, SHIM_SGEMM_FP32},
    {"splitk_cluster",
     "pipelined tiles, K split over the blocks of a thread-block cluster, slices summed in order in the blocks' "
     "shared memory (compute capability 9.0; K long enough for two slices)",
     splitk_cluster_accepts, no_work, splitk_cluster_launch, SHIM_SGEMM_FP32},
    {"splitk_groups",
     "splitk's plan with its slices in pairs of a thread-block cluster: each pair's sum made in the blocks' "
     "shared memory, the pairs' sums added in order by the last to arrive (compute capability 9.0; four "
     "slices, or eight over several waves)",
     splitk_groups_accepts, splitk_groups_work, splitk_groups_launch, SHIM_SGEMM_FP32},
    {"splitk_halves",
     "64x64 tiles of four warps in two K slices, each tile's two blocks a thread-block cluster adding them in "
     "shared memory (compute capability 9.0; K 512-1024, at most three blocks an SM)",
     splitk_halves_accepts, no_work, splitk_halves_launch, SHIM_SGEMM_FP32},
    {"pipelined_128x256x8", "pipelined_128x256 with k tiles of 8: half the unrolled loop; planned with a K-contiguous A only, or none",
     accepts_any, no_work, pipelined_launch<TILE_128x256_K8>, SHIM_SGEMM_FP32},
    {"pipelined_256x128x8",
     "256x128x8, 4-stage cp.async pipeline, 4x2 warps of 64x64, 8x16 per thread; planned with a K-contiguous B only, or none",
     accepts_any, no_work, pipelined_launch<TILE_256x128_K8>, SHIM_SGEMM_FP32},
    {"pipelined_128x128", "128x128x16, 4-stage cp.async pipeline, 64x32 warp tiles, 8x8 per thread",
     accepts_any, no_work, pipelined_launch<TILE_128x128>, SHIM_SGEMM_FP32},
    {"pipelined_128x128w4", "128x128x8, 4-stage cp.async pipeline, 2x2 warps of 64x64, 8x16 per thread, 2 blocks per SM",
     accepts_any, no_work, pipelined_launch<TILE_128x128_W4>, SHIM_SGEMM_FP32},
    {"pipelined_128x128x8", "pipelined_128x128 with k tiles of 8: half the unrolled loop, twice the barriers",
     accepts_any, no_work, pipelined_launch<TILE_128x128_K8>, SHIM_SGEMM_FP32},
    {"pipelined_128x256", "128x256x16, 4-stage cp.async pipeline, 64x64 warp tiles, 8x16 per thread",
     accepts_any, no_work, pipelined_launch<TILE_128x256>, SHIM_SGEMM_FP32},
    {"pipelined_64x64", "64x64x16, 4-stage cp.async pipeline, 64x32 warp tiles, 8x8 per thread", accepts_any,
     no_work, pipelined_launch<TILE_64x64>, SHIM_SGEMM_FP32},
    {"pipelined_64x64w4", "64x64x16, 4-stage cp.async pipeline, 1x4 warps of 64x16, 8x4 per thread, 4 blocks per SM",
     accepts_any, no_work, pipelined_launch<TILE_64x64_W4>, SHIM_SGEMM_FP32},
    {"pipelined_64x128", "64x128x16, 4-stage cp.async pipeline, 32x64 warp tiles, 8x8 per thread", accepts_any,
     no_work, pipelined_launch<TILE_64x128>, SHIM_SGEMM_FP32},
    {"pipelined_128x64", "128x64x16, 4-stage cp.async pipeline, 64x32 warp tiles, 8x8 per thread",
     accepts_any, no_work, pipelined_launch<TILE_128x64>, SHIM_SGEMM_FP32},
    {"pipelined_128x64_kg2",
     "pipelined_128x64 with two k groups of four warps, summed in shared memory: eight warps a tile (planned "
     "where the tiles leave each SM one block)",
     accepts_any, no_work, pipelined_launch<TILE_128x64_KG2>, SHIM_SGEMM_FP32},
    {"splitk", "pipelined tiles, K split over blocks, slices summed in order by a second kernel", accepts_any,
     splitk_work, splitk_launch, SHIM_SGEMM_FP32},
    {"splitk_tail", "whole waves data-parallel, the last partial wave's tiles split over K", accepts_any,
     splitk_tail_work, splitk_tail_launch, SHIM_SGEMM_FP32},
    {"streamk",
     "pipelined tiles' k tiles shared equally among one wave of blocks (stream-K), shared tiles finished in "
     "the kernel in k order",
     accepts_any, streamk_work, streamk_launch, SHIM_SGEMM_FP32},
    {"transpose_first",
     "K-contiguous operands copied R-contiguous into the workspace first (where the model says it pays; all of "
     "them when named), then the FP32 ladder's plan for the copied form",
     accepts_any, transpose_first_work, transpose_first_launch, SHIM_SGEMM_FP32},
};
static_assert(sizeof variants / sizeof *variants == V_COUNT, "one entry per variant_index, in its order");

int variant_for_config(int cfg)
{
    switch (cfg) {
    case TILE_128x256: return V_PIPE_128x256;
    case TILE_128x64: return V_PIPE_128x64;
    case TILE_128x64_KG2: return V_PIPE_128x64_KG2;
    case TILE_64x64: return V_PIPE_64x64;
    case TILE_64x64_W4: return V_PIPE_64x64_W4;
    case TILE_64x128: return V_PIPE_64x128;
    case TILE_128x128_K8: return V_PIPE_128x128_K8;
    case TILE_128x128_W4: return V_PIPE_128x128_W4;
    case TILE_128x256_K8: return V_PIPE_128x256_K8;
    case TILE_256x128_K8: return V_PIPE_256x128_K8;
    default: return V_PIPE_128x128;
    }
}

/* a split plan must beat the best data-parallel one by this factor: its model has more terms
 * to get wrong */
constexpr double SPLIT_MARGIN = 0.97;

/* Two slices of 64x64w4 tiles in clusters past K = 1024 (plan_split_halves), taken by price: the
 * model's estimate times this. The model prices every 64x64w4 plan of K 900-1500 at 1.2-1.3x its
 * time (measured over model, medians: the halves 0.807, whole tiles 0.829; other configurations
 * 0.87-1.05) (H200, 2026-11-28, bench/sgemm_plan_space on 120 shapes, bench/shapes/halves_priced.txt);
 * with 0.85 bench/plan_regret finds every plan it changes there at 0.93-1.00 of the time before
 * (1100^3-1152^3 and 1300^3-1344^3 every case, 1420x1074x1232 NN), where 0.80 also took it at
 * 1184^3-1280^3, 1.05-1.09 slower, and 1.0 never */
constexpr double HALVES_PRICE = 0.85;

/* In place of a split of at least this many slices finished by the reduction kernel, the halves
 * where their blocks are one an SM at most and more than two thirds of the SMs: their pairs then
 * all run at once, each block a 64x64 tile's half of K, against more, shorter blocks and a
 * reduction after. Measured on 71 random shapes of K 512-1024 where the selector took such a split
 * and the halves could run (H200, 2026-11-29, bench/shapes/halves_many_slices.txt,
 * docs/notes/sgemm.md "The halves in place of many slices"): at 90-132 blocks of the halves 0.68-0.93
 * of the split's time, every one of 35 (512^3 TN 0.75; geometric mean 0.83); at 88 and fewer
 * 0.97-1.60; past one an SM (140-312 blocks) 1.00-1.26, as the blocks of some SMs then run twice */
constexpr int HALVES_MANY_SLICES = 5;

/* the shortest K at which one wave of 128x128 whole tiles gives way to stream-K over every SM
 * (select_fp32_planned): about where the idle SMs' share (11 of 132 at 121 tiles) of a whole tile's
 * time passes 15 us, some 3 us over the plan's own work measured at K 1400-4000 */
constexpr int SK_ONE_AN_SM_MIN_K = 2560;

} // namespace

cudaError_t scale_c_launch(const shim_sgemm_args *p)
{
    const int64_t total = (int64_t)p->m * p->n;
    const int64_t blocks = std::min<int64_t>((total + 255) / 256, (int64_t)sm_count() * 16);
    SHIM_KERNEL_READY(scale_c_kernel);
    scale_c_kernel<<<(unsigned)blocks, 256, 0, p->stream>>>(p->c, p->ldc, p->m, p->n, p->beta);
    return cudaGetLastError();
}

int kslice_for(int64_t tiles, int ktiles, int min_slice)
{
    if (tiles <= 0 || ktiles <= 0)
        return std::max(ktiles, 1);
    const int64_t splits = std::min<int64_t>(sm_count() / tiles, ktiles / min_slice);
    return splits < 2 ? ktiles : (int)((ktiles + splits - 1) / splits);
}

int sm_count()
{
    static const int count = [] {
        int dev = 0, n = 0;
        if (cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess && n > 0)
            return n;
        cudaGetLastError(); /* the probe's error is not the caller's */
        return 132;
    }();
    return count;
}

size_t blocks_an_sm_smem(int per, int dev)
{
    static std::atomic<int> bytes[64]; /* an SM's shared memory by device: 0 not read yet, -1 unknown */
    if (per < 1 || dev < 0 || dev >= 64)
        return 0;
    int b = bytes[dev].load(std::memory_order_relaxed);
    if (b == 0) {
        int per_sm = 0, per_block = 0;
        if (cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess &&
            per_sm > 0 && per_sm / 2 <= per_block) {
            b = per_sm;
        } else {
            cudaGetLastError();
            b = -1;
        }
        bytes[dev].store(b, std::memory_order_relaxed);
    }
    /* per + 1 such blocks and their reserved shared memory exceed the SM's; per of them fit where
     * per times a block's reservation (1 KB on compute capability 9.0) is under a (per + 1)-th of
     * the SM's shared memory (per up to 14 on the H100 and H200) */
    return b > 0 ? (size_t)b / (size_t)(per + 1) : 0;
}

} // namespace sgemm

using namespace sgemm;

extern "C" const shim_sgemm_variant *shim_sgemm_variants(int *count)
{
    if (count)
        *count = V_COUNT;
    return variants;
}

extern "C" const shim_sgemm_variant *shim_sgemm_find(const char *name)
{
    if (!name)
        return nullptr;
    for (const shim_sgemm_variant &v : variants)
        if (strcmp(v.name, name) == 0)
            return &v;
    return nullptr;
}

/* Where the register-staged warptile kernels were measured faster than the cost model's choice
 * (H200; docs/perf.md, docs/notes/sgemm.md):
 * - An A stored K-contiguous (transa) reaches the pipelined kernels' shared memory by 4-byte
 *   transposing cp.async (K4), which costs 13-25 % against warptile's 16-byte loads transposed on
 *   the shared store. Where A goes by 16-byte copies instead (K16, k16_operands) the pipelined
 *   kernel is the faster one (8192^3 TN by name: 45.1 against 41.7-42.0) and stays. So with transa
 *   and K4: warptile (128x128) where its tiles give every SM at least one block
 *   and the last wave (2 blocks per SM) is at least 85 % full, and warptile_128x64x16 in place of a
 *   data-parallel 128x64 plan on grids of fewer tiles than SMs. Split-K plans stay: there the
 *   pipelined kernel's K slices matter more than the copy. So do TT plans whose tiles are 128 or
 *   more columns wide (64x128, which the model picks where A's copies dominate): A's copies face
 *   128 columns there, as NN's B copies face 128 rows at 128x64, the layout that costs the
 *   pipelined kernels least.
 * - With m, n and k all at least 16384 the 128x64 pipelined kernel falls to 42.6-45.6 TFLOP/s NN,
 *   where it does 47.6-48.9 NN at 12288^3, 16384x16384x8192 and 8192x8192x32768, while warptile
 *   holds 47.1 NN there. Not understood (L2 hit rate 61 % against 90 % at 8192^3; raster groups of
 *   4 and 16 tile rows do no better than 8); from that size on warptile replaces it for NN. NT does
 *   not fall as far (46.2 in one run, 48.8 in another, against warptile's 47.4 in both), so it
 *   keeps the pipelined kernel, and transpose_first turns the other cases into NT there. */
constexpr int LARGE_SIDE = 16384;

static int register_staged_where_faster(const shim_sgemm_args *p, int chosen, int cfg)
{
    if (!p->transa)
        return chosen == V_PIPE_128x64 && !p->transb && p->m >= LARGE_SIDE && p->n >= LARGE_SIDE &&
                       p->k >= LARGE_SIDE
                   ? V_WARPTILE
                   : chosen;
    if (chosen == V_SPLITK || chosen == V_SPLITK_CLUSTER || chosen == V_SPLITK_GROUPS || chosen == V_SPLITK_HALVES ||
        chosen == V_STREAMK ||
        (p->transb && config(cfg).bn >= 128) || (k16_operands(p, config(cfg)) & K16_A))
        return chosen;
    const int64_t tiles = (int64_t)((p->m + 127) / 128) * ((p->n + 127) / 128);
    const int64_t slots = 2 * (int64_t)sm_count();
    const int64_t waves = (tiles + slots - 1) / slots;
    if (tiles >= slots / 2 && (double)tiles >= 0.85 * (double)(waves * slots))
        return V_WARPTILE;
    if (tiles < slots / 2 && chosen == V_PIPE_128x64)
        return V_WARPTILE_128x64x16;
    return chosen;
}

/* Tiny products, where naive's small set-up wins. Its threads run along m, so it reads A coalesced
 * only when A is not transposed. Measured (H200, bench/sgemm_plans on 8480 shapes, naive against
 * the fastest other plan): A not transposed, 0.83x up to k = 128 and m n k = 2^24; A transposed,
 * 0.64-0.86x where k < 8 (to m n k = 2^24) or m <= 16 (to 2^21), and 1.7-80x slower beyond
 * m n k = 2^20 otherwise. */
static bool naive_is_fastest(const shim_sgemm_args *p)
{
    const int64_t mnk = (int64_t)p->m * p->n * std::max(p->k, 1);
    const int64_t tiny = (int64_t)1 << 18;
    if (!p->transa)
        return p->k <= 128 ? mnk <= ((int64_t)1 << 24) : p->k <= 256 && mnk <= tiny;
    if (p->k < 8)
        return mnk <= ((int64_t)1 << 24);
    return p->k <= 256 && (mnk < tiny || (p->m <= 16 && mnk <= ((int64_t)1 << 21)));
}

/* the FP32 ladder's choice and its expected seconds (0 for the tiny products, where launch latency
 * is all there is); spread: with the clusters of one wave that the device spreads as lone blocks
 * (plan_splitk_cluster in place of plan_splitk_cluster_placed) */
static int select_fp32_ladder(const shim_sgemm_args *p, double *seconds, bool spread)
{
    *seconds = 0.0;
    if (naive_is_fastest(p))
        return V_NAIVE;
    const plan dp = best_dp(p);
    int best = variant_for_config(dp.cfg), best_cfg = dp.cfg;
    double best_cost = plan_cost(p, dp);
    if (p->k > 0 && p->alpha != 0.0f) {
        const plan split = plan_splitk(p);
        if (split.split_tiles > 0 && plan_cost(p, split) < SPLIT_MARGIN * best_cost) {
            best_cost = plan_cost(p, split) / SPLIT_MARGIN;
            best = V_SPLITK;
            best_cfg = split.cfg;
        }
        const plan csplit = spread ? plan_splitk_cluster(p) : plan_splitk_cluster_placed(p);
        if (csplit.cluster && plan_cost(p, csplit) < SPLIT_MARGIN * best_cost) {
            best_cost = plan_cost(p, csplit) / SPLIT_MARGIN;
            best = V_SPLITK_CLUSTER;
            best_cfg = csplit.cfg;
        }
        const plan tail = plan_tail(p);
        if (tail.split_tiles > 0 && tail.dp_tiles > 0 && plan_cost(p, tail) < SPLIT_MARGIN * best_cost) {
            best_cost = plan_cost(p, tail) / SPLIT_MARGIN;
            best = V_SPLITK_TAIL;
            best_cfg = tail.cfg;
        }
        const plan sk = plan_streamk_priced(p);
        if (sk.sk_blocks > 0 && plan_cost(p, sk) < SPLIT_MARGIN * best_cost) {
            best_cost = plan_cost(p, sk) / SPLIT_MARGIN;
            best = V_STREAMK;
            best_cfg = sk.cfg;
        }
    }
    /* the split finished in groups of clusters where that measured faster (plan_splitk_groups) */
    if (best == V_SPLITK && plan_splitk_groups(p).cluster)
        best = V_SPLITK_GROUPS;
    /* in place of a split of every tile in four slices finished by the reduction kernel or in pairs,
     * two slices of 64x64 tiles finished in clusters where they may run (plan_split_halves): as many
     * blocks (twice as many for 128x128 tiles), the same work a block, a quarter of the partial sums,
     * no reduction after. Measured against those plans (H200, 2026-11-28, bench/shapes/
     * halves_aligned.txt, 69 random shapes, K 512-1024): 0.75-0.93 of the time, all 22; against
     * splits of three slices 1.00-1.09 and against four finished in one cluster a tile 0.94-1.05,
     * which it does not replace. The model's estimate kept, an upper bound here. So also where the
     * same tiles won whole (their efficiency in pipelined.cu): in place of them, the two slices in clusters ran
     * 0.954-1.000 of the time, on the whole 1148x436x896 NT 4.6 % slower (plan spaces, H200,
     * 2026-11-28). And in place of a split of five or more slices where the halves' blocks fill
     * most of one wave (HALVES_MANY_SLICES) */
    if (split_halves_priced(p)) {
        const plan halves = plan_split_halves(p);
        if (halves.cluster && HALVES_PRICE * plan_cost(p, halves) < best_cost) {
            best_cost = HALVES_PRICE * plan_cost(p, halves);
            best = V_SPLITK_HALVES;
            best_cfg = TILE_64x64_W4;
        }
    } else if (best == V_SPLITK || best == V_SPLITK_GROUPS || best == V_PIPE_64x64_W4) { /* plan_splitk's tiles and slices */
        const plan halves = plan_split_halves(p), split = plan_splitk(p);
        const int64_t blocks = (int64_t)halves.split_tiles * halves.splits, sms = sm_count();
        const bool as_many = split.splits == 4 && blocks >= (int64_t)split.split_tiles * split.splits * 9 / 10;
        const bool one_an_sm = best == V_SPLITK && split.splits >= HALVES_MANY_SLICES && 3 * blocks > 2 * sms &&
                               blocks <= sms;
        if (halves.cluster && (as_many || one_an_sm)) {
            best = V_SPLITK_HALVES;
            best_cfg = TILE_64x64_W4;
        }
    }
    /* one wave of 128x128 whole tiles that leaves SMs idle, where K is long enough for their share
     * to outrun stream-K's own work (some 8-12 us): stream-K over every SM, as plan_streamk offers it
     * there (one block an SM, streamk_blocks; 116-121 tiles of 132). Against the whole tiles (H200,
     * 2026-11-29): 1400x1400x4000 NT 0.94 of their time, at K 1400-1500 1.01, at K 300 1.29
     * (bench/sgemm_plan_space); on 39 random shapes of K 2592-7324 (bench/shapes/
     * sk_one_an_sm_long_k.txt, NT, the form they run in after copies) 0.927-0.979 with 117-121 tiles
     * (19 shapes, geometric mean 0.948), 0.99-1.03 with 126-130 (20), which plan_streamk_priced
     * does not offer; the estimate kept (docs/notes/sgemm.md, "128x128 by stream-K, one block an
     * SM"). The priced plan, as plan_streamk also runs 128x128 past one wave */
    if (best == V_PIPE_128x128 && p->k >= SK_ONE_AN_SM_MIN_K) {
        const plan sk = plan_streamk_priced(p);
        if (sk.cfg == TILE_128x128 && sk.sk_blocks > 0)
            best = V_STREAMK;
    }
    *seconds = best_cost;
    return register_staged_where_faster(p, best, best_cfg);
}

/* plan_splitk_cluster's plan is one that only cluster_spread_in_one_wave admits */
static bool spread_cluster_plan(const shim_sgemm_args *p)
{
    const plan spread = plan_splitk_cluster(p), placed = plan_splitk_cluster_placed(p);
    return spread.cfg != placed.cfg || spread.splits != placed.splits || spread.cluster != placed.cluster;
}

/* Clusters in one wave that the device spreads (plan.cu's cluster_spread_in_one_wave), where the
 * ladder without them splits every tile, finished by the reduction kernel or in clusters. Measured
 * against the plans chosen without them (H200, 2026-11-29, bench/sgemm_plans on the benchmark shapes
 * whose choice they moved, bench/shapes/cluster_spread.txt; docs/notes/sgemm.md, "Clusters in one
 * wave that the device spreads"): in place of a split finished by the reduction kernel 0.935 of the
 * time in geometric mean (53 shapes), of another cluster split 0.917 (38); in place of the halves
 * (plan_split_halves) 1.078 (88) and of 64x64w4's whole tiles 1.085 (6), which the model prices
 * above the new clusters: those are kept. */
static int select_fp32_planned(const shim_sgemm_args *p, double *seconds)
{
    const int placed = select_fp32_ladder(p, seconds, false);
    if ((placed != V_SPLITK && placed != V_SPLITK_CLUSTER) || !spread_cluster_plan(p))
        return placed;
    double spread_seconds;
    const int spread = select_fp32_ladder(p, &spread_seconds, true);
    if (spread != V_SPLITK_CLUSTER)
        return placed;
    *seconds = spread_seconds;
    return spread;
}

/* the same, remembered: asked for the caller's form and each copied form at every select, work_bytes
 * and launch */
static int select_fp32_index(const shim_sgemm_args *p, double *seconds)
{
    struct choice {
        int index;
        double seconds;
    };
    static thread_local shape_memo<choice> memo;
    choice c;
    if (const choice *known = memo.find(p))
        c = *known;
    else
        c.index = select_fp32_planned(p, &c.seconds), memo.keep(p, c);
    *seconds = c.seconds;
    return c.index;
}

namespace sgemm {
const shim_sgemm_variant *select_fp32_direct(const shim_sgemm_args *p, double *seconds)
{
    return &variants[select_fp32_index(p, seconds)];
}
} // namespace sgemm

/* Tiles that take the operand a copy would flip as it is, where the copied form would run on them:
 * they run directly, in place of the copy.
 * - TN's copy of A feeding the 8-warp 256x128x8 tiles: those tiles run TN directly, both operands by
 *   16-byte copies transposed in shared memory: measured 1-4 % faster than after the copy at
 *   2000^3-4096^3 (H200: 2000^3 0.3411 ms against 0.3522, 2048^3 0.3496 against 0.3597; H100: 2816^3
 *   4.3 %, 3584^3 3 %). The model does not choose them itself: k_face keeps K-contiguous operands
 *   facing their 128 side off them, and waived for TN it also took them where they displace 128x64
 *   plans on fewer tiles than SMs, 10 % slower (docs/notes/sgemm.md).
 * - NN's copy of B feeding the k-group tiles (one the model makes where B's rows lie off 32-byte
 *   sectors: MISALIGNED_COST): their copies by lanes take B as fast at every leading dimension (H200,
 *   2026-11-28: 1000x1000xK NN, a k tile 0.822-0.835 us for K = 992-1024, ldb % 8 == 4 included), and
 *   directly they ran 0.927-0.983 of the time after B's copy on the 25 benchmark shapes where the
 *   selector made it (1000x1000x996 NN 0.0563 -> 0.0527 ms, 0.929x -> 0.992x cuBLAS; 1409x458x257
 *   0.795x -> 0.857x). Not by a price: without the misaligned price for these tiles the model also
 *   took them in place of split plans, up to 1.37x slower where the tiles are few (89x469x132 NN,
 *   302x425x145 NN; docs/notes/sgemm.md, "The k-group tiles' copies of A priced"). Measured with
 *   B's base on a 32-byte sector (rows off sectors by ldb alone): a base off one stays copied. */
static int direct_in_place_of_copies(const shim_sgemm_args *p, int copies)
{
    int cfg;
    if (copies == COPY_A && p->transa && !p->transb && k16_operands(p, config(TILE_256x128_K8)) == (K16_A | K16_B))
        cfg = TILE_256x128_K8;
    else if (copies == COPY_B && !p->transa && !p->transb && (uintptr_t)p->b % 32 == 0)
        cfg = TILE_128x64_KG2;
    else
        return -1;
    const int v = variant_for_config(cfg);
    shim_sgemm_args q;
    return copied_form_variant(p, copies, &q) == &variants[v] ? v : -1;
}

/* The halves and 64x64w4's whole tiles, where the selector keeps them over clusters of one wave that
 * the device spreads (select_fp32_planned), kept also where a copied form beats them only by such
 * clusters: after A's or B's copy those ran 1.07-1.11x the halves' time (H200, 2026-11-29: TN at
 * 272x808x540, 400x532x924 and 564x392x916; docs/notes/sgemm.md, "Clusters in one wave that the
 * device spreads") */
static bool direct_over_spread_copies(const shim_sgemm_args *p, int direct, int copies)
{
    if (direct != V_SPLITK_HALVES && direct != V_PIPE_64x64_W4)
        return false;
    shim_sgemm_args q;
    return copied_form_variant(p, copies, &q) == &variants[V_SPLITK_CLUSTER] && spread_cluster_plan(&q);
}

/* the direct choice, or the same ladder after copying the K-contiguous operands where that pays
 * (transpose_first.cu), or the copied form's tiles directly (direct_in_place_of_copies).
 * The k-group tiles chosen directly where 64x64w4's tiles would give fewer than half the SMs a tile
 * (where config_planned leaves those out: there they lost to splits) run 64x64w4 instead, whatever
 * the model says of them. Measured (H200, 2026-11-28, every plan,
 * bench/shapes/kg2_few_tiles.txt): on all 8 such shapes of the benchmark lists 0.69-0.76 of the k
 * groups' time (512x512x128 TN 0.0096 ms against 0.0133, 461x321x148 TT 0.0104 against 0.0144,
 * 245x116x16 TN 0.0050 against 0.0066); the model, pricing 4-byte copies of odd leading dimensions
 * facing 64, would copy first. Selector against selector (same day, three rounds): 0.698-0.909 of
 * the time, 0.739 in geometric mean (245x116x16 TN 0.909, the rest 0.70-0.76). */
static int select_fp32(const shim_sgemm_args *p, double *seconds)
{
    const int direct = select_fp32_index(p, seconds);
    const int copies = copies_that_pay(p, *seconds);
    if (!copies)
        return direct == V_PIPE_128x64_KG2 && !config_planned(p, TILE_64x64_W4) ? V_PIPE_64x64_W4 : direct;
    if (direct_over_spread_copies(p, direct, copies))
        return direct;
    *seconds = transpose_first_seconds(p, copies);
    const int in_place = direct_in_place_of_copies(p, copies);
    return in_place >= 0 ? in_place : V_TRANSPOSE_FIRST;
}

extern "C" const shim_sgemm_variant *shim_sgemm_select(const shim_sgemm_args *p)
{
    double fp32_seconds;
    if (p->math != SHIM_SGEMM_3XTF32 && p->math != SHIM_SGEMM_TF32)
        return &variants[select_fp32(p, &fp32_seconds)];
    /* The tensor-core classes. On Hopper the cheapest of three by their cost models: the kernel fed
     * by a split done once before the GEMM (large shapes), the TMA-fed one that splits in shared
     * memory (thin shapes, small squares; TMA-readable operands only), and the FP32 ladder (tiny
     * products; FP32 is also the more accurate). Elsewhere the register-staged mma.sync kernels
     * (measured faster than the ring-fed ones: docs/notes/sgemm.md), else the ring-fed ones (grids
     * too large for all of them: the FP32 kernels). The FP32 ladder is asked only where its answer
     * is used. */
    const bool tf32 = p->math == SHIM_SGEMM_TF32;
    const int passes = tf32 ? 1 : 3;
    const int presplit = tf32 ? V_TF32_PRESPLIT : V_TF32X3_PRESPLIT, tma = tf32 ? V_TF32_TMA : V_TF32X3_TMA;
    if (variants[presplit].accepts(p)) {
        int best = presplit;
        double seconds = tf32_presplit_cost(p, passes);
        if (variants[tma].accepts(p)) {
            const double tma_seconds = tf32_tma_cost(p, passes);
            if (tma_seconds < seconds) {
                seconds = tma_seconds;
                best = tma;
            }
        }
        const int fp32 = select_fp32(p, &fp32_seconds);
        return &variants[seconds > fp32_seconds ? fp32 : best];
    }
    static const int other[][3] = {{V_TF32X3_WGMMA, V_TF32X3_MMA, V_TF32X3_ASYNC},
                                   {V_TF32_WGMMA, V_TF32_MMA, V_TF32_ASYNC}};
    for (int v : other[tf32])
        if (variants[v].accepts(p))
            return &variants[v];
    return &variants[select_fp32(p, &fp32_seconds)];
}

/* the pipelined plan variant i runs for p, for the variants that run one */
static bool variant_plan(int i, const shim_sgemm_args *p, plan *pl)
{
    if (i == V_SPLITK || i == V_SPLITK_TAIL || i == V_SPLITK_CLUSTER || i == V_SPLITK_GROUPS || i == V_SPLITK_HALVES) {
        *pl = i == V_SPLITK           ? plan_splitk(p)
              : i == V_SPLITK_TAIL    ? plan_tail(p)
              : i == V_SPLITK_CLUSTER ? plan_splitk_cluster(p)
              : i == V_SPLITK_GROUPS  ? plan_splitk_groups(p)
                                      : plan_split_halves(p);
        return true;
    }
    if (i == V_STREAMK) {
        *pl = plan_streamk(p);
        return true;
    }
    for (int cfg = 0; cfg < TILE_CONFIGS; ++cfg)
        if (variant_for_config(cfg) == i) {
            *pl = plan_dp(p, cfg);
            return true;
        }
    return false;
}

namespace sgemm {
bool fp32_variant_plan(const shim_sgemm_variant *v, const shim_sgemm_args *p, plan *pl)
{
    return v && variant_plan((int)(v - variants), p, pl);
}

bool fp32_direct_plan(const shim_sgemm_args *p, plan *pl)
{
    double seconds;
    return variant_plan(select_fp32_index(p, &seconds), p, pl);
}

bool fp32_one_wave(const shim_sgemm_args *p)
{
    plan pl;
    if (!fp32_direct_plan(p, &pl))
        return false;
    /* a stream-K plan as the selector priced it (plan_streamk may run 128x128 in its place), and
     * 128x128 by stream-K (one block an SM) standing in for its one wave of whole tiles, which
     * transpose_first's copy choice was measured with: judged as those */
    if (pl.sk_blocks > 0)
        pl = plan_streamk_priced(p);
    return pl.sk_blocks > 0 && config(pl.cfg).streamk > 1 ? pl.tiles_m * pl.tiles_n <= pl.sk_blocks
                                                          : config(pl.cfg).one_wave;
}
} // namespace sgemm

extern "C" int shim_sgemm_describe(const shim_sgemm_variant *v, const shim_sgemm_args *p, char *buf, size_t len)
{
    if (!v || !p)
        return snprintf(buf, len, "none");
    const bool product = p->k > 0 && p->alpha != 0.0f;
    int copies = 0;
    shim_sgemm_args q = *p;
    const shim_sgemm_variant *runs = v;
    if (v == &variants[V_TRANSPOSE_FIRST] && product)
        runs = transpose_first_inner(p, &copies, &q);
    char how[128] = "";
    plan pl;
    if (product && variant_plan((int)(runs - variants), &q, &pl)) {
        const tile_config &c = config(pl.cfg);
        /* how each K-contiguous operand reaches shared memory */
        const int k16 = k16_operands(&q, c);
        char kc[48] = "";
        if (q.transa || !q.transb)
            snprintf(kc, sizeof kc, ";%s%s%s%s", q.transa ? " A " : "", q.transa ? ((k16 & K16_A) ? "K16" : "K4") : "",
                     q.transb ? "" : " B ", q.transb ? "" : ((k16 & K16_B) ? "K16" : "K4"));
        if (pl.sk_blocks > 0)
            snprintf(how, sizeof how, " (%d tiles of %s over %d blocks%s)", pl.tiles_m * pl.tiles_n, c.name,
                     pl.sk_blocks, kc);
        else if (pl.split_tiles == 0)
            snprintf(how, sizeof how, " (%d tiles of %s%s)", pl.dp_tiles, c.name, kc);
        else {
            char cluster_note[48] = "";
            if (pl.cluster == pl.splits)
                snprintf(cluster_note, sizeof cluster_note, ", finished in clusters");
            else if (pl.cluster)
                snprintf(cluster_note, sizeof cluster_note, ", finished in %d groups of %d", pl.splits / pl.cluster,
                         pl.cluster);
            snprintf(how, sizeof how, " (tiles of %s: %d whole, %d in %d K slices%s%s)", c.name, pl.dp_tiles,
                     pl.split_tiles, pl.splits, cluster_note, kc);
        }
    }
    if (runs == v)
        return snprintf(buf, len, "%s%s", v->name, how);
    return snprintf(buf, len, "%s: %s%s copied, then %s%s", v->name, copies & COPY_A ? "A" : "",
                    copies & COPY_B ? "B" : "", runs->name, how);
}

extern "C" size_t shim_sgemm_work_bytes(const shim_sgemm_variant *v, const shim_sgemm_args *p)
{
    if (!v || !p || p->k == 0 || p->alpha == 0.0f || !v->work_bytes)
        return 0;
    return v->work_bytes(p);
}

extern "C" cudaError_t shim_sgemm_run(const shim_sgemm_variant *v, const shim_sgemm_args *p)
{
    if (!v || !p || p->m < 0 || p->n < 0 || p->k < 0)
        return cudaErrorInvalidValue;
    if (p->m == 0 || p->n == 0)
        return cudaSuccess;
    if (p->k == 0 || p->alpha == 0.0f)
        return p->beta == 1.0f ? cudaSuccess : scale_c_launch(p);
    if (!v->accepts(p))
        return cudaErrorInvalidValue;
    const size_t need = shim_sgemm_work_bytes(v, p);
    if (need && (!p->work || p->work_bytes < need))
        return cudaErrorInvalidValue;
    /* a kernel of v's refused (the device has no memory to load it): the fallback plan */
    return kernel_launch_or_fallback([&] { return v->launch(p); }, [&] { return launch_fallback(p); },
                                     p->beta == 0.0f);
}

extern "C" cudaError_t shim_sgemm_preload(void)
{
    const cudaError_t err = preload_fallback();
    return err != cudaSuccess ? err : shim_kernel_ready((const void *)scale_c_kernel);
}
