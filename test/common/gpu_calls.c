#include "gpu_calls.h"

#include "gpu_memory.h"

void tc_gpu_calls(tc_tally *t, uint64_t *rng, int expect)
{
    tc_gemm_counted(t, &tc_device_memory, (tc_gemm){0, 0, 0, 200, 150, 100, 1.0f, 0.0f, 3}, rng, tc_judge_gpu,
                    expect);
    tc_gemm_counted(t, &tc_device_memory, (tc_gemm){1, 1, 0, 300, 260, 700, -0.5f, 0.75f, 0}, rng,
                    tc_judge_gpu, expect);
    tc_gemv_counted(t, &tc_device_memory, (tc_gemv){0, 1, 310, 190, -2, 3, 0.75f, 0.5f, 1}, rng, tc_judge_gpu,
                    expect);
    tc_gemm_counted(t, &tc_host_memory, (tc_gemm){0, 0, 1, 900, 700, 500, 1.0f, 0.5f, 1}, rng, tc_judge_gpu,
                    expect);
    tc_gemv_counted(t, &tc_host_memory, (tc_gemv){1, 0, 3000, 1000, 1, -1, 1.0f, 0.0f, 0}, rng, tc_judge_gpu,
                    expect);
}
