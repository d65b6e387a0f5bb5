/* CUDA initialised by the program after its first BLAS call. The program links the CUDA runtime
 * (statically, so no CUDA library is loaded at start) but calls no CUDA function until it has
 * made host-pointer calls; those run on the CPU BLAS without loading the driver. Only then does
 * it call cudaMalloc, which loads and initialises the driver, and pass device pointers: the
 * library must now see them as device memory (it must not have decided once and for all that
 * no driver means no device pointers), run them on the GPU and get them right. Then managed
 * memory, and host memory registered with cudaHostRegister, in auto and in gpu mode.
 * Exit 77 when cudaMalloc finds no usable GPU. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_cases.h"
#include "gpu_guard.h"
#include "gpu_memory.h"
#include "reference.h"
#include "shimblas.h"

static int cases, failures;
static uint64_t rng;

static int driver_loaded(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h)
        dlclose(h);
    return h != NULL;
}

static void verdict(int ok, const char *what)
{
    cases++;
    if (ok) {
        printf("PASS: %s\n", what);
    } else {
        printf("FAIL: %s\n", what);
        failures++;
    }
}

/* the side a call must have been counted on: 'g' the GPU, 'c' the CPU BLAS, 0 either (but never
 * failed on the GPU, trivial or rejected) */
static int counted(const shimblas_counts *b, const shimblas_counts *a, char side, char *why, size_t len)
{
    unsigned long long gpu = a->gpu - b->gpu, cpu = a->cpu - b->cpu, failed = a->gpu_failed - b->gpu_failed,
                       other = (a->trivial - b->trivial) + (a->errors - b->errors);
    if (failed || other || gpu + cpu != 1 || (side == 'g' && gpu != 1) || (side == 'c' && cpu != 1)) {
        snprintf(why, len, "counted gpu %llu, cpu %llu, gpu_failed %llu, trivial or error %llu; want %s", gpu, cpu,
                 failed, other, side == 'g' ? "on the GPU" : side == 'c' ? "on the CPU" : "gpu or cpu");
        return 0;
    }
    return 1;
}

static void gemm(const tc_memory *mem, tc_gemm g, char side)
{
    char what[160], label[224], why[160] = "";
    tc_gemm_describe(&g, what, sizeof what);
    snprintf(label, sizeof label, "%s on %s operands", what, mem->name);
    shimblas_stats b, a;
    shimblas_get_stats(&b);
    long bad = tc_gemm_case(mem, &g, &rng, label);
    shimblas_get_stats(&a);
    int ok = counted(&b.sgemm, &a.sgemm, side, why, sizeof why);
    char line[448];
    snprintf(line, sizeof line, "%s: %s%s%s", label, bad ? "wrong result" : "correct", ok ? "" : "; ", why);
    verdict(!bad && ok, line);
}

static void gemv(const tc_memory *mem, tc_gemv g, char side)
{
    char what[160], label[224], why[160] = "";
    tc_gemv_describe(&g, what, sizeof what);
    snprintf(label, sizeof label, "%s on %s operands", what, mem->name);
    shimblas_stats b, a;
    shimblas_get_stats(&b);
    long bad = tc_gemv_case(mem, &g, &rng, label);
    shimblas_get_stats(&a);
    int ok = counted(&b.sgemv, &a.sgemv, side, why, sizeof why);
    char line[448];
    snprintf(line, sizeof line, "%s: %s%s%s", label, bad ? "wrong result" : "correct", ok ? "" : "; ", why);
    verdict(!bad && ok, line);
}

int main(void)
{
    rng = test_seed();
    /* the premise: a statically linked CUDA runtime has loaded nothing yet */
    if (driver_loaded()) {
        printf("FAIL: libcuda.so.1 is loaded before the program called anything: this test cannot test "
               "what it is for (was a CUDA library preloaded?)\n");
        return 1;
    }
    shimblas_mode mode = shimblas_get_mode();

    /* 1. host calls before CUDA exists in the process; small ones in auto mode must not load it */
    gemm(&tc_host_memory, (tc_gemm){0, 0, 0, 64, 48, 40, 1.0f, 0.0f, 1}, mode == SHIMBLAS_MODE_GPU ? 0 : 'c');
    gemv(&tc_host_memory, (tc_gemv){1, 0, 50, 40, 1, -1, 0.5f, 1.0f, 2}, mode == SHIMBLAS_MODE_GPU ? 0 : 'c');
    if (mode != SHIMBLAS_MODE_GPU)
        verdict(!driver_loaded(), "small host calls (auto or cpu mode) left the CUDA driver unloaded");

    /* 2. the program's own first CUDA call loads the driver */
    void *probe = NULL;
    cudaError_t err = cudaMalloc(&probe, 256);
    if (err != cudaSuccess) {
        printf("SKIP: cudaMalloc failed (%s): no usable GPU\n", cudaGetErrorString(err));
        return TEST_SKIP_CODE;
    }
    TEST_CUDA(cudaFree(probe));
    test_require_gpu(); /* prints the device */
    verdict(driver_loaded(), "cudaMalloc loaded libcuda.so.1");

    /* 3. device operands now: on the GPU, in place, correct */
    gemm(&tc_device_memory, (tc_gemm){0, 0, 0, 200, 150, 100, 1.0f, 0.0f, 3}, 'g');
    gemm(&tc_device_memory, (tc_gemm){1, 1, 0, 77, 130, 65, -0.5f, 0.75f, 0}, 'g');
    gemv(&tc_device_memory, (tc_gemv){1, 0, 300, 200, 1, 1, 1.0f, 0.0f, 0}, 'g');
    gemv(&tc_device_memory, (tc_gemv){0, 1, 257, 129, -2, 3, 0.75f, 0.5f, 1}, 'g');

    /* 4. managed memory: the GPU too */
    gemm(&tc_managed_memory, (tc_gemm){0, 1, 1, 129, 65, 33, 1.0f, 0.5f, 2}, 'g');
    gemv(&tc_managed_memory, (tc_gemv){0, 0, 500, 70, 1, -1, -1.0f, 0.0f, 0}, 'g');

    /* 5. registered host memory: host memory, so in auto mode either side (here a shape large enough
     * for the cost model to be asked); in gpu mode the GPU, copied without the staging ring */
    gemm(&tc_registered_memory, (tc_gemm){0, 0, 0, 600, 500, 400, 1.0f, 0.0f, 1}, mode == SHIMBLAS_MODE_CPU ? 'c' : 0);
    gemv(&tc_registered_memory, (tc_gemv){1, 0, 3000, 1000, 1, 1, 1.0f, 0.0f, 0}, mode == SHIMBLAS_MODE_CPU ? 'c' : 0);
    shimblas_set_mode(SHIMBLAS_MODE_GPU);
    gemm(&tc_registered_memory, (tc_gemm){1, 0, 1, 300, 200, 100, 0.5f, 1.0f, 2}, 'g');
    gemv(&tc_registered_memory, (tc_gemv){0, 1, 400, 300, 2, -1, 1.0f, 0.0f, 1}, 'g');
    shimblas_set_mode(mode);

    printf("check_late_cuda: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
