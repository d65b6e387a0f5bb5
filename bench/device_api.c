/* The public API on device pointers against cuBLAS, in one process. cblas_sgemm / cblas_sgemv of
 * libshimblas.so (loaded with dlopen: the library as programs get it, its own CUDA runtime
 * included) on cudaMalloc'd operands, against cublasSgemm / cublasSgemv (pedantic FP32) each
 * followed by cudaDeviceSynchronize; both timed by the wall clock per call (median of many after
 * warm-up; the library's calls return with their results ready). In the same process, the
 * kernel-level ratio: CUDA events around cuBLAS's call alone against events around the library's
 * own kernel on the same stream (the registry's selector, run as bench/sgemm_device.c and
 * bench/sgemv_device.c run it). Operand sets rotate where one set would sit in L2, alike for
 * every measurement.
 *
 *   API ratio    = cuBLAS API time / shim API time       (> 1: the shim is faster)
 *   kernel ratio = cuBLAS kernel time / shim kernel time
 *   gap          = API ratio / kernel ratio               (1: the library's host path costs nothing
 *                                                          more than cuBLAS's; < 1: it costs that much)
 * Target: at sgemm 256^3 and up the API ratio is within 5 % of the kernel ratio (gap >= 0.95).
 *
 *   device_api [out.csv]      (default device_api.csv)
 * SHIMBLAS_LIB names the library to load (default: the one this build made). Prints a markdown
 * table (a row as each shape finishes) and writes the CSV. Exits 1 when a result differs from
 * cuBLAS's or a call was not served by the GPU. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "bench_util.h"
#include "sgemm_kernels.h"
#include "sgemv_kernels.h"
#include "shimblas.h"

#ifndef SHIMBLAS_LIB_DEFAULT
#define SHIMBLAS_LIB_DEFAULT "libshimblas.so.0"
#endif

#define MAX_SETS 16
#define API_TARGET_MS 250.0    /* timed wall time per side and shape at the API */
#define KERNEL_TARGET_MS 150.0 /* and at the kernel level */
#define WARMUP_MS 30.0         /* untimed calls per side first (at least 2, at most 500) */
#define MIN_REPS 10
#define MAX_API_REPS 20000
#define MAX_KERNEL_REPS 2000
#define GAP_TARGET 0.95

#define CUBLAS_CHECK(call) cublas_check((int)(call), #call, __LINE__)
static void cublas_check(int st, const char *what, int line)
{
    if (st != 0) {
        fprintf(stderr, "device_api.c:%d: %s failed: cuBLAS status %d\n", line, what, st);
        exit(1);
    }
}

/* ---- the library, as a program loads it ------------------------------------------------------- */

typedef void (*sgemm_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE, const enum CBLAS_TRANSPOSE, const int,
                         const int, const int, const float, const float *, const int, const float *, const int,
                         const float, float *, const int);
typedef void (*sgemv_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE, const int, const int, const float,
                         const float *, const int, const float *, const int, const float, float *, const int);
typedef void (*stats_fn)(shimblas_stats *);
typedef const char *(*version_fn)(void);

static struct {
    const char *path;
    sgemm_fn sgemm;
    sgemv_fn sgemv;
    stats_fn stats;
    const char *version;
} lib;

static void *symbol(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "%s has no %s\n", lib.path, name);
        exit(1);
    }
    return p;
}

static void load_library(void)
{
    const char *env = getenv("SHIMBLAS_LIB");
    lib.path = env && *env ? env : SHIMBLAS_LIB_DEFAULT;
    void *h = dlopen(lib.path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "cannot load the library: %s\n(build it first, or set SHIMBLAS_LIB to its path)\n", dlerror());
        exit(1);
    }
    lib.sgemm = (sgemm_fn)symbol(h, "cblas_sgemm");
    lib.sgemv = (sgemv_fn)symbol(h, "cblas_sgemv");
    lib.stats = (stats_fn)symbol(h, "shimblas_get_stats");
    lib.version = ((version_fn)symbol(h, "shimblas_version"))();
}

/* ---- the shapes ------------------------------------------------------------------------------------ */

enum { SGEMM, SGEMV };

typedef struct {
    int routine;
    const char *case_name;
    long long m, n, k;  /* sgemm: m, n, k; sgemv: M x K as the caller sees it in m, n */
    int transa, transb; /* sgemm, column-major */
    int row_major;      /* sgemv, NoTrans */
    int target;         /* the gap target applies */
} bench_case;

