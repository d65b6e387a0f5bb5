/* Rung 4: 2D thread coarsening (register blocking). 128x128x8 tiles, 256 threads, each computing
 * an 8x8 block of C from 8 values of A and 8 of B held in registers: 64 multiply-adds per 16
 * shared-memory loads. Global loads are scalar. */
#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

constexpr int C2_BM = 128, C2_BN = 128, C2_BK = 8, C2_TM = 8, C2_TN = 8;
constexpr int C2_THREADS = (C2_BM / C2_TM) * (C2_BN / C2_TN);
constexpr int C2_LDA = C2_BM + 4, C2_LDB = C2_BN + 4; /* the padding spreads the transposing stores */

template <bool KCA, bool KCB>
__global__ void __launch_bounds__(C2_THREADS) coarse_2d_kernel(const problem p, int tiles_m)
{
    __shared__ __align__(16) float As[C2_BK * C2_LDA];
    __shared__ __align__(16) float Bs[C2_BK * C2_LDB];
    const int m0 = (int)(blockIdx.x % tiles_m) * C2_BM, n0 = (int)(blockIdx.x / tiles_m) * C2_BN;
    const int tid = (int)threadIdx.x;
    const int tx = tid % (C2_BN / C2_TN), ty = tid / (C2_BN / C2_TN);
    reg_tile_loader<KCA, false, C2_BM, C2_BK, C2_THREADS, C2_LDA> la;
    reg_tile_loader<KCB, false, C2_BN, C2_BK, C2_THREADS, C2_LDB> lb;
    float acc[C2_TM][C2_TN] = {};
    for (int k0 = 0; k0 < p.k; k0 += C2_BK) {
        la.load(p.a, m0, k0, p.k, tid);
        lb.load(p.b, n0, k0, p.k, tid);
        la.store(As, tid);
        lb.store(Bs, tid);
        __syncthreads();
#pragma unroll
        for (int l = 0; l < C2_BK; ++l) {
            float a[C2_TM], b[C2_TN];
#pragma unroll
            for (int r = 0; r < C2_TM; ++r)
                a[r] = As[l * C2_LDA + ty * C2_TM + r];
#pragma unroll
            for (int c = 0; c < C2_TN; ++c)
                b[c] = Bs[l * C2_LDB + tx * C2_TN + c];
#pragma unroll
            for (int r = 0; r < C2_TM; ++r)
#pragma unroll
                for (int c = 0; c < C2_TN; ++c)
                    acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int c = 0; c < C2_TN; ++c) {
        const int j = n0 + tx * C2_TN + c;
        if (j < p.n) {
#pragma unroll
            for (int r = 0; r < C2_TM; r += 4)
                store_c4(p, m0 + ty * C2_TM + r, j, acc[r][c], acc[r + 1][c], acc[r + 2][c], acc[r + 3][c]);
        }
    }
}

} // namespace

cudaError_t coarse_2d_launch(const shim_sgemm_args *p)
{
    const problem q = make_problem(p);
    int tiles_m = (p->m + C2_BM - 1) / C2_BM;
    int64_t blocks = (int64_t)tiles_m * ((p->n + C2_BN - 1) / C2_BN);
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    void (*kernel)(const problem, int) =
        p->transa ? (p->transb ? coarse_2d_kernel<true, false> : coarse_2d_kernel<true, true>)
                  : (p->transb ? coarse_2d_kernel<false, false> : coarse_2d_kernel<false, true>);
    SHIM_KERNEL_READY(kernel);
    kernel<<<(unsigned)blocks, C2_THREADS, 0, p->stream>>>(q, tiles_m);
    return cudaGetLastError();
}

} // namespace sgemm
