/* What each SGEMM arithmetic (SHIMBLAS_SGEMM_MATH: fp32, 3xtf32, tf32) must keep of IEEE FP32,
 * on the selector's fp32 choice and on every tensor-core variant that runs on the GPU, by name:
 *   - an Inf in A times finite nonzero B gives an Inf of the right sign (not a NaN made by the split);
 *   - a NaN in B makes exactly its column of C NaN;
 *   - beta == 0 with NaN in C: C is written, never read;
 *   - finite values near FLT_MAX stay finite and accurate (their TF32 rounding would overflow);
 *   - wide exponents (2^-60..2^60): within the class's bound of float64 (fp32 and 3xtf32:
 *     4 (k + 2) eps sum |a b|; tf32: plus 2^-9 sum |a b|); subnormal A: the FP32 bound for fp32,
 *     2^-6 sum |a b| on the tensor cores (a subnormal keeps only TF32's bit positions);
 *   - the same inputs twice give the same bits.
 * Skipped (77) without a GPU. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu_guard.h"
#include "sgemm_kernels.h"

#define CHECK(x) test_cuda_check((int)(x), #x, __FILE__, __LINE__)

static int failures, cases;
static uint64_t rng = 0x243F6A8885A308D3ull;
static double uniform(void) /* [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1.0p-52 - 1.0;
}

/* C = alpha A B + beta C (NN, column-major) with variant v (NULL: the selector for math) on host
 * arrays (packed: m x k, k x n, m x n); c in and out. On the device A and B get leading dimensions
 * rounded up to a multiple of 4 (the TMA-fed variants take only those), their padding NaN (a kernel
 * that read it would show). */
static void run(const shim_sgemm_variant *v, int math, int m, int n, int k, float alpha, const float *a,
                const float *b, float beta, float *c)
{
    float *da, *db, *dc;
    void *work = NULL;
    const int lda = (m + 3) / 4 * 4, ldb = (k + 3) / 4 * 4;
    CHECK(cudaMalloc((void **)&da, sizeof(float) * lda * k));
    CHECK(cudaMalloc((void **)&db, sizeof(float) * ldb * n));
    CHECK(cudaMalloc((void **)&dc, sizeof(float) * m * n));
    CHECK(cudaMemset(da, 0xff, sizeof(float) * lda * k));
    CHECK(cudaMemset(db, 0xff, sizeof(float) * ldb * n));
    CHECK(cudaMemcpy2D(da, sizeof(float) * lda, a, sizeof(float) * m, sizeof(float) * m, k, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2D(db, sizeof(float) * ldb, b, sizeof(float) * k, sizeof(float) * k, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c, sizeof(float) * m * n, cudaMemcpyHostToDevice));
    shim_sgemm_args p = {0, 0, m, n, k, alpha, beta, da, lda, db, ldb, dc, m, NULL, 0, 0, math, 0, 0};
    if (!v)
        v = shim_sgemm_select(&p);
    p.work_bytes = shim_sgemm_work_bytes(v, &p);
    if (p.work_bytes)
        CHECK(cudaMalloc(&work, p.work_bytes));
    p.work = work;
    CHECK(shim_sgemm_run(v, &p));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c, dc, sizeof(float) * m * n, cudaMemcpyDeviceToHost));
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(work);
}

static void verdict(const char *cls, const char *what, int bad)
{
    cases++;
    failures += bad != 0;
    printf("%s %s: %s%s\n", bad ? "FAIL" : "ok  ", cls, what, bad ? " (see above)" : "");
}

static float *fill(int count, double lo_mag, int exp_lo, int exp_hi)
{
    float *v = malloc(sizeof(float) * count);
    for (int i = 0; i < count; i++) {
        double u = uniform();
        double mag = lo_mag + (1 - lo_mag) * fabs(u);
        int e = exp_lo + (int)((uniform() * 0.5 + 0.5) * (exp_hi - exp_lo + 1));
        if (e > exp_hi)
            e = exp_hi;
        v[i] = (float)((u < 0 ? -1 : 1) * ldexp(mag, e));
    }
    return v;
}

