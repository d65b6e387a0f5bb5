/* The GPU executor through the public entry points, as a CUDA program would use it: operands in
 * device, managed and pinned memory used in place (auto mode must send them to the GPU), strided
 * device vectors, host data in gpu mode from several threads at once, a child forked after CUDA
 * was initialised, and (with SHIMBLAS_DEVICE_MEMORY tiny) a GPU failure rerun on the CPU.
 * This program has its own CUDA runtime, separate from the one inside libshimblas, as real
 * applications do. Exit 77 without a usable GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_guard.h"
#include "reference.h"
#include "shimblas.h"

static int failures, cases;
static uint64_t rng;

enum memory { HOST, PINNED, DEVICE, MANAGED };
static const char *const memory_names[] = {"host", "pinned", "device", "managed"};

static float *mem_alloc(enum memory kind, size_t n)
{
    void *p = NULL;
    size_t bytes = (n + 16) * sizeof(float);
    switch (kind) {
    case HOST: p = malloc(bytes); break;
    case PINNED: TEST_CUDA(cudaMallocHost(&p, bytes)); break;
    case DEVICE: TEST_CUDA(cudaMalloc(&p, bytes)); break;
    case MANAGED: TEST_CUDA(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal)); break;
    }
    return p;
}

static void mem_free(enum memory kind, void *p)
{
    if (kind == HOST) free(p);
    else if (kind == PINNED) cudaFreeHost(p);
    else cudaFree(p);
}

/* plain host memory is copied without CUDA: the forked child must not touch its CUDA runtime */
static void put(enum memory kind, float *dst, const float *src, size_t n)
{
    if (kind == HOST)
        memcpy(dst, src, n * sizeof(float));
    else
        TEST_CUDA(cudaMemcpy(dst, src, n * sizeof(float), kind == DEVICE ? cudaMemcpyHostToDevice : cudaMemcpyDefault));
}

static void get(enum memory kind, float *dst, const float *src, size_t n)
{
    if (kind == HOST)
        memcpy(dst, src, n * sizeof(float));
    else
        TEST_CUDA(cudaMemcpy(dst, src, n * sizeof(float), kind == DEVICE ? cudaMemcpyDeviceToHost : cudaMemcpyDefault));
}

static void check(const char *label, long bad)
{
    cases++;
    if (bad) {
        printf("FAIL %s: %ld elements wrong\n", label, bad);
        failures++;
    }
}

/* row-major sgemv with A, x, y each in its own kind of memory */
static void gemv_case(enum memory ka, enum memory kx, enum memory ky, int trans, int m, int n, int incx, int incy,
                      float beta)
{
    char label[128];
    snprintf(label, sizeof label, "sgemv A:%s x:%s y:%s trans=%d %dx%d incx=%d incy=%d beta=%g", memory_names[ka],
             memory_names[kx], memory_names[ky], trans, m, n, incx, incy, beta);
    int lda = n + 3, lenx = trans ? m : n, leny = trans ? n : m;
    size_t asz = (size_t)m * lda, xsz = 1 + (size_t)(lenx - 1) * abs(incx), ysz = 1 + (size_t)(leny - 1) * abs(incy);
    float *ha = malloc(asz * 4), *hx = malloc(xsz * 4), *hy = malloc(ysz * 4), *hy0 = malloc(ysz * 4);
    test_fill(ha, asz, &rng);
    test_fill(hx, xsz, &rng);
    test_fill(hy, ysz, &rng);
    if (beta == 0.0f)
        test_fill_poison(hy, ysz);
    memcpy(hy0, hy, ysz * 4);
    float *a = mem_alloc(ka, asz), *x = mem_alloc(kx, xsz), *y = mem_alloc(ky, ysz);
    put(ka, a, ha, asz);
    put(kx, x, hx, xsz);
    put(ky, y, hy, ysz);
    cblas_sgemv(CblasRowMajor, trans ? CblasTrans : CblasNoTrans, m, n, 0.75f, a, lda, x, incx, beta, y, incy);
    get(ky, hy, y, ysz);
    /* row-major A is the column-major n x m matrix A^T */
    double *ref = malloc(sizeof(double) * leny), *bound = malloc(sizeof(double) * leny);
    ref_sgemv(!trans, n, m, 0.75f, ha, lda, hx, incx, beta, hy0, incy, ref, bound);
    check(label, test_compare(label, hy, incy, ref, bound, leny, lenx, 4.0));
    mem_free(ka, a); mem_free(kx, x); mem_free(ky, y);
    free(ha); free(hx); free(hy); free(hy0); free(ref); free(bound);
}

