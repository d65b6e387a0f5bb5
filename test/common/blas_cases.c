#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#endif
#include "blas_cases.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

#define GUARD 8 /* elements after the end of every buffer that must stay untouched */

/* ---- plain host memory -------------------------------------------------------------------------- */

static float *host_alloc(size_t floats)
{
    float *p = malloc(floats * sizeof(float));
    if (!p) {
        printf("FAIL: out of host memory (%zu floats)\n", floats);
        exit(1);
    }
    return p;
}

static void host_release(float *p)
{
    free(p);
}

static void host_copy(float *dst, const float *src, size_t floats)
{
    memcpy(dst, src, floats * sizeof(float));
}

const tc_memory tc_host_memory = {"host", host_alloc, host_release, host_copy, host_copy};

/* ---- one checked call --------------------------------------------------------------------------- */

static int64_t max1(int64_t v)
{
    return v > 1 ? v : 1;
}

void tc_gemm_describe(const tc_gemm *g, char *out, size_t len)
{
    snprintf(out, len, "cblas_sgemm %s %c%c m=%d n=%d k=%d alpha=%g beta=%g pad=%d", g->row_major ? "row" : "col",
             g->transa ? 'T' : 'N', g->transb ? 'T' : 'N', g->m, g->n, g->k, g->alpha, g->beta, g->pad);
}

void tc_gemv_describe(const tc_gemv *g, char *out, size_t len)
{
    snprintf(out, len, "cblas_sgemv %s %c m=%d n=%d incx=%d incy=%d alpha=%g beta=%g pad=%d",
             g->row_major ? "row" : "col", g->trans ? 'T' : 'N', g->m, g->n, g->incx, g->incy, g->alpha, g->beta,
             g->pad);
}

/* the elements of an output buffer the call may write differ from before only there */
static long written_outside(const float *now, const float *before, int64_t count, int64_t ld, int64_t rows,
                            int64_t cols)
{
    long outside = 0;
    for (int64_t idx = 0; idx < count + GUARD; idx++) {
        int inside = idx < count && idx % ld < rows && idx / ld < cols;
        if (!inside && memcmp(&now[idx], &before[idx], sizeof(float)) != 0)
            outside++;
    }
    return outside;
}

long tc_gemm_case(const tc_memory *mem, const tc_gemm *g, uint64_t *rng, const char *label)
{
    const int m = g->m, n = g->n, k = g->k, row = g->row_major;
    /* stored matrices: A is m x k (k x m when transposed), B k x n (n x k); C m x n */
    const int ar = g->transa ? k : m, ac = g->transa ? m : k, br = g->transb ? n : k, bc = g->transb ? k : n;
    const int64_t lda = max1(row ? ac : ar) + g->pad, ldb = max1(row ? bc : br) + g->pad,
                  ldc = max1(row ? n : m) + g->pad;
    const int64_t asz = lda * (row ? ar : ac), bsz = ldb * (row ? br : bc), csz = ldc * (row ? m : n);
    /* the column-major problem the reference computes: row-major C is C^T column-major */
    const int cm = row ? n : m, cn = row ? m : n;

    float *ha = host_alloc((size_t)(asz + GUARD)), *hb = host_alloc((size_t)(bsz + GUARD));
    float *hc = host_alloc((size_t)(csz + GUARD)), *hc0 = host_alloc((size_t)(csz + GUARD));
    if (g->alpha != 0.0f && k > 0) {
        test_fill(ha, (size_t)(asz + GUARD), rng);
        test_fill(hb, (size_t)(bsz + GUARD), rng);
    } else {
        test_fill_poison(ha, (size_t)(asz + GUARD)); /* must not be read */
        test_fill_poison(hb, (size_t)(bsz + GUARD));
    }
    test_fill(hc, (size_t)(csz + GUARD), rng);
    if (g->beta == 0.0f)
        for (int j = 0; j < cn; j++)
            test_fill_poison(hc + (int64_t)j * ldc, (size_t)cm);
    memcpy(hc0, hc, sizeof(float) * (size_t)(csz + GUARD));

    float *a = mem->alloc((size_t)(asz + GUARD)), *b = mem->alloc((size_t)(bsz + GUARD));
    float *c = mem->alloc((size_t)(csz + GUARD));
    mem->put(a, ha, (size_t)(asz + GUARD));
    mem->put(b, hb, (size_t)(bsz + GUARD));
    mem->put(c, hc, (size_t)(csz + GUARD));
    cblas_sgemm(row ? CblasRowMajor : CblasColMajor, g->transa ? CblasTrans : CblasNoTrans,
                g->transb ? CblasTrans : CblasNoTrans, m, n, k, g->alpha, a, (int)lda, b, (int)ldb, g->beta, c,
                (int)ldc);
    mem->get(hc, c, (size_t)(csz + GUARD));
    mem->release(a);
    mem->release(b);
    mem->release(c);

    double *ref = malloc(sizeof(double) * ((size_t)cm * cn + 1)), *bound = malloc(sizeof(double) * ((size_t)cm * cn + 1));
    float *got = host_alloc((size_t)cm * cn + 1);
    if (row)
        ref_sgemm(g->transb, g->transa, n, m, k, g->alpha, hb, ldb, ha, lda, g->beta, hc0, ldc, ref, bound);
    else
        ref_sgemm(g->transa, g->transb, m, n, k, g->alpha, ha, lda, hb, ldb, g->beta, hc0, ldc, ref, bound);
    for (int j = 0; j < cn; j++)
        memcpy(got + (int64_t)j * cm, hc + (int64_t)j * ldc, sizeof(float) * (size_t)cm);
    long bad = test_compare(label, got, 1, ref, bound, (long)cm * cn, k, 4.0);
    long outside = written_outside(hc, hc0, csz, ldc, cm, cn);
    if (outside)
        printf("  %s: %ld elements outside the referenced region of C changed\n", label, outside);
    free(ha); free(hb); free(hc); free(hc0); free(ref); free(bound); free(got);
    return bad + outside;
}

