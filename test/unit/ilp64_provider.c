/* A CPU BLAS under the OpenBLAS INTERFACE64 names (cblas_sgemv64_, cblas_sgemm64_, sgemv_64_,
 * sgemm_64_), for the tests of shimblas's ILP64 entry points. Debian's OpenBLAS built with 64-bit
 * integers (package libopenblas64-0-*, libopenblas64.so.0) calls them by the plain names; this
 * library forwards to it, so the results and error exits are a real OpenBLAS's.
 * SHIMBLAS_TEST_ILP64_BLAS names it when it is not in Debian's folder. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

static void *f[4];

__attribute__((constructor)) static void load(void)
{
    const char *path = getenv("SHIMBLAS_TEST_ILP64_BLAS");
    void *lib = dlopen(path ? path : "/usr/lib/x86_64-linux-gnu/openblas64-pthread/libopenblas64.so.0",
                       RTLD_NOW | RTLD_LOCAL);
    static const char *const names[4] = {"cblas_sgemv", "cblas_sgemm", "sgemv_", "sgemm_"};
    for (int i = 0; i < 4 && lib; i++)
        f[i] = dlsym(lib, names[i]);
}

EXPORT int ilp64_provider_ready(void)
{
    return f[0] && f[1] && f[2] && f[3];
}

EXPORT void cblas_sgemv64_(int layout, int trans, int64_t m, int64_t n, float alpha, const float *a, int64_t lda,
                           const float *x, int64_t incx, float beta, float *y, int64_t incy)
{
    ((void (*)(int, int, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t, float, float *,
               int64_t))f[0])(layout, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

EXPORT void cblas_sgemm64_(int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                           int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc)
{
    ((void (*)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t,
               float, float *, int64_t))f[1])(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

EXPORT void sgemv_64_(const char *t, const int64_t *m, const int64_t *n, const float *alpha, const float *a,
                      const int64_t *lda, const float *x, const int64_t *incx, const float *beta, float *y,
                      const int64_t *incy, size_t len)
{
    ((void (*)(const char *, const int64_t *, const int64_t *, const float *, const float *, const int64_t *,
               const float *, const int64_t *, const float *, float *, const int64_t *, size_t))f[2])(
        t, m, n, alpha, a, lda, x, incx, beta, y, incy, len);
}

EXPORT void sgemm_64_(const char *ta, const char *tb, const int64_t *m, const int64_t *n, const int64_t *k,
                      const float *alpha, const float *a, const int64_t *lda, const float *b, const int64_t *ldb,
                      const float *beta, float *c, const int64_t *ldc, size_t la, size_t lb)
{
    ((void (*)(const char *, const char *, const int64_t *, const int64_t *, const int64_t *, const float *,
               const float *, const int64_t *, const float *, const int64_t *, const float *, float *,
               const int64_t *, size_t, size_t))f[3])(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);
}