#define SQ(s, t) {SGEMM, "NN", s, s, s, 0, 0, 0, t}
#define SQ_TN(s, t) {SGEMM, "TN", s, s, s, 1, 0, 0, t}
#define GEMV(r, c) {SGEMV, "rowmajor_N", r, c, 0, 0, 0, 1, 0}, {SGEMV, "colmajor_N", r, c, 0, 0, 0, 0, 0}
static const bench_case cases[] = {
    SQ(64, 0),        SQ(128, 0),          SQ(256, 1),       SQ(512, 1),     SQ(1000, 1),
    SQ(1024, 1),      SQ_TN(1024, 1),      SQ(2048, 1),      SQ(4096, 1),    SQ_TN(4096, 1),
    SQ(8192, 1),      GEMV(1048576, 16),   GEMV(524288, 32), GEMV(1048576, 64), GEMV(131072, 128),
    GEMV(256, 65536), GEMV(4096, 4096),
};
#define CASES ((int)(sizeof cases / sizeof *cases))

/* ---- one shape's operands and calls ---------------------------------------------------------------- */

typedef struct {
    const bench_case *bc;
    int sets;
    float *a[MAX_SETS], *b[MAX_SETS], *c[MAX_SETS]; /* sgemv: b is x, c is y */
    float *pool_a, *pool_b, *pool_c, *c_ref;
    /* the canonical column-major problem: what cuBLAS and the kernels get */
    int trans_a, trans_b, m, n, k, lda, ldb, ldc;
    const shim_sgemm_variant *gemm_variant;
    const shim_sgemv_variant *gemv_variant;
    void *work;
    size_t work_bytes;
    cublasHandle_t handle; /* bound to stream */
    cudaStream_t stream;
    long api_calls; /* the library's calls made for this shape */
} shape_ctx;

static void api_shim(shape_ctx *x, int i)
{
    const bench_case *bc = x->bc;
    const int s = i % x->sets;
    x->api_calls++;
    if (bc->routine == SGEMM)
        lib.sgemm(CblasColMajor, bc->transa ? CblasTrans : CblasNoTrans, bc->transb ? CblasTrans : CblasNoTrans, x->m,
                  x->n, x->k, 1.0f, x->a[s], x->lda, x->b[s], x->ldb, 0.0f, x->c[s], x->ldc);
    else
        lib.sgemv(bc->row_major ? CblasRowMajor : CblasColMajor, CblasNoTrans, (int)bc->m, (int)bc->n, 1.0f, x->a[s],
                  x->lda, x->b[s], 1, 0.0f, x->c[s], 1);
}

static void cublas_call(shape_ctx *x, const float *a, const float *b, float *c)
{
    const float one = 1.0f, zero = 0.0f;
    if (x->bc->routine == SGEMM)
        CUBLAS_CHECK(cublasSgemm(x->handle, x->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                 x->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, x->m, x->n, x->k, &one, a, x->lda, b, x->ldb,
                                 &zero, c, x->ldc));
    else
        CUBLAS_CHECK(cublasSgemv(x->handle, x->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, x->m, x->n, &one, a, x->lda, b, 1,
                                 &zero, c, 1));
}

static void api_cublas(shape_ctx *x, int i)
{
    const int s = i % x->sets;
    cublas_call(x, x->a[s], x->b[s], x->c[s]);
    BENCH_CUDA(cudaDeviceSynchronize());
}

static void kernel_cublas(int i, void *p, cudaStream_t stream)
{
    (void)stream; /* the handle is bound to it */
    shape_ctx *x = p;
    const int s = i % x->sets;
    cublas_call(x, x->a[s], x->b[s], x->c[s]);
}

/* the canonical problem on operand set s, with the context's workspace */
static shim_sgemm_args gemm_args(const shape_ctx *x, int s, cudaStream_t stream)
{
    return (shim_sgemm_args){.transa = x->trans_a,
                             .transb = x->trans_b,
                             .m = x->m,
                             .n = x->n,
                             .k = x->k,
                             .alpha = 1.0f,
                             .a = x->a[s],
                             .lda = x->lda,
                             .b = x->b[s],
                             .ldb = x->ldb,
                             .c = x->c[s],
                             .ldc = x->ldc,
                             .work = x->work,
                             .work_bytes = x->work_bytes,
                             .stream = stream,
                             .math = SHIM_SGEMM_FP32};
}

