/* Rung 1: one thread per element of C, both operands read straight from global memory. */
#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

constexpr int NAIVE_ROWS = 32, NAIVE_COLS = 8;

/* Consecutive threads take consecutive rows of one column of C: the C accesses, and A's when it
 * is not transposed, are coalesced; the B element is the same for the whole warp. */
template <bool KCA, bool KCB>
__global__ void __launch_bounds__(NAIVE_ROWS *NAIVE_COLS) naive_kernel(const problem p, int tiles_m)
{
    int i = (int)(blockIdx.x % tiles_m) * NAIVE_ROWS + (int)threadIdx.x % NAIVE_ROWS;
    int j = (int)(blockIdx.x / tiles_m) * NAIVE_COLS + (int)threadIdx.x / NAIVE_ROWS;
    if (i >= p.m || j >= p.n)
        return;
    const float *a = element_ptr<KCA>(p.a, i, 0), *b = element_ptr<KCB>(p.b, j, 0);
    const int64_t a_step = KCA ? 1 : p.a.ld, b_step = KCB ? 1 : p.b.ld;
    float acc = 0.0f;
    for (int l = 0; l < p.k; ++l)
        acc = fmaf(a[l * a_step], b[l * b_step], acc);
    store_c1(p, i, j, acc);
}

} // namespace

cudaError_t naive_launch(const shim_sgemm_args *p)
{
    const problem q = make_problem(p);
    int tiles_m = (p->m + NAIVE_ROWS - 1) / NAIVE_ROWS;
    int64_t blocks = (int64_t)tiles_m * ((p->n + NAIVE_COLS - 1) / NAIVE_COLS);
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    void (*kernel)(const problem, int) =
        p->transa ? (p->transb ? naive_kernel<true, false> : naive_kernel<true, true>)
                  : (p->transb ? naive_kernel<false, false> : naive_kernel<false, true>);
    SHIM_KERNEL_READY(kernel);
    kernel<<<(unsigned)blocks, NAIVE_ROWS * NAIVE_COLS, 0, p->stream>>>(q, tiles_m);
    return cudaGetLastError();
}

} // namespace sgemm
