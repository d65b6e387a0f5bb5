/* rows_splitk: few outputs with long columns. Each column is cut into pieces so that
 * outputs x pieces fills one wave; a warp per (output, piece) with 16-byte loads, x read through
 * L1/L2 (the eight warps of a block read the same piece of x). Partials go to the workspace and
 * finish_splits adds them in piece order: deterministic, no atomics. */
#include "rows_vec.cuh"

namespace shim_sgemv {

cudaError_t rows_splitk_launch(const shim_sgemv_args *p)
{
    return rows_vec<32, 1, 4, false>::launch(p, true);
}

size_t rows_splitk_work(const shim_sgemv_args *p)
{
    return rows_vec<32, 1, 4, false>::work(p, true);
}

int rows_splitk_splits(const shim_sgemv_args *p)
{
    return rows_vec<32, 1, 4, false>::splits(p);
}

} // namespace shim_sgemv
