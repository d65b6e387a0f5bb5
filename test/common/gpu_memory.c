#include "gpu_memory.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_guard.h"

/* ---- device memory: copies through the legacy default stream, which the library's blocking
 * streams are ordered with ---------------------------------------------------------------------- */

static float *device_alloc(size_t floats)
{
    void *p = NULL;
    TEST_CUDA(cudaMalloc(&p, floats * sizeof(float)));
    return p;
}

static void device_release(float *p)
{
    TEST_CUDA(cudaFree(p));
}

static void device_put(float *dst, const float *src, size_t floats)
{
    TEST_CUDA(cudaMemcpy(dst, src, floats * sizeof(float), cudaMemcpyHostToDevice));
}

static void device_get(float *dst, const float *src, size_t floats)
{
    TEST_CUDA(cudaMemcpy(dst, src, floats * sizeof(float), cudaMemcpyDeviceToHost));
}

const tc_memory tc_device_memory = {"device", device_alloc, device_release, device_put, device_get};

/* ---- managed memory ----------------------------------------------------------------------------- */

static float *managed_alloc(size_t floats)
{
    void *p = NULL;
    TEST_CUDA(cudaMallocManaged(&p, floats * sizeof(float), cudaMemAttachGlobal));
    return p;
}

static void managed_copy(float *dst, const float *src, size_t floats)
{
    TEST_CUDA(cudaMemcpy(dst, src, floats * sizeof(float), cudaMemcpyDefault));
}

const tc_memory tc_managed_memory = {"managed", managed_alloc, device_release, managed_copy, managed_copy};

/* ---- pinned host memory ------------------------------------------------------------------------- */

static float *pinned_alloc(size_t floats)
{
    void *p = NULL;
    TEST_CUDA(cudaMallocHost(&p, floats * sizeof(float)));
    return p;
}

static void pinned_release(float *p)
{
    TEST_CUDA(cudaFreeHost(p));
}

static void host_copy(float *dst, const float *src, size_t floats)
{
    memcpy(dst, src, floats * sizeof(float));
}

const tc_memory tc_pinned_memory = {"pinned", pinned_alloc, pinned_release, host_copy, host_copy};

/* ---- malloc'd memory registered with cudaHostRegister ----------------------------------------- */

static float *registered_alloc(size_t floats)
{
    float *p = malloc(floats * sizeof(float));
    if (!p) {
        printf("FAIL: out of host memory (%zu floats)\n", floats);
        exit(1);
    }
    TEST_CUDA(cudaHostRegister(p, floats * sizeof(float), cudaHostRegisterDefault));
    return p;
}

static void registered_release(float *p)
{
    TEST_CUDA(cudaHostUnregister(p));
    free(p);
}

const tc_memory tc_registered_memory = {"registered", registered_alloc, registered_release, host_copy, host_copy};
