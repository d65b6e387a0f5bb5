/* Every registered SGEMV variant (and the selector's choice) against the float64 reference, on
 * shapes around every tile and vector width, misaligned pointers, padded lda, all alpha/beta
 * classes, with out-of-range reads made visible (NaN around and inside the padding of A and after
 * x) and out-of-range writes caught by guard elements around y. Also checks that a repeated run
 * gives bitwise-identical results. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu_guard.h"
#include "reference.h"
#include "sgemv_kernels.h"

#define Y_GUARD 8 /* guard elements after y (and the 0..3 offset floats before it) */
#define X_GUARD 8

typedef struct {
    int trans, m, n;
    int64_t lda;
    int aoff, xoff, yoff; /* floats from a 256-byte aligned allocation */
    float alpha, beta;
    const char *what;
} sgemv_case;

typedef struct {
    long checked, failed;
} variant_tally;

static uint64_t rng;
static int variant_count;
static const shim_sgemv_variant *variants;
static variant_tally *tally;
static long total_checks, total_failures, determinism_checks;

static float pick(const float *set, int count)
{
    return set[(int)((test_uniform(&rng) + 1.0f) * 0.5f * (float)count) % count];
}

static int pick_int(int count)
{
    return (int)((test_uniform(&rng) + 1.0f) * 0.5f * (float)count) % count;
}

static void describe(const sgemv_case *c, char *out, size_t len)
{
    snprintf(out, len, "%s trans=%d m=%d n=%d lda=%lld off(a,x,y)=(%d,%d,%d) alpha=%g beta=%g", c->what, c->trans,
             c->m, c->n, (long long)c->lda, c->aoff, c->xoff, c->yoff, c->alpha, c->beta);
}

/* runs v once on the device buffers (y reset from y_init first); the caller copies y back */
static void run_variant(const shim_sgemv_variant *v, const sgemv_case *c, const float *da, const float *dx,
                        float *dy_base, const float *hy_init, size_t y_total, const char *label)
{
    TEST_CUDA(cudaMemcpy(dy_base, hy_init, y_total * sizeof(float), cudaMemcpyHostToDevice));
    shim_sgemv_args args;
    memset(&args, 0, sizeof args);
    args.trans = c->trans;
    args.m = c->m;
    args.n = c->n;
    args.alpha = c->alpha;
    args.beta = c->beta;
    args.a = da;
    args.lda = c->lda;
    args.x = dx;
    args.y = dy_base + c->yoff;
    args.stream = 0;
    args.work_bytes = shim_sgemv_work_bytes(v, &args);
    void *work = NULL;
    if (args.work_bytes) {
        TEST_CUDA(cudaMalloc(&work, args.work_bytes));
        /* all-ones bytes are NaN: a partial the variant reads but never wrote shows up */
        TEST_CUDA(cudaMemset(work, 0xff, args.work_bytes));
        args.work = work;
    }
    cudaError_t err = shim_sgemv_run(v, &args);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        printf("FAIL: %s: %s\n", label, cudaGetErrorString(err));
        printf("check_sgemv: stopped at a CUDA error\n");
        exit(1);
    }
    if (work)
        TEST_CUDA(cudaFree(work));
}

static int guards_intact(const float *got, const float *init, const sgemv_case *c, int leny, const char *label)
{
    for (int i = 0; i < c->yoff; i++)
        if (memcmp(&got[i], &init[i], sizeof(float)) != 0) {
            printf("  %s: guard %d before y was written\n", label, c->yoff - i);
            return 0;
        }
    for (int i = 0; i < Y_GUARD; i++)
        if (memcmp(&got[c->yoff + leny + i], &init[c->yoff + leny + i], sizeof(float)) != 0) {
            printf("  %s: guard %d after y was written\n", label, i);
            return 0;
        }
    return 1;
}

