/* Device-resident SGEMV: every registered variant and the selector's choice against cuBLAS, on the
 * four layout/transpose cases of each shape, as a percentage of the copy bandwidth measured in the
 * same run. Bytes counted: A + x + y (beta = 0, so y is written once and never read).
 *
 *   sgemv_device [out.csv]      (default sgemv_device.csv) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "bench_util.h"
#include "sgemv_kernels.h"

#define MAX_SETS 16
#define WARMUP 3
#define REPS 30
#define REPS_HUGE 10    /* the 1 GiB shape: one buffer set, fewer runs */
#define SLOW_RUN_MS 5.0 /* a variant far off its intended shapes: time a few runs only */
#define REPS_SLOW 3

typedef struct {
    long long rows, cols; /* M x K as the caller sees it */
} bench_shape;

static const bench_shape shapes[] = {
    {1048576, 16}, {524288, 32}, {1048576, 64}, {131072, 128}, {256, 65536},
    {4096, 4096},  {2048, 2048}, {8192, 8192},  {16384, 16384},
};
#define SHAPE_COUNT ((int)(sizeof shapes / sizeof shapes[0]))

enum { ROW_N, ROW_T, COL_N, COL_T, CASE_COUNT };
static const char *const case_names[CASE_COUNT] = {"rowmajor_N", "rowmajor_T", "colmajor_N", "colmajor_T"};

/* the column-major problem reference CBLAS hands over: row-major swaps M and K and flips op */
static void canonical(const bench_shape *s, int c, int *trans, int *m, int *n, long long *lda)
{
    switch (c) {
    case ROW_N: *trans = 1, *m = (int)s->cols, *n = (int)s->rows, *lda = s->cols; break;
    case ROW_T: *trans = 0, *m = (int)s->cols, *n = (int)s->rows, *lda = s->cols; break;
    case COL_N: *trans = 0, *m = (int)s->rows, *n = (int)s->cols, *lda = s->rows; break;
    default: *trans = 1, *m = (int)s->rows, *n = (int)s->cols, *lda = s->rows; break;
    }
}

typedef struct {
    int sets;
    float *a[MAX_SETS], *x[MAX_SETS], *y[MAX_SETS];
    int trans, m, n;
    long long lda;
    const shim_sgemv_variant *variant; /* NULL: cuBLAS */
    cublasHandle_t handle;
    void *work;
    size_t work_bytes;
} bench_ctx;

static void run_once(int i, void *p, cudaStream_t stream)
{
    bench_ctx *c = p;
    const int s = i % c->sets;
    const float alpha = 1.0f, beta = 0.0f;
    if (!c->variant) {
        cublasStatus_t st = cublasSgemv_v2(c->handle, c->trans ? CUBLAS_OP_T : CUBLAS_OP_N, c->m, c->n, &alpha,
                                           c->a[s], (int)c->lda, c->x[s], 1, &beta, c->y[s], 1);
        if (st != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "cublasSgemv failed: %d\n", (int)st);
            exit(1);
        }
        return;
    }
    shim_sgemv_args args;
    memset(&args, 0, sizeof args);
    args.trans = c->trans;
    args.m = c->m;
    args.n = c->n;
    args.alpha = alpha;
    args.beta = beta;
    args.a = c->a[s];
    args.lda = c->lda;
    args.x = c->x[s];
    args.y = c->y[s];
    args.work = c->work;
    args.work_bytes = c->work_bytes;
    args.stream = stream;
    BENCH_CUDA(shim_sgemv_run(c->variant, &args));
}

/* one untimed-for-the-result warm run decides how many repetitions a variant gets */
static double time_variant(bench_ctx *c, cudaStream_t stream, int reps)
{
    cudaEvent_t t0, t1;
    BENCH_CUDA(cudaEventCreate(&t0));
    BENCH_CUDA(cudaEventCreate(&t1));
    BENCH_CUDA(cudaEventRecord(t0, stream));
    run_once(0, c, stream);
    BENCH_CUDA(cudaEventRecord(t1, stream));
    BENCH_CUDA(cudaEventSynchronize(t1));
    float first = 0.0f;
    BENCH_CUDA(cudaEventElapsedTime(&first, t0, t1));
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    if (first > SLOW_RUN_MS)
        return bench_median_ms(run_once, c, stream, 0, REPS_SLOW);
    return bench_median_ms(run_once, c, stream, WARMUP, reps);
}

typedef struct {
    char shape[32];
    const char *case_name;
    const char *selected;
    double pct, ratio;
    int want_pct, want_ratio; /* which targets apply */
    int mismatch;
} summary_row;

