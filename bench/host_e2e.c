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

/* median of the timed calls; one warm-up call first (it absorbs library start-up costs) */
#define TIME_CALLS(budget_ms, max_reps, median, call)                                                                  \
    do {                                                                                                               \
        double times_[64];                                                                                             \
        int n_ = 0;                                                                                                    \
        double spent_ = 0;                                                                                             \
        call;                                                                                                          \
        while (n_ < (max_reps) && (n_ == 0 || spent_ < (budget_ms))) {                                                 \
            double t0_ = now_ms();                                                                                     \
            call;                                                                                                      \
            times_[n_] = now_ms() - t0_;                                                                               \
            spent_ += times_[n_++];                                                                                    \
        }                                                                                                              \
        for (int i_ = 1; i_ < n_; i_++)                                                                                \
            for (int j_ = i_; j_ > 0 && times_[j_ - 1] > times_[j_]; j_--) {                                           \
                double t_ = times_[j_];                                                                                \
                times_[j_] = times_[j_ - 1];                                                                           \
                times_[j_ - 1] = t_;                                                                                   \
            }                                                                                                          \
        median = n_ % 2 ? times_[n_ / 2] : 0.5 * (times_[n_ / 2 - 1] + times_[n_ / 2]);                                \
    } while (0)

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
        fprintf(stderr, "usage: %s blas|cublas LABEL OUT.csv [quick] [sgemv|sgemm]\n", argv[0]);
        return 2;
    }
    int use_cublas = strcmp(argv[1], "cublas") == 0, quick = argc > 4 && strcmp(argv[4], "quick") == 0;
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
        if (!dlopen("libblas.so.3", RTLD_NOW | RTLD_GLOBAL))
            fprintf(stderr, "note: %s\n", dlerror());
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
        float one = 1.0f, zero = 0.0f;
        double ms;
        double flops = 2.0 * m * (double)n * k;
        /* the slowest engines at the largest sizes get a single timed call */
        double budget = flops > 1e12 ? 0 : 400;
        if (use_cublas)
            TIME_CALLS(budget, 7, ms, cublas_sgemm(m, n, k, a, b, c));
        else
            TIME_CALLS(budget, 7, ms, blas_sgemm("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1));
        int ok = spot_check_gemm(m, n, k, a, b, c);
        fprintf(csv, "%s,sgemm,%dx%dx%d,%d,%d,%d,%.4f,%.2f,%s\n", label, m, n, k, m, n, k, ms, flops / ms * 1e-6,
                ok ? "ok" : "WRONG");
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
            float one = 1.0f, zero = 0.0f;
            int inc = 1;
            double ms;
            if (use_cublas)
                TIME_CALLS(300, 9, ms, cublas_sgemv(trans, m, n, a, x, y));
            else
                TIME_CALLS(300, 9, ms, blas_sgemv(trans ? "T" : "N", &m, &n, &one, a, &m, x, &inc, &zero, y, &inc, 1));
            int ok = spot_check_gemv(trans, m, n, a, x, y);
            double bytes = 4.0 * ((double)m * n + m + n);
            fprintf(csv, "%s,sgemv,%dx%d %s,%d,%d,0,%.4f,%.2f,%s\n", label, rows, cols,
                    layout == 0 ? "row-major" : "col-major", m, n, ms, bytes / ms * 1e-6, ok ? "ok" : "WRONG");
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
