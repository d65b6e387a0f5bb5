/* Built when the library is configured without CUDA: there is never a usable GPU, and device
 * memory (recognised all the same, src/gpu/memory_kind.c) cannot be served. */
#include <stddef.h>
#include <stdio.h>

#include "gpu.h"

static const char no_cuda[] = "built without CUDA";

int shim_gpu_usable(const char **why)
{
    *why = no_cuda;
    return 0;
}

int shim_gpu_host_device_count(void)
{
    return 1;
}

int shim_gpu_describe(char *out, size_t len, int probe)
{
    (void)probe;
    return snprintf(out, len, "not usable: %s", no_cuda);
}

int shim_gpu_sgemv(const shim_gemv_problem *p, const shim_operands *where, shim_written *written,
                   const char **why)
{
    (void)p, (void)where, (void)written;
    *why = no_cuda;
    return -1;
}

int shim_gpu_sgemm(const shim_gemm_problem *p, const shim_operands *where, shim_written *written,
                   const char **why)
{
    (void)p, (void)where, (void)written;
    *why = no_cuda;
    return -1;
}

void shim_gpu_enter(shim_gpu_scope *scope)
{
    scope->pushed = scope->mode_set = scope->mode = 0;
}

void shim_gpu_leave(const shim_gpu_scope *scope)
{
    (void)scope;
}

int shim_gpu_context_broken(void)
{
    return 0;
}

int shim_gpu_recover_sgemm(const shim_gemm_problem *p, const shim_operands *where, const shim_written *written,
                           shim_recompute_fn recompute, const char **why)
{
    (void)p, (void)where, (void)written, (void)recompute;
    *why = no_cuda;
    return -1;
}

int shim_gpu_recover_sgemv(const shim_gemv_problem *p, const shim_operands *where, const shim_written *written,
                           shim_recompute_fn recompute, const char **why)
{
    (void)p, (void)where, (void)written, (void)recompute;
    *why = no_cuda;
    return -1;
}
