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
 * launched nothing of that kernel: an sgemm or sgemv falls back to kernels loaded at a thread's first
 * use of the device (shim_sgemm_preload, shim_sgemv_preload; kernel_launch_or_fallback below), any
 * other refused call fails on the GPU and is recomputed on the CPU. */
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

/* shim_kernel_ready, then the kernel's dynamic shared memory limit raised to bytes and the largest
 * shared-memory carveout preferred, once per device (remembered with its loading, forgotten with
 * it: shim_kernel_forget_device); not remembered on failure, so a later call retries */
cudaError_t shim_kernel_ready_smem(const void *kernel, int bytes);

/* the current device as the two calls above see it (0 where the runtime cannot say), and
 * shim_kernel_ready_smem for a caller that has asked for it already: device must be the current one */
int shim_kernel_device(void);
cudaError_t shim_kernel_ready_smem_on(const void *kernel, int bytes, int device);

/* forgets what was loaded, lost and configured on device: the program reset it (cudaDeviceReset), and
 * its new context has none of the library's kernels yet */
void shim_kernel_forget_device(int device);

/* this thread's count of kernels passed and of kernels refused by shim_kernel_ready, for a caller to
 * tell whether a failed launch sequence was refused and whether any of it ran */
unsigned long long shim_kernel_passes(void);
unsigned long long shim_kernel_refusals(void);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/* launch() (a variant's launch sequence), or where a kernel of it was refused, fallback() (kernels
 * loaded at the device's first use) instead: if nothing of the sequence was launched, or if
 * rewrite_whole (beta == 0: the output is written whole again); else launch()'s error, the call
 * failing to the CPU, since the output may be partly written */
template <class Launch, class Fallback>
cudaError_t kernel_launch_or_fallback(Launch launch, Fallback fallback, bool rewrite_whole)
{
    const unsigned long long passes = shim_kernel_passes(), refusals = shim_kernel_refusals();
    const cudaError_t err = launch();
    if (err == cudaSuccess || shim_kernel_refusals() == refusals)
        return err;
    if (shim_kernel_passes() != passes && !rewrite_whole)
        return err;
    return fallback();
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
