/* SGEMV's part of the call flow: what a quick return is, and how the executors are reached. */
#include <limits.h>
#include <stdio.h>

#include "cost_model.h"
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

static void gemv_residency(const void *problem, shim_operands *out)
{
    const shim_gemv_problem *p = problem;
    int reads_inputs = p->alpha != 0.0f;
    out->a = reads_inputs ? shim_memory_kind(p->a) : SHIM_MEM_UNUSED;
    out->b = reads_inputs ? shim_memory_kind(p->x) : SHIM_MEM_UNUSED;
    out->c = shim_memory_kind(p->y);
}

static int gemv_gpu(const void *problem, const shim_operands *where, shim_written *written, const char **why)
{
    return shim_gpu_sgemv(problem, where, written, why);
}

static void gemv_cpu(const void *problem)
{
    shim_cpu_sgemv(problem);
}

/* entries r0 .. r0 + rows - 1 of y (a leny x 1 output, in the order reference BLAS walks y): the
 * same product on the matching rows of op(A) */
static void gemv_part(void *problem, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    (void)c0;
    (void)cols;
    shim_gemv_problem q = *(const shim_gemv_problem *)problem;
    int64_t leny = shim_gemv_leny(&q), incy = q.incy < 0 ? -(int64_t)q.incy : q.incy;
    /* y points at its lowest-addressed entry: with a negative increment that is the last one */
    q.y += (q.incy > 0 ? r0 : leny - r0 - rows) * incy;
    if (q.alpha != 0.0f)
        q.a += q.trans ? r0 * q.lda : r0;
    if (q.trans)
        q.n = rows;
    else
        q.m = rows;
    shim_cpu_sgemv(&q);
}

static int gemv_recompute(const void *problem, const shim_written *written)
{
    const shim_gemv_problem *p = problem;
    return shim_written_complement(written, shim_gemv_leny(p), 1, gemv_part, (void *)problem);
}

static int gemv_recover_on_host(const void *problem, const shim_operands *where, const shim_written *written,
                                const char **why)
{
    return shim_gpu_recover_sgemv(problem, where, written, gemv_recompute, why);
}

static void gemv_describe(const void *problem, char *out, size_t len)
{
    const shim_gemv_problem *p = problem;
    snprintf(out, len, "%c m=%lld n=%lld lda=%lld incx=%lld incy=%lld alpha=%g beta=%g", p->trans ? 'T' : 'N',
             (long long)p->m, (long long)p->n, (long long)p->lda, (long long)p->incx, (long long)p->incy, p->alpha,
             p->beta);
}

static shim_origin gemv_origin(const void *problem)
{
    return ((const shim_gemv_problem *)problem)->origin;
}

static void gemv_shape(const void *problem, int64_t dims[3])
{
    const shim_gemv_problem *p = problem;
    dims[0] = p->m;
    dims[1] = p->n;
    dims[2] = 0;
}

static int gemv_fits_kernels(const void *problem)
{
    const shim_gemv_problem *p = problem;
    return p->m <= INT_MAX && p->n <= INT_MAX && p->incx <= INT_MAX && p->incx >= -INT_MAX &&
           p->incy <= INT_MAX && p->incy >= -INT_MAX;
}

static int gemv_worth_modelling(const void *problem)
{
    return shim_sgemv_worth_modelling(problem);
}

static void gemv_predict(const shim_cost_model *m, const void *problem, shim_staging staged, double *cpu_ms,
                         double *gpu_ms)
{
    shim_predict_sgemv(m, problem, staged, cpu_ms, gpu_ms);
}

static const shim_routine_ops gemv_ops = {
    .routine = SHIM_SGEMV,
    .quick_return = gemv_quick_return,
    .residency = gemv_residency,
    .scaling_only = gemv_scaling_only,
    .run_gpu = gemv_gpu,
    .run_cpu = gemv_cpu,
    .recompute = gemv_recompute,
    .recover_on_host = gemv_recover_on_host,
    .describe = gemv_describe,
    .shape = gemv_shape,
    .origin = gemv_origin,
    .fits_kernels = gemv_fits_kernels,
    .worth_modelling = gemv_worth_modelling,
    .predict = gemv_predict,
};

void shim_sgemv(const shim_gemv_problem *p)
{
    shim_execute_fast(&gemv_ops, p);
}
