#include "checks.h"

int shim_trans_flag(char c)
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

static int max1(int v)
{
    return v > 1 ? v : 1;
}

int shim_check_gemv(char trans, int m, int n, int lda, int incx, int incy)
{
    if (shim_trans_flag(trans) < 0)
        return 1;
    if (m < 0)
        return 2;
    if (n < 0)
        return 3;
    if (lda < max1(m))
        return 6;
    if (incx == 0)
        return 8;
    if (incy == 0)
        return 11;
    return 0;
}

int shim_check_gemm(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc)
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
    if (lda < max1(ta ? k : m))
        return 8;
    if (ldb < max1(tb ? n : k))
        return 10;
    if (ldc < max1(m))
        return 13;
    return 0;
}
