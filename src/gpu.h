/* The GPU side as the host code sees it. Everything here initialises CUDA lazily, on first use,
 * and reports "not usable" (with a reason) on machines without a driver or device, and in a
 * child forked after the parent had initialised CUDA. */
#ifndef SHIM_GPU_H
#define SHIM_GPU_H

#include "problem.h"

/* 1 when a CUDA device can take work; otherwise 0 and *why says why */
int shim_gpu_usable(const char **why);

#endif
