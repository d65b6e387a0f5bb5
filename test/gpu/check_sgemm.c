/* Every registered SGEMM variant and the selector against the float64 reference: all four
 * transposes, tails around every tile size, odd leading dimensions, operands 4-byte but not
 * 16-byte aligned, the alpha/beta rules (beta == 0 never reads C, alpha == 0 or k == 0 never reads
 * A or B), nothing written outside C's m x n region, and bitwise run-to-run reproducibility.
 * A variant may decline a case (the TMA-fed ones take only 16-byte aligned operands with leading
 * dimensions a multiple of 4; the selector then takes another); a set of aligned cases is run for
 * them, and a variant that runs on this GPU but declined every case fails. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu_guard.h"
#include "reference.h"
#include "sgemm_kernels.h"

#define GUARD 37       /* floats after C that must stay untouched */
#define MAX_REPORTS 25 /* failing runs described in detail */
#define TOL_FACTOR 1.0 /* the bound is already the worst case of a k-term float32 sum */

typedef struct {
    int transa, transb, m, n, k;
    float alpha, beta;
    int64_t lda, ldb, ldc;
    int off_a, off_b, off_c, off_work; /* floats (bytes for the workspace) past an aligned base */
} gemm_case;

typedef struct {
    const shim_sgemm_variant *v; /* NULL: the selector */
    const char *name;
    long runs, passed, declined;
} variant_tally;

static cudaStream_t stream;
static long reports;

/* host and device buffers of one case */
typedef struct {
    float *a, *b, *c0, *c; /* host: operands, C before, C after */
    double *cref, *cbound;
    size_t a_len, b_len, c_len; /* floats, offsets and guard included */
    float *da, *db, *dc;        /* device allocations (aligned bases) */
} case_data;

static void *dev_work;
static size_t dev_work_len;

static int64_t pad_ld(int64_t min_ld, int choice)
{
    int64_t up4 = (min_ld + 3) / 4 * 4;
    switch (choice % 5) {
    case 0: return min_ld;
    case 1: return min_ld + 1;
    case 2: return min_ld + 3;
    case 3: return up4;
    default: return up4 + 4;
    }
}

/* a case of a listed shape: {m, n, k, transa + 2 transb}, the rest zero */
static gemm_case listed_case(const int shape[4])
{
    gemm_case t;
    memset(&t, 0, sizeof t);
    t.transa = shape[3] & 1;
    t.transb = shape[3] >> 1;
    t.m = shape[0];
    t.n = shape[1];
    t.k = shape[2];
    return t;
}

static void describe(const gemm_case *t, char *out, size_t len)
{
    snprintf(out, len, "%c%c m=%d n=%d k=%d alpha=%g beta=%g lda=%lld ldb=%lld ldc=%lld off=%d/%d/%d",
             t->transa ? 'T' : 'N', t->transb ? 'T' : 'N', t->m, t->n, t->k, t->alpha, t->beta,
             (long long)t->lda, (long long)t->ldb, (long long)t->ldc, t->off_a, t->off_b, t->off_c);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        printf("FAIL: out of host memory\n");
        exit(1);
    }
    return p;
}

