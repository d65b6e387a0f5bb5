#include "cpu_blas.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "scale.h"

#ifndef SHIMBLAS_CPU_BLAS_DEFAULT
#define SHIMBLAS_CPU_BLAS_DEFAULT "libopenblas.so.0"
#endif

typedef void (*sgemv_fn)(const char *, const int *, const int *, const float *, const float *, const int *,
                         const float *, const int *, const float *, float *, const int *, size_t);
typedef void (*sgemm_fn)(const char *, const char *, const int *, const int *, const int *, const float *,
                         const float *, const int *, const float *, const int *, const float *, float *,
                         const int *, size_t, size_t);

static struct {
    void *handle; /* dlopen handle of the CPU BLAS, NULL when none was found */
    sgemv_fn sgemv;
    sgemm_fn sgemm;
    int beta0_reads_y; /* its sgemv reads y when beta == 0 (NaN there would survive) */
    int beta0_reads_c; /* likewise its sgemm and C */
    char tried[1024];  /* what was tried, for the error line */
    char origin[512];  /* where the CPU BLAS came from, for the verbose trace */
} cpu;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
__thread int shim_cpu_guard_depth;
#define guard_depth shim_cpu_guard_depth

static int in_this_library(const void *sym)
{
    Dl_info mine, theirs;
    if (!dladdr((const void *)&in_this_library, &mine) || !dladdr(sym, &theirs))
        return 0;
    return mine.dli_fbase == theirs.dli_fbase;
}

__attribute__((format(printf, 1, 2))) static void note_tried(const char *fmt, ...)
{
    size_t used = strlen(cpu.tried);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cpu.tried + used, sizeof cpu.tried - used, fmt, ap);
    va_end(ap);
}

/* accepts handle as the CPU BLAS when it defines sgemv_ and sgemm_ outside this library */
static int adopt(void *handle)
{
    void *gemv = dlsym(handle, "sgemv_"), *gemm = dlsym(handle, "sgemm_");
    if (!gemv || !gemm || in_this_library(gemv) || in_this_library(gemm))
        return 0;
    cpu.handle = handle;
    cpu.sgemv = (sgemv_fn)gemv;
    cpu.sgemm = (sgemm_fn)gemm;
    return 1;
}

static int try_path(const char *what, const char *path, int flags)
{
    void *h = dlopen(path, flags);
    if (h && adopt(h)) {
        snprintf(cpu.origin, sizeof cpu.origin, "%s%s", what, path);
        return 1;
    }
    char shown[SHIM_SHOWN_VALUE], error[SHIM_SHOWN_VALUE];
    note_tried("%s%s (%s); ", what, shim_show_value(path, shown),
               h ? "no sgemv_/sgemm_ of its own" : shim_show_value(dlerror(), error));
    if (h)
        dlclose(h);
    return 0;
}

static void resolve(void)
{
    const char *env = shim_config_get()->cpu_blas;
    if (env && try_path("SHIMBLAS_CPU_BLAS=", env, RTLD_NOW | RTLD_LOCAL))
        return;
    if (env) {
        char shown[SHIM_SHOWN_VALUE];
        shim_log("SHIMBLAS_CPU_BLAS=%s cannot be used; trying the next BLAS in the process",
                 shim_show_value(env, shown));
    }

    void *next = dlsym(RTLD_NEXT, "sgemm_");
    Dl_info info;
    if (next && !in_this_library(next) && dladdr(next, &info) && info.dli_fname) {
        void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
        if (h && adopt(h)) {
            snprintf(cpu.origin, sizeof cpu.origin, "the next sgemm_ in the process, %s", info.dli_fname);
            return;
        }
        note_tried("the next sgemm_ in the process (%s): not usable; ", info.dli_fname);
    } else {
        note_tried("the next sgemm_ in the process: none; ");
    }
    try_path("the built-in default ", SHIMBLAS_CPU_BLAS_DEFAULT, RTLD_NOW | RTLD_LOCAL);
}

/* nonzero when any of the n values is NaN or infinite */
static int any_nonfinite(const float *v, int n, int step)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i * step]))
            return 1;
    return 0;
}

/* Reference BLAS writes y and C without reading them when beta == 0; not every CPU BLAS does.
 * Ask this one, once, at a few sizes and strides: if NaN or Inf in the output survives, shimblas
 * clears outputs before handing it beta == 0 calls; otherwise it saves that pass. */
