/* Split-K finished inside thread-block clusters (compute capability 9.0 and later).
 *
 * The `splits` blocks that share a tile are launched in clusters of plan.cluster consecutive blocks,
 * slice s as block s % cluster of its tile's cluster s / cluster (its group). Each computes its K
 * slice through the same pipeline as pipelined.cu and leaves the unscaled sums in its own shared
 * memory (the stages' memory, free once the k loop is over). After a cluster barrier, block r takes
 * the r-th share of the tile's outputs and reads every slice of its cluster from the blocks' shared
 * memory directly.
 * - One cluster a tile (cluster == splits): block r adds the slices in the order the reduction
 *   kernel of splitk.cu uses (so the two finishes give the same bits), applies alpha and beta and
 *   stores C. No workspace traffic, no second launch.
 * - Several groups a tile (cluster < splits; split_groups_kernel, its own kernel so that the one
 *   above keeps its machine code): block r adds its group's slices in slice order, writes that
 *   share of the group's sum to the workspace and counts its arrival; the last group to arrive at a
 *   share adds the groups' sums in group order, so the bits do not depend on which arrives last,
 *   and stores C. The partials that leave the SMs are one a group instead of one a slice, no block
 *   waits for another, and there is no second launch: the arrival counters are zeroed by a small
 *   kernel this one depends on (streamk.cu's).
 * A second barrier keeps every block's shared memory alive until the others of its cluster have
 * read it. */
#include <cooperative_groups.h>

#include "pipelined_tile.cuh"

namespace sgemm {
namespace {

namespace cg = cooperative_groups;

__device__ __forceinline__ float4 add4(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

/* the slices v[0..splits) added as split_reduce_kernel adds them with G groups: group g sums slices
 * g, g + G, ... from zero, and the group sums are added in group order */
template <int G> __device__ __forceinline__ float4 slices_in_order(const float4 (&v)[CLUSTER_MAX_SPLITS], int splits)
{
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int g = 0; g < G; ++g) {
        float4 gs = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int s = g; s < CLUSTER_MAX_SPLITS; s += G)
            if (s < splits)
                gs = add4(gs, v[s]);
        sum = g == 0 ? gs : add4(sum, gs);
    }
    return sum;
}

/* the unscaled sums of a tile's K slice `slice` (tile t), left in the block's shared memory (the
 * stages' memory, free once the k loop is over); (m0, n0): the tile's corner */
template <class CFG, int MODE_A, int MODE_B>
__device__ __forceinline__ void slice_to_shared(const problem &p, const sched &sc, float4 *smem_raw, int slice, int t,
                                                int &m0, int &n0)
{
    using place = block_place<CFG, MODE_A, MODE_B>;
    const int kbegin = slice * sc.kslice, kend = min(p.k, kbegin + sc.kslice);
    int tm, tn;
    tile_coords<RASTER_GROUP>(t, sc.tiles_m, sc.tiles_n, tm, tn);
    m0 = tm * CFG::BM;
    n0 = tn * CFG::BN;
    const place bp(reinterpret_cast<float *>(smem_raw));
    float acc[CFG::TM][CFG::TN];
    tile_product<CFG, MODE_A, MODE_B>(p, bp, m0, n0, kbegin, kend, acc);

    __syncthreads(); /* every thread's last reads of the stages are done */
    store_partial<CFG>(reinterpret_cast<float *>(smem_raw), bp.a_frag, bp.b_frag, acc);
}

/* one cluster a tile (plan.cluster == splits) */
template <class CFG, int MODE_A, int MODE_B>
__global__ void __launch_bounds__(CFG::THREADS, CFG::MIN_BLOCKS)
    split_cluster_kernel(const problem p, const sched sc, float *__restrict__)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int BM = CFG::BM, BN = CFG::BN, TILE4 = BM * BN / 4;
    extern __shared__ float4 smem_raw[];
    wait_for_primary(); /* launched as a dependent (transpose_first's copy): its writes are visible */
    const cg::cluster_group cluster = cg::this_cluster();
    const int splits = sc.splits, slice = (int)cluster.block_rank();
    int m0, n0;
    slice_to_shared<CFG, MODE_A, MODE_B>(p, sc, smem_raw, slice, (int)blockIdx.x / splits, m0, n0);
    cluster.sync(); /* every slice's sums are in its block's shared memory, visible to the cluster */

