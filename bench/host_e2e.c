/* End-to-end benchmark on host data: A, B, C (or A, x, y) in ordinary malloc'd memory, timed from
 * the call to its return, as a program sees it.
 *
 *   host_e2e blas   LABEL OUT.csv [quick]   calls sgemm_ / sgemv_ as found in the process: the CPU
 *                                           BLAS, or whatever LD_PRELOAD put in front of it
 *                                           (shimblas, NVBLAS); bench/host_e2e.sh runs each
 *   host_e2e cublas LABEL OUT.csv [quick]   the naive GPU path: cudaMemcpy from pageable memory into
 *                                           preallocated device buffers, cuBLAS, cudaMemcpy back
 *
 * The program opens the system BLAS (libblas.so.3) with RTLD_GLOBAL, as a program linked with -lblas
 * would have it, and looks the routines up in the global scope, so a preloaded library wins.
 * Every result is spot-checked against float64 dot products. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*sgemm_fn)(const char *, const char *, const int *, const int *, const int *, const float *,
                         const float *, const int *, const float *, const int *, const float *, float *, const int *,
                         size_t, size_t);
typedef void (*sgemv_fn)(const char *, const int *, const int *, const float *, const float *, const int *,
                         const float *, const int *, const float *, float *, const int *, size_t);

static sgemm_fn blas_sgemm;
static sgemv_fn blas_sgemv;
static cublasHandle_t handle;
static float *dev_buf;
static size_t dev_floats;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void fill(float *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (float)((double)(seed >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
    }
}

static void check_cuda(int err, const char *what)
{
    if (err) {
        fprintf(stderr, "%s failed (%d)\n", what, err);
        exit(1);
    }
}

static float *device_floats(size_t n)
{
    if (n > dev_floats) {
        cudaFree(dev_buf);
        check_cuda(cudaMalloc((void **)&dev_buf, n * sizeof(float)), "cudaMalloc");
        dev_floats = n;
    }
    return dev_buf;
}

static void cublas_sgemm(int m, int n, int k, const float *a, const float *b, float *c)
{
    size_t sa = (size_t)m * k, sb = (size_t)k * n, sc = (size_t)m * n;
    float *d = device_floats(sa + sb + sc), *da = d, *db = d + sa, *dc = d + sa + sb;
    float one = 1.0f, zero = 0.0f;
    check_cuda(cudaMemcpy(da, a, sa * 4, cudaMemcpyHostToDevice), "copy A");
    check_cuda(cudaMemcpy(db, b, sb * 4, cudaMemcpyHostToDevice), "copy B");
    check_cuda(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, m, db, k, &zero, dc, m), "sgemm");
    check_cuda(cudaMemcpy(c, dc, sc * 4, cudaMemcpyDeviceToHost), "copy C");
}

static void cublas_sgemv(int trans, int m, int n, const float *a, const float *x, float *y)
{
    size_t sa = (size_t)m * n, sx = trans ? m : n, sy = trans ? n : m;
    float *d = device_floats(sa + sx + sy), *da = d, *dx = d + sa, *dy = d + sa + sx;
    float one = 1.0f, zero = 0.0f;
    check_cuda(cudaMemcpy(da, a, sa * 4, cudaMemcpyHostToDevice), "copy A");
    check_cuda(cudaMemcpy(dx, x, sx * 4, cudaMemcpyHostToDevice), "copy x");
    check_cuda(cublasSgemv(handle, trans ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, &one, da, m, dx, 1, &zero, dy, 1),
               "sgemv");
    check_cuda(cudaMemcpy(y, dy, sy * 4, cudaMemcpyDeviceToHost), "copy y");
}

/* One call of the shape under test: which == 0 runs the engine being measured, which == 1 the CPU
 * BLAS itself (its own symbol, whatever LD_PRELOAD put in front), for the in-process baseline. */
typedef struct call_ctx {
    int gemm, trans, m, n, k;
    const float *a, *b;
    float *c;
} call_ctx;

