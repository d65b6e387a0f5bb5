/* Error exits of an interface that hands illegal calls on (src/util/interfaces.inc: NEXT): an
 * illegal call through shimblas must do exactly what the library the name belongs to does with it
 * (its message, its argument number, nothing written) and be counted as an error. Each case is made
 * twice, once straight to that library's definition of the name and once through shimblas, with
 * the output (stdout and stderr: OpenBLAS prints with printf) captured and compared. Built once per
 * such interface from the same table (test/meson.build); SHIMBLAS_TEST_PROVIDER names the library. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blas_names.h"

static int failures, cases;
static void *provider;

/* runs call with stdout and stderr going to a file; returns what it printed */
static char *captured(void (*call)(void *), void *ctx)
{
    static char text[2][4096];
    static int which;
    char *out = text[which ^= 1];
    char path[] = "/tmp/shimblas-handed-on-XXXXXX";
    int fd = mkstemp(path);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    call(ctx);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, out, sizeof text[0] - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return out;
}

typedef struct gemm_call {
    int fortran, layout, ta, tb;
    char cta, ctb;
    test_int m, n, k, lda, ldb, ldc;
    void *fn; /* the definition called */
    float *c;
} gemm_call;

static void run_gemm(void *ctx)
{
    gemm_call *g = ctx;
    static float a[64], b[64];
    float alpha = 1.0f, beta = 0.0f;
    if (g->fortran)
        ((void (*)(const char *, const char *, const test_int *, const test_int *, const test_int *, const float *,
                   const float *, const test_int *, const float *, const test_int *, const float *, float *,
                   const test_int *, size_t, size_t))g->fn)(&g->cta, &g->ctb, &g->m, &g->n, &g->k, &alpha, a, &g->lda,
                                                             b, &g->ldb, &beta, g->c, &g->ldc, 1, 1);
    else
        ((void (*)(int, int, int, test_int, test_int, test_int, float, const float *, test_int, const float *,
                   test_int, float, float *, test_int))g->fn)(g->layout, g->ta, g->tb, g->m, g->n, g->k, alpha, a,
                                                             g->lda, b, g->ldb, beta, g->c, g->ldc);
}

typedef struct gemv_call {
    int fortran, layout, trans;
    char ct;
    test_int m, n, lda, incx, incy;
    void *fn;
    float *y;
} gemv_call;

static void run_gemv(void *ctx)
{
    gemv_call *g = ctx;
    static float a[64], x[64];
    float alpha = 1.0f, beta = 0.0f;
    if (g->fortran)
        ((void (*)(const char *, const test_int *, const test_int *, const float *, const float *, const test_int *,
                   const float *, const test_int *, const float *, float *, const test_int *, size_t))g->fn)(
            &g->ct, &g->m, &g->n, &alpha, a, &g->lda, x, &g->incx, &beta, g->y, &g->incy, 1);
    else
        ((void (*)(int, int, test_int, test_int, float, const float *, test_int, const float *, test_int, float,
                   float *, test_int))g->fn)(g->layout, g->trans, g->m, g->n, alpha, a, g->lda, x, g->incx, beta,
                                             g->y, g->incy);
}

/* the same illegal call straight to the provider and through shimblas: same words, nothing
 * written, one error counted */
static void compare(const char *label, void (*run)(void *), void *call, void **fn, void *theirs, void *ours,
                    float *out, int routine)
{
    cases++;
    for (int i = 0; i < 16; i++)
        out[i] = (float)i;
    *fn = theirs;
    char *direct = captured(run, call);
    shimblas_stats before, after;
    shimblas_get_stats(&before);
    *fn = ours;
    char *through = captured(run, call);
    shimblas_get_stats(&after);
    unsigned long long errors = routine ? after.sgemm.errors - before.sgemm.errors : after.sgemv.errors - before.sgemv.errors;
    int untouched = 1;
    for (int i = 0; i < 16; i++)
        untouched &= out[i] == (float)i;
    int ok = strcmp(direct, through) == 0 && direct[0] && untouched && errors == 1;
    printf("%s: %s: %s", ok ? "PASS" : "FAIL", label, direct[0] ? direct : "(the library printed nothing)\n");
    if (!ok) {
        printf("  through shimblas: %s  output %s, %llu errors counted\n", through[0] ? through : "(nothing)\n",
               untouched ? "untouched" : "WRITTEN", errors);
        failures++;
    }
}

