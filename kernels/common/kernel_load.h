/* A kernel's code reaches a device the first time it is used there: CUDA loads modules lazily by
 * default (CUDA_MODULE_LOADING=LAZY since 12.2). That load needs device memory, and where the
 * program holds all of it the load fails, and the kernel is lost for the rest of the process: every
 * later launch of it fails ("function is not loaded", cudaErrorUnknown) even with the memory free
 * again, and asking again for its function handle does not load it (H200, driver 580.159.04, CUDA
 * 13.0, 2026-11-27: docs/notes/lazy_loading.md).
 *
 * So every launch of the library goes through shim_kernel_ready() first. A kernel already loaded on
 * the current device passes (one lookup); one not yet loaded is loaded now if the device has
 * SHIM_KERNEL_LOAD_HEADROOM bytes free, and otherwise refused with cudaErrorMemoryAllocation
 * without being touched, so it loads at a later call when memory is there. A kernel whose load
 * failed all the same is refused on that device from then on. The caller of a refused launch has
 * launched nothing of it: an sgemm falls back to kernels loaded at the device's first use
 * (shim_sgemm_preload), the others fail on the GPU and are recomputed on the CPU. */
#ifndef SHIM_KERNEL_LOAD_H
#define SHIM_KERNEL_LOAD_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* loading a kernel is not tried with less device memory free than this */
#define SHIM_KERNEL_LOAD_HEADROOM ((size_t)32 << 20)

/* cudaSuccess where kernel (a __global__ function) is loaded on the current device, or was loaded
 * now; cudaErrorMemoryAllocation where it is refused (above); another error where the runtime
 * gives one for the kernel (no image for the device). Leaves no error behind. */
cudaError_t shim_kernel_ready(const void *kernel);

/* this thread's count of kernels passed and of kernels refused by shim_kernel_ready, for a caller to
 * tell whether a failed launch sequence was refused and whether any of it ran */
unsigned long long shim_kernel_passes(void);
unsigned long long shim_kernel_refusals(void);

#ifdef __cplusplus
}
#endif

/* return kernel's refusal from the enclosing function (which returns a cudaError_t) */
#define SHIM_KERNEL_READY(kernel)                                                                                       \
    do {                                                                                                               \
        const cudaError_t kernel_ready_ = shim_kernel_ready((const void *)(kernel));                                    \
        if (kernel_ready_ != cudaSuccess)                                                                              \
            return kernel_ready_;                                                                                      \
    } while (0)

#endif
