/* The BLAS names a test calls: the LP64 ones (shimblas.h) unless the build names another interface
 * of src/util/interfaces.inc (test/meson.build passes TEST_INT and the four names, generated from
 * that table), so one test source checks every interface. A test calls test_cblas_sgemm,
 * test_sgemm_ and so on, with test_int integers. */
#ifndef TEST_BLAS_NAMES_H
#define TEST_BLAS_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "shimblas.h"

#ifndef TEST_INT
#define TEST_INT int
#define TEST_CBLAS_SGEMV cblas_sgemv
#define TEST_CBLAS_SGEMM cblas_sgemm
#define TEST_SGEMV sgemv_
#define TEST_SGEMM sgemm_
#define TEST_INTERFACE "LP64"
#else
void TEST_CBLAS_SGEMV(const enum CBLAS_ORDER layout, const enum CBLAS_TRANSPOSE TransA, const TEST_INT M,
                      const TEST_INT N, const float alpha, const float *A, const TEST_INT lda, const float *X,
                      const TEST_INT incX, const float beta, float *Y, const TEST_INT incY);
void TEST_CBLAS_SGEMM(const enum CBLAS_ORDER layout, const enum CBLAS_TRANSPOSE TransA,
                      const enum CBLAS_TRANSPOSE TransB, const TEST_INT M, const TEST_INT N, const TEST_INT K,
                      const float alpha, const float *A, const TEST_INT lda, const float *B, const TEST_INT ldb,
                      const float beta, float *C, const TEST_INT ldc);
void TEST_SGEMV(const char *trans, const TEST_INT *m, const TEST_INT *n, const float *alpha, const float *a,
                const TEST_INT *lda, const float *x, const TEST_INT *incx, const float *beta, float *y,
                const TEST_INT *incy, size_t trans_len);
void TEST_SGEMM(const char *transa, const char *transb, const TEST_INT *m, const TEST_INT *n, const TEST_INT *k,
                const float *alpha, const float *a, const TEST_INT *lda, const float *b, const TEST_INT *ldb,
                const float *beta, float *c, const TEST_INT *ldc, size_t transa_len, size_t transb_len);
#endif

typedef TEST_INT test_int;
#define TEST_NAME_(name) #name
#define TEST_NAME(name) TEST_NAME_(name)
#define test_cblas_sgemv TEST_CBLAS_SGEMV
#define test_cblas_sgemm TEST_CBLAS_SGEMM
#define test_sgemv_ TEST_SGEMV
#define test_sgemm_ TEST_SGEMM

/* SHIMBLAS_TEST_PROVIDER: a library holding the interface's next definitions (a pip wheel's
 * OpenBLAS, say), loaded RTLD_LOCAL before the first call as a Python extension's would be;
 * 0 when it loaded (or, for the LP64 names, when none is named), -1 (with a line) when it cannot
 * load; exits 77 (skipped) when another interface's library is not there */
int test_load_provider(void);

#endif
