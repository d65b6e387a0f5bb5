/* The canonical problems: every entry point (CBLAS in either layout, Fortran) is reduced to one
 * of these column-major descriptions before dispatch. Row-major never reaches past here. */
#ifndef SHIM_PROBLEM_H
#define SHIM_PROBLEM_H

/* y := alpha * op(A) * x + beta * y; A is m x n column-major; trans: 0 = A, 1 = A^T.
 * Vectors follow reference BLAS: a negative increment walks the vector from its end, so x and y
 * point at the lowest-addressed element either way. */
typedef struct shim_gemv_problem {
    int trans;
    int m, n;
    float alpha;
    const float *a;
    int lda;
    const float *x;
    int incx;
    float beta;
    float *y;
    int incy;
} shim_gemv_problem;

/* C := alpha * op(A) * op(B) + beta * C; op(A) is m x k, op(B) k x n; transa/transb: 0 = N, 1 = T */
typedef struct shim_gemm_problem {
    int transa, transb;
    int m, n, k;
    float alpha;
    const float *a;
    int lda;
    const float *b;
    int ldb;
    float beta;
    float *c;
    int ldc;
} shim_gemm_problem;

static inline int shim_gemv_leny(const shim_gemv_problem *p)
{
    return p->trans ? p->n : p->m;
}
static inline int shim_gemv_lenx(const shim_gemv_problem *p)
{
    return p->trans ? p->m : p->n;
}

/* the core of each routine: quick returns, dispatch, execution, accounting */
void shim_sgemv(const shim_gemv_problem *p);
void shim_sgemm(const shim_gemm_problem *p);

#endif
