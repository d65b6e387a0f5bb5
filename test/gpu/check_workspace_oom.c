/* The workspace of a device-operand sgemm and the program's own device memory:
 *   1. the kernel wants a workspace the GPU cannot give, because the program holds the rest of the
 *      device memory: the call must still run on the GPU (a kernel that needs no workspace takes
 *      it), be right, and count no failure and no CPU recompute; the allocation's error must not
 *      leak into the next launch's error check;
 *   2. the memory released, the same call runs with its workspace;
 *   3. a call whose workspace is larger than a thread keeps anyway (128 MB) while the program holds
 *      all but 384 MB of the device: the workspace goes back to the driver, the free device memory
 *      after the call is what it was before, less at most 16 MB;
 *   4. the same call with the device's memory free again: the workspace stays for the next call
 *      (mapping it again every call costs more than the copies save), at least 100 MB held.
 * The variant is forced (SHIMBLAS_SGEMM_KERNEL=transpose_first, set by the test definition), so the
 * test does not depend on what the selector picks. Exit 77 without a usable GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_guard.h"
#include "reference.h"
#include "shimblas.h"

static int failures;
static uint64_t rng;

typedef struct product {
    int transa, transb, m, n, k;
    float *a, *b;            /* host copies, column-major with minimal leading dimensions */
    float *da, *db, *dc;     /* device operands */
    double *ref, *bound;
} product;

static product make_product(int transa, int transb, int m, int n, int k)
{
    product p;
    memset(&p, 0, sizeof p);
    p.transa = transa, p.transb = transb, p.m = m, p.n = n, p.k = k;
    const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    p.a = malloc(sizeof(float) * na);
    p.b = malloc(sizeof(float) * nb);
    p.ref = malloc(sizeof(double) * nc);
    p.bound = malloc(sizeof(double) * nc);
    test_fill(p.a, na, &rng);
    test_fill(p.b, nb, &rng);
    ref_sgemm(transa, transb, m, n, k, 1.0f, p.a, transa ? k : m, p.b, transb ? n : k, 0.0f, NULL, m, p.ref,
              p.bound);
    p.da = test_device_copy(p.a, na);
    p.db = test_device_copy(p.b, nb);
    TEST_CUDA(cudaMalloc((void **)&p.dc, sizeof(float) * nc));
    return p;
}

static void free_product(product *p)
{
    TEST_CUDA(cudaFree(p->da));
    TEST_CUDA(cudaFree(p->db));
    TEST_CUDA(cudaFree(p->dc));
    free(p->a), free(p->b), free(p->ref), free(p->bound);
}

/* C := op(A) op(B) with beta 0 over a poisoned C, checked against float64 and the counters */
static void checked_call(const char *label, const product *p)
{
    const size_t nc = (size_t)p->m * p->n;
    float *c = malloc(sizeof(float) * nc);
    test_fill_poison(c, nc);
    TEST_CUDA(cudaMemcpy(p->dc, c, sizeof(float) * nc, cudaMemcpyHostToDevice));
    shimblas_stats before, after;
    shimblas_get_stats(&before);
    cblas_sgemm(CblasColMajor, p->transa ? CblasTrans : CblasNoTrans, p->transb ? CblasTrans : CblasNoTrans, p->m,
                p->n, p->k, 1.0f, p->da, p->transa ? p->k : p->m, p->db, p->transb ? p->n : p->k, 0.0f, p->dc,
                p->m);
    TEST_CUDA(cudaDeviceSynchronize());
    shimblas_get_stats(&after);
    TEST_CUDA(cudaMemcpy(c, p->dc, sizeof(float) * nc, cudaMemcpyDeviceToHost));
    int bad_case = 0;
    const unsigned long long gpu = after.sgemm.gpu - before.sgemm.gpu, cpu = after.sgemm.cpu - before.sgemm.cpu,
                             failed = after.sgemm.gpu_failed - before.sgemm.gpu_failed,
                             errors = after.sgemm.errors - before.sgemm.errors;
    if (gpu != 1 || cpu || failed || errors) {
        printf("FAIL %s: counted gpu %llu, cpu %llu, gpu_failed %llu, errors %llu; want gpu 1 only\n", label, gpu,
               cpu, failed, errors);
        bad_case = 1;
    }
    const long bad = test_compare(label, c, 1, p->ref, p->bound, (long)nc, p->k, 2.0);
    if (bad) {
        printf("FAIL %s: %ld wrong elements\n", label, bad);
        bad_case = 1;
    }
    if (!bad_case)
        printf("PASS %s\n", label);
    failures += bad_case;
    free(c);
}

int main(void)
{
    test_require_gpu();
    shimblas_set_mode(SHIMBLAS_MODE_GPU);
    rng = test_seed();

    /* the library's own state first (context, streams), by a call with a tiny workspace */
    product tiny = make_product(0, 0, 1, 1, 1);
    checked_call("1x1x1 NN, the library's first call", &tiny);

    product p = make_product(1, 0, 1000, 1000, 1000); /* TN: A copied, 3.9 MB */
    const size_t held = test_hold_device();
    printf("holding %.1f GiB of device memory, %.1f MiB left\n", held / 1073741824.0, test_free_device_bytes() / 1048576.0);
    checked_call("1000^3 TN, no device memory left for the workspace", &p);
    test_release_held();
    checked_call("1000^3 TN, the workspace there", &p);
    free_product(&p);

    product big = make_product(0, 0, 16, 8192, 4096); /* NN: B copied, 128 MB */
    test_hold_device();
    test_release_held_until((size_t)384 << 20);
    size_t free_before = test_free_device_bytes();
    checked_call("16x8192x4096 NN, a 128 MB workspace, 384 MB of the device free", &big);
    size_t free_after = test_free_device_bytes();
    if (free_after + ((size_t)16 << 20) < free_before) {
        printf("FAIL 16x8192x4096 NN: %.1f MiB of the little device memory left still held after the call\n",
               (free_before - free_after) / 1048576.0);
        failures++;
    } else {
        printf("PASS 16x8192x4096 NN, device nearly full: the workspace given back (free %.1f MiB before, %.1f "
               "after)\n",
               free_before / 1048576.0, free_after / 1048576.0);
    }
    test_release_held();
    free_before = test_free_device_bytes();
    checked_call("16x8192x4096 NN, a 128 MB workspace, the device free", &big);
    free_after = test_free_device_bytes();
    if (free_after + ((size_t)100 << 20) > free_before) {
        printf("FAIL 16x8192x4096 NN, device free: the workspace was not kept for the next call (free %.1f MiB "
               "before, %.1f after)\n",
               free_before / 1048576.0, free_after / 1048576.0);
        failures++;
    } else {
        printf("PASS 16x8192x4096 NN, device free: the workspace kept (free %.1f MiB before, %.1f after)\n",
               free_before / 1048576.0, free_after / 1048576.0);
    }
    free_product(&big);
    free_product(&tiny);
    printf("check_workspace_oom: 7 cases, %d failures\n", failures);
    return failures != 0;
}
