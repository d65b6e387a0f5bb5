/* Argument checks in reference BLAS order. Each returns the Fortran info number of the first
 * bad argument (0 when all are valid); the CBLAS layer adds one for its layout argument.
 * Inline: every call runs them, most of them calls the CPU BLAS will serve. */
#ifndef SHIM_CHECKS_H
#define SHIM_CHECKS_H

#include <stdint.h>

/* 0 for 'N', 1 for 'T' or 'C' (real data: conjugate transpose is transpose), -1 otherwise;
 * either case, as lsame does */
static inline int shim_trans_flag(char c)
{
    switch (c) {
    case 'N':
    case 'n': return 0;
    case 'T':
    case 't':
    case 'C':
    case 'c': return 1;
    default: return -1;
    }
}

static inline int64_t shim_max1(int64_t v)
{
    return v > 1 ? v : 1;
}

static inline int shim_check_gemv(char trans, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy)
{
    if (shim_trans_flag(trans) < 0)
        return 1;
    if (m < 0)
        return 2;
    if (n < 0)
        return 3;
    if (lda < shim_max1(m))
        return 6;
    if (incx == 0)
        return 8;
    if (incy == 0)
        return 11;
    return 0;
}

static inline int shim_check_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda,
                                  int64_t ldb, int64_t ldc)
{
    int ta = shim_trans_flag(transa), tb = shim_trans_flag(transb);
    if (ta < 0)
        return 1;
    if (tb < 0)
        return 2;
    if (m < 0)
        return 3;
    if (n < 0)
        return 4;
    if (k < 0)
        return 5;
    if (lda < shim_max1(ta ? k : m))
        return 8;
    if (ldb < shim_max1(tb ? n : k))
        return 10;
    if (ldc < shim_max1(m))
        return 13;
    return 0;
}

#endif
