/* Every exported SGEMV and SGEMM entry point, generated from the table of interfaces
 * (src/util/interfaces.inc): per interface a CBLAS and a Fortran name for each routine, with that
 * interface's integer type. Each only copies its arguments for the core (src/api/calls.h); an
 * illegal call of an interface that hands those on goes to the next definition of the same name,
 * with the caller's own arguments. */
#include <stddef.h>
#include <stdint.h>

#include "shimblas.h"

#include "calls.h"
#include "cpu_blas.h"
#include "stats.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

#define CBLAS_NAME(prefix, routine, suffix) prefix##cblas_##routine##suffix
#define F77_NAME(prefix, routine, suffix) prefix##routine##_##suffix

#define ENTRY_POINTS(id, prefix, integer, cblas_suffix, fortran_suffix)                                             \
    SHIM_EXPORT void CBLAS_NAME(prefix, sgemv, cblas_suffix)(                                                       \
        const enum CBLAS_ORDER layout, const enum CBLAS_TRANSPOSE TransA, const integer M, const integer N,         \
        const float alpha, const float *A, const integer lda, const float *X, const integer incX, const float beta, \
        float *Y, const integer incY)                                                                               \
    {                                                                                                               \
        shim_cblas_gemv_args a = {layout, TransA, M, N, alpha, A, lda, X, incX, beta, Y, incY};                     \
        if (shim_api_cblas_sgemv(SHIM_IFACE_##id, &a) == SHIM_HAND_ON) {                                            \
            void (*next)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, integer, integer, float, const float *, integer,   \
                         const float *, integer, float, float *, integer) =                                         \
                shim_cpu_next_definition((shim_origin){SHIM_IFACE_##id, 1}, SHIM_SGEMV);                            \
            next(layout, TransA, M, N, alpha, A, lda, X, incX, beta, Y, incY);                                      \
        }                                                                                                           \
    }                                                                                                               \
                                                                                                                    \
    SHIM_EXPORT void CBLAS_NAME(prefix, sgemm, cblas_suffix)(                                                       \
        const enum CBLAS_ORDER layout, const enum CBLAS_TRANSPOSE TransA, const enum CBLAS_TRANSPOSE TransB,        \
        const integer M, const integer N, const integer K, const float alpha, const float *A, const integer lda,     \
        const float *B, const integer ldb, const float beta, float *C, const integer ldc)                           \
    {                                                                                                               \
        shim_cblas_gemm_args a = {layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};            \
        if (shim_api_cblas_sgemm(SHIM_IFACE_##id, &a) == SHIM_HAND_ON) {                                            \
            void (*next)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, integer, integer, integer,   \
                         float, const float *, integer, const float *, integer, float, float *, integer) =          \
                shim_cpu_next_definition((shim_origin){SHIM_IFACE_##id, 1}, SHIM_SGEMM);                            \
            next(layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                             \
        }                                                                                                           \
    }                                                                                                               \
                                                                                                                    \
    SHIM_EXPORT void F77_NAME(prefix, sgemv, fortran_suffix)(                                                       \
        const char *trans, const integer *m, const integer *n, const float *alpha, const float *a,                  \
        const integer *lda, const float *x, const integer *incx, const float *beta, float *y, const integer *incy,  \
        size_t trans_len)                                                                                           \
    {                                                                                                               \
        shim_f77_gemv_args p = {*trans, *m, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy};                        \
        if (shim_api_f77_sgemv(SHIM_IFACE_##id, &p) == SHIM_HAND_ON) {                                              \
            void (*next)(const char *, const integer *, const integer *, const float *, const float *,              \
                         const integer *, const float *, const integer *, const float *, float *, const integer *,  \
                         size_t) = shim_cpu_next_definition((shim_origin){SHIM_IFACE_##id, 0}, SHIM_SGEMV);         \
            next(trans, m, n, alpha, a, lda, x, incx, beta, y, incy, trans_len);                                    \
        }                                                                                                           \
    }                                                                                                               \
                                                                                                                    \
    SHIM_EXPORT void F77_NAME(prefix, sgemm, fortran_suffix)(                                                       \
        const char *transa, const char *transb, const integer *m, const integer *n, const integer *k,               \
        const float *alpha, const float *a, const integer *lda, const float *b, const integer *ldb,                 \
        const float *beta, float *c, const integer *ldc, size_t transa_len, size_t transb_len)                      \
    {                                                                                                               \
        shim_f77_gemm_args p = {*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc};            \
        if (shim_api_f77_sgemm(SHIM_IFACE_##id, &p) == SHIM_HAND_ON) {                                              \
            void (*next)(const char *, const char *, const integer *, const integer *, const integer *,             \
                         const float *, const float *, const integer *, const float *, const integer *,             \
                         const float *, float *, const integer *, size_t, size_t) =                                 \
                shim_cpu_next_definition((shim_origin){SHIM_IFACE_##id, 0}, SHIM_SGEMM);                            \
            next(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len);             \
        }                                                                                                           \
    }

#define SHIM_INTERFACE(id, prefix, integer, cblas_suffix, fortran_suffix, illegal)                                  \
    ENTRY_POINTS(id, prefix, integer, cblas_suffix, fortran_suffix)
#include "interfaces.inc"
#undef SHIM_INTERFACE