long tc_gemv_case(const tc_memory *mem, const tc_gemv *g, uint64_t *rng, const char *label)
{
    const int m = g->m, n = g->n, row = g->row_major;
    const int64_t lda = max1(row ? n : m) + g->pad, asz = lda * (row ? m : n);
    const int lenx = g->trans ? m : n, leny = g->trans ? n : m;
    const int64_t ainx = g->incx < 0 ? -(int64_t)g->incx : g->incx, ainy = g->incy < 0 ? -(int64_t)g->incy : g->incy;
    const int64_t xsz = 1 + (int64_t)(lenx - 1) * ainx, ysz = 1 + (int64_t)(leny - 1) * ainy;

    float *ha = host_alloc((size_t)(asz + GUARD)), *hx = host_alloc((size_t)(xsz + GUARD));
    float *hy = host_alloc((size_t)(ysz + GUARD)), *hy0 = host_alloc((size_t)(ysz + GUARD));
    if (g->alpha != 0.0f) {
        test_fill(ha, (size_t)(asz + GUARD), rng);
        test_fill(hx, (size_t)(xsz + GUARD), rng);
    } else {
        test_fill_poison(ha, (size_t)(asz + GUARD)); /* must not be read */
        test_fill_poison(hx, (size_t)(xsz + GUARD));
    }
    test_fill(hy, (size_t)(ysz + GUARD), rng);
    if (g->beta == 0.0f)
        for (int64_t i = 0; i < ysz; i += ainy)
            hy[i] = test_poison();
    memcpy(hy0, hy, sizeof(float) * (size_t)(ysz + GUARD));

    float *a = mem->alloc((size_t)(asz + GUARD)), *x = mem->alloc((size_t)(xsz + GUARD));
    float *y = mem->alloc((size_t)(ysz + GUARD));
    mem->put(a, ha, (size_t)(asz + GUARD));
    mem->put(x, hx, (size_t)(xsz + GUARD));
    mem->put(y, hy, (size_t)(ysz + GUARD));
    cblas_sgemv(row ? CblasRowMajor : CblasColMajor, g->trans ? CblasTrans : CblasNoTrans, m, n, g->alpha, a,
                (int)lda, x, g->incx, g->beta, y, g->incy);
    mem->get(hy, y, (size_t)(ysz + GUARD));
    mem->release(a);
    mem->release(x);
    mem->release(y);

    /* row-major A is the column-major n x m matrix A^T */
    double *ref = malloc(sizeof(double) * (size_t)leny), *bound = malloc(sizeof(double) * (size_t)leny);
    if (row)
        ref_sgemv(!g->trans, n, m, g->alpha, ha, lda, hx, g->incx, g->beta, hy0, g->incy, ref, bound);
    else
        ref_sgemv(g->trans, m, n, g->alpha, ha, lda, hx, g->incx, g->beta, hy0, g->incy, ref, bound);
    long bad = test_compare(label, hy, g->incy, ref, bound, leny, lenx, 4.0);
    /* y as a matrix with one row and a column per stride: its elements are the referenced ones */
    long outside = written_outside(hy, hy0, ysz, ainy, 1, leny);
    if (outside)
        printf("  %s: %ld elements of y's buffer outside the vector changed\n", label, outside);
    free(ha); free(hx); free(hy); free(hy0); free(ref); free(bound);
    return bad + outside;
}

