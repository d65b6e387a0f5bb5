/* The canonical problems: every entry point (CBLAS in either layout, Fortran, of every interface)
 * is reduced to one of these column-major descriptions before dispatch. Row-major never reaches
 * past here. Integers are 64-bit whatever the interface's were; the problem remembers which entry
 * point it came through, so the CPU side can call that name's own next definition. */
#ifndef SHIM_PROBLEM_H
#define SHIM_PROBLEM_H

#include <stdint.h>

/* the interfaces (src/api/interfaces.inc): which names, which integer width */
enum shim_interface {
#define SHIM_INTERFACE(id, prefix, integer, cblas_suffix, fortran_suffix, illegal) SHIM_IFACE_##id,
#include "interfaces.inc"
#undef SHIM_INTERFACE
    SHIM_INTERFACES
};

/* where a call entered: its interface and whether through the CBLAS or the Fortran name */
typedef struct shim_origin {
    int iface; /* enum shim_interface */
    int cblas; /* 1: the CBLAS name, 0: the Fortran name */
} shim_origin;

/* y := alpha * op(A) * x + beta * y; A is m x n column-major; trans: 0 = A, 1 = A^T.
 * Vectors follow reference BLAS: a negative increment walks the vector from its end, so x and y
 * point at the lowest-addressed element either way. */
typedef struct shim_gemv_problem {
    int trans;
    int64_t m, n;
    float alpha;
    const float *a;
    int64_t lda;
    const float *x;
    int64_t incx;
    float beta;
    float *y;
    int64_t incy;
    shim_origin origin;
} shim_gemv_problem;

/* C := alpha * op(A) * op(B) + beta * C; op(A) is m x k, op(B) k x n; transa/transb: 0 = N, 1 = T */
typedef struct shim_gemm_problem {
    int transa, transb;
    int64_t m, n, k;
    float alpha;
    const float *a;
    int64_t lda;
    const float *b;
    int64_t ldb;
    float beta;
    float *c;
    int64_t ldc;
    shim_origin origin;
} shim_gemm_problem;

static inline int64_t shim_gemv_leny(const shim_gemv_problem *p)
{
    return p->trans ? p->n : p->m;
}
static inline int64_t shim_gemv_lenx(const shim_gemv_problem *p)
{
    return p->trans ? p->m : p->n;
}

/* the core of each routine: quick returns, dispatch, execution, accounting */
void shim_sgemv(const shim_gemv_problem *p);
void shim_sgemm(const shim_gemm_problem *p);

#endif
