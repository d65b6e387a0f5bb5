/* Results and reference semantics through the public entry points, in both layouts and both
 * interfaces, against a float64 reference written from the definitions (not from the library's
 * row-major mapping): every transpose, alpha/beta including the beta == 0 (NaN in the output
 * vanishes) and alpha == 0 (A, B, x never read) rules, quick returns, negative increments, and
 * nothing written outside the referenced region (padding rows, gaps between strided elements,
 * guard elements after the end).
 *
 * SHIMBLAS_TEST_EXPECT=gpu: every call that computes must have been served by the GPU (skipped,
 * exit 77, when no GPU is usable); =cpu: by the CPU BLAS. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_names.h"
#include "reference.h"

/* the bound's factor for sgemm: 4 (k + 2) eps sum |a b|, or with SHIMBLAS_SGEMM_MATH=tf32 (one
 * product of operands rounded to 10 mantissa bits) that plus 2^-9 sum |a b| */
static double gemm_tolerance(int k)
{
    const char *math = getenv("SHIMBLAS_SGEMM_MATH");
    return 4.0 + (math && strcmp(math, "tf32") == 0 ? 0x1.0p-9 / ((k + 2) * (double)FLT_EPSILON) : 0.0);
}

#define GUARD 8

static int failures, cases;
static uint64_t rng;

/* element (i, j) of op(X), X stored in the given layout with leading dimension ld */
static double elem(const float *x, int row_major, int trans, int64_t ld, int i, int j)
{
    if (trans) {
        int t = i;
        i = j;
        j = t;
    }
    return row_major ? x[(int64_t)i * ld + j] : x[(int64_t)j * ld + i];
}

static int64_t at(int row_major, int64_t ld, int i, int j)
{
    return row_major ? (int64_t)i * ld + j : (int64_t)j * ld + i;
}

static float *alloc_matrix(int64_t count, int nan_fill)
{
    float *p = malloc(sizeof(float) * (size_t)(count + GUARD));
    if (nan_fill)
        test_fill_poison(p, (size_t)(count + GUARD));
    else
        test_fill(p, (size_t)(count + GUARD), &rng);
    return p;
}

static void fail(const char *what)
{
    printf("FAIL %s\n", what);
    failures++;
}

