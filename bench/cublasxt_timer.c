/* cublasxt_timer N GPUS REPS [BLOCKDIM]: cuBLAS-XT's sgemm on malloc'd N x N host matrices over the
 * first GPUS devices, one warm-up call then REPS timed ones; prints the median and the best (the
 * reference point for bench/multi_gpu.sh; shimblas itself never uses cuBLAS). */
#include <cublasXt.h>
#include <stdio.h>

#include "host_timer.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096, gpus = argc > 2 ? atoi(argv[2]) : 1, reps = argc > 3 ? atoi(argv[3]) : 3;
    int block = argc > 4 ? atoi(argv[4]) : 0;
    if (n <= 0 || gpus <= 0 || gpus > 16 || reps <= 0 || reps > 100)
        return 2;
    size_t elems = (size_t)n * n;
    float *a, *b, *c;
    if (!host_timer_operands(n, &a, &b, &c))
        return 1;
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
        double t0 = host_timer_ms();
        if (cublasXtSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n) != CUBLAS_STATUS_SUCCESS)
            return 1;
        t[r] = host_timer_ms() - t0;
    }
    host_timer_sort(t + 1, reps);
    printf("cublasxt_timer n=%d gpus=%d block=%d median_ms=%.2f min_ms=%.2f c_mid=%.6g\n", n, gpus, block,
           t[1 + reps / 2], t[1], (double)c[elems / 2 + n / 3]);
    cublasXtDestroy(h);
    return 0;
}
