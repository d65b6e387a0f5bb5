/* Device-resident SGEMM benchmark: every rung of the kernel ladder and the selector against cuBLAS
 * (pedantic FP32, no tensor cores) in the same run, on squares and awkward shapes in all four
 * transposes. Random data, CUDA-event timing (median after warm-up), operand sets rotated where
 * one set would sit in L2. Prints a table and writes a CSV (argv[1], default sgemm_device.csv).
 * Every rung runs on NN; argv[2], a comma-separated list of variant names, also runs those on TN,
 * NT and TT. */
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

#define PEAK_TFLOPS 66.9  /* H200 FP32 FFMA peak */
#define MAX_CALL_MS 500.0 /* rungs expected to take longer per call are skipped */
#define TARGET_MS 300.0   /* timed work per measurement, before the rep limits */
#define MAX_SETS 16
#define MAX_VARIANTS 64

#define CUBLAS_CHECK(call) cublas_check((int)(call), #call, __LINE__)
static void cublas_check(int st, const char *what, int line)
{
    if (st != 0) {
        fprintf(stderr, "sgemm_device.c:%d: %s failed: cuBLAS status %d\n", line, what, st);
        exit(1);
    }
}

typedef struct {
    int m, n, k;
    double target; /* ratio to cuBLAS the selector must reach on every transpose; 0: none */
} shape;

static const shape shapes[] = {
    {1024, 1024, 1024, 0.0},     {2048, 2048, 2048, 0.95}, {4096, 4096, 4096, 0.95}, {8192, 8192, 8192, 0.95},
    {16384, 16384, 16384, 0.95}, {4096, 4096, 64, 1.1},    {64, 4096, 4096, 1.1},    {8192, 128, 8192, 1.1},
    {1000, 1000, 1000, 1.1},     {4097, 4097, 4097, 1.1},  {16384, 16384, 256, 1.1}, {128, 128, 65536, 1.1},
};
#define NSHAPES ((int)(sizeof shapes / sizeof *shapes))
static const char *const case_names[4] = {"NN", "TN", "NT", "TT"}; /* index: transa | transb << 1 */

/* one set of operands per rotation slot, carved from pools filled once */
typedef struct {
    int sets;
    const float *a[MAX_SETS], *b[MAX_SETS];
    float *c[MAX_SETS];
} operands;

typedef struct {
    const shim_sgemm_variant *v; /* NULL: cuBLAS */
    cublasHandle_t handle;
    shim_sgemm_args args; /* a, b, c replaced per rotation slot */
    const operands *ops;
} call_ctx;

static void run_call(int i, void *p, cudaStream_t stream)
{
    call_ctx *x = p;
    int s = i % x->ops->sets;
    shim_sgemm_args a = x->args;
    a.a = x->ops->a[s];
    a.b = x->ops->b[s];
    a.c = x->ops->c[s];
    a.stream = stream;
    if (x->v) {
        BENCH_CUDA(shim_sgemm_run(x->v, &a));
    } else {
        CUBLAS_CHECK(cublasSgemm(x->handle, a.transa ? CUBLAS_OP_T : CUBLAS_OP_N,
                                 a.transb ? CUBLAS_OP_T : CUBLAS_OP_N, a.m, a.n, a.k, &a.alpha, a.a,
                                 (int)a.lda, a.b, (int)a.ldb, &a.beta, a.c, (int)a.ldc));
    }
}

static void *work;
static size_t work_len;

static void ensure_work(size_t bytes)
{
    if (bytes <= work_len)
        return;
    BENCH_CUDA(cudaFree(work));
    BENCH_CUDA(cudaMalloc(&work, bytes));
    work_len = bytes;
}

/* median milliseconds of one call; est_ms sizes the repetitions */
static double measure(call_ctx *x, cudaStream_t stream, double est_ms)
{
    int reps = est_ms > 0 ? (int)(TARGET_MS / est_ms) : 20;
    reps = reps < 5 ? 5 : reps > 30 ? 30 : reps;
    int warmup = est_ms > 100.0 ? 1 : 3;
    if (x->v)
        ensure_work(shim_sgemm_work_bytes(x->v, &x->args));
    x->args.work = work;
    x->args.work_bytes = work_len;
    return bench_median_ms(run_call, x, stream, warmup, reps);
}

