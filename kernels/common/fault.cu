/* A device fault on purpose, for the tests (SHIMBLAS_TEST_FAIL=sticky): a trap is a sticky error,
 * after which every CUDA call of the process fails, as after a real out-of-bounds access. */
#include "fault.h"
#include "kernel_load.h"

static __global__ void fault_kernel()
{
    __trap();
}

extern "C" cudaError_t shim_launch_device_fault(cudaStream_t stream)
{
    SHIM_KERNEL_READY(fault_kernel);
    fault_kernel<<<1, 1, 0, stream>>>();
    return cudaGetLastError();
}
