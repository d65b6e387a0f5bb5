/* A CUDA program capturing a graph (cudaStreamBeginCapture, global mode: PyTorch's default) while
 * BLAS is called, from the capturing thread or from another: in global mode, CUDA refuses a
 * "potentially unsafe" call (allocating pinned memory, synchronising a stream, ...) from any thread
 * whose own mode is not relaxed, and the refusal invalidates the program's capture. The library's
 * calls are not the program's to capture (they run on the library's streams, at once); they must
 * run and leave the capture intact. Captured: a memset of a device buffer. During the capture:
 * sgemm and sgemv on host operands (staged through pinned buffers) and on device operands uploaded
 * before it, in gpu mode. After it: the capture ends without error, the graph runs and sets the
 * buffer, the calls are right against float64 and ran on the GPU. Three ways: the calling thread
 * capturing a non-blocking stream, another thread capturing one, and the calling thread capturing a
 * blocking stream (cudaStreamCreate: the legacy default stream may not be touched then).
 * With `first`: the program's first BLAS call comes during a capture of a blocking stream (the
 * library's setup, its probe, streams, staging buffers and kernels' first use, all then), the other
 * two ways after. With `first auto`: the same in auto mode with an empty cost-model cache, so the
 * first call measures the machine for the cost model during the capture; the model must come out
 * measured (not given up, which would keep every later call on the CPU). With SHIMBLAS_TEST_FAIL=gpu
 * in the environment: every GPU call fails and is recomputed on the CPU (device operands copied
 * down and the result copied back) during the captures, which must stay whole. Exit 77 without a
 * usable GPU. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_guard.h"
#include "reference.h"
#include "shimblas.h"

enum { M = 500, N = 400, K = 300, GV_M = 2000, GV_N = 1500, MARK_BYTES = 1 << 20 };

static int cases, failures;

static void verdict(int ok, const char *what)
{
    cases++;
    failures += !ok;
    printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
}

/* the operands of one round: host copies for the reference, device copies uploaded before the
 * capture, host outputs for the host-operand calls */
typedef struct round_data {
    float *a, *b, *c, *ga, *gx, *gy;
    float *da, *db, *dc, *dga, *dgx, *dgy;
    float *hc, *hgy; /* host-operand outputs */
    double *cref, *cbound, *yref, *ybound;
} round_data;

static float *upload(const float *h, size_t n)
{
    return test_device_copy(h, n);
}

static void prepare(round_data *r, uint64_t *rng)
{
    r->a = malloc(sizeof(float) * M * K), r->b = malloc(sizeof(float) * K * N), r->c = malloc(sizeof(float) * M * N);
    r->ga = malloc(sizeof(float) * GV_M * GV_N), r->gx = malloc(sizeof(float) * GV_M), r->gy = malloc(sizeof(float) * GV_N);
    test_fill(r->a, (size_t)M * K, rng), test_fill(r->b, (size_t)K * N, rng), test_fill(r->c, (size_t)M * N, rng);
    test_fill(r->ga, (size_t)GV_M * GV_N, rng), test_fill(r->gx, GV_M, rng), test_fill(r->gy, GV_N, rng);
    r->cref = malloc(sizeof(double) * M * N), r->cbound = malloc(sizeof(double) * M * N);
    r->yref = malloc(sizeof(double) * GV_N), r->ybound = malloc(sizeof(double) * GV_N);
    ref_sgemm(0, 1, M, N, K, 0.5f, r->a, M, r->b, N, 0.25f, r->c, M, r->cref, r->cbound);
    ref_sgemv(1, GV_M, GV_N, -1.0f, r->ga, GV_M, r->gx, 1, 0.5f, r->gy, 1, r->yref, r->ybound);
    r->da = upload(r->a, (size_t)M * K), r->db = upload(r->b, (size_t)K * N), r->dc = upload(r->c, (size_t)M * N);
    r->dga = upload(r->ga, (size_t)GV_M * GV_N), r->dgx = upload(r->gx, GV_M), r->dgy = upload(r->gy, GV_N);
    r->hc = malloc(sizeof(float) * M * N), r->hgy = malloc(sizeof(float) * GV_N);
    memcpy(r->hc, r->c, sizeof(float) * M * N);
    memcpy(r->hgy, r->gy, sizeof(float) * GV_N);
}

