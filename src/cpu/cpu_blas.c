#include "cpu_blas.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shimblas.h"

#include "config.h"
#include "log.h"
#include "next_definition.h"
#include "scale.h"
#include "stats.h"

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
    char tried[1024];  /* what was tried, for the error line */
    char origin[512];  /* where the CPU BLAS came from, for the verbose trace */
} cpu;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
__thread int shim_cpu_guard_depth;
#define guard_depth shim_cpu_guard_depth

#define in_this_library shim_in_this_library

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

static atomic_int cpu_resolved; /* resolve ran (for the report) */

static void resolve_and_tell(void)
{
    resolve();
    atomic_store(&cpu_resolved, 1);
    if (cpu.handle && shim_config_get()->verbose)
        shim_log("CPU BLAS: %s", cpu.origin);
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
    void *sym = shim_config_get()->cpu_blas ? NULL : shim_next_definition(name);
    if (!sym || in_this_library(sym))
        sym = dlsym(handle, name);
    if (!sym || in_this_library(sym))
        sym = shim_next_definition(name);
    if (!sym || in_this_library(sym)) {
        shim_log("%s: the CPU BLAS has no such routine and no later library in the process does", name);
        abort();
    }
    return sym;
}

/* ---- the CPU side of every interface ----------------------------------------------------------- */

/* What a call of one interface and flavour runs on the CPU. The LP64 names run on the CPU BLAS
 * found above (its Fortran sgemv_/sgemm_, as always); every other name runs on the next
 * definition of that very name in the process, so results, speed and error exits on the CPU side
 * stay those of the library the name belongs to (a pip NumPy's own OpenBLAS, say). */
typedef struct cpu_target {
    void *gemv, *gemm;
    int cblas; /* the functions are CBLAS functions (called column-major), else Fortran */
    int wide;  /* 64-bit integers */
    int beta0_reads_y, beta0_reads_c;
    atomic_int ready;
} cpu_target;

static cpu_target targets[SHIM_INTERFACES][2];
/* recursive: the probe calls the CPU BLAS, which may call back into shimblas (a CPU BLAS that calls
 * its own sgemv_ through the dynamic linker) and so into target_of on the same thread */
static pthread_mutex_t targets_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static const struct {
    const char *prefix, *cblas_suffix, *fortran_suffix;
    int wide;
} interfaces[SHIM_INTERFACES] = {
#define SHIM_INTERFACE(id, prefix, integer, cblas_suffix, fortran_suffix, illegal)                           \
    {#prefix, #cblas_suffix, #fortran_suffix, sizeof(integer) == 8},
#include "interfaces.inc"
#undef SHIM_INTERFACE
};

static void interface_name(shim_origin o, const char *routine, char *out, size_t len)
{
    if (o.cblas)
        snprintf(out, len, "%scblas_%s%s", interfaces[o.iface].prefix, routine, interfaces[o.iface].cblas_suffix);
    else
        snprintf(out, len, "%s%s_%s", interfaces[o.iface].prefix, routine, interfaces[o.iface].fortran_suffix);
}

typedef void (*f77_gemv32)(const char *, const int *, const int *, const float *, const float *, const int *,
                           const float *, const int *, const float *, float *, const int *, size_t);
typedef void (*f77_gemm32)(const char *, const char *, const int *, const int *, const int *, const float *,
                           const float *, const int *, const float *, const int *, const float *, float *,
                           const int *, size_t, size_t);
typedef void (*f77_gemv64)(const char *, const int64_t *, const int64_t *, const float *, const float *,
                           const int64_t *, const float *, const int64_t *, const float *, float *, const int64_t *,
                           size_t);
typedef void (*f77_gemm64)(const char *, const char *, const int64_t *, const int64_t *, const int64_t *,
                           const float *, const float *, const int64_t *, const float *, const int64_t *,
                           const float *, float *, const int64_t *, size_t, size_t);
typedef void (*cblas_gemv32)(int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*cblas_gemm32)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                             float *, int);
typedef void (*cblas_gemv64)(int, int, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t,
                             float, float *, int64_t);
typedef void (*cblas_gemm64)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t,
                             const float *, int64_t, float, float *, int64_t);