    const float4 *src[CLUSTER_MAX_SPLITS];
#pragma unroll
    for (int s = 0; s < CLUSTER_MAX_SPLITS; ++s)
        src[s] = cluster.map_shared_rank(smem_raw, s < splits ? s : 0);
    const int share = (TILE4 + splits - 1) / splits;
    const int end = min(TILE4, (slice + 1) * share);
    const int groups = splits >= 8 ? 8 : splits >= 4 ? 4 : 2; /* as launch_split_reduce chooses them */
    for (int e4 = slice * share + (int)threadIdx.x; e4 < end; e4 += CFG::THREADS) {
        float4 v[CLUSTER_MAX_SPLITS];
#pragma unroll
        for (int s = 0; s < CLUSTER_MAX_SPLITS; ++s)
            v[s] = s < splits ? src[s][e4] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        const float4 sum = groups == 8   ? slices_in_order<8>(v, splits)
                           : groups == 4 ? slices_in_order<4>(v, splits)
                                         : slices_in_order<2>(v, splits);
        const int e = 4 * e4, i = m0 + e % BM, j = n0 + e / BM;
        if (j < p.n)
            store_c4(p, i, j, sum.x, sum.y, sum.z, sum.w);
    }
    cluster.sync(); /* no block leaves while another may still read its shared memory */
#else
    __trap(); /* never launched: cluster_split_usable() */
#endif
}

/* groups of clusters (plan.cluster < splits): block r of its tile's group g adds the group's slices
 * of the r-th share in slice order, writes that share of the group's sum to the workspace and counts
 * its arrival; the last group to arrive at the share adds the groups' sums in group order (the bits
 * do not depend on which arrives last) and stores C */
template <class CFG, int MODE_A, int MODE_B>
__global__ void __launch_bounds__(CFG::THREADS, CFG::MIN_BLOCKS)
    split_groups_kernel(const problem p, const sched sc, float *__restrict__ ws)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int BM = CFG::BM, BN = CFG::BN, TILE4 = BM * BN / 4;
    extern __shared__ float4 smem_raw[];
    wait_for_primary(); /* launched as zero_counters' dependent: the counters are zero */
    const cg::cluster_group cluster = cg::this_cluster();
    const int splits = sc.splits, size = (int)cluster.num_blocks(), rank = (int)cluster.block_rank();
    const int slice = (int)blockIdx.x % splits, t = (int)blockIdx.x / splits;
    int m0, n0;
    slice_to_shared<CFG, MODE_A, MODE_B>(p, sc, smem_raw, slice, t, m0, n0);
    cluster.sync(); /* every slice's sums are in its block's shared memory, visible to the cluster */

    const float4 *src[CLUSTER_MAX_SPLITS];
#pragma unroll
    for (int s = 0; s < CLUSTER_MAX_SPLITS; ++s)
        src[s] = cluster.map_shared_rank(smem_raw, s < size ? s : 0);
    const int share = (TILE4 + size - 1) / size;
    const int begin = rank * share, end = min(TILE4, begin + share);
    const int groups = splits / size, group = slice / size;
    /* the workspace: the groups' sums of every tile (split_groups_bytes), then a counter a share */
    float4 *const sums = reinterpret_cast<float4 *>(ws) + (size_t)t * groups * TILE4;
    for (int e4 = begin + (int)threadIdx.x; e4 < end; e4 += CFG::THREADS) {
        float4 sum = src[0][e4];
#pragma unroll
        for (int s = 1; s < CLUSTER_MAX_SPLITS; ++s)
            if (s < size)
                sum = add4(sum, src[s][e4]);
        __stcg(sums + (size_t)group * TILE4 + e4, sum);
    }
    __threadfence(); /* this group's share is written before its arrival is counted */
    int *const counter = reinterpret_cast<int *>(reinterpret_cast<float4 *>(ws) +
                                                 (size_t)sc.tiles_m * sc.tiles_n * groups * TILE4) +
                         (size_t)t * size + rank;
    const int last = __syncthreads_or(threadIdx.x == 0 && atomicAdd(counter, 1) == groups - 1);
    if (last) {
        __threadfence(); /* the other groups' shares, counted before this one, are read after it */
        for (int e4 = begin + (int)threadIdx.x; e4 < end; e4 += CFG::THREADS) {
            float4 v[CLUSTER_MAX_SPLITS]; /* every group's loads in flight before the adds */
#pragma unroll
            for (int g = 0; g < CLUSTER_MAX_SPLITS; ++g)
                v[g] = g < groups ? __ldcg(sums + (size_t)g * TILE4 + e4) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            float4 sum = v[0];
#pragma unroll
            for (int g = 1; g < CLUSTER_MAX_SPLITS; ++g)
                if (g < groups)
                    sum = add4(sum, v[g]);
            const int e = 4 * e4, i = m0 + e % BM, j = n0 + e / BM;
            if (j < p.n)
                store_c4(p, i, j, sum.x, sum.y, sum.z, sum.w);
        }
    }
    cluster.sync(); /* no block leaves while another may still read its shared memory */
