/* A CUDA program that writes the operands of a BLAS call asynchronously and calls without waiting:
 * the call must see what the program queued before it, as a cuBLAS call on the default stream does,
 * on each blocking stream a program writes with: the legacy default stream, the per-thread default
 * stream (what a program built with --default-stream per-thread uses for stream 0) and a stream
 * of its own made by cudaStreamCreate. Each stream is held back first by a host function that
 * sleeps, then copies the operands' values into device memory (A, B, C of an sgemm; A, x, y of an
 * sgemv) and into a pinned host C whose copy the call stages; the call follows at once. The results
 * are checked against float64 on the values the copies wrote. A stream made non-blocking is not
 * ordered with anything (the program's to wait for, as with cuBLAS). Also: the program's later work
 * on the legacy stream sees the call's result (read back by a copy queued on it). Exit 77 without a
 * usable GPU. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_guard.h"
#include "reference.h"
#include "shimblas.h"

static int cases, failures;

static void CUDART_CB hold_back(void *ms)
{
    usleep((useconds_t)(*(int *)ms) * 1000);
}

/* pinned host copy of n floats of src (the source of the program's asynchronous copies) */
static float *pinned_copy(const float *src, size_t n)
{
    float *p = NULL;
    TEST_CUDA(cudaMallocHost((void **)&p, n * sizeof(float)));
    memcpy(p, src, n * sizeof(float));
    return p;
}

static float *device_poisoned(size_t n)
{
    float *d = NULL;
    TEST_CUDA(cudaMalloc((void **)&d, n * sizeof(float)));
    TEST_CUDA(cudaMemset(d, 0xff, n * sizeof(float))); /* NaN: a stale read shows */
    return d;
}

static void verdict(long bad, const char *what)
{
    cases++;
    if (bad) {
        failures++;
        printf("FAIL: %s\n", what);
    } else {
        printf("PASS: %s\n", what);
    }
}

/* C := alpha A B + beta C (column-major NN) on device A, B, C written on `stream` behind a sleep */
static void gemm_case(cudaStream_t stream, const char *name, uint64_t *rng)
{
    const int m = 700, n = 500, k = 600, hold_ms = 60;
    const float alpha = 0.75f, beta = -0.5f;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * m * n);
    double *ref = malloc(sizeof(double) * m * n), *bound = malloc(sizeof(double) * m * n);
    test_fill(a, (size_t)m * k, rng);
    test_fill(b, (size_t)k * n, rng);
    test_fill(c, (size_t)m * n, rng);
    ref_sgemm(0, 0, m, n, k, alpha, a, m, b, k, beta, c, m, ref, bound);
    float *ha = pinned_copy(a, (size_t)m * k), *hb = pinned_copy(b, (size_t)k * n), *hc = pinned_copy(c, (size_t)m * n);
    float *da = device_poisoned((size_t)m * k), *db = device_poisoned((size_t)k * n), *dc = device_poisoned((size_t)m * n);
    TEST_CUDA(cudaDeviceSynchronize());
    static int ms;
    ms = hold_ms;
    TEST_CUDA(cudaLaunchHostFunc(stream, hold_back, &ms));
    TEST_CUDA(cudaMemcpyAsync(da, ha, sizeof(float) * m * k, cudaMemcpyHostToDevice, stream));
    TEST_CUDA(cudaMemcpyAsync(db, hb, sizeof(float) * k * n, cudaMemcpyHostToDevice, stream));
    TEST_CUDA(cudaMemcpyAsync(dc, hc, sizeof(float) * m * n, cudaMemcpyHostToDevice, stream));
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, da, m, db, k, beta, dc, m);
    /* the program's next work on the legacy stream reads the result */
    float *got = NULL;
    TEST_CUDA(cudaMallocHost((void **)&got, sizeof(float) * m * n));
    TEST_CUDA(cudaMemcpyAsync(got, dc, sizeof(float) * m * n, cudaMemcpyDeviceToHost, cudaStreamLegacy));
    TEST_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
    TEST_CUDA(cudaDeviceSynchronize());
    char what[320];
    snprintf(what, sizeof what, "sgemm 700x500x600 on device operands written on %s", name);
    verdict(test_compare(what, got, 1, ref, bound, (long)m * n, k, 2.0), what);

    /* a pinned host C the call stages, written on the stream by a device-to-host copy */
    float *pc = NULL;
    TEST_CUDA(cudaMallocHost((void **)&pc, sizeof(float) * m * n));
    memset(pc, 0xff, sizeof(float) * m * n);
    TEST_CUDA(cudaMemcpy(dc, c, sizeof(float) * m * n, cudaMemcpyHostToDevice));
    TEST_CUDA(cudaLaunchHostFunc(stream, hold_back, &ms));
    TEST_CUDA(cudaMemcpyAsync(pc, dc, sizeof(float) * m * n, cudaMemcpyDeviceToHost, stream));
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, da, m, db, k, beta, pc, m);
    TEST_CUDA(cudaDeviceSynchronize());
    snprintf(what, sizeof what, "sgemm 700x500x600 on a pinned host C written on %s", name);
    verdict(test_compare(what, pc, 1, ref, bound, (long)m * n, k, 2.0), what);

    cudaFreeHost(pc);
    cudaFreeHost(got);
    cudaFreeHost(ha), cudaFreeHost(hb), cudaFreeHost(hc);
    cudaFree(da), cudaFree(db), cudaFree(dc);
    free(a), free(b), free(c), free(ref), free(bound);
}