static void gemm_case(enum memory kind, int ta, int tb, int m, int n, int k, float beta)
{
    char label[128];
    snprintf(label, sizeof label, "sgemm %s %c%c %dx%dx%d beta=%g", memory_names[kind], ta ? 'T' : 'N',
             tb ? 'T' : 'N', m, n, k, beta);
    int lda = (ta ? k : m) + 1, ldb = (tb ? n : k) + 2, ldc = m + 3;
    size_t asz = (size_t)lda * (ta ? m : k), bsz = (size_t)ldb * (tb ? k : n), csz = (size_t)ldc * n;
    float *ha = malloc(asz * 4), *hb = malloc(bsz * 4), *hc = malloc(csz * 4), *hc0 = malloc(csz * 4);
    test_fill(ha, asz, &rng);
    test_fill(hb, bsz, &rng);
    test_fill(hc, csz, &rng);
    if (beta == 0.0f)
        for (int j = 0; j < n; j++)
            test_fill_poison(hc + (size_t)j * ldc, (size_t)m);
    memcpy(hc0, hc, csz * 4);
    float *a = mem_alloc(kind, asz), *b = mem_alloc(kind, bsz), *c = mem_alloc(kind, csz);
    put(kind, a, ha, asz);
    put(kind, b, hb, bsz);
    put(kind, c, hc, csz);
    cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, -1.25f, a,
                lda, b, ldb, beta, c, ldc);
    get(kind, hc, c, csz);
    double *ref = malloc(sizeof(double) * m * n), *bound = malloc(sizeof(double) * m * n);
    ref_sgemm(ta, tb, m, n, k, -1.25f, ha, lda, hb, ldb, beta, hc0, ldc, ref, bound);
    long bad = 0;
    for (int j = 0; j < n; j++) {
        bad += test_compare(label, hc + (size_t)j * ldc, 1, ref + (size_t)j * m, bound + (size_t)j * m, m, k, 4.0);
        for (int i = m; i < ldc && j < n - 1; i++)
            bad += memcmp(&hc[(size_t)j * ldc + i], &hc0[(size_t)j * ldc + i], 4) != 0;
    }
    check(label, bad);
    mem_free(kind, a); mem_free(kind, b); mem_free(kind, c);
    free(ha); free(hb); free(hc); free(hc0); free(ref); free(bound);
}

/* a host sgemm large enough for several tiles and k chunks in the staging pipeline, with tails in
 * every dimension; checked on sampled entries (a full float64 reference would take minutes) and
 * on every padding element of C */
static void pipelined_gemm_case(int ta, int tb, int m, int n, int k, float beta)
{
    char label[128];
    snprintf(label, sizeof label, "pipelined sgemm %c%c %dx%dx%d beta=%g", ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k,
             beta);
    int lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 1, ldc = m + 2;
    size_t asz = (size_t)lda * (ta ? m : k), bsz = (size_t)ldb * (tb ? k : n), csz = (size_t)ldc * n;
    float *a = malloc(asz * 4), *b = malloc(bsz * 4), *c = malloc(csz * 4), *c0 = malloc(csz * 4);
    test_fill(a, asz, &rng);
    test_fill(b, bsz, &rng);
    test_fill(c, csz, &rng);
    if (beta == 0.0f)
        for (int j = 0; j < n; j++)
            test_fill_poison(c + (size_t)j * ldc, (size_t)m);
    memcpy(c0, c, csz * 4);
    cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, 0.5f, a, lda,
                b, ldb, beta, c, ldc);
    long bad = 0;
    for (int t = 0; t < 400; t++) {
        /* corners of every tile are the likeliest to go wrong: sample near tile edges too */
        int i = t < 200 ? (int)(test_uniform(&rng) * 0.5f * m + 0.5f * m) : (t * 2047 + t / 7) % m;
        int j = t < 200 ? (int)(test_uniform(&rng) * 0.5f * n + 0.5f * n) : (t * 2049 + t / 3) % n;
        i = i < 0 ? 0 : i >= m ? m - 1 : i;
        j = j < 0 ? 0 : j >= n ? n - 1 : j;
        double s = 0, mag = 0;
        for (int l = 0; l < k; l++) {
            double v = (double)(ta ? a[(size_t)i * lda + l] : a[(size_t)l * lda + i]) *
                       (tb ? b[(size_t)l * ldb + j] : b[(size_t)j * ldb + l]);
            s += v;
            mag += fabs(v);
        }
        double cij = beta == 0.0f ? 0.0 : (double)beta * c0[(size_t)j * ldc + i];
        double want = 0.5 * s + cij, tol = 4.0 * (k + 2) * 1.1920929e-7 * (0.5 * mag + fabs(cij));
        if (!(fabs(c[(size_t)j * ldc + i] - want) <= tol))
            bad++;
    }
    for (int j = 0; j < n; j++)
        for (int i = m; i < ldc; i++)
            bad += memcmp(&c[(size_t)j * ldc + i], &c0[(size_t)j * ldc + i], 4) != 0;
    check(label, bad);
    free(a); free(b); free(c); free(c0);
}