/* the calls made while the program captures: host operands, then device operands */
static void blas_calls(round_data *r)
{
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, M, N, K, 0.5f, r->a, M, r->b, N, 0.25f, r->hc, M);
    cblas_sgemv(CblasColMajor, CblasTrans, GV_M, GV_N, -1.0f, r->ga, GV_M, r->gx, 1, 0.5f, r->hgy, 1);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, M, N, K, 0.5f, r->da, M, r->db, N, 0.25f, r->dc, M);
    cblas_sgemv(CblasColMajor, CblasTrans, GV_M, GV_N, -1.0f, r->dga, GV_M, r->dgx, 1, 0.5f, r->dgy, 1);
}

static void judge(round_data *r, const char *how)
{
    char what[320];
    float *dc = malloc(sizeof(float) * M * N), dgy[GV_N];
    TEST_CUDA(cudaMemcpy(dc, r->dc, sizeof(float) * M * N, cudaMemcpyDeviceToHost));
    TEST_CUDA(cudaMemcpy(dgy, r->dgy, sizeof(float) * GV_N, cudaMemcpyDeviceToHost));
    snprintf(what, sizeof what, "%s: sgemm on host operands", how);
    verdict(test_compare(what, r->hc, 1, r->cref, r->cbound, (long)M * N, K, 2.0) == 0, what);
    snprintf(what, sizeof what, "%s: sgemv on host operands", how);
    verdict(test_compare(what, r->hgy, 1, r->yref, r->ybound, GV_N, GV_M, 2.0) == 0, what);
    snprintf(what, sizeof what, "%s: sgemm on device operands", how);
    verdict(test_compare(what, dc, 1, r->cref, r->cbound, (long)M * N, K, 2.0) == 0, what);
    snprintf(what, sizeof what, "%s: sgemv on device operands", how);
    verdict(test_compare(what, dgy, 1, r->yref, r->ybound, GV_N, GV_M, 2.0) == 0, what);
    free(dc);
    cudaFree(r->da), cudaFree(r->db), cudaFree(r->dc), cudaFree(r->dga), cudaFree(r->dgx), cudaFree(r->dgy);
    free(r->a), free(r->b), free(r->c), free(r->ga), free(r->gx), free(r->gy), free(r->hc), free(r->hgy);
    free(r->cref), free(r->cbound), free(r->yref), free(r->ybound);
}

/* the program's capture: begin, a memset of mark, (the calls), end; then the graph run */
typedef struct capture {
    cudaStream_t stream;
    unsigned char *mark;
    cudaGraph_t graph;
    cudaError_t begun, ended;
} capture;

static void capture_begin(capture *c)
{
    c->begun = cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeGlobal);
    if (c->begun == cudaSuccess)
        (void)cudaMemsetAsync(c->mark, 0x5a, MARK_BYTES, c->stream);
}

static void capture_end(capture *c)
{
    c->graph = NULL;
    c->ended = cudaStreamEndCapture(c->stream, &c->graph);
}

/* the capture ended whole and its graph does what was captured */
static void judge_capture(capture *c, const char *how)
{
    char what[320];
    snprintf(what, sizeof what, "%s: the program's capture began (%s) and ended (%s)", how,
             cudaGetErrorString(c->begun), cudaGetErrorString(c->ended));
    int ok = c->begun == cudaSuccess && c->ended == cudaSuccess && c->graph;
    verdict(ok, what);
    (void)cudaGetLastError();
    if (!ok)
        return;
    cudaGraphExec_t exec = NULL;
    TEST_CUDA(cudaMemset(c->mark, 0, MARK_BYTES));
    TEST_CUDA(cudaGraphInstantiate(&exec, c->graph, 0));
    TEST_CUDA(cudaGraphLaunch(exec, c->stream));
    TEST_CUDA(cudaStreamSynchronize(c->stream));
    unsigned char *h = malloc(MARK_BYTES);
    TEST_CUDA(cudaMemcpy(h, c->mark, MARK_BYTES, cudaMemcpyDeviceToHost));
    long wrong = 0;
    for (long i = 0; i < MARK_BYTES; i++)
        wrong += h[i] != 0x5a;
    snprintf(what, sizeof what, "%s: the captured graph ran (%ld bytes wrong)", how, wrong);
    verdict(wrong == 0, what);
    free(h);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(c->graph);
}

static pthread_barrier_t begun, called;

static void *capturing_thread(void *arg)
{
    capture *c = arg;
    capture_begin(c);
    pthread_barrier_wait(&begun);
    pthread_barrier_wait(&called); /* the main thread's BLAS calls */
    capture_end(c);
    return NULL;
}

