/* rows_float4: a warp per output with aligned 16-byte loads of the column (rows_vec.cuh). Long
 * columns stage x in shared memory, shared by the block's eight columns, so x costs one L2 read per
 * block instead of one per column; short columns (m <= 512) take four outputs per warp at once so
 * each lane still has four 16-byte loads in flight, and read x through L1. */
#include "rows_vec.cuh"

namespace shim_sgemv {

/* up to here a column is at most 4 blocks per lane: one output per warp would leave too few loads
 * in flight per lane */
static const int kShortColumn = 512;

cudaError_t rows_float4_launch(const shim_sgemv_args *p)
{
    if (p->m <= kShortColumn)
        return rows_vec<32, 4, 1, false>::launch(p, false);
    return rows_vec<32, 1, 4, true>::launch(p, false);
}

} // namespace shim_sgemv