/* y := alpha A^T x + beta y on device A, x, y written on `stream` behind a sleep */
static void gemv_case(cudaStream_t stream, const char *name, uint64_t *rng)
{
    const int m = 3000, n = 2000, hold_ms = 60;
    const float alpha = 1.25f, beta = 0.5f;
    float *a = malloc(sizeof(float) * m * n), *x = malloc(sizeof(float) * m), *y = malloc(sizeof(float) * n);
    double *ref = malloc(sizeof(double) * n), *bound = malloc(sizeof(double) * n);
    test_fill(a, (size_t)m * n, rng);
    test_fill(x, (size_t)m, rng);
    test_fill(y, (size_t)n, rng);
    ref_sgemv(1, m, n, alpha, a, m, x, 1, beta, y, 1, ref, bound);
    float *ha = pinned_copy(a, (size_t)m * n), *hx = pinned_copy(x, (size_t)m), *hy = pinned_copy(y, (size_t)n);
    float *da = device_poisoned((size_t)m * n), *dx = device_poisoned((size_t)m), *dy = device_poisoned((size_t)n);
    TEST_CUDA(cudaDeviceSynchronize());
    static int ms;
    ms = hold_ms;
    TEST_CUDA(cudaLaunchHostFunc(stream, hold_back, &ms));
    TEST_CUDA(cudaMemcpyAsync(da, ha, sizeof(float) * m * n, cudaMemcpyHostToDevice, stream));
    TEST_CUDA(cudaMemcpyAsync(dx, hx, sizeof(float) * m, cudaMemcpyHostToDevice, stream));
    TEST_CUDA(cudaMemcpyAsync(dy, hy, sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    cblas_sgemv(CblasColMajor, CblasTrans, m, n, alpha, da, m, dx, 1, beta, dy, 1);
    float got[2000];
    TEST_CUDA(cudaMemcpy(got, dy, sizeof(float) * n, cudaMemcpyDeviceToHost));
    char what[320];
    snprintf(what, sizeof what, "sgemv T 3000x2000 on device operands written on %s", name);
    verdict(test_compare(what, got, 1, ref, bound, n, m, 2.0), what);
    cudaFreeHost(ha), cudaFreeHost(hx), cudaFreeHost(hy);
    cudaFree(da), cudaFree(dx), cudaFree(dy);
    free(a), free(x), free(y), free(ref), free(bound);
}

/* the three blocking streams of the current context, each case on each */
static void each_stream(const char *where, uint64_t *rng)
{
    cudaStream_t own = NULL;
    TEST_CUDA(cudaStreamCreate(&own));
    const struct {
        cudaStream_t stream;
        const char *name;
    } streams[] = {{cudaStreamLegacy, "the legacy default stream"},
                   {cudaStreamPerThread, "the per-thread default stream"},
                   {own, "a stream of the program's (cudaStreamCreate)"}};
    for (size_t s = 0; s < sizeof streams / sizeof streams[0]; s++) {
        char name[160];
        snprintf(name, sizeof name, "%s%s", streams[s].name, where);
        gemm_case(streams[s].stream, name, rng);
        gemv_case(streams[s].stream, name, rng);
    }
    TEST_CUDA(cudaStreamDestroy(own));
}

typedef CUresult (*ctx_create_fn)(CUcontext *, unsigned, CUdevice);

int main(void)
{
    test_require_gpu();
    uint64_t rng = test_seed();
    shimblas_set_mode(SHIMBLAS_MODE_GPU);
    shimblas_stats before, after;
    shimblas_get_stats(&before);
    for (int round = 0; round < 2; round++)
        each_stream("", &rng);
    /* and in a context of the program's own (cuCtxCreate, current): the library works in its own
     * context, so what the program queued in this one is waited for before it leaves it */
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    CUcontext ctx = NULL;
    if (cudaGetDriverEntryPointByVersion("cuCtxCreate", &fn, 3020, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess || ((ctx_create_fn)fn)(&ctx, 0, 0) != CUDA_SUCCESS) {
        printf("FAIL: no context of the program's own could be made\n");
        return 1;
    }
    each_stream(", in the program's own context", &rng);
    shimblas_get_stats(&after);
    /* every call on the GPU: the ordering, not a recomputation, is what is checked */
    char what[160];
    snprintf(what, sizeof what, "every call on the GPU (sgemm gpu %llu of 18, sgemv gpu %llu of 9)",
             after.sgemm.gpu - before.sgemm.gpu, after.sgemv.gpu - before.sgemv.gpu);
    verdict(after.sgemm.gpu - before.sgemm.gpu != 18 || after.sgemv.gpu - before.sgemv.gpu != 9, what);
    printf("check_stream_order: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
