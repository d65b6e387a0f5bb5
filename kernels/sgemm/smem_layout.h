/* Where the FFMA kernels' lanes and staged data sit in shared memory: plain index arithmetic,
 * compiled for the device by the kernels and for the host by the unit test that checks its
 * properties (test/unit/test_smem_layout.cu). What the properties are for was measured on the
 * H200 (docs/notes/sgemm.md): a warp's LDS.128 takes as many shared-memory wavefronts as the
 * distinct 16-byte addresses of each group of four consecutive lanes, summed over the eight
 * groups, over 8 (at least 2); within one wavefront, eight distinct 16-byte addresses must fall in
 * eight distinct bank groups (address / 16 mod 8). */
#ifndef SHIM_SGEMM_SMEM_LAYOUT_H
#define SHIM_SGEMM_SMEM_LAYOUT_H

#ifdef __CUDACC__
#define SGEMM_HD __host__ __device__ __forceinline__
#else
#define SGEMM_HD inline
#endif

namespace sgemm {

/* a lane's place in its warp's LANES_M x LANES_N grid of TM x TN blocks */
struct lane_xy {
    int m, n;
};

/* Each group of four consecutive lanes takes a 2 x 2 square of the grid, so that every group reads
 * two of A's fragment addresses and two of B's: 2 wavefronts a fragment load, where a column of 8
 * lanes in order (lane % LANES_M) took 4 for A. Every output keeps its FMAs and k order; only which
 * lane computes it changes. */
template <int LANES_M> SGEMM_HD constexpr lane_xy lane_place(int lane)
{
    static_assert(LANES_M % 2 == 0 && (32 / LANES_M) % 2 == 0, "2 x 2 squares tile the lane grid");
    return lane_xy{2 * ((lane >> 2) % (LANES_M / 2)) + (lane & 1), 2 * ((lane >> 2) / (LANES_M / 2)) + ((lane >> 1) & 1)};
}

/* A K16 stage holds row r's BK consecutive k unpadded, BK floats a row; row r's four-k chunk c lies
 * at chunk c ^ raw_swizzle(r) of the row, so that the eight consecutive rows a quarter warp reads
 * at one c fall in eight distinct bank groups. Rows sharing a 128-byte line get distinct orders. */
template <int BK> SGEMM_HD constexpr int raw_swizzle(int r)
{
    static_assert(BK == 8 || BK == 16, "the swizzle is laid out for rows of 32 or 64 bytes");
    return (r / (32 / BK)) % (BK / 4);
}

} // namespace sgemm

#endif
