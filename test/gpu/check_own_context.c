/* A CUDA program that makes a context of its own (the driver's cuCtxCreate, as PyCUDA's autoinit
 * does) and calls BLAS while it is current: its device operands live in that context, not in the
 * device's primary context the runtime (and so the library) uses otherwise. First calls in the
 * primary context; then, with the program's context current, device-operand and host-operand
 * calls (the device operands allocated in it); then the primary context current again, the same
 * calls; then the program's context current again, and destroyed while current, and the calls once
 * more. With the argument own-first the library's first calls are made in the program's context
 * (its state on the device made there), the primary context's after them. Each call checked against
 * float64 and by the counters: right and on the GPU; and after the calls the thread's current
 * context is the one the program set. Exit 77 without a usable GPU. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_cases.h"
#include "gpu_calls.h"
#include "gpu_guard.h"
#include "gpu_memory.h"
#include "reference.h"
#include "shimblas.h"

typedef CUresult (*ctx_create_fn)(CUcontext *, unsigned, CUdevice);
typedef CUresult (*ctx_context_fn)(CUcontext);
typedef CUresult (*ctx_current_fn)(CUcontext *);
static ctx_current_fn get_current;

/* the library leaves the thread's current context as the program set it */
static void still_current(tc_tally *t, CUcontext want, const char *which)
{
    CUcontext now = NULL;
    t->cases++;
    if (get_current(&now) != CUDA_SUCCESS || now != want) {
        printf("FAIL: after the calls the thread's current context is %p, not %s (%p)\n", (void *)now, which,
               (void *)want);
        t->failures++;
    }
}

static void *entry(const char *name, unsigned version)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
        printf("FAIL: the driver has no %s\n", name);
        return NULL;
    }
    return fn;
}


static void counts(const char *when)
{
    shimblas_stats s;
    shimblas_get_stats(&s);
    printf("%s: sgemm gpu %llu gpu_failed %llu; sgemv gpu %llu gpu_failed %llu\n", when, s.sgemm.gpu,
           s.sgemm.gpu_failed, s.sgemv.gpu, s.sgemv.gpu_failed);
}

static ctx_create_fn create;
static ctx_context_fn set_current, destroy;

static CUcontext make_own(void)
{
    CUcontext own = NULL;
    CUresult made = create(&own, 0, 0); /* current on this thread from here */
    if (made != CUDA_SUCCESS) {
        printf("FAIL: cuCtxCreate returned %d\n", (int)made);
        exit(1);
    }
    return own;
}

static CUcontext to_primary(void)
{
    CUcontext primary = NULL;
    TEST_CUDA(set_current(NULL));
    TEST_CUDA(cudaSetDevice(0)); /* the runtime binds the primary context */
    TEST_CUDA(cudaFree(NULL));
    TEST_CUDA(get_current(&primary));
    return primary;
}

int main(int argc, char **argv)
{
    const int own_first = argc > 1 && strcmp(argv[1], "own-first") == 0;
    test_require_gpu();
    create = (ctx_create_fn)entry("cuCtxCreate", 3020);
    set_current = (ctx_context_fn)entry("cuCtxSetCurrent", 4000);
    destroy = (ctx_context_fn)entry("cuCtxDestroy", 4000);
    get_current = (ctx_current_fn)entry("cuCtxGetCurrent", 4000);
    if (!create || !set_current || !destroy || !get_current)
        return 1;
    uint64_t rng = test_seed();
    tc_tally t = {0, 0};
    shimblas_set_mode(SHIMBLAS_MODE_GPU);
    CUcontext own = NULL, primary = NULL;
    if (own_first) {
        /* the library's first calls, and so its state on the device, in the program's context */
        own = make_own();
        tc_gpu_calls(&t, &rng, 'g');
        still_current(&t, own, "the program's own");
        counts("the program's context, first");
    } else {
        tc_gpu_calls(&t, &rng, 'g');
        counts("primary context");
        own = make_own();
        for (int round = 1; round <= 2; round++) {
            tc_gpu_calls(&t, &rng, 'g');
            still_current(&t, own, "the program's own");
        }
        counts("the program's context");
    }
    primary = to_primary();
    tc_gpu_calls(&t, &rng, 'g');
    still_current(&t, primary, "the primary one");
    counts("primary context");

    TEST_CUDA(set_current(own));
    tc_gpu_calls(&t, &rng, 'g');
    still_current(&t, own, "the program's own");
    TEST_CUDA(destroy(own)); /* current on this thread: the runtime binds the primary one next */
    tc_gpu_calls(&t, &rng, 'g');
    tc_gpu_calls(&t, &rng, 'g');
    counts("after the program's context was destroyed");

    printf("check_own_context%s: %d cases, %d failures\n", own_first ? " own-first" : "", t.cases, t.failures);
    return t.failures != 0;
}
