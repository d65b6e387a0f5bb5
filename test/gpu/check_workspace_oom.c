/* A device-operand sgemm whose kernel wants a workspace the GPU cannot give, because the program
 * holds the rest of the device memory: the call must still run on the GPU (a kernel that needs no
 * workspace takes it), be right, and count no failure and no CPU recompute. The allocation's error
 * must not leak into the next launch's error check. Then the memory is released and the same call
 * runs with its workspace. The variant is forced (SHIMBLAS_SGEMM_KERNEL=transpose_first, set by
 * the test definition), so the test does not depend on what the selector picks. Exit 77 without a
 * usable GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_guard.h"
#include "reference.h"
#include "shimblas.h"

enum { M = 1000, N = 1000, K = 1000, MAX_HOGS = 8192 };

static void *hogs[MAX_HOGS];
static int nhogs;

/* takes every device allocation it can get, large pieces first, down to 1 MB */
static size_t hog_device(void)
{
    size_t held = 0;
    for (size_t piece = (size_t)1 << 30; piece >= ((size_t)1 << 20); piece /= 2)
        while (nhogs < MAX_HOGS && cudaMalloc(&hogs[nhogs], piece) == cudaSuccess) {
            nhogs++;
            held += piece;
        }
    (void)cudaGetLastError(); /* the refusals are this test's own */
    return held;
}

static void release_device(void)
{
    for (int i = 0; i < nhogs; i++)
        TEST_CUDA(cudaFree(hogs[i]));
    nhogs = 0;
}

/* one C := op(A) op(B) (TN, beta 0 over a poisoned C) on the device operands, checked; returns
 * failures */
static int checked_call(const char *label, const float *da, const float *db, float *dc, const double *ref,
                        const double *bound)
{
    float *c = malloc(sizeof(float) * M * N);
    test_fill_poison(c, (size_t)M * N);
    TEST_CUDA(cudaMemcpy(dc, c, sizeof(float) * M * N, cudaMemcpyHostToDevice));
    shimblas_stats before, after;
    shimblas_get_stats(&before);
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, M, N, K, 1.0f, da, K, db, K, 0.0f, dc, M);
    TEST_CUDA(cudaDeviceSynchronize());
    shimblas_get_stats(&after);
    TEST_CUDA(cudaMemcpy(c, dc, sizeof(float) * M * N, cudaMemcpyDeviceToHost));
    int failures = 0;
    const unsigned long long gpu = after.sgemm.gpu - before.sgemm.gpu, cpu = after.sgemm.cpu - before.sgemm.cpu,
                             failed = after.sgemm.gpu_failed - before.sgemm.gpu_failed,
                             errors = after.sgemm.errors - before.sgemm.errors;
    if (gpu != 1 || cpu || failed || errors) {
        printf("FAIL %s: counted gpu %llu, cpu %llu, gpu_failed %llu, errors %llu; want gpu 1 only\n", label, gpu,
               cpu, failed, errors);
        failures++;
    }
    const long bad = test_compare(label, c, 1, ref, bound, (long)M * N, K, 2.0);
    if (bad) {
        printf("FAIL %s: %ld wrong elements\n", label, bad);
        failures++;
    }
    if (!failures)
        printf("PASS %s\n", label);
    free(c);
    return failures;
}

int main(void)
{
    test_require_gpu();
    shimblas_set_mode(SHIMBLAS_MODE_GPU);
    uint64_t rng = test_seed();
    float *a = malloc(sizeof(float) * K * M), *b = malloc(sizeof(float) * K * N);
    double *ref = malloc(sizeof(double) * M * N), *bound = malloc(sizeof(double) * M * N);
    test_fill(a, (size_t)K * M, &rng);
    test_fill(b, (size_t)K * N, &rng);
    ref_sgemm(1, 0, M, N, K, 1.0f, a, K, b, K, 0.0f, NULL, M, ref, bound);
    float *da, *db, *dc;
    TEST_CUDA(cudaMalloc((void **)&da, sizeof(float) * K * M));
    TEST_CUDA(cudaMalloc((void **)&db, sizeof(float) * K * N));
    TEST_CUDA(cudaMalloc((void **)&dc, sizeof(float) * M * N));
    TEST_CUDA(cudaMemcpy(da, a, sizeof(float) * K * M, cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemcpy(db, b, sizeof(float) * K * N, cudaMemcpyHostToDevice));

    /* the library's own state first (context, streams), by a call that needs no workspace */
    float *d1;
    TEST_CUDA(cudaMalloc((void **)&d1, sizeof(float)));
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, d1, 1, d1, 1, 0.0f, d1, 1);
    TEST_CUDA(cudaDeviceSynchronize());

    int failures = 0;
    const size_t held = hog_device();
    size_t free_bytes = 0, total = 0;
    TEST_CUDA(cudaMemGetInfo(&free_bytes, &total));
    printf("holding %.1f GiB of device memory, %.1f MiB left\n", held / 1073741824.0, free_bytes / 1048576.0);
    failures += checked_call("1000^3 TN, no device memory left for the workspace", da, db, dc, ref, bound);
    release_device();
    failures += checked_call("1000^3 TN, the workspace there", da, db, dc, ref, bound);

    TEST_CUDA(cudaFree(d1));
    TEST_CUDA(cudaFree(da));
    TEST_CUDA(cudaFree(db));
    TEST_CUDA(cudaFree(dc));
    free(a), free(b), free(ref), free(bound);
    printf("check_workspace_oom: 2 cases, %d failures\n", failures);
    return failures != 0;
}
