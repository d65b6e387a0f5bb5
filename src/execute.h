/* One call's life after the argument checks, shared by every routine: quick return, dispatch,
 * the GPU executor with the CPU as its fallback, accounting. A routine supplies its ops. */
#ifndef SHIM_EXECUTE_H
#define SHIM_EXECUTE_H

#include <stddef.h>

#include "cost_model.h"
#include "stats.h"

typedef struct shim_routine_ops {
    enum shim_routine routine;
    /* nothing to do at all (reference BLAS's quick return) */
    int (*quick_return)(const void *problem);
    /* which operands the call reads or writes live in device (or managed) memory: a, b (x) and
     * c (y) of *out are 1 for those, 0 for host memory and for operands the call never touches */
    void (*residency)(const void *problem, shim_staging *out);
    /* only a beta scaling of the output is left (alpha == 0, or k == 0 for gemm) */
    int (*scaling_only)(const void *problem);
    /* 0 on success; nonzero leaves the output as it was and sets *why */
    int (*run_gpu)(const void *problem, const char **why);
    void (*run_cpu)(const void *problem);
    void (*describe)(const void *problem, char *out, size_t len);
    /* m, n, k of the call (k = 0 for sgemv): the shape class the cost model learns under */
    void (*shape)(const void *problem, int dims[3]);
    /* auto mode: could the GPU win at all (no CUDA is touched for calls that say no) */
    int (*worth_modelling)(const void *problem);
    /* auto mode: predicted milliseconds on each side; staged: the operands that would cross the bus */
    void (*predict)(const shim_cost_model *m, const void *problem, shim_staging staged, double *cpu_ms,
                    double *gpu_ms);
} shim_routine_ops;

void shim_execute(const shim_routine_ops *ops, const void *problem);
/* a call rejected by the argument checks */
void shim_count_error(enum shim_routine routine);

#endif