static void kernel_shim(int i, void *p, cudaStream_t stream)
{
    shape_ctx *x = p;
    const int s = i % x->sets;
    if (x->bc->routine == SGEMM) {
        const shim_sgemm_args a = gemm_args(x, s, stream);
        BENCH_CUDA(shim_sgemm_run(x->gemm_variant, &a));
    } else {
        shim_sgemv_args a = {x->trans_a, x->m, x->n, 1.0f, 0.0f, x->a[s], x->lda, x->b[s], x->c[s],
                             x->work, x->work_bytes, stream};
        BENCH_CUDA(shim_sgemv_run(x->gemv_variant, &a));
    }
}

/* the canonical problem, the operand sets, and the variant the library's selector picks */
static void setup(shape_ctx *x, const bench_case *bc, cublasHandle_t handle, cudaStream_t stream)
{
    memset(x, 0, sizeof *x);
    x->bc = bc;
    x->handle = handle;
    x->stream = stream;
    size_t asz, bsz, csz;
    if (bc->routine == SGEMM) {
        x->trans_a = bc->transa;
        x->trans_b = bc->transb;
        x->m = (int)bc->m;
        x->n = (int)bc->n;
        x->k = (int)bc->k;
        x->lda = bc->transa ? x->k : x->m;
        x->ldb = bc->transb ? x->n : x->k;
        x->ldc = x->m;
        asz = (size_t)x->m * x->k;
        bsz = (size_t)x->k * x->n;
        csz = (size_t)x->m * x->n;
    } else {
        /* row-major M x K NoTrans is the column-major K x M problem transposed */
        x->trans_a = bc->row_major;
        x->m = (int)(bc->row_major ? bc->n : bc->m);
        x->n = (int)(bc->row_major ? bc->m : bc->n);
        x->lda = x->m;
        asz = (size_t)bc->m * bc->n;
        bsz = (size_t)bc->n; /* x: K */
        csz = (size_t)bc->m; /* y: M */
    }
    x->sets = bench_rotation((asz + bsz + csz) * sizeof(float), MAX_SETS);
    BENCH_CUDA(cudaMalloc((void **)&x->pool_a, asz * x->sets * sizeof(float)));
    BENCH_CUDA(cudaMalloc((void **)&x->pool_b, bsz * x->sets * sizeof(float)));
    BENCH_CUDA(cudaMalloc((void **)&x->pool_c, csz * (x->sets + 1) * sizeof(float)));
    bench_fill_device(x->pool_a, asz * x->sets, 1);
    bench_fill_device(x->pool_b, bsz * x->sets, 2);
    BENCH_CUDA(cudaMemset(x->pool_c, 0, csz * (x->sets + 1) * sizeof(float)));
    for (int s = 0; s < x->sets; s++) {
        x->a[s] = x->pool_a + asz * s;
        x->b[s] = x->pool_b + bsz * s;
        x->c[s] = x->pool_c + csz * s;
    }
    x->c_ref = x->pool_c + csz * x->sets;

    if (bc->routine == SGEMM) {
        const shim_sgemm_args a = gemm_args(x, 0, stream); /* no workspace yet: the selector sizes it */
        x->gemm_variant = shim_sgemm_select(&a);
        x->work_bytes = shim_sgemm_work_bytes(x->gemm_variant, &a);
    } else {
        shim_sgemv_args a = {x->trans_a, x->m, x->n, 1.0f, 0.0f, x->a[0], x->lda, x->b[0], x->c[0], NULL, 0, stream};
        x->gemv_variant = shim_sgemv_select(&a);
        x->work_bytes = shim_sgemv_work_bytes(x->gemv_variant, &a);
    }
    if (x->work_bytes)
        BENCH_CUDA(cudaMalloc(&x->work, x->work_bytes));
    BENCH_CUDA(cudaDeviceSynchronize());
}

static void teardown(shape_ctx *x)
{
    BENCH_CUDA(cudaFree(x->pool_a));
    BENCH_CUDA(cudaFree(x->pool_b));
    BENCH_CUDA(cudaFree(x->pool_c));
    if (x->work)
        BENCH_CUDA(cudaFree(x->work));
}