int main(void)
{
    printf("interface: %s\n", TEST_INTERFACE);
    const char *path = getenv("SHIMBLAS_TEST_PROVIDER");
    if (!path || access(path, R_OK) != 0) {
        printf("SKIP: no library of this interface (SHIMBLAS_TEST_PROVIDER=%s)\n", path ? path : "");
        return 77;
    }
    provider = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int (*ready)(void) = provider ? (int (*)(void))dlsym(provider, "ilp64_provider_ready") : NULL;
    if (!provider || (ready && !ready())) {
        printf("FAIL: %s cannot be used (%s)\n", path, provider ? "its BLAS is missing" : dlerror());
        return 1;
    }
    float out[16];
    struct {
        const char *label;
        gemm_call g;
    } gemms[] = {
        {"cblas_sgemm, layout 0", {0, 0, CblasNoTrans, CblasNoTrans, 0, 0, 2, 2, 2, 2, 2, 2, NULL, out}},
        {"cblas_sgemm, TransA 99", {0, CblasColMajor, 99, CblasNoTrans, 0, 0, 2, 2, 2, 2, 2, 2, NULL, out}},
        {"cblas_sgemm, M -1", {0, CblasColMajor, CblasNoTrans, CblasNoTrans, 0, 0, -1, 2, 2, 2, 2, 2, NULL, out}},
        {"cblas_sgemm, lda too small", {0, CblasColMajor, CblasNoTrans, CblasNoTrans, 0, 0, 4, 2, 2, 2, 2, 4, NULL, out}},
        {"cblas_sgemm row-major, ldb too small",
         {0, CblasRowMajor, CblasNoTrans, CblasNoTrans, 0, 0, 2, 4, 2, 2, 2, 4, NULL, out}},
        {"sgemm, transa X", {1, 0, 0, 0, 'X', 'N', 2, 2, 2, 2, 2, 2, NULL, out}},
        {"sgemm, k -3", {1, 0, 0, 0, 'N', 'N', 2, 2, -3, 2, 2, 2, NULL, out}},
        {"sgemm, ldc too small", {1, 0, 0, 0, 'N', 'T', 4, 2, 2, 4, 2, 3, NULL, out}},
    };
    void *theirs_cblas = dlsym(provider, TEST_NAME(TEST_CBLAS_SGEMM)), *theirs_f77 = dlsym(provider, TEST_NAME(TEST_SGEMM));
    for (size_t i = 0; i < sizeof gemms / sizeof gemms[0]; i++) {
        gemm_call *g = &gemms[i].g;
        compare(gemms[i].label, run_gemm, g, &g->fn, g->fortran ? theirs_f77 : theirs_cblas,
                g->fortran ? (void *)test_sgemm_ : (void *)test_cblas_sgemm, out, 1);
    }
    struct {
        const char *label;
        gemv_call g;
    } gemvs[] = {
        {"cblas_sgemv, layout 7", {0, 7, CblasNoTrans, 0, 2, 2, 2, 1, 1, NULL, out}},
        {"cblas_sgemv, N -2", {0, CblasColMajor, CblasNoTrans, 0, 2, -2, 2, 1, 1, NULL, out}},
        {"cblas_sgemv row-major, lda too small", {0, CblasRowMajor, CblasNoTrans, 0, 2, 4, 3, 1, 1, NULL, out}},
        {"cblas_sgemv, incX 0", {0, CblasColMajor, CblasTrans, 0, 2, 2, 2, 0, 1, NULL, out}},
        {"sgemv, trans Q", {1, 0, 0, 'Q', 2, 2, 2, 1, 1, NULL, out}},
        {"sgemv, incy 0", {1, 0, 0, 'N', 2, 2, 2, 1, 0, NULL, out}},
    };
    theirs_cblas = dlsym(provider, TEST_NAME(TEST_CBLAS_SGEMV));
    theirs_f77 = dlsym(provider, TEST_NAME(TEST_SGEMV));
    for (size_t i = 0; i < sizeof gemvs / sizeof gemvs[0]; i++) {
        gemv_call *g = &gemvs[i].g;
        compare(gemvs[i].label, run_gemv, g, &g->fn, g->fortran ? theirs_f77 : theirs_cblas,
                g->fortran ? (void *)test_sgemv_ : (void *)test_cblas_sgemv, out, 0);
    }
    printf("test_handed_on: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
