/* A kernel that faults on the device on purpose (SHIMBLAS_TEST_FAIL=sticky, src/gpu/gpu_fault.c). */
#ifndef SHIM_FAULT_H
#define SHIM_FAULT_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* launches it on stream; the launch's own error */
cudaError_t shim_launch_device_fault(cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
