/* The GPU executor for sgemv. A in host memory streams through the staging pipeline in panels of
 * columns: in the columns form (y = A x) each panel adds its part to y on the device, in order;
 * in the rows form (y = A^T x) each panel produces its own slice of y. x and y are small: strided
 * host vectors are packed on the host, strided device vectors gathered on the device. */
#include <stdlib.h>

#include "config.h"
#include "gpu.h"
#include "gpu_internal.h"
#include "gpu_kernel_choice.h"
#include "gpu_pipeline.h"
#include "sgemv_kernels.h"
#include "tile_plan.h"
#include "vector_ops.h"

SHIM_DEFINE_RUN_KERNEL(sgemv, sgemv_kernel, "SHIMBLAS_SGEMV_KERNEL")

/* element i of a vector of n with increment inc, as reference BLAS walks it */
static size_t element(int i, int n, int inc)
{
    return inc > 0 ? (size_t)i * (size_t)inc : (size_t)(n - 1 - i) * (size_t)(-inc);
}

/* a vector operand on the device, dense: in place, gathered on the device, or (host memory) a
 * single-block cache over the vector itself or over a packed copy of it */
typedef struct vector_stage {
    const float *src;
    int n, inc, kind;
    float *packed;   /* host copy of a strided host vector */
    float *gathered; /* private device copy of a device vector */
    shim_block_cache cache;
    shim_dev_block block;
} vector_stage;

/* (the cache is large: only what vector_finish reads is cleared) */
static void vector_clear(vector_stage *v)
{
    v->packed = v->gathered = NULL;
    v->cache.slots = 0;
    v->block.ptr = NULL;
}

/* private: a device vector the kernels must not use in place (strided, or an output that several
 * launches would write: then only the finished vector reaches the caller's memory) */
static int vector_in(shim_pipeline *pl, vector_stage *v, const float *src, int n, int inc, int kind, int upload,
                     int private_copy, const char **why)
{
    v->src = src;
    v->n = n;
    v->inc = inc;
    v->kind = kind;
    if (kind == SHIM_MEM_DEVICE && inc == 1 && !private_copy) {
        v->block = (shim_dev_block){(float *)src, n, -1};
        return 0;
    }
    if (kind == SHIM_MEM_DEVICE) {
        if (shim_gpu_alloc((void **)&v->gathered, sizeof(float) * (size_t)n, shim_pipeline_compute_stream(pl),
                           why))
            return -1;
        v->block = (shim_dev_block){v->gathered, n, -1};
        return upload ? shim_gpu_fail(
                            shim_gather_vector(v->gathered, src, n, inc, shim_pipeline_compute_stream(pl)),
                            "gather", why)
                      : 0;
    }
    const float *dense = src;
    if (inc != 1) {
        v->packed = malloc(sizeof(float) * (size_t)n);
        if (!v->packed) {
            *why = "out of host memory";
            return -1;
        }
        if (upload)
            for (int i = 0; i < n; i++)
                v->packed[i] = src[element(i, n, inc)];
        dense = v->packed;
    }
    shim_matrix_ref ref = shim_matrix(dense, n, inc == 1 ? kind : SHIM_MEM_PAGEABLE);
    if (shim_cache_init(pl, &v->cache, ref, 1, n, 1, why))
        return -1;
    v->cache.scratch = v->packed != NULL;
    return shim_cache_get(pl, &v->cache, 0, 0, 0, n, 1, upload, &v->block, why);
}

/* the output goes back (into the packed copy of a strided host vector: vector_finish writes that
 * back once all went well) */
static int vector_out(shim_pipeline *pl, vector_stage *v, shim_written *written, const char **why)
{
    if (v->gathered) {
        if (shim_gpu_fail(shim_scatter_vector((float *)v->src, v->inc, v->gathered, v->n,
                                              shim_pipeline_compute_stream(pl)),
                          "scatter", why))
            return -1;
        shim_written_add(written, 0, 0, v->n, 1, 1);
        return 0;
    }
    return shim_cache_put(pl, &v->cache, &v->block, 0, 0, v->n, 1, why);
}

/* after the pipeline ended: a packed strided host vector goes back where it came from */
static void vector_finish(shim_pipeline *pl, vector_stage *v, int write_back)
{
    if (v->packed && write_back)
        for (int i = 0; i < v->n; i++)
            ((float *)v->src)[element(i, v->n, v->inc)] = v->packed[i];
    free(v->packed);
    if (v->gathered)
        shim_gpu_free(v->gathered, sizeof(float) * (size_t)v->n, shim_pipeline_compute_stream(pl));
    shim_cache_free(pl, &v->cache);
}

static int sgemv_on_current(const shim_gemv_problem *p, const shim_operands *where, shim_written *written,
                            const char **why);

