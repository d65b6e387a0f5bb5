/* cublasxt_timer N GPUS REPS [BLOCKDIM]: cuBLAS-XT's sgemm on malloc'd N x N host matrices over the
 * first GPUS devices, one warm-up call then REPS timed ones; prints the median and the best (the
 * reference point for bench/multi_gpu.sh; shimblas itself never uses cuBLAS). */
#include <cublasXt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    int n = argc > 1 ? atoi(argv[1]) : 4096, gpus = argc > 2 ? atoi(argv[2]) : 1, reps = argc > 3 ? atoi(argv[3]) : 3;
    int block = argc > 4 ? atoi(argv[4]) : 0;
    if (n <= 0 || gpus <= 0 || gpus > 16 || reps <= 0 || reps > 100)
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
    cublasXtHandle_t h;
    int ids[16];
    for (int i = 0; i < gpus; i++)
        ids[i] = i;
    if (cublasXtCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasXtDeviceSelect(h, gpus, ids) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasxt_timer: cannot set up cuBLAS-XT on %d GPUs\n", gpus);
        return 1;
    }
    if (block > 0)
        cublasXtSetBlockDim(h, block);
    const float one = 1.0f, zero = 0.0f;
    double t[101];
    for (int r = 0; r <= reps; r++) {
        double t0 = now_ms();
        if (cublasXtSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n) != CUBLAS_STATUS_SUCCESS)
            return 1;
        t[r] = now_ms() - t0;
    }
    qsort(t + 1, (size_t)reps, sizeof(double), compare);
    printf("cublasxt_timer n=%d gpus=%d block=%d median_ms=%.2f min_ms=%.2f c_mid=%.6g\n", n, gpus, block,
           t[1 + reps / 2], t[1], (double)c[elems / 2 + n / 3]);
    cublasXtDestroy(h);
    return 0;
}
