/* SGEMM arithmetic: accuracy and speed of shimblas's FP32, 3xTF32 and TF32 kernels beside cuBLAS,
 * in one run.
 *
 * Accuracy: C = A B with M = N = 128 and K = 16, 256, 4096, 65536 on six input classes (uniform
 * [-1, 1], normal, all-positive [0, 1], heavy cancellation, wide exponents 2^-60..2^60, denormal A);
 * for every output, err = |c - c64| / sum_k |a_ik b_kj| against a float64 reference computed on the
 * host from the same floats; max and RMS per method: cuBLAS pedantic FP32 (CUBLAS_COMPUTE_32F_PEDANTIC),
 * cuBLAS TF32 (CUBLAS_COMPUTE_32F_FAST_TF32), our fp32 and 3xtf32 modes (the selector's choice) and
 * each of our tensor-core variants (3xTF32 and TF32) by name.
 * Speed: TFLOP/s (median of 5 after warm-up) of cuBLAS pedantic FP32 and the same methods of ours, on
 * squares 2048-16384 (NN), the four transpose cases at 8192^3, and the awkward shapes of docs/perf.md
 * (64x4096x4096 and 8192x128x8192 in all four transpose cases, 1000^3 NN and TT).
 * Usage: sgemm_math [CSV [accuracy]]   (markdown to stdout, one CSV of both parts; "accuracy": that part only)
 *        sgemm_math CSV profile NAME M N K [TA TB]   (one method on one shape, for a profiler: see
 *        profile(); NAME: cublas, fp32, 3xtf32 or a variant's name; TA, TB: N or T) */
#include <cublas_v2.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "sgemm_kernels.h"

#define CUBLAS(call)                                                                                                 \
    do {                                                                                                             \
        cublasStatus_t s_ = (call);                                                                                  \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                           \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, (int)s_);                    \
            exit(1);                                                                                                 \
        }                                                                                                            \
    } while (0)

/* the methods compared: cuBLAS in two compute types, our selector in fp32 and in 3xtf32 mode (what
 * SHIMBLAS_SGEMM_MATH gives: the FP32 kernels where they are expected to be faster), and every
 * registered tensor-core variant of ours by name (filled in by find_methods) */
enum { CUBLAS_FP32, CUBLAS_TF32, OURS_FP32, OURS_3XTF32, FIRST_VARIANT, MAX_METHODS = 18 };
static const char *method_names[MAX_METHODS] = {"cuBLAS FP32 (pedantic)", "cuBLAS TF32", "shimblas fp32",
                                                "shimblas 3xtf32 mode"};
static const shim_sgemm_variant *method_variant[MAX_METHODS];
static int METHODS = FIRST_VARIANT;

static void find_methods(void)
{
    int count = 0;
    const shim_sgemm_variant *all = shim_sgemm_variants(&count);
    for (int i = 0; i < count && METHODS < MAX_METHODS; i++)
        if (all[i].math != SHIM_SGEMM_FP32) {
            static char names[MAX_METHODS][64];
            snprintf(names[METHODS], sizeof names[METHODS], "shimblas %s", all[i].name);
            method_names[METHODS] = names[METHODS];
            method_variant[METHODS++] = &all[i];
        }
}

static cublasHandle_t handle;
static cudaStream_t stream;

static uint64_t rng = 88172645463325252ull;
static double uniform01(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1.0p-53;
}

/* the arguments of C = A B for one of our methods: all column-major on the device, A m x k (transa:
 * stored k x m), B k x n (transb: n x k), packed */
static shim_sgemm_args args_of(int method, int ta, int tb, int m, int n, int k, const float *a, const float *b,
                               float *c)
{
    const shim_sgemm_variant *v = method_variant[method];
    const int math = v ? v->math : method == OURS_3XTF32 ? SHIM_SGEMM_3XTF32 : SHIM_SGEMM_FP32;
    shim_sgemm_args p = {.transa = ta,
                         .transb = tb,
                         .m = m,
                         .n = n,
                         .k = k,
                         .alpha = 1.0f,
                         .a = a,
                         .lda = ta ? k : m,
                         .b = b,
                         .ldb = tb ? n : k,
                         .c = c,
                         .ldc = m,
                         .stream = stream,
                         .math = math};
    return p;
}

