/* The CBLAS entry points: check and translate to the canonical column-major problem, nothing
 * else. A row-major call is the column-major call on the transposes, exactly as reference CBLAS
 * maps it, including which argument numbers its error exits report. */
#include "shimblas.h"

#include "checks.h"
#include "execute.h"
#include "problem.h"
#include "xerbla.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

/* the Fortran transpose character for a CBLAS transpose, flipped for row-major; 0 if invalid */
static char trans_char(int trans, int flip)
{
    switch (trans) {
    case CblasNoTrans: return flip ? 'T' : 'N';
    case CblasTrans: return flip ? 'N' : 'T';
    case CblasConjTrans: return flip ? 'N' : 'C';
    default: return 0;
    }
}

/* reference CBLAS clears both globals on every way out */
static void leave(void)
{
    CBLAS_CallFromC = 0;
    RowMajorStrg = 0;
}

static void reject(enum shim_routine routine, int info, const char *rout, const char *form, int value)
{
    shim_report_cblas(info, rout, form, value);
    shim_count_error(routine);
    leave();
}

SHIM_EXPORT void cblas_sgemv(const enum CBLAS_ORDER layout, const enum CBLAS_TRANSPOSE TransA, const int M,
                             const int N, const float alpha, const float *A, const int lda, const float *X,
                             const int incX, const float beta, float *Y, const int incY)
{
    RowMajorStrg = 0;
    CBLAS_CallFromC = 1;
    int row_major = layout == CblasRowMajor;
    if (!row_major && layout != CblasColMajor) {
        reject(SHIM_SGEMV, 1, "cblas_sgemv", "Illegal layout setting, %d\n", layout);
        return;
    }
    RowMajorStrg = row_major;
    char ta = trans_char(TransA, row_major);
    if (!ta) {
        reject(SHIM_SGEMV, 2, "cblas_sgemv", "Illegal TransA setting, %d\n", TransA);
        return;
    }
    int m = row_major ? N : M, n = row_major ? M : N;
    int info = shim_check_gemv(ta, m, n, lda, incX, incY);
    if (info) {
        reject(SHIM_SGEMV, info + 1, "cblas_sgemv", "", 0);
        return;
    }
    shim_gemv_problem p = {shim_trans_flag(ta), m, n, alpha, A, lda, X, incX, beta, Y, incY};
    shim_sgemv(&p);
    leave();
}

SHIM_EXPORT void cblas_sgemm(const enum CBLAS_ORDER layout, const enum CBLAS_TRANSPOSE TransA,
                             const enum CBLAS_TRANSPOSE TransB, const int M, const int N, const int K,
                             const float alpha, const float *A, const int lda, const float *B, const int ldb,
                             const float beta, float *C, const int ldc)
{
    RowMajorStrg = 0;
    CBLAS_CallFromC = 1;
    int row_major = layout == CblasRowMajor;
    if (!row_major && layout != CblasColMajor) {
        reject(SHIM_SGEMM, 1, "cblas_sgemm", "Illegal layout setting, %d\n", layout);
        return;
    }
    RowMajorStrg = row_major;
    char ta = trans_char(TransA, 0), tb = trans_char(TransB, 0);
    if (!ta) {
        reject(SHIM_SGEMM, 2, "cblas_sgemm", "Illegal TransA setting, %d\n", TransA);
        return;
    }
    if (!tb) {
        reject(SHIM_SGEMM, 3, "cblas_sgemm", "Illegal TransB setting, %d\n", TransB);
        return;
    }
    /* row-major: C^T = op(B)^T op(A)^T, so the Fortran call sees B first and M, N swapped */
    shim_gemm_problem p = {
        shim_trans_flag(ta), shim_trans_flag(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};
    if (row_major)
        p = (shim_gemm_problem){
            shim_trans_flag(tb), shim_trans_flag(ta), N, M, K, alpha, B, ldb, A, lda, beta, C, ldc};
    int info =
        shim_check_gemm(p.transa ? 'T' : 'N', p.transb ? 'T' : 'N', p.m, p.n, p.k, p.lda, p.ldb, p.ldc);
    if (info) {
        reject(SHIM_SGEMM, info + 1, "cblas_sgemm", "", 0);
        return;
    }
    shim_sgemm(&p);
    leave();
}
