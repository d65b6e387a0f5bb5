/* Kernels and a device whose memory the program holds (kernels/common/kernel_load.h). CUDA loads a
 * kernel's code on a device at its first use, and a load that finds no device memory loses the
 * kernel for the rest of the process. So the library loads a kernel only with memory to spare and
 * otherwise refuses it untouched; an sgemm whose kernel is refused runs on the fallback plan, loaded
 * at the device's first use (shim_sgemm_preload). Each case runs a variant directly
 * (shim_sgemm_run) on device operands over a poisoned C, checked against float64:
 *   1. the device free: a variant's kernel loads and runs, nothing refused;
 *   2. the program holding all but a few MB: variants whose kernels were never loaded (one
 *      kernel, beta 0 and beta != 0; transpose_first's copy and its inner plan) are refused and
 *      the fallback computes the call; a kernel loaded in case 1 runs as it is; C := beta * C
 *      (k == 0) runs on the kernel loaded at the device's first use;
 *   3. the memory free again: the variants refused in 2 load and run (they were not lost).
 * The same for sgemv, whose fallback is the baseline of each form (rows_warp, cols_thread).
 * Exit 77 without a usable GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_guard.h"
#include "kernel_load.h"
#include "reference.h"
#include "sgemm_kernels.h"
#include "sgemv_kernels.h"

static int cases, failures;
static uint64_t rng;

/* one product's operands, on the host and on the device; the workspace any variant here needs is
 * allocated with them, before the device is held */
typedef struct product {
    int transa, transb, m, n, k;
    float *a, *b, *c0;
    float *da, *db, *dc;
    void *work;
    size_t work_bytes;
} product;

static product make_product(int transa, int transb, int m, int n, int k)
{
    product p;
    memset(&p, 0, sizeof p);
    p.transa = transa, p.transb = transb, p.m = m, p.n = n, p.k = k;
    const size_t na = (size_t)m * (k ? k : 1), nb = (size_t)(k ? k : 1) * n, nc = (size_t)m * n;
    p.a = malloc(sizeof(float) * na);
    p.b = malloc(sizeof(float) * nb);
    p.c0 = malloc(sizeof(float) * nc);
    test_fill(p.a, na, &rng);
    test_fill(p.b, nb, &rng);
    test_fill(p.c0, nc, &rng);
    p.da = test_device_copy(p.a, na);
    p.db = test_device_copy(p.b, nb);
    p.dc = test_device_copy(p.c0, nc);
    p.work_bytes = (size_t)64 << 20;
    TEST_CUDA(cudaMalloc(&p.work, p.work_bytes));
    return p;
}

static void free_product(product *p)
{
    TEST_CUDA(cudaFree(p->da));
    TEST_CUDA(cudaFree(p->db));
    TEST_CUDA(cudaFree(p->dc));
    TEST_CUDA(cudaFree(p->work));
    free(p->a), free(p->b), free(p->c0);
}

/* the output at a run's start, on the host and on the device: poisoned where beta is 0 (it must
 * not be read), else its initial values */
static float *start_output(float *dev, const float *initial, size_t len, float beta)
{
    float *out = malloc(sizeof(float) * len);
    if (beta == 0.0f)
        test_fill_poison(out, len);
    else
        memcpy(out, initial, sizeof(float) * len);
    TEST_CUDA(cudaMemcpy(dev, out, sizeof(float) * len, cudaMemcpyHostToDevice));
    return out;
}

/* a run's end: its error and the synchronisation's, whether it refused a kernel (since
 * refused_before) against want_refused (1 yes, 0 no), then the output against float64; counts the
 * case and says PASS or FAIL. Frees out, ref and bound. */