/* C = A B (as args_of); returns the variant of ours that ran, NULL for cuBLAS */
static const shim_sgemm_variant *run(int method, int ta, int tb, int m, int n, int k, const float *a, const float *b,
                                     float *c)
{
    const float one = 1.0f, zero = 0.0f;
    int lda = ta ? k : m, ldb = tb ? n : k;
    if (method == CUBLAS_FP32 || method == CUBLAS_TF32) {
        CUBLAS(cublasGemmEx(handle, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &one, a,
                            CUDA_R_32F, lda, b, CUDA_R_32F, ldb, &zero, c, CUDA_R_32F, m,
                            method == CUBLAS_FP32 ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F_FAST_TF32,
                            CUBLAS_GEMM_DEFAULT));
        return NULL;
    }
    const shim_sgemm_variant *v = method_variant[method];
    shim_sgemm_args p = args_of(method, ta, tb, m, n, k, a, b, c);
    if (!v)
        v = shim_sgemm_select(&p);
    p.work_bytes = shim_sgemm_work_bytes(v, &p);
    p.work = bench_scratch(p.work_bytes);
    BENCH_CUDA(shim_sgemm_run(v, &p));
    return v;
}

/* whether the method takes the problem (a variant by name may decline one: the TMA-fed ones take
 * only leading dimensions that are multiples of 4) */
static int takes(int method, int ta, int tb, int m, int n, int k, const float *a, const float *b, float *c)
{
    const shim_sgemm_variant *v = method_variant[method];
    const shim_sgemm_args p = args_of(method, ta, tb, m, n, k, a, b, c);
    return !v || v->accepts(&p);
}

/* ---- accuracy ----------------------------------------------------------------------------------- */

enum input_class { UNIFORM, NORMAL, POSITIVE, CANCELLATION, WIDE, DENORMAL, CLASSES };
static const char *const class_names[CLASSES] = {"uniform", "normal", "positive", "cancellation", "wide exponent",
                                                 "denormal A"};

/* A (m x k) and B (k x n) column-major on the host, of one class */
static void make_inputs(int cls, int m, int n, int k, float *a, float *b)
{
    for (int64_t e = 0; e < (int64_t)m * k; e++) {
        double u = 2 * uniform01() - 1, v;
        switch (cls) {
        case NORMAL: v = sqrt(-2 * log(uniform01() + 1e-300)) * cos(6.283185307179586 * uniform01()); break;
        case POSITIVE: v = uniform01(); break;
        case WIDE: v = (u < 0 ? -1 : 1) * ldexp(1 + uniform01(), (int)floor(uniform01() * 121) - 60); break;
        case DENORMAL: v = ldexp(u, -130); break; /* |a| < 2^-130: every one denormal */
        default: v = u;
        }
        a[e] = (float)v;
    }
    if (cls == CANCELLATION) /* columns in pairs: a_i,2l+1 = a_i,2l */
        for (int l = 0; l + 1 < k; l += 2)
            memcpy(a + (int64_t)(l + 1) * m, a + (int64_t)l * m, sizeof(float) * m);
    for (int j = 0; j < n; j++)
        for (int l = 0; l < k; l++) {
            double u = 2 * uniform01() - 1, v;
            switch (cls) {
            case NORMAL: v = sqrt(-2 * log(uniform01() + 1e-300)) * cos(6.283185307179586 * uniform01()); break;
            case POSITIVE: v = uniform01(); break;
            case WIDE: v = (u < 0 ? -1 : 1) * ldexp(1 + uniform01(), (int)floor(uniform01() * 121) - 60); break;
            case DENORMAL: v = ldexp(u, 100); break;
            /* b_2l+1,j = -b_2l,j (1 + 2^-10 u): each pair of products cancels but for a small residual */
            case CANCELLATION: v = (l & 1) ? -(double)b[(l - 1) + (int64_t)j * k] * (1 + 0x1.0p-10 * u) : u; break;
            default: v = u;
            }
            b[l + (int64_t)j * k] = (float)v;
        }
}

