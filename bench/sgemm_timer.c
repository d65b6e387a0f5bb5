/* sgemm_timer N REPS: C = A B on malloc'd N x N matrices through the Fortran sgemm_ (linked with the
 * CPU BLAS, as an ordinary program would be), one warm-up call then REPS timed ones; prints
 * "sgemm_timer n=N median_ms=... min_ms=..." . Preloading libshimblas.so or libnvblas.so over it
 * times those (bench/multi_gpu.sh). */
#include <stdio.h>

#include "host_timer.h"

void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc, size_t, size_t);

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096, reps = argc > 2 ? atoi(argv[2]) : 3;
    if (n <= 0 || reps <= 0 || reps > 100)
        return 2;
    size_t elems = (size_t)n * n;
    float *a, *b, *c;
    if (!host_timer_operands(n, &a, &b, &c))
        return 1;
    const float one = 1.0f, zero = 0.0f;
    double t[101];
    for (int r = 0; r <= reps; r++) {
        double t0 = host_timer_ms();
        sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
        t[r] = host_timer_ms() - t0;
    }
    host_timer_sort(t + 1, reps);
    printf("sgemm_timer n=%d median_ms=%.2f min_ms=%.2f warmup_ms=%.1f c_mid=%.6g\n", n, t[1 + reps / 2], t[1], t[0],
           (double)c[elems / 2 + n / 3]);
    return 0;
}
