/* SGEMM's part of the call flow: what a quick return is, and how the executors are reached. */
#include <stdio.h>

#include "cpu_blas.h"
#include "execute.h"
#include "gpu.h"
#include "problem.h"

static int gemm_quick_return(const void *problem)
{
    const shim_gemm_problem *p = problem;
    return p->m == 0 || p->n == 0 || ((p->alpha == 0.0f || p->k == 0) && p->beta == 1.0f);
}

static int gemm_scaling_only(const void *problem)
{
    const shim_gemm_problem *p = problem;
    return p->alpha == 0.0f || p->k == 0;
}

static int gemm_gpu(const void *problem, const char **why)
{
    (void)problem;
    *why = "no GPU executor in this build";
    return -1;
}

static void gemm_cpu(const void *problem)
{
    shim_cpu_sgemm(problem);
}

static void gemm_describe(const void *problem, char *out, size_t len)
{
    const shim_gemm_problem *p = problem;
    snprintf(out, len, "%c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g", p->transa ? 'T' : 'N',
             p->transb ? 'T' : 'N', p->m, p->n, p->k, p->lda, p->ldb, p->ldc, p->alpha, p->beta);
}

static const shim_routine_ops gemm_ops = {SHIM_SGEMM, gemm_quick_return, gemm_scaling_only,
                                          gemm_gpu,   gemm_cpu,          gemm_describe};

void shim_sgemm(const shim_gemm_problem *p)
{
    shim_execute(&gemm_ops, p);
}