/* ---- timing -------------------------------------------------------------------------------------- */

static int clamp_reps(double budget_ms, double per_call_ms, int lo, int hi)
{
    double r = per_call_ms > 0 ? budget_ms / per_call_ms : hi;
    return r < lo ? lo : r > hi ? hi : (int)r;
}

/* wall time of one call, in ms */
static double one_call(void (*call)(shape_ctx *, int), shape_ctx *x, int i)
{
    double t0 = bench_wall_ms();
    call(x, i);
    return bench_wall_ms() - t0;
}

/* median wall time per API call of each side; the timed calls come in two halves per side,
 * alternating (shim, cuBLAS, shim, cuBLAS), so a drift in clocks affects both alike */
static void time_api(shape_ctx *x, double *shim_ms, double *cublas_ms, double *est_ms)
{
    void (*side[2])(shape_ctx *, int) = {api_shim, api_cublas};
    double est[2];
    for (int s = 0; s < 2; s++) {
        double first[3];
        for (int i = 0; i < 2; i++) /* first calls carry one-time costs */
            side[s](x, i);
        for (int i = 0; i < 3; i++)
            first[i] = one_call(side[s], x, i);
        est[s] = bench_median(first, 3);
        int warm = clamp_reps(WARMUP_MS, est[s], 2, 500);
        for (int i = 0; i < warm; i++)
            side[s](x, i);
    }
    double *samples[2];
    int reps[2], got[2] = {0, 0};
    for (int s = 0; s < 2; s++) {
        reps[s] = clamp_reps(API_TARGET_MS, est[s], MIN_REPS, MAX_API_REPS);
        samples[s] = malloc(sizeof(double) * (size_t)reps[s]);
    }
    for (int half = 0; half < 2; half++)
        for (int s = 0; s < 2; s++) {
            int upto = half == 0 ? reps[s] / 2 : reps[s];
            for (; got[s] < upto; got[s]++)
                samples[s][got[s]] = one_call(side[s], x, got[s]);
        }
    *shim_ms = bench_median(samples[0], reps[0]);
    *cublas_ms = bench_median(samples[1], reps[1]);
    *est_ms = est[1];
    free(samples[0]);
    free(samples[1]);
}

/* the library's result (NaN before the call) against cuBLAS's, on operand set 0 */
static double verify(shape_ctx *x)
{
    int rows = x->bc->routine == SGEMM ? x->m : (int)x->bc->m, cols = x->bc->routine == SGEMM ? x->n : 1;
    BENCH_CUDA(cudaMemset(x->c[0], 0xff, sizeof(float) * (size_t)rows * cols));
    BENCH_CUDA(cudaDeviceSynchronize());
    api_shim(x, 0);
    cublas_call(x, x->a[0], x->b[0], x->c_ref);
    BENCH_CUDA(cudaDeviceSynchronize());
    return bench_max_rel_diff(x->c[0], x->c_ref, rows, cols, rows);
}