static void call_gemv(const cpu_target *t, const shim_gemv_problem *p)
{
    char trans = p->trans ? 'T' : 'N';
    int ct = p->trans ? CblasTrans : CblasNoTrans;
    if (t->cblas && t->wide)
        ((cblas_gemv64)t->gemv)(CblasColMajor, ct, p->m, p->n, p->alpha, p->a, p->lda, p->x, p->incx, p->beta,
                                p->y, p->incy);
    else if (t->cblas)
        ((cblas_gemv32)t->gemv)(CblasColMajor, ct, (int)p->m, (int)p->n, p->alpha, p->a, (int)p->lda, p->x,
                                (int)p->incx, p->beta, p->y, (int)p->incy);
    else if (t->wide)
        ((f77_gemv64)t->gemv)(&trans, &p->m, &p->n, &p->alpha, p->a, &p->lda, p->x, &p->incx, &p->beta, p->y,
                              &p->incy, 1);
    else {
        /* (an LP64 call's values fit: they came in as int) */
        int m = (int)p->m, n = (int)p->n, lda = (int)p->lda, incx = (int)p->incx, incy = (int)p->incy;
        ((f77_gemv32)t->gemv)(&trans, &m, &n, &p->alpha, p->a, &lda, p->x, &incx, &p->beta, p->y, &incy, 1);
    }
}

static void call_gemm(const cpu_target *t, const shim_gemm_problem *p)
{
    char ta = p->transa ? 'T' : 'N', tb = p->transb ? 'T' : 'N';
    int ca = p->transa ? CblasTrans : CblasNoTrans, cb = p->transb ? CblasTrans : CblasNoTrans;
    if (t->cblas && t->wide)
        ((cblas_gemm64)t->gemm)(CblasColMajor, ca, cb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb,
                                p->beta, p->c, p->ldc);
    else if (t->cblas)
        ((cblas_gemm32)t->gemm)(CblasColMajor, ca, cb, (int)p->m, (int)p->n, (int)p->k, p->alpha, p->a,
                                (int)p->lda, p->b, (int)p->ldb, p->beta, p->c, (int)p->ldc);
    else if (t->wide)
        ((f77_gemm64)t->gemm)(&ta, &tb, &p->m, &p->n, &p->k, &p->alpha, p->a, &p->lda, p->b, &p->ldb, &p->beta,
                              p->c, &p->ldc, 1, 1);
    else {
        int m = (int)p->m, n = (int)p->n, k = (int)p->k, lda = (int)p->lda, ldb = (int)p->ldb, ldc = (int)p->ldc;
        ((f77_gemm32)t->gemm)(&ta, &tb, &m, &n, &k, &p->alpha, p->a, &lda, p->b, &ldb, &p->beta, p->c, &ldc, 1,
                              1);
    }
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
static void probe_beta_zero(cpu_target *t)
{
    enum { M = 70, N = 70, K = 3 };
    static float a[M * K], b[K * N], c[M * N], y[2 * M];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 5) - 2.0f;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(i % 3) - 1.0f;
    const int sizes[2] = {2, M}, incs[2] = {1, 2};
    guard_depth++;
    for (int s = 0; s < 2; s++) {
        int n = sizes[s], inc = incs[s];
        for (int i = 0; i < 2 * M; i++)
            y[i] = i % 2 ? NAN : INFINITY;
        shim_gemv_problem v = {0, n, K, 1.0f, a, n, b, inc, 0.0f, y, inc, {0, 0}};
        call_gemv(t, &v);
        t->beta0_reads_y |= any_nonfinite(y, n, inc);
        for (int i = 0; i < M * N; i++)
            c[i] = i % 2 ? NAN : -INFINITY;
        shim_gemm_problem g = {0, 0, n, n, K, 1.0f, a, n, b, K, 0.0f, c, n, {0, 0}};
        call_gemm(t, &g);
        t->beta0_reads_c |= any_nonfinite(c, n * n, 1);
    }
    guard_depth--;
    if (shim_config_get()->verbose && (t->beta0_reads_y || t->beta0_reads_c))
        shim_log("the CPU BLAS reads outputs when beta == 0: shimblas clears them before such calls");
}

/* the next definitions of the interface's two names, or the LP64 CPU BLAS */
static int resolve_target(cpu_target *t, shim_origin o)
{
    if (o.iface == SHIM_IFACE_LP64) {
        require_handle();
        *t = (cpu_target){.gemv = (void *)cpu.sgemv, .gemm = (void *)cpu.sgemm, .cblas = 0, .wide = 0};
        return 0;
    }
    char gemv[64], gemm[64];
    interface_name(o, "sgemv", gemv, sizeof gemv);
    interface_name(o, "sgemm", gemm, sizeof gemm);
    t->gemv = shim_next_definition(gemv);
    t->gemm = shim_next_definition(gemm);
    t->cblas = o.cblas;
    t->wide = interfaces[o.iface].wide;
    if (t->gemv && t->gemm) {
        if (shim_config_get()->verbose) {
            Dl_info info;
            shim_log("%s and %s: the next definitions, in %s", gemv, gemm,
                     dladdr(t->gemm, &info) && info.dli_fname ? info.dli_fname : "the process");
        }
        return 0;
    }
    shim_log("no %s and %s in the process besides shimblas's own: load the library they belong to", gemv, gemm);
    return -1;
}

