#include "vector_ops.h"
#include "kernel_load.h"

/* offset of element i of a BLAS vector of length n with increment inc, from its lowest address */
__device__ __forceinline__ int64_t element_offset(int64_t i, int n, int64_t inc)
{
    return inc > 0 ? i * inc : (int64_t)(n - 1 - i) * -inc;
}

__global__ void gather_vector(float *dst, const float *src, int n, int64_t inc)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = src[element_offset(i, n, inc)];
}

__global__ void scatter_vector(float *dst, int64_t inc, const float *src, int n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        dst[element_offset(i, n, inc)] = src[i];
}

static unsigned blocks_for(int n)
{
    int blocks = (n + 255) / 256;
    return (unsigned)(blocks < 4096 ? blocks : 4096);
}

extern "C" cudaError_t shim_gather_vector(float *dst, const float *src, int n, int64_t inc, cudaStream_t stream)
{
    SHIM_KERNEL_READY(gather_vector);
    gather_vector<<<blocks_for(n), 256, 0, stream>>>(dst, src, n, inc);
    return cudaGetLastError();
}

extern "C" cudaError_t shim_scatter_vector(float *dst, int64_t inc, const float *src, int n, cudaStream_t stream)
{
    SHIM_KERNEL_READY(scatter_vector);
    scatter_vector<<<blocks_for(n), 256, 0, stream>>>(dst, inc, src, n);
    return cudaGetLastError();
}

extern "C" cudaError_t shim_vector_ops_preload(void)
{
    const cudaError_t err = shim_kernel_ready((const void *)gather_vector);
    return err != cudaSuccess ? err : shim_kernel_ready((const void *)scatter_vector);
}
