/* Sixteen threads call cblas_sgemm and cblas_sgemv at once: the even ones on host operands
 * (malloc), the odd ones on device operands (cudaMalloc, results copied back), each making rounds
 * of varied small and medium shapes in both layouts, with transposes, padded leading dimensions,
 * strided and negative increments, beta == 0 over a NaN output. Every result is checked against
 * the float64 reference and nothing outside the output region may change. The counters must
 * account for every call: none failed on the GPU (gpu_failed), every device-operand call on the
 * GPU, and in SHIMBLAS_MODE=gpu every call on the GPU. Exit 77 without a usable GPU. */
#include <stdio.h>

#include "blas_cases.h"
#include "gpu_guard.h"
#include "gpu_memory.h"
#include "reference.h"
#include "shimblas.h"

#define THREADS 16
#define ROUNDS 10

int main(void)
{
    test_require_gpu();
    uint64_t seed = test_seed();
    shimblas_mode mode = shimblas_get_mode();
    printf("mode %s, %d threads x %d rounds, even threads on host operands, odd ones on device operands\n",
           mode == SHIMBLAS_MODE_CPU ? "cpu" : mode == SHIMBLAS_MODE_GPU ? "gpu" : "auto", THREADS, ROUNDS);
    if (mode == SHIMBLAS_MODE_CPU)
        printf("note: SHIMBLAS_MODE=cpu: host calls must run on the CPU, device ones still on the GPU\n");

    tc_worker workers[THREADS];
    for (int i = 0; i < THREADS; i++)
        workers[i] = (tc_worker){.id = i,
                                 .mem = i % 2 ? &tc_device_memory : &tc_host_memory,
                                 .seed = seed + 7919u * (uint64_t)(i + 1),
                                 .rounds = ROUNDS};
    shimblas_stats before, after;
    shimblas_get_stats(&before);
    tc_run_workers(workers, THREADS);
    shimblas_get_stats(&after);

    int cases = 0, failures = 0;
    long gemm = 0, gemv = 0, dev_gemm = 0, dev_gemv = 0;
    for (int i = 0; i < THREADS; i++) {
        gemm += workers[i].gemm_calls;
        gemv += workers[i].gemv_calls;
        if (workers[i].mem == &tc_device_memory) {
            dev_gemm += workers[i].gemm_calls;
            dev_gemv += workers[i].gemv_calls;
        }
        cases += (int)(workers[i].gemm_calls + workers[i].gemv_calls);
        failures += (int)workers[i].failed;
    }
    if (failures == 0)
        printf("PASS: %d concurrent calls from %d threads (%ld on device operands), every result correct\n", cases,
               THREADS, dev_gemm + dev_gemv);
    /* gpu mode: every call on the GPU; cpu mode: the host ones on the CPU; auto: either */
    char expect = mode == SHIMBLAS_MODE_GPU ? 'g' : 0;
    long cpu_only_gemm = mode == SHIMBLAS_MODE_CPU ? gemm - dev_gemm : 0;
    long cpu_only_gemv = mode == SHIMBLAS_MODE_CPU ? gemv - dev_gemv : 0;
    cases += 2;
    failures += tc_check_counts("sgemm", &before.sgemm, &after.sgemm, gemm, dev_gemm, expect);
    failures += tc_check_counts("sgemv", &before.sgemv, &after.sgemv, gemv, dev_gemv, expect);
    if (mode == SHIMBLAS_MODE_CPU) {
        cases++;
        if (after.sgemm.cpu - before.sgemm.cpu != (unsigned long long)cpu_only_gemm ||
            after.sgemv.cpu - before.sgemv.cpu != (unsigned long long)cpu_only_gemv) {
            printf("FAIL: SHIMBLAS_MODE=cpu: host calls not all on the CPU\n");
            failures++;
        }
    }
    printf("check_threads: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
