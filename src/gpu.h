/* The GPU side as the host code sees it. Everything here initialises CUDA lazily, on first use,
 * and reports "not usable" (with a reason) on machines without a driver or device, and in a
 * child forked after the parent had initialised CUDA. */
#ifndef SHIM_GPU_H
#define SHIM_GPU_H

#include "problem.h"

/* 1 when a CUDA device can take work; otherwise 0 and *why says why */
int shim_gpu_usable(const char **why);

/* 1 when p points at device or managed memory. Answers 0 without touching CUDA when no CUDA
 * driver is loaded in the process (then no such pointer can exist). */
int shim_gpu_is_device_pointer(const void *p);

/* Run the problem on the GPU with shimblas's kernels, staging host operands. 0 on success. On
 * failure nothing the caller can see has changed when the output is in host memory, and *why
 * says what failed; the caller reruns on the CPU. */
int shim_gpu_sgemv(const shim_gemv_problem *p, const char **why);
int shim_gpu_sgemm(const shim_gemm_problem *p, const char **why);

#endif