/* one gemm through cblas (either layout) or sgemm_ (column-major only) */
static void gemm_case(int row_major, int fortran, int ta, int tb, int m, int n, int k, float alpha,
                      float beta, int pad)
{
    char label[160];
    snprintf(label, sizeof label, "%s %s %c%c m=%d n=%d k=%d alpha=%g beta=%g pad=%d",
             fortran ? TEST_NAME(TEST_SGEMM) : TEST_NAME(TEST_CBLAS_SGEMM), row_major ? "row" : "col", ta ? 'T' : 'N', tb ? 'T' : 'N',
             m, n, k, alpha, beta, pad);
    cases++;
    /* stored shapes: op(A) is m x k, op(B) k x n */
    int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    int64_t lda = (row_major ? ac : ar) + pad, ldb = (row_major ? bc : br) + pad,
            ldc = (row_major ? n : m) + pad;
    if (lda < 1) lda = 1;
    if (ldb < 1) ldb = 1;
    if (ldc < 1) ldc = 1;
    int64_t asz = (row_major ? ar : ac) * lda, bsz = (row_major ? br : bc) * ldb,
            csz = (row_major ? m : n) * ldc;
    int skip_ab = alpha == 0.0f || k == 0;
    float *a = alloc_matrix(asz, skip_ab), *b = alloc_matrix(bsz, skip_ab);
    float *c = alloc_matrix(csz, 0);
    if (beta == 0.0f)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                c[at(row_major, ldc, i, j)] = test_poison();
    float *c0 = malloc(sizeof(float) * (size_t)(csz + GUARD));
    memcpy(c0, c, sizeof(float) * (size_t)(csz + GUARD));

    double *ref = malloc(sizeof(double) * (size_t)(m * n + 1)), *bound = malloc(sizeof(double) * (size_t)(m * n + 1));
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
            double s = 0, sa = 0;
            if (!skip_ab)
                for (int l = 0; l < k; l++) {
                    double t = elem(a, row_major, ta, lda, i, l) * elem(b, row_major, tb, ldb, l, j);
                    s += t;
                    sa += fabs(t);
                }
            double cij = beta == 0.0f ? 0.0 : (double)beta * c0[at(row_major, ldc, i, j)];
            ref[(int64_t)j * m + i] = alpha * s + cij;
            bound[(int64_t)j * m + i] = fabs(alpha) * sa + fabs(cij);
        }
    }

    if (fortran) {
        char cta = ta ? 'T' : 'N', ctb = tb ? 'C' : 'n';
        test_int im = m, in = n, ik = k, ilda = (test_int)lda, ildb = (test_int)ldb, ildc = (test_int)ldc;
        test_sgemm_(&cta, &ctb, &im, &in, &ik, &alpha, a, &ilda, b, &ildb, &beta, c, &ildc, 1, 1);
    } else {
        test_cblas_sgemm(row_major ? CblasRowMajor : CblasColMajor, ta ? CblasTrans : CblasNoTrans,
                         tb ? CblasConjTrans : CblasNoTrans, m, n, k, alpha, a, (test_int)lda, b, (test_int)ldb,
                         beta, c, (test_int)ldc);
    }

    /* gather the referenced region column by column for the comparison; check the rest */
    float *got = malloc(sizeof(float) * (size_t)(m * n + 1));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            got[(int64_t)j * m + i] = c[at(row_major, ldc, i, j)];
    long bad = test_compare(label, got, 1, ref, bound, (long)m * n, k, gemm_tolerance(k));
    int64_t outside = 0;
    for (int64_t idx = 0; idx < csz + GUARD; idx++) {
        int64_t major = idx / ldc, minor = idx % ldc;
        int inside = idx < csz && minor < (row_major ? n : m) && major < (row_major ? m : n);
        if (!inside && memcmp(&c[idx], &c0[idx], sizeof(float)) != 0)
            outside++;
    }
    if (bad || outside) {
        char what[220];
        snprintf(what, sizeof what, "%s: %ld wrong, %lld written outside the region", label, bad,
                 (long long)outside);
        fail(what);
    }
    free(a); free(b); free(c); free(c0); free(ref); free(bound); free(got);
}

