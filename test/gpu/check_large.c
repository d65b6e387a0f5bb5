/* Problems past 2^31 elements, where the memory exists (skipped, 77, where it does not):
 *   1. host-data sgemm whose C has 2.5e9 elements (50000 x 50000, k = 8), on the GPU;
 *   2. the same with every operand in device memory, in place;
 *   3. host-data sgemv over a 70001 x 32771 matrix (2.3e9 elements), both transposes, on the GPU;
 *   4. the ILP64 sgemv_64_ with m = 2^31 + 5 rows (beyond the kernels' 32-bit dimensions) on device
 *      operands: computed by the CPU side (the ILP64 CPU BLAS, SHIMBLAS_TEST_PROVIDER) through host
 *      copies; skipped, with a line saying so, without that library.
 * Each output is poisoned first (NaN), then sampled (corners, rows and columns past 2^31 elements
 * of offset, random positions) against float64 within 4 (k + 2) eps sum |a b|. In gpu mode (set by
 * the test): the counters must show cases 1-3 on the GPU and case 4 on the CPU. */
#include <dlfcn.h>
#include <fcntl.h>
#include <execinfo.h>
#include <signal.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "gpu_guard.h"
#include "shimblas.h"

#define CHECK(x) test_cuda_check((int)(x), #x, __FILE__, __LINE__)

void sgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const float *alpha, const float *a,
               const int64_t *lda, const float *x, const int64_t *incx, const float *beta, float *y,
               const int64_t *incy, size_t trans_len);

static int failures;
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static float uniform(void) /* [-1, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)((double)(rng_state >> 11) * 0x1.0p-52 - 1.0);
}

static void fill(float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = uniform();
}

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        printf("FAIL: malloc(%zu) after the memory check said it would fit\n", bytes);
        exit(1);
    }
    return p;
}

/* got against the float64 value of sum_l x[l] y[l] (with alpha, beta and c0) */
static void compare(const char *what, int64_t where, float got, double exact, double bound)
{
    if (!(fabs((double)got - exact) <= bound)) {
        if (failures++ < 10)
            printf("FAIL: %s: element %lld is %.9g, float64 says %.9g (bound %.3g)\n", what, (long long)where,
                   (double)got, exact, bound);
    }
}

static shimblas_counts counts_of(int gemm)
{
    shimblas_stats st;
    shimblas_get_stats(&st);
    return gemm ? st.sgemm : st.sgemv;
}

/* samples of C (m x n, ldc = m) from A (m x k) and B (k x n): rows and columns past 2^31 included */
static void check_gemm(const char *what, int64_t m, int64_t n, int k, const float *a, const float *b,
                       float (*get)(const void *c, int64_t index), const void *c)
{
    const double eps = 0x1.0p-24;
    for (int s = 0; s < 20000; s++) {
        int64_t i, j;
        if (s < 4) {
            i = s & 1 ? m - 1 : 0;
            j = s & 2 ? n - 1 : 0;
        } else if (s < 1000) { /* the last columns: offsets past 2^31 elements */
            i = (int64_t)(rng_state % (uint64_t)m);
            j = n - 1 - (s % 50);
            uniform();
        } else {
            uniform();
            i = (int64_t)(rng_state % (uint64_t)m);
            uniform();
            j = (int64_t)(rng_state % (uint64_t)n);
        }
        double sum = 0, mag = 0;
        for (int l = 0; l < k; l++) {
            double t = (double)a[i + l * m] * b[l + j * (int64_t)k];
            sum += t;
            mag += fabs(t);
        }
        compare(what, i + j * m, get(c, i + j * m), sum, 4 * (k + 2) * eps * mag);
    }
}

static float get_host(const void *c, int64_t index)
{
    return ((const float *)c)[index];
}

static float get_device(const void *c, int64_t index)
{
    float v;
    CHECK(cudaMemcpy(&v, (const float *)c + index, sizeof v, cudaMemcpyDeviceToHost));
    return v;
}

static void expect_side(const char *what, int gemm, shimblas_counts before, int gpu, int cpu)
{
    shimblas_counts after = counts_of(gemm);
    unsigned long long g = after.gpu - before.gpu, c = after.cpu - before.cpu, f = after.gpu_failed - before.gpu_failed;
    if (g != (unsigned long long)gpu || c != (unsigned long long)cpu || f) {
        printf("FAIL: %s: counted gpu +%llu, cpu +%llu, gpu_failed +%llu; expected gpu +%d, cpu +%d\n", what, g, c, f,
               gpu, cpu);
        failures++;
    }
}

