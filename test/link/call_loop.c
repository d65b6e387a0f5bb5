/* call_loop N: N tiny calls through the shim's four entry points in turn (sgemm_ 8x8x8, sgemv_
 * 8x8, cblas_sgemm 8x8x8, cblas_sgemv 8x8), all small enough to stay on the CPU BLAS in auto and
 * cpu mode. test/link/no_syscalls.sh runs it under strace with two values of N: a call that stays
 * on the CPU must not make a system call, so the count may not grow with N.
 * Exits 1 when the counters say a call was not served by the CPU BLAS (the test would then be
 * measuring another path), 2 on a usage error. */
#include <stdio.h>
#include <stdlib.h>

#include "shimblas.h"

enum { DIM = 8 };

static float a[DIM * DIM], b[DIM * DIM], c[DIM * DIM], x[DIM], y[DIM];

static void one_call(long i)
{
    const int n = DIM, inc = 1;
    const float one = 1.0f, zero = 0.0f;
    switch (i % 4) {
    case 0: sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1); break;
    case 1: sgemv_("N", &n, &n, &one, a, &n, x, &inc, &zero, y, &inc, 1); break;
    case 2: cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n); break;
    default: cblas_sgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0f, a, n, x, 1, 0.0f, y, 1); break;
    }
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long calls = argc == 2 ? strtol(argv[1], &end, 10) : -1;
    if (calls < 0 || !end || *end) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    for (int i = 0; i < DIM * DIM; i++) {
        a[i] = (float)(i % 7) - 3.0f;
        b[i] = (float)(i % 5) - 2.0f;
    }
    for (int i = 0; i < DIM; i++)
        x[i] = (float)(i % 3) - 1.0f;
    for (long i = 0; i < calls; i++)
        one_call(i);

    shimblas_stats s;
    shimblas_get_stats(&s);
    unsigned long long served = s.sgemm.cpu + s.sgemv.cpu, all = s.sgemm.calls + s.sgemv.calls;
    printf("%ld calls: sgemm cpu=%llu gpu=%llu, sgemv cpu=%llu gpu=%llu\n", calls, s.sgemm.cpu, s.sgemm.gpu,
           s.sgemv.cpu, s.sgemv.gpu);
    if (served != (unsigned long long)calls || all != (unsigned long long)calls) {
        fprintf(stderr, "FAIL: %llu of %ld calls were served by the CPU BLAS (%llu counted)\n", served, calls, all);
        return 1;
    }
    return 0;
}
