/* Degenerate calls on device (and managed) operands, where the GPU is the only side that can serve
 * them: alpha == 0 (a beta scaling: with beta 0.5, and with beta 0 over a NaN output, A and x/B
 * NaN so that reading them shows), k == 0, m or n of 1, negative and strided increments, a quick
 * return. Each must be right and must not have been counted on the CPU BLAS, as failed on the GPU
 * or as an error; those that compute must be counted on the GPU, the beta scalings on the GPU or
 * as trivial. Run without SHIMBLAS_TEST_FAIL. Exit 77 without a usable GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_cases.h"
#include "gpu_guard.h"
#include "gpu_memory.h"
#include "reference.h"
#include "shimblas.h"

static uint64_t rng;

enum kind { COMPUTES, SCALES, QUICK }; /* what the call has to do: how it may be counted */

static const char *check_counts(const shimblas_counts *b, const shimblas_counts *a, int kind, char *why,
                                size_t len)
{
    unsigned long long gpu = a->gpu - b->gpu, cpu = a->cpu - b->cpu, failed = a->gpu_failed - b->gpu_failed,
                       trivial = a->trivial - b->trivial, errors = a->errors - b->errors;
    int ok = cpu == 0 && failed == 0 && errors == 0 &&
             (kind == COMPUTES ? gpu == 1 && trivial == 0
              : kind == SCALES ? gpu + trivial == 1
                               : trivial == 1 && gpu == 0);
    if (ok)
        return NULL;
    snprintf(why, len, "counted gpu %llu, cpu %llu, gpu_failed %llu, trivial %llu, errors %llu; want %s", gpu, cpu,
             failed, trivial, errors,
             kind == COMPUTES ? "gpu 1" : kind == SCALES ? "gpu or trivial 1, nothing else" : "trivial 1");
    return why;
}

static tc_tally tally;

static void verdict(const char *label, long bad, const char *count_problem)
{
    tc_verdict(&tally, label, bad, count_problem);
}

static void gemm(const tc_memory *mem, tc_gemm g, enum kind kind)
{
    tc_gemm_counted(&tally, mem, g, &rng, check_counts, (int)kind);
}

static void gemv(const tc_memory *mem, tc_gemv g, enum kind kind)
{
    tc_gemv_counted(&tally, mem, g, &rng, check_counts, (int)kind);
}

