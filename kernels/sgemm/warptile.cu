/* Rung 6: warp tiling with double buffering. 128x128x8 block tiles; each warp owns a 64x32 piece
 * and each lane an 8x8 block of C made of 2x2 sub-blocks of 4x4 spread across the warp tile, so
 * a warp's 16-byte fragment loads hit 8 (A) and 4 (B) consecutive float4: one shared-memory
 * wavefront each, no bank conflicts. Two shared buffers with the next tile's global loads in
 * registers during the compute leave one barrier per k tile; the next fragments are read from
 * shared memory while the current ones are multiplied.
 *
 * The kernel is a template on its tile configuration; the rung is the 128x128x8 one, and the
 * 128x64 ones (4 warps, 3 blocks per SM) are variants of their own. */
#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int MIN_BLOCKS_> struct wt_config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int LANES_M = WM / TM, LANES_N = WN / TN;
    static constexpr int STRIDE_M = 4 * LANES_M, STRIDE_N = 4 * LANES_N;
    static constexpr int LDA = BM + 4, LDB = BN + 4;
    static_assert(LANES_M * LANES_N == 32, "a warp's lanes tile its warp tile");
    static_assert(BM % WM == 0 && BN % WN == 0 && TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "shape");
};

/*                           BM   BN  BK  WM  WN TM TN MIN_BLOCKS */
using cfg_128x128 = wt_config<128, 128, 8, 64, 32, 8, 8, 2>;
using cfg_128x64 = wt_config<128, 64, 8, 64, 32, 8, 8, 3>;
using cfg_128x64x16 = wt_config<128, 64, 16, 64, 32, 8, 8, 3>;

template <class CFG, bool KCA, bool KCB, bool VEC>
__global__ void __launch_bounds__(CFG::THREADS, CFG::MIN_BLOCKS) warptile_kernel(const problem p, int tiles_m)
{
    constexpr int BM = CFG::BM, BN = CFG::BN, BK = CFG::BK, TM = CFG::TM, TN = CFG::TN;
    constexpr int LDA = CFG::LDA, LDB = CFG::LDB;
    __shared__ __align__(16) float As[2][BK * LDA];
    __shared__ __align__(16) float Bs[2][BK * LDB];
    int tm, tn;
    tile_coords<RASTER_GROUP>((int)blockIdx.x, tiles_m, (int)(gridDim.x / tiles_m), tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int tid = (int)threadIdx.x, lane = tid % 32, warp = tid / 32;
    const lane_xy place = lane_place<CFG::LANES_M>(lane);
    const int a_frag = (warp % CFG::WARPS_M) * CFG::WM + place.m * 4;
    const int b_frag = (warp / CFG::WARPS_M) * CFG::WN + place.n * 4;
    reg_tile_loader<KCA, VEC, BM, BK, CFG::THREADS, LDA> la;
    reg_tile_loader<KCB, VEC, BN, BK, CFG::THREADS, LDB> lb;

    la.load(p.a, m0, 0, p.k, tid);
    lb.load(p.b, n0, 0, p.k, tid);
    la.store(As[0], tid);
    lb.store(Bs[0], tid);
    __syncthreads();

    float acc[TM][TN] = {};
    float af[2][TM], bf[2][TN];
    const int ktiles = (p.k + BK - 1) / BK;
    for (int kt = 0; kt < ktiles; ++kt) {
        const int cur = kt & 1;
        const bool more = kt + 1 < ktiles;
        if (more) {
            la.load(p.a, m0, (kt + 1) * BK, p.k, tid);
            lb.load(p.b, n0, (kt + 1) * BK, p.k, tid);
        }
        const float *as = As[cur], *bs = Bs[cur];
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            /* kk == 0 loads its own fragments; every step then fetches the next one's */
#pragma unroll
            for (int step = kk == 0 ? 0 : 1; step < 2; ++step) {
                const int l = kk + step, buf = l & 1;
                if (l < BK) {
                    load_fragment<TM, CFG::STRIDE_M>(af[buf], as + l * LDA + a_frag);
                    load_fragment<TN, CFG::STRIDE_N>(bf[buf], bs + l * LDB + b_frag);
                }
            }
            outer_product(acc, af[kk & 1], bf[kk & 1]);
        }
        /* the other buffer was last read before the previous barrier */
        if (more) {
            la.store(As[cur ^ 1], tid);
            lb.store(Bs[cur ^ 1], tid);
        }
        __syncthreads();
    }

    store_tile<CFG>(p, m0, n0, a_frag, b_frag, acc);
}

template <class CFG, bool VEC> void (*pick_warptile(int transa, int transb))(const problem, int)
{
    return transa
               ? (transb ? warptile_kernel<CFG, true, false, VEC> : warptile_kernel<CFG, true, true, VEC>)
               : (transb ? warptile_kernel<CFG, false, false, VEC> : warptile_kernel<CFG, false, true, VEC>);
}

template <class CFG> cudaError_t launch_warptile(const shim_sgemm_args *p)
{
    const problem q = make_problem(p);
    int tiles_m = (p->m + CFG::BM - 1) / CFG::BM;
    int64_t blocks = (int64_t)tiles_m * ((p->n + CFG::BN - 1) / CFG::BN);
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    void (*kernel)(const problem, int) = q.a.vec && q.b.vec ? pick_warptile<CFG, true>(p->transa, p->transb)
                                                            : pick_warptile<CFG, false>(p->transa, p->transb);
    SHIM_KERNEL_READY(kernel);
    kernel<<<(unsigned)blocks, CFG::THREADS, 0, p->stream>>>(q, tiles_m);
    return cudaGetLastError();
}

} // namespace

cudaError_t warptile_launch(const shim_sgemm_args *p)
{
    return launch_warptile<cfg_128x128>(p);
}
cudaError_t warptile_128x64_launch(const shim_sgemm_args *p)
{
    return launch_warptile<cfg_128x64>(p);
}
cudaError_t warptile_128x64x16_launch(const shim_sgemm_args *p)
{
    return launch_warptile<cfg_128x64x16>(p);
}

} // namespace sgemm
