#include "reference.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t test_seed(void)
{
    const char *s = getenv("SHIMBLAS_TEST_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    printf("seed %llu (set SHIMBLAS_TEST_SEED to repeat)\n", (unsigned long long)seed);
    return seed;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float test_uniform(uint64_t *state)
{
    return (float)((double)(splitmix64(state) >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

void test_fill(float *p, size_t n, uint64_t *state)
{
    for (size_t i = 0; i < n; i++)
        p[i] = test_uniform(state);
}

float test_poison(void)
{
    uint32_t bits = 0x7fc0beefu;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

void test_fill_poison(float *p, size_t n)
{
    float v = test_poison();
    for (size_t i = 0; i < n; i++)
        p[i] = v;
}

int test_is_poison(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits == 0x7fc0beefu;
}

/* element i of a BLAS vector of length len with increment inc, as reference BLAS walks it */
static int64_t vec_index(int64_t i, int64_t len, int64_t inc)
{
    return inc > 0 ? i * inc : (len - 1 - i) * (-inc);
}

void ref_sgemv(int trans, int m, int n, float alpha, const float *a, int64_t lda, const float *x,
               int64_t incx, float beta, const float *y, int64_t incy, double *yref, double *ybound)
{
    int leny = trans ? n : m, lenx = trans ? m : n;
    for (int i = 0; i < leny; i++) {
        double s = 0.0, sa = 0.0;
        if (alpha != 0.0f) {
            for (int j = 0; j < lenx; j++) {
                double aij = trans ? a[(int64_t)i * lda + j] : a[(int64_t)j * lda + i];
                double xj = x[vec_index(j, lenx, incx)];
                s += aij * xj;
                sa += fabs(aij * xj);
            }
        }
        double yi = beta == 0.0f ? 0.0 : (double)beta * y[vec_index(i, leny, incy)];
        yref[i] = (double)alpha * s + yi;
        ybound[i] = fabs((double)alpha) * sa + fabs(yi);
    }
}

void ref_sgemm(int transa, int transb, int m, int n, int k, float alpha, const float *a, int64_t lda,
               const float *b, int64_t ldb, float beta, const float *c, int64_t ldc, double *cref,
               double *cbound)
{
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) {
            double s = 0.0, sa = 0.0;
            if (alpha != 0.0f) {
                for (int l = 0; l < k; l++) {
                    double ail = transa ? a[(int64_t)i * lda + l] : a[(int64_t)l * lda + i];
                    double blj = transb ? b[(int64_t)l * ldb + j] : b[(int64_t)j * ldb + l];
                    s += ail * blj;
                    sa += fabs(ail * blj);
                }
            }
            double cij = beta == 0.0f ? 0.0 : (double)beta * c[(int64_t)j * ldc + i];
            cref[(int64_t)j * m + i] = (double)alpha * s + cij;
            cbound[(int64_t)j * m + i] = fabs((double)alpha) * sa + fabs(cij);
        }
    }
}

long test_compare(const char *label, const float *got, int64_t inc, const double *ref,
                  const double *bound, long count, int terms, double tol_factor)
{
    long bad = 0;
    for (long i = 0; i < count; i++) {
        double g = got[vec_index(i, count, inc)];
        double tol = tol_factor * (terms + 2) * FLT_EPSILON * bound[i] + 1e-30;
        if (!(fabs(g - ref[i]) <= tol)) {
            if (bad < 5)
                printf("  %s: element %ld got %.9g want %.9g (tol %.3g)%s\n", label, i, g, ref[i], tol,
                       test_is_poison((float)g) ? " [never written]" : "");
            bad++;
        }
    }
    return bad;
}