/* the selector's output against cuBLAS's, loosely: catches a broken variant, not rounding */
static int outputs_agree(const float *dy_sel, const float *dy_ref, int len, double *rel)
{
    float *a = malloc(sizeof(float) * (size_t)len), *b = malloc(sizeof(float) * (size_t)len);
    BENCH_CUDA(cudaMemcpy(a, dy_sel, sizeof(float) * (size_t)len, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(b, dy_ref, sizeof(float) * (size_t)len, cudaMemcpyDeviceToHost));
    double maxref = 0.0, maxdiff = 0.0;
    int finite = 1;
    for (int i = 0; i < len; i++) {
        if (!isfinite(a[i]))
            finite = 0;
        maxref = fmax(maxref, fabs((double)b[i]));
        maxdiff = fmax(maxdiff, fabs((double)a[i] - (double)b[i]));
    }
    free(a);
    free(b);
    *rel = maxref > 0.0 ? maxdiff / maxref : maxdiff;
    return finite && *rel <= 1e-4;
}

int main(int argc, char **argv)
{
    const char *csv_path = argc > 1 ? argv[1] : "sgemv_device.csv";
    FILE *csv = fopen(csv_path, "w");
    if (!csv) {
        fprintf(stderr, "cannot write %s\n", csv_path);
        return 1;
    }
    struct cudaDeviceProp prop;
    BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
    const double copy_gbps = bench_copy_gbps((size_t)1 << 30);
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
    printf("device: %s, %d SMs; copy bandwidth (read + write) %.1f GB/s\n", prop.name, prop.multiProcessorCount,
           copy_gbps);
    fprintf(csv, "# device=%s, date=%s, copy_gbps=%.1f\n", prop.name, date, copy_gbps);
    fprintf(csv, "routine,shape,case,variant,ms,gbps,pct_copy,ratio_cublas\n");

    cudaStream_t stream;
    BENCH_CUDA(cudaStreamCreate(&stream));
    cublasHandle_t handle;
    if (cublasCreate_v2(&handle) != CUBLAS_STATUS_SUCCESS || cublasSetStream_v2(handle, stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetPointerMode_v2(handle, CUBLAS_POINTER_MODE_HOST) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS initialisation failed\n");
        return 1;
    }
    int variant_count;
    const shim_sgemv_variant *variants = shim_sgemv_variants(&variant_count);
    summary_row summary[SHAPE_COUNT * CASE_COUNT];
    int rows = 0, mismatches = 0;

    for (int si = 0; si < SHAPE_COUNT; si++) {
        const bench_shape *sh = &shapes[si];
        const size_t a_elems = (size_t)sh->rows * (size_t)sh->cols;
        const size_t v_elems = (size_t)(sh->rows > sh->cols ? sh->rows : sh->cols);
        const size_t set_bytes = (a_elems + 2 * v_elems) * sizeof(float);
        const int huge = a_elems * sizeof(float) >= ((size_t)1 << 30);
        bench_ctx c;
        memset(&c, 0, sizeof c);
        c.handle = handle;
        c.sets = huge ? 1 : bench_rotation(set_bytes, MAX_SETS);
        for (int s = 0; s < c.sets; s++) {
            BENCH_CUDA(cudaMalloc((void **)&c.a[s], a_elems * sizeof(float)));
            BENCH_CUDA(cudaMalloc((void **)&c.x[s], v_elems * sizeof(float)));
            BENCH_CUDA(cudaMalloc((void **)&c.y[s], v_elems * sizeof(float)));
            bench_fill_device(c.a[s], a_elems, 1000 + 17 * (unsigned long long)s);
            bench_fill_device(c.x[s], v_elems, 2000 + 17 * (unsigned long long)s);
            BENCH_CUDA(cudaMemset(c.y[s], 0, v_elems * sizeof(float)));
        }
        float *y_ref;
        BENCH_CUDA(cudaMalloc((void **)&y_ref, v_elems * sizeof(float)));
        char shape_name[32];
        snprintf(shape_name, sizeof shape_name, "%lldx%lld", sh->rows, sh->cols);
        const int reps = huge ? REPS_HUGE : REPS;
        printf("\n== %s (A %.0f MB, %d buffer set%s)\n", shape_name, a_elems * 4.0 / 1e6, c.sets, c.sets > 1 ? "s" : "");

        for (int ci = 0; ci < CASE_COUNT; ci++) {
            canonical(sh, ci, &c.trans, &c.m, &c.n, &c.lda);
            const int lenx = c.trans ? c.m : c.n, leny = c.trans ? c.n : c.m;
            const double bytes = ((double)a_elems + lenx + leny) * sizeof(float);
            shim_sgemv_args probe;
            memset(&probe, 0, sizeof probe);
            probe.trans = c.trans;
            probe.m = c.m;
            probe.n = c.n;
            probe.alpha = 1.0f;
            probe.a = c.a[0];
            probe.lda = c.lda;
            probe.x = c.x[0];
            probe.y = c.y[0];
            probe.stream = stream;
            const shim_sgemv_variant *selected = shim_sgemv_select(&probe);
            size_t work = 0;
            for (int vi = 0; vi < variant_count; vi++)
                if (variants[vi].accepts(&probe)) {
                    size_t w = shim_sgemv_work_bytes(&variants[vi], &probe);
                    work = w > work ? w : work;
                }
            c.work = NULL;
            c.work_bytes = work;
            if (work)
                BENCH_CUDA(cudaMalloc(&c.work, work));

            printf("-- %s %s: canonical trans=%d m=%d n=%d lda=%lld\n", shape_name, case_names[ci], c.trans, c.m,
                   c.n, c.lda);
            printf("   %-26s %9s %9s %7s %8s\n", "variant", "ms", "GB/s", "%copy", "xcuBLAS");
            c.variant = NULL;
            const double cublas_ms = time_variant(&c, stream, reps);
            double sel_pct = 0.0, sel_ratio = 0.0;
            /* index -1: cuBLAS; variant_count: the selector's choice */
            for (int vi = -1; vi <= variant_count; vi++) {
                const shim_sgemv_variant *v = vi < 0 ? NULL : vi < variant_count ? &variants[vi] : selected;
                if (v && !v->accepts(&probe))
                    continue;
                c.variant = v;
                const double ms = vi < 0 ? cublas_ms : time_variant(&c, stream, reps);
                const double gbps = bytes / (ms * 1e6), pct = 100.0 * gbps / copy_gbps, ratio = cublas_ms / ms;
                char label[64];
                if (vi < 0)
                    snprintf(label, sizeof label, "cublas");
                else if (vi < variant_count)
                    snprintf(label, sizeof label, "%s", v->name);
                else
                    snprintf(label, sizeof label, "selected:%s", v->name);
                printf("   %-26s %9.4f %9.1f %7.1f %8.2f\n", label, ms, gbps, pct, ratio);
                fprintf(csv, "sgemv,%s,%s,%s,%.5f,%.1f,%.2f,%.3f\n", shape_name, case_names[ci], label, ms, gbps, pct,
                        ratio);
                if (vi == variant_count) {
                    sel_pct = pct;
                    sel_ratio = ratio;
                }
            }
            fflush(csv);

            /* the selector's result against cuBLAS's, on buffer set 0 */
            c.variant = NULL;
            run_once(0, &c, stream);
            BENCH_CUDA(cudaMemcpyAsync(y_ref, c.y[0], (size_t)leny * sizeof(float), cudaMemcpyDeviceToDevice, stream));
            BENCH_CUDA(cudaMemsetAsync(c.y[0], 0xff, (size_t)leny * sizeof(float), stream)); /* NaN until written */
            c.variant = selected;
            run_once(0, &c, stream);
            BENCH_CUDA(cudaStreamSynchronize(stream));
            double rel;
            const int agree = outputs_agree(c.y[0], y_ref, leny, &rel);
            if (!agree) {
                printf("   MISMATCH: %s differs from cuBLAS (max relative difference %.3g)\n", selected->name, rel);
                mismatches++;
            }

            summary_row *r = &summary[rows++];
            snprintf(r->shape, sizeof r->shape, "%s", shape_name);
            r->case_name = case_names[ci];
            r->selected = selected->name;
            r->pct = sel_pct;
            r->ratio = sel_ratio;
            r->want_pct = a_elems * sizeof(float) >= ((size_t)256 << 20);
            r->want_ratio = ci == ROW_N && ((sh->rows >= 131072 && sh->cols <= 128) || (sh->rows == 256 && sh->cols == 65536));
            r->mismatch = !agree;
            if (c.work)
                BENCH_CUDA(cudaFree(c.work));
        }
        for (int s = 0; s < c.sets; s++) {
            BENCH_CUDA(cudaFree(c.a[s]));
            BENCH_CUDA(cudaFree(c.x[s]));
            BENCH_CUDA(cudaFree(c.y[s]));
        }
        BENCH_CUDA(cudaFree(y_ref));
    }

    int missed = 0;
    printf("\n== summary: selector vs cuBLAS (targets: >= 90%% of copy for A >= 256 MB; >= 1.5x cuBLAS on the "
           "skinny row-major N shapes)\n");
    printf("%-14s %-11s %-18s %7s %8s  %s\n", "shape", "case", "selected", "%copy", "xcuBLAS", "targets");
    for (int i = 0; i < rows; i++) {
        const summary_row *r = &summary[i];
        char targets[96] = "";
        if (r->want_pct) {
            const int met = r->pct >= 90.0;
            missed += !met;
            strcat(targets, met ? ">=90%: met " : ">=90%: MISSED ");
        }
        if (r->want_ratio) {
            const int met = r->ratio >= 1.5;
            missed += !met;
            strcat(targets, met ? ">=1.5x: met " : ">=1.5x: MISSED ");
        }
        if (r->mismatch)
            strcat(targets, "OUTPUT MISMATCH");
        printf("%-14s %-11s %-18s %7.1f %8.2f  %s\n", r->shape, r->case_name, r->selected, r->pct, r->ratio,
               targets[0] ? targets : "-");
    }
    printf("targets missed: %d; output mismatches: %d; csv: %s\n", missed, mismatches, csv_path);
    fclose(csv);
    cublasDestroy_v2(handle);
    BENCH_CUDA(cudaStreamDestroy(stream));
    return mismatches ? 1 : 0;
}
