/* Where the tensor-core kernels that split on the way (tf32_presplit.cu, tf32_tma.cu) put their
 * sums, and their one Inf/NaN rule: with three passes an Inf or NaN operand keeps its hi and has lo
 * 0, so every output it reaches comes out Inf or NaN (a cross term may turn IEEE's Inf into a NaN);
 * every output that comes out Inf or NaN is computed again in FP32 on the CUDA cores (fp32_dot),
 * which gives IEEE's answer, an overflow included.
 *   - store_sums: a thread's accumulators into C (K not split) or into its slice of the workspace;
 *   - reduce_slices: K split, C := alpha * (the slices' sums, added in slice order) + beta * C. */
#ifndef SHIM_TF32_OUTPUTS_CUH
#define SHIM_TF32_OUTPUTS_CUH

#include <algorithm>
#include <cstdint>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {

/* output (i, j) in FP32 on the CUDA cores, k in order */
__device__ inline float fp32_dot(const problem &p, int transa, int transb, int i, int j)
{
    float s = 0.0f;
    for (int l = 0; l < p.k; ++l) {
        const float a = transa ? *element_ptr<true>(p.a, i, l) : *element_ptr<false>(p.a, i, l);
        const float b = transb ? *element_ptr<false>(p.b, j, l) : *element_ptr<true>(p.b, j, l);
        s = fmaf(a, b, s);
    }
    return s;
}

/* acc[i] belongs at C(row, col) as at(i, row, col) says; slice: this block's m x n sums
 * (column-major) when K is split, else nullptr */
template <int PASSES, int N, typename At>
__device__ __forceinline__ void store_sums(const problem &p, int transa, int transb, const float (&acc)[N], float *slice,
                                           At at)
{
    static_assert(N <= 64, "one bit an accumulator");
    uint64_t again = 0; /* the accumulators to compute again in FP32 */
#pragma unroll
    for (int i = 0; i < N; ++i) {
        int row, col;
        at(i, row, col);
        if (row >= p.m || col >= p.n)
            continue;
        if (slice)
            slice[(int64_t)col * p.m + row] = acc[i];
        else if (PASSES == 3 && !isfinite(acc[i]))
            again |= 1ull << i;
        else
            store_c1(p, row, col, acc[i]);
    }
    while (again) { /* rare: one copy of the FP32 loop, not one per accumulator */
        const int i = __ffsll((long long)again) - 1;
        again &= again - 1;
        int row, col;
        at(i, row, col);
        store_c1(p, row, col, fp32_dot(p, transa, transb, row, col));
    }
}

template <int PASSES>
__global__ void __launch_bounds__(256) reduce_slices_kernel(const problem p, int transa, int transb, const float *sums,
                                                            int splits)
{
    const int64_t total = (int64_t)p.m * p.n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        float s = sums[e];
        for (int sl = 1; sl < splits; ++sl)
            s += sums[sl * total + e];
        const int i = (int)(e % p.m), j = (int)(e / p.m);
        store_c1(p, i, j, PASSES == 3 && !isfinite(s) ? fp32_dot(p, transa, transb, i, j) : s);
    }
}

template <int PASSES>
inline cudaError_t reduce_slices(const shim_sgemm_args *p, const problem &q, const float *sums, int splits)
{
    const int64_t total = (int64_t)p->m * p->n;
    const int64_t blocks = std::min<int64_t>((total + 255) / 256, (int64_t)sm_count() * 16);
    SHIM_KERNEL_READY(reduce_slices_kernel<PASSES>);
    reduce_slices_kernel<PASSES><<<(unsigned)blocks, 256, 0, p->stream>>>(q, p->transa, p->transb, sums, splits);
    return cudaGetLastError();
}

} // namespace sgemm

#endif
