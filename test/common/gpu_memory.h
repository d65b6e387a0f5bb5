/* Operand memory for blas_cases.h in the kinds a CUDA program has: device (cudaMalloc), managed
 * (cudaMallocManaged), pinned (cudaMallocHost) and registered host memory (malloc +
 * cudaHostRegister); and device memory as the allocators of frameworks hand it out: from the
 * device's stream-ordered pool (cudaMallocAsync), from a pool of the program's own
 * (cudaMemPoolCreate, cudaMallocFromPoolAsync), and mapped by the virtual memory API (cuMemCreate,
 * cuMemMap: PyTorch's expandable segments), each buffer straddling two physical allocations. A
 * CUDA error ends the test with a FAIL line (TEST_CUDA). */
#ifndef SHIM_TEST_GPU_MEMORY_H
#define SHIM_TEST_GPU_MEMORY_H

#include "blas_cases.h"

extern const tc_memory tc_device_memory;
extern const tc_memory tc_managed_memory;
extern const tc_memory tc_pinned_memory;
extern const tc_memory tc_registered_memory;
extern const tc_memory tc_stream_pool_memory;
extern const tc_memory tc_own_pool_memory;
extern const tc_memory tc_mapped_memory;

#endif