/* largest relative difference of our C against cuBLAS's over a few column stripes */
static double compare_stripes(const float *ours, const float *ref, int m, int n, int64_t ldc)
{
    int cols[24], ncols = 0;
    for (int s = 0; s < 3; s++)
        for (int j = 0; j < 8; j++) {
            int col = s == 0 ? j : s == 1 ? n / 2 + j : n - 8 + j;
            if (col >= 0 && col < n)
                cols[ncols++] = col;
        }
    float *h1 = malloc(sizeof(float) * (size_t)m), *h2 = malloc(sizeof(float) * (size_t)m);
    double maxdiff = 0.0, maxref = 0.0;
    for (int c = 0; c < ncols; c++) {
        BENCH_CUDA(
            cudaMemcpy(h1, ours + (int64_t)cols[c] * ldc, sizeof(float) * (size_t)m, cudaMemcpyDeviceToHost));
        BENCH_CUDA(
            cudaMemcpy(h2, ref + (int64_t)cols[c] * ldc, sizeof(float) * (size_t)m, cudaMemcpyDeviceToHost));
        for (int i = 0; i < m; i++) {
            double d = fabs((double)h1[i] - (double)h2[i]);
            if (!(d <= maxdiff)) /* NaN propagates */
                maxdiff = d;
            if (fabs((double)h2[i]) > maxref)
                maxref = fabs((double)h2[i]);
        }
    }
    free(h1);
    free(h2);
    return maxref > 0 ? maxdiff / maxref : maxdiff;
}

typedef struct {
    double sel_ratio[NSHAPES][4];
    const char *sel_name[NSHAPES][4];
} summary;

