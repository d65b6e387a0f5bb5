/* Rung 2: 32x32 tiles of op(A) and op(B) staged in shared memory, one element of C per thread:
 * each loaded element now serves 32 multiply-adds instead of one. */
#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

constexpr int TILE = 32;

/* Loads an R x K tile into s[l][r]. The global read always runs along the operand's contiguous
 * side (coalesced either way); the +1 row padding keeps the transposing store free of bank
 * conflicts. */
template <bool KC>
__device__ __forceinline__ void stage_tile(float (*s)[TILE + 1], const operand &x, int r0, int k0, int kend,
                                           int tx, int ty)
{
    if (KC)
        s[tx][ty] = load_or_zero<true>(x, r0 + ty, k0 + tx, kend);
    else
        s[ty][tx] = load_or_zero<false>(x, r0 + tx, k0 + ty, kend);
}

template <bool KCA, bool KCB>
__global__ void __launch_bounds__(TILE *TILE) smem_tiled_kernel(const problem p, int tiles_m)
{
    __shared__ float As[TILE][TILE + 1], Bs[TILE][TILE + 1];
    const int m0 = (int)(blockIdx.x % tiles_m) * TILE, n0 = (int)(blockIdx.x / tiles_m) * TILE;
    const int tx = (int)threadIdx.x % TILE, ty = (int)threadIdx.x / TILE;
    float acc = 0.0f;
    for (int k0 = 0; k0 < p.k; k0 += TILE) {
        stage_tile<KCA>(As, p.a, m0, k0, p.k, tx, ty);
        stage_tile<KCB>(Bs, p.b, n0, k0, p.k, tx, ty);
        __syncthreads();
#pragma unroll
        for (int l = 0; l < TILE; ++l)
            acc = fmaf(As[l][tx], Bs[l][ty], acc);
        __syncthreads();
    }
    if (m0 + tx < p.m && n0 + ty < p.n)
        store_c1(p, m0 + tx, n0 + ty, acc);
}

} // namespace

cudaError_t smem_tiled_launch(const shim_sgemm_args *p)
{
    const problem q = make_problem(p);
    int tiles_m = (p->m + TILE - 1) / TILE;
    int64_t blocks = (int64_t)tiles_m * ((p->n + TILE - 1) / TILE);
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    void (*kernel)(const problem, int) =
        p->transa ? (p->transb ? smem_tiled_kernel<true, false> : smem_tiled_kernel<true, true>)
                  : (p->transb ? smem_tiled_kernel<false, false> : smem_tiled_kernel<false, true>);
    SHIM_KERNEL_READY(kernel);
    kernel<<<(unsigned)blocks, TILE * TILE, 0, p->stream>>>(q, tiles_m);
    return cudaGetLastError();
}

} // namespace sgemm