static void gemv_case(int row_major, int fortran, int trans, int m, int n, int incx, int incy, float alpha,
                      float beta, int pad)
{
    char label[160];
    snprintf(label, sizeof label, "%s %s %c m=%d n=%d incx=%d incy=%d alpha=%g beta=%g pad=%d",
             fortran ? TEST_NAME(TEST_SGEMV) : TEST_NAME(TEST_CBLAS_SGEMV), row_major ? "row" : "col", trans ? 'T' : 'N', m, n, incx,
             incy, alpha, beta, pad);
    cases++;
    int64_t lda = (row_major ? n : m) + pad;
    if (lda < 1) lda = 1;
    int64_t asz = (row_major ? m : n) * lda;
    int lenx = trans ? m : n, leny = trans ? n : m;
    int64_t xsz = lenx ? 1 + (int64_t)(lenx - 1) * abs(incx) : 0, ysz = leny ? 1 + (int64_t)(leny - 1) * abs(incy) : 0;
    float *a = alloc_matrix(asz, alpha == 0.0f), *x = alloc_matrix(xsz, alpha == 0.0f);
    float *y = alloc_matrix(ysz, 0);
    /* element i of a vector of length len with increment inc, as reference BLAS walks it */
#define VI(i, len, inc) ((inc) > 0 ? (int64_t)(i) * (inc) : (int64_t)((len) - 1 - (i)) * -(inc))
    if (beta == 0.0f)
        for (int i = 0; i < leny; i++)
            y[VI(i, leny, incy)] = test_poison();
    float *y0 = malloc(sizeof(float) * (size_t)(ysz + GUARD));
    memcpy(y0, y, sizeof(float) * (size_t)(ysz + GUARD));
    double *ref = malloc(sizeof(double) * (size_t)(leny + 1)), *bound = malloc(sizeof(double) * (size_t)(leny + 1));
    for (int i = 0; i < leny; i++) {
        double s = 0, sa = 0;
        if (alpha != 0.0f)
            for (int j = 0; j < lenx; j++) {
                double t = elem(a, row_major, trans, lda, i, j) * x[VI(j, lenx, incx)];
                s += t;
                sa += fabs(t);
            }
        double yi = beta == 0.0f ? 0.0 : (double)beta * y0[VI(i, leny, incy)];
        ref[i] = alpha * s + yi;
        bound[i] = fabs(alpha) * sa + fabs(yi);
    }
    if (fortran) {
        char t = trans ? 'c' : 'N';
        test_int im = m, in = n, ilda = (test_int)lda, iincx = incx, iincy = incy;
        test_sgemv_(&t, &im, &in, &alpha, a, &ilda, x, &iincx, &beta, y, &iincy, 1);
    } else {
        test_cblas_sgemv(row_major ? CblasRowMajor : CblasColMajor, trans ? CblasTrans : CblasNoTrans, m, n,
                         alpha, a, (test_int)lda, x, incx, beta, y, incy);
    }
    long bad = test_compare(label, y, incy, ref, bound, leny, lenx, 4.0);
    int64_t outside = 0;
    for (int64_t idx = 0; idx < ysz + GUARD; idx++) {
        int inside = idx < ysz && idx % abs(incy) == 0;
        if (!inside && memcmp(&y[idx], &y0[idx], sizeof(float)) != 0)
            outside++;
    }
    if (bad || outside) {
        char what[220];
        snprintf(what, sizeof what, "%s: %ld wrong, %lld written outside the vector", label, bad,
                 (long long)outside);
        fail(what);
    }
#undef VI
    free(a); free(x); free(y); free(y0); free(ref); free(bound);
}

/* calls that must leave the output exactly as it was (quick returns) */
static void quick_returns(void)
{
    float c[16], c0[16], nan = test_poison();
    for (int i = 0; i < 16; i++)
        c[i] = i % 2 ? nan : (float)i;
    memcpy(c0, c, sizeof c);
    float a[16];
    test_fill_poison(a, 16);
    test_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 0, 4, 4, 1.0f, a, 4, a, 4, 0.0f, c, 4);
    test_cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, 4, 0, 4, 1.0f, a, 4, a, 4, 0.0f, c, 4);
    test_cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, 4, 4, 4, 0.0f, a, 4, a, 4, 1.0f, c, 4);
    test_cblas_sgemm(CblasRowMajor, CblasTrans, CblasTrans, 4, 4, 0, 2.0f, a, 4, a, 4, 1.0f, c, 4);
    test_cblas_sgemv(CblasRowMajor, CblasNoTrans, 0, 4, 1.0f, a, 4, a, 1, 0.0f, c, 1);
    test_cblas_sgemv(CblasColMajor, CblasTrans, 4, 4, 0.0f, a, 4, a, 1, 1.0f, c, 1);
    test_int zero = 0, four = 4;
    float one = 1.0f, none = 0.0f;
    test_sgemv_("N", &four, &zero, &one, a, &four, a, &four, &none, c, &four, 1);
    test_sgemm_("N", "N", &four, &four, &four, &none, a, &four, a, &four, &one, c, &four, 1, 1);
    cases++;
    if (memcmp(c, c0, sizeof c) != 0)
        fail("a quick return touched the output");
}

