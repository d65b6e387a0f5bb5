/* A CPU BLAS whose sgemm_ calls sgemv_ (fake_cpu_blas.c, named by SHIMBLAS_CPU_BLAS): the inner
 * calls must reach that CPU BLAS's sgemv_ directly, not loop and not take the GPU path. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "shimblas.h"

int main(void)
{
    enum { M = 7, N = 5, K = 3 };
    float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 5) - 1.5f;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(i % 3) + 0.25f;
    shimblas_set_mode(SHIMBLAS_MODE_CPU);
    /* a first call finds the CPU BLAS (and lets shimblas probe it); count only the second */
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, M, b, K, 0.0f, c, M);
    void *fake = dlopen(getenv("SHIMBLAS_CPU_BLAS"), RTLD_NOW | RTLD_NOLOAD);
    int *gemv_calls = fake ? dlsym(fake, "fake_blas_sgemv_calls") : NULL;
    int *gemm_calls = fake ? dlsym(fake, "fake_blas_sgemm_calls") : NULL;
    if (gemv_calls && gemm_calls)
        *gemv_calls = *gemm_calls = 0;
    shimblas_reset_stats();
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, M, b, K, 0.0f, c, M);

    int failures = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double s = 0;
            for (int l = 0; l < K; l++)
                s += (double)a[l * M + i] * b[j * K + l];
            if (fabs(c[j * M + i] - s) > 1e-4) {
                printf("FAIL (%d,%d): %g, want %g\n", i, j, c[j * M + i], s);
                failures++;
            }
        }
    shimblas_stats st;
    shimblas_get_stats(&st);
    if (!gemv_calls || !gemm_calls || *gemm_calls != 1 || *gemv_calls != N) {
        printf("FAIL: the fake CPU BLAS saw %d sgemm and %d sgemv calls, want 1 and %d\n",
               gemm_calls ? *gemm_calls : -1, gemv_calls ? *gemv_calls : -1, N);
        failures++;
    }
    if (st.sgemm.cpu != 1 || st.sgemv.calls != 0) {
        printf("FAIL: shimblas counted sgemm cpu=%llu and %llu sgemv calls; the inner calls must pass through\n",
               st.sgemm.cpu, st.sgemv.calls);
        failures++;
    }
    printf("test_recursion: %d failures\n", failures);
    return failures != 0;
}
