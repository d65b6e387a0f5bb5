/* Device helpers shared by the SGEMV variants: loads, reductions with a fixed order, the alpha/beta
 * epilogue, the split-partial reduction, and launch sizing. CUDA C++ only. */
#ifndef SHIM_SGEMV_DEVICE_CUH
#define SHIM_SGEMV_DEVICE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "dependent_launch.cuh"
#include "sgemv_kernels.h"

namespace shim_sgemv {

/* every kernel of the family runs 256-thread blocks: enough warps per block to share staged x,
 * small enough that 8 blocks fill an SM */
constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;

/* the float offset of p inside its 16-byte block (0..3); pointers are at least 4-byte aligned */
__host__ __device__ inline int quad_offset(const void *p)
{
    return (int)(((uintptr_t)p >> 2) & 3u);
}

/* p moved back by q floats, as an aligned float4 pointer. Integer arithmetic because the result may
 * lie before the start of the allocation; only whole blocks inside the data are ever dereferenced. */
__host__ __device__ inline const float4 *aligned_base(const float *p, int q)
{
    return reinterpret_cast<const float4 *>(reinterpret_cast<uintptr_t>(p) - 4u * (uintptr_t)q);
}

/* A is streamed once: evict-first, so it does not push x out of L1/L2 */
__device__ __forceinline__ float4 load_a4(const float4 *p)
{
    return __ldcs(p);
}
__device__ __forceinline__ float load_a1(const float *p)
{
    return __ldcs(p);
}
/* x is re-read by every output: read-only path, kept in the caches */
__device__ __forceinline__ float4 load_x4(const float4 *p)
{
    return __ldg(p);
}
__device__ __forceinline__ float load_x1(const float *p)
{
    return __ldg(p);
}

__device__ __forceinline__ float dot4(float4 a, float4 x, float acc)
{
    acc = fmaf(a.x, x.x, acc);
    acc = fmaf(a.y, x.y, acc);
    acc = fmaf(a.z, x.z, acc);
    return fmaf(a.w, x.w, acc);
}

/* sum over aligned groups of WIDTH lanes. An xor butterfly: both partners add the same two values
 * and IEEE addition commutes, so every lane of the group ends with identical bits. */
template <int WIDTH>
__device__ __forceinline__ float group_sum(float v)
{
#pragma unroll
    for (int off = WIDTH / 2; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

/* y := alpha*sum + beta*y; beta == 0 never reads y, so NaN there cannot leak */
__device__ __forceinline__ void store_result(float *y, float sum, float alpha, float beta)
{
    float v = alpha * sum;
    if (beta != 0.0f)
        v = fmaf(beta, *y, v);
    *y = v;
}

/* Second pass of every split variant (finish_splits.cu): part holds count x splits partials,
 * output-major (part[i*splits + s]); each output's partials are added in a fixed order (lanes take
 * every G-th split in order, then a butterfly, then warps in index order) and y gets alpha/beta. */
cudaError_t finish_splits(const float *part, int splits, long long count, float alpha, float beta, float *y,
                          cudaStream_t stream);

/* Launch sizing (registry.cu). The SM count is read once; resident blocks come from the occupancy
 * API, cached per (kernel, shared memory bytes). */
int sm_count();
int resident_blocks(const void *kernel, size_t smem_bytes);

/* blocks for a grid-stride loop over tiles: at most one wave, every block the same number of tiles */
inline unsigned balanced_grid(long long tiles, long long max_blocks)
{
    if (max_blocks < 1)
        max_blocks = 1;
    const long long rounds = (tiles + max_blocks - 1) / max_blocks;
    return (unsigned)((tiles + rounds - 1) / rounds);
}

inline long long ceil_div(long long a, long long b)
{
    return (a + b - 1) / b;
}

} // namespace shim_sgemv

/* Host entry points of the variants; registry.cu holds the one table that names them. */
namespace shim_sgemv {
cudaError_t rows_warp_launch(const shim_sgemv_args *p);
/* the fallbacks' kernels loaded on the current device (registry.cu's shim_sgemv_preload) */
cudaError_t rows_warp_preload();
cudaError_t cols_thread_preload();
cudaError_t rows_float4_launch(const shim_sgemv_args *p);
template <int OUTS_PER_WARP>
cudaError_t rows_multi_launch(const shim_sgemv_args *p);
cudaError_t rows_splitk_launch(const shim_sgemv_args *p);
size_t rows_splitk_work(const shim_sgemv_args *p);
template <int V>
int rows_short_accepts(const shim_sgemv_args *p);
template <int V>
cudaError_t rows_short_launch(const shim_sgemv_args *p);
cudaError_t rows_splitk_smem_launch(const shim_sgemv_args *p);
size_t rows_splitk_smem_work(const shim_sgemv_args *p);
cudaError_t cols_thread_launch(const shim_sgemv_args *p);
cudaError_t cols_float4_launch(const shim_sgemv_args *p);
cudaError_t cols_splitn_launch(const shim_sgemv_args *p);
size_t cols_splitn_work(const shim_sgemv_args *p);
/* the split count the split variants would use for p (1: no split); the selector reads these */
int rows_splitk_splits(const shim_sgemv_args *p);
int rows_splitk_smem_splits(const shim_sgemv_args *p);
int cols_splitn_splits(const shim_sgemv_args *p);
} // namespace shim_sgemv

#endif
