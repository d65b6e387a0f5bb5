/* sgemm_timer N REPS: C = A B on malloc'd N x N matrices through the Fortran sgemm_ (linked with the
 * CPU BLAS, as an ordinary program would be), one warm-up call then REPS timed ones; prints
 * "sgemm_timer n=N median_ms=... min_ms=..." . Preloading libshimblas.so or libnvblas.so over it
 * times those (bench/multi_gpu.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc, size_t, size_t);

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int compare(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096, reps = argc > 2 ? atoi(argv[2]) : 3;
    if (n <= 0 || reps <= 0 || reps > 100)
        return 2;
    size_t elems = (size_t)n * n;
    float *a = malloc(sizeof(float) * elems), *b = malloc(sizeof(float) * elems), *c = malloc(sizeof(float) * elems);
    if (!a || !b || !c)
        return 1;
    for (size_t i = 0; i < elems; i++) {
        a[i] = (float)(i % 1021) * (1.0f / 1021) - 0.5f;
        b[i] = (float)(i % 1019) * (1.0f / 1019) - 0.5f;
    }
    memset(c, 0, sizeof(float) * elems);
    const float one = 1.0f, zero = 0.0f;
    double t[101];
    for (int r = 0; r <= reps; r++) {
        double t0 = now_ms();
        sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
        t[r] = now_ms() - t0;
    }
    qsort(t + 1, (size_t)reps, sizeof(double), compare);
    printf("sgemm_timer n=%d median_ms=%.2f min_ms=%.2f warmup_ms=%.1f c_mid=%.6g\n", n, t[1 + reps / 2], t[1], t[0],
           (double)c[elems / 2 + n / 3]);
    return 0;
}
