#include "gpu_guard.h"

#include <cuda_runtime_api.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* a crash names where it happened (frames as object+offset, for addr2line) and still fails */
static void crashed(int sig)
{
    void *frames[48];
    const char *what = sig == SIGSEGV ? "FAIL: segmentation fault; frames:\n" : "FAIL: fatal signal; frames:\n";
    ssize_t ignored = write(STDOUT_FILENO, what, strlen(what));
    (void)ignored;
    backtrace_symbols_fd(frames, backtrace(frames, 48), STDOUT_FILENO);
    signal(sig, SIG_DFL);
    raise(sig);
}

void test_require_gpu(void)
{
    /* a test's lines reach its log even where it dies */
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGSEGV, crashed);
    signal(SIGBUS, crashed);
    signal(SIGFPE, crashed);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        printf("SKIP: no usable CUDA device (%s)\n",
               err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
        exit(TEST_SKIP_CODE);
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        printf("device: %s, %d SMs, cc %d.%d\n", prop.name, prop.multiProcessorCount, prop.major,
               prop.minor);
}

void test_cuda_check(int err, const char *what, const char *file, int line)
{
    if (err != 0) {
        printf("FAIL: %s:%d: %s returned %d (%s)\n", file, line, what, err,
               cudaGetErrorString((cudaError_t)err));
        exit(1);
    }
}

float *test_device_copy(const float *h, unsigned long n)
{
    float *d;
    TEST_CUDA(cudaMalloc((void **)&d, sizeof(float) * n));
    TEST_CUDA(cudaMemcpy(d, h, sizeof(float) * n, cudaMemcpyHostToDevice));
    return d;
}

enum { MAX_HELD = 8192 };
static void *held[MAX_HELD];
static int nheld;

unsigned long test_hold_device(void)
{
    unsigned long bytes = 0;
    for (size_t piece = (size_t)1 << 30; piece >= ((size_t)1 << 20); piece /= 2)
        while (nheld < MAX_HELD && cudaMalloc(&held[nheld], piece) == cudaSuccess) {
            nheld++;
            bytes += piece;
        }
    (void)cudaGetLastError(); /* the refusals are the test's own */
    return bytes;
}

unsigned long test_free_device_bytes(void)
{
    size_t free_bytes = 0, total = 0;
    TEST_CUDA(cudaMemGetInfo(&free_bytes, &total));
    return free_bytes;
}

void test_release_held_until(unsigned long bytes)
{
    while (nheld > 0 && test_free_device_bytes() < bytes)
        TEST_CUDA(cudaFree(held[--nheld]));
}

void test_hold_device_leaving(unsigned long bytes)
{
    test_hold_device();
    test_release_held_until(bytes);
    /* the last piece given back may be larger than what was wanted: take 1 MiB pieces again */
    while (nheld < MAX_HELD && test_free_device_bytes() >= bytes + ((unsigned long)2 << 20) &&
           cudaMalloc(&held[nheld], (size_t)1 << 20) == cudaSuccess)
        nheld++;
    (void)cudaGetLastError();
}

void test_release_held(void)
{
    for (int i = 0; i < nheld; i++)
        TEST_CUDA(cudaFree(held[i]));
    nheld = 0;
}
