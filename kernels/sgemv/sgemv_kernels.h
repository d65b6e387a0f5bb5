/* SGEMV kernel family: the canonical problem the GPU executor hands over, and the registry of
 * variants. Host code (C) and device code (CUDA) both include this header. */
#ifndef SHIM_SGEMV_KERNELS_H
#define SHIM_SGEMV_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y := alpha * op(A) * x + beta * y on device memory, A column-major m x n (m, n >= 1).
 *   trans == 0: op(A) = A,   x has n entries, y has m.  A's columns are contiguous: "columns" form.
 *   trans == 1: op(A) = A^T, x has m entries, y has n.  Each output reduces one contiguous
 *               column of A: "rows" form (the row-major NoTrans case lands here).
 * x and y are contiguous (unit stride; the executor packs strided vectors) but need not be
 * 16-byte aligned; neither need A or lda be. beta == 0: y is written, never read.
 * alpha == 0: A and x are not read. */
typedef struct shim_sgemv_args {
    int trans;
    int m, n;
    float alpha, beta;
    const float *a;
    int64_t lda;
    const float *x;
    float *y;
    void *work; /* device scratch of at least shim_sgemv_work_bytes() bytes */
    size_t work_bytes;
    cudaStream_t stream;
} shim_sgemv_args;

enum shim_sgemv_form { SHIM_SGEMV_COLUMNS = 0, SHIM_SGEMV_ROWS = 1 };

typedef struct shim_sgemv_variant {
    const char *name;    /* what SHIMBLAS_SGEMV_KERNEL names */
    const char *summary; /* one line for listings and benchmark tables */
    int form;            /* enum shim_sgemv_form: which trans it serves */
    /* nonzero when the variant computes p correctly (its form, its shape limits) */
    int (*accepts)(const shim_sgemv_args *p);
    /* device scratch the variant needs for p, in bytes (0 for most) */
    size_t (*work_bytes)(const shim_sgemv_args *p);
    /* enqueue on p->stream; alpha != 0 is guaranteed; returns the launch's error */
    cudaError_t (*launch)(const shim_sgemv_args *p);
} shim_sgemv_variant;

/* every registered variant, in ladder order */
const shim_sgemv_variant *shim_sgemv_variants(int *count);
/* NULL when no variant has that name */
const shim_sgemv_variant *shim_sgemv_find(const char *name);
/* the variant the library uses for p (never NULL for a valid p) */
const shim_sgemv_variant *shim_sgemv_select(const shim_sgemv_args *p);
size_t shim_sgemv_work_bytes(const shim_sgemv_variant *v, const shim_sgemv_args *p);
/* runs v on p, including the alpha == 0 rule (y := beta * y without touching A or x); where the
 * device has no memory to load a kernel of v's, the baseline of p's form (rows_warp or
 * cols_thread) instead (kernels/common/kernel_load.h) */
cudaError_t shim_sgemv_run(const shim_sgemv_variant *v, const shim_sgemv_args *p);
/* loads on the current device the kernels of those baselines and of y := beta * y (as
 * shim_sgemm_preload); cudaSuccess once they are loaded */
cudaError_t shim_sgemv_preload(void);

#ifdef __cplusplus
}
#endif

#endif
