/* Device operands as the allocators of CUDA programs and frameworks hand them out, not only by
 * cudaMalloc: from the device's stream-ordered pool (cudaMallocAsync: PyTorch's and CuPy's async
 * allocators), from a pool of the program's own that keeps what is freed (cudaMemPoolCreate: RMM's
 * async resource), and mapped by the virtual memory API (cuMemCreate and cuMemMap: PyTorch's
 * expandable segments), each buffer straddling two physical allocations mapped side by side. The
 * library must recognise each as device memory (a host pointer to the CPU BLAS would crash it) and
 * compute on it on the GPU: fixed sgemm and sgemv forms (both layouts, transposes, padding, beta,
 * strided and negative increments) and random ones, each checked against float64, the untouched
 * padding and guards, and the counters (on the GPU). Exit 77 without a usable GPU. */
#include <stdio.h>

#include "blas_cases.h"
#include "gpu_guard.h"
#include "gpu_memory.h"
#include "reference.h"
#include "shimblas.h"

int main(void)
{
    test_require_gpu();
    uint64_t rng = test_seed();
    tc_tally t = {0, 0};
    const tc_memory *forms[] = {&tc_stream_pool_memory, &tc_own_pool_memory, &tc_mapped_memory};
    const tc_gemm gemms[] = {
        {0, 0, 0, 700, 500, 600, 0.75f, -0.5f, 0}, /* operands of 1.2-1.7 MB */
        {1, 1, 0, 333, 257, 129, 1.0f, 0.0f, 5},  /* row-major TN, padded, beta 0 */
        {0, 1, 1, 65, 1, 300, -1.0f, 1.0f, 0},    /* one column */
        {0, 0, 1, 1, 90, 70, 0.5f, 0.25f, 2},     /* one row */
    };
    const tc_gemv gemvs[] = {
        {0, 0, 2000, 1500, 1, 1, 1.0f, 0.0f, 0},  /* A of 12 MB */
        {0, 1, 3000, 700, -2, 3, -0.75f, 0.5f, 1},
        {1, 0, 129, 257, 1, -1, 0.5f, 1.0f, 3},
        {1, 1, 1, 400, 2, 1, 1.0f, 0.0f, 0},
    };
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        printf("-- %s\n", forms[f]->name);
        for (size_t i = 0; i < sizeof gemms / sizeof gemms[0]; i++)
            tc_gemm_counted(&t, forms[f], gemms[i], &rng, tc_judge_gpu, 'g');
        for (size_t i = 0; i < sizeof gemvs / sizeof gemvs[0]; i++)
            tc_gemv_counted(&t, forms[f], gemvs[i], &rng, tc_judge_gpu, 'g');
        for (int r = 0; r < 8; r++) {
            tc_gemm g;
            tc_gemv v;
            tc_random_gemm(&rng, &g);
            tc_random_gemv(&rng, &v);
            tc_gemm_counted(&t, forms[f], g, &rng, tc_judge_gpu, 'g');
            tc_gemv_counted(&t, forms[f], v, &rng, tc_judge_gpu, 'g');
        }
    }
    printf("check_memory_forms: %d cases, %d failures\n", t.cases, t.failures);
    return t.failures != 0;
}