#else
    __trap(); /* never launched: cluster_split_usable() */
#endif
}

/* built for the configurations that plan splits, one k group, tiles of at most 128x128 (a partial
 * tile of 64 KB in shared memory) */
template <class CFG, int MA, int MB> struct cluster_entry {
    static constexpr bool built = CFG::SPLIT && CFG::KG == 1 && CFG::BM * CFG::BN <= 128 * 128;
    static constexpr size_t smem_floor() { return sizeof(float) * CFG::BM * CFG::BN; }
    static constexpr void (*kernel())(const problem, const sched, float *)
    {
        return split_cluster_kernel<CFG, MA, MB>;
    }
};
/* ... and the groups' kernel, for the same configurations */
template <class CFG, int MA, int MB> struct groups_entry : cluster_entry<CFG, MA, MB> {
    static constexpr void (*kernel())(const problem, const sched, float *)
    {
        return split_groups_kernel<CFG, MA, MB>;
    }
};

constexpr auto launchers = launchers_of<cluster_entry>();
constexpr auto group_launchers = launchers_of<groups_entry>();

template <size_t I> constexpr bool built_at()
{
    return cluster_entry<std::tuple_element_t<I, configs_in_order>, LOAD_R16, LOAD_R16>::built;
}
template <size_t... I> constexpr std::array<bool, TILE_CONFIGS> built_table(std::index_sequence<I...>)
{
    return {built_at<I>()...};
}
constexpr std::array<bool, TILE_CONFIGS> cluster_built = built_table(std::make_index_sequence<TILE_CONFIGS>{});

/* the device runs clusters, and this build's kernels for it have a body (machine code for compute
 * capability 9.0 or later, or PTX of it); asked once */
bool device_runs_clusters()
{
    static std::atomic<int> usable{-1}; /* -1: not known yet */
    const int known = usable.load(std::memory_order_relaxed);
    if (known >= 0)
        return known == 1;
    const void *kernel = (const void *)split_cluster_kernel<cfg_128x64, LOAD_R16, LOAD_K4>;
    int device = 0, major = 0;
    cudaFuncAttributes fa{};
    bool ok = cudaGetDevice(&device) == cudaSuccess &&
              cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major >= 9;
    /* (the kernel's attributes, not its code: asked of a device the program had filled, they did
     * not load it, H200, 2026-11-27. Loading it here through shim_kernel_ready, in the middle of a
     * call, came with check_timeline failing: an upload landing 63 ms before it was packed) */
    ok = ok && cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.ptxVersion >= 90;
    if (!ok)
        (void)cudaGetLastError(); /* ours: do not leave it for the caller's next check */
    usable.store(ok ? 1 : 0, std::memory_order_relaxed);
    return ok;
}

/* how many clusters of `splits` blocks of CFG's cluster kernel the device holds at once (0 where
 * the configuration has none) */
template <class CFG> int max_clusters_of(int splits)
{
    constexpr int MA = LOAD_R16, MB = LOAD_K4; /* the NN form's modes stand for the others */
    if constexpr (!cluster_entry<CFG, MA, MB>::built) {
        return 0;
    } else {
        void (*kernel)(const problem, const sched, float *) = split_cluster_kernel<CFG, MA, MB>;
        constexpr size_t smem = launch_smem<CFG, MA, MB, cluster_entry>();
        if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess ||
            cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 0) != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = (unsigned)splits;
        attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
        cudaLaunchConfig_t lc = {};
        lc.gridDim = dim3((unsigned)(splits * 1024));
        lc.blockDim = dim3(CFG::THREADS);
        lc.dynamicSmemBytes = smem;
        lc.attrs = &attr;
        lc.numAttrs = 1;
        int n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, kernel, &lc) != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        return n;
    }
}
template <size_t... I> constexpr std::array<int (*)(int), TILE_CONFIGS> capacity_table(std::index_sequence<I...>)
{
    return {max_clusters_of<std::tuple_element_t<I, configs_in_order>>...};
}
constexpr auto device_capacity = capacity_table(std::make_index_sequence<TILE_CONFIGS>{});

/* clusters a configuration's kernel holds at once, by cluster size: asked of the device once (-1:
 * not yet), or assumed (assume_cluster_capacity) */
