/* The core of every entry point: reference-order checks, the canonical column-major problem (a
 * row-major call is the column-major call on the transposes, exactly as reference CBLAS maps it,
 * including which argument numbers its error exits report), and the illegal-argument rule of the
 * call's interface. Inline: each generated entry point gets its own copy with its interface
 * constant (the hot path, src/flow/execute.h, is inlined the same way). Included by
 * src/api/entry_points.c only. */
#ifndef SHIM_CALLS_H
#define SHIM_CALLS_H

#include "api.h"


#include "shimblas.h"

#include "checks.h"
#include "execute.h"
#include "xerbla.h"

/* which interfaces report illegal arguments themselves */
static const int shim_reports_ourselves[SHIM_INTERFACES] = {
#define SHIM_ILLEGAL_OURS 1
#define SHIM_ILLEGAL_NEXT 0
#define SHIM_INTERFACE(id, prefix, integer, cblas_suffix, fortran_suffix, illegal) SHIM_ILLEGAL_##illegal,
#include "interfaces.inc"
#undef SHIM_INTERFACE
};

/* the Fortran transpose character for a CBLAS transpose, flipped for row-major; 0 if invalid */
static inline char shim_trans_char(int trans, int flip)
{
    switch (trans) {
    case CblasNoTrans: return flip ? 'T' : 'N';
    case CblasTrans: return flip ? 'N' : 'T';
    case CblasConjTrans: return flip ? 'N' : 'C';
    default: return 0;
    }
}

/* reference CBLAS clears both globals on every way out */
static inline void shim_leave(int ours)
{
    if (ours) {
        CBLAS_CallFromC = 0;
        RowMajorStrg = 0;
    }
}

static inline int shim_reject_cblas(int iface, enum shim_routine routine, int info, const char *rout, const char *form,
                        int value)
{
    shim_count_error(routine);
    if (!shim_reports_ourselves[iface])
        return SHIM_HAND_ON;
    shim_report_cblas(info, rout, form, value);
    shim_leave(1);
    return SHIM_SERVED;
}

/* The start of every CBLAS call: the CBLAS globals set as reference CBLAS sets them (when the
 * interface reports its own errors) and the layout checked, the first argument. Returns -1 to go on
 * with *row_major set, else the call's result (the layout was illegal). */
static inline int shim_cblas_enter(int iface, enum shim_routine routine, const char *rout, int layout, int *row_major)
{
    const int ours = shim_reports_ourselves[iface];
    if (ours) {
        RowMajorStrg = 0;
        CBLAS_CallFromC = 1;
    }
    *row_major = layout == CblasRowMajor;
    if (!*row_major && layout != CblasColMajor)
        return shim_reject_cblas(iface, routine, 1, rout, "Illegal layout setting, %d\n", layout);
    if (ours)
        RowMajorStrg = *row_major;
    return -1;
}

static inline int shim_api_cblas_sgemv(int iface, const shim_cblas_gemv_args *a)
{
    int row_major, entered = shim_cblas_enter(iface, SHIM_SGEMV, "cblas_sgemv", a->layout, &row_major);
    if (entered >= 0)
        return entered;
    char ta = shim_trans_char(a->trans, row_major);
    if (!ta)
        return shim_reject_cblas(iface, SHIM_SGEMV, 2, "cblas_sgemv", "Illegal TransA setting, %d\n", a->trans);
    int64_t m = row_major ? a->n : a->m, n = row_major ? a->m : a->n;
    int info = shim_check_gemv(ta, m, n, a->lda, a->incx, a->incy);
    if (info)
        return shim_reject_cblas(iface, SHIM_SGEMV, info + 1, "cblas_sgemv", "", 0);
    shim_gemv_problem p = {shim_trans_flag(ta), m,    n,       a->alpha, a->a, a->lda,        a->x,
                           a->incx,            a->beta, a->y, a->incy, {iface, 1}};
    shim_sgemv(&p);
    shim_leave(shim_reports_ourselves[iface]);
    return SHIM_SERVED;
}

static inline int shim_api_cblas_sgemm(int iface, const shim_cblas_gemm_args *a)
{
    int row_major, entered = shim_cblas_enter(iface, SHIM_SGEMM, "cblas_sgemm", a->layout, &row_major);
    if (entered >= 0)
        return entered;
    char ta = shim_trans_char(a->transa, 0), tb = shim_trans_char(a->transb, 0);
    if (!ta)
        return shim_reject_cblas(iface, SHIM_SGEMM, 2, "cblas_sgemm", "Illegal TransA setting, %d\n", a->transa);
    if (!tb)
        return shim_reject_cblas(iface, SHIM_SGEMM, 3, "cblas_sgemm", "Illegal TransB setting, %d\n", a->transb);
    /* row-major: C^T = op(B)^T op(A)^T, so the Fortran call sees B first and M, N swapped */
    shim_gemm_problem p = {shim_trans_flag(ta), shim_trans_flag(tb), a->m, a->n, a->k, a->alpha, a->a, a->lda,
                           a->b,                a->ldb,              a->beta, a->c, a->ldc, {iface, 1}};
    if (row_major)
        p = (shim_gemm_problem){shim_trans_flag(tb), shim_trans_flag(ta), a->n, a->m, a->k, a->alpha, a->b, a->ldb,
                                a->a,                a->lda,              a->beta, a->c, a->ldc, {iface, 1}};
    int info =
        shim_check_gemm(p.transa ? 'T' : 'N', p.transb ? 'T' : 'N', p.m, p.n, p.k, p.lda, p.ldb, p.ldc);
    if (info)
        return shim_reject_cblas(iface, SHIM_SGEMM, info + 1, "cblas_sgemm", "", 0);
    shim_sgemm(&p);
    shim_leave(shim_reports_ourselves[iface]);
    return SHIM_SERVED;
}

static inline int shim_reject_f77(int iface, enum shim_routine routine, const char *srname, int info)
{
    shim_count_error(routine);
    if (!shim_reports_ourselves[iface])
        return SHIM_HAND_ON;
    shim_report_f77(srname, info);
    return SHIM_SERVED;
}

static inline int shim_api_f77_sgemv(int iface, const shim_f77_gemv_args *a)
{
    int info = shim_check_gemv(a->trans, a->m, a->n, a->lda, a->incx, a->incy);
    if (info)
        return shim_reject_f77(iface, SHIM_SGEMV, "SGEMV ", info);
    shim_gemv_problem p = {shim_trans_flag(a->trans), a->m, a->n,    a->alpha, a->a, a->lda,        a->x,
                           a->incx,                   a->beta, a->y, a->incy, {iface, 0}};
    shim_sgemv(&p);
    return SHIM_SERVED;
}

static inline int shim_api_f77_sgemm(int iface, const shim_f77_gemm_args *a)
{
    int info = shim_check_gemm(a->transa, a->transb, a->m, a->n, a->k, a->lda, a->ldb, a->ldc);
    if (info)
        return shim_reject_f77(iface, SHIM_SGEMM, "SGEMM ", info);
    shim_gemm_problem p = {shim_trans_flag(a->transa), shim_trans_flag(a->transb), a->m, a->n, a->k, a->alpha, a->a,
                           a->lda,                      a->b,                       a->ldb, a->beta, a->c, a->ldc,
                           {iface, 0}};
    shim_sgemm(&p);
    return SHIM_SERVED;
}

#endif
