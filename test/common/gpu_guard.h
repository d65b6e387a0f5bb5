/* GPU tests call test_require_gpu() first: without a usable device they exit with 77, which
 * the test runner reports as skipped (never as passed). */
#ifndef SHIM_TEST_GPU_GUARD_H
#define SHIM_TEST_GPU_GUARD_H

#define TEST_SKIP_CODE 77

void test_require_gpu(void);
/* aborts the test with a message when a CUDA runtime call failed */
#define TEST_CUDA(call) test_cuda_check((int)(call), #call, __FILE__, __LINE__)
void test_cuda_check(int err, const char *what, const char *file, int line);
/* a device copy of the n floats at h (cudaMalloc'd; the test frees it with cudaFree) */
float *test_device_copy(const float *h, unsigned long n);

#endif
