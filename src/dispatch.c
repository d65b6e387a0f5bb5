#include "dispatch.h"

#include "config.h"
#include "gpu.h"
#include "log.h"

enum shim_side shim_dispatch(enum shim_routine r, const char **note)
{
    (void)r;
    switch (shim_mode()) {
    case SHIMBLAS_MODE_CPU: return SHIM_CPU;
    case SHIMBLAS_MODE_GPU: {
        static atomic_int told;
        const char *why;
        if (!shim_gpu_usable(&why)) {
            shim_log_once(&told, "SHIMBLAS_MODE=gpu but no usable GPU (%s): running on the CPU", why);
            *note = "no usable GPU";
            return SHIM_CPU;
        }
        /* the GPU executor lands with the kernels; until then the CPU serves gpu mode too */
        *note = "no GPU executor in this build";
        return SHIM_CPU;
    }
    case SHIMBLAS_MODE_AUTO:
    default: return SHIM_CPU;
    }
}

__attribute__((visibility("default"))) int shimblas_gpu_available(void)
{
    const char *why;
    return shim_gpu_usable(&why);
}
