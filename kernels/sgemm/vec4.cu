/* Rung 5: coarse_2d with 16-byte accesses. Global loads move four elements at a time along each
 * operand's contiguous side (the K-contiguous operand, e.g. A with transa, is transposed into the
 * K-major shared layout on the way), and the inner loop reads its 8+8 register values as four
 * 16-byte shared loads instead of sixteen scalar ones. Operands that are not 16-byte capable
 * (pointer misaligned or ld % 4 != 0) run the same kernel with scalar global loads. */
#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

constexpr int V4_BM = 128, V4_BN = 128, V4_BK = 8, V4_TM = 8, V4_TN = 8;
constexpr int V4_THREADS = (V4_BM / V4_TM) * (V4_BN / V4_TN);
constexpr int V4_LDA = V4_BM + 4, V4_LDB = V4_BN + 4;

template <bool KCA, bool KCB, bool VEC>
__global__ void __launch_bounds__(V4_THREADS) vec4_kernel(const problem p, int tiles_m)
{
    __shared__ __align__(16) float As[V4_BK * V4_LDA];
    __shared__ __align__(16) float Bs[V4_BK * V4_LDB];
    const int m0 = (int)(blockIdx.x % tiles_m) * V4_BM, n0 = (int)(blockIdx.x / tiles_m) * V4_BN;
    const int tid = (int)threadIdx.x;
    const int tx = tid % (V4_BN / V4_TN), ty = tid / (V4_BN / V4_TN);
    reg_tile_loader<KCA, VEC, V4_BM, V4_BK, V4_THREADS, V4_LDA> la;
    reg_tile_loader<KCB, VEC, V4_BN, V4_BK, V4_THREADS, V4_LDB> lb;
    float acc[V4_TM][V4_TN] = {};
    for (int k0 = 0; k0 < p.k; k0 += V4_BK) {
        la.load(p.a, m0, k0, p.k, tid);
        lb.load(p.b, n0, k0, p.k, tid);
        la.store(As, tid);
        lb.store(Bs, tid);
        __syncthreads();
#pragma unroll
        for (int l = 0; l < V4_BK; ++l) {
            float a[V4_TM], b[V4_TN];
#pragma unroll
            for (int r = 0; r < V4_TM; r += 4) {
                float4 t = *reinterpret_cast<const float4 *>(&As[l * V4_LDA + ty * V4_TM + r]);
                a[r] = t.x;
                a[r + 1] = t.y;
                a[r + 2] = t.z;
                a[r + 3] = t.w;
            }
#pragma unroll
            for (int c = 0; c < V4_TN; c += 4) {
                float4 t = *reinterpret_cast<const float4 *>(&Bs[l * V4_LDB + tx * V4_TN + c]);
                b[c] = t.x;
                b[c + 1] = t.y;
                b[c + 2] = t.z;
                b[c + 3] = t.w;
            }
#pragma unroll
            for (int r = 0; r < V4_TM; ++r)
#pragma unroll
                for (int c = 0; c < V4_TN; ++c)
                    acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int c = 0; c < V4_TN; ++c) {
        const int j = n0 + tx * V4_TN + c;
        if (j < p.n) {
#pragma unroll
            for (int r = 0; r < V4_TM; r += 4)
                store_c4(p, m0 + ty * V4_TM + r, j, acc[r][c], acc[r + 1][c], acc[r + 2][c], acc[r + 3][c]);
        }
    }
}

template <bool VEC> void (*pick_vec4(int transa, int transb))(const problem, int)
{
    return transa ? (transb ? vec4_kernel<true, false, VEC> : vec4_kernel<true, true, VEC>)
                  : (transb ? vec4_kernel<false, false, VEC> : vec4_kernel<false, true, VEC>);
}

} // namespace

cudaError_t vec4_launch(const shim_sgemm_args *p)
{
    const problem q = make_problem(p);
    int tiles_m = (p->m + V4_BM - 1) / V4_BM;
    int64_t blocks = (int64_t)tiles_m * ((p->n + V4_BN - 1) / V4_BN);
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    void (*kernel)(const problem, int) =
        q.a.vec && q.b.vec ? pick_vec4<true>(p->transa, p->transb) : pick_vec4<false>(p->transa, p->transb);
    SHIM_KERNEL_READY(kernel);
    kernel<<<(unsigned)blocks, V4_THREADS, 0, p->stream>>>(q, tiles_m);
    return cudaGetLastError();
}

} // namespace sgemm
