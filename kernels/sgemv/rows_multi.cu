/* rows_multiN: N outputs per warp, 32/N lanes each, for short columns (m up to about 128/N). The
 * lanes of an output read consecutive 16-byte blocks of its column and neighbouring lanes serve
 * neighbouring columns, so with lda == m a warp reads N whole columns as one contiguous 512-byte
 * span. Four rounds of N outputs are in flight per warp. x (short) is read through L1. */
#include "rows_vec.cuh"

namespace shim_sgemv {

template <int OUTS_PER_WARP>
cudaError_t rows_multi_launch(const shim_sgemv_args *p)
{
    static_assert(OUTS_PER_WARP >= 2 && OUTS_PER_WARP <= 32 && (OUTS_PER_WARP & (OUTS_PER_WARP - 1)) == 0,
                  "outputs per warp: a power of two from 2 to 32");
    return rows_vec<32 / OUTS_PER_WARP, 4, 1, false>::launch(p, false);
}

template cudaError_t rows_multi_launch<2>(const shim_sgemv_args *p);
template cudaError_t rows_multi_launch<4>(const shim_sgemv_args *p);
template cudaError_t rows_multi_launch<8>(const shim_sgemv_args *p);
template cudaError_t rows_multi_launch<16>(const shim_sgemv_args *p);
template cudaError_t rows_multi_launch<32>(const shim_sgemv_args *p);

} // namespace shim_sgemv