static sgemm_fn base_sgemm;
static sgemv_fn base_sgemv;
static int use_cublas;
static int want_baseline; /* time the CPU BLAS in this process too */

static void run_call(const call_ctx *x, int which)
{
    float one = 1.0f, zero = 0.0f;
    int inc = 1, m = x->m, n = x->n, k = x->k;
    if (use_cublas && which == 0) {
        if (x->gemm)
            cublas_sgemm(m, n, k, x->a, x->b, x->c);
        else
            cublas_sgemv(x->trans, m, n, x->a, x->b, x->c);
        return;
    }
    sgemm_fn gemm = which ? base_sgemm : blas_sgemm;
    sgemv_fn gemv = which ? base_sgemv : blas_sgemv;
    if (x->gemm)
        gemm("N", "N", &m, &n, &k, &one, x->a, &m, x->b, &k, &zero, x->c, &m, 1, 1);
    else
        gemv(x->trans ? "T" : "N", &m, &n, &one, x->a, &m, x->b, &inc, &zero, x->c, &inc, 1);
}

static double median(double *t, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            double v = t[j];
            t[j] = t[j - 1];
            t[j - 1] = v;
        }
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Median times of the engine and of the CPU BLAS in this same process on the same buffers
 * (baseline < 0 when there is none): the two see the same memory placement and machine state, so
 * their ratio is not disturbed by differences between processes. They take turns in blocks of
 * calls, ROUNDS blocks each, so that slow drifts (page placement, clocks) reach both; not call by
 * call, because a multithreaded CPU BLAS keeps its threads spinning for a while after each call
 * (OpenBLAS: about 0.1 s) and the engine's next calls would share the cores with them; every
 * block starts after a pause long enough for them to go to sleep and a few untimed calls that
 * bring the clocks back up (settle). Warm-up calls of both first;
 * each side gets budget_ms and at most MAX_REPS timed calls in all; a zero budget (the slowest calls)
 * means one block of one call. */
enum { ROUNDS = 3, MAX_REPS = 63, WARMUP_CALLS = 8 };

/* before each block when both sides are timed: a pause, in which the CPU BLAS's threads go to
 * sleep, then untimed calls of the side about to be timed (at least one, about 10 ms' worth), which
 * bring clocks and threads back up: both sides start their timed calls from the same state */
static void settle(const call_ctx *x, int which)
{
    nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
    double t0 = now_ms();
    do
        run_call(x, which);
    while (now_ms() - t0 < 10.0);
}

static int timed_block(const call_ctx *x, int which, double budget_ms, int max_reps, double *t)
{
    double spent = 0;
    int n = 0;
    while (n < max_reps && (n == 0 || spent < budget_ms)) {
        double t0 = now_ms();
        run_call(x, which);
        t[n] = now_ms() - t0;
        spent += t[n++];
    }
    return n;
}

static void time_calls(const call_ctx *x, double budget_ms, double *subject, double *baseline)
{
    int with_base = want_baseline && base_sgemm && base_sgemm != blas_sgemm;
    double ts[MAX_REPS], tb[MAX_REPS];
    int ns = 0, nb = 0;
    /* warm-up: fresh buffers run slow for their first calls (page placement, TLB, the CPU BLAS's
     * and the engine's first-use costs); both sides warm up alike, so neither side's first timed
     * block carries more of it; one side after the other, for the reason the blocks are */
    for (int side = 0; side <= with_base; side++) {
        if (side)
            settle(x, side);
        double t0 = now_ms(); /* after the pause: each side gets the same warm-up budget */
        for (int w = 0; w < WARMUP_CALLS && (w == 0 || now_ms() - t0 < budget_ms / 4); w++)
            run_call(x, side);
    }
    int rounds = budget_ms > 0 ? ROUNDS : 1;
    for (int r = 0; r < rounds; r++) {
        if (with_base)
            settle(x, 0);
        ns += timed_block(x, 0, budget_ms / ROUNDS, MAX_REPS / ROUNDS, ts + ns);
        if (with_base) {
            settle(x, 1);
            nb += timed_block(x, 1, budget_ms / ROUNDS, MAX_REPS / ROUNDS, tb + nb);
        }
    }
    *subject = median(ts, ns);
    *baseline = with_base ? median(tb, nb) : -1;
}