static void finish_case(const char *label, const char *variant, int bad, cudaError_t err,
                        unsigned long long refused_before, int want_refused, float *out, const float *dev,
                        size_t len, double *ref, double *bound, int terms)
{
    cases++;
    const cudaError_t sync = cudaDeviceSynchronize();
    const int refused = shim_kernel_refusals() != refused_before;
    if (err != cudaSuccess || sync != cudaSuccess) {
        printf("FAIL %s: %s returned %s, synchronize %s\n", label, variant, cudaGetErrorString(err),
               cudaGetErrorString(sync));
        bad = 1;
    }
    if (refused != want_refused) {
        printf("FAIL %s: a kernel %s refused, want %s\n", label, refused ? "was" : "was not",
               want_refused ? "one refused" : "none");
        bad = 1;
    }
    if (!bad) {
        TEST_CUDA(cudaMemcpy(out, dev, sizeof(float) * len, cudaMemcpyDeviceToHost));
        const long wrong = test_compare(label, out, 1, ref, bound, (long)len, terms, 2.0);
        if (wrong) {
            printf("FAIL %s: %ld wrong elements\n", label, wrong);
            bad = 1;
        }
    }
    if (!bad)
        printf("PASS %s (%s%s)\n", label, variant, refused ? ", refused: the fallback ran" : "");
    failures += bad;
    free(out), free(ref), free(bound);
}

/* runs the sgemm variant named on p with alpha 1 and beta and checks it (finish_case) */
static void run_case(const char *label, const char *variant, const product *p, float beta, int want_refused)
{
    const size_t nc = (size_t)p->m * p->n;
    double *ref = malloc(sizeof(double) * nc), *bound = malloc(sizeof(double) * nc);
    float *c = start_output(p->dc, p->c0, nc, beta);
    ref_sgemm(p->transa, p->transb, p->m, p->n, p->k, 1.0f, p->a, p->transa ? p->k : p->m, p->b,
              p->transb ? p->n : p->k, beta, p->c0, p->m, ref, bound);
    shim_sgemm_args args;
    memset(&args, 0, sizeof args);
    args.transa = p->transa, args.transb = p->transb;
    args.m = p->m, args.n = p->n, args.k = p->k;
    args.alpha = 1.0f, args.beta = beta;
    args.a = p->da, args.lda = p->transa ? p->k : p->m;
    args.b = p->db, args.ldb = p->transb ? p->n : p->k;
    args.c = p->dc, args.ldc = p->m;
    const shim_sgemm_variant *v = shim_sgemm_find(variant);
    int bad = !v || !v->accepts(&args);
    const size_t need = bad ? 0 : shim_sgemm_work_bytes(v, &args);
    if (bad || need > p->work_bytes) {
        printf("FAIL %s: no variant %s taking the problem with at most %zu bytes of workspace\n", label, variant,
               p->work_bytes);
        bad = 1;
    }
    args.work = need ? p->work : NULL;
    args.work_bytes = need;
    const unsigned long long refused_before = shim_kernel_refusals();
    const cudaError_t err = bad ? cudaErrorInvalidValue : shim_sgemm_run(v, &args);
    finish_case(label, variant, bad, err, refused_before, want_refused, c, p->dc, nc, ref, bound, p->k);
}

/* y := A x or A^T x (beta y added), column-major A with lda = m, contiguous vectors */
typedef struct gemv {
    int trans, m, n;
    float *a, *x, *y0;
    float *da, *dx, *dy;
} gemv;

static gemv make_gemv(int trans, int m, int n)
{
    gemv g;
    memset(&g, 0, sizeof g);
    g.trans = trans, g.m = m, g.n = n;
    const size_t nx = trans ? m : n, ny = trans ? n : m;
    g.a = malloc(sizeof(float) * (size_t)m * n);
    g.x = malloc(sizeof(float) * nx);
    g.y0 = malloc(sizeof(float) * ny);
    test_fill(g.a, (size_t)m * n, &rng);
    test_fill(g.x, nx, &rng);
    test_fill(g.y0, ny, &rng);
    g.da = test_device_copy(g.a, (size_t)m * n);
    g.dx = test_device_copy(g.x, nx);
    g.dy = test_device_copy(g.y0, ny);
    return g;
}

static void free_gemv(gemv *g)
{
    TEST_CUDA(cudaFree(g->da));
    TEST_CUDA(cudaFree(g->dx));
    TEST_CUDA(cudaFree(g->dy));
    free(g->a), free(g->x), free(g->y0);
}

