/* The arguments of the entry points' shared core. Each generated entry point
 * (src/api/entry_points.c) copies its own, whatever its integer width, into one of these and calls
 * the core (src/api/calls.h), which checks them in reference order, builds the canonical problem
 * and runs it. */
#ifndef SHIM_API_H
#define SHIM_API_H

#include <stdint.h>

#include "problem.h"

typedef struct shim_cblas_gemv_args {
    int layout, trans;
    int64_t m, n;
    float alpha;
    const float *a;
    int64_t lda;
    const float *x;
    int64_t incx;
    float beta;
    float *y;
    int64_t incy;
} shim_cblas_gemv_args;

typedef struct shim_cblas_gemm_args {
    int layout, transa, transb;
    int64_t m, n, k;
    float alpha;
    const float *a;
    int64_t lda;
    const float *b;
    int64_t ldb;
    float beta;
    float *c;
    int64_t ldc;
} shim_cblas_gemm_args;

typedef struct shim_f77_gemv_args {
    char trans;
    int64_t m, n;
    float alpha;
    const float *a;
    int64_t lda;
    const float *x;
    int64_t incx;
    float beta;
    float *y;
    int64_t incy;
} shim_f77_gemv_args;

typedef struct shim_f77_gemm_args {
    char transa, transb;
    int64_t m, n, k;
    float alpha;
    const float *a;
    int64_t lda;
    const float *b;
    int64_t ldb;
    float beta;
    float *c;
    int64_t ldc;
} shim_f77_gemm_args;

/* 0 when the call was served, or was illegal and reported as reference BLAS reports it (the
 * interface's illegal column says OURS); SHIM_HAND_ON when it was illegal and the interface hands
 * such calls to the next definition of its name (the entry point does, with its own arguments) */
enum { SHIM_SERVED = 0, SHIM_HAND_ON = 1 };
/* (the functions that take these: src/api/calls.h) */

#endif
