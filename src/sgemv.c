/* SGEMV's part of the call flow: what a quick return is, and how the executors are reached. */
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

static void gemv_residency(const void *problem, shim_staging *out)
{
    const shim_gemv_problem *p = problem;
    int reads_inputs = p->alpha != 0.0f;
    out->a = reads_inputs && shim_gpu_is_device_pointer(p->a);
    out->b = reads_inputs && shim_gpu_is_device_pointer(p->x);
    out->c = shim_gpu_is_device_pointer(p->y);
}

static int gemv_gpu(const void *problem, const char **why)
{
    return shim_gpu_sgemv(problem, why);
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

static void gemv_shape(const void *problem, int dims[3])
{
    const shim_gemv_problem *p = problem;
    int d[3] = {p->m, p->n, 0};
    dims[0] = d[0];
    dims[1] = d[1];
    dims[2] = d[2];
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
    .describe = gemv_describe,
    .shape = gemv_shape,
    .worth_modelling = gemv_worth_modelling,
    .predict = gemv_predict,
};

void shim_sgemv(const shim_gemv_problem *p)
{
    shim_execute(&gemv_ops, p);
}
