/* One call of each kind of GPU work a CUDA program can cause, for the tests of what happens around
 * the calls (a reset device, a context of the program's own): device-operand sgemm (column-major NN,
 * and row-major TN with beta), a strided device-operand sgemv, host-operand sgemm and sgemv (staged
 * through pinned buffers). Each checked against float64 and by the counters (tc_judge_gpu with
 * expect), tallied in t. */
#ifndef SHIM_TEST_GPU_CALLS_H
#define SHIM_TEST_GPU_CALLS_H

#include <stdint.h>

#include "blas_cases.h"

void tc_gpu_calls(tc_tally *t, uint64_t *rng, int expect);

#endif