/* |c - c64| <= factor (k + 2) eps sum|ab| + extra sum|ab| for every element; prints the first few */
static int within(const char *cls, int m, int n, int k, const float *a, const float *b, const float *c, double extra)
{
    int bad = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0, g = 0;
            for (int l = 0; l < k; l++) {
                double t = (double)a[i + l * m] * b[l + j * k];
                s += t;
                g += fabs(t);
            }
            double tol = 4.0 * (k + 2) * FLT_EPSILON * g + extra * g;
            if (!(fabs((double)c[i + j * m] - s) <= tol) && bad++ < 3)
                printf("  %s: c(%d,%d) = %.9g, float64 %.9g (tolerance %.3g)\n", cls, i, j, c[i + j * m], s, tol);
        }
    return bad;
}

static void check_class(const char *cls, const shim_sgemm_variant *v, int math)
{
    const double extra = math == SHIM_SGEMM_TF32 ? 0x1.0p-9 : 0.0;
    const int m = 70, n = 45, k = 37;

    /* Inf and NaN at a short K and a long one (kernels that split K take another path there) */
    static const int ieee_k[] = {37, 1000};
    for (int q = 0; q < 2; q++) {
        const int kk = ieee_k[q];
        char what[128];
        /* Inf in A(5, 3), B without zeros */
        {
            float *a = fill(m * kk, 0.0, 0, 0), *b = fill(kk * n, 0.5, 0, 0), *c = calloc((size_t)m * n, sizeof(float));
            a[5 + 3 * m] = INFINITY;
            run(v, math, m, n, kk, 1.0f, a, b, 0.0f, c);
            int bad = 0;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    float got = c[i + j * m];
                    int ok = i == 5 ? isinf(got) && (got > 0) == (b[3 + j * kk] > 0) : isfinite(got);
                    if (!ok && bad++ < 3)
                        printf("  %s: Inf in A(5,3): c(%d,%d) = %g\n", cls, i, j, got);
                }
            snprintf(what, sizeof what, "Inf in A times finite nonzero B is an Inf of the right sign, nothing else is (k = %d)", kk);
            verdict(cls, what, bad);
            free(a), free(b), free(c);
        }
        /* NaN in B(7, 2): the usual quiet NaN, and one whose payload lies only in the 13 low bits
         * (that TF32, the 19 high bits, would read as an Inf if the split kept it as it is) */
        static const uint32_t nan_bits[] = {0x7fc00000u, 0xff8012c0u};
        for (int w = 0; w < 2; w++) {
            float *a = fill(m * kk, 0.5, 0, 0), *b = fill(kk * n, 0.0, 0, 0), *c = calloc((size_t)m * n, sizeof(float));
            memcpy(&b[7 + 2 * kk], &nan_bits[w], sizeof(float));
            run(v, math, m, n, kk, 1.0f, a, b, 0.0f, c);
            int bad = 0;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    int ok = j == 2 ? isnan(c[i + j * m]) : isfinite(c[i + j * m]);
                    if (!ok && bad++ < 3)
                        printf("  %s: NaN 0x%08x in B(7,2): c(%d,%d) = %g\n", cls, nan_bits[w], i, j, c[i + j * m]);
                }
            snprintf(what, sizeof what, "a NaN (0x%08x) in B makes its column of C NaN, and only that (k = %d)",
                     nan_bits[w], kk);
            verdict(cls, what, bad);
            free(a), free(b), free(c);
        }
    }
    /* beta == 0, C full of NaN */
    {
        float *a = fill(m * k, 0.0, 0, 0), *b = fill(k * n, 0.0, 0, 0), *c = malloc(sizeof(float) * m * n);
        for (int e = 0; e < m * n; e++)
            c[e] = NAN;
        run(v, math, m, n, k, 0.5f, a, b, 0.0f, c);
        int bad = 0;
        for (int e = 0; e < m * n; e++)
            bad += !isfinite(c[e]);
        for (int e = 0; e < m * k; e++)
            a[e] *= 0.5f; /* exact: 0.5 A B against alpha 0.5 */
        bad += within(cls, m, n, k, a, b, c, extra);
        verdict(cls, "beta == 0: C written, never read (NaN in C does not survive)", bad);
        free(a), free(b), free(c);
    }
    /* near FLT_MAX: A(0, l) = 3e38 (k terms would overflow in sum; one nonzero per row) */
    {
        float *a = calloc((size_t)m * k, sizeof(float)), *b = fill(k * n, 0.5, -1, -1), *c = calloc((size_t)m * n, sizeof(float));
        for (int i = 0; i < m; i++)
            a[i + (i % k) * m] = (float)(3.0e38 * (1 - 0.01 * (i % 7))) * (i & 1 ? -1.0f : 1.0f);
        a[0] = FLT_MAX;
        run(v, math, m, n, k, 1.0f, a, b, 0.0f, c);
        verdict(cls, "finite values near FLT_MAX stay finite and accurate", within(cls, m, n, k, a, b, c, extra));
        free(a), free(b), free(c);
    }
    /* wide exponents: 2^-60 .. 2^60 in both */
    {
        float *a = fill(m * k, 0.0, -60, 60), *b = fill(k * n, 0.0, -60, 60), *c = calloc((size_t)m * n, sizeof(float));
        run(v, math, m, n, k, 1.0f, a, b, 0.0f, c);
        verdict(cls, "wide exponents (2^-60..2^60) within the bound", within(cls, m, n, k, a, b, c, extra));
        free(a), free(b), free(c);
    }
    /* subnormal A (below 2^-126) times B near 2^100: normal products. On the tensor cores a subnormal
     * keeps only its bits at TF32's positions (its lo part vanishes): up to 2^-7 of it for values
     * from 2^-132 (2^-6 at 2^-133); the FP32 kernels are exact to FP32 */
    {
        float *a = fill(m * k, 0.0, -132, -127), *b = fill(k * n, 0.0, 100, 100), *c = calloc((size_t)m * n, sizeof(float));
        run(v, math, m, n, k, 1.0f, a, b, 0.0f, c);
        verdict(cls, math == SHIM_SGEMM_FP32 ? "subnormal A within the FP32 bound" : "subnormal A within 2^-6 of sum |a b|",
                within(cls, m, n, k, a, b, c, math == SHIM_SGEMM_FP32 ? extra : 0x1.0p-6));
        free(a), free(b), free(c);
    }
    /* the same bits twice, on a multi-tile problem */
    {
        const int mm = 1000, nn = 777, kk = 1001;
        float *a = fill(mm * kk, 0.0, 0, 0), *b = fill(kk * nn, 0.0, 0, 0);
        float *c1 = calloc((size_t)mm * nn, sizeof(float)), *c2 = calloc((size_t)mm * nn, sizeof(float));
        run(v, math, mm, nn, kk, 1.0f, a, b, 0.0f, c1);
        run(v, math, mm, nn, kk, 1.0f, a, b, 0.0f, c2);
        verdict(cls, "the same inputs twice give the same bits", memcmp(c1, c2, sizeof(float) * mm * nn) != 0);
        free(a), free(b), free(c1), free(c2);
    }
}

int main(void)
{
    test_require_gpu();
    check_class("fp32 (the selector)", NULL, SHIM_SGEMM_FP32);
    /* every tensor-core variant that runs on this GPU, by name (the selector's choice among them
     * depends on the GPU) */
    int count;
    const shim_sgemm_variant *all = shim_sgemm_variants(&count);
    shim_sgemm_args probe = {0, 0, 64, 64, 64, 1.0f, 0.0f, NULL, 64, NULL, 64, NULL, 64, NULL, 0, 0, 0, 0, 0};
    for (int i = 0; i < count; i++) {
        if (all[i].math == SHIM_SGEMM_FP32)
            continue;
        probe.math = all[i].math;
        if (!all[i].accepts(&probe)) {
            printf("skip %s: does not run on this GPU\n", all[i].name);
            continue;
        }
        char cls[96];
        snprintf(cls, sizeof cls, "%s (%s)", all[i].math == SHIM_SGEMM_3XTF32 ? "3xtf32" : "tf32", all[i].name);
        check_class(cls, &all[i], all[i].math);
    }
    printf("check_sgemm_math: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
