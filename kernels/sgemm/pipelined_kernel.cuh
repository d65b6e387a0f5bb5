/* The pipelined kernel (pipelined_tile.cuh's tile product, then C, a split slice's partial sums,
 * or k groups summed first), a template each file instantiates for itself: pipelined.cu for the
 * registered variants, fallback.cu for the fallback plan, in a module of its own. */
#ifndef SHIM_PIPELINED_KERNEL_CUH
#define SHIM_PIPELINED_KERNEL_CUH

#include "pipelined_tile.cuh"

namespace sgemm {
namespace {

/* STAGED_C: C's tiles through shared memory (store_tile_staged), for an unaligned C where the
 * product is store-bound; a separate instantiation, so that the kernels with today's store keep
 * their machine code (any change to the epilogue moves the k loop's register assignment) */
template <class CFG, int MODE_A, int MODE_B, bool STAGED_C = false>
__global__ void __launch_bounds__(CFG::THREADS, CFG::MIN_BLOCKS)
    pipelined_kernel(const problem p, const sched sc, float *__restrict__ ws)
{
    constexpr int BM = CFG::BM, BN = CFG::BN, TM = CFG::TM, TN = CFG::TN;
    constexpr int STAGES = CFG::STAGES, KG = CFG::KG;
    using place = block_place<CFG, MODE_A, MODE_B>;
    extern __shared__ float4 smem_raw[];
    constexpr int A_STAGE = place::path_a::STAGE, B_STAGE = place::path_b::STAGE;
    wait_for_primary(); /* launched as a dependent (launch_at): what the kernel before wrote is visible */
    allow_dependents(); /* a split plan's reduction may be placed once every block has started */

    int t = (int)blockIdx.x, slice = 0, kbegin = 0, kend = p.k;
    const bool split = CFG::SPLIT && t >= sc.dp_tiles;
    if (split) {
        const int r = t - sc.dp_tiles;
        t = sc.dp_tiles + r / sc.splits;
        slice = r % sc.splits;
        kbegin = slice * sc.kslice;
        kend = min(p.k, kbegin + sc.kslice);
    }
    int tm, tn;
    tile_coords<RASTER_GROUP>(t, sc.tiles_m, sc.tiles_n, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const place bp(reinterpret_cast<float *>(smem_raw));
    float *const As = bp.As;
    const int tid = bp.tid, a_frag = bp.a_frag, b_frag = bp.b_frag;
    float acc[TM][TN];
    tile_product<CFG, MODE_A, MODE_B>(p, bp, m0, n0, kbegin, kend, acc);

    if constexpr (KG > 1) {
        /* groups 1.. leave their sums in the stages' memory, laid out so that a group's threads
         * write consecutive words; group 0 adds them in group order and stores the tile */
        constexpr int GT = CFG::THREADS / KG;
        static_assert((KG - 1) * TM * TN * GT <= STAGES * (A_STAGE + B_STAGE), "k groups' sums fit the stages");
        const int gt = tid % GT, group = tid / GT;
        __syncthreads(); /* every copy landed and every fragment read */
        if (group > 0) {
            float *r = As + (group - 1) * TM * TN * GT + gt;
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    r[(i * TN + j) * GT] = acc[i][j];
        }
        __syncthreads();
        if (group > 0)
            return;
        for (int g = 1; g < KG; ++g) {
            const float *r = As + (g - 1) * TM * TN * GT + gt;
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += r[(i * TN + j) * GT];
        }
    }

    if (split) {
        store_partial<CFG>(ws + ((int64_t)(t - sc.dp_tiles) * sc.splits + slice) * (BM * BN), a_frag, b_frag, acc);
    } else if constexpr (STAGED_C) {
        if constexpr (KG == 1)
            __syncthreads(); /* every thread's last reads of the stages are done (with k groups, the
                                sums' barriers saw to that, and group 1 has returned) */
        store_tile_staged<CFG>(p, m0, n0, a_frag, b_frag, acc, As + staging_offset<CFG>(), tid / 32);
    } else {
        store_tile<CFG>(p, m0, n0, a_frag, b_frag, acc);
    }
}

} // namespace
} // namespace sgemm

#endif