static void accuracy(FILE *csv)
{
    const int m = 128, n = 128, ks[] = {16, 256, 4096, 65536};
    const int max_k = 65536;
    float *a = malloc(sizeof(float) * m * max_k), *b = malloc(sizeof(float) * max_k * n), *c = malloc(sizeof(float) * m * n);
    double *ref = malloc(sizeof(double) * m * n), *mag = malloc(sizeof(double) * m * n);
    float *da, *db, *dc;
    BENCH_CUDA(cudaMalloc((void **)&da, sizeof(float) * m * max_k));
    BENCH_CUDA(cudaMalloc((void **)&db, sizeof(float) * max_k * n));
    BENCH_CUDA(cudaMalloc((void **)&dc, sizeof(float) * m * n));
    printf("## Accuracy: max / RMS of |c - c64| / sum |a b| per output, M = N = 128\n\n| input | K |");
    for (int me = 0; me < METHODS; me++)
        printf(" %s |", method_names[me]);
    printf("\n| --- | ---: |");
    for (int me = 0; me < METHODS; me++)
        printf(" --- |");
    printf("\n");
    for (int cls = 0; cls < CLASSES; cls++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
            const int k = ks[ki];
            make_inputs(cls, m, n, k, a, b);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    double s = 0, g = 0;
                    for (int l = 0; l < k; l++) {
                        double t = (double)a[i + (int64_t)l * m] * b[l + (int64_t)j * k];
                        s += t;
                        g += fabs(t);
                    }
                    ref[i + j * m] = s;
                    mag[i + j * m] = g;
                }
            BENCH_CUDA(cudaMemcpy(da, a, sizeof(float) * m * k, cudaMemcpyHostToDevice));
            BENCH_CUDA(cudaMemcpy(db, b, sizeof(float) * k * n, cudaMemcpyHostToDevice));
            printf("| %s | %d |", class_names[cls], k);
            for (int me = 0; me < METHODS; me++) {
                BENCH_CUDA(cudaMemset(dc, 0xff, sizeof(float) * m * n));
                run(me, 0, 0, m, n, k, da, db, dc);
                BENCH_CUDA(cudaStreamSynchronize(stream));
                BENCH_CUDA(cudaDeviceSynchronize());
                BENCH_CUDA(cudaMemcpy(c, dc, sizeof(float) * m * n, cudaMemcpyDeviceToHost));
                double worst = 0, sq = 0;
                int counted = 0, nonfinite = 0;
                for (int e = 0; e < m * n; e++) {
                    if (fabs(ref[e]) > 3.4e38 || mag[e] == 0)
                        continue; /* beyond FP32's range, or nothing to compare */
                    if (!isfinite(c[e])) {
                        nonfinite++;
                        continue;
                    }
                    double err = fabs((double)c[e] - ref[e]) / mag[e];
                    worst = err > worst ? err : worst;
                    sq += err * err;
                    counted++;
                }
                double rms = counted ? sqrt(sq / counted) : 0;
                printf(" %.2g / %.2g%s |", worst, rms, nonfinite ? " (non-finite!)" : "");
                fprintf(csv, "accuracy,%s,%d,%s,%.6g,%.6g,%d\n", class_names[cls], k, method_names[me], worst, rms,
                        nonfinite);
            }
            printf("\n");
            fflush(stdout);
        }
    BENCH_CUDA(cudaFree(da));
    BENCH_CUDA(cudaFree(db));
    BENCH_CUDA(cudaFree(dc));
    free(a);
    free(b);
    free(c);
    free(ref);
    free(mag);
}

/* ---- speed -------------------------------------------------------------------------------------- */

