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

/* The program holding its device's memory, as a CUDA program may before or between BLAS calls:
 * test_hold_device takes every allocation it can get, large pieces first, down to 1 MB, and returns
 * the bytes it holds; test_release_held_until gives back its smallest pieces until at least `bytes`
 * of the device are free; test_release_held gives back all of them. */
unsigned long test_hold_device(void);
void test_release_held_until(unsigned long bytes);
/* holds all of the device but about `bytes` (at least that, less than 2 MiB more) */
void test_hold_device_leaving(unsigned long bytes);
void test_release_held(void);
/* the device memory free now */
unsigned long test_free_device_bytes(void);

#endif