static float *device_filled(size_t n, float v)
{
    float *h = malloc(n * sizeof(float)), *d = NULL;
    for (size_t i = 0; i < n; i++)
        h[i] = v;
    TEST_CUDA(cudaMalloc((void **)&d, n * sizeof(float)));
    TEST_CUDA(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    free(h);
    return d;
}

/* count elements of the device buffer that are not exactly want */
static long count_not(const float *d, size_t n, float want, float *first_bad)
{
    float *h = malloc(n * sizeof(float));
    TEST_CUDA(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!(h[i] == want)) {
            if (!bad)
                *first_bad = h[i];
            bad++;
        }
    free(h);
    return bad;
}

/* the literal cases: exact results, A and x NaN */
static void literal_cases(void)
{
    const float nan = test_poison();
    float first = 0.0f;
    char why[200];
    shimblas_stats b, a;

    /* cblas_sgemv(ColMajor, NoTrans, 300, 50, 0, A, 300, x, 1, 0.5, y, 1), y all 2: y all 1 */
    float *A = device_filled(300 * 50, nan), *x = device_filled(50, nan), *y = device_filled(300, 2.0f);
    shimblas_get_stats(&b);
    cblas_sgemv(CblasColMajor, CblasNoTrans, 300, 50, 0.0f, A, 300, x, 1, 0.5f, y, 1);
    shimblas_get_stats(&a);
    long bad = count_not(y, 300, 1.0f, &first);
    if (bad)
        printf("  %ld of 300 elements are not 1, e.g. %g\n", bad, first);
    verdict("sgemv col N 300x50 alpha=0 beta=0.5 on device, y all 2: y all 1", bad,
            check_counts(&b.sgemv, &a.sgemv, SCALES, why, sizeof why));

    /* beta = 0 over NaN: y all 0 */
    TEST_CUDA(cudaMemcpy(y, A, 300 * sizeof(float), cudaMemcpyDeviceToDevice)); /* NaN */
    shimblas_get_stats(&b);
    cblas_sgemv(CblasRowMajor, CblasTrans, 50, 300, 0.0f, A, 300, x, 1, 0.0f, y, 1);
    shimblas_get_stats(&a);
    bad = count_not(y, 300, 0.0f, &first);
    if (bad)
        printf("  %ld of 300 elements are not 0, e.g. %g\n", bad, first);
    verdict("sgemv row T 50x300 alpha=0 beta=0 on device, y NaN: y all 0", bad,
            check_counts(&b.sgemv, &a.sgemv, SCALES, why, sizeof why));
    TEST_CUDA(cudaFree(A));
    TEST_CUDA(cudaFree(x));
    TEST_CUDA(cudaFree(y));

    /* cblas_sgemm alpha = 0, beta = 0.5 over C all 2 (ldc = m): C all 1 */
    float *Am = device_filled(257 * 70, nan), *Bm = device_filled(70 * 190, nan), *C = device_filled(257 * 190, 2.0f);
    shimblas_get_stats(&b);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 257, 190, 70, 0.0f, Am, 257, Bm, 70, 0.5f, C, 257);
    shimblas_get_stats(&a);
    bad = count_not(C, 257 * 190, 1.0f, &first);
    if (bad)
        printf("  %ld of %d elements are not 1, e.g. %g\n", bad, 257 * 190, first);
    verdict("sgemm col NN 257x190x70 alpha=0 beta=0.5 on device, C all 2: C all 1", bad,
            check_counts(&b.sgemm, &a.sgemm, SCALES, why, sizeof why));

    /* k = 0, alpha = 1, beta = 0 over NaN: C all 0 */
    TEST_CUDA(cudaMemcpy(C, Am, 257 * 70 * sizeof(float), cudaMemcpyDeviceToDevice)); /* NaN */
    shimblas_get_stats(&b);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 70, 257, 0, 1.0f, Am, 1, Bm, 1, 0.0f, C, 257);
    shimblas_get_stats(&a);
    bad = count_not(C, 257 * 70, 0.0f, &first);
    if (bad)
        printf("  %ld of %d elements are not 0, e.g. %g\n", bad, 257 * 70, first);
    verdict("sgemm row NT 70x257 k=0 beta=0 on device, C NaN: C all 0", bad,
            check_counts(&b.sgemm, &a.sgemm, SCALES, why, sizeof why));
    TEST_CUDA(cudaFree(Am));
    TEST_CUDA(cudaFree(Bm));
    TEST_CUDA(cudaFree(C));
}