int main(void)
{
    printf("interface: %s\n", TEST_INTERFACE);
    if (test_load_provider() != 0)
        return 1;
    rng = test_seed();
    const char *expect = getenv("SHIMBLAS_TEST_EXPECT");
    int expect_gpu = expect && strcmp(expect, "gpu") == 0, expect_cpu = expect && strcmp(expect, "cpu") == 0;
    if (expect_gpu && !shimblas_gpu_available()) {
        printf("SKIP: SHIMBLAS_TEST_EXPECT=gpu but no usable GPU\n");
        return 77;
    }
    shimblas_reset_stats();
    quick_returns();

    static const int dims[] = {1, 2, 3, 7, 16, 33, 70};
    static const float alphas[] = {1.0f, -0.7f, 0.0f}, betas[] = {0.0f, 1.0f, 0.9f};
    for (int layout = 0; layout < 2; layout++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int s = 0; s < 12; s++) {
                    int m = dims[(s + ta) % 7], n = dims[(s * 3 + tb) % 7], k = dims[(s * 5 + layout) % 7];
                    float alpha = alphas[s % 3], beta = betas[(s / 3) % 3];
                    gemm_case(layout, 0, ta, tb, m, n, k, alpha, beta, s % 4);
                    if (!layout)
                        gemm_case(0, 1, ta, tb, n, k, m, beta == 1.0f ? alpha : -alpha, beta, (s + 1) % 4);
                }
    /* K = 0 scales C by beta; a larger problem that is not a multiple of anything */
    gemm_case(1, 0, 0, 1, 5, 6, 0, 1.0f, 0.5f, 1);
    gemm_case(0, 1, 1, 0, 5, 6, 0, 1.0f, 0.0f, 0);
    gemm_case(1, 0, 1, 0, 301, 203, 157, 1.0f, 0.9f, 3);
    gemm_case(0, 0, 0, 1, 257, 129, 333, -0.7f, 0.0f, 1);

    static const int incs[] = {1, 2, -1, -3};
    for (int layout = 0; layout < 2; layout++)
        for (int t = 0; t < 2; t++)
            for (int s = 0; s < 16; s++) {
                int m = dims[(s + t) % 7], n = dims[(s * 3 + layout) % 7];
                gemv_case(layout, 0, t, m, n, incs[s % 4], incs[(s / 4) % 4], alphas[s % 3], betas[(s / 3) % 3],
                          s % 3);
                if (!layout)
                    gemv_case(0, 1, t, n, m, incs[(s / 4) % 4], incs[s % 4], alphas[(s + 1) % 3], betas[s % 3],
                              (s + 2) % 3);
            }
    gemv_case(1, 0, 0, 1000, 77, 1, -2, 1.0f, 0.0f, 5);
    gemv_case(0, 0, 1, 1000, 77, -1, 1, 0.7f, 0.9f, 2);

    shimblas_stats st;
    shimblas_get_stats(&st);
    unsigned long long computed = st.sgemm.gpu + st.sgemm.cpu + st.sgemv.gpu + st.sgemv.cpu;
    unsigned long long on_gpu = st.sgemm.gpu + st.sgemv.gpu, on_cpu = st.sgemm.cpu + st.sgemv.cpu;
    unsigned long long gpu_failed = st.sgemm.gpu_failed + st.sgemv.gpu_failed;
    printf("served: %llu on the GPU, %llu on the CPU, %llu trivial, %llu failed on the GPU\n", on_gpu, on_cpu,
           st.sgemm.trivial + st.sgemv.trivial, gpu_failed);
    cases++;
    /* a GPU failure is a test failure unless the test asked for one (SHIMBLAS_TEST_FAIL) */
    if (gpu_failed && !getenv("SHIMBLAS_TEST_FAIL"))
        fail("calls failed on the GPU (recomputed on the CPU)");
    if (computed == 0 || (expect_gpu && on_gpu != computed) || (expect_cpu && on_cpu != computed))
        fail("calls were not served where SHIMBLAS_TEST_EXPECT says");
    printf("test_semantics: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
