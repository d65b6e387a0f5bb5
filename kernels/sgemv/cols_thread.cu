/* cols_thread: the baseline of the columns form. One row per thread with 4-byte loads (coalesced
 * across the warp), eight columns' loads and x values in registers per batch, no grid split. */
#include "cols_tile.cuh"

namespace shim_sgemv {

cudaError_t cols_thread_launch(const shim_sgemv_args *p)
{
    return cols_tile<1>::launch(p, false);
}

cudaError_t cols_thread_preload()
{
    return cols_tile<1>::preload();
}

} // namespace shim_sgemv
