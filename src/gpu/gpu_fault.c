#include "gpu_fault.h"

#include <stdatomic.h>

#include "config.h"
#include "fault.h"

int shim_fault_at_launch(int launch, cudaStream_t stream, const char **why)
{
    const shim_config *c = shim_config_get();
    switch (c->test_fail) {
    case SHIM_TEST_FAIL_GPU: {
        int device = -1;
        if (launch != c->test_fail_launch ||
            (c->test_fail_device >= 0 && (cudaGetDevice(&device) != cudaSuccess || device != c->test_fail_device)))
            return 0;
        *why = "failure injected by SHIMBLAS_TEST_FAIL";
        return -1;
    }
    case SHIM_TEST_FAIL_STICKY: {
        static atomic_int done;
        if (launch == 1 && !atomic_exchange(&done, 1))
            (void)shim_launch_device_fault(stream);
        return 0;
    }
    default: return 0;
    }
}
