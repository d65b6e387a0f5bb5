/* A stand-in for the CUDA driver (built as libcuda.so.1, without a soname, so CUDA runtimes never
 * take it for the real one): only what shimblas asks to tell device pointers from host ones.
 * Memory the test marks is "device memory" once the test says the driver is initialised; before
 * that every query fails with "not initialised", as the real driver's does. */
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

enum { SUCCESS = 0, NOT_INITIALIZED = 3, ATTRIBUTE_MEMORY_TYPE = 2, MEMORYTYPE_DEVICE = 2 };

static uintptr_t device_lo, device_hi;
static int initialised;
static unsigned long long queries;

EXPORT void fake_cuda_mark_device(const void *p, size_t bytes)
{
    device_lo = (uintptr_t)p;
    device_hi = (uintptr_t)p + bytes;
}

EXPORT void fake_cuda_initialise(void)
{
    initialised = 1;
}

EXPORT unsigned long long fake_cuda_queries(void)
{
    return queries;
}

EXPORT int cuPointerGetAttributes(unsigned count, int *attributes, void **data, unsigned long long ptr)
{
    queries++;
    if (!initialised)
        return NOT_INITIALIZED;
    for (unsigned i = 0; i < count; i++)
        if (attributes[i] == ATTRIBUTE_MEMORY_TYPE)
            *(unsigned *)data[i] = ptr >= device_lo && ptr < device_hi ? MEMORYTYPE_DEVICE : 0;
    return SUCCESS;
}
