/* Several GPUs (skipped, 77, with fewer than two):
 *   1. host-data sgemm (8500 x 1100 x 700: five row bands of tiles, so that with two devices each
 *      first takes two, walked a tile column at a time; NN and TN) in gpu mode with
 *      SHIMBLAS_DEVICES=0 and with all devices, each run in a child process of its own: the outputs
 *      must be the same bits and within the float64 bound (that more than one device worked shows
 *      in case 2 and in bench/multi_gpu's times);
 *   2. the same with device 1 failing (SHIMBLAS_TEST_FAIL=gpu:1@1): both calls recovered (counted
 *      gpu_failed: device 1 took a band and failed) and within the bound;
 *   3. device operands on device 1 while device 0 is current: computed on the GPU, and device 0 is
 *      current afterwards; sgemv too;
 *   4. operands on two devices (A on 0, B and C on 1): computed on the CPU through host copies,
 *      correct, counted as a CPU call, no GPU failure;
 *   5. pinned host operands the program writes asynchronously (copies from device memory on the
 *      legacy stream, held back by a sleeping host function) and the NN call at once, spread over
 *      all devices: every device's share reads what the copies wrote (within the bound, on the GPU).
 * Usage: check_devices             (the parent: runs the children and compares)
 *        check_devices --child OUT  (one host-data run, C written to OUT)
 *        check_devices --pinned OUT (case 5's call, C written to OUT) */
#include <float.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "child_env.h"
#include "gpu_guard.h"
#include "shimblas.h"

#define CHECK(x) test_cuda_check((int)(x), #x, __FILE__, __LINE__)

/* M past 4 tiles of the host-data plan (2048): five row bands of 1792 rows to share (each of two
 * devices first takes two) */
enum { M = 8500, N = 1100, K = 700 };

static int failures;

static void fill(float *v, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        v[i] = (float)((double)(seed >> 11) * 0x1.0p-52 - 1.0);
    }
}

/* |c - op(A) op(B)| within 4 (k + 2) eps sum |a b| on a sample of rows and columns */
static int check(const char *what, int ta, int m, int n, int k, const float *a, const float *b, const float *c)
{
    int bad = 0;
    for (int j = 0; j < n; j += 37)
        for (int i = 0; i < m; i += 29) {
            double s = 0, g = 0;
            for (int l = 0; l < k; l++) {
                double t = (double)(ta ? a[l + (int64_t)i * k] : a[i + (int64_t)l * m]) * b[l + (int64_t)j * k];
                s += t;
                g += fabs(t);
            }
            if (!(fabs(c[i + (int64_t)j * m] - s) <= 4.0 * (k + 2) * FLT_EPSILON * g) && bad++ < 3)
                printf("  %s: c(%d,%d) = %.9g, float64 %.9g\n", what, i, j, c[i + (int64_t)j * m], s);
        }
    return bad;
}

static void verdict(const char *what, int bad)
{
    failures += bad != 0;
    printf("%s %s\n", bad ? "FAIL" : "ok  ", what);
}

/* the host-data runs: NN then TN into one file; prints the counters */
static int child(const char *out)
{
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N), *c = malloc(sizeof(float) * 2 * M * N);
    fill(a, (size_t)M * K, 1);
    fill(b, (size_t)K * N, 2);
    shimblas_set_mode(SHIMBLAS_MODE_GPU);
    for (int ta = 0; ta < 2; ta++) {
        memset(c + (size_t)ta * M * N, 0xff, sizeof(float) * M * N);
        cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, ta ? K : M, b, K,
                    0.0f, c + (size_t)ta * M * N, M);
    }
    shimblas_stats st;
    shimblas_get_stats(&st);
    printf("child: sgemm gpu %llu, cpu %llu, gpu_failed %llu\n", st.sgemm.gpu, st.sgemm.cpu, st.sgemm.gpu_failed);
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(c, sizeof(float), 2 * (size_t)M * N, f) != 2 * (size_t)M * N)
        return 1;
    fclose(f);
    return (int)(st.sgemm.gpu_failed * 10 + st.sgemm.gpu);
}

static void CUDART_CB hold_back(void *ms)
{
    usleep((useconds_t)(*(int *)ms) * 1000);
}

/* case 5: A, B, C pinned and NaN; the program queues (behind a sleep) their values' copies from
 * device memory on the legacy stream and calls at once; C written to out; the counters as child's */
