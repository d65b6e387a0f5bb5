/* Built when the library is configured without CUDA: there is never a usable GPU. */
#include <stddef.h>

#include "cost_model.h"
#include "gpu.h"

int shim_gpu_usable(const char **why)
{
    *why = "built without CUDA";
    return 0;
}

int shim_gpu_is_device_pointer(const void *p)
{
    (void)p;
    return 0;
}

int shim_gpu_sgemv(const shim_gemv_problem *p, const char **why)
{
    (void)p;
    *why = "built without CUDA";
    return -1;
}

int shim_gpu_sgemm(const shim_gemm_problem *p, const char **why)
{
    (void)p;
    *why = "built without CUDA";
    return -1;
}

const shim_cost_model *shim_cost_model_get(void)
{
    return NULL;
}