/* On the device holding the device operands (the first of SHIMBLAS_DEVICES for host data); the
 * caller's current device is the same afterwards; operands on different GPUs: declined (the CPU,
 * through host copies) */
int shim_gpu_sgemv(const shim_gemv_problem *p, const shim_operands *where, shim_written *written,
                   const char **why)
{
    int saved = 0, device = -1;
    if (cudaGetDevice(&saved) != cudaSuccess)
        saved = 0;
    const void *ptrs[3] = {where->a == SHIM_MEM_DEVICE && p->alpha != 0.0f ? p->a : NULL,
                           where->b == SHIM_MEM_DEVICE && p->alpha != 0.0f ? p->x : NULL,
                           where->c == SHIM_MEM_DEVICE ? p->y : NULL};
    for (int o = 0; o < 3; o++) {
        int d = ptrs[o] ? shim_gpu_pointer_device(ptrs[o]) : -1;
        if (d >= 0 && device >= 0 && d != device) {
            *why = "operands on different GPUs: computed on the CPU through host copies";
            return SHIM_GPU_DECLINED;
        }
        if (d >= 0)
            device = d;
    }
    const int *devices;
    if (device < 0 && shim_gpu_host_devices(&devices) > 0)
        device = devices[0];
    if (device >= 0 && device != saved && shim_gpu_fail(cudaSetDevice(device), "cudaSetDevice", why))
        return -1;
    int rc = sgemv_on_current(p, where, written, why);
    if (device >= 0 && device != saved)
        cudaSetDevice(saved);
    return rc;
}

static int sgemv_on_current(const shim_gemv_problem *p, const shim_operands *where, shim_written *written,
                            const char **why)
{
    shim_gpu_thread *t = shim_gpu_thread_state(why);
    if (!t)
        return -1;
    int reads_a = p->alpha != 0.0f;
    int lenx = shim_gemv_lenx(p), leny = shim_gemv_leny(p);
    shim_matrix_ref a = shim_matrix(p->a, p->lda, reads_a ? shim_staging_kind(where->a, p->a) : SHIM_MEM_UNUSED);
    shim_panel_plan plan = {p->n, 1, 0, 0};
    if (!a.in_place && shim_plan_panels(p->m, p->n, shim_pipeline_budget(), &plan)) {
        *why = "not enough device memory for even one column of A";
        return -1;
    }
    if (shim_gpu_after_program(t, a.kind, reads_a ? shim_staging_kind(where->b, p->x) : SHIM_MEM_UNUSED,
                               shim_staging_kind(where->c, p->y), why) < 0)
        return -1;
    shim_pipeline *pl = shim_pipeline_begin(t, written);
    vector_stage x, y;
    vector_clear(&x);
    vector_clear(&y);
    shim_block_cache ca;
    ca.slots = 0;
    int rc = shim_cache_init(pl, &ca, a, plan.slots, p->m, plan.cols, why);
    rc = rc || (reads_a && vector_in(pl, &x, p->x, lenx, p->incx, shim_staging_kind(where->b, p->x), 1, 0, why));
    rc = rc || vector_in(pl, &y, p->y, leny, p->incy, shim_staging_kind(where->c, p->y), p->beta != 0.0f,
                         plan.count > 1, why);
    for (int j = 0; j < plan.count && !rc; j++) {
        int j0 = j * plan.cols, cols = plan.cols < p->n - j0 ? plan.cols : p->n - j0;
        shim_dev_block ablk = {NULL, 1, -1};
        if (reads_a)
            rc = shim_cache_get(pl, &ca, j, 0, j0, p->m, cols, 1, &ablk, why);
        /* columns form: the panel adds A[:, j0..] x[j0..] into all of y, beta only on the first;
         * rows form: the panel computes y[j0..] from all of x */
        shim_sgemv_args args = {p->trans,
                                p->m,
                                cols,
                                p->alpha,
                                p->trans || j == 0 ? p->beta : 1.0f,
                                ablk.ptr,
                                ablk.ld,
                                x.block.ptr ? x.block.ptr + (p->trans ? 0 : j0) : NULL,
                                y.block.ptr + (p->trans ? j0 : 0),
                                NULL,
                                0,
                                shim_pipeline_compute_stream(pl)};
        rc = rc || run_kernel(pl, &args, why) || shim_cache_release(pl, &ca, &ablk, why);
    }
    rc = rc || vector_out(pl, &y, written, why);
    rc = shim_pipeline_end(pl, rc, why);
    vector_finish(pl, &x, 0);
    vector_finish(pl, &y, !rc);
    shim_cache_free(pl, &ca);
    return rc ? -1 : 0;
}
