/* Programmatic dependent launch (compute capability 9.0 and later), shared by the kernels whose
 * second pass reads what the first wrote (sgemv's split finish, sgemm's split-K reduction, sgemm's
 * pipelined kernels after transpose_first's copies).
 * The first kernel calls allow_dependents() (at its start, or as its blocks end where the second's
 * blocks must not be placed among its own): the second, launched after it on the same stream by
 * launch_dependent(), may then be placed on the GPU while the first still runs.
 * The second calls wait_for_primary() before it reads anything the first wrote: from there on the
 * first kernel has completed and its writes are visible. Launched without the attribute (a device
 * or driver that refuses it) both are no-ops and stream order alone orders the two. */
#ifndef SHIM_DEPENDENT_LAUNCH_CUH
#define SHIM_DEPENDENT_LAUNCH_CUH

#include <cuda_runtime.h>

#include "kernel_load.h"
__device__ __forceinline__ void allow_dependents()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void wait_for_primary()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* kernel<<<grid, block, smem, stream>>>(args...) as a programmatic dependent of the kernel before
 * it on stream; an ordinary launch where the attribute is refused. Returns the launch's error (or
 * the kernel's refusal, kernel_load.h), and leaves no error behind for the caller's next check. */
template <typename... Params, typename... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                             cudaStream_t stream, Args... args)
{
    SHIM_KERNEL_READY(kernel);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cudaError_t err = cudaLaunchKernelEx(&cfg, kernel, args...);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        cfg.numAttrs = 0;
        err = cudaLaunchKernelEx(&cfg, kernel, args...);
        if (err != cudaSuccess)
            (void)cudaGetLastError();
    }
    return err;
}

#endif
