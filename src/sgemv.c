/* SGEMV's part of the call flow: what a quick return is, and how the executors are reached. */
#include <stdio.h>

#include "cpu_blas.h"
#include "execute.h"
#include "gpu.h"
#include "problem.h"

static int gemv_quick_return(const void *problem)
{
    const shim_gemv_problem *p = problem;
    return p->m == 0 || p->n == 0 || (p->alpha == 0.0f && p->beta == 1.0f);
}

static int gemv_scaling_only(const void *problem)
{
    return ((const shim_gemv_problem *)problem)->alpha == 0.0f;
}

static int gemv_gpu(const void *problem, const char **why)
{
    (void)problem;
    *why = "no GPU executor in this build";
    return -1;
}

static void gemv_cpu(const void *problem)
{
    shim_cpu_sgemv(problem);
}

static void gemv_describe(const void *problem, char *out, size_t len)
{
    const shim_gemv_problem *p = problem;
    snprintf(out, len, "%c m=%d n=%d lda=%d incx=%d incy=%d alpha=%g beta=%g", p->trans ? 'T' : 'N', p->m,
             p->n, p->lda, p->incx, p->incy, p->alpha, p->beta);
}

static const shim_routine_ops gemv_ops = {SHIM_SGEMV, gemv_quick_return, gemv_scaling_only,
                                          gemv_gpu,   gemv_cpu,          gemv_describe};

void shim_sgemv(const shim_gemv_problem *p)
{
    shim_execute(&gemv_ops, p);
}