/* ---- random cases ------------------------------------------------------------------------------- */

static int pick(uint64_t *rng, int count)
{
    int i = (int)((test_uniform(rng) + 1.0f) * 0.5f * (float)count);
    return i < 0 ? 0 : i >= count ? count - 1 : i;
}

static const float alphas[] = {1.0f, -0.75f, 0.5f}, betas[] = {0.0f, 1.0f, -0.5f};
static const int incs[] = {1, 1, 2, -1, -3};

void tc_random_gemm(uint64_t *rng, tc_gemm *out)
{
    static const int shapes[][3] = {{1, 1, 1},     {1, 37, 20},     {45, 1, 33},     {7, 5, 3},
                                    {33, 17, 65},  {64, 64, 64},    {100, 70, 90},   {129, 257, 63},
                                    {300, 200, 250}, {200, 301, 1}, {513, 64, 128},  {96, 400, 160}};
    const int *s = shapes[pick(rng, (int)(sizeof shapes / sizeof *shapes))];
    *out = (tc_gemm){.row_major = pick(rng, 2),
                     .transa = pick(rng, 2),
                     .transb = pick(rng, 2),
                     .m = s[0],
                     .n = s[1],
                     .k = s[2],
                     .alpha = alphas[pick(rng, 3)],
                     .beta = betas[pick(rng, 3)],
                     .pad = pick(rng, 4)};
}

void tc_random_gemv(uint64_t *rng, tc_gemv *out)
{
    static const int shapes[][2] = {{1, 1},     {1, 300},   {300, 1},    {7, 3},      {70, 33},
                                    {300, 200}, {1000, 77}, {77, 1000},  {2000, 300}, {4096, 48}};
    const int *s = shapes[pick(rng, (int)(sizeof shapes / sizeof *shapes))];
    *out = (tc_gemv){.row_major = pick(rng, 2),
                     .trans = pick(rng, 2),
                     .m = s[0],
                     .n = s[1],
                     .incx = incs[pick(rng, 5)],
                     .incy = incs[pick(rng, 5)],
                     .alpha = alphas[pick(rng, 3)],
                     .beta = betas[pick(rng, 3)],
                     .pad = pick(rng, 4)};
}

/* ---- many threads at once ----------------------------------------------------------------------- */

typedef struct worker_start {
    tc_worker *w;
    pthread_barrier_t *barrier;
} worker_start;

static void *worker_main(void *arg)
{
    worker_start *s = arg;
    tc_worker *w = s->w;
    uint64_t rng = w->seed;
    pthread_barrier_wait(s->barrier);
    for (int r = 0; r < w->rounds; r++) {
        char what[160], label[224];
        long bad;
        if ((r + w->id) % 2 == 0) {
            tc_gemm g;
            tc_random_gemm(&rng, &g);
            tc_gemm_describe(&g, what, sizeof what);
            snprintf(label, sizeof label, "thread %d (%s) round %d: %s", w->id, w->mem->name, r, what);
            bad = tc_gemm_case(w->mem, &g, &rng, label);
            w->gemm_calls++;
        } else {
            tc_gemv g;
            tc_random_gemv(&rng, &g);
            tc_gemv_describe(&g, what, sizeof what);
            snprintf(label, sizeof label, "thread %d (%s) round %d: %s", w->id, w->mem->name, r, what);
            bad = tc_gemv_case(w->mem, &g, &rng, label);
            w->gemv_calls++;
        }
        if (bad) {
            printf("FAIL: %s: %ld elements wrong\n", label, bad);
            w->failed++;
        }
    }
    return NULL;
}

void tc_run_workers(tc_worker *workers, int count)
{
    pthread_t *threads = malloc(sizeof(pthread_t) * (size_t)count);
    worker_start *starts = malloc(sizeof(worker_start) * (size_t)count);
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)count);
    for (int i = 0; i < count; i++) {
        workers[i].gemm_calls = workers[i].gemv_calls = workers[i].failed = 0;
        starts[i] = (worker_start){&workers[i], &barrier};
        if (pthread_create(&threads[i], NULL, worker_main, &starts[i]) != 0) {
            /* the others wait at the barrier for ever: nothing to join */
            printf("FAIL: could not start thread %d\n", i);
            exit(1);
        }
    }
    for (int i = 0; i < count; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&barrier);
    free(threads);
    free(starts);
}

