/* SGEMM's part of the call flow: what a quick return is, and how the executors are reached. */
#include <limits.h>
#include <stdio.h>

#include "cost_model.h"
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

static void gemm_residency(const void *problem, shim_operands *out)
{
    const shim_gemm_problem *p = problem;
    int reads_inputs = p->alpha != 0.0f && p->k > 0;
    out->a = reads_inputs ? shim_memory_kind(p->a) : SHIM_MEM_UNUSED;
    out->b = reads_inputs ? shim_memory_kind(p->b) : SHIM_MEM_UNUSED;
    out->c = shim_memory_kind(p->c);
}

static int gemm_gpu(const void *problem, const shim_operands *where, shim_written *written, const char **why)
{
    return shim_gpu_sgemm(problem, where, written, why);
}

static void gemm_cpu(const void *problem)
{
    shim_cpu_sgemm(problem);
}

/* the part rows x cols of C from (r0, c0): the same product on the matching rows of op(A) and
 * columns of op(B) */
static void gemm_part(void *problem, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    shim_gemm_problem q = *(const shim_gemm_problem *)problem;
    if (q.alpha != 0.0f && q.k > 0) {
        q.a += q.transa ? r0 * q.lda : r0;
        q.b += q.transb ? c0 : c0 * q.ldb;
    }
    q.c += r0 + c0 * q.ldc;
    q.m = rows;
    q.n = cols;
    shim_cpu_sgemm(&q);
}

static int gemm_recompute(const void *problem, const shim_written *written)
{
    const shim_gemm_problem *p = problem;
    return shim_written_complement(written, p->m, p->n, gemm_part, (void *)problem);
}

static int gemm_recover_on_host(const void *problem, const shim_operands *where, const shim_written *written,
                                const char **why)
{
    return shim_gpu_recover_sgemm(problem, where, written, gemm_recompute, why);
}

static void gemm_describe(const void *problem, char *out, size_t len)
{
    const shim_gemm_problem *p = problem;
    snprintf(out, len, "%c%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld alpha=%g beta=%g",
             p->transa ? 'T' : 'N', p->transb ? 'T' : 'N', (long long)p->m, (long long)p->n, (long long)p->k,
             (long long)p->lda, (long long)p->ldb, (long long)p->ldc, p->alpha, p->beta);
}

static shim_origin gemm_origin(const void *problem)
{
    return ((const shim_gemm_problem *)problem)->origin;
}

static void gemm_shape(const void *problem, int64_t dims[3])
{
    const shim_gemm_problem *p = problem;
    dims[0] = p->m;
    dims[1] = p->n;
    dims[2] = p->k;
}

static int gemm_fits_kernels(const void *problem)
{
    const shim_gemm_problem *p = problem;
    return p->m <= INT_MAX && p->n <= INT_MAX && p->k <= INT_MAX;
}

static int gemm_worth_modelling(const void *problem)
{
    return shim_sgemm_worth_modelling(problem);
}

static void gemm_predict(const shim_cost_model *m, const void *problem, shim_staging staged, double *cpu_ms,
                         double *gpu_ms)
{
    shim_predict_sgemm(m, problem, staged, shim_gpu_host_device_count(), cpu_ms, gpu_ms);
}

static const shim_routine_ops gemm_ops = {
    .routine = SHIM_SGEMM,
    .quick_return = gemm_quick_return,
    .residency = gemm_residency,
    .scaling_only = gemm_scaling_only,
    .run_gpu = gemm_gpu,
    .run_cpu = gemm_cpu,
    .recompute = gemm_recompute,
    .recover_on_host = gemm_recover_on_host,
    .describe = gemm_describe,
    .shape = gemm_shape,
    .origin = gemm_origin,
    .fits_kernels = gemm_fits_kernels,
    .worth_modelling = gemm_worth_modelling,
    .predict = gemm_predict,
};

void shim_sgemm(const shim_gemm_problem *p)
{
    shim_execute_fast(&gemm_ops, p);
}
