/* Hopper's warpgroup MMA on TF32 operands, shared by the sm_90a variants (tf32_wgmma.cu,
 * tf32_presplit.cu, tf32_tma.cu): the shared-memory image layout the descriptors describe, the
 * descriptor, wgmma.mma_async m64nNk8 for N = 64 and 128 with both operands by descriptor, m64n128k8
 * with A from registers, and the setmaxnreg register moves.
 *   An image holds R rows (m for A, n for B) x 32 k of one operand, K-major without swizzle (TF32 has
 *   no other form): 8 x 4 "core matrices" of 128 contiguous bytes, the next along k 128 bytes on
 *   (the leading offset), the next 8 rows 1024 bytes on (the stride offset).
 * Compiled for sm_90a only (SHIM_WGMMA_DEVICE); elsewhere the MMA is empty and the variants do not
 * accept (wgmma_usable). */
#ifndef SHIM_WGMMA_TF32_CUH
#define SHIM_WGMMA_TF32_CUH

#include <cstdint>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SHIM_WGMMA_DEVICE 1
#endif

namespace sgemm {
namespace wg {

constexpr int BK = 32;                /* k of one image */
constexpr int CORE_K = 128;           /* bytes to the next core matrix along k (LBO) */
constexpr int CORE_N = BK / 4 * CORE_K; /* bytes to the next 8 rows (SBO) */

/* the byte offset of element (r, k) in an image */
__host__ __device__ __forceinline__ int image_offset(int r, int k)
{
    return r / 8 * CORE_N + k / 4 * CORE_K + r % 8 * 16 + k % 4 * 4;
}

/* a shared-memory matrix descriptor for the layout above. Its high word is the same for every
 * image, so only the low word (address and leading offset) is computed per use. */
__device__ __forceinline__ uint64_t descriptor(uint32_t addr)
{
    const uint32_t lo = (addr & 0x3FFFFu) >> 4 | (uint32_t)(CORE_K >> 4) << 16, hi = CORE_N >> 4;
    uint64_t d;
    asm("mov.b64 %0, {%1, %2};" : "=l"(d) : "r"(lo), "r"(hi));
    return d;
}

/* keeps the compiler from moving reads or writes of r across the asynchronous MMAs */
__device__ __forceinline__ void fence_register(float &r)
{
    asm volatile("" : "+f"(r)::"memory");
}

template <int N> __device__ __forceinline__ void fence_registers(float (&d)[N / 2])
{
#pragma unroll
    for (int i = 0; i < N / 2; ++i)
        fence_register(d[i]);
}

/* the 64 accumulators of an m64n128 MMA: their placeholders (%0..%63) and operands */
#define SHIM_WG_D64 \
    "%0, %1, %2, %3, %4, %5, %6, %7, " \
    "%8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, " \
    "%24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, " \
    "%40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, " \
    "%56, %57, %58, %59, %60, %61, %62, %63"
#define SHIM_WG_D64_OPERANDS(d) \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

/* d (+)= a b: a 64 x 8 TF32 tile of A and an 8 x N one of B, by descriptor; accumulate 0: d = a b.
 * Thread t of the warpgroup holds d[4 j + e] = D(16 (t / 32) + t % 32 / 4 + 8 (e >= 2),
 * 8 j + 2 (t % 4) + (e & 1)). */
template <int N> __device__ __forceinline__ void mma(float (&d)[N / 2], uint64_t a, uint64_t b, int accumulate);

template <> __device__ __forceinline__ void mma<64>(float (&d)[32], uint64_t a, uint64_t b, int accumulate)
{
#ifdef SHIM_WGMMA_DEVICE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, "
                 "%8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31"
                 "}, %32, %33, p, 1, 1;\n"
                 "}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(accumulate));
#endif
}

template <> __device__ __forceinline__ void mma<128>(float (&d)[64], uint64_t a, uint64_t b, int accumulate)
{
#ifdef SHIM_WGMMA_DEVICE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
                 SHIM_WG_D64
                 "}, %64, %65, p, 1, 1;\n"
                 "}\n"
                 : SHIM_WG_D64_OPERANDS(d)
                 : "l"(a), "l"(b), "r"(accumulate));
#endif
}

/* d (+)= a b with the 64 x 8 tile of A in registers: thread t holds a[e] = A(16 (t / 32) + t % 32 / 4
 * + 8 (e & 1), t % 4 + 4 (e >= 2)), the TF32 bits (the layout of mma.sync's A fragment, a warp per
 * 16 rows); B by descriptor, d as mma<128>. The registers of a must not change until the MMA has
 * completed (mma_wait). */
__device__ __forceinline__ void mma_rs128(float (&d)[64], const uint32_t (&a)[4], uint64_t b, int accumulate)
{
#ifdef SHIM_WGMMA_DEVICE
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
                 SHIM_WG_D64
                 "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n"
                 "}\n"
                 : SHIM_WG_D64_OPERANDS(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
#endif
}

/* the register budget of this warpgroup's threads from here on (setmaxnreg: a warp-specialised
 * kernel moves registers from the warpgroups that need few to the one that needs many) */
template <int N> __device__ __forceinline__ void grow_registers()
{
#ifdef SHIM_WGMMA_DEVICE
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
template <int N> __device__ __forceinline__ void shrink_registers()
{
#ifdef SHIM_WGMMA_DEVICE
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}

__device__ __forceinline__ void mma_fence()
{
#ifdef SHIM_WGMMA_DEVICE
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void mma_commit()
{
#ifdef SHIM_WGMMA_DEVICE
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void mma_wait_all()
{
#ifdef SHIM_WGMMA_DEVICE
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#endif
}

} // namespace wg
} // namespace sgemm

#endif
