/* What the host-data timers (sgemm_timer.c, cublasxt_timer.c) share: a wall clock, sorting of
 * samples, and the same N x N operands. Header-only: sgemm_timer links nothing of CUDA. */
#ifndef BENCH_HOST_TIMER_H
#define BENCH_HOST_TIMER_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double host_timer_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int host_timer_compare(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* sorts t[0..n) in place */
static inline void host_timer_sort(double *t, int n)
{
    qsort(t, (size_t)n, sizeof(double), host_timer_compare);
}

/* A, B and C of n x n floats, A and B filled with a fixed pattern, C zero; 0 when out of memory */
static inline int host_timer_operands(int n, float **a, float **b, float **c)
{
    size_t elems = (size_t)n * n;
    *a = malloc(sizeof(float) * elems);
    *b = malloc(sizeof(float) * elems);
    *c = malloc(sizeof(float) * elems);
    if (!*a || !*b || !*c)
        return 0;
    for (size_t i = 0; i < elems; i++) {
        (*a)[i] = (float)(i % 1021) * (1.0f / 1021) - 0.5f;
        (*b)[i] = (float)(i % 1019) * (1.0f / 1019) - 0.5f;
    }
    memset(*c, 0, sizeof(float) * elems);
    return 1;
}

#endif