int main(int argc, char **argv)
{
    const int first = argc > 1 && strcmp(argv[1], "first") == 0;
    const int automatic = first && argc > 2 && strcmp(argv[2], "auto") == 0;
    const char *fail = getenv("SHIMBLAS_TEST_FAIL");
    const int injected = fail && strcmp(fail, "gpu") == 0;
    char cache[] = "/tmp/shimblas-capture-XXXXXX";
    if (automatic) {
        /* an empty cache: the model is measured by the first call that asks for it */
        if (!mkdtemp(cache)) {
            printf("FAIL: no folder for the cost model's cache\n");
            return 1;
        }
        setenv("SHIMBLAS_CACHE_DIR", cache, 1);
    }
    test_require_gpu();
    uint64_t rng = test_seed();
    shimblas_set_mode(automatic ? SHIMBLAS_MODE_AUTO : SHIMBLAS_MODE_GPU);
    cudaStream_t nonblocking, blocking;
    TEST_CUDA(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
    TEST_CUDA(cudaStreamCreate(&blocking));
    unsigned char *mark = NULL;
    TEST_CUDA(cudaMalloc((void **)&mark, MARK_BYTES));
    if (!first) {
        /* a first call outside any capture: the library's own setup (its probe, streams, the
         * kernels' first use) is not what is checked below */
        round_data warm;
        prepare(&warm, &rng);
        blas_calls(&warm);
        judge(&warm, "before any capture");
    }

    shimblas_stats before, after;
    shimblas_get_stats(&before);
    const char *const hows[3] = {"the calling thread capturing a non-blocking stream",
                                 "another thread capturing a non-blocking stream",
                                 "the calling thread capturing a blocking stream"};
    const int order[2][3] = {{0, 1, 2}, {2, 0, 1}}; /* first: the blocking stream's capture first */
    for (int i = 0; i < 3; i++) {
        const int way = order[first][i];
        round_data r;
        prepare(&r, &rng);
        TEST_CUDA(cudaDeviceSynchronize());
        capture c = {way == 2 ? blocking : nonblocking, mark, NULL, cudaSuccess, cudaSuccess};
        if (way == 1) {
            pthread_t t;
            pthread_barrier_init(&begun, NULL, 2);
            pthread_barrier_init(&called, NULL, 2);
            pthread_create(&t, NULL, capturing_thread, &c);
            pthread_barrier_wait(&begun);
            blas_calls(&r);
            pthread_barrier_wait(&called);
            pthread_join(t, NULL);
        } else {
            capture_begin(&c);
            blas_calls(&r);
            capture_end(&c);
        }
        char how[200];
        snprintf(how, sizeof how, "%s%s", hows[way], first && i == 0 ? " (the program's first BLAS call)" : "");
        judge_capture(&c, how);
        judge(&r, how);
    }
    shimblas_get_stats(&after);
    char what[320];
    unsigned long long gemm_gpu = after.sgemm.gpu - before.sgemm.gpu, gemv_gpu = after.sgemv.gpu - before.sgemv.gpu;
    if (automatic) {
        /* auto mode: the host-operand calls go where the model says; the device-operand ones to
         * the GPU; the model itself measured, not given up */
        char report[8192];
        shimblas_report(report, sizeof report, 0);
        const char *line = strstr(report, "cost model: ");
        char shown[160] = "(no cost model line in the report)";
        if (line)
            snprintf(shown, sizeof shown, "%.*s", (int)strcspn(line, "\n"), line);
        snprintf(what, sizeof what, "the cost model measured during the capture: %s", shown);
        verdict(line && strncmp(line + strlen("cost model: "), "measured in", strlen("measured in")) == 0, what);
        snprintf(what, sizeof what, "the device-operand calls on the GPU (sgemm %llu, sgemv %llu, at least 3 each)",
                 gemm_gpu, gemv_gpu);
        verdict(gemm_gpu >= 3 && gemv_gpu >= 3, what);
        char path[sizeof cache + 64];
        snprintf(path, sizeof path, "rm -rf %s", cache);
        (void)system(path);
    } else if (injected) {
        unsigned long long gemm_failed = after.sgemm.gpu_failed - before.sgemm.gpu_failed,
                           gemv_failed = after.sgemv.gpu_failed - before.sgemv.gpu_failed;
        snprintf(what, sizeof what,
                 "every call during a capture failed on the GPU and was recomputed (sgemm %llu of 6, sgemv %llu of 6)",
                 gemm_failed, gemv_failed);
        verdict(gemm_failed == 6 && gemv_failed == 6, what);
    } else {
        snprintf(what, sizeof what, "every call during a capture on the GPU (sgemm %llu of 6, sgemv %llu of 6)",
                 gemm_gpu, gemv_gpu);
        verdict(gemm_gpu == 6 && gemv_gpu == 6, what);
    }
    printf("check_capture: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
