/* The FP32 selector against its own candidates: for every shape read from SHAPES (lines "M N K TA TB",
 * column-major, TA and TB N or T), the median time of each named FP32 variant (the plans the
 * selector chooses among), of the selector's choice and of cuBLAS pedantic FP32, on device operands
 * (the same operands every call, as bench/sgemm_math profile). What it answers: how far the cost
 * model's choice is from the fastest plan we have, shape by shape, so that its constants can be
 * fitted to measurements (docs/notes/sgemm.md) rather than guessed.
 * Usage: sgemm_plans SHAPES CSV [NAMES]   (NAMES: comma-separated variants, default below; "none":
 *        the selector's choice and cuBLAS only)
 * CSV rows: m,n,k,case,method,ms,plan (method: a variant's name, "selector" or "cublas"). stdout: one
 * line a shape (the selector's choice, the fastest candidate, their ratio) and a summary. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"
#include "sgemm_kernels.h"
#include "sgemm_shapes.h"

#define MAX_NAMES 24
static const char DEFAULT_NAMES[] = "naive,pipelined_64x64,pipelined_128x64,pipelined_64x128,pipelined_128x128,"
                                    "pipelined_128x256,splitk,splitk_tail,streamk,transpose_first,warptile";

static cublasHandle_t handle;
static cudaStream_t stream;

typedef struct job {
    const shim_sgemm_variant *v; /* NULL: cuBLAS */
    shim_sgemm_args p;
} job;

static void run_job(int i, void *ctx, cudaStream_t s)
{
    (void)i, (void)s;
    job *j = ctx;
    if (!j->v) {
        bench_cublas_sgemm(handle, &j->p, "sgemm_plans");
        return;
    }
    BENCH_CUDA(shim_sgemm_run(j->v, &j->p));
}

/* the median ms of v (NULL: cuBLAS) on p, after making room for its workspace */
static double time_it(const shim_sgemm_variant *v, shim_sgemm_args p)
{
    if (v) {
        p.work_bytes = shim_sgemm_work_bytes(v, &p);
        p.work = bench_scratch(p.work_bytes);
    }
    job j = {v, p};
    return bench_median_ms(run_job, &j, stream, 2, 5);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sgemm_plans SHAPES CSV [NAMES]\n");
        return 2;
    }
    int count = 0;
    size_t max[3];
    bench_shape *shapes = bench_read_shapes(argv[1], "sgemm_plans", &count, max);
    FILE *csv = shapes ? fopen(argv[2], "w") : NULL;
    if (!csv) {
        if (shapes)
            perror("sgemm_plans");
        return 1;
    }
    char names_buf[1024];
    snprintf(names_buf, sizeof names_buf, "%s",
             argc > 3 ? (strcmp(argv[3], "none") ? argv[3] : "") : DEFAULT_NAMES);
    const shim_sgemm_variant *cand[MAX_NAMES];
    int ncand = 0;
    for (char *save = NULL, *tok = strtok_r(names_buf, ",", &save); tok && ncand < MAX_NAMES;
         tok = strtok_r(NULL, ",", &save)) {
        if (!(cand[ncand] = shim_sgemm_find(tok))) {
            fprintf(stderr, "sgemm_plans: no variant named %s\n", tok);
            return 2;
        }
        if (cand[ncand]->math != SHIM_SGEMM_FP32) {
            fprintf(stderr, "sgemm_plans: %s is not an FP32 variant\n", tok);
            return 2;
        }
        ncand++;
    }

    bench_sgemm_rig rig = bench_sgemm_rig_start(max, "sgemm_plans");
    stream = rig.stream;
    handle = rig.handle;
    float *const a = rig.a, *const b = rig.b, *const c = rig.c;

    fprintf(csv, "m,n,k,case,method,ms,plan\n");
    double log_regret = 0, worst = 1, log_vs_cublas = 0;
    int off5 = 0;
    for (int s = 0; s < count; s++) {
        const bench_shape sh = shapes[s];
        const shim_sgemm_args p = bench_shape_args(sh, a, b, c, stream);
        char cs[3] = {sh.ta ? 'T' : 'N', sh.tb ? 'T' : 'N', 0}, how[256];
        double best = INFINITY;
        const char *best_name = "";
        for (int i = 0; i < ncand; i++) {
            if (!cand[i]->accepts(&p))
                continue;
            double ms = time_it(cand[i], p);
            shim_sgemm_describe(cand[i], &p, how, sizeof how);
            fprintf(csv, "%d,%d,%d,%s,%s,%.4f,\"%s\"\n", sh.m, sh.n, sh.k, cs, cand[i]->name, ms, how);
            if (ms < best)
                best = ms, best_name = cand[i]->name;
        }
        const shim_sgemm_variant *sel = shim_sgemm_select(&p);
        double sel_ms = time_it(sel, p), cublas_ms = time_it(NULL, p);
        shim_sgemm_describe(sel, &p, how, sizeof how);
        fprintf(csv, "%d,%d,%d,%s,selector,%.4f,\"%s\"\n", sh.m, sh.n, sh.k, cs, sel_ms, how);
        fprintf(csv, "%d,%d,%d,%s,cublas,%.4f,\n", sh.m, sh.n, sh.k, cs, cublas_ms);
        if (sel_ms < best)
            best = sel_ms, best_name = sel->name;
        const double regret = sel_ms / best;
        printf("%dx%dx%d %s: selector %s %.4f ms, fastest %s %.4f ms (%.2fx), cuBLAS %.4f ms\n", sh.m, sh.n, sh.k, cs,
               sel->name, sel_ms, best_name, best, regret, cublas_ms);
        log_regret += log(regret);
        log_vs_cublas += log(cublas_ms / sel_ms);
        if (regret > worst)
            worst = regret;
        off5 += regret > 1.05;
        fflush(csv);
        fflush(stdout);
    }
    if (count)
        printf("%d shapes: the selector's time over the fastest candidate's: geometric mean %.3f, worst %.2f, %d over "
               "1.05; cuBLAS time over the selector's: geometric mean %.3f\n",
               count, exp(log_regret / count), worst, off5, exp(log_vs_cublas / count));
    fclose(csv);
    free(shapes);
    bench_sgemm_rig_stop(&rig);
    return 0;
}