/* One line on where the interface's calls go on the CPU, for shimblas_report: never aborts, and
 * never probes a library (the LP64 CPU BLAS is found as a call would find it). */
int shim_cpu_describe(int iface, char *out, size_t len, int probe)
{
    char gemv[64], gemm[64], cblas_gemm[64];
    interface_name((shim_origin){.iface = iface, .cblas = 0}, "sgemv", gemv, sizeof gemv);
    interface_name((shim_origin){.iface = iface, .cblas = 0}, "sgemm", gemm, sizeof gemm);
    interface_name((shim_origin){.iface = iface, .cblas = 1}, "sgemm", cblas_gemm, sizeof cblas_gemm);
    if (iface == SHIM_IFACE_LP64) {
        if (!probe && !atomic_load(&cpu_resolved)) {
            /* not loaded now (a library's constructors at exit): where the first call would look */
            const char *env = shim_config_get()->cpu_blas;
            void *next = dlsym(RTLD_NEXT, "sgemm_");
            Dl_info info;
            char shown[SHIM_SHOWN_VALUE];
            if (env)
                return snprintf(out, len, "%s, %s, ...: not looked up yet (SHIMBLAS_CPU_BLAS names %s)", cblas_gemm,
                                gemm, shim_show_value(env, shown));
            if (next && !in_this_library(next) && dladdr(next, &info) && info.dli_fname)
                return snprintf(out, len, "%s, %s, ...: not looked up yet (the next sgemm_ in the process is in %s)",
                                cblas_gemm, gemm, info.dli_fname);
            return snprintf(out, len, "%s, %s, ...: not looked up yet (the process has no other sgemm_: "
                            "the built-in default %s)", cblas_gemm, gemm, SHIMBLAS_CPU_BLAS_DEFAULT);
        }
        pthread_once(&cpu_once, resolve_and_tell);
        if (cpu.handle)
            return snprintf(out, len, "%s, %s, ...: %s", cblas_gemm, gemm, cpu.origin);
        return snprintf(out, len, "%s, %s, ...: none found (tried %s); set SHIMBLAS_CPU_BLAS", cblas_gemm, gemm,
                        cpu.tried);
    }
    void *fortran = shim_next_definition(gemm), *cblas = shim_next_definition(cblas_gemm);
    void *vector = shim_next_definition(gemv);
    Dl_info info;
    if (fortran && cblas && vector && dladdr(cblas, &info) && info.dli_fname)
        return snprintf(out, len, "%s, %s, ...: their next definitions, in %s", cblas_gemm, gemm,
                        info.dli_fname[0] ? info.dli_fname : "the program");
    return snprintf(out, len,
                    "%s, %s, ...: no library in this process defines them besides shimblas (a call of them "
                    "would stop the program: their library must be loaded first, as NumPy and SciPy do)",
                    cblas_gemm, gemm);
}

/* the target of a call, found and probed: after the first call, one load */
static cpu_target *target_of(shim_origin o)
{
    cpu_target *t = &targets[o.iface][o.cblas];
    if (atomic_load_explicit(&t->ready, memory_order_acquire))
        return t;
    pthread_mutex_lock(&targets_lock);
    if (!atomic_load(&t->ready)) {
        if (!t->gemv && resolve_target(t, o) != 0) {
            pthread_mutex_unlock(&targets_lock);
            abort(); /* a BLAS call cannot return unwritten results */
        }
        /* the probe only from outside the CPU BLAS (a call nested inside it must not wait) */
        if (guard_depth == 0) {
            probe_beta_zero(t);
            atomic_store_explicit(&t->ready, 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&targets_lock);
    return t;
}

void *shim_cpu_next_definition(shim_origin o, int routine)
{
    cpu_target *t = target_of(o);
    return routine == SHIM_SGEMV ? t->gemv : t->gemm;
}

void shim_cpu_sgemv(const shim_gemv_problem *p)
{
    if (p->alpha == 0.0f) {
        shim_scale_vector(shim_gemv_leny(p), p->beta, p->y, p->incy);
        return;
    }
    const cpu_target *t = target_of(p->origin);
    if (p->beta == 0.0f && t->beta0_reads_y)
        shim_scale_vector(shim_gemv_leny(p), 0.0f, p->y, p->incy);
    guard_depth++;
    call_gemv(t, p);
    guard_depth--;
}

void shim_cpu_sgemm(const shim_gemm_problem *p)
{
    if (p->alpha == 0.0f || p->k == 0) {
        shim_scale_matrix(p->m, p->n, p->beta, p->c, p->ldc);
        return;
    }
    const cpu_target *t = target_of(p->origin);
    if (p->beta == 0.0f && t->beta0_reads_c)
        shim_scale_matrix(p->m, p->n, 0.0f, p->c, p->ldc);
    guard_depth++;
    call_gemm(t, p);
    guard_depth--;
}