static void *thread_body(void *arg)
{
    uint64_t *seed = arg;
    int m = 100 + (int)(*seed % 50), n = 70, k = 90;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * m * n);
    double *ref = malloc(sizeof(double) * m * n), *bound = malloc(sizeof(double) * m * n);
    long bad = 0;
    for (int rep = 0; rep < 20; rep++) {
        test_fill(a, (size_t)m * k, seed);
        test_fill(b, (size_t)k * n, seed);
        test_fill_poison(c, (size_t)m * n);
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m);
        ref_sgemm(0, 0, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m, ref, bound);
        bad += test_compare("thread", c, 1, ref, bound, (long)m * n, k, 4.0);
    }
    free(a); free(b); free(c); free(ref); free(bound);
    return (void *)(intptr_t)bad;
}

int main(void)
{
    test_require_gpu();
    rng = test_seed();
    shimblas_stats before, after;
    cases = 0;

    /* SHIMBLAS_DEVICE_MEMORY set: SHIMBLAS_TEST_EXPECT=cpu when the cap is too small for any
     * staging (every host call must rerun on the CPU), =gpu when the host calls must still run on
     * the GPU, out of core in smaller tiles */
    int capped = getenv("SHIMBLAS_DEVICE_MEMORY") != NULL;
    const char *expect = getenv("SHIMBLAS_TEST_EXPECT");
    int expect_cpu = expect && strcmp(expect, "cpu") == 0;
    if (capped)
        goto host_data; /* device-resident strided calls need device scratch the cap forbids */

    /* auto mode: operands that live on the device must go to the GPU, in place */
    shimblas_set_mode(SHIMBLAS_MODE_AUTO);
    shimblas_get_stats(&before);
    gemv_case(DEVICE, DEVICE, DEVICE, 0, 1000, 300, 1, 1, 0.0f);
    gemv_case(DEVICE, DEVICE, DEVICE, 1, 777, 301, 2, -3, 0.5f);
    gemv_case(MANAGED, MANAGED, MANAGED, 0, 513, 129, -1, 1, 1.0f);
    gemv_case(DEVICE, HOST, HOST, 1, 64, 4096, 1, 2, 0.0f);
    gemv_case(HOST, DEVICE, HOST, 0, 300, 200, -2, 1, 0.9f);
    gemm_case(DEVICE, 0, 1, 257, 130, 129, 0.0f);
    gemm_case(MANAGED, 1, 0, 65, 300, 33, 0.5f);
    shimblas_get_stats(&after);
    cases++;
    /* (under SHIMBLAS_TEST_FAIL they fail on the GPU and are recovered: correct all the same) */
    unsigned long long gemv_served = after.sgemv.gpu + after.sgemv.gpu_failed - before.sgemv.gpu - before.sgemv.gpu_failed,
                       gemm_served = after.sgemm.gpu + after.sgemm.gpu_failed - before.sgemm.gpu - before.sgemm.gpu_failed;
    if (gemv_served != 5 || gemm_served != 2 ||
        (!getenv("SHIMBLAS_TEST_FAIL") && after.sgemv.gpu - before.sgemv.gpu != 5)) {
        printf("FAIL: device-resident calls in auto mode were not all served by the GPU\n");
        failures++;
    }

host_data:
    /* gpu mode: host, pinned memory */
    shimblas_set_mode(SHIMBLAS_MODE_GPU);
    gemv_case(PINNED, PINNED, PINNED, 0, 2048, 2047, 1, -1, 0.25f);
    gemv_case(HOST, PINNED, HOST, 1, 3000, 1000, 3, 1, 0.0f);
    gemm_case(PINNED, 1, 1, 301, 302, 303, 0.9f);
    gemm_case(HOST, 0, 0, 1500, 1100, 700, 0.0f); /* several staging-ring chunks */
    gemm_case(HOST, 1, 0, 3000, 2500, 2000, 0.5f); /* 74 MB of operands: out of core under a 48 MB cap */
    gemv_case(HOST, HOST, HOST, 0, 6000, 3000, 1, 1, 0.5f);
    pipelined_gemm_case(0, 0, 4100, 3200, 5000, 0.0f); /* 3 x 2 tiles, 3 k chunks */
    pipelined_gemm_case(0, 1, 4100, 3200, 25000, 0.0f); /* 2^38 MACs or more: 3 long k chunks (8448) */
    pipelined_gemm_case(1, 1, 3300, 4500, 2500, 0.75f);

    /* several threads, each with its own stream */
    pthread_t threads[4];
    uint64_t seeds[4];
    for (int i = 0; i < 4; i++) {
        seeds[i] = rng + (uint64_t)i * 7919;
        pthread_create(&threads[i], NULL, thread_body, &seeds[i]);
    }
    long bad = 0;
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(threads[i], &r);
        bad += (long)(intptr_t)r;
    }
    check("4 threads x 20 sgemm in gpu mode", bad);

    /* a child forked after CUDA was initialised must still compute correctly (on the CPU) */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        shimblas_stats s0, s1;
        shimblas_get_stats(&s0);
        gemm_case(HOST, 0, 1, 50, 40, 30, 0.0f);
        shimblas_get_stats(&s1);
        int ok = failures == 0 && s1.sgemm.cpu == s0.sgemm.cpu + 1;
        if (!ok)
            printf("FAIL: forked child (cpu calls %llu -> %llu)\n", s0.sgemm.cpu, s1.sgemm.cpu);
        fflush(stdout);
        _exit(ok ? 0 : 1);
    }
    int wstatus = 0;
    waitpid(pid, &wstatus, 0);
    cases++;
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        printf("FAIL: the forked child did not compute correctly\n");
        failures++;
    }

    shimblas_get_stats(&after);
    printf("served: sgemv gpu=%llu cpu=%llu gpu_failed=%llu, sgemm gpu=%llu cpu=%llu gpu_failed=%llu\n",
           after.sgemv.gpu, after.sgemv.cpu, after.sgemv.gpu_failed, after.sgemm.gpu, after.sgemm.cpu,
           after.sgemm.gpu_failed);
    /* a failure is a test failure unless the test asked for one (a cap, SHIMBLAS_TEST_FAIL) */
    const char *injected = getenv("SHIMBLAS_TEST_FAIL");
    if (!capped && !injected && after.sgemv.gpu_failed + after.sgemm.gpu_failed) {
        printf("FAIL: calls failed on the GPU\n");
        failures++;
    }
    if (injected && after.sgemm.gpu_failed == 0) {
        printf("FAIL: SHIMBLAS_TEST_FAIL=%s made no sgemm fail\n", injected);
        failures++;
    }
    if (capped) {
        cases++;
        /* the cap makes the GPU fail them on purpose: counted as failed and recomputed */
        if (expect_cpu && (after.sgemm.gpu_failed == 0 || after.sgemv.gpu_failed == 0 || after.sgemm.gpu != 0)) {
            printf("FAIL: with no device memory to stage into, host calls were not recomputed on the CPU\n");
            failures++;
        }
        if (!expect_cpu && (after.sgemm.gpu == 0 || after.sgemv.gpu == 0 || after.sgemm.cpu != 0)) {
            printf("FAIL: under the cap, host calls did not run out of core on the GPU\n");
            failures++;
        }
    }
    printf("check_executor: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