static void prepare(const gemm_case *t, case_data *d, uint64_t *rng)
{
    const int reads_ab = t->alpha != 0.0f && t->k > 0;
    const int64_t a_cols = t->transa ? t->m : t->k, b_cols = t->transb ? t->k : t->n;
    d->a_len = (size_t)(t->off_a + t->lda * a_cols + 1);
    d->b_len = (size_t)(t->off_b + t->ldb * b_cols + 1);
    d->c_len = (size_t)(t->off_c + t->ldc * t->n + GUARD);
    d->a = xmalloc(d->a_len * sizeof(float));
    d->b = xmalloc(d->b_len * sizeof(float));
    d->c0 = xmalloc(d->c_len * sizeof(float));
    d->c = xmalloc(d->c_len * sizeof(float));
    d->cref = xmalloc((size_t)t->m * t->n * sizeof(double));
    d->cbound = xmalloc((size_t)t->m * t->n * sizeof(double));
    /* operands that must not be read are all NaN: reading them would show */
    if (reads_ab) {
        test_fill(d->a, d->a_len, rng);
        test_fill(d->b, d->b_len, rng);
    } else {
        test_fill_poison(d->a, d->a_len);
        test_fill_poison(d->b, d->b_len);
    }
    /* C: padding rows and guard hold the poison and must keep it bit for bit; the m x n region
     * is random, or poison when beta == 0 (it must vanish) */
    test_fill_poison(d->c0, d->c_len);
    if (t->beta != 0.0f)
        for (int j = 0; j < t->n; j++)
            test_fill(d->c0 + t->off_c + (int64_t)j * t->ldc, (size_t)t->m, rng);
    ref_sgemm(t->transa, t->transb, t->m, t->n, t->k, t->alpha, d->a + t->off_a, t->lda, d->b + t->off_b,
              t->ldb, t->beta, d->c0 + t->off_c, t->ldc, d->cref, d->cbound);
    TEST_CUDA(cudaMalloc((void **)&d->da, d->a_len * sizeof(float)));
    TEST_CUDA(cudaMalloc((void **)&d->db, d->b_len * sizeof(float)));
    TEST_CUDA(cudaMalloc((void **)&d->dc, d->c_len * sizeof(float)));
    TEST_CUDA(cudaMemcpy(d->da, d->a, d->a_len * sizeof(float), cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemcpy(d->db, d->b, d->b_len * sizeof(float), cudaMemcpyHostToDevice));
}

static void release(case_data *d)
{
    TEST_CUDA(cudaFree(d->da));
    TEST_CUDA(cudaFree(d->db));
    TEST_CUDA(cudaFree(d->dc));
    free(d->a);
    free(d->b);
    free(d->c0);
    free(d->c);
    free(d->cref);
    free(d->cbound);
}

/* runs v (or the selector) once from the initial C; the result lands in d->c. Returns the
 * variant's name through *name. 0 on success, 1 when v declines the problem, -1 when the run itself
 * reported an error or the selector chose a variant that declines it. */
static int run_once(const gemm_case *t, case_data *d, const shim_sgemm_variant *v, const char **name)
{
    shim_sgemm_args args;
    memset(&args, 0, sizeof args);
    args.transa = t->transa;
    args.transb = t->transb;
    args.m = t->m;
    args.n = t->n;
    args.k = t->k;
    args.alpha = t->alpha;
    args.beta = t->beta;
    args.a = d->da + t->off_a;
    args.lda = t->lda;
    args.b = d->db + t->off_b;
    args.ldb = t->ldb;
    args.c = d->dc + t->off_c;
    args.ldc = t->ldc;
    args.stream = stream;
    const int selected = v == NULL;
    if (!v)
        v = shim_sgemm_select(&args);
    *name = v->name;
    if (!v->accepts(&args)) {
        if (!selected)
            return 1;
        printf("  the selector chose %s, which does not accept the problem\n", v->name);
        return -1;
    }
    size_t need = shim_sgemm_work_bytes(v, &args);
    if (need) {
        /* the workspace is deliberately misaligned: variants must cope with any pointer */
        size_t len = need + (size_t)t->off_work;
        if (len > dev_work_len) {
            TEST_CUDA(cudaFree(dev_work));
            TEST_CUDA(cudaMalloc(&dev_work, len));
            dev_work_len = len;
        }
        args.work = (char *)dev_work + t->off_work;
        args.work_bytes = need;
        /* poisoned (NaN floats, -1 counters): a plan that reads what it did not write this call, such
         * as stream-K counters nobody zeroed, leaves C wrong or unwritten */
        TEST_CUDA(cudaMemset(args.work, 0xff, need));
    }
    TEST_CUDA(cudaMemcpy(d->dc, d->c0, d->c_len * sizeof(float), cudaMemcpyHostToDevice));
    cudaError_t err = shim_sgemm_run(v, &args);
    cudaError_t sync = cudaStreamSynchronize(stream);
    if (err != cudaSuccess || sync != cudaSuccess) {
        printf("  %s: run returned %s, synchronize %s\n", v->name, cudaGetErrorString(err),
               cudaGetErrorString(sync));
        if (sync != cudaSuccess) /* a sticky error: nothing later can be trusted */
            exit(1);
        return -1;
    }
    TEST_CUDA(cudaMemcpy(d->c, d->dc, d->c_len * sizeof(float), cudaMemcpyDeviceToHost));
    return 0;
}

/* number of wrong elements: values in the m x n region, and any change outside it; prints the
 * first few unless quiet */
/* the bound's factor for a variant's arithmetic (enum shim_sgemm_math): FP32 1 (the worst case of a
 * k-term float32 sum); 3xTF32 4 (each product carries up to about 3 * 2^-22 relative error from the
 * dropped lo * lo term and the rounding of the remainders, 6 eps on top of the sum's k eps, and the
 * tensor cores' accumulation may round less well than FP32's FFMA); TF32 adds 2^-9 relative (each
 * operand rounded to 10 mantissa bits: 2 * 2^-11 per product) */
static double tol_factor(int math, int k)
{
    if (math == SHIM_SGEMM_3XTF32)
        return 4.0;
    if (math == SHIM_SGEMM_TF32)
        return 1.0 + 0x1.0p-9 / ((k + 2) * (double)FLT_EPSILON);
    return TOL_FACTOR;
}

static long check_result(const gemm_case *t, const case_data *d, const char *label, int quiet, double factor)
{
    long bad = 0;
    for (int j = 0; j < t->n && bad <= 20; j++) {
        const float *col = d->c + t->off_c + (int64_t)j * t->ldc;
        const double *ref = d->cref + (int64_t)j * t->m, *bound = d->cbound + (int64_t)j * t->m;
        if (!quiet) {
            bad += test_compare(label, col, 1, ref, bound, t->m, t->k, factor);
            continue;
        }
        for (int i = 0; i < t->m; i++) {
            double tol = factor * (t->k + 2) * FLT_EPSILON * bound[i] + 1e-30;
            bad += !(fabs((double)col[i] - ref[i]) <= tol);
        }
    }
    for (size_t e = 0; e < d->c_len; e++) {
        int64_t rel = (int64_t)e - t->off_c;
        int inside = rel >= 0 && rel < t->ldc * t->n && rel % t->ldc < t->m;
        if (!inside && memcmp(&d->c[e], &d->c0[e], sizeof(float)) != 0) {
            if (bad < 5 && !quiet)
                printf("  %s: wrote outside C's region at offset %lld (%s)\n", label, (long long)rel,
                       rel < 0                ? "before C"
                       : rel >= t->ldc * t->n ? "guard after C"
                                              : "padding row");
            bad++;
        }
    }
    return bad;
}

static long total_runs, total_failures;

static void run_case(const gemm_case *t, variant_tally *tally, int ntally, uint64_t *rng)
{
    case_data d;
    char desc[200];
    describe(t, desc, sizeof desc);
    prepare(t, &d, rng);
    for (int i = 0; i < ntally; i++) {
        const char *name;
        const int ran = run_once(t, &d, tally[i].v, &name);
        if (ran == 1) {
            tally[i].declined++;
            continue;
        }
        int ok = ran == 0;
        if (ok)
            ok = check_result(t, &d, name, reports >= MAX_REPORTS,
                              tol_factor(tally[i].v ? tally[i].v->math : SHIM_SGEMM_FP32, t->k)) == 0;
        tally[i].runs++;
        total_runs++;
        if (ok) {
            tally[i].passed++;
        } else {
            total_failures++;
            if (reports++ < MAX_REPORTS)
                printf("FAIL %s%s%s: %s\n", tally[i].name, tally[i].v ? "" : " -> ", tally[i].v ? "" : name,
                       desc);
        }
    }
    /* the selector twice on the same input: the same bits */
    {
        const char *name;
        float *first = xmalloc(d.c_len * sizeof(float));
        int ok = run_once(t, &d, NULL, &name) == 0;
        if (ok) {
            memcpy(first, d.c, d.c_len * sizeof(float));
            ok = run_once(t, &d, NULL, &name) == 0 && memcmp(first, d.c, d.c_len * sizeof(float)) == 0;
        }
        free(first);
        total_runs++;
        tally[ntally].runs++;
        if (ok) {
            tally[ntally].passed++;
        } else {
            total_failures++;
            if (reports++ < MAX_REPORTS)
                printf("FAIL selector (%s) not bitwise reproducible: %s\n", name, desc);
        }
    }
    release(&d);
}

/* the rotations of beta and of the operands' offsets (in floats) every case list draws from */
static const float betas[] = {0.0f, 1.0f, 0.9f};
static const int offsets[] = {0, 0, 1, 2, 3, 0, 3};

/* how a list of shapes (listed_case's rows) turns into cases: case s has alpha 0 at zero_alpha and
 * alpha elsewhere, beta betas[(s + beta_shift) % 3], A and B padded by pad_ld's rotation from s (or,
 * with aligned_pads, to a multiple of 4 only, 3 + s % 2), ldc by pad_ld(m, s + c_pad_shift), A
 * misaligned by offsets[s % 7] where misalign_a says so, C by offsets[(s + c_off_shift) % 7]; the
 * first case's C aligned where first_plain is 1, and its leading dimensions unpadded too where it
 * is 2 (as the selector plans the shape) */
typedef struct {
    float alpha;
    int zero_alpha, beta_shift, aligned_pads, c_pad_shift, misalign_a, c_off_shift, first_plain;
} listed_rotation;

static void run_listed(const int (*shapes)[4], int count, const listed_rotation *r, variant_tally *tally, int ntally,
                       uint64_t *rng)
{
    for (int s = 0; s < count; s++) {
        gemm_case t = listed_case(shapes[s]);
        const int64_t a_ld = t.transa ? t.k : t.m, b_ld = t.transb ? t.n : t.k;
        t.alpha = s == r->zero_alpha ? 0.0f : r->alpha;
        t.beta = betas[(s + r->beta_shift) % 3];
        t.lda = pad_ld(a_ld, r->aligned_pads ? 3 + s % 2 : s);
        t.ldb = pad_ld(b_ld, r->aligned_pads ? 3 + (s + 1) % 2 : s + 1);
        t.ldc = pad_ld(t.m, s + r->c_pad_shift);
        t.off_a = r->misalign_a ? offsets[s % 7] : 0;
        t.off_c = offsets[(s + r->c_off_shift) % 7];
        if (s == 0 && r->first_plain) {
            t.off_c = 0;
            if (r->first_plain == 2)
                t.lda = a_ld, t.ldb = b_ld, t.ldc = t.m;
        }
        t.off_work = 4 * (s % 4);
        run_case(&t, tally, ntally, rng);
    }
}

int main(void)
{
    test_require_gpu();
    uint64_t rng = test_seed();
    /* blocking: the kernels must wait for the uploads, which cudaMemcpy from pageable memory may
     * still be finishing on the legacy stream when it returns */
    TEST_CUDA(cudaStreamCreate(&stream));

    int nvar = 0;
    const shim_sgemm_variant *all = shim_sgemm_variants(&nvar);
    /* one tally per variant, the selector, and the selector's reproducibility */
    variant_tally *tally = xmalloc(sizeof(variant_tally) * (size_t)(nvar + 2));
    for (int i = 0; i < nvar; i++) {
        tally[i] = (variant_tally){&all[i], all[i].name, 0, 0, 0};
        if (shim_sgemm_find(all[i].name) != &all[i]) {
            printf("FAIL: shim_sgemm_find(\"%s\") does not return its table entry\n", all[i].name);
            total_failures++;
        }
    }
    tally[nvar] = (variant_tally){NULL, "selector", 0, 0, 0};
    tally[nvar + 1] = (variant_tally){NULL, "selector bitwise", 0, 0, 0};
    if (shim_sgemm_find("no such variant") != NULL) {
        printf("FAIL: shim_sgemm_find accepts an unknown name\n");
        total_failures++;
    }

    static const int sizes[] = {1, 2, 3, 7, 31, 33, 63, 65, 127, 129, 255, 257};
    static const int ksizes[] = {1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 65, 127, 129, 255, 257, 300};
    const int nsizes = (int)(sizeof sizes / sizeof *sizes), nk = (int)(sizeof ksizes / sizeof *ksizes);
    /* special shapes: k == 1, split-K shaped, skinny, and a few larger ones (the float64
     * reference on the CPU is what costs time). 129 x 65 x 25000: transpose_first's copies of
     * many pieces (a warp a piece of 32 rows x 16 k: 7815 + 4689 of them in TN, the block at
     * 7808 straddling the two operands) */
    static const int special[][3] = {{129, 65, 1},     {64, 64, 4099}, {1, 300, 1000},  {300, 1, 1000},
                                     {129, 257, 2000}, {5, 7, 3000},   {513, 517, 519}, {2049, 2049, 64},
                                     {129, 65, 25000}, {33, 65, 0},    {1, 1, 0},       {129, 7, 0},
                                     {7, 5, 33},       {65, 3, 17}};
    /* SHIMBLAS_TEST_QUICK: fewer cases and no large ones, every variant still met (for
     * compute-sanitizer, which runs each kernel hundreds of times slower) */
    const char *quick_text = getenv("SHIMBLAS_TEST_QUICK");
    const int quick = quick_text ? (atoi(quick_text) >= 2 ? 2 : 1) : 0; /* 2: fewer still (racecheck) */
    const int nspecial = quick == 2 ? 1 : quick ? 3 : (int)(sizeof special / sizeof *special);
    const int per_transpose = quick == 2 ? 3 : quick ? 8 : 26;
    if (quick)
        setvbuf(stdout, NULL, _IOLBF, 0); /* a sanitizer run cut short still shows how far it got */

    int c = 0;
    for (int tr = 0; tr < 4; tr++) {
        for (int s = 0; s < per_transpose + nspecial; s++, c++) {
            gemm_case t;
            t.transa = tr & 1;
            t.transb = tr >> 1;
            if (s < per_transpose) {
                t.m = sizes[s % nsizes];
                t.n = sizes[(s * 5 + 3 + tr) % nsizes];
                t.k = ksizes[(s * 7 + 1 + 3 * tr) % nk];
            } else {
                t.m = special[s - per_transpose][0];
                t.n = special[s - per_transpose][1];
                t.k = special[s - per_transpose][2];
            }
            t.alpha = c % 11 == 5 ? 0.0f : c % 2 ? -0.7f : 1.0f;
            t.beta = betas[c % 3];
            if (t.k == 0)
                t.alpha = 1.0f;
            t.lda = pad_ld(t.transa ? (t.k > 0 ? t.k : 1) : t.m, c);
            t.ldb = pad_ld(t.transb ? t.n : (t.k > 0 ? t.k : 1), c / 5 + 1);
            t.ldc = pad_ld(t.m, c / 25 + 2);
            t.off_a = offsets[c % 7];
            t.off_b = offsets[(c / 7 + 3) % 7];
            t.off_c = offsets[(c / 3 + 5) % 7];
            t.off_work = 4 * (c % 4);
            /* the large shapes once aligned with padded leading dimensions, so that the 16-byte
             * paths meet tails too, and otherwise as the rotation says */
            if (s >= per_transpose && (c & 1)) {
                t.lda = pad_ld(t.transa ? (t.k > 0 ? t.k : 1) : t.m, 3);
                t.ldb = pad_ld(t.transb ? t.n : (t.k > 0 ? t.k : 1), 3);
                t.ldc = pad_ld(t.m, 3);
                t.off_a = t.off_b = t.off_c = 0;
            }
            /* the last two: leading dimensions beyond 65536, strides far longer than any tile */
            if (!quick && s >= per_transpose + nspecial - 2) {
                t.lda += 65536 + (c & 3);
                t.ldb += 65537;
                t.ldc += 65536 + 3;
            }
            run_case(&t, tally, nvar + 1, &rng);
        }
    }

    /* aligned operands (16-byte bases, leading dimensions a multiple of 4, C as the rotation says),
     * for the variants that take only those: thin M, thin N and long K (K split), tails of every
     * tile, k == 1, a single row or column */
    static const int aligned[][3] = {{64, 512, 2048}, {300, 64, 1000}, {129, 257, 2000}, {65, 33, 4099},
                                     {1, 8, 600},     {257, 129, 31},  {128, 192, 64},   {7, 300, 1},
                                     {200, 1, 333}};
    const int naligned = quick == 2 ? 2 : quick ? 4 : (int)(sizeof aligned / sizeof *aligned);
    for (int tr = 0; tr < 4; tr++)
        for (int s = 0; s < naligned; s++, c++) {
            gemm_case t;
            t.transa = tr & 1;
            t.transb = tr >> 1;
            t.m = aligned[s][0];
            t.n = aligned[s][1];
            t.k = aligned[s][2];
            t.alpha = c % 2 ? -0.7f : 1.0f;
            t.beta = betas[c % 3];
            t.lda = pad_ld(t.transa ? t.k : t.m, 3 + (c & 1)); /* up to 4, or that and 4 more */
            t.ldb = pad_ld(t.transb ? t.n : t.k, 3 + (c / 2 & 1));
            t.ldc = pad_ld(t.m, c);
            t.off_a = t.off_b = 0;
            t.off_c = offsets[c % 7];
            t.off_work = 4 * (c % 4);
            run_case(&t, tally, nvar + 1, &rng);
        }

    /* 1152^3 TN, aligned: splitk splits the four-warp 128x128x8 tiles (8x16 a thread) in three there,
     * the one shape of the checks it plans them split for (test_kernel_registry pins the choice the
     * selector makes of it where no clusters run; on a GPU that runs them the selector copies both
     * operands and takes splitk_halves) */
    if (!quick) {
        gemm_case t;
        memset(&t, 0, sizeof t);
        t.transa = 1;
        t.m = t.n = t.k = 1152;
        t.lda = t.ldb = t.ldc = 1152;
        t.alpha = -0.7f;
        t.beta = 0.9f;
        run_case(&t, tally, nvar + 1, &rng);
    }

    /* shapes whose split is finished in pairs of thread-block clusters (splitk_groups: four K slices
     * in one wave, compute capability 9.0; the selector's choice for the misaligned ones, the aligned
     * 896^3 going to splitk_halves): tiles with and without edges, misaligned and padded operands,
     * beta 0 over a poisoned C and alpha 0 among them */
    static const int paired[][4] = {{896, 896, 896, 0}, {693, 1048, 700, 2}, {656, 1130, 896, 3},
                                    {896, 896, 896, 3}, {896, 896, 896, 1}, {693, 1048, 700, 1}};
    static const listed_rotation paired_rotation = {-0.7f, 2, 0, 0, 2, 1, 3, 1};
    run_listed(paired, quick ? 1 : (int)(sizeof paired / sizeof *paired), &paired_rotation, tally, nvar + 1, &rng);

    /* shapes the selector runs as two K slices of 64x64 four-warp tiles finished in clusters
     * (splitk_halves: K 512-1500, A and B by 16-byte copies, compute capability 9.0; up to K = 1024 at
     * most three blocks an SM, beyond it more than one wave and up to two, chosen by price): a single row and a
     * single column, K at both ends of the range and odd, edges in m and n, padded operands, a
     * misaligned C, alpha 0, beta 0 over a poisoned C; past K = 1024 (more than one wave of blocks
     * there) TN after both copies, TT with edges (run by name: the selector splits 64x128 tiles in
     * clusters there), and NT in two waves of pairs */
    static const int halves[][4] = {{1, 900, 600, 1},       {520, 1, 1024, 2},     {777, 555, 513, 3},
                                    {512, 512, 512, 0},     {130, 1300, 1000, 1},  {640, 70, 767, 2},
                                    {1100, 1100, 1100, 1}, {1313, 1100, 1356, 3}, {1300, 1300, 1300, 2}};
    static const listed_rotation halves_rotation = {1.3f, 4, 1, 1, 1, 0, 2, 0};
    run_listed(halves, quick ? 1 : (int)(sizeof halves / sizeof *halves), &halves_rotation, tally, nvar + 1, &rng);

    /* shapes whose split in five or more slices the selector replaces by the halves, their blocks
     * filling most of one wave (HALVES_MANY_SLICES): 512^3 TN as planned, then TT, NT and NN with
     * edges, TN after both copies (K odd), padded operands, a misaligned C, alpha 0, beta 0 over a
     * poisoned C */
    static const int many_slices[][4] = {{512, 512, 512, 1}, {1320, 140, 924, 3}, {300, 780, 800, 2},
                                         {900, 252, 684, 0}, {610, 258, 681, 1}, {648, 364, 912, 3}};
    static const listed_rotation many_slices_rotation = {-0.9f, 3, 0, 1, 1, 0, 2, 2};
    run_listed(many_slices, quick ? 1 : (int)(sizeof many_slices / sizeof *many_slices), &many_slices_rotation,
               tally, nvar + 1, &rng);

    /* stream-K over 128x128 tiles, one block an SM (streamk_blocks), where the whole tiles are one
     * wave of 121 and C is 16-byte capable: the plan the streamk variant runs by name for these NT
     * shapes (the selector does not take it): as planned, K short and long, edges, beta 0 over a
     * poisoned C, alpha 0 */
    static const int sk_one_an_sm[][4] = {{1400, 1400, 1400, 2}, {1408, 1380, 1500, 2}, {1400, 1400, 300, 2},
                                          {1300, 1300, 1300, 2}};
    static const listed_rotation sk_one_an_sm_rotation = {0.8f, 3, 0, 1, 2, 0, 6, 2};
    run_listed(sk_one_an_sm, quick ? 1 : (int)(sizeof sk_one_an_sm / sizeof *sk_one_an_sm), &sk_one_an_sm_rotation,
               tally, nvar + 1, &rng);

    /* stream-K over 128x128 tiles, one block an SM, where the priced plan's 128x64 or 64x128 tiles
     * on NT data give way to one to two waves of them (plan_streamk; C 16-byte capable): NT as the
     * selector plans it over a poisoned C with beta 0, TN after both copies, NT with C unpadded;
     * with C misaligned or its leading dimension odd the priced plan (edges, TT after A's copy, NN
     * with B by 4-byte copies), and alpha 0 */
    static const int sk_one_an_sm_waves[][4] = {{1632, 1632, 1632, 2}, {1616, 1616, 1616, 1}, {1788, 1392, 1209, 2},
                                                {964, 2688, 2760, 2},   {1524, 1759, 1326, 3}, {1504, 1504, 1504, 0}};
    static const listed_rotation sk_one_an_sm_waves_rotation = {0.8f, 5, 0, 1, 2, 0, 4, 2};
    run_listed(sk_one_an_sm_waves, quick ? 1 : (int)(sizeof sk_one_an_sm_waves / sizeof *sk_one_an_sm_waves),
               &sk_one_an_sm_waves_rotation, tally, nvar + 1, &rng);

    /* splits finished in clusters of one wave that the device spreads as it would lone blocks
     * (plan.cu's cluster_spread_in_one_wave: blocks an SM at most 0.8 past a whole number, at most
     * two): 640^3 TT as planned (64x128 in four slices) over a poisoned C with beta 0, then TN (128x64
     * in four), NN (128x64 in three; 64x64 in eight, edges), TN after both copies (K odd), TT with
     * edges; a misaligned or odd C, padded operands and alpha 0 among them (where they change the
     * selector's plan, the splitk_cluster variant still runs this one by name) */
    static const int cluster_spread[][4] = {{640, 640, 640, 3}, {640, 640, 640, 1}, {736, 736, 736, 0},
                                            {183, 428, 359, 0}, {255, 634, 195, 1}, {946, 638, 471, 3}};
    static const listed_rotation cluster_spread_rotation = {-0.9f, 5, 0, 1, 2, 0, 4, 2};
    run_listed(cluster_spread, quick ? 1 : (int)(sizeof cluster_spread / sizeof *cluster_spread),
               &cluster_spread_rotation, tally, nvar + 1, &rng);

    /* shapes the selector runs on 64x64 four-warp tiles whole (K short, 128x64 tiles too few to fill
     * the SMs; directly or after copies; the last two in place of the k groups, select_fp32): every
     * case, edges in m and n, the first aligned as the selector plans it, then padded operands, a
     * misaligned C, alpha 0, beta 0 over a poisoned C */
    static const int whole_w4[][4] = {{459, 576, 173, 2}, {1102, 420, 258, 2}, {413, 1043, 218, 1},
                                      {716, 469, 166, 3}, {1236, 361, 204, 0}, {1087, 1163, 321, 1},
                                      {512, 512, 128, 1}, {461, 321, 148, 3}};
    static const listed_rotation whole_w4_rotation = {-1.1f, 3, 2, 0, 2, 0, 4, 2};
    run_listed(whole_w4, quick ? 1 : (int)(sizeof whole_w4 / sizeof *whole_w4), &whole_w4_rotation, tally, nvar + 1,
               &rng);

    /* 64x64 four-warp tiles split as best_split prices them (plan_cost's W4_SPLIT_PRICE): 704^3 NN in
     * four K slices finished in clusters as the selector plans it (beta 0 over a poisoned C), TN in
     * six (A and B by 16-byte copies and transposes) and in seven after both copies, whole tiles with
     * the rest in six slices after both copies (3502x588x345 TN) and with one tile in thirty
     * (1440^3 NT); leading dimensions padded to multiples of 4, a misaligned C, alpha 0 */
    static const int w4_splits[][4] = {{704, 704, 704, 0},
                                       {1134, 229, 284, 1},
                                       {1073, 198, 290, 1},
                                       {3502, 588, 345, 1},
                                       {1440, 1440, 1440, 2}};
    static const listed_rotation w4_splits_rotation = {1.3f, 3, 0, 1, 1, 0, 3, 2};
    run_listed(w4_splits, quick ? 1 : (int)(sizeof w4_splits / sizeof *w4_splits), &w4_splits_rotation, tally,
               nvar + 1, &rng);

    /* one-wave dependents with heavy blocks (launch_modes: such a launch after transpose_first's copy
     * takes half an SM's shared memory, one block an SM): 128x128 tiles of one wave after the copies,
     * TN with both operands copied (the first as the selector plans it, beta 0 over a poisoned C),
     * then NN with B copied, padded operands, a misaligned A and C, edges in m and n */
    static const int heavy_dependent[][4] = {{1385, 1186, 339, 1}, {1380, 1176, 1009, 0}};
    static const listed_rotation heavy_rotation = {0.8f, -1, 0, 0, 1, 1, 2, 2};
    run_listed(heavy_dependent, quick ? 1 : (int)(sizeof heavy_dependent / sizeof *heavy_dependent), &heavy_rotation,
               tally, nvar + 1, &rng);

    /* one-wave dependents with heavy blocks whose kernel holds three blocks an SM where the even
     * spread gives two (launch_modes takes a third of an SM's shared memory): NN with B copied, then
     * 252 tiles of 64x128, as the selector plans it (A's leading dimension odd, beta 0 over a
     * poisoned C); TT with A copied, then 264 tiles of 128x64, every leading dimension padded off a
     * multiple of 4 (lda 601, ldb 1390, ldc 1518) */
    static const int two_of_three[][4] = {{1097, 1672, 700, 0}, {1515, 1387, 600, 3}};
    static const listed_rotation two_of_three_rotation = {0.8f, -1, 0, 0, 1, 0, 0, 2};
    run_listed(two_of_three, quick ? 1 : (int)(sizeof two_of_three / sizeof *two_of_three), &two_of_three_rotation,
               tally, nvar + 1, &rng);

    /* the k-group tiles' B by lanes priced as NT's from K = 900 (plan.cu LANES_B_MIN_K): 928^3 TN
     * with A alone copied, then those tiles with B by lanes, as the selector plans it (beta 0 over
     * a poisoned C); 960^3 NN on them directly and 372x2815x1323 TN (B's rows off sectors by its
     * leading dimension), padded, with A and C misaligned, alpha 0 on the last */
    static const int lanes_b[][4] = {{928, 928, 928, 1}, {960, 960, 960, 0}, {372, 2815, 1323, 1}};
    static const listed_rotation lanes_b_rotation = {0.7f, 2, 0, 0, 1, 1, 2, 2};
    run_listed(lanes_b, quick ? 1 : (int)(sizeof lanes_b / sizeof *lanes_b), &lanes_b_rotation, tally, nvar + 1,
               &rng);

    /* a variant that runs on this GPU (it takes an aligned 64 x 64 x 64 problem, or an aligned 896^3,
     * which the paired finish takes) must have run */
    for (int i = 0; i < nvar; i++) {
        int accepted = 0;
        for (int size = 64; size <= 896; size += 832) {
            shim_sgemm_args probe;
            memset(&probe, 0, sizeof probe);
            probe.m = probe.n = probe.k = size;
            probe.alpha = 1.0f;
            probe.a = probe.b = (const float *)(uintptr_t)4096;
            probe.c = (float *)(uintptr_t)4096;
            probe.lda = probe.ldb = probe.ldc = size;
            probe.math = all[i].math;
            accepted |= all[i].accepts(&probe) != 0;
        }
        if (tally[i].runs == 0 && accepted) {
            printf("FAIL %s declined every case (%ld)\n", all[i].name, tally[i].declined);
            total_failures++;
        }
    }

    for (int i = 0; i < nvar + 2; i++)
        printf("%-20s %5ld / %5ld passed, %ld declined\n", tally[i].name, tally[i].passed, tally[i].runs,
               tally[i].declined);
    printf("check_sgemm: %ld cases, %ld failures\n", total_runs, total_failures);
    TEST_CUDA(cudaFree(dev_work));
    TEST_CUDA(cudaStreamDestroy(stream));
    free(tally);
    return total_failures ? 1 : 0;
}
