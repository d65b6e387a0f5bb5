/* Rung 3: 1D thread coarsening. 64x64x8 tiles, each thread computes 8 rows of one column of C,
 * so one shared-memory load of B feeds 8 multiply-adds. */
#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

constexpr int C1_BM = 64, C1_BN = 64, C1_BK = 8, C1_TM = 8;
constexpr int C1_THREADS = C1_BM * C1_BN / C1_TM; /* 512: one tile element of A and of B each */

/* element e of an R x BK tile into s[l][r], with e walking the operand's contiguous side */
template <bool KC, int W, int LDS>
__device__ __forceinline__ void stage_element(float *s, const operand &x, int r0, int k0, int kend, int e)
{
    int r = KC ? e / C1_BK : e % W, l = KC ? e % C1_BK : e / W;
    s[l * LDS + r] = load_or_zero<KC>(x, r0 + r, k0 + l, kend);
}

template <bool KCA, bool KCB>
__global__ void __launch_bounds__(C1_THREADS) coarse_1d_kernel(const problem p, int tiles_m)
{
    constexpr int LDA_S = C1_BM + 1, LDB_S = C1_BN + 1;
    __shared__ float As[C1_BK * LDA_S], Bs[C1_BK * LDB_S];
    const int m0 = (int)(blockIdx.x % tiles_m) * C1_BM, n0 = (int)(blockIdx.x / tiles_m) * C1_BN;
    const int tid = (int)threadIdx.x;
    /* a warp shares its rows (the A reads broadcast) and spans 32 columns (the B reads are
     * consecutive) */
    const int col = tid % C1_BN, row0 = (tid / C1_BN) * C1_TM;
    float acc[C1_TM] = {};
    for (int k0 = 0; k0 < p.k; k0 += C1_BK) {
        stage_element<KCA, C1_BM, LDA_S>(As, p.a, m0, k0, p.k, tid);
        stage_element<KCB, C1_BN, LDB_S>(Bs, p.b, n0, k0, p.k, tid);
        __syncthreads();
#pragma unroll
        for (int l = 0; l < C1_BK; ++l) {
            float b = Bs[l * LDB_S + col];
#pragma unroll
            for (int t = 0; t < C1_TM; ++t)
                acc[t] = fmaf(As[l * LDA_S + row0 + t], b, acc[t]);
        }
        __syncthreads();
    }
    const int j = n0 + col;
    if (j < p.n) {
#pragma unroll
        for (int t = 0; t < C1_TM; ++t)
            if (m0 + row0 + t < p.m)
                store_c1(p, m0 + row0 + t, j, acc[t]);
    }
}

} // namespace

cudaError_t coarse_1d_launch(const shim_sgemm_args *p)
{
    const problem q = make_problem(p);
    int tiles_m = (p->m + C1_BM - 1) / C1_BM;
    int64_t blocks = (int64_t)tiles_m * ((p->n + C1_BN - 1) / C1_BN);
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    void (*kernel)(const problem, int) =
        p->transa ? (p->transb ? coarse_1d_kernel<true, false> : coarse_1d_kernel<true, true>)
                  : (p->transb ? coarse_1d_kernel<false, false> : coarse_1d_kernel<false, true>);
    SHIM_KERNEL_READY(kernel);
    kernel<<<(unsigned)blocks, C1_THREADS, 0, p->stream>>>(q, tiles_m);
    return cudaGetLastError();
}

} // namespace sgemm