static void case_gemm(int on_device)
{
    const int m = 50000, n = 50000, k = 8;
    const char *what = on_device ? "sgemm 50000 x 50000 x 8, device operands" : "sgemm 50000 x 50000 x 8, host operands";
    float *a = host_alloc(sizeof(float) * m * k), *b = host_alloc(sizeof(float) * k * n);
    fill(a, (size_t)m * k);
    fill(b, (size_t)k * n);
    size_t c_bytes = sizeof(float) * (size_t)m * n;
    float *c, *da = a, *db = b;
    if (on_device) {
        CHECK(cudaMalloc((void **)&c, c_bytes));
        CHECK(cudaMalloc((void **)&da, sizeof(float) * m * k));
        CHECK(cudaMalloc((void **)&db, sizeof(float) * k * n));
        CHECK(cudaMemcpy(da, a, sizeof(float) * m * k, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(db, b, sizeof(float) * k * n, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(c, 0xff, c_bytes)); /* NaN */
    } else {
        c = host_alloc(c_bytes);
        memset(c, 0xff, c_bytes);
    }
    shimblas_counts before = counts_of(1);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, da, m, db, k, 0.0f, c, m);
    if (on_device)
        CHECK(cudaDeviceSynchronize());
    expect_side(what, 1, before, 1, 0);
    int before_failures = failures;
    check_gemm(what, m, n, k, a, b, on_device ? get_device : get_host, c);
    printf("%s %s (C: %.2g elements)\n", failures == before_failures ? "ok  " : "FAIL", what, (double)m * n);
    if (on_device) {
        CHECK(cudaFree(c));
        CHECK(cudaFree(da));
        CHECK(cudaFree(db));
    } else {
        free(c);
    }
    free(a);
    free(b);
}

static void case_gemv(void)
{
    const int m = 70001, n = 32771;
    float *a = host_alloc(sizeof(float) * (size_t)m * n);
    fill(a, (size_t)m * n);
    for (int trans = 0; trans < 2; trans++) {
        int lenx = trans ? m : n, leny = trans ? n : m;
        float *x = host_alloc(sizeof(float) * lenx), *y = host_alloc(sizeof(float) * leny),
              *y0 = host_alloc(sizeof(float) * leny);
        fill(x, lenx);
        fill(y0, leny);
        memcpy(y, y0, sizeof(float) * leny);
        const float alpha = 1.5f, beta = 0.5f;
        char what[80];
        snprintf(what, sizeof what, "sgemv %s 70001 x 32771, host operands", trans ? "T" : "N");
        shimblas_counts before = counts_of(0);
        cblas_sgemv(CblasColMajor, trans ? CblasTrans : CblasNoTrans, m, n, alpha, a, m, x, 1, beta, y, 1);
        expect_side(what, 0, before, 1, 0);
        int before_failures = failures;
        for (int s = 0; s < 300; s++) {
            int i = s < 2 ? (s ? leny - 1 : 0) : (int)(rng_state % (uint64_t)leny);
            uniform();
            double sum = 0, mag = 0;
            for (int l = 0; l < lenx; l++) {
                double t = (double)(trans ? a[l + (int64_t)i * m] : a[i + (int64_t)l * m]) * x[l];
                sum += t;
                mag += fabs(t);
            }
            double exact = alpha * sum + (double)beta * y0[i];
            compare(what, i, y[i], exact, 4 * (lenx + 2) * 0x1.0p-24 * (fabs(alpha) * mag + fabs(beta * y0[i])));
        }
        printf("%s %s (A: %.2g elements)\n", failures == before_failures ? "ok  " : "FAIL", what, (double)m * n);
        free(x);
        free(y);
        free(y0);
    }
    free(a);
}

/* a crash says where: the frames on stderr (symbols of the library's exported and static functions
 * as far as the dynamic symbol table knows them), the faulting address, which of the test's own
 * buffers holds it, and the line of /proc/self/maps that does (none: an unmapped address) */
static struct region {
    const char *name;
    uintptr_t start, bytes;
} regions[8];

static void watch_region(int slot, const char *name, const void *start, size_t bytes)
{
    regions[slot] = (struct region){name, (uintptr_t)start, bytes};
}

static void say(const char *s)
{
    (void)!write(2, s, strlen(s));
}

static void say_hex(uintptr_t v)
{
    char buf[19] = "0x";
    for (int i = 0; i < 16; i++)
        buf[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
    buf[18] = 0;
    say(buf);
}

static uintptr_t parse_hex(const char **p)
{
    uintptr_t v = 0;
    for (;; (*p)++) {
        char c = **p;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return v;
        v = v * 16 + (uintptr_t)d;
    }
}

/* async-signal-safe: read(2) on /proc/self/maps, line by line */
static void say_mapping(uintptr_t addr)
{
    int fd = open("/proc/self/maps", O_RDONLY);
    if (fd < 0)
        return;
    static char line[512];
    size_t len = 0;
    int found = 0;
    char c;
    while (read(fd, &c, 1) == 1) {
        if (c != '\n') {
            if (len + 1 < sizeof line)
                line[len++] = c;
            continue;
        }
        line[len] = 0;
        const char *p = line;
        uintptr_t lo = parse_hex(&p);
        p++;
        uintptr_t hi = parse_hex(&p);
        if (addr >= lo && addr < hi) {
            say("  mapping: ");
            say(line);
            say("\n");
            found = 1;
        }
        len = 0;
    }
    close(fd);
    if (!found)
        say("  mapping: none (the address is not mapped)\n");
}

static void on_crash(int sig, siginfo_t *info, void *context)
{
    (void)context;
    void *frames[64];
    int n = backtrace(frames, 64);
    uintptr_t addr = (uintptr_t)info->si_addr;
    say("check_large: crashed; faulting address ");
    say_hex(addr);
    say("\n");
    for (int i = 0; i < (int)(sizeof regions / sizeof regions[0]); i++) {
        if (!regions[i].name)
            continue;
        say(addr - regions[i].start < regions[i].bytes ? "  inside " : "  not in ");
        say(regions[i].name);
        say(" ");
        say_hex(regions[i].start);
        say(" + ");
        say_hex(regions[i].bytes);
        say("\n");
    }
    say_mapping(addr);
    say("frames:\n");
    backtrace_symbols_fd(frames, n, 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void case_ilp64(void)
{
    const char *provider = getenv("SHIMBLAS_TEST_PROVIDER");
    void *lib = provider && *provider ? dlopen(provider, RTLD_NOW | RTLD_LOCAL) : NULL;
    int (*ready)(void) = lib ? (int (*)(void))dlsym(lib, "ilp64_provider_ready") : NULL;
    if (!ready || !ready()) {
        printf("SKIP (case only): sgemv_64_ past 2^31 rows: no ILP64 CPU BLAS (SHIMBLAS_TEST_PROVIDER=%s)\n",
               provider ? provider : "");
        return;
    }
    const int64_t m = ((int64_t)1 << 31) + 5, n = 1, one = 1;
    const char *what = "sgemv_64_ N, m = 2^31 + 5, device operands";
    float *a = host_alloc(sizeof(float) * m), *x = host_alloc(sizeof(float)), *y0 = host_alloc(sizeof(float) * m);
    fill(a, m);
    fill(x, 1);
    fill(y0, m);
    float *da, *dx, *dy;
    CHECK(cudaMalloc((void **)&da, sizeof(float) * m));
    CHECK(cudaMalloc((void **)&dx, sizeof(float)));
    CHECK(cudaMalloc((void **)&dy, sizeof(float) * m));
    CHECK(cudaMemcpy(da, a, sizeof(float) * m, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx, x, sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y0, sizeof(float) * m, cudaMemcpyHostToDevice));
    watch_region(0, "A (device)", da, sizeof(float) * m);
    watch_region(1, "x (device)", dx, sizeof(float));
    watch_region(2, "y (device)", dy, sizeof(float) * m);
    watch_region(3, "A (the test's host array)", a, sizeof(float) * m);
    watch_region(4, "y0 (the test's host array)", y0, sizeof(float) * m);
    const float alpha = -2.0f, beta = 0.25f;
    shimblas_counts before = counts_of(0);
    sgemv_64_("N", &m, &n, &alpha, da, &m, dx, &one, &beta, dy, &one, 1);
    CHECK(cudaDeviceSynchronize());
    expect_side(what, 0, before, 0, 1);
    int before_failures = failures;
    for (int s = 0; s < 20000; s++) {
        int64_t i = s < 2 ? (s ? m - 1 : 0) : s < 1000 ? m - 1 - s : (int64_t)(rng_state % (uint64_t)m);
        uniform();
        double exact = (double)alpha * a[i] * x[0] + (double)beta * y0[i];
        compare(what, i, get_device(dy, i), exact, 12 * 0x1.0p-24 * (fabs(alpha * a[i] * x[0]) + fabs(beta * y0[i])));
    }
    printf("%s %s\n", failures == before_failures ? "ok  " : "FAIL", what);
    memset(regions, 0, sizeof regions);
    CHECK(cudaFree(da));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    free(a);
    free(x);
    free(y0);
}

int main(void)
{
    struct sigaction crash = {.sa_sigaction = on_crash, .sa_flags = SA_SIGINFO};
    sigaction(SIGSEGV, &crash, NULL);
    sigaction(SIGBUS, &crash, NULL);
    setvbuf(stdout, NULL, _IONBF, 0);
    test_require_gpu();
    if (!shimblas_gpu_available()) {
        printf("FAIL: the device works but shimblas cannot use it\n");
        return 1;
    }
    size_t free_dev = 0, total_dev = 0;
    CHECK(cudaMemGetInfo(&free_dev, &total_dev));
    double host_gib = (double)sysconf(_SC_AVPHYS_PAGES) * sysconf(_SC_PAGESIZE) / 1073741824.0;
    /* the largest case: 4.3e9-element ILP64 sgemv (A, y and their host copies: 4 x 8 GiB on the
     * host, 2 x 8 GiB on the device) */
    if (host_gib < 48 || free_dev < ((size_t)24 << 30)) {
        printf("SKIP: %.0f GiB of host memory and %.0f GiB of device memory free; this needs 48 and 24\n", host_gib,
               free_dev / 1073741824.0);
        return TEST_SKIP_CODE;
    }
    shimblas_set_mode(SHIMBLAS_MODE_GPU); /* every call the GPU can take goes there */
    case_gemm(0);
    case_gemm(1);
    case_gemv();
    case_ilp64();
    printf("check_large: %d failures\n", failures);
    return failures != 0;
}