static void probe_beta_zero(void)
{
    enum { M = 70, N = 70, K = 3 };
    static float a[M * K], b[K * N], c[M * N], y[2 * M];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 5) - 2.0f;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(i % 3) - 1.0f;
    const float one = 1.0f, zero = 0.0f;
    const int sizes[2] = {2, M}, incs[2] = {1, 2};
    guard_depth++;
    for (int t = 0; t < 2; t++) {
        int n = sizes[t], k = K, inc = incs[t];
        for (int i = 0; i < 2 * M; i++)
            y[i] = i % 2 ? NAN : INFINITY;
        cpu.sgemv("N", &n, &k, &one, a, &n, b, &inc, &zero, y, &inc, 1);
        cpu.beta0_reads_y |= any_nonfinite(y, n, inc);
        for (int i = 0; i < M * N; i++)
            c[i] = i % 2 ? NAN : -INFINITY;
        cpu.sgemm("N", "N", &n, &n, &k, &one, a, &n, b, &k, &zero, c, &n, 1, 1);
        cpu.beta0_reads_c |= any_nonfinite(c, n * n, 1);
    }
    guard_depth--;
    if (shim_config_get()->verbose && (cpu.beta0_reads_y || cpu.beta0_reads_c))
        shim_log("the CPU BLAS reads outputs when beta == 0: shimblas clears them before such calls");
}

/* the probe runs on the first outermost call; calls nested inside the CPU BLAS (the probe's own
 * included) must not wait for it */
static void probe_once_outside(void)
{
    if (guard_depth == 0)
        pthread_once(&probe_once, probe_beta_zero);
}

static void resolve_and_tell(void)
{
    resolve();
    if (cpu.handle && shim_config_get()->verbose)
        shim_log("CPU BLAS: %s%s", cpu.origin,
                 cpu.beta0_reads_y || cpu.beta0_reads_c
                     ? " (reads outputs when beta == 0: shimblas clears them first)"
                     : "");
}

static void *require_handle(void)
{
    pthread_once(&cpu_once, resolve_and_tell);
    if (!cpu.handle) {
        shim_log("no CPU BLAS found; tried %s set SHIMBLAS_CPU_BLAS to a BLAS library", cpu.tried);
        abort();
    }
    return cpu.handle;
}

const char *shim_cpu_blas_origin(void)
{
    require_handle();
    return cpu.origin;
}

/* A routine shimblas only forwards goes where the program's call would have gone without it: the
 * next definition in the process (a LAPACK's own lsame_ before the BLAS's, say), unless
 * SHIMBLAS_CPU_BLAS names the library; then, or when the process has none, the CPU BLAS's. */
void *shim_cpu_blas_symbol(const char *name)
{
    void *handle = require_handle();
    void *sym = shim_config_get()->cpu_blas ? NULL : dlsym(RTLD_NEXT, name);
    if (!sym || in_this_library(sym))
        sym = dlsym(handle, name);
    if (!sym || in_this_library(sym))
        sym = dlsym(RTLD_NEXT, name);
    if (!sym || in_this_library(sym)) {
        shim_log("%s: the CPU BLAS has no such routine and no later library in the process does", name);
        abort();
    }
    return sym;
}

/* the CPU BLAS found and probed: after the first call, one load */
static atomic_int ready;

static void get_ready(void)
{
    if (atomic_load_explicit(&ready, memory_order_acquire))
        return;
    require_handle();
    probe_once_outside();
    if (guard_depth == 0)
        atomic_store_explicit(&ready, 1, memory_order_release);
}

void shim_cpu_sgemv(const shim_gemv_problem *p)
{
    if (p->alpha == 0.0f) {
        shim_scale_vector(shim_gemv_leny(p), p->beta, p->y, p->incy);
        return;
    }
    get_ready();
    if (p->beta == 0.0f && cpu.beta0_reads_y)
        shim_scale_vector(shim_gemv_leny(p), 0.0f, p->y, p->incy);
    char trans = p->trans ? 'T' : 'N';
    guard_depth++;
    cpu.sgemv(&trans, &p->m, &p->n, &p->alpha, p->a, &p->lda, p->x, &p->incx, &p->beta, p->y, &p->incy, 1);
    guard_depth--;
}

void shim_cpu_sgemm(const shim_gemm_problem *p)
{
    if (p->alpha == 0.0f || p->k == 0) {
        shim_scale_matrix(p->m, p->n, p->beta, p->c, p->ldc);
        return;
    }
    get_ready();
    if (p->beta == 0.0f && cpu.beta0_reads_c)
        shim_scale_matrix(p->m, p->n, 0.0f, p->c, p->ldc);
    char ta = p->transa ? 'T' : 'N', tb = p->transb ? 'T' : 'N';
    guard_depth++;
    cpu.sgemm(&ta, &tb, &p->m, &p->n, &p->k, &p->alpha, p->a, &p->lda, p->b, &p->ldb, &p->beta, p->c, &p->ldc,
              1, 1);
    guard_depth--;
}
