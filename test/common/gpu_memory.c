#include "gpu_memory.h"

#include <cuda.h>
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

/* ---- the device's stream-ordered pool (cudaMallocAsync) ---------------------------------------- */

static float *stream_pool_alloc(size_t floats)
{
    void *p = NULL;
    TEST_CUDA(cudaMallocAsync(&p, floats * sizeof(float), cudaStreamLegacy));
    TEST_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
    return p;
}

static void stream_pool_release(float *p)
{
    TEST_CUDA(cudaFreeAsync(p, cudaStreamLegacy));
    TEST_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
}

const tc_memory tc_stream_pool_memory = {"stream-ordered pool", stream_pool_alloc, stream_pool_release, device_put,
                                         device_get};

/* ---- a pool of the program's own, which keeps what is freed (release threshold: all) ----------- */

static cudaMemPool_t own_pool;

static float *own_pool_alloc(size_t floats)
{
    if (!own_pool) {
        int device = 0;
        TEST_CUDA(cudaGetDevice(&device));
        struct cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        TEST_CUDA(cudaMemPoolCreate(&own_pool, &props));
        unsigned long long keep = ~0ull;
        TEST_CUDA(cudaMemPoolSetAttribute(own_pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
    void *p = NULL;
    TEST_CUDA(cudaMallocFromPoolAsync(&p, floats * sizeof(float), own_pool, cudaStreamLegacy));
    TEST_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
    return p;
}

const tc_memory tc_own_pool_memory = {"a pool of the program's own", own_pool_alloc, stream_pool_release, device_put,
                                      device_get};

/* ---- the virtual memory API: two physical allocations mapped side by side ------------------------ */

typedef CUresult (*granularity_fn)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
typedef CUresult (*create_fn)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
typedef CUresult (*reserve_fn)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult (*map_fn)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
typedef CUresult (*set_access_fn)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
typedef CUresult (*unmap_fn)(CUdeviceptr, size_t);
typedef CUresult (*release_fn)(CUmemGenericAllocationHandle);
typedef CUresult (*address_free_fn)(CUdeviceptr, size_t);

static struct {
    granularity_fn granularity;
    create_fn create;
    reserve_fn reserve;
    map_fn map;
    set_access_fn set_access;
    unmap_fn unmap;
    release_fn release;
    address_free_fn address_free;
} vmm;

static void *driver_function(const char *name)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    TEST_CUDA(cudaGetDriverEntryPointByVersion(name, &fn, 10020, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !fn) {
        printf("FAIL: the driver has no %s\n", name);
        exit(1);
    }
    return fn;
}

#define TEST_CU(call)                                                                                          \
    do {                                                                                                       \
        CUresult r_ = (call);                                                                                  \
        if (r_ != CUDA_SUCCESS) {                                                                              \
            printf("FAIL: %s returned %d (%s:%d)\n", #call, (int)r_, __FILE__, __LINE__);                      \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)

/* each buffer: its own reservation of two chunks, each backed by its own physical allocation; the
 * buffer ends as far into the second chunk as it starts before it */
typedef struct mapping {
    float *p;
    CUdeviceptr base;
    size_t chunk;
    CUmemGenericAllocationHandle handles[2];
} mapping;

enum { MAX_MAPPINGS = 64 };
static mapping mappings[MAX_MAPPINGS];

static float *mapped_alloc(size_t floats)
{
    if (!vmm.create) {
        vmm.granularity = (granularity_fn)driver_function("cuMemGetAllocationGranularity");
        vmm.create = (create_fn)driver_function("cuMemCreate");
        vmm.reserve = (reserve_fn)driver_function("cuMemAddressReserve");
        vmm.map = (map_fn)driver_function("cuMemMap");
        vmm.set_access = (set_access_fn)driver_function("cuMemSetAccess");
        vmm.unmap = (unmap_fn)driver_function("cuMemUnmap");
        vmm.release = (release_fn)driver_function("cuMemRelease");
        vmm.address_free = (address_free_fn)driver_function("cuMemAddressFree");
    }
    int device = 0;
    TEST_CUDA(cudaGetDevice(&device));
    TEST_CUDA(cudaFree(NULL)); /* the primary context current */
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    TEST_CU(vmm.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t bytes = floats * sizeof(float) + 256;
    mapping *m = NULL;
    for (int i = 0; i < MAX_MAPPINGS && !m; i++)
        if (!mappings[i].p)
            m = &mappings[i];
    if (!m) {
        printf("FAIL: more than %d mapped buffers at once\n", MAX_MAPPINGS);
        exit(1);
    }
    m->chunk = (bytes + gran - 1) / gran * gran;
    TEST_CU(vmm.reserve(&m->base, 2 * m->chunk, 0, 0, 0));
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    for (int h = 0; h < 2; h++) {
        TEST_CU(vmm.create(&m->handles[h], m->chunk, &prop, 0));
        TEST_CU(vmm.map(m->base + h * m->chunk, m->chunk, 0, m->handles[h], 0));
    }
    TEST_CU(vmm.set_access(m->base, 2 * m->chunk, &access, 1));
    size_t before = (floats * sizeof(float) / 2 + 255) / 256 * 256;
    m->p = (float *)(uintptr_t)(m->base + m->chunk - before);
    return m->p;
}

static void mapped_release(float *p)
{
    for (int i = 0; i < MAX_MAPPINGS; i++)
        if (mappings[i].p == p) {
            mapping *m = &mappings[i];
            TEST_CUDA(cudaDeviceSynchronize());
            TEST_CU(vmm.unmap(m->base, 2 * m->chunk));
            TEST_CU(vmm.release(m->handles[0]));
            TEST_CU(vmm.release(m->handles[1]));
            TEST_CU(vmm.address_free(m->base, 2 * m->chunk));
            m->p = NULL;
            return;
        }
    printf("FAIL: a mapped buffer released twice\n");
    exit(1);
}

const tc_memory tc_mapped_memory = {"mapped by the virtual memory API", mapped_alloc, mapped_release, device_put,
                                    device_get};