static int pinned_child(const char *out)
{
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    fill(a, (size_t)M * K, 1);
    fill(b, (size_t)K * N, 2);
    shimblas_set_mode(SHIMBLAS_MODE_GPU);
    float *pa, *pb, *pc, *da, *db, *dc;
    CHECK(cudaMallocHost((void **)&pa, sizeof(float) * M * K));
    CHECK(cudaMallocHost((void **)&pb, sizeof(float) * K * N));
    CHECK(cudaMallocHost((void **)&pc, sizeof(float) * M * N));
    CHECK(cudaMalloc((void **)&da, sizeof(float) * M * K));
    CHECK(cudaMalloc((void **)&db, sizeof(float) * K * N));
    CHECK(cudaMalloc((void **)&dc, sizeof(float) * M * N));
    CHECK(cudaMemcpy(da, a, sizeof(float) * M * K, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, sizeof(float) * K * N, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dc, 0, sizeof(float) * M * N)); /* beta 1 below: C's queued value is 0 */
    /* a first call over all devices, so that the other devices' workers are ready (their contexts,
     * streams and buffers made) and the call below starts at once everywhere */
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, M, b, K, 0.0f, pc, M);
    memset(pa, 0xff, sizeof(float) * M * K);
    memset(pb, 0xff, sizeof(float) * K * N);
    memset(pc, 0xff, sizeof(float) * M * N);
    CHECK(cudaDeviceSynchronize());
    static int ms = 300;
    CHECK(cudaLaunchHostFunc(cudaStreamLegacy, hold_back, &ms));
    CHECK(cudaMemcpyAsync(pa, da, sizeof(float) * M * K, cudaMemcpyDeviceToHost, cudaStreamLegacy));
    CHECK(cudaMemcpyAsync(pb, db, sizeof(float) * K * N, cudaMemcpyDeviceToHost, cudaStreamLegacy));
    CHECK(cudaMemcpyAsync(pc, dc, sizeof(float) * M * N, cudaMemcpyDeviceToHost, cudaStreamLegacy));
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, pa, M, pb, K, 1.0f, pc, M);
    CHECK(cudaDeviceSynchronize());
    shimblas_stats st;
    shimblas_get_stats(&st);
    printf("pinned child: sgemm gpu %llu, cpu %llu, gpu_failed %llu\n", st.sgemm.gpu, st.sgemm.cpu, st.sgemm.gpu_failed);
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(pc, sizeof(float), (size_t)M * N, f) != (size_t)M * N)
        return 100;
    fclose(f);
    return (int)(st.sgemm.gpu_failed * 10 + st.sgemm.gpu);
}

