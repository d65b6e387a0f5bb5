/* rows_warp: the baseline of the rows form. A warp per output, lane l reads elements l, l + 32, ...
 * of the column with 4-byte loads (any alignment), eight loads in flight per lane, x through L1/L2. */
#include "sgemv_device.cuh"

namespace shim_sgemv {

static const int kRowsWarpUnroll = 8;

__global__ void __launch_bounds__(kBlock) rows_warp_kernel(const float *__restrict__ a, long long lda,
                                                           const float *__restrict__ x, float *y, int m, int n,
                                                           float alpha, float beta, long long tiles)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const long long j = tile * kWarps + warp;
        float acc = 0.0f;
        if (j < n) {
            const float *c = a + j * lda;
            for (long long i0 = lane; i0 < m; i0 += 32 * kRowsWarpUnroll) {
                float av[kRowsWarpUnroll], xv[kRowsWarpUnroll];
#pragma unroll
                for (int u = 0; u < kRowsWarpUnroll; u++) {
                    const long long i = i0 + 32 * u;
                    av[u] = i < m ? load_a1(c + i) : 0.0f;
                    xv[u] = i < m ? load_x1(x + i) : 0.0f;
                }
#pragma unroll
                for (int u = 0; u < kRowsWarpUnroll; u++)
                    acc = fmaf(av[u], xv[u], acc);
            }
        }
        acc = group_sum<32>(acc);
        if (lane == 0 && j < n)
            store_result(y + j, acc, alpha, beta);
    }
}

cudaError_t rows_warp_launch(const shim_sgemv_args *p)
{
    const long long tiles = ceil_div(p->n, kWarps);
    const unsigned grid = balanced_grid(tiles, resident_blocks((const void *)rows_warp_kernel, 0));
    SHIM_KERNEL_READY(rows_warp_kernel);
    rows_warp_kernel<<<grid, kBlock, 0, p->stream>>>(p->a, p->lda, p->x, p->y, p->m, p->n, p->alpha, p->beta,
                                                     tiles);
    return cudaGetLastError();
}

cudaError_t rows_warp_preload()
{
    return shim_kernel_ready((const void *)rows_warp_kernel);
}

} // namespace shim_sgemv
