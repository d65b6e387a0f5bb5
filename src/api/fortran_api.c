/* The Fortran 77 entry points (gfortran convention: arguments by reference, the lengths of the
 * character arguments appended as size_t). They check, report through xerbla_, and translate. */
#include <stddef.h>

#include "checks.h"
#include "execute.h"
#include "problem.h"
#include "xerbla.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

SHIM_EXPORT void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a,
                        const int *lda, const float *x, const int *incx, const float *beta, float *y,
                        const int *incy, size_t trans_len)
{
    (void)trans_len;
    int info = shim_check_gemv(*trans, *m, *n, *lda, *incx, *incy);
    if (info) {
        shim_report_f77("SGEMV ", info);
        shim_count_error(SHIM_SGEMV);
        return;
    }
    shim_gemv_problem p = {shim_trans_flag(*trans), *m, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy};
    shim_sgemv(&p);
}

SHIM_EXPORT void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                        const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
                        const float *beta, float *c, const int *ldc, size_t transa_len, size_t transb_len)
{
    (void)transa_len;
    (void)transb_len;
    int info = shim_check_gemm(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
    if (info) {
        shim_report_f77("SGEMM ", info);
        shim_count_error(SHIM_SGEMM);
        return;
    }
    shim_gemm_problem p = {shim_trans_flag(*transa),
                           shim_trans_flag(*transb),
                           *m,
                           *n,
                           *k,
                           *alpha,
                           a,
                           *lda,
                           b,
                           *ldb,
                           *beta,
                           c,
                           *ldc};
    shim_sgemm(&p);
}
