/* Host-side interfaces between the SGEMM variant files and the registry (CUDA C++ only). */
#ifndef SHIM_SGEMM_INTERNAL_H
#define SHIM_SGEMM_INTERNAL_H

#include <cstddef>

#include "sgemm_kernels.h"

namespace sgemm {

/* the rungs of the ladder, one launcher each (alpha != 0 and k > 0 guaranteed by the caller) */
cudaError_t naive_launch(const shim_sgemm_args *p);
cudaError_t smem_tiled_launch(const shim_sgemm_args *p);
cudaError_t coarse_1d_launch(const shim_sgemm_args *p);
cudaError_t coarse_2d_launch(const shim_sgemm_args *p);
cudaError_t vec4_launch(const shim_sgemm_args *p);
cudaError_t warptile_launch(const shim_sgemm_args *p);
/* the warptile kernel at 128x64 tiles (4 warps, 3 blocks per SM), k tiles of 8 and of 16; variants,
 * not rungs */
cudaError_t warptile_128x64_launch(const shim_sgemm_args *p);
cudaError_t warptile_128x64x16_launch(const shim_sgemm_args *p);

/* the tensor-core variants (tf32_mma.cu): one TF32 pass, or three (3xTF32) */
int tf32_mma_accepts(const shim_sgemm_args *p);
cudaError_t tf32_mma_launch(const shim_sgemm_args *p);
cudaError_t tf32x3_mma_launch(const shim_sgemm_args *p);
/* the same fed by a cp.async ring (tf32_async.cu) */
int tf32_async_accepts(const shim_sgemm_args *p);
cudaError_t tf32_async_launch(const shim_sgemm_args *p);
cudaError_t tf32x3_async_launch(const shim_sgemm_args *p);
/* the same on Hopper's warpgroup MMA (tf32_wgmma.cu, sm_90a; accepts only there) */
int tf32_wgmma_accepts(const shim_sgemm_args *p);
cudaError_t tf32_wgmma_launch(const shim_sgemm_args *p);
cudaError_t tf32x3_wgmma_launch(const shim_sgemm_args *p);
/* the current device is a compute capability 9.0 GPU and the Hopper files were built for sm_90a */
bool wgmma_usable();
/* the same arithmetic with the split paid once: a pass writes each operand's TF32 parts to the
 * workspace as the shared-memory images and a warp-specialised wgmma kernel bulk-copies them
 * (tf32_presplit.cu, sm_90a) */
int tf32_presplit_accepts(const shim_sgemm_args *p);
/* its expected seconds (passes: 1 or 3), to weigh against the FP32 kernels' plan_cost */
double tf32_presplit_cost(const shim_sgemm_args *p, int passes);
size_t tf32_presplit_work(const shim_sgemm_args *p);
size_t tf32x3_presplit_work(const shim_sgemm_args *p);
cudaError_t tf32_presplit_launch(const shim_sgemm_args *p);
cudaError_t tf32x3_presplit_launch(const shim_sgemm_args *p);

/* the same arithmetic fed by TMA: raw FP32 tiles copied to shared memory, the 128-row operand split
 * there by splitter warpgroups, the 64-row one in the MMA warpgroup's registers (tf32_tma.cu,
 * sm_90a; operands 16-byte aligned with leading dimensions a multiple of 4) */
int tf32_tma_accepts(const shim_sgemm_args *p);
double tf32_tma_cost(const shim_sgemm_args *p, int passes);
size_t tf32_tma_work(const shim_sgemm_args *p);
cudaError_t tf32_tma_launch(const shim_sgemm_args *p);
cudaError_t tf32x3_tma_launch(const shim_sgemm_args *p);

/* K-contiguous operands copied R-contiguous into the workspace, then the FP32 ladder's plan for
 * the copied form (transpose_first.cu) */
enum { COPY_A = 1, COPY_B = 2 };
/* the operands (COPY_A | COPY_B) whose copy the cost model says pays, 0 when none (FP32 math only);
 * direct: the FP32 ladder's expected seconds without copies (select_fp32_direct) */
int copies_that_pay(const shim_sgemm_args *p, double direct);
/* the expected seconds of the copied form, copies included */
double transpose_first_seconds(const shim_sgemm_args *p, int copies);
size_t transpose_first_work(const shim_sgemm_args *p);
/* what the variant runs after its copies: the operands copied (COPY_A | COPY_B), the copied form of
 * the problem, and the FP32 variant that runs it */
const shim_sgemm_variant *transpose_first_inner(const shim_sgemm_args *p, int *copies, shim_sgemm_args *q);
/* the FP32 variant that runs p with the operands in `copies` copied, and that copied form (q) */
const shim_sgemm_variant *copied_form_variant(const shim_sgemm_args *p, int copies, shim_sgemm_args *q);
cudaError_t transpose_first_launch(const shim_sgemm_args *p);
/* the copies alone, for the benchmarks that time the copied forms' plans: p's operands in `copies`
 * copied into p's workspace on p's stream, and q the copied form to launch after them (their
 * pointers, the workspace left over, a dependent launch; its stream-K counters left to
 * zero_counters, which transpose_first_launch's copy zeroes itself where streamk_counters_by_copy
 * says); what the copies are priced at; the workspace they take (q's work begins past it) */
cudaError_t transpose_first_copy(const shim_sgemm_args *p, int copies, shim_sgemm_args *q);
double transpose_first_copy_seconds(const shim_sgemm_args *p, int copies);
size_t transpose_first_copy_bytes(const shim_sgemm_args *p, int copies);
/* the FP32 ladder's choice without copies, and its expected seconds (0: a tiny product) */
const shim_sgemm_variant *select_fp32_direct(const shim_sgemm_args *p, double *seconds);
/* the FP32 ladder's choice without copies runs one wave of blocks, each at most one tile's work: a
 * k-group configuration's, or a stream-K plan over no fewer blocks than tiles */
bool fp32_one_wave(const shim_sgemm_args *p);

/* C := beta*C (zeros when beta == 0) without touching A or B */
cudaError_t scale_c_launch(const shim_sgemm_args *p);

/* ---- the pipelined kernel family: tile configurations and launch plans ------------------------ */

enum tile_config_id {
    TILE_128x128 = 0,
    TILE_128x256 = 1,
    TILE_128x64 = 2,
    TILE_64x64 = 3,
    TILE_128x128_K8 = 4,
    TILE_128x256_K8 = 5,
    TILE_256x128_K8 = 6,
    TILE_64x128 = 7,
    TILE_128x64_KG2 = 8,
    TILE_128x128_W4 = 9,
    TILE_64x64_W4 = 10,
    TILE_CONFIGS = 11
};

struct tile_config {
    const char *name;
    int bm, bn, bk;
    int threads;
    int blocks_per_sm; /* what __launch_bounds__ and shared memory allow together */
    size_t smem_bytes;
    double efficiency; /* planning guess: fraction of FFMA peak at full occupancy, large K; 0: not
                        * planned (runs by its variant's name only, until measured) */
    bool k16;          /* K-contiguous operands may go by 16-byte copies and a shared-memory
                        * transpose (no block per SM lost, no spills) */
    int streamk;       /* blocks an SM of its stream-K kernel (plan.sk_blocks; 0: none built) */
    bool split;        /* built with the split-K path (plans with split_tiles) */
    /* planned only where every K-contiguous operand faces a tile side at least this long and every
     * other operand goes by 16-byte copies (0: wherever efficiency allows): see config_planned */
    int k_face;
    /* planned only where its tiles give every SM at most one block, data-parallel, and K is at
     * most 4096 (the k-group configurations: more warps a tile where a launch leaves each SM one
     * block) */
    bool one_wave;
    /* what its 4-byte copies cost, as a multiple of the cost model's prices (plan.cu's K4_COST for a
     * K-contiguous operand's transposing copies, R4_COST for an R-contiguous operand that is not
     * 16-byte capable, both measured on 128x64 tiles): 1 where not measured apart */
    double k4_scale;
    /* its data-parallel tiles planned only where C takes 16-byte stores (aligned, ldc a multiple of
     * 4) or is staged through shared memory (staged_c_max_k); plans that split every tile store
     * partials to the workspace, not C */
    bool c16;
};
const tile_config &config(int id);
/* configuration cfg may be planned for p: its efficiency is known, p's layout is one its efficiency
 * was measured in (k_face, and c16 where its tiles store C unstaged: c_direct), and p's grid and K
 * are where it pays (one_wave) */
bool config_planned(const shim_sgemm_args *p, int cfg, bool c_direct = true);
/* the longest K at which configuration cfg's data-parallel tiles stage a C that is not 16-byte
 * capable through shared memory (its kernels' STAGED_C instantiation) */
int staged_c_max_k(int cfg);
/* The K-contiguous operands of p that go by 16-byte copies and a transpose in shared memory
 * (K16_A | K16_B) rather than by 4-byte transposing copies under configuration c: where c allows
 * it, the operand is 16-byte capable, and the tile side facing it is under 128 or both operands are
 * K-contiguous. H200, 8192^3, by name: 16-byte copies gain 5-13 % there and tie with 4-byte ones
 * where one operand faces 128. The launch, the cost model and shim_sgemm_describe all ask this. */
enum { K16_A = 1, K16_B = 2 };
int k16_operands(const shim_sgemm_args *p, const tile_config &c);
/* operand x of p (A or B) is 16-byte capable: pointer aligned, leading dimension a multiple of 4 */
bool operand_vec(const float *x, int64_t ld);
/* operand x's base lies on a 32-byte sector */
bool base_on_sector(const float *x);
/* rows of operand x (leading dimension ld) that start off a 32-byte sector: a K-contiguous one reads
 * three sectors for such a row's 64 bytes of a k tile (MISALIGNED_COST, plan.cu) */
bool rows_misaligned(const float *x, int64_t ld);
/* what a plan may depend on of where an operand lies: 0 not 16-byte capable, 1 16-byte capable with
 * rows off 32-byte sectors, 2 rows on 32-byte sectors; plus 3 where its base lies on a sector (the
 * k-group tiles' price of B, plan.cu LANES_B_MIN_K; B's copy kept, select.cu) */
int operand_alignment(const float *x, int64_t ld);

/* How the output tiles are spread over blocks. The first dp_tiles tiles (in the grouped raster
 * order) each get one block running the full K range and finishing C. The remaining split_tiles
 * tiles get `splits` blocks each, slice s covering k in [s*kslice, min(k, (s+1)*kslice)); they write
 * partial tiles to the workspace and a second kernel adds the slices in slice order and applies
 * alpha/beta. Pure data-parallel: split_tiles == 0; pure split-K: dp_tiles == 0. */
struct plan {
    int cfg;
    int tiles_m, tiles_n;
    int dp_tiles;
    int split_tiles;
    int splits;
    int kslice; /* multiple of the configuration's bk */
    /* Stream-K (dp_tiles and split_tiles 0): every tile's k tiles laid end to end and cut into
     * sk_blocks equal ranges, one a block, tiles shared by several blocks finished in the kernel by
     * the last to arrive; 0 for the other plans */
    int sk_blocks;
    /* A pure split-K plan (dp_tiles 0) finished in the kernel (split_cluster.cu): the `splits` blocks
     * of a tile run in thread-block clusters of `cluster` blocks, which add their slices in each
     * other's shared memory instead of through the workspace and the reduction kernel. cluster ==
     * splits: one cluster a tile, no workspace; a divisor of splits below it (1: blocks alone): each
     * cluster's sum goes to the workspace and the last to arrive adds them. 0 for the other plans */
    int cluster;
};

plan plan_dp(const shim_sgemm_args *p, int cfg);
/* the cheapest data-parallel plan over the configurations planned for p (config_planned) */
plan best_dp(const shim_sgemm_args *p);
/* the cheapest plan (by the cost model) that splits K for every tile; pure data-parallel when K
 * is too short to split */
plan plan_splitk(const shim_sgemm_args *p);
/* the cheapest split-K plan whose slices finish in thread-block clusters (plan.cluster; at most
 * CLUSTER_MAX_SPLITS slices, configurations built for it, a device that runs clusters); plan_splitk's
 * plan where there is none. _placed: only the clusters of cluster_placement_ok, without those of one
 * wave that the device spreads as it would lone blocks (what the selector weighed before those) */
plan plan_splitk_cluster(const shim_sgemm_args *p);
plan plan_splitk_cluster_placed(const shim_sgemm_args *p);
/* plan_splitk's plan finished in groups of clusters of two (plan.cluster 2) where that measured
 * faster than the reduction kernel, else plan_splitk's plan */
plan plan_splitk_groups(const shim_sgemm_args *p);
/* 64x64 tiles of four warps in two K slices, each tile's two blocks one cluster that adds them in
 * shared memory (plan.cluster 2), where that may run (K 512-1500, both operands by 16-byte copies;
 * up to K = 1024 at most three blocks an SM, beyond it more than one wave of blocks and at most two,
 * the pairs placed as the blocks would be); plan.cluster 0 elsewhere. Up to K = 1024 the selector takes it only in place
 * of a split in four slices finished by the reduction kernel or in pairs; beyond it
 * (split_halves_priced) by its price */
plan plan_split_halves(const shim_sgemm_args *p);
bool split_halves_priced(const shim_sgemm_args *p);
/* the cheapest plan that runs whole waves data-parallel and splits the tiles of the last,
 * partial wave */
plan plan_tail(const shim_sgemm_args *p);
/* the cheapest stream-K plan, over the configurations built with one; where none is usable the
 * data-parallel 128x64 plan (sk_blocks 0): the plan the selector prices */
plan plan_streamk_priced(const shim_sgemm_args *p);
/* the stream-K plan the streamk variant runs: plan_streamk_priced's, or in place of its 128x64 or
 * 64x128 tiles on NT data, 128x128 over one block an SM where those tiles are one to two of its
 * waves and pad no more (plan.cu) */
plan plan_streamk(const shim_sgemm_args *p);
/* The model's price of a 64x64w4 plan that splits K, times which plan_cost gives its estimate. The
 * model prices 64x64w4 about a sixth above its time against 128x64 (whole tiles on 411 random
 * shapes: measured over model 0.73 in median against 0.89), the halves a fifth (0.81: select.cu's
 * HALVES_PRICE). At 0.9, with best_split offering its tails and its splits finished in clusters,
 * 144 of 6718 benchmark shapes change plan and ran 0.948 of the time before in geometric mean (six
 * 5-18 % slower), the 18 of 800 fresh random ones 0.950, none over 5 % slower; 704^3 NN 0.915x ->
 * 1.057x cuBLAS (H200, 2026-11-29, bench/shapes/random_seed52.txt; docs/notes/sgemm.md, "64x64w4's
 * splits priced"). 0.85 moved six times as many of the fresh shapes for less (0.987, 18 of 114
 * over 5 % slower). Its whole tiles keep the model's price, which 1.17 times their efficiency
 * (pipelined.cu) took in place of splits at 1000^3-1152^3, 6-9 % slower. */
constexpr double W4_SPLIT_PRICE = 0.9;
/* estimated seconds */
double plan_cost(const shim_sgemm_args *p, const plan &pl);
size_t plan_work_bytes(const plan &pl);

/* enqueues the pipelined kernel for the plan, and the slice reduction when it splits */
cudaError_t launch_plan(const shim_sgemm_args *p, const plan &pl);
/* the plan every call can fall back to where its own kernels cannot be loaded, and the loading of
 * its kernels on the current device (fallback.cu) */
cudaError_t launch_fallback(const shim_sgemm_args *p);
cudaError_t preload_fallback();
/* the pipelined plan the FP32 ladder's choice without copies runs (false where it runs none: naive,
 * the register-staged warptile kernels) */
bool fp32_direct_plan(const shim_sgemm_args *p, plan *pl);
/* the pipelined plan FP32 variant v runs for p (false where it runs none, or copies first) */
bool fp32_variant_plan(const shim_sgemm_variant *v, const shim_sgemm_args *p, plan *pl);
/* a stream-K plan's launch (streamk.cu): the arrival counters zeroed (unless p->counters_zeroed),
 * then its kernel */
cudaError_t launch_streamk(const shim_sgemm_args *p, const plan &pl);
/* where stream-K plan pl keeps its arrival counters in p's workspace, and how many transpose_first's
 * copy should zero before pl runs on p as the copy's dependent: the counters where pl's launch runs
 * one block an SM held there by the one-wave floor (launch_modes), else 0 (zero_counters runs) */
int *streamk_counters(const shim_sgemm_args *p, const plan &pl);
int streamk_counters_by_copy(const shim_sgemm_args *p, const plan &pl);
/* counters[0, n) zeroed on p's stream by a kernel that the next launch, a programmatic dependent,
 * waits for (after transpose_first's copy where p->dependent: streamk.cu) */
cudaError_t launch_zero_counters(const shim_sgemm_args *p, int *counters, int n);
/* the most blocks a cluster-finished split plan may give a tile (the portable cluster size) */
constexpr int CLUSTER_MAX_SPLITS = 8;
/* configuration cfg is built with the cluster-finished split kernel, and the current device runs
 * thread-block clusters (compute capability 9.0 or later; read once) */
bool cluster_split_usable(int cfg);
/* clusters of `splits` blocks of configuration cfg's cluster-finished kernel the device holds at
 * once (cudaOccupancyMaxActiveClusters, asked once; 0 where unusable) */
int cluster_split_max_active(int cfg, int splits);
/* plan as if the device held `clusters` such clusters (and ran clusters at all): for scoring the
 * planner against a measured plan space on a machine without that GPU (bench/plan_regret) */
void assume_cluster_capacity(int cfg, int splits, int clusters);
/* a cluster-finished split plan's launch (split_cluster.cu) */
cudaError_t launch_split_cluster(const shim_sgemm_args *p, const plan &pl);
/* the workspace a split plan finished in groups of clusters (cluster < splits) takes for the groups'
 * sums and the arrival counters (split_cluster.cu) */
size_t split_groups_bytes(const plan &pl);
/* the reduction pass of a split plan, launched as a dependent of the main kernel where the device
 * allows it; ws is the 16-byte aligned workspace */
cudaError_t launch_split_reduce(const shim_sgemm_args *p, const plan &pl, const float *ws);
/* the workspace pointer rounded up to 16 bytes (work_bytes leave room for that) */
float *aligned_work(const shim_sgemm_args *p);

/* The last few values of a pure function of the problem's shape, per thread (declare it static
 * thread_local): the selector, work_bytes and launch ask for the same plans in a row, and the
 * selector weighs up to four transpose forms of one shape. The key is all that the FP32 plans and
 * choices depend on: m, n, k, the transposes, whether alpha and beta are zero, and how A, B and C
 * lie (operand_alignment: 16-byte capable, for k16_operands and config_planned's k_face and c16,
 * where an R-contiguous operand's capability or C's decides whether a configuration is planned at
 * all; rows on 32-byte sectors, for the model's price of rows off them; the base on a sector, for
 * the k-group tiles' price of B). A copied form is planned as the copy will be launched: its copied
 * operands as aligned as the copies (transpose_first.cu). */
template <class T> struct shape_memo {
    static constexpr int ENTRIES = 8;
    struct entry {
        int valid, m, n, k, transa, transb, alpha_zero, beta_zero, align_a, align_b, align_c;
        T value;
    } e[ENTRIES];
    int next;
    static entry key(const shim_sgemm_args *p)
    {
        return entry{1,
                     p->m,
                     p->n,
                     p->k,
                     p->transa,
                     p->transb,
                     p->alpha == 0.0f,
                     p->beta == 0.0f,
                     operand_alignment(p->a, p->lda),
                     operand_alignment(p->b, p->ldb),
                     operand_alignment(p->c, p->ldc),
                     T{}};
    }
    static bool same(const entry &x, const entry &y)
    {
        return x.valid && x.m == y.m && x.n == y.n && x.k == y.k && x.transa == y.transa && x.transb == y.transb &&
               x.alpha_zero == y.alpha_zero && x.beta_zero == y.beta_zero && x.align_a == y.align_a &&
               x.align_b == y.align_b && x.align_c == y.align_c;
    }
    const T *find(const shim_sgemm_args *p) const
    {
        const entry wanted = key(p);
        for (const entry &x : e)
            if (same(x, wanted))
                return &x.value;
        return nullptr;
    }
    T keep(const shim_sgemm_args *p, const T &value)
    {
        e[next] = key(p);
        e[next].value = value;
        next = (next + 1) % ENTRIES;
        return value;
    }
};

/* multiprocessors of the current device, read once; 132 (H100/H200) when there is no device, so
 * that planning stays defined on machines without one */
int sm_count();
/* dynamic shared memory a block must take so that an SM of device (the current one) holds at most
 * `per`: a (per + 1)-th of an SM's (0 where the device cannot say, a block may not take half of it,
 * or per is under 1) */
size_t blocks_an_sm_smem(int per, int device);
/* Split K for a grid of `tiles` output tiles over ktiles k tiles: as many slices as fill the GPU
 * once, each at least min_slice k tiles; returns the k tiles per slice (ktiles: not split; an empty
 * grid or k == 0 counts as one slice) */
int kslice_for(int64_t tiles, int ktiles, int min_slice);

} // namespace sgemm

#endif
