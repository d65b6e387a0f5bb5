/* A CUDA program that fills its device before its first BLAS call, then frees it, then fills it
 * again. The library loads the kernels every call can fall back to at a thread's first use of a
 * device (kernels/common/kernel_load.h); here there is no memory to load them then, nor the
 * kernels the calls choose. Through the public API, on device operands, each case checked against
 * float64 and by the call counters:
 *   1. the device held (less free than the library's load headroom, room left for the operands)
 *      before any BLAS call: sgemm and sgemv are right, computed on the GPU or, failed there,
 *      recomputed on the CPU; never lost, never handed to the CPU BLAS as if host data;
 *   2. the memory free: the same forms run on the GPU (the kernels refused in 1 load now: none was
 *      lost), and the fallbacks load with them;
 *   3. held again: forms not run before (other transposes, strided vectors), whose kernels were
 *      never loaded, run on the GPU all the same, on the fallbacks loaded in 2. (Which sgemm
 *      variant a small shape gets is the selector's: meson runs this program a second time with
 *      SHIMBLAS_SGEMM_KERNEL naming a pipelined variant, whose kernels differ by transposes.)
 * Exit 77 without a usable GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "blas_cases.h"
#include "gpu_guard.h"
#include "gpu_memory.h"
#include "kernel_load.h"
#include "reference.h"
#include "shimblas.h"

static void hold(tc_tally *t, const char *when)
{
    /* below the library's headroom for loading a kernel, above what a case's operands take */
    test_hold_device_leaving(SHIM_KERNEL_LOAD_HEADROOM / 2);
    const unsigned long left = test_free_device_bytes();
    printf("%s: %.1f MiB of the device free\n", when, left / 1048576.0);
    const int held = left < SHIM_KERNEL_LOAD_HEADROOM && left >= SHIM_KERNEL_LOAD_HEADROOM / 4;
    tc_verdict(t, "the device held below the load headroom, a few MiB left for the operands", 0,
               held ? NULL : "free memory out of that range");
}

int main(void)
{
    test_require_gpu();
    uint64_t rng = test_seed();
    tc_tally t = {0, 0};
    shimblas_stats before, after;
    shimblas_get_stats(&before);

    /* 1. held before the first BLAS call */
    hold(&t, "held before the first call");
    const tc_gemm nn = {0, 0, 0, 200, 150, 100, 1.0f, 0.0f, 3},
                  nn_beta = {0, 0, 0, 77, 130, 65, -0.5f, 0.75f, 0};
    const tc_gemv n_form = {0, 0, 300, 200, 1, 1, 1.0f, 0.0f, 0},
                  n_beta = {0, 0, 257, 129, 1, 1, 0.75f, 0.5f, 1};
    tc_gemm_counted(&t, &tc_device_memory, nn, &rng, tc_judge_gpu, 'r');
    tc_gemm_counted(&t, &tc_device_memory, nn_beta, &rng, tc_judge_gpu, 'r');
    tc_gemv_counted(&t, &tc_device_memory, n_form, &rng, tc_judge_gpu, 'r');
    tc_gemv_counted(&t, &tc_device_memory, n_beta, &rng, tc_judge_gpu, 'r');
    shimblas_get_stats(&after);
    printf("held: sgemm gpu %llu, gpu_failed %llu; sgemv gpu %llu, gpu_failed %llu\n",
           after.sgemm.gpu - before.sgemm.gpu, after.sgemm.gpu_failed - before.sgemm.gpu_failed,
           after.sgemv.gpu - before.sgemv.gpu, after.sgemv.gpu_failed - before.sgemv.gpu_failed);

    /* 2. the memory free: the same forms on the GPU */
    test_release_held();
    printf("released: %.1f MiB free\n", test_free_device_bytes() / 1048576.0);
    tc_gemm_counted(&t, &tc_device_memory, nn, &rng, tc_judge_gpu, 'g');
    tc_gemm_counted(&t, &tc_device_memory, nn_beta, &rng, tc_judge_gpu, 'g');
    tc_gemv_counted(&t, &tc_device_memory, n_form, &rng, tc_judge_gpu, 'g');
    tc_gemv_counted(&t, &tc_device_memory, n_beta, &rng, tc_judge_gpu, 'g');

    /* 3. held again: forms never run (their kernels never loaded) on the fallbacks */
    hold(&t, "held again");
    tc_gemm_counted(&t, &tc_device_memory, (tc_gemm){0, 1, 1, 190, 140, 90, 1.0f, 0.0f, 2}, &rng,
                    tc_judge_gpu, 'g');
    tc_gemm_counted(&t, &tc_device_memory, (tc_gemm){0, 1, 0, 70, 120, 60, 0.5f, -1.0f, 0}, &rng,
                    tc_judge_gpu, 'g');
    tc_gemv_counted(&t, &tc_device_memory, (tc_gemv){0, 1, 310, 190, 1, 1, 1.0f, 0.0f, 0}, &rng, tc_judge_gpu,
                    'g');
    tc_gemv_counted(&t, &tc_device_memory, (tc_gemv){0, 1, 250, 140, -2, 3, 0.75f, 0.5f, 1}, &rng,
                    tc_judge_gpu, 'g');
    tc_gemv_counted(&t, &tc_device_memory, (tc_gemv){0, 0, 260, 150, 2, -1, -1.0f, 1.0f, 0}, &rng,
                    tc_judge_gpu, 'g');
    test_release_held();

    printf("check_held_first: %d cases, %d failures\n", t.cases, t.failures);
    return t.failures != 0;
}
