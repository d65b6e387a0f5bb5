/* The GPU side as the host code sees it. Everything here initialises CUDA lazily, on first use,
 * and reports "not usable" (with a reason) on machines without a driver or device, and in a
 * child forked after the parent had initialised CUDA. */
#ifndef SHIM_GPU_H
#define SHIM_GPU_H

#include "memory_kind.h"
#include "problem.h"
#include "written.h"

/* 1 when a CUDA device can take work; otherwise 0 and *why says why */
int shim_gpu_usable(const char **why);

/* how many devices host-data calls are spread over (SHIMBLAS_DEVICES); 1 before the probe or
 * without CUDA */
int shim_gpu_host_device_count(void);

/* One line on the GPU for the report: the device, or why there is none. probe = 0 does not
 * initialise CUDA (a process that made no GPU call is told so); snprintf's return value. */
int shim_gpu_describe(char *out, size_t len, int probe);

/* Run the problem on the GPU with shimblas's kernels, staging host operands (where: where they
 * live). 0 on success. On failure *why says what failed and *written lists the pieces of the
 * output already final in the caller's memory; the rest of the output is as the caller left it. */
#define SHIM_GPU_DECLINED 1 /* (returned instead of -1) not attempted, nothing written, *why says why:
                               the call's device operands lie on different GPUs */
int shim_gpu_sgemv(const shim_gemv_problem *p, const shim_operands *where, shim_written *written,
                   const char **why);
int shim_gpu_sgemm(const shim_gemm_problem *p, const shim_operands *where, shim_written *written,
                   const char **why);

/* A GPU call's work, its recovery included, runs between shim_gpu_enter and shim_gpu_leave, which
 * give the program back its thread as it was:
 * - the thread's stream capture mode is relaxed between them, so that while the program captures a
 *   graph (in global mode, from any thread) the library's allocations and synchronisations of its
 *   own streams are neither refused nor invalidate the program's capture;
 * - where the thread's current context is not the one the library's state on that device lives in
 *   (a program's own context, made with cuCtxCreate and current), enter waits for what the program
 *   queued on that context's blocking streams and pushes the library's context; leave pops it.
 * The scope is the calling thread's. */
typedef struct shim_gpu_scope {
    int pushed;
    int mode_set, mode; /* the capture mode to restore (an enum cudaStreamCaptureMode) */
} shim_gpu_scope;
void shim_gpu_enter(shim_gpu_scope *scope);
void shim_gpu_leave(const shim_gpu_scope *scope);

/* After a GPU failure: 1 when the CUDA context is broken (a sticky error: nothing more can be
 * copied from the device), after which the GPU is not used again; 0 when it still works (the
 * calling thread's GPU work has drained). */
int shim_gpu_context_broken(void);

/* After a GPU failure on device operands: copies the operands the call reads into host memory,
 * runs recompute there (it computes what *written does not cover) and copies the output back.
 * 0 on success, else nonzero with *why. */
typedef int (*shim_recompute_fn)(const void *problem, const shim_written *written);
int shim_gpu_recover_sgemm(const shim_gemm_problem *p, const shim_operands *where, const shim_written *written,
                           shim_recompute_fn recompute, const char **why);
int shim_gpu_recover_sgemv(const shim_gemv_problem *p, const shim_operands *where, const shim_written *written,
                           shim_recompute_fn recompute, const char **why);

#endif