typedef struct timed {
    int method, ta, tb, m, n, k;
    const float *a, *b;
    float *c;
} timed;

static void timed_run(int i, void *ctx, cudaStream_t s)
{
    (void)i, (void)s;
    timed *t = ctx;
    run(t->method, t->ta, t->tb, t->m, t->n, t->k, t->a, t->b, t->c);
}

static void speed(FILE *csv)
{
    struct shape {
        int m, n, k, ta, tb;
    } shapes[] = {{2048, 2048, 2048, 0, 0},  {4096, 4096, 4096, 0, 0}, {8192, 8192, 8192, 0, 0},
                  {16384, 16384, 16384, 0, 0}, {8192, 8192, 8192, 1, 0}, {8192, 8192, 8192, 0, 1},
                  {8192, 8192, 8192, 1, 1},  {4097, 4097, 4097, 0, 0}, {1000, 1000, 1000, 0, 0},
                  {1000, 1000, 1000, 1, 1},  {64, 4096, 4096, 0, 0},   {64, 4096, 4096, 1, 0},
                  {64, 4096, 4096, 0, 1},    {64, 4096, 4096, 1, 1},   {8192, 128, 8192, 0, 0},
                  {8192, 128, 8192, 1, 0},   {8192, 128, 8192, 0, 1},  {8192, 128, 8192, 1, 1},
                  {16384, 16384, 256, 0, 0}, {3000, 5000, 700, 1, 0}};
    const size_t max_elems = (size_t)16384 * 16384;
    float *a, *b, *c;
    BENCH_CUDA(cudaMalloc((void **)&a, sizeof(float) * max_elems));
    BENCH_CUDA(cudaMalloc((void **)&b, sizeof(float) * max_elems));
    BENCH_CUDA(cudaMalloc((void **)&c, sizeof(float) * max_elems));
    bench_fill_device(a, max_elems, 1);
    bench_fill_device(b, max_elems, 2);
    /* every method but cuBLAS TF32 (a different accuracy class, in the accuracy table only) */
    int speed_methods[MAX_METHODS], ns = 0;
    for (int me = 0; me < METHODS; me++)
        if (me != CUBLAS_TF32)
            speed_methods[ns++] = me;
    printf("\n## Speed: TFLOP/s, device operands (median of 5); ratios to cuBLAS FP32 (pedantic)\n\n| shape |");
    for (int i = 0; i < ns; i++)
        printf(" %s |", method_names[speed_methods[i]]);
    printf("\n| --- |");
    for (int i = 0; i < ns; i++)
        printf(" ---: |");
    printf("\n");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        struct shape sh = shapes[s];
        double tf[MAX_METHODS];
        printf("| %dx%dx%d %c%c |", sh.m, sh.n, sh.k, sh.ta ? 'T' : 'N', sh.tb ? 'T' : 'N');
        for (int i = 0; i < ns; i++) {
            if (!takes(speed_methods[i], sh.ta, sh.tb, sh.m, sh.n, sh.k, a, b, c)) {
                printf(" declines |");
                fprintf(csv, "speed,%dx%dx%d %c%c,%s,,\n", sh.m, sh.n, sh.k, sh.ta ? 'T' : 'N', sh.tb ? 'T' : 'N',
                        method_names[speed_methods[i]]);
                continue;
            }
            timed t = {speed_methods[i], sh.ta, sh.tb, sh.m, sh.n, sh.k, a, b, c};
            double ms = bench_median_ms(timed_run, &t, stream, 2, 5);
            tf[i] = 2.0 * sh.m * sh.n * (double)sh.k / (ms * 1e9);
            fprintf(csv, "speed,%dx%dx%d %c%c,%s,%.3f,%.3f\n", sh.m, sh.n, sh.k, sh.ta ? 'T' : 'N', sh.tb ? 'T' : 'N',
                    method_names[speed_methods[i]], ms, tf[i]);
            if (i == 0)
                printf(" %.1f |", tf[0]);
            else
                printf(" %.1f (%.2fx) |", tf[i], tf[i] / tf[0]);
        }
        printf("\n");
        fflush(stdout);
    }
    BENCH_CUDA(cudaFree(a));
    BENCH_CUDA(cudaFree(b));
    BENCH_CUDA(cudaFree(c));
}

