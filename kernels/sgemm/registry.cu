/* The one table of SGEMM variants, and find / describe / work_bytes / run (the choice among them:
 * select.cu). */
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"
#include "variant_table.h"

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

} // namespace

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

/* the pipelined plan variant i runs for p, for the variants that run one */
bool variant_plan(int i, const shim_sgemm_args *p, plan *pl)
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

namespace sgemm {
bool fp32_variant_plan(const shim_sgemm_variant *v, const shim_sgemm_args *p, plan *pl)
{
    return v && variant_plan((int)(v - variants), p, pl);
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
