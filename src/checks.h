/* Argument checks in reference BLAS order. Each returns the Fortran info number of the first
 * bad argument (0 when all are valid); the CBLAS layer adds one for its layout argument. */
#ifndef SHIM_CHECKS_H
#define SHIM_CHECKS_H

/* 0 for 'N', 1 for 'T' or 'C' (real data: conjugate transpose is transpose), -1 otherwise;
 * either case, as lsame does */
int shim_trans_flag(char c);

int shim_check_gemv(char trans, int m, int n, int lda, int incx, int incy);
int shim_check_gemm(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc);

#endif
