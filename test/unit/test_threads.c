/* Sixteen threads call cblas_sgemm and cblas_sgemv at once, on host operands: rounds of varied
 * small and medium shapes in both layouts, with transposes, padded leading dimensions, strided
 * and negative increments, beta == 0 over a NaN output. Every result is checked against the
 * float64 reference, and the counters must account for every call: none failed on the GPU, none
 * lost. Needs no GPU; in SHIMBLAS_MODE=cpu every call must reach the CPU BLAS. (The GPU suite's
 * check_threads does the same with half the threads on device operands.) */
#include <stdio.h>
#include <string.h>

#include "blas_cases.h"
#include "reference.h"
#include "shimblas.h"

#define THREADS 16
#define ROUNDS 10

int main(void)
{
    uint64_t seed = test_seed();
    shimblas_mode mode = shimblas_get_mode();
    char expect = mode == SHIMBLAS_MODE_CPU ? 'c' : 0;
    if (mode == SHIMBLAS_MODE_GPU)
        expect = shimblas_gpu_available() ? 'g' : 'c'; /* gpu mode without a GPU runs on the CPU */
    printf("mode %s, %d threads x %d rounds on host operands\n",
           mode == SHIMBLAS_MODE_CPU ? "cpu" : mode == SHIMBLAS_MODE_GPU ? "gpu" : "auto", THREADS, ROUNDS);

    tc_worker workers[THREADS];
    for (int i = 0; i < THREADS; i++)
        workers[i] = (tc_worker){.id = i, .mem = &tc_host_memory, .seed = seed + 7919u * (uint64_t)(i + 1),
                                 .rounds = ROUNDS};
    shimblas_stats before, after;
    shimblas_get_stats(&before);
    tc_run_workers(workers, THREADS);
    shimblas_get_stats(&after);

    int cases = 0, failures = 0;
    long gemm = 0, gemv = 0;
    for (int i = 0; i < THREADS; i++) {
        gemm += workers[i].gemm_calls;
        gemv += workers[i].gemv_calls;
        cases += (int)(workers[i].gemm_calls + workers[i].gemv_calls);
        failures += (int)workers[i].failed;
    }
    if (failures == 0)
        printf("PASS: %d concurrent calls from %d threads, every result correct\n", cases, THREADS);
    cases += 2;
    failures += tc_check_counts("sgemm", &before.sgemm, &after.sgemm, gemm, 0, expect);
    failures += tc_check_counts("sgemv", &before.sgemv, &after.sgemv, gemv, 0, expect);
    printf("test_threads: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
