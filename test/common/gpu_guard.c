#include "gpu_guard.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

void test_require_gpu(void)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        printf("SKIP: no usable CUDA device (%s)\n",
               err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
        exit(TEST_SKIP_CODE);
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        printf("device: %s, %d SMs, cc %d.%d\n", prop.name, prop.multiProcessorCount, prop.major,
               prop.minor);
}

void test_cuda_check(int err, const char *what, const char *file, int line)
{
    if (err != 0) {
        printf("FAIL: %s:%d: %s returned %d (%s)\n", file, line, what, err,
               cudaGetErrorString((cudaError_t)err));
        exit(1);
    }
}

float *test_device_copy(const float *h, unsigned long n)
{
    float *d;
    TEST_CUDA(cudaMalloc((void **)&d, sizeof(float) * n));
    TEST_CUDA(cudaMemcpy(d, h, sizeof(float) * n, cudaMemcpyHostToDevice));
    return d;
}