int main(void)
{
    test_require_gpu();
    rng = test_seed();
    if (getenv("SHIMBLAS_TEST_FAIL"))
        printf("note: SHIMBLAS_TEST_FAIL is set; this test expects no injected failure\n");

    literal_cases();

    const tc_memory *dev = &tc_device_memory, *man = &tc_managed_memory;
    /* alpha == 0: beta scaling only, A and x/B NaN (never read), strided and negative increments */
    gemv(dev, (tc_gemv){0, 0, 300, 50, 1, 1, 0.0f, 0.5f, 0}, SCALES);
    gemv(dev, (tc_gemv){0, 0, 300, 50, 1, 1, 0.0f, 0.0f, 3}, SCALES);
    gemv(dev, (tc_gemv){1, 0, 1000, 77, 1, -2, 0.0f, 0.5f, 1}, SCALES);
    gemv(dev, (tc_gemv){0, 1, 77, 1000, 3, 3, 0.0f, 0.0f, 0}, SCALES);
    gemv(man, (tc_gemv){1, 1, 129, 65, -1, -1, 0.0f, -2.0f, 2}, SCALES);
    gemm(dev, (tc_gemm){0, 0, 0, 130, 70, 90, 0.0f, 0.5f, 2}, SCALES);
    gemm(dev, (tc_gemm){1, 1, 0, 65, 129, 33, 0.0f, 0.0f, 1}, SCALES);
    gemm(man, (tc_gemm){0, 1, 1, 64, 64, 64, 0.0f, 0.5f, 0}, SCALES);
    /* k == 0: C := beta C */
    gemm(dev, (tc_gemm){0, 0, 0, 100, 60, 0, 1.0f, 0.5f, 1}, SCALES);
    gemm(dev, (tc_gemm){1, 0, 1, 33, 300, 0, -1.0f, 0.0f, 0}, SCALES);
    gemm(dev, (tc_gemm){0, 1, 0, 1, 1, 0, 1.0f, 0.25f, 2}, SCALES);
    /* m or n (or both) of 1, and k of 1 */
    gemm(dev, (tc_gemm){0, 0, 0, 1, 300, 200, 1.0f, 0.0f, 1}, COMPUTES);
    gemm(dev, (tc_gemm){1, 1, 0, 300, 1, 200, -0.5f, 0.5f, 0}, COMPUTES);
    gemm(dev, (tc_gemm){0, 1, 1, 1, 1, 500, 1.0f, 1.0f, 3}, COMPUTES);
    gemm(dev, (tc_gemm){1, 0, 1, 200, 150, 1, 1.0f, 0.0f, 2}, COMPUTES);
    gemm(man, (tc_gemm){0, 0, 1, 257, 1, 129, 0.75f, 0.0f, 1}, COMPUTES);
    gemv(dev, (tc_gemv){0, 0, 1, 300, -2, -1, 1.0f, 0.0f, 0}, COMPUTES);
    gemv(dev, (tc_gemv){0, 1, 1, 300, -1, -3, 1.0f, 0.5f, 2}, COMPUTES);
    gemv(dev, (tc_gemv){1, 0, 300, 1, -3, 2, -1.0f, 1.0f, 1}, COMPUTES);
    gemv(dev, (tc_gemv){1, 1, 300, 1, 1, -1, 1.0f, 0.0f, 0}, COMPUTES);
    gemv(dev, (tc_gemv){0, 1, 257, 1, 2, 1, 1.0f, 0.0f, 3}, COMPUTES);
    gemv(dev, (tc_gemv){1, 0, 1, 1, -1, -1, 2.0f, 0.5f, 0}, COMPUTES);
    /* negative increments on larger vectors, both forms, both layouts */
    gemv(dev, (tc_gemv){0, 0, 500, 300, -1, -2, 1.0f, 0.0f, 1}, COMPUTES);
    gemv(dev, (tc_gemv){0, 1, 500, 300, -3, -1, 0.5f, 0.75f, 0}, COMPUTES);
    gemv(dev, (tc_gemv){1, 0, 500, 300, -2, -2, 1.0f, 1.0f, 2}, COMPUTES);
    gemv(dev, (tc_gemv){1, 1, 500, 300, -1, 3, -1.0f, 0.0f, 0}, COMPUTES);
    gemv(man, (tc_gemv){1, 0, 700, 90, -1, -1, 1.0f, 0.0f, 1}, COMPUTES);
    /* quick return: alpha == 0 and beta == 1 leave y exactly as it was */
    gemv(dev, (tc_gemv){0, 0, 300, 50, -1, 2, 0.0f, 1.0f, 0}, QUICK);
    gemm(dev, (tc_gemm){1, 0, 0, 40, 50, 60, 0.0f, 1.0f, 1}, QUICK);

    printf("check_degenerate: %d cases, %d failures\n", tally.cases, tally.failures);
    return tally.failures != 0;
}
