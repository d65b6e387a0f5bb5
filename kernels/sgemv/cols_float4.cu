/* cols_float4: four consecutive rows per thread with 16-byte loads, no grid split. Legal only when
 * every column shares its 16-byte phase (lda % 4 == 0; a's own offset is absorbed by starting the
 * row blocks at row -q); otherwise it runs the scalar instantiation. */
#include "cols_tile.cuh"

namespace shim_sgemv {

cudaError_t cols_float4_launch(const shim_sgemv_args *p)
{
    return cols_vec4_legal(p) ? cols_tile<4>::launch(p, false) : cols_tile<1>::launch(p, false);
}

} // namespace shim_sgemv
