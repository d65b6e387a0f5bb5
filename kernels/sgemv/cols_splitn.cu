/* cols_splitn: cols_float4 with the columns also split over the grid, for when the row tiles alone
 * cannot fill the GPU (square matrices up to ~16k rows, and the few-rows/many-columns shapes of
 * row-major Trans). Partials [m][splits] go to the workspace; finish_splits adds them in split
 * order and applies alpha/beta. */
#include "cols_tile.cuh"

namespace shim_sgemv {

cudaError_t cols_splitn_launch(const shim_sgemv_args *p)
{
    return cols_vec4_legal(p) ? cols_tile<4>::launch(p, true) : cols_tile<1>::launch(p, true);
}

size_t cols_splitn_work(const shim_sgemv_args *p)
{
    return cols_vec4_legal(p) ? cols_tile<4>::work(p, true) : cols_tile<1>::work(p, true);
}

int cols_splitn_splits(const shim_sgemv_args *p)
{
    cols_plan r;
    if (cols_vec4_legal(p))
        cols_tile<4>::plan(p, true, &r);
    else
        cols_tile<1>::plan(p, true, &r);
    return (int)r.grid.y;
}

} // namespace shim_sgemv