/* name is one of the comma-separated names in list */
static int named(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *at = list; at && *at;) {
        const char *end = strchr(at, ',');
        size_t n = end ? (size_t)(end - at) : strlen(at);
        if (n == len && strncmp(at, name, len) == 0)
            return 1;
        at = end ? end + 1 : NULL;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *every_case = argc > 2 ? argv[2] : "";
    const char *csv_path = argc > 1 ? argv[1] : "sgemm_device.csv";
    struct cudaDeviceProp prop;
    BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
    FILE *csv = fopen(csv_path, "w");
    if (!csv) {
        fprintf(stderr, "cannot write %s\n", csv_path);
        return 1;
    }
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    fprintf(csv, "# device: %s (%d SMs), date: %s, alpha=1 beta=0, peak %.1f TFLOP/s, cuBLAS pedantic FP32\n",
            prop.name, prop.multiProcessorCount, date, PEAK_TFLOPS);
    fprintf(csv, "routine,shape,case,variant,ms,tflops,pct_peak,ratio_cublas\n");
    printf("sgemm device benchmark: %s, %d SMs, %s; alpha=1 beta=0; peak %.1f TFLOP/s\n", prop.name,
           prop.multiProcessorCount, date, PEAK_TFLOPS);

    cudaStream_t stream;
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));

    /* pools big enough for every shape's rotation, filled once with random data */
    size_t pool_a = 0, pool_b = 0, pool_c = 0;
    int sets_of[NSHAPES];
    for (int s = 0; s < NSHAPES; s++) {
        const shape *sh = &shapes[s];
        size_t ea = (size_t)sh->m * sh->k, eb = (size_t)sh->k * sh->n, ec = (size_t)sh->m * sh->n;
        sets_of[s] = bench_rotation((ea + eb + ec) * sizeof(float), MAX_SETS);
        if (ea * sets_of[s] > pool_a)
            pool_a = ea * sets_of[s];
        if (eb * sets_of[s] > pool_b)
            pool_b = eb * sets_of[s];
        if (ec * (sets_of[s] + 1) > pool_c) /* +1: cuBLAS's result for the check */
            pool_c = ec * (sets_of[s] + 1);
    }
    float *da, *db, *dc;
    BENCH_CUDA(cudaMalloc((void **)&da, pool_a * sizeof(float)));
    BENCH_CUDA(cudaMalloc((void **)&db, pool_b * sizeof(float)));
    BENCH_CUDA(cudaMalloc((void **)&dc, pool_c * sizeof(float)));
    bench_fill_device(da, pool_a, 1);
    bench_fill_device(db, pool_b, 2);
    BENCH_CUDA(cudaMemset(dc, 0, pool_c * sizeof(float))); /* beta == 0: C is output only */
    /* the uploads from pageable memory and the memset may still be in flight on the legacy stream,
     * which the non-blocking benchmark stream does not wait for */
    BENCH_CUDA(cudaDeviceSynchronize());

    int nvar = 0;
    const shim_sgemm_variant *all = shim_sgemm_variants(&nvar);
    if (nvar > MAX_VARIANTS)
        nvar = MAX_VARIANTS;
    double best_rate[MAX_VARIANTS] = {0}; /* TFLOP/s: the fastest NN rate seen, for time estimates */
    static summary sum;
    int verify_failures = 0;

    printf("\n%-16s %-4s %-30s %10s %9s %7s %8s\n", "shape", "case", "variant", "ms", "TFLOP/s", "%peak",
           "vs cuBLAS");
    for (int s = 0; s < NSHAPES; s++) {
        const shape *sh = &shapes[s];
        char shape_name[48];
        snprintf(shape_name, sizeof shape_name, "%dx%dx%d", sh->m, sh->n, sh->k);
        const double flops = 2.0 * sh->m * (double)sh->n * sh->k;
        operands ops;
        ops.sets = sets_of[s];
        for (int r = 0; r < ops.sets; r++) {
            ops.a[r] = da + (size_t)r * sh->m * sh->k;
            ops.b[r] = db + (size_t)r * sh->k * sh->n;
            ops.c[r] = dc + (size_t)r * sh->m * sh->n;
        }
        float *c_ref = dc + (size_t)ops.sets * sh->m * sh->n;

        for (int tc = 0; tc < 4; tc++) {
            shim_sgemm_args args;
            memset(&args, 0, sizeof args);
            args.transa = tc & 1;
            args.transb = tc >> 1;
            args.m = sh->m;
            args.n = sh->n;
            args.k = sh->k;
            args.alpha = 1.0f;
            args.beta = 0.0f;
            args.lda = args.transa ? sh->k : sh->m;
            args.ldb = args.transb ? sh->n : sh->k;
            args.ldc = sh->m;
            args.stream = stream;

            call_ctx cub = {NULL, handle, args, &ops};
            double cub_ms = measure(&cub, stream, flops / 40e12 * 1e3);
            double cub_tf = flops / (cub_ms * 1e9);
            printf("%-16s %-4s %-30s %10.3f %9.2f %7.1f %8s\n", shape_name, case_names[tc], "cublas", cub_ms,
                   cub_tf, 100.0 * cub_tf / PEAK_TFLOPS, "1.000");
            fprintf(csv, "sgemm,%s,%s,cublas,%.4f,%.3f,%.2f,1.000\n", shape_name, case_names[tc], cub_ms,
                    cub_tf, 100.0 * cub_tf / PEAK_TFLOPS);

            const shim_sgemm_variant *sel = shim_sgemm_select(&args);
            call_ctx mine = {sel, handle, args, &ops};
            double sel_ms = measure(&mine, stream, flops / 40e12 * 1e3);
            double sel_tf = flops / (sel_ms * 1e9), ratio = cub_ms / sel_ms;
            char label[96];
            snprintf(label, sizeof label, "selector[%s]", sel->name);
            printf("%-16s %-4s %-30s %10.3f %9.2f %7.1f %8.3f\n", shape_name, case_names[tc], label, sel_ms,
                   sel_tf, 100.0 * sel_tf / PEAK_TFLOPS, ratio);
            fprintf(csv, "sgemm,%s,%s,%s,%.4f,%.3f,%.2f,%.3f\n", shape_name, case_names[tc], label, sel_ms,
                    sel_tf, 100.0 * sel_tf / PEAK_TFLOPS, ratio);
            sum.sel_ratio[s][tc] = ratio;
            sum.sel_name[s][tc] = sel->name;

            /* the selector's result against cuBLAS's, on the first operand set */
            {
                shim_sgemm_args a = args;
                a.a = ops.a[0];
                a.b = ops.b[0];
                a.c = c_ref;
                CUBLAS_CHECK(cublasSgemm(handle, a.transa ? CUBLAS_OP_T : CUBLAS_OP_N,
                                         a.transb ? CUBLAS_OP_T : CUBLAS_OP_N, a.m, a.n, a.k, &a.alpha, a.a,
                                         (int)a.lda, a.b, (int)a.ldb, &a.beta, a.c, (int)a.ldc));
                a.c = ops.c[0];
                ensure_work(shim_sgemm_work_bytes(sel, &a));
                a.work = work;
                a.work_bytes = work_len;
                BENCH_CUDA(shim_sgemm_run(sel, &a));
                BENCH_CUDA(cudaStreamSynchronize(stream));
                double rel = compare_stripes(ops.c[0], c_ref, sh->m, sh->n, sh->m);
                if (!(rel <= 1e-4)) {
                    printf("%-16s %-4s VERIFY FAILED: selector (%s) differs from cuBLAS by %.3g (relative)\n",
                           shape_name, case_names[tc], sel->name, rel);
                    verify_failures++;
                }
            }

            /* every rung on NN, unless it would take too long; the named ones in every case */
            for (int v = 0; v < nvar; v++) {
                if (tc != 0 && !named(every_case, all[v].name))
                    continue;
                double est_ms = best_rate[v] > 0 ? flops / (best_rate[v] * 1e9) : 0.0;
                if (est_ms > MAX_CALL_MS) {
                    printf("%-16s %-4s %-30s %10s\n", shape_name, case_names[tc], all[v].name,
                           "skipped (too slow)");
                    continue;
                }
                call_ctx rung = {&all[v], handle, args, &ops};
                double ms = measure(&rung, stream, est_ms);
                double tf = flops / (ms * 1e9);
                if (tf > best_rate[v])
                    best_rate[v] = tf;
                printf("%-16s %-4s %-30s %10.3f %9.2f %7.1f %8.3f\n", shape_name, case_names[tc], all[v].name,
                       ms, tf, 100.0 * tf / PEAK_TFLOPS, cub_ms / ms);
                fprintf(csv, "sgemm,%s,%s,%s,%.4f,%.3f,%.2f,%.3f\n", shape_name, case_names[tc], all[v].name,
                        ms, tf, 100.0 * tf / PEAK_TFLOPS, cub_ms / ms);
            }
        }
        fflush(csv);
        fflush(stdout);
    }

    /* the selector against the targets: the worst of the four transposes decides */
    printf("\nselector vs cuBLAS (ratio per case NN TN NT TT; target on the worst)\n");
    int met = 0, targets = 0;
    for (int s = 0; s < NSHAPES; s++) {
        const shape *sh = &shapes[s];
        double worst = INFINITY;
        for (int tc = 0; tc < 4; tc++)
            if (sum.sel_ratio[s][tc] < worst)
                worst = sum.sel_ratio[s][tc];
        char shape_name[48];
        snprintf(shape_name, sizeof shape_name, "%dx%dx%d", sh->m, sh->n, sh->k);
        printf("  %-16s %6.3f %6.3f %6.3f %6.3f  ", shape_name, sum.sel_ratio[s][0], sum.sel_ratio[s][1],
               sum.sel_ratio[s][2], sum.sel_ratio[s][3]);
        if (sh->target > 0) {
            targets++;
            met += worst >= sh->target;
            printf("target >= %.2fx: %s (%s)\n", sh->target, worst >= sh->target ? "met" : "MISSED",
                   sum.sel_name[s][0]);
        } else {
            printf("no target (%s)\n", sum.sel_name[s][0]);
        }
    }
    printf("targets met: %d of %d; verification failures: %d\n", met, targets, verify_failures);

    fclose(csv);
    CUBLAS_CHECK(cublasDestroy(handle));
    BENCH_CUDA(cudaFree(da));
    BENCH_CUDA(cudaFree(db));
    BENCH_CUDA(cudaFree(dc));
    BENCH_CUDA(cudaFree(work));
    BENCH_CUDA(cudaStreamDestroy(stream));
    return verify_failures ? 1 : 0;
}
