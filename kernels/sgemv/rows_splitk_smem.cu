/* rows_splitk_smem: rows_splitk with the block's piece of x staged once in shared memory (four
 * shifted copies when lda % 4 != 0), so the eight warps read x with conflict-free 16-byte shared
 * loads and L2 only streams A. */
#include "rows_vec.cuh"

namespace shim_sgemv {

cudaError_t rows_splitk_smem_launch(const shim_sgemv_args *p)
{
    return rows_vec<32, 1, 4, true>::launch(p, true);
}

size_t rows_splitk_smem_work(const shim_sgemv_args *p)
{
    return rows_vec<32, 1, 4, true>::work(p, true);
}

int rows_splitk_smem_splits(const shim_sgemv_args *p)
{
    return rows_vec<32, 1, 4, true>::splits(p);
}

} // namespace shim_sgemv