std::atomic<int> capacity[TILE_CONFIGS][CLUSTER_MAX_SPLITS + 1];
std::atomic<bool> capacity_assumed{false};
std::atomic<bool> clusters_refused{false}; /* a cluster launch failed: no more cluster plans */
struct capacity_init {
    capacity_init()
    {
        for (auto &row : capacity)
            for (auto &c : row)
                c.store(-1, std::memory_order_relaxed);
    }
} init_capacity;

} // namespace

int cluster_split_max_active(int cfg, int splits)
{
    if (!cluster_split_usable(cfg) || splits < 1 || splits > CLUSTER_MAX_SPLITS)
        return 0;
    int n = capacity[cfg][splits].load(std::memory_order_relaxed);
    if (n < 0) {
        n = capacity_assumed.load(std::memory_order_relaxed) ? 0 : device_capacity[cfg](splits);
        capacity[cfg][splits].store(n, std::memory_order_relaxed);
    }
    return n;
}

void assume_cluster_capacity(int cfg, int splits, int clusters)
{
    if (cfg < 0 || cfg >= TILE_CONFIGS || splits < 1 || splits > CLUSTER_MAX_SPLITS)
        return;
    capacity_assumed.store(true, std::memory_order_relaxed);
    capacity[cfg][splits].store(std::max(clusters, 0), std::memory_order_relaxed);
}

bool cluster_split_usable(int cfg)
{
    return cfg >= 0 && cfg < TILE_CONFIGS && cluster_built[cfg] && !clusters_refused.load(std::memory_order_relaxed) &&
           (capacity_assumed.load(std::memory_order_relaxed) || device_runs_clusters());
}

namespace {
/* the groups' sums of every tile in the workspace (floats); a counter a tile and share follows */
size_t group_sums_floats(const plan &pl)
{
    return (size_t)pl.split_tiles * (size_t)(pl.splits / pl.cluster) * (size_t)config(pl.cfg).bm *
           (size_t)config(pl.cfg).bn;
}
} // namespace

size_t split_groups_bytes(const plan &pl)
{
    return group_sums_floats(pl) * sizeof(float) + (size_t)pl.split_tiles * (size_t)pl.cluster * sizeof(int);
}

cudaError_t launch_split_cluster(const shim_sgemm_args *p, const plan &pl)
{
    if (pl.cfg < 0 || pl.cfg >= TILE_CONFIGS || !cluster_built[pl.cfg] || pl.dp_tiles != 0 || pl.sk_blocks != 0 ||
        pl.split_tiles < 1 || pl.splits < 2 || pl.splits > CLUSTER_MAX_SPLITS || pl.cluster < 1 ||
        pl.splits % pl.cluster != 0 || pl.split_tiles != pl.tiles_m * pl.tiles_n)
        return cudaErrorInvalidConfiguration;
    const int64_t blocks = (int64_t)pl.split_tiles * pl.splits;
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    const problem q = make_problem(p);
    const sched sc = {pl.tiles_m, pl.tiles_n, 0, pl.splits, pl.kslice, 0, 0};
    float *ws = nullptr;
    bool dependent = p->dependent != 0;
    if (pl.cluster < pl.splits) { /* groups: their sums and arrival counters in the workspace */
        if (!p->work || p->work_bytes < plan_work_bytes(pl))
            return cudaErrorInvalidValue;
        ws = aligned_work(p);
        int *const counters = reinterpret_cast<int *>(ws + group_sums_floats(pl));
        const cudaError_t zero = launch_zero_counters(p, counters, pl.split_tiles * pl.cluster);
        if (zero != cudaSuccess)
            return zero;
        dependent = true;
    }
    int ma, mb;
    load_modes(p, q, config(pl.cfg), ma, mb);
    const cudaError_t err = (pl.cluster < pl.splits ? group_launchers : launchers)[pl.cfg](
        ma, mb, q, sc, ws, launch_at{(int)blocks, p->stream, dependent, pl.cluster});
    /* a kernel refused for want of device memory to load it goes back to shim_sgemm_run, whose
     * fallback covers every variant (kernel_load.h) */
    if (err == cudaSuccess || err == cudaErrorMemoryAllocation)
        return err;
    /* Refused before anything ran (the launch's error is synchronous): the device refuses the
     * cluster. Clusters leave every later plan, and this one's tiles run data-parallel, which needs
     * no workspace either. */
    (void)cudaGetLastError();
    clusters_refused.store(true, std::memory_order_relaxed);
    return launch_plan(p, plan_dp(p, pl.cfg));
}

} // namespace sgemm
