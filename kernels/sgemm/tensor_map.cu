/* Tensor maps for the TMA-fed kernels (tensor_map.h). */
#include "tensor_map.h"

#include <atomic>

#include <cuda_runtime.h>

namespace sgemm {
namespace {

using encode_fn = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                               const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                               CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* the entry point, looked up on the first use (a GPU call, never the CPU path); null when absent */
encode_fn encoder()
{
    static std::atomic<int> state{0}; /* 0 not asked, 1 found, 2 absent */
    static std::atomic<encode_fn> fn{nullptr};
    const int s = state.load(std::memory_order_acquire);
    if (s == 1)
        return fn.load(std::memory_order_relaxed);
    if (s == 2)
        return nullptr;
    void *found = nullptr;
    cudaDriverEntryPointQueryResult result = cudaDriverEntryPointSymbolNotFound;
    const bool ok = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &found, 12000, cudaEnableDefault,
                                                     &result) == cudaSuccess &&
                    result == cudaDriverEntryPointSuccess && found;
    cudaGetLastError(); /* the probe's error is not the caller's */
    fn.store(ok ? reinterpret_cast<encode_fn>(found) : nullptr, std::memory_order_relaxed);
    state.store(ok ? 1 : 2, std::memory_order_release);
    return ok ? reinterpret_cast<encode_fn>(found) : nullptr;
}

} // namespace

bool tensor_maps_usable()
{
    return encoder() != nullptr;
}

bool tma_readable(const float *ptr, int64_t ld)
{
    return ((uintptr_t)ptr & 15u) == 0 && ld > 0 && ld % 4 == 0 && ld * 4 < (int64_t(1) << 40);
}

bool tensor_map_2d(CUtensorMap *map, const float *ptr, int64_t inner, int64_t outer, int64_t ld, int box_inner,
                   int box_outer)
{
    const encode_fn encode = encoder();
    if (!encode || !tma_readable(ptr, ld) || ld < inner || inner < 1 || outer < 1 || inner > UINT32_MAX ||
        outer > UINT32_MAX || box_inner * 4 > 128 || box_outer > 256)
        return false;
    const cuuint64_t dims[2] = {(cuuint64_t)inner, (cuuint64_t)outer}, strides[1] = {(cuuint64_t)ld * 4};
    const cuuint32_t box[2] = {(cuuint32_t)box_inner, (cuuint32_t)box_outer}, step[2] = {1, 1};
    return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float *>(ptr), dims, strides, box, step,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

} // namespace sgemm