/* a few entries of the result against float64 dot products */
static int spot_check_gemm(int m, int n, int k, const float *a, const float *b, const float *c)
{
    uint64_t s = 12345;
    for (int t = 0; t < 16; t++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int i = (int)((s >> 33) % (uint64_t)m), j = (int)((s >> 13) % (uint64_t)n);
        double want = 0, mag = 0;
        for (int l = 0; l < k; l++) {
            want += (double)a[(size_t)l * m + i] * b[(size_t)j * k + l];
            mag += fabs((double)a[(size_t)l * m + i] * b[(size_t)j * k + l]);
        }
        if (!(fabs(c[(size_t)j * m + i] - want) <= 1e-5 * (k + 2) * mag + 1e-30))
            return 0;
    }
    return 1;
}

static int spot_check_gemv(int trans, int m, int n, const float *a, const float *x, const float *y)
{
    int leny = trans ? n : m, lenx = trans ? m : n;
    for (int t = 0; t < 16; t++) {
        int i = (int)(((uint64_t)t * 2654435761u) % (uint64_t)leny);
        double want = 0, mag = 0;
        for (int j = 0; j < lenx; j++) {
            double v = (trans ? a[(size_t)i * m + j] : a[(size_t)j * m + i]) * (double)x[j];
            want += v;
            mag += fabs(v);
        }
        if (!(fabs(y[i] - want) <= 1e-5 * (lenx + 2) * mag + 1e-30))
            return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s blas|blas+baseline|cublas LABEL OUT.csv [quick] [sgemv|sgemm]\n", argv[0]);
        return 2;
    }
    use_cublas = strcmp(argv[1], "cublas") == 0;
    want_baseline = strcmp(argv[1], "blas+baseline") == 0;
    int quick = argc > 4 && strcmp(argv[4], "quick") == 0;
    /* "sgemv" / "sgemm" as the last argument runs only that routine */
    int only_gemv = argc > 4 && strcmp(argv[argc - 1], "sgemv") == 0;
    int only_gemm = argc > 4 && strcmp(argv[argc - 1], "sgemm") == 0;
    const char *label = argv[2];
    FILE *csv = fopen(argv[3], "a");
    if (!csv)
        return 2;
    if (use_cublas) {
        check_cuda(cublasCreate(&handle), "cublasCreate");
        check_cuda(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH), "math mode");
    } else {
        void *system_blas = dlopen("libblas.so.3", RTLD_NOW | RTLD_GLOBAL);
        if (!system_blas)
            fprintf(stderr, "note: %s\n", dlerror());
        else {
            base_sgemm = (sgemm_fn)dlsym(system_blas, "sgemm_");
            base_sgemv = (sgemv_fn)dlsym(system_blas, "sgemv_");
        }
        blas_sgemm = (sgemm_fn)dlsym(RTLD_DEFAULT, "sgemm_");
        blas_sgemv = (sgemv_fn)dlsym(RTLD_DEFAULT, "sgemv_");
        if (!blas_sgemm || !blas_sgemv) {
            fprintf(stderr, "no sgemm_/sgemv_ in the process\n");
            return 1;
        }
        Dl_info info;
        if (dladdr((void *)blas_sgemm, &info))
            fprintf(stderr, "%s: sgemm_ from %s\n", label, info.dli_fname);
    }

    static const int gemm_shapes[][3] = {
        {256, 256, 256},    {512, 512, 512},      {1024, 1024, 1024},   {2048, 2048, 2048}, {4096, 4096, 4096},
        {8192, 8192, 8192}, {16384, 16384, 16384}, {4096, 4096, 64},    {64, 4096, 4096},   {8192, 128, 8192},
        {1000, 1000, 1000}, {4097, 4097, 4097},    {16384, 16384, 256}, {128, 128, 65536}};
    int gemm_count = only_gemv ? 0 : quick ? 6 : (int)(sizeof gemm_shapes / sizeof gemm_shapes[0]);
    for (int s = 0; s < gemm_count; s++) {
        int m = gemm_shapes[s][0], n = gemm_shapes[s][1], k = gemm_shapes[s][2];
        float *a = malloc(sizeof(float) * (size_t)m * k), *b = malloc(sizeof(float) * (size_t)k * n);
        float *c = malloc(sizeof(float) * (size_t)m * n);
        fill(a, (size_t)m * k, 1 + s);
        fill(b, (size_t)k * n, 100 + s);
        double ms, base;
        double flops = 2.0 * m * (double)n * k;
        /* the slowest engines at the largest sizes get a single timed call */
        double budget = flops > 1e12 ? 0 : 400;
        call_ctx x = {1, 0, m, n, k, a, b, c};
        time_calls(&x, budget, &ms, &base);
        int ok = spot_check_gemm(m, n, k, a, b, c);
        fprintf(csv, "%s,sgemm,%dx%dx%d,%d,%d,%d,%.4f,%.2f,%s\n", label, m, n, k, m, n, k, ms, flops / ms * 1e-6,
                ok ? "ok" : "WRONG");
        if (base > 0)
            fprintf(csv, "cpu-blas@%s,sgemm,%dx%dx%d,%d,%d,%d,%.4f,%.2f,ok\n", label, m, n, k, m, n, k, base,
                    flops / base * 1e-6);
        printf("%-16s sgemm %6d x %6d x %6d  %10.3f ms  %9.1f GFLOP/s  %s\n", label, m, n, k, ms, flops / ms * 1e-6,
               ok ? "ok" : "WRONG");
        fflush(stdout);
        free(a);
        free(b);
        free(c);
    }

    /* sgemv: the PERF shapes (M x K), row-major NoTrans (canonical T, m = K) and column-major NoTrans */
    static const int gemv_shapes[][2] = {{1048576, 16}, {524288, 32}, {1048576, 64}, {131072, 128},
                                         {256, 65536},  {4096, 4096}, {16384, 16384}};
    int gemv_count = only_gemm ? 0 : quick ? 3 : (int)(sizeof gemv_shapes / sizeof gemv_shapes[0]);
    for (int s = 0; s < gemv_count; s++) {
        for (int layout = 0; layout < 2; layout++) {
            int rows = gemv_shapes[s][0], cols = gemv_shapes[s][1];
            int trans = layout == 0, m = trans ? cols : rows, n = trans ? rows : cols;
            float *a = malloc(sizeof(float) * (size_t)m * n), *x = malloc(sizeof(float) * (size_t)(trans ? m : n));
            float *y = malloc(sizeof(float) * (size_t)(trans ? n : m));
            fill(a, (size_t)m * n, 7 + s);
            fill(x, (size_t)(trans ? m : n), 77 + s);
            double ms, base;
            call_ctx cx = {0, trans, m, n, 0, a, x, y};
            time_calls(&cx, 300, &ms, &base);
            int ok = spot_check_gemv(trans, m, n, a, x, y);
            double bytes = 4.0 * ((double)m * n + m + n);
            const char *lay = layout == 0 ? "row-major" : "col-major";
            fprintf(csv, "%s,sgemv,%dx%d %s,%d,%d,0,%.4f,%.2f,%s\n", label, rows, cols, lay, m, n, ms,
                    bytes / ms * 1e-6, ok ? "ok" : "WRONG");
            if (base > 0)
                fprintf(csv, "cpu-blas@%s,sgemv,%dx%d %s,%d,%d,0,%.4f,%.2f,ok\n", label, rows, cols, lay, m, n, base,
                        bytes / base * 1e-6);
            printf("%-16s sgemv %8d x %6d %s  %10.3f ms  %8.1f GB/s  %s\n", label, rows, cols,
                   layout == 0 ? "row-major" : "col-major", ms, bytes / ms * 1e-6, ok ? "ok" : "WRONG");
            fflush(stdout);
            free(a);
            free(x);
            free(y);
        }
    }
    fclose(csv);
    return 0;
}