/* runs the sgemv variant named on g with alpha 1 and beta and checks it (finish_case) */
static void run_gemv_case(const char *label, const char *variant, const gemv *g, float beta, int want_refused)
{
    const size_t ny = g->trans ? g->n : g->m;
    double *ref = malloc(sizeof(double) * ny), *bound = malloc(sizeof(double) * ny);
    float *y = start_output(g->dy, g->y0, ny, beta);
    ref_sgemv(g->trans, g->m, g->n, 1.0f, g->a, g->m, g->x, 1, beta, g->y0, 1, ref, bound);
    shim_sgemv_args args;
    memset(&args, 0, sizeof args);
    args.trans = g->trans, args.m = g->m, args.n = g->n, args.alpha = 1.0f, args.beta = beta;
    args.a = g->da, args.lda = g->m, args.x = g->dx, args.y = g->dy;
    const shim_sgemv_variant *v = shim_sgemv_find(variant);
    const int bad = !v || !v->accepts(&args) || shim_sgemv_work_bytes(v, &args) != 0;
    if (bad)
        printf("FAIL %s: no variant %s taking the problem without workspace\n", label, variant);
    const unsigned long long refused_before = shim_kernel_refusals();
    const cudaError_t err = bad ? cudaErrorInvalidValue : shim_sgemv_run(v, &args);
    finish_case(label, variant, bad, err, refused_before, want_refused, y, g->dy, ny, ref, bound,
                g->trans ? g->m : g->n);
}

int main(void)
{
    test_require_gpu();
    rng = test_seed();
    TEST_CUDA(cudaFree(0));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    shim_sgemm_preload(); /* what the library does at a thread's first use of a device */
    shim_sgemv_preload();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("the fallbacks' kernels loaded in %.2f ms\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);

    /* shapes off every tile; TN makes transpose_first copy A */
    product nn = make_product(0, 0, 333, 257, 129), tn = make_product(1, 0, 301, 263, 517),
            k0 = make_product(0, 0, 97, 45, 0);
    gemv rows = make_gemv(1, 1031, 517), cols = make_gemv(0, 1029, 515);
    run_case("the device free: coarse_1d NN loads", "coarse_1d", &nn, 0.0f, 0);
    run_gemv_case("the device free: sgemv rows_multi4 loads", "rows_multi4", &rows, 0.5f, 0);

    test_hold_device();
    const size_t left = test_free_device_bytes();
    printf("holding the device: %.1f MiB left\n", left / 1048576.0);
    if (left >= SHIM_KERNEL_LOAD_HEADROOM) {
        printf("FAIL could not hold the device below %zu MiB free\n", SHIM_KERNEL_LOAD_HEADROOM >> 20);
        failures++;
    } else {
        run_case("device held: coarse_2d NN, never loaded, beta 0", "coarse_2d", &nn, 0.0f, 1);
        run_case("device held: coarse_2d TN, never loaded, beta 0.5", "coarse_2d", &tn, 0.5f, 1);
        run_case("device held: coarse_1d NN, loaded before", "coarse_1d", &nn, 0.5f, 0);
        run_case("device held: transpose_first TN, copy never loaded", "transpose_first", &tn, 0.0f, 1);
        run_case("device held: k == 0, C := 0.5 C", "coarse_2d", &k0, 0.5f, 0);
        run_gemv_case("device held: sgemv rows_float4, never loaded, beta 0.5", "rows_float4", &rows, 0.5f, 1);
        run_gemv_case("device held: sgemv cols_float4, never loaded, beta 0", "cols_float4", &cols, 0.0f, 1);
        run_gemv_case("device held: sgemv rows_multi4, loaded before", "rows_multi4", &rows, 0.0f, 0);
    }
    test_release_held();
    printf("released: %.1f MiB free\n", test_free_device_bytes() / 1048576.0);
    run_case("device free again: coarse_2d NN loads", "coarse_2d", &nn, 0.0f, 0);
    run_case("device free again: coarse_2d TN loads", "coarse_2d", &tn, 0.5f, 0);
    run_case("device free again: transpose_first TN loads", "transpose_first", &tn, 0.0f, 0);
    run_gemv_case("device free again: sgemv rows_float4 loads", "rows_float4", &rows, 0.5f, 0);
    run_gemv_case("device free again: sgemv cols_float4 loads", "cols_float4", &cols, 0.0f, 0);

    free_product(&nn), free_product(&tn), free_product(&k0);
    free_gemv(&rows), free_gemv(&cols);
    printf("check_kernel_load: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
