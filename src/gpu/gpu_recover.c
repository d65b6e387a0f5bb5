/* After the GPU failed a call on device operands while the CUDA context still works: the regions
 * the call reads are copied into host memory, the CPU BLAS computes there what the GPU left
 * undone, and the output region is copied back. What the GPU had finished is part of the output
 * copied down, so it goes back unchanged. */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "gpu.h"
#include "gpu_internal.h"

typedef struct mirror {
    float *host; /* the host copy, or the caller's own pointer for host memory */
    int owned;
} mirror;

/* A copy between device and host memory, rows of `width` bytes. On the legacy default stream,
 * which orders it after everything the program queued on its blocking streams; but while the
 * program captures a graph on a blocking stream the legacy stream may not be touched (its use would
 * spoil the capture), and the copy goes on the library's own stream (whose call, if it got that far,
 * was ordered with nothing of the program's either: shim_gpu_after_program). */
static int copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows,
                     const char *what, const char **why)
{
    if (shim_gpu_legacy_usable())
        return shim_gpu_fail(rows == 1 ? cudaMemcpy(dst, src, width, cudaMemcpyDefault)
                                       : cudaMemcpy2D(dst, dpitch, src, spitch, width, rows, cudaMemcpyDefault),
                             what, why);
    if (rows == 1)
        dpitch = spitch = width;
    shim_gpu_thread *t = shim_gpu_thread_state(why);
    return !t || shim_gpu_fail(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDefault, t->stream),
                               what, why) ||
           shim_gpu_fail(cudaStreamSynchronize(t->stream), what, why);
}

/* rows x cols with leading dimension ld, as a host matrix (*ld_out is its leading dimension) */
static int matrix_down(mirror *m, const float *src, int64_t ld, int64_t rows, int64_t cols, enum shim_memory_kind kind,
                       int64_t *ld_out, const char **why)
{
    m->host = (float *)src;
    m->owned = 0;
    *ld_out = ld;
    if (kind != SHIM_MEM_DEVICE)
        return 0;
    m->host = malloc(sizeof(float) * (size_t)rows * (size_t)cols + sizeof(float));
    if (!m->host) {
        *why = "out of host memory for a copy of the operands";
        return -1;
    }
    m->owned = 1;
    *ld_out = rows;
    if (ld == rows || cols == 1) /* contiguous (a packed matrix, a unit-stride vector): one plain copy */
        return copy_rows(m->host, 0, src, 0, sizeof(float) * (size_t)rows * (size_t)cols, 1,
                         "copying an operand from the device", why);
    return copy_rows(m->host, sizeof(float) * (size_t)rows, src, sizeof(float) * (size_t)ld,
                     sizeof(float) * (size_t)rows, (size_t)cols, "copying an operand from the device", why);
}

/* a vector of n entries with increment inc (from its lowest-addressed entry) as a host vector:
 * a device vector's entries are packed, so *inc_out becomes 1 or -1 */
static int vector_down(mirror *m, const float *src, int64_t n, int64_t inc, enum shim_memory_kind kind, int64_t *inc_out,
                       const char **why)
{
    int64_t step = inc < 0 ? -(int64_t)inc : inc, ld;
    *inc_out = inc;
    if (kind == SHIM_MEM_DEVICE)
        *inc_out = inc < 0 ? -1 : 1;
    return matrix_down(m, src, step, 1, n, kind, &ld, why);
}

static void release(mirror *m)
{
    if (m->owned)
        free(m->host);
}

int shim_gpu_recover_sgemm(const shim_gemm_problem *p, const shim_operands *where, const shim_written *written,
                           shim_recompute_fn recompute, const char **why)
{
    shim_gemm_problem q = *p;
    mirror a = {0}, b = {0}, c = {0};
    int64_t lda = p->lda, ldb = p->ldb, ldc = p->ldc;
    int64_t ar = p->transa ? p->k : p->m, ac = p->transa ? p->m : p->k;
    int64_t br = p->transb ? p->n : p->k, bc = p->transb ? p->k : p->n;
    int rc = 0;
    if (where->a != SHIM_MEM_UNUSED)
        rc = matrix_down(&a, p->a, p->lda, ar, ac, where->a, &lda, why);
    if (!rc && where->b != SHIM_MEM_UNUSED)
        rc = matrix_down(&b, p->b, p->ldb, br, bc, where->b, &ldb, why);
    rc = rc || matrix_down(&c, p->c, p->ldc, p->m, p->n, where->c, &ldc, why);
    if (!rc) {
        q.a = a.host ? a.host : p->a;
        q.b = b.host ? b.host : p->b;
        q.c = c.host;
        q.lda = lda;
        q.ldb = ldb;
        q.ldc = ldc;
        if (recompute(&q, written) != 0) {
            *why = "out of host memory";
            rc = -1;
        }
    }
    if (!rc && c.owned)
        rc = copy_rows(p->c, sizeof(float) * (size_t)p->ldc, c.host, sizeof(float) * (size_t)ldc,
                       sizeof(float) * (size_t)p->m, (size_t)p->n, "copying the result to the device", why);
    release(&a);
    release(&b);
    release(&c);
    return rc;
}

int shim_gpu_recover_sgemv(const shim_gemv_problem *p, const shim_operands *where, const shim_written *written,
                           shim_recompute_fn recompute, const char **why)
{
    shim_gemv_problem q = *p;
    mirror a = {0}, x = {0}, y = {0};
    int64_t lda = p->lda;
    int64_t lenx = shim_gemv_lenx(p), leny = shim_gemv_leny(p);
    int64_t stepy = p->incy < 0 ? -(int64_t)p->incy : p->incy;
    int rc = 0;
    if (where->a != SHIM_MEM_UNUSED)
        rc = matrix_down(&a, p->a, p->lda, p->m, p->n, where->a, &lda, why);
    if (!rc && where->b != SHIM_MEM_UNUSED)
        rc = vector_down(&x, p->x, lenx, p->incx, where->b, &q.incx, why);
    rc = rc || vector_down(&y, p->y, leny, p->incy, where->c, &q.incy, why);
    if (!rc) {
        q.a = a.host ? a.host : p->a;
        q.x = x.host ? x.host : p->x;
        q.y = y.host;
        q.lda = lda;
        if (recompute(&q, written) != 0) {
            *why = "out of host memory";
            rc = -1;
        }
    }
    /* only y's own entries go back, never the gaps of a strided y */
    if (!rc && y.owned)
        rc = stepy == 1 ? copy_rows(p->y, 0, y.host, 0, sizeof(float) * (size_t)leny, 1,
                                    "copying the result to the device", why)
                        : copy_rows(p->y, sizeof(float) * (size_t)stepy, y.host, sizeof(float), sizeof(float),
                                    (size_t)leny, "copying the result to the device", why);
    release(&a);
    release(&x);
    release(&y);
    return rc;
}
