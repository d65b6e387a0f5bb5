#include "bench_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

void bench_cuda_check(int err, const char *what, const char *file, int line)
{
    if (err != 0) {
        fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what,
                cudaGetErrorString((cudaError_t)err));
        exit(1);
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

double bench_median_ms(bench_fn run, void *ctx, cudaStream_t stream, int warmup, int reps)
{
    for (int i = 0; i < warmup; i++)
        run(i, ctx, stream);
    BENCH_CUDA(cudaStreamSynchronize(stream));
    cudaEvent_t *ev = malloc(sizeof(cudaEvent_t) * (size_t)(reps + 1));
    float *ms = malloc(sizeof(float) * (size_t)reps);
    for (int i = 0; i <= reps; i++)
        BENCH_CUDA(cudaEventCreate(&ev[i]));
    BENCH_CUDA(cudaEventRecord(ev[0], stream));
    for (int i = 0; i < reps; i++) {
        run(warmup + i, ctx, stream);
        BENCH_CUDA(cudaEventRecord(ev[i + 1], stream));
    }
    BENCH_CUDA(cudaGetLastError());
    BENCH_CUDA(cudaEventSynchronize(ev[reps]));
    for (int i = 0; i < reps; i++)
        BENCH_CUDA(cudaEventElapsedTime(&ms[i], ev[i], ev[i + 1]));
    qsort(ms, (size_t)reps, sizeof(float), cmp_float);
    double med = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    for (int i = 0; i <= reps; i++)
        cudaEventDestroy(ev[i]);
    free(ev);
    free(ms);
    return med;
}

struct copy_ctx {
    void *src, *dst;
    size_t bytes;
};

static void copy_once(int i, void *p, cudaStream_t s)
{
    (void)i;
    struct copy_ctx *c = p;
    BENCH_CUDA(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s));
}

double bench_copy_gbps(size_t bytes)
{
    struct copy_ctx c = {0};
    c.bytes = bytes;
    BENCH_CUDA(cudaMalloc(&c.src, bytes));
    BENCH_CUDA(cudaMalloc(&c.dst, bytes));
    BENCH_CUDA(cudaMemset(c.src, 1, bytes));
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreate(&s));
    double ms = bench_median_ms(copy_once, &c, s, 3, 20);
    BENCH_CUDA(cudaStreamDestroy(s));
    cudaFree(c.src);
    cudaFree(c.dst);
    return 2.0 * (double)bytes / (ms * 1e6);
}

void bench_fill_device(float *d, size_t n, unsigned long long seed)
{
    size_t chunk = (size_t)1 << 24;
    float *h = malloc(sizeof(float) * (n < chunk ? n : chunk));
    uint64_t s = seed;
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        for (size_t i = 0; i < len; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            h[i] = (float)((double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
        }
        BENCH_CUDA(cudaMemcpy(d + off, h, len * sizeof(float), cudaMemcpyHostToDevice));
    }
    free(h);
}

int bench_rotation(size_t set_bytes, int max_sets)
{
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
    size_t want = 4 * (size_t)(l2 > 0 ? l2 : 64 << 20);
    size_t sets = set_bytes ? (want + set_bytes - 1) / set_bytes : 1;
    if (sets < 1)
        sets = 1;
    if (sets > (size_t)max_sets)
        sets = (size_t)max_sets;
    return (int)sets;
}

double bench_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double bench_max_rel_diff(const float *got, const float *ref, int rows, int cols, long long ld)
{
    float *h1 = malloc(sizeof(float) * (size_t)rows), *h2 = malloc(sizeof(float) * (size_t)rows);
    double maxdiff = 0.0, maxref = 0.0;
    int sampled = cols > 24;
    for (int c = 0; c < (sampled ? 24 : cols); c++) {
        int col = !sampled ? c : c < 8 ? c : c < 16 ? cols / 2 + (c - 8) : cols - 24 + c;
        BENCH_CUDA(cudaMemcpy(h1, got + (long long)col * ld, sizeof(float) * (size_t)rows, cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(h2, ref + (long long)col * ld, sizeof(float) * (size_t)rows, cudaMemcpyDeviceToHost));
        for (int i = 0; i < rows; i++) {
            double d = fabs((double)h1[i] - (double)h2[i]);
            if (!isnan(maxdiff) && !(d <= maxdiff)) /* a NaN stays */
                maxdiff = d;
            if (fabs((double)h2[i]) > maxref)
                maxref = fabs((double)h2[i]);
        }
    }
    free(h1);
    free(h2);
    return maxref > 0 ? maxdiff / maxref : maxdiff;
}

void *bench_scratch(size_t bytes)
{
    static void *buf;
    static size_t len;
    if (bytes > len) {
        BENCH_CUDA(cudaFree(buf));
        BENCH_CUDA(cudaMalloc(&buf, bytes));
        len = bytes;
    }
    return buf;
}
