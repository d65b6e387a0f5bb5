/* Rung 6: warp tiling with double buffering. 128x128x8 block tiles; each warp owns a 64x32 piece
 * and each lane an 8x8 block of C made of 2x2 sub-blocks of 4x4 spread across the warp tile, so
 * a warp's 16-byte fragment loads hit 8 (A) and 4 (B) consecutive float4: one shared-memory
 * wavefront each, no bank conflicts. Two shared buffers with the next tile's global loads in
 * registers during the compute leave one barrier per k tile; the next fragments are read from
 * shared memory while the current ones are multiplied. */
#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

constexpr int WT_BM = 128, WT_BN = 128, WT_BK = 8, WT_WM = 64, WT_WN = 32, WT_TM = 8, WT_TN = 8;
constexpr int WT_WARPS_M = WT_BM / WT_WM, WT_WARPS_N = WT_BN / WT_WN;
constexpr int WT_THREADS = 32 * WT_WARPS_M * WT_WARPS_N;
constexpr int WT_LANES_M = WT_WM / WT_TM, WT_LANES_N = WT_WN / WT_TN;
constexpr int WT_STRIDE_M = 4 * WT_LANES_M, WT_STRIDE_N = 4 * WT_LANES_N;
constexpr int WT_LDA = WT_BM + 4, WT_LDB = WT_BN + 4;
static_assert(WT_LANES_M * WT_LANES_N == 32, "a warp's lanes tile its warp tile");

template <bool KCA, bool KCB, bool VEC>
__global__ void __launch_bounds__(WT_THREADS, 2) warptile_kernel(const problem p, int tiles_m)
{
    __shared__ __align__(16) float As[2][WT_BK * WT_LDA];
    __shared__ __align__(16) float Bs[2][WT_BK * WT_LDB];
    int tm, tn;
    tile_coords<RASTER_GROUP>((int)blockIdx.x, tiles_m, (int)(gridDim.x / tiles_m), tm, tn);
    const int m0 = tm * WT_BM, n0 = tn * WT_BN;
    const int tid = (int)threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int a_frag = (warp % WT_WARPS_M) * WT_WM + (lane % WT_LANES_M) * 4;
    const int b_frag = (warp / WT_WARPS_M) * WT_WN + (lane / WT_LANES_M) * 4;
    reg_tile_loader<KCA, VEC, WT_BM, WT_BK, WT_THREADS, WT_LDA> la;
    reg_tile_loader<KCB, VEC, WT_BN, WT_BK, WT_THREADS, WT_LDB> lb;

    la.load(p.a, m0, 0, p.k, tid);
    lb.load(p.b, n0, 0, p.k, tid);
    la.store(As[0], tid);
    lb.store(Bs[0], tid);
    __syncthreads();

    float acc[WT_TM][WT_TN] = {};
    float af[2][WT_TM], bf[2][WT_TN];
    const int ktiles = (p.k + WT_BK - 1) / WT_BK;
    for (int kt = 0; kt < ktiles; ++kt) {
        const int cur = kt & 1;
        const bool more = kt + 1 < ktiles;
        if (more) {
            la.load(p.a, m0, (kt + 1) * WT_BK, p.k, tid);
            lb.load(p.b, n0, (kt + 1) * WT_BK, p.k, tid);
        }
        const float *as = As[cur], *bs = Bs[cur];
#pragma unroll
        for (int kk = 0; kk < WT_BK; ++kk) {
            /* kk == 0 loads its own fragments; every step then fetches the next one's */
#pragma unroll
            for (int step = kk == 0 ? 0 : 1; step < 2; ++step) {
                const int l = kk + step, buf = l & 1;
                if (l < WT_BK) {
#pragma unroll
                    for (int s = 0; s < WT_TM / 4; ++s) {
                        float4 t =
                            *reinterpret_cast<const float4 *>(as + l * WT_LDA + a_frag + s * WT_STRIDE_M);
                        af[buf][4 * s] = t.x;
                        af[buf][4 * s + 1] = t.y;
                        af[buf][4 * s + 2] = t.z;
                        af[buf][4 * s + 3] = t.w;
                    }
#pragma unroll
                    for (int s = 0; s < WT_TN / 4; ++s) {
                        float4 t =
                            *reinterpret_cast<const float4 *>(bs + l * WT_LDB + b_frag + s * WT_STRIDE_N);
                        bf[buf][4 * s] = t.x;
                        bf[buf][4 * s + 1] = t.y;
                        bf[buf][4 * s + 2] = t.z;
                        bf[buf][4 * s + 3] = t.w;
                    }
                }
            }
#pragma unroll
            for (int r = 0; r < WT_TM; ++r)
#pragma unroll
                for (int c = 0; c < WT_TN; ++c)
                    acc[r][c] = fmaf(af[kk & 1][r], bf[kk & 1][c], acc[r][c]);
        }
        /* the other buffer was last read before the previous barrier */
        if (more) {
            la.store(As[cur ^ 1], tid);
            lb.store(Bs[cur ^ 1], tid);
        }
        __syncthreads();
    }

#pragma unroll
    for (int sn = 0; sn < WT_TN / 4; ++sn)
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
            const int j = n0 + b_frag + sn * WT_STRIDE_N + jj;
            if (j < p.n) {
#pragma unroll
                for (int sm = 0; sm < WT_TM / 4; ++sm)
                    store_c4(p, m0 + a_frag + sm * WT_STRIDE_M, j, acc[4 * sm][4 * sn + jj],
                             acc[4 * sm + 1][4 * sn + jj], acc[4 * sm + 2][4 * sn + jj],
                             acc[4 * sm + 3][4 * sn + jj]);
            }
        }
}

template <bool VEC> void (*pick_warptile(int transa, int transb))(const problem, int)
{
    return transa ? (transb ? warptile_kernel<true, false, VEC> : warptile_kernel<true, true, VEC>)
                  : (transb ? warptile_kernel<false, false, VEC> : warptile_kernel<false, true, VEC>);
}

} // namespace

cudaError_t warptile_launch(const shim_sgemm_args *p)
{
    const problem q = make_problem(p);
    int tiles_m = (p->m + WT_BM - 1) / WT_BM;
    int64_t blocks = (int64_t)tiles_m * ((p->n + WT_BN - 1) / WT_BN);
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    void (*kernel)(const problem, int) = q.a.vec && q.b.vec ? pick_warptile<true>(p->transa, p->transb)
                                                            : pick_warptile<false>(p->transa, p->transb);
    kernel<<<(unsigned)blocks, WT_THREADS, 0, p->stream>>>(q, tiles_m);
    return cudaGetLastError();
}

} // namespace sgemm
