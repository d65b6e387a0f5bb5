/* The device context: probed on first GPU use, never in a constructor. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "gpu.h"

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int usable;
static char reason[160];
/* set in a child forked after CUDA was initialised: the child must not touch the parent's context */
static volatile int forked_after_init;

static void mark_child(void)
{
    forked_after_init = 1;
}

static void probe(void)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        snprintf(reason, sizeof reason, "%s", cudaGetErrorString(err));
        return;
    }
    if (count == 0) {
        snprintf(reason, sizeof reason, "no CUDA device");
        return;
    }
    pthread_atfork(NULL, NULL, mark_child);
    usable = 1;
}

int shim_gpu_usable(const char **why)
{
    pthread_once(&probe_once, probe);
    if (forked_after_init) {
        *why = "process forked after CUDA was initialised";
        return 0;
    }
    *why = reason;
    return usable;
}
