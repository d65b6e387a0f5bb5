/* Rung 8: split-K, deterministic. The pipelined kernel (pipelined.cu) computes each K slice of a
 * tile into its own slot of the workspace; this file's kernel then adds a tile's slices in a
 * fixed order and applies alpha/beta. No atomics: the same problem gives the same bits on every
 * run. Two variants use it: "splitk" splits every tile (small M x N, long K), "splitk_tail" runs
 * whole waves of tiles data-parallel and splits only the tiles of the last, partial wave. */
#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

constexpr int REDUCE_THREADS = 256;

struct reduce_args {
    int bm, bn;
    int tile4; /* float4 per partial tile */
    int dp_tiles, split_tiles, splits;
    int groups; /* threads per output float4, each summing every groups-th slice; a power of 2 */
    int tiles_m, tiles_n;
};

/* Each output float4 is summed by `groups` threads of one block: thread g adds slices g, g +
 * groups, ... in that order, then the group sums are added in group order. The order is fixed by
 * the plan alone, and long slice lists still get memory-level parallelism. */
__global__ void __launch_bounds__(REDUCE_THREADS)
    split_reduce_kernel(const problem p, const reduce_args ra, const float4 *__restrict__ ws)
{
    __shared__ float4 group_sum[REDUCE_THREADS];
    wait_for_primary(); /* launched as a dependent of the main kernel: its partials are complete now */
    const int lanes = REDUCE_THREADS / ra.groups;
    const int lane = (int)threadIdx.x % lanes, g = (int)threadIdx.x / lanes;
    const int64_t idx = (int64_t)blockIdx.x * lanes + lane;
    const bool valid = idx < (int64_t)ra.split_tiles * ra.tile4;
    const int st = valid ? (int)(idx / ra.tile4) : 0, e4 = valid ? (int)(idx % ra.tile4) : 0;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (valid) {
        const float4 *src = ws + (int64_t)st * ra.splits * ra.tile4 + e4;
#pragma unroll 4
        for (int sl = g; sl < ra.splits; sl += ra.groups) {
            const float4 v = src[(int64_t)sl * ra.tile4];
            sum.x += v.x;
            sum.y += v.y;
            sum.z += v.z;
            sum.w += v.w;
        }
    }
    group_sum[threadIdx.x] = sum;
    __syncthreads();
    if (g != 0 || !valid)
        return;
    for (int gg = 1; gg < ra.groups; ++gg) {
        const float4 v = group_sum[gg * lanes + lane];
        sum.x += v.x;
        sum.y += v.y;
        sum.z += v.z;
        sum.w += v.w;
    }
    int tm, tn;
    tile_coords<RASTER_GROUP>(ra.dp_tiles + st, ra.tiles_m, ra.tiles_n, tm, tn);
    const int e = 4 * e4, i = tm * ra.bm + e % ra.bm, j = tn * ra.bn + e / ra.bm;
    if (j < p.n)
        store_c4(p, i, j, sum.x, sum.y, sum.z, sum.w);
}

} // namespace

cudaError_t launch_split_reduce(const shim_sgemm_args *p, const plan &pl, const float *ws)
{
    const tile_config &c = config(pl.cfg);
    reduce_args ra;
    ra.bm = c.bm;
    ra.bn = c.bn;
    ra.tile4 = c.bm * c.bn / 4;
    ra.dp_tiles = pl.dp_tiles;
    ra.split_tiles = pl.split_tiles;
    ra.splits = pl.splits;
    /* long slice lists get more threads per output, so that enough loads are in flight */
    ra.groups = 1;
    while (ra.groups < 32 && 2 * ra.groups <= pl.splits)
        ra.groups *= 2;
    ra.tiles_m = pl.tiles_m;
    ra.tiles_n = pl.tiles_n;
    const int lanes = REDUCE_THREADS / ra.groups;
    const int64_t blocks = ((int64_t)pl.split_tiles * ra.tile4 + lanes - 1) / lanes;
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    /* A programmatic dependent launch (compute capability 9.0 and later): the reduction's launch is
     * processed, and its blocks placed, while the main kernel's last wave drains; each block waits
     * at its start until the main kernel has finished and its writes are visible. */
    return launch_dependent(split_reduce_kernel, dim3((unsigned)blocks), dim3(REDUCE_THREADS), 0, p->stream,
                            make_problem(p), ra, reinterpret_cast<const float4 *>(ws));
}

float *aligned_work(const shim_sgemm_args *p)
{
    return reinterpret_cast<float *>(((uintptr_t)p->work + 15) & ~(uintptr_t)15);
}

size_t plan_work_bytes(const plan &pl)
{
    const tile_config &c = config(pl.cfg);
    if (pl.sk_blocks > 0) /* two partial tiles a block, then a counter a tile */
        return 2 * (size_t)pl.sk_blocks * (size_t)c.bm * (size_t)c.bn * sizeof(float) +
               (size_t)pl.tiles_m * (size_t)pl.tiles_n * sizeof(int) + 16;
    if (pl.cluster) /* one cluster a tile keeps its partials in shared memory; groups write their sums */
        return pl.cluster < pl.splits ? split_groups_bytes(pl) + 16 : 0;
    if (pl.split_tiles == 0)
        return 0;
    return (size_t)pl.split_tiles * (size_t)pl.splits * (size_t)c.bm * (size_t)c.bn * sizeof(float) + 16;
}

} // namespace sgemm
