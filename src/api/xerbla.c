#include "xerbla.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Weak references: bound to the program's or another library's definition if the process has
 * one, NULL otherwise. shimblas never defines these itself. */
extern void cblas_xerbla(int info, const char *rout, const char *form, ...) __attribute__((weak));
extern void xerbla_(const char *srname, const int *info, size_t srname_len) __attribute__((weak));

/* What reference cblas_xerbla does with RowMajorStrg for the routines shimblas implements:
 * the Fortran call swapped M/N (and A/B for gemm), so their numbers swap back. */
static int unswap(int info, const char *rout)
{
    static const int gemm_pairs[][2] = {{4, 5}, {9, 11}};
    static const int gemv_pairs[][2] = {{3, 4}};
    const int(*pairs)[2] = strstr(rout, "gemm") ? gemm_pairs : gemv_pairs;
    size_t n = strstr(rout, "gemm") ? 2 : 1;
    for (size_t i = 0; i < n; i++) {
        if (info == pairs[i][0])
            return pairs[i][1];
        if (info == pairs[i][1])
            return pairs[i][0];
    }
    return info;
}

void shim_report_cblas(int info, const char *rout, const char *form, int value)
{
    if (cblas_xerbla) {
        cblas_xerbla(info, rout, form, value);
        return;
    }
    if (RowMajorStrg)
        info = unswap(info, rout);
    fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
}

void shim_report_f77(const char *srname, int info)
{
    if (xerbla_) {
        xerbla_(srname, &info, strlen(srname));
        return;
    }
    fprintf(stderr, " ** On entry to %s parameter number %2d had an illegal value\n", srname, info);
}
