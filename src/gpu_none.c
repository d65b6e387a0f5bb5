/* Built when the library is configured without CUDA: there is never a usable GPU. */
#include "gpu.h"

int shim_gpu_usable(const char **why)
{
    *why = "built without CUDA";
    return 0;
}