int tc_check_counts(const char *routine, const shimblas_counts *before, const shimblas_counts *after, long calls,
                    long min_gpu, char expect)
{
    long long gpu = (long long)(after->gpu - before->gpu), cpu = (long long)(after->cpu - before->cpu),
              trivial = (long long)(after->trivial - before->trivial),
              errors = (long long)(after->errors - before->errors),
              failed = (long long)(after->gpu_failed - before->gpu_failed),
              total = (long long)(after->calls - before->calls);
    char why[256] = "";
    if (failed)
        snprintf(why, sizeof why, "%lld calls failed on the GPU and were recomputed on the CPU (gpu_failed)", failed);
    else if (errors || trivial)
        snprintf(why, sizeof why, "%lld calls rejected, %lld trivial; every call computes", errors, trivial);
    else if (total != calls || gpu + cpu != calls)
        snprintf(why, sizeof why, "%lld calls counted (gpu %lld + cpu %lld), %ld made", total, gpu, cpu, calls);
    else if (gpu < min_gpu)
        snprintf(why, sizeof why, "only %lld calls on the GPU, at least %ld had operands in device memory", gpu,
                 min_gpu);
    else if (expect == 'g' && gpu != calls)
        snprintf(why, sizeof why, "%lld of %ld calls on the CPU, all must run on the GPU", cpu, calls);
    else if (expect == 'c' && cpu != calls)
        snprintf(why, sizeof why, "%lld of %ld calls on the GPU, all must run on the CPU", gpu, calls);
    if (why[0]) {
        printf("FAIL: %s counters: %s\n", routine, why);
        return 1;
    }
    printf("PASS: %s counters: %ld calls, %lld on the GPU, %lld on the CPU, none failed\n", routine, calls, gpu, cpu);
    return 0;
}

void tc_verdict(tc_tally *t, const char *label, long bad, const char *count_problem)
{
    t->cases++;
    if (!bad && !count_problem) {
        printf("PASS: %s\n", label);
        return;
    }
    printf("FAIL: %s: %s%s%s\n", label, bad ? "wrong result" : "", bad && count_problem ? "; " : "",
           count_problem ? count_problem : "");
    t->failures++;
}

void tc_gemm_counted(tc_tally *t, const tc_memory *mem, tc_gemm g, uint64_t *rng, tc_count_judge judge, int expect)
{
    char what[160], label[224], why[200];
    tc_gemm_describe(&g, what, sizeof what);
    snprintf(label, sizeof label, "%s on %s operands", what, mem->name);
    shimblas_stats b, a;
    shimblas_get_stats(&b);
    long bad = tc_gemm_case(mem, &g, rng, label);
    shimblas_get_stats(&a);
    tc_verdict(t, label, bad, judge(&b.sgemm, &a.sgemm, expect, why, sizeof why));
}

void tc_gemv_counted(tc_tally *t, const tc_memory *mem, tc_gemv g, uint64_t *rng, tc_count_judge judge, int expect)
{
    char what[160], label[224], why[200];
    tc_gemv_describe(&g, what, sizeof what);
    snprintf(label, sizeof label, "%s on %s operands", what, mem->name);
    shimblas_stats b, a;
    shimblas_get_stats(&b);
    long bad = tc_gemv_case(mem, &g, rng, label);
    shimblas_get_stats(&a);
    tc_verdict(t, label, bad, judge(&b.sgemv, &a.sgemv, expect, why, sizeof why));
}

const char *tc_judge_gpu(const shimblas_counts *b, const shimblas_counts *a, int expect, char *why, size_t len)
{
    const unsigned long long gpu = a->gpu - b->gpu, failed = a->gpu_failed - b->gpu_failed,
                             other = (a->cpu - b->cpu) + (a->trivial - b->trivial) + (a->errors - b->errors);
    if (other || gpu + failed != 1 || (expect == 'g' && gpu != 1)) {
        snprintf(why, len, "counted gpu %llu, gpu_failed %llu, cpu, trivial or error %llu; want %s", gpu, failed,
                 other, expect == 'g' ? "on the GPU" : "on the GPU or recomputed after a GPU failure");
        return why;
    }
    return NULL;
}
