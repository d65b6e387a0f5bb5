/* Loading the library's kernels on a device only with memory to spare (kernel_load.h). */
#include <atomic>
#include <cstdint>

#include "kernel_load.h"

namespace {

/* one slot a kernel, found by its address (open addressing, slots claimed once and kept): the
 * devices it is loaded on and those where its load failed, one bit each */
constexpr int SLOTS = 8192;
struct slot {
    std::atomic<const void *> kernel{nullptr};
    std::atomic<unsigned long long> loaded{0}, lost{0}, attributed{0};
};
slot slots[SLOTS];

thread_local unsigned long long passes, refusals;

slot *slot_of(const void *kernel)
{
    const uint64_t h = ((uint64_t)(uintptr_t)kernel >> 4) * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < SLOTS; ++i) {
        slot &s = slots[((h >> 51) + i) & (SLOTS - 1)];
        const void *held = s.kernel.load(std::memory_order_acquire);
        if (held == kernel)
            return &s;
        if (held == nullptr && (s.kernel.compare_exchange_strong(held, kernel, std::memory_order_acq_rel) ||
                                held == kernel))
            return &s;
    }
    return nullptr; /* (more kernels than slots: not tracked, launched as they come) */
}

cudaError_t refuse()
{
    ++refusals;
    return cudaErrorMemoryAllocation;
}

int current_device()
{
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) {
        (void)cudaGetLastError();
        device = 0;
    }
    return device;
}

/* shim_kernel_ready on device, the kernel's slot in *out (null where it is not tracked) */
cudaError_t ready_on(const void *kernel, int device, slot **out)
{
    const unsigned long long bit = 1ull << device;
    slot *s = *out = slot_of(kernel);
    if (!s || (s->loaded.load(std::memory_order_acquire) & bit)) {
        ++passes;
        return cudaSuccess;
    }
    if (s->lost.load(std::memory_order_acquire) & bit)
        return refuse();
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        (void)cudaGetLastError();
        return refuse();
    }
    if (free_bytes < SHIM_KERNEL_LOAD_HEADROOM)
        return refuse();
    cudaFunction_t function = nullptr;
    const cudaError_t err = cudaGetFuncBySymbol(&function, kernel); /* loads it on the current device */
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        if (err != cudaErrorMemoryAllocation)
            return err;
        s->lost.fetch_or(bit, std::memory_order_acq_rel);
        return refuse();
    }
    s->loaded.fetch_or(bit, std::memory_order_acq_rel);
    ++passes;
    return cudaSuccess;
}

} // namespace

extern "C" cudaError_t shim_kernel_ready(const void *kernel)
{
    slot *s = nullptr;
    return ready_on(kernel, current_device(), &s);
}

extern "C" int shim_kernel_device(void)
{
    return current_device();
}

extern "C" cudaError_t shim_kernel_ready_smem(const void *kernel, int bytes)
{
    return shim_kernel_ready_smem_on(kernel, bytes, current_device());
}

extern "C" cudaError_t shim_kernel_ready_smem_on(const void *kernel, int bytes, int device)
{
    if (device < 0 || device >= 64)
        device = 0;
    const unsigned long long bit = 1ull << device;
    slot *s = nullptr;
    cudaError_t err = ready_on(kernel, device, &s);
    if (err != cudaSuccess || (s && (s->attributed.load(std::memory_order_acquire) & bit)))
        return err;
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   (int)cudaSharedmemCarveoutMaxShared);
    if (err != cudaSuccess)
        (void)cudaGetLastError(); /* returned to the caller, not left for the next launch's check */
    else if (s)
        s->attributed.fetch_or(bit, std::memory_order_acq_rel);
    return err;
}

extern "C" void shim_kernel_forget_device(int device)
{
    if (device < 0 || device >= 64)
        return;
    const unsigned long long keep = ~(1ull << device);
    for (slot &s : slots) {
        s.loaded.fetch_and(keep, std::memory_order_acq_rel);
        s.lost.fetch_and(keep, std::memory_order_acq_rel);
        s.attributed.fetch_and(keep, std::memory_order_acq_rel);
    }
}

extern "C" unsigned long long shim_kernel_passes(void)
{
    return passes;
}

extern "C" unsigned long long shim_kernel_refusals(void)
{
    return refusals;
}