/* one method on one shape, for a profiler: NAME is "cublas" (pedantic FP32), "fp32" or "3xtf32"
 * (the selector in that mode) or any variant by name, FP32 ones included; two warm-up
 * calls, then one call between cudaProfilerStart and cudaProfilerStop (ncu --profile-from-start
 * off sees that call's kernels only), then three timed calls */
static int profile(const char *name, int m, int n, int k, int ta, int tb)
{
    const shim_sgemm_variant *named;
    int me = -1;
    if (strcmp(name, "cublas") == 0)
        me = CUBLAS_FP32;
    else if (strcmp(name, "fp32") == 0)
        me = OURS_FP32;
    else if (strcmp(name, "3xtf32") == 0)
        me = OURS_3XTF32;
    else if ((named = shim_sgemm_find(name)) != NULL && METHODS < MAX_METHODS) {
        me = METHODS;
        method_names[METHODS] = name;
        method_variant[METHODS++] = named;
    }
    if (me < 0) {
        fprintf(stderr, "sgemm_math: no method or variant named %s\n", name);
        return 2;
    }
    const size_t ea = (size_t)m * k, eb = (size_t)k * n, ec = (size_t)m * n;
    float *a, *b, *c;
    BENCH_CUDA(cudaMalloc((void **)&a, sizeof(float) * ea));
    BENCH_CUDA(cudaMalloc((void **)&b, sizeof(float) * eb));
    BENCH_CUDA(cudaMalloc((void **)&c, sizeof(float) * ec));
    bench_fill_device(a, ea, 1);
    bench_fill_device(b, eb, 2);
    const shim_sgemm_variant *ran = run(me, ta, tb, m, n, k, a, b, c); /* the first warm-up */
    if (ran) {
        char how[256];
        const shim_sgemm_args p = args_of(me, ta, tb, m, n, k, a, b, c);
        shim_sgemm_describe(ran, &p, how, sizeof how);
        printf("%s %dx%dx%d %c%c runs %s\n", name, m, n, k, ta ? 'T' : 'N', tb ? 'T' : 'N', how);
    }
    timed t = {me, ta, tb, m, n, k, a, b, c};
    timed_run(1, &t, stream);
    BENCH_CUDA(cudaStreamSynchronize(stream));
    BENCH_CUDA(cudaProfilerStart());
    timed_run(0, &t, stream);
    BENCH_CUDA(cudaStreamSynchronize(stream));
    BENCH_CUDA(cudaProfilerStop());
    double ms = bench_median_ms(timed_run, &t, stream, 1, 3);
    printf("%s %dx%dx%d %c%c: %.3f ms, %.1f TFLOP/s\n", name, m, n, k, ta ? 'T' : 'N', tb ? 'T' : 'N', ms,
           2.0 * m * n * (double)k / (ms * 1e9));
    return 0;
}

int main(int argc, char **argv)
{
    FILE *csv = fopen(argc > 1 ? argv[1] : "sgemm_math.csv", "w");
    if (!csv) {
        perror("sgemm_math: csv");
        return 1;
    }
    fprintf(csv, "part,case,k_or_ms,method,max_or_tflops,rms,nonfinite\n");
    BENCH_CUDA(cudaStreamCreate(&stream));
    CUBLAS(cublasCreate(&handle));
    CUBLAS(cublasSetStream(handle, stream));
    find_methods();
    if (argc > 6 && strcmp(argv[2], "profile") == 0)
        return profile(argv[3], atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), argc > 7 && argv[7][0] == 'T',
                       argc > 8 && argv[8][0] == 'T');
    accuracy(csv);
    if (!(argc > 2 && strcmp(argv[2], "accuracy") == 0))
        speed(csv);
    fclose(csv);
    return 0;
}
