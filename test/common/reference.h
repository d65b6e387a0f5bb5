/* Test helpers shared by every correctness test: random data, poisoning, and the float64
 * reference for gemv / gemm on the canonical column-major problem. */
#ifndef SHIM_TEST_REFERENCE_H
#define SHIM_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64 stream; every test seeds from SHIMBLAS_TEST_SEED or the clock and prints the seed */
uint64_t test_seed(void);
float test_uniform(uint64_t *state); /* in [-1, 1) */
void test_fill(float *p, size_t n, uint64_t *state);
/* a quiet NaN with a recognisable payload: an output still holding it was never written */
float test_poison(void);
void test_fill_poison(float *p, size_t n);
int test_is_poison(float v);

/* y := alpha*op(A)*x + beta*y in float64, reference BLAS semantics (incx/incy may be negative,
 * beta == 0 does not read y). ybound receives |alpha|*|op(A)|*|x| + |beta*y| per element
 * for the error bound. A is column-major m x n. */
void ref_sgemv(int trans, int m, int n, float alpha, const float *a, int64_t lda, const float *x,
               int64_t incx, float beta, const float *y, int64_t incy, double *yref, double *ybound);

/* C := alpha*op(A)*op(B) + beta*C in float64, column-major; cref/cbound are m x n with ld m */
void ref_sgemm(int transa, int transb, int m, int n, int k, float alpha, const float *a, int64_t lda,
               const float *b, int64_t ldb, float beta, const float *c, int64_t ldc, double *cref,
               double *cbound);

/* componentwise check: |got - ref| <= tol_factor * (terms + 2) * FLT_EPSILON * bound + tiny.
 * Returns the number of failing elements and prints the first few under label. */
long test_compare(const char *label, const float *got, int64_t inc, const double *ref,
                  const double *bound, long count, int terms, double tol_factor);

#endif