/* runs this program as a child with the variables set; returns its exit status */
static int spawn_child_as(const char *self, const char *mode, const char *out, const char *devices, const char *fail)
{
    char dev_var[64], fail_var[64];
    snprintf(dev_var, sizeof dev_var, "SHIMBLAS_DEVICES=%s", devices);
    snprintf(fail_var, sizeof fail_var, "SHIMBLAS_TEST_FAIL=%s", fail ? fail : "");
    const char *vars[] = {dev_var, fail ? fail_var : "SHIMBLAS_TEST_FAIL", NULL};
    char **env = test_child_env(vars);
    char *argv[] = {(char *)self, (char *)mode, (char *)out, NULL};
    pid_t pid;
    int status = -1;
    fflush(stdout);
    if (posix_spawn(&pid, self, NULL, NULL, argv, env) == 0)
        waitpid(pid, &status, 0);
    free(env);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int spawn_child(const char *self, const char *out, const char *devices, const char *fail)
{
    return spawn_child_as(self, "--child", out, devices, fail);
}

static float *load(const char *path)
{
    float *c = malloc(sizeof(float) * 2 * M * N);
    FILE *f = fopen(path, "rb");
    if (!f || fread(c, sizeof(float), 2 * (size_t)M * N, f) != 2 * (size_t)M * N) {
        printf("FAIL: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    return c;
}

static void device_operands(void)
{
    const int m = 700, n = 500, k = 300;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * m * n);
    fill(a, (size_t)m * k, 3);
    fill(b, (size_t)k * n, 4);
    float *da, *db, *dc, *da0;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc((void **)&da, sizeof(float) * m * k));
    CHECK(cudaMalloc((void **)&db, sizeof(float) * k * n));
    CHECK(cudaMalloc((void **)&dc, sizeof(float) * m * n));
    CHECK(cudaMemcpy(da, a, sizeof(float) * m * k, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, sizeof(float) * k * n, cudaMemcpyHostToDevice));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc((void **)&da0, sizeof(float) * m * k));
    CHECK(cudaMemcpy(da0, a, sizeof(float) * m * k, cudaMemcpyHostToDevice));

    shimblas_stats before, after;
    shimblas_get_stats(&before);
    CHECK(cudaSetDevice(1));
    CHECK(cudaMemset(dc, 0xff, sizeof(float) * m * n));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(0));
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, da, m, db, k, 0.0f, dc, m);
    int current = -1;
    CHECK(cudaGetDevice(&current));
    CHECK(cudaMemcpy(c, dc, sizeof(float) * m * n, cudaMemcpyDeviceToHost));
    shimblas_get_stats(&after);
    int bad = check("device operands on device 1", 0, m, n, k, a, b, c);
    bad += current != 0;
    bad += after.sgemm.gpu != before.sgemm.gpu + 1;
    verdict("sgemm on device 1's operands with device 0 current: on the GPU, correct, device 0 current after", bad);

    /* sgemv on device 1's operands: y = A x with x = b's first column */
    shimblas_get_stats(&before);
    cblas_sgemv(CblasColMajor, CblasNoTrans, m, k, 1.0f, da, m, db, 1, 0.0f, dc, 1);
    CHECK(cudaGetDevice(&current));
    CHECK(cudaMemcpy(c, dc, sizeof(float) * m, cudaMemcpyDeviceToHost));
    shimblas_get_stats(&after);
    bad = check("sgemv on device 1", 0, m, 1, k, a, b, c) + (current != 0) + (after.sgemv.gpu != before.sgemv.gpu + 1);
    verdict("sgemv on device 1's operands with device 0 current: on the GPU, correct, device 0 current after", bad);

    /* A on device 0, B and C on device 1: the CPU, through host copies */
    shimblas_get_stats(&before);
    CHECK(cudaSetDevice(1));
    CHECK(cudaMemset(dc, 0xff, sizeof(float) * m * n));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(0));
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, da0, m, db, k, 0.0f, dc, m);
    CHECK(cudaGetDevice(&current));
    CHECK(cudaMemcpy(c, dc, sizeof(float) * m * n, cudaMemcpyDeviceToHost));
    shimblas_get_stats(&after);
    bad = check("operands on two devices", 0, m, n, k, a, b, c) + (current != 0);
    if (after.sgemm.cpu != before.sgemm.cpu + 1 || after.sgemm.gpu_failed != before.sgemm.gpu_failed) {
        printf("  operands on two devices: counted cpu +%llu, gpu_failed +%llu\n", after.sgemm.cpu - before.sgemm.cpu,
               after.sgemm.gpu_failed - before.sgemm.gpu_failed);
        bad++;
    }
    verdict("A on device 0, B and C on device 1: the CPU through host copies, correct, no GPU failure", bad);
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(da0);
    free(a), free(b), free(c);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--pinned") == 0)
        return pinned_child(argv[2]);
    test_require_gpu();
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 2) {
        printf("SKIP: %d device(s); this needs two\n", count);
        return TEST_SKIP_CODE;
    }
    printf("%d devices\n", count);
    char one[64], all[64], broken[64];
    snprintf(one, sizeof one, "/tmp/check_devices.%ld.one", (long)getpid());
    snprintf(all, sizeof all, "/tmp/check_devices.%ld.all", (long)getpid());
    snprintf(broken, sizeof broken, "/tmp/check_devices.%ld.broken", (long)getpid());
    int s1 = spawn_child(argv[0], one, "0", NULL), s2 = spawn_child(argv[0], all, "all", NULL);
    int s3 = spawn_child(argv[0], broken, "all", "gpu:1@1");
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    fill(a, (size_t)M * K, 1);
    fill(b, (size_t)K * N, 2);
    float *c1 = load(one), *c2 = load(all), *c3 = load(broken);
    verdict("host data on one device and on all: both calls on the GPU", s1 != 2 || s2 != 2);
    verdict("host data on one device and on all: the same bits", memcmp(c1, c2, sizeof(float) * 2 * (size_t)M * N) != 0);
    verdict("host data on all devices: within the float64 bound (NN and TN)",
            check("all NN", 0, M, N, K, a, b, c2) + check("all TN", 1, M, N, K, a, b, c2 + (size_t)M * N));
    /* device 1 fails at its first launch of each call: both calls recovered (2 gpu_failed) */
    verdict("device 1 failing: both calls recovered, within the bound",
            s3 != 20 || check("broken NN", 0, M, N, K, a, b, c3) + check("broken TN", 1, M, N, K, a, b, c3 + (size_t)M * N));
    unlink(one), unlink(all), unlink(broken);
    char pinned[64];
    snprintf(pinned, sizeof pinned, "/tmp/check_devices.%ld.pinned", (long)getpid());
    int s5 = spawn_child_as(argv[0], "--pinned", pinned, "all", NULL);
    float *c5 = malloc(sizeof(float) * M * N);
    FILE *f5 = fopen(pinned, "rb");
    int read5 = f5 && fread(c5, sizeof(float), (size_t)M * N, f5) == (size_t)M * N;
    if (f5)
        fclose(f5);
    unlink(pinned);
    if (s5 != 2)
        printf("  pinned operands: the child exited %d (2: two calls, on the GPU)\n", s5);
    verdict("pinned operands written on the legacy stream, the call at once over all devices: on the GPU, within "
            "the bound",
            s5 != 2 || !read5 || check("pinned NN", 0, M, N, K, a, b, c5));
    free(c5);
    device_operands();
    printf("check_devices: %d failures\n", failures);
    return failures != 0;
}
