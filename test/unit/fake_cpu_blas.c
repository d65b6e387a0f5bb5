/* A minimal CPU BLAS of the kind that calls its own routines through the dynamic linker: its
 * sgemm_ is built from sgemv_ calls. With shimblas loaded, those inner sgemv_ calls land in
 * shimblas's sgemv_ first; shimblas must send them straight back here (never to the GPU, never in
 * a loop). Counters let the test see where the inner calls went. */
#include <stddef.h>

__attribute__((visibility("default"))) int fake_blas_sgemv_calls;
__attribute__((visibility("default"))) int fake_blas_sgemm_calls;

void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a, const int *lda,
            const float *x, const int *incx, const float *beta, float *y, const int *incy, size_t len);

/* column-major, unit or positive increments are all this test uses */
__attribute__((visibility("default"))) void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a, const int *lda,
            const float *x, const int *incx, const float *beta, float *y, const int *incy, size_t len)
{
    (void)len;
    fake_blas_sgemv_calls++;
    int t = *trans == 'T' || *trans == 't' || *trans == 'C' || *trans == 'c';
    int leny = t ? *n : *m, lenx = t ? *m : *n;
    for (int i = 0; i < leny; i++) {
        float s = 0;
        for (int j = 0; j < lenx; j++)
            s += (t ? a[(ptrdiff_t)i * *lda + j] : a[(ptrdiff_t)j * *lda + i]) * x[(ptrdiff_t)j * *incx];
        float *yi = &y[(ptrdiff_t)i * *incy];
        *yi = *alpha * s + (*beta == 0.0f ? 0.0f : *beta * *yi);
    }
}

/* C := alpha op(A) op(B) + beta C one column at a time, for transb == 'N' */
__attribute__((visibility("default"))) void sgemm_(const char *transa, const char *transb, const int *m,
                                                   const int *n, const int *k, const float *alpha,
                                                   const float *a, const int *lda, const float *b,
                                                   const int *ldb, const float *beta, float *c,
                                                   const int *ldc, size_t la, size_t lb)
{
    (void)transb;
    (void)la;
    (void)lb;
    fake_blas_sgemm_calls++;
    int one = 1;
    int t = *transa == 'T' || *transa == 't';
    for (int j = 0; j < *n; j++)
        sgemv_(transa, t ? k : m, t ? m : k, alpha, a, lda, b + (ptrdiff_t)j * *ldb, &one, beta,
               c + (ptrdiff_t)j * *ldc, &one, 1);
}
