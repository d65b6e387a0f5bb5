/* One call's life after the argument checks, shared by every routine: quick return, dispatch,
 * the GPU executor with the CPU as its fallback, accounting. A routine supplies its ops. */
#ifndef SHIM_EXECUTE_H
#define SHIM_EXECUTE_H

#include <stddef.h>

#include "config.h"
#include "cost_model.h"
#include "cpu_blas.h"
#include "memory_kind.h"
#include "stats.h"
#include "written.h"

typedef struct shim_routine_ops {
    enum shim_routine routine;
    /* nothing to do at all (reference BLAS's quick return) */
    int (*quick_return)(const void *problem);
    /* where the operands live (shim_memory_kind: cheap, host memory needs no driver query) */
    void (*residency)(const void *problem, shim_operands *out);
    /* only a beta scaling of the output is left (alpha == 0, or k == 0 for gemm) */
    int (*scaling_only)(const void *problem);
    /* 0 on success. On failure *why says why and *written lists the pieces of the output that
     * are final in the caller's memory; everything else of the output is as the caller left it */
    int (*run_gpu)(const void *problem, const shim_operands *where, shim_written *written, const char **why);
    void (*run_cpu)(const void *problem);
    /* after a failed GPU call: computes on the CPU BLAS what *written does not cover, with the
     * operands in host memory (device operands were copied down first); 0 on success */
    int (*recompute)(const void *problem, const shim_written *written);
    /* device operands: runs recompute on host copies of them and copies the output back; 0 on
     * success, nonzero (with *why) when the device cannot give the operands back */
    int (*recover_on_host)(const void *problem, const shim_operands *where, const shim_written *written,
                           const char **why);
    void (*describe)(const void *problem, char *out, size_t len);
    /* m, n, k of the call (k = 0 for sgemv): the shape class the cost model learns under */
    void (*shape)(const void *problem, int64_t dims[3]);
    /* the interface and name the call came through */
    shim_origin (*origin)(const void *problem);
    /* the GPU side counts rows, columns, k and increments in 32 bits (offsets and leading
     * dimensions in 64): 1 when every one of them fits */
    int (*fits_kernels)(const void *problem);
    /* auto mode: could the GPU win at all (no CUDA is touched for calls that say no) */
    int (*worth_modelling)(const void *problem);
    /* auto mode: predicted milliseconds on each side; staged: the operands that would cross the bus */
    void (*predict)(const shim_cost_model *m, const void *problem, shim_staging staged, double *cpu_ms,
                    double *gpu_ms);
} shim_routine_ops;

/* the full path; where: the operands' kinds when the caller already asked, else NULL */
void shim_execute(const shim_routine_ops *ops, const void *problem, const shim_operands *where);

/* The hot path, inlined into each routine's entry with its constant ops so the compiler sees
 * through them: a call that stays on the CPU BLAS because it is too small for the GPU (auto mode)
 * or because the mode says so pays a few loads and compares, the CPU BLAS call and a counter; with
 * a CUDA driver in the process also the operands' kinds (src/gpu/memory_kind.c). Anything else (device
 * operands, a trace, gpu mode, recursion from the CPU BLAS) goes to shim_execute's full path.
 * docs/notes/call_overhead.md has the measurements. */
static inline void shim_execute_fast(const shim_routine_ops *ops, const void *problem)
{
    int fast = atomic_load_explicit(&shim_fast_path, memory_order_relaxed);
    if (fast == SHIM_FAST_NONE || shim_cpu_guard_active() || ops->quick_return(problem) ||
        (fast == SHIM_FAST_AUTO && ops->worth_modelling(problem))) {
        shim_execute(ops, problem, NULL);
        return;
    }
    if (!shim_no_cuda_driver()) {
        shim_operands where;
        ops->residency(problem, &where);
        if (where.a == SHIM_MEM_DEVICE || where.b == SHIM_MEM_DEVICE || where.c == SHIM_MEM_DEVICE) {
            shim_execute(ops, problem, &where);
            return;
        }
    }
    ops->run_cpu(problem);
    shim_stats_count(ops->routine, ops->scaling_only(problem) ? SHIM_TRIVIAL : SHIM_CPU);
}
/* a call rejected by the argument checks */
void shim_count_error(enum shim_routine routine);

#endif
