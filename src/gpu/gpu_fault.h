/* Failures on demand (SHIMBLAS_TEST_FAIL, src/util/config.h), so the tests can show what the library
 * does when the GPU fails: recompute on the CPU, or stop the program with one clear line. */
#ifndef SHIM_GPU_FAULT_H
#define SHIM_GPU_FAULT_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* before the launch-th kernel launch of a call on stream: 0 to go on; nonzero (with *why) when
 * this launch is to fail. In sticky mode it breaks the context instead (once per process) and
 * lets the call go on into the failure. */
int shim_fault_at_launch(int launch, cudaStream_t stream, const char **why);

#ifdef __cplusplus
}
#endif

#endif