int main(int argc, char **argv)
{
    const char *csv_path = argc > 1 ? argv[1] : "device_api.csv";
    load_library();
    FILE *csv = fopen(csv_path, "w");
    if (!csv) {
        fprintf(stderr, "cannot write %s\n", csv_path);
        return 1;
    }
    struct cudaDeviceProp prop;
    BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    printf("device_api: the public API on device pointers against cuBLAS (pedantic FP32), alpha=1 beta=0\n");
    printf("device: %s, %d SMs; %s; library %s (%s)\n\n", prop.name, prop.multiProcessorCount, date, lib.path,
           lib.version);
    fprintf(csv, "# device=%s, date=%s, library=%s %s, cuBLAS pedantic FP32, alpha=1 beta=0\n", prop.name, date,
            lib.path, lib.version);
    fprintf(csv, "routine,shape,case,kernel,shim_api_ms,cublas_api_ms,api_ratio,shim_kernel_ms,cublas_kernel_ms,"
                 "kernel_ratio,gap,shim_overhead_us,cublas_overhead_us,target,cublas_call_estimate_ms,sets\n");

    cudaStream_t stream;
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));

    printf("| routine | shape | case | kernel | shim API ms | cuBLAS API ms | API ratio | shim kernel ms | "
           "cuBLAS kernel ms | kernel ratio | gap | shim overhead us | cuBLAS overhead us | target |\n");
    printf("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    fflush(stdout);
    int targets = 0, met = 0, verify_failures = 0, not_on_gpu = 0;
    for (int ci = 0; ci < CASES; ci++) {
        const bench_case *bc = &cases[ci];
        shape_ctx x;
        setup(&x, bc, handle, stream);
        char shape[48];
        if (bc->routine == SGEMM)
            snprintf(shape, sizeof shape, "%lldx%lldx%lld", bc->m, bc->n, bc->k);
        else
            snprintf(shape, sizeof shape, "%lldx%lld", bc->m, bc->n);
        const char *routine = bc->routine == SGEMM ? "sgemm" : "sgemv";
        const char *kernel = bc->routine == SGEMM ? x.gemm_variant->name : x.gemv_variant->name;

        shimblas_stats before, after;
        lib.stats(&before);
        double shim_api, cublas_api, est;
        time_api(&x, &shim_api, &cublas_api, &est);
        double rel = verify(&x);
        lib.stats(&after);

        int kreps = clamp_reps(KERNEL_TARGET_MS, est, MIN_REPS, MAX_KERNEL_REPS);
        double cublas_k = bench_median_ms(kernel_cublas, &x, stream, 3, kreps);
        double shim_k = bench_median_ms(kernel_shim, &x, stream, 3, kreps);

        double api_ratio = cublas_api / shim_api, kernel_ratio = cublas_k / shim_k, gap = api_ratio / kernel_ratio;
        const char *target = "-";
        if (bc->target) {
            targets++;
            met += gap >= GAP_TARGET;
            target = gap >= GAP_TARGET ? "met" : "MISSED";
        }
        printf("| %s | %s | %s | %s | %.4f | %.4f | %.3f | %.4f | %.4f | %.3f | %.3f | %.1f | %.1f | %s |\n", routine,
               shape, bc->case_name, kernel, shim_api, cublas_api, api_ratio, shim_k, cublas_k, kernel_ratio, gap,
               (shim_api - shim_k) * 1e3, (cublas_api - cublas_k) * 1e3, target);
        fprintf(csv, "%s,%s,%s,%s,%.5f,%.5f,%.4f,%.5f,%.5f,%.4f,%.4f,%.2f,%.2f,%s,%.5f,%d\n", routine, shape,
                bc->case_name, kernel, shim_api, cublas_api, api_ratio, shim_k, cublas_k, kernel_ratio, gap,
                (shim_api - shim_k) * 1e3, (cublas_api - cublas_k) * 1e3, target, est, x.sets);
        fflush(csv);

        if (!(rel <= 1e-4)) {
            printf("FAIL: %s %s %s: the library's result differs from cuBLAS's by %.3g (relative)\n", routine, shape,
                   bc->case_name, rel);
            verify_failures++;
        }
        const shimblas_counts *b = bc->routine == SGEMM ? &before.sgemm : &before.sgemv;
        const shimblas_counts *a = bc->routine == SGEMM ? &after.sgemm : &after.sgemv;
        if (a->gpu - b->gpu != (unsigned long long)x.api_calls || a->calls - b->calls != (unsigned long long)x.api_calls) {
            printf("FAIL: %s %s %s: of %ld calls %llu ran on the GPU (cpu %llu, gpu_failed %llu, trivial %llu, errors "
                   "%llu): the times above are not the GPU path's\n",
                   routine, shape, bc->case_name, x.api_calls, a->gpu - b->gpu, a->cpu - b->cpu,
                   a->gpu_failed - b->gpu_failed, a->trivial - b->trivial, a->errors - b->errors);
            not_on_gpu++;
        }
        fflush(stdout);
        teardown(&x);
    }
    printf("\ngap target (API ratio at least %.0f %% of the kernel ratio, sgemm 256^3 and up): met %d of %d; "
           "verification failures: %d; shapes with calls not on the GPU: %d; csv: %s\n",
           100.0 * GAP_TARGET, met, targets, verify_failures, not_on_gpu, csv_path);
    fclose(csv);
    CUBLAS_CHECK(cublasDestroy(handle));
    BENCH_CUDA(cudaStreamDestroy(stream));
    return verify_failures || not_on_gpu ? 1 : 0;
}