static void run_case(const sgemv_case *c, int check_repeat)
{
    const int lenx = c->trans ? c->m : c->n, leny = c->trans ? c->n : c->m;
    const size_t a_total = (size_t)c->aoff + (size_t)c->lda * (size_t)c->n;
    const size_t x_total = (size_t)c->xoff + (size_t)lenx + X_GUARD;
    const size_t y_total = (size_t)c->yoff + (size_t)leny + Y_GUARD;
    float *ha = malloc(a_total * sizeof(float)), *hx = malloc(x_total * sizeof(float));
    float *hy_init = malloc(y_total * sizeof(float)), *hy = malloc(y_total * sizeof(float));
    float *hy_again = malloc(y_total * sizeof(float));
    double *yref = malloc((size_t)leny * sizeof(double)), *ybound = malloc((size_t)leny * sizeof(double));
    if (!ha || !hx || !hy_init || !hy || !hy_again || !yref || !ybound) {
        printf("FAIL: out of host memory\n");
        exit(1);
    }

    /* NaN wherever a correct kernel never reads: before A, A's padding rows, after x. With
     * alpha == 0 all of A and x is NaN: neither may be read at all. */
    test_fill_poison(ha, a_total);
    test_fill_poison(hx, x_total);
    if (c->alpha != 0.0f) {
        for (int j = 0; j < c->n; j++)
            test_fill(ha + c->aoff + (size_t)j * (size_t)c->lda, (size_t)c->m, &rng);
        test_fill(hx + c->xoff, (size_t)lenx, &rng);
    }
    /* y: guards poisoned; beta == 0 poisons y too (it must be overwritten, NaN must not leak) */
    test_fill_poison(hy_init, y_total);
    if (c->beta != 0.0f)
        test_fill(hy_init + c->yoff, (size_t)leny, &rng);

    ref_sgemv(c->trans, c->m, c->n, c->alpha, ha + c->aoff, c->lda, hx + c->xoff, 1, c->beta, hy_init + c->yoff, 1,
              yref, ybound);

    float *da, *dx, *dy;
    TEST_CUDA(cudaMalloc((void **)&da, a_total * sizeof(float)));
    TEST_CUDA(cudaMalloc((void **)&dx, x_total * sizeof(float)));
    TEST_CUDA(cudaMalloc((void **)&dy, y_total * sizeof(float)));
    TEST_CUDA(cudaMemcpy(da, ha, a_total * sizeof(float), cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemcpy(dx, hx, x_total * sizeof(float), cudaMemcpyHostToDevice));

    shim_sgemv_args probe;
    memset(&probe, 0, sizeof probe);
    probe.trans = c->trans;
    probe.m = c->m;
    probe.n = c->n;
    probe.alpha = c->alpha;
    probe.beta = c->beta;
    probe.a = da + c->aoff;
    probe.lda = c->lda;
    probe.x = dx + c->xoff;
    probe.y = dy + c->yoff;
    const shim_sgemv_variant *selected = shim_sgemv_select(&probe);

    char desc[256], label[320];
    describe(c, desc, sizeof desc);
    /* index variant_count is the selector's choice, checked as a variant of its own */
    for (int vi = 0; vi <= variant_count; vi++) {
        const shim_sgemv_variant *v = vi < variant_count ? &variants[vi] : selected;
        if (!v) {
            printf("FAIL: selector returned NULL for %s\n", desc);
            tally[vi].checked++;
            tally[vi].failed++;
            total_checks++;
            total_failures++;
            continue;
        }
        if (vi < variant_count && !v->accepts(&probe))
            continue;
        if (vi == variant_count && !v->accepts(&probe)) {
            printf("FAIL: selector chose %s, which does not accept %s\n", v->name, desc);
            tally[vi].checked++;
            tally[vi].failed++;
            total_checks++;
            total_failures++;
            continue;
        }
        snprintf(label, sizeof label, "%s%s on %s", vi == variant_count ? "selected " : "", v->name, desc);
        run_variant(v, c, da + c->aoff, dx + c->xoff, dy, hy_init, y_total, label);
        TEST_CUDA(cudaMemcpy(hy, dy, y_total * sizeof(float), cudaMemcpyDeviceToHost));
        long bad = test_compare(label, hy + c->yoff, 1, yref, ybound, leny, lenx, 1.0);
        if (bad)
            printf("  %s: %ld of %d elements wrong\n", label, bad, leny);
        int ok = bad == 0 && guards_intact(hy, hy_init, c, leny, label);
        if (ok && (check_repeat || vi == variant_count)) {
            run_variant(v, c, da + c->aoff, dx + c->xoff, dy, hy_init, y_total, label);
            TEST_CUDA(cudaMemcpy(hy_again, dy, y_total * sizeof(float), cudaMemcpyDeviceToHost));
            determinism_checks++;
            if (memcmp(hy, hy_again, y_total * sizeof(float)) != 0) {
                printf("  %s: a second run gave different bits\n", label);
                ok = 0;
            }
        }
        tally[vi].checked++;
        total_checks++;
        if (!ok) {
            tally[vi].failed++;
            total_failures++;
            printf("FAIL: %s\n", label);
        }
    }

    TEST_CUDA(cudaFree(da));
    TEST_CUDA(cudaFree(dx));
    TEST_CUDA(cudaFree(dy));
    free(ha);
    free(hx);
    free(hy_init);
    free(hy);
    free(hy_again);
    free(yref);
    free(ybound);
}

static const float alphas[] = {1.0f, -0.7f, 0.0f};
static const float betas[] = {0.0f, 1.0f, 0.9f};

static sgemv_case make_case(const char *what, int trans, int m, int n, int lda_extra, int aoff, int xoff, int yoff,
                            float alpha, float beta)
{
    sgemv_case c;
    c.what = what;
    c.trans = trans;
    c.m = m;
    c.n = n;
    c.lda = (int64_t)m + lda_extra;
    c.aoff = aoff;
    c.xoff = xoff;
    c.yoff = yoff;
    c.alpha = alpha;
    c.beta = beta;
    return c;
}

/* random offsets, lda padding and alpha/beta (alpha mostly nonzero: alpha == 0 has its own sweep) */
static sgemv_case random_case(const char *what, int trans, int m, int n)
{
    static const int lda_extras[] = {0, 0, 1, 3, 5, 4};
    static const float nonzero_alphas[] = {1.0f, -0.7f};
    return make_case(what, trans, m, n, lda_extras[pick_int(6)], pick_int(4), pick_int(4), pick_int(4),
                     pick(nonzero_alphas, 2), pick(betas, 3));
}

int main(void)
{
    test_require_gpu();
    rng = test_seed();
    variants = shim_sgemv_variants(&variant_count);
    tally = calloc((size_t)variant_count + 1, sizeof *tally);
    long problems = 0;
    sgemv_case c;
    /* SHIMBLAS_TEST_QUICK: fewer and smaller cases, every variant still met (for compute-sanitizer,
     * which runs each kernel hundreds of times slower) */
    const int quick = getenv("SHIMBLAS_TEST_QUICK") != NULL;

    for (int trans = 0; trans <= 1; trans++) {
        /* tiny, every alpha/beta class */
        static const int tiny[][2] = {{1, 1}, {1, 7}, {7, 1}, {3, 5}};
        for (int t = 0; t < 4; t++)
            for (int ai = 0; ai < 3; ai++)
                for (int bi = 0; bi < 3; bi++) {
                    c = make_case("tiny", trans, tiny[t][0], tiny[t][1], pick_int(3), pick_int(4), pick_int(4),
                                  pick_int(4), alphas[ai], betas[bi]);
                    run_case(&c, 0);
                    problems++;
                }

        /* alpha == 0 on longer vectors: y := beta*y without reading A or x (both all NaN) */
        for (int bi = 0; bi < 3; bi++) {
            c = make_case("alpha=0", trans, 1000, 37, 3, 1, 2, 3, 0.0f, betas[bi]);
            run_case(&c, 0);
            c = make_case("alpha=0", trans, 37, 1000, 0, 0, 0, 1, 0.0f, betas[bi]);
            run_case(&c, 0);
            problems += 2;
        }

        /* tails around every tile, warp and vector width, sampled pairs */
        static const int edges[] = {1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129};
        for (int t = 0; t < (quick ? 12 : 60); t++) {
            c = random_case("tails", trans, edges[pick_int(17)], edges[pick_int(17)]);
            run_case(&c, 0);
            problems++;
        }
        /* n across the output tiles of the multi-output forms (up to 1024 outputs per block) */
        static const int wide[] = {255, 256, 257, 1023, 1024, 1025, 2049};
        for (int t = 0; t < (quick ? 2 : 7); t++) {
            c = random_case("tiles", trans, edges[pick_int(17)], wide[t]);
            run_case(&c, 0);
            c = random_case("tiles", trans, wide[t], edges[pick_int(17)]);
            run_case(&c, 0);
            problems += 2;
        }

        /* every offset of A, x and y against each other, aligned and padded lda */
        for (int aoff = 0; aoff < (quick ? 2 : 4); aoff++)
            for (int xoff = 0; xoff < (quick ? 2 : 4); xoff++)
                for (int yoff = 0; yoff < 4; yoff += 3) {
                    /* lda 67 moves each column's 16-byte phase, lda 68 keeps a's */
                    c = make_case("offsets", trans, 67, 45, (aoff + xoff) % 2, aoff, xoff, yoff, -0.7f, 0.9f);
                    run_case(&c, 0);
                    c = make_case("offsets", trans, 64, 40, 0, aoff, xoff, yoff, 1.0f, 0.0f);
                    run_case(&c, 0);
                    problems += 2;
                }

        /* lda > m: the padding rows hold NaN, so reading them fails the comparison */
        static const int pads[] = {1, 3, 5};
        for (int t = 0; t < (quick ? 1 : 3); t++) {
            c = make_case("lda>m", trans, 16, 3001, pads[t], pick_int(4), pick_int(4), pick_int(4), 1.0f, 0.9f);
            run_case(&c, 0);
            c = make_case("lda>m", trans, 517, 259, pads[t], pick_int(4), pick_int(4), pick_int(4), -0.7f, 0.0f);
            run_case(&c, 0);
            problems += 2;
        }

        /* short columns (rows_short2/4): every lanes-per-output width and both limits, each 16-byte
         * phase of A, lda % 4 == 0 (16-byte body loads, x in registers) and lda % 4 != 0 */
        static const int shorts[] = {6, 8, 9, 12, 24, 48, 100, 128, 200, 248, 250, 253, 256, 300, 500, 504};
        static const int short_n[] = {1, 37, 300, 1025, 4099};
        static const float short_alphas[] = {1.0f, -0.7f};
        for (int t = 0; t < (quick ? 8 : 32); t++) {
            const int m = shorts[t % 16];
            const int lda_extra = t < 16 ? (4 - m % 4) % 4 + 4 * pick_int(2) : 1 + 2 * pick_int(2);
            c = make_case("short", trans, m, short_n[pick_int(5)], lda_extra, pick_int(4), pick_int(4), pick_int(4),
                          pick(short_alphas, 2), pick(betas, 3));
            run_case(&c, t % 4 == 0);
            problems++;
        }

        /* columns past the shared-memory chunks (4096 / 2048 floats) and the short-column limit */
        static const int mids[][2] = {{513, 33}, {600, 70}, {1031, 70}, {5000, 19}, {9001, 130}, {10007, 77}};
        for (int t = 0; t < (quick ? 2 : 6); t++) {
            c = random_case("mid", trans, mids[t][0], mids[t][1]);
            run_case(&c, 1);
            c = random_case("mid", trans, mids[t][1], mids[t][0]);
            run_case(&c, 1);
            problems += 2;
        }

        if (quick) {
            /* one split-K shape, small */
            c = random_case("long", trans, trans ? 20000 : 37, trans ? 37 : 20000);
            run_case(&c, 1);
            problems++;
            continue;
        }
        /* skinny: few long outputs, many short ones, in both forms */
        static const int skinny[] = {16, 32};
        for (int t = 0; t < 2; t++) {
            c = random_case("skinny", trans, skinny[t], 100003);
            run_case(&c, 1);
            c = random_case("skinny", trans, 100003, skinny[t]);
            run_case(&c, 1);
            problems += 2;
        }
        c = make_case("skinny", trans, 16, 100000, 0, 0, 0, 0, 1.0f, 0.0f);
        run_case(&c, 1);
        problems++;

        /* long reductions: the split variants, several pieces and chunks per piece */
        static const int few[] = {3, 37, 300};
        for (int t = 0; t < 3; t++) {
            c = random_case("long", trans, trans ? 100000 : few[t], trans ? few[t] : 100000);
            run_case(&c, 1);
            problems++;
        }
        c = make_case("long", trans, trans ? 65536 : 256, trans ? 256 : 65536, 0, 0, 0, 0, 1.0f, 0.0f);
        run_case(&c, 1);
        problems++;

        /* large */
        c = make_case("large", trans, 2048, 2048, 0, 0, 0, 0, 1.0f, 0.0f);
        run_case(&c, 1);
        c = make_case("large", trans, 4099, 3001, 2, 1, 2, 3, -0.7f, 0.9f);
        run_case(&c, 1);
        problems += 2;
    }

    for (int vi = 0; vi <= variant_count; vi++)
        printf("%-18s %ld/%ld cases passed\n", vi < variant_count ? variants[vi].name : "(selected)",
               tally[vi].checked - tally[vi].failed, tally[vi].checked);
    printf("%ld problems, %ld repeat-determinism checks\n", problems, determinism_checks);
    printf("check_sgemv: %ld cases, %ld failures\n", total_checks, total_failures);
    free(tally);
    return total_failures ? 1 : 0;
}
