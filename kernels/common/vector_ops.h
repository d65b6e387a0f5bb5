/* Small device helpers of the GPU executor: strided vectors in device memory to and from dense. */
#ifndef SHIM_VECTOR_OPS_H
#define SHIM_VECTOR_OPS_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = element i of the n-element vector at src with increment inc (inc < 0: src is the
 * lowest-addressed element and element 0 is the last one, as reference BLAS walks it) */
cudaError_t shim_gather_vector(float *dst, const float *src, int n, int64_t inc, cudaStream_t stream);
/* the reverse: element i of the strided vector at dst = src[i] */
cudaError_t shim_scatter_vector(float *dst, int64_t inc, const float *src, int n, cudaStream_t stream);
/* loads both kernels on the current device (kernel_load.h): cudaSuccess, or the first refusal */
cudaError_t shim_vector_ops_preload(void);

#ifdef __cplusplus
}
#endif

#endif
