/* Hopper's asynchronous bulk copies and the shared-memory barriers they complete on (sm_90):
 * mbarrier init / expect_tx / arrive / wait by phase parity, and cp.async.bulk of a contiguous run
 * of global memory into shared memory, and TMA copies of a tensor map's boxes. Used by the producer
 * warps of tf32_presplit.cu and tf32_tma.cu, and by bench/tf32_split_rate.cu. The callers compile them for sm_90 or later only. */
#ifndef SHIM_BULK_COPY_CUH
#define SHIM_BULK_COPY_CUH

#include <cstdint>

namespace sgemm {

__device__ __forceinline__ void mbar_init(uint32_t bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_expect(uint32_t bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* until the barrier's phase of this parity has completed */
__device__ __forceinline__ void mbar_wait(uint32_t bar, unsigned parity)
{
    unsigned done = 0;
    do {
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n"
                     "}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* bytes (a multiple of 16) from global src to shared dst, completing on bar */
__device__ __forceinline__ void bulk_copy(uint32_t dst, const void *src, unsigned bytes, uint32_t bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}

/* one box of a 2-D tensor map (tensor_map.h) at coordinates (inner, outer) into shared dst (1024-byte
 * aligned for the 128-byte swizzle), completing on bar; zeros where the box passes the edges */
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const void *map, int inner, int outer, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(inner), "r"(outer), "r"(bar)
                 : "memory");
}

/* makes the barriers' initialisation visible to the async proxy (the bulk copies) */
__device__ __forceinline__ void mbar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

} // namespace sgemm

#endif
