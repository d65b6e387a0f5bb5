/* Device pieces shared by the SGEMM variants: the problem as the kernels see it, guarded element
 * access for either transpose, cp.async, and the alpha/beta epilogue. */
#ifndef SHIM_SGEMM_DEVICE_CUH
#define SHIM_SGEMM_DEVICE_CUH

#include <atomic>
#include <cstdint>
#include <cuda_runtime.h>

#include "dependent_launch.cuh"
#include "kernel_load.h"
#include "sgemm_kernels.h"
#include "smem_layout.h"

namespace sgemm {

/* Each operand is seen as an R x K matrix: op(A) is m x k and op(B)^T is n x k, so one loader
 * serves both. It is K-contiguous when element (r, l) sits at ptr[r*ld + l] (A with transa, B
 * without transb) and R-contiguous when it sits at ptr[l*ld + r]. Every kernel stages tiles
 * K-major in shared memory ([l][r]), whatever the storage, so the inner loops are shared. */
struct operand {
    const float *ptr;
    int64_t ld;
    int rows;
    int vec; /* ptr 16-byte aligned and ld % 4 == 0: four elements along the contiguous side can
                be moved as one 16-byte access when the first index is a multiple of 4 */
};

struct problem {
    int m, n, k;
    float alpha, beta;
    operand a, b;
    float *c;
    int64_t ldc;
    int c_vec; /* c 16-byte aligned and ldc % 4 == 0 */
};

inline bool aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

inline problem make_problem(const shim_sgemm_args *p)
{
    problem q;
    q.m = p->m;
    q.n = p->n;
    q.k = p->k;
    q.alpha = p->alpha;
    q.beta = p->beta;
    q.a = {p->a, p->lda, p->m, aligned16(p->a) && p->lda % 4 == 0};
    q.b = {p->b, p->ldb, p->n, aligned16(p->b) && p->ldb % 4 == 0};
    q.c = p->c;
    q.ldc = p->ldc;
    q.c_vec = aligned16(p->c) && p->ldc % 4 == 0;
    return q;
}

/* acc += a b^T: one k step of a lane's TM x TN block. The order is what lets consecutive FFMAs
 * share operands through the register reuse cache: 2x2 blocks (a_i, a_i+1) x (b_j, b_j+1), each
 * row of blocks walked in the opposite direction of the one before, so that every block shares
 * two of its four operands with the block before it. Each acc element still gets the same FMAs in
 * the same k order: the results are the bits of the row-by-row order. */
template <int TM, int TN>
__device__ __forceinline__ void outer_product(float (&acc)[TM][TN], const float (&a)[TM], const float (&b)[TN])
{
    static_assert(TM % 2 == 0 && TN % 2 == 0, "2x2 blocks");
#pragma unroll
    for (int ib = 0; ib < TM / 2; ++ib)
#pragma unroll
        for (int jj = 0; jj < TN / 2; ++jj) {
            const int i = 2 * ib, j = 2 * (ib % 2 ? TN / 2 - 1 - jj : jj);
            acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
            acc[i][j + 1] = fmaf(a[i], b[j + 1], acc[i][j + 1]);
            acc[i + 1][j] = fmaf(a[i + 1], b[j], acc[i + 1][j]);
            acc[i + 1][j + 1] = fmaf(a[i + 1], b[j + 1], acc[i + 1][j + 1]);
        }
}

template <bool KC> __device__ __forceinline__ const float *element_ptr(const operand &x, int r, int l)
{
    return KC ? x.ptr + (int64_t)r * x.ld + l : x.ptr + (int64_t)l * x.ld + r;
}

/* element (r, l), or 0 outside rows x kend: zeros in the k tail keep the dot products exact */
template <bool KC> __device__ __forceinline__ float load_or_zero(const operand &x, int r, int l, int kend)
{
    return (r < x.rows && l < kend) ? *element_ptr<KC>(x, r, l) : 0.0f;
}

/* C(i, j) := alpha*acc + beta*C(i, j); with beta == 0 C is not read, so NaN there cannot leak */
__device__ __forceinline__ void store_c1(const problem &p, int i, int j, float acc)
{
    float *dst = p.c + (int64_t)j * p.ldc + i;
    *dst = p.beta == 0.0f ? p.alpha * acc : fmaf(p.alpha, acc, p.beta * *dst);
}

/* rows i..i+3 of column j (j < n checked by the caller); 16-byte access when C allows it and all
 * four rows exist, element by element at the m edge */
__device__ __forceinline__ void store_c4(const problem &p, int i, int j, float a0, float a1, float a2,
                                         float a3)
{
    if (p.c_vec && i + 3 < p.m) {
        float4 *dst = reinterpret_cast<float4 *>(p.c + (int64_t)j * p.ldc + i);
        float4 r;
        if (p.beta == 0.0f) {
            r = make_float4(p.alpha * a0, p.alpha * a1, p.alpha * a2, p.alpha * a3);
        } else {
            float4 old = *dst;
            r = make_float4(fmaf(p.alpha, a0, p.beta * old.x), fmaf(p.alpha, a1, p.beta * old.y),
                            fmaf(p.alpha, a2, p.beta * old.z), fmaf(p.alpha, a3, p.beta * old.w));
        }
        *dst = r;
    } else {
        if (i < p.m)
            store_c1(p, i, j, a0);
        if (i + 1 < p.m)
            store_c1(p, i + 1, j, a1);
        if (i + 2 < p.m)
            store_c1(p, i + 2, j, a2);
        if (i + 3 < p.m)
            store_c1(p, i + 3, j, a3);
    }
}

/* a lane's N fragment values of one k step: N / 4 float4 from shared memory, STRIDE floats apart
 * (the pipelined and warptile kernels' layout) */
template <int N, int STRIDE> __device__ __forceinline__ void load_fragment(float (&f)[N], const float *src)
{
#pragma unroll
    for (int s = 0; s < N / 4; ++s) {
        const float4 v = *reinterpret_cast<const float4 *>(src + s * STRIDE);
        f[4 * s] = v.x;
        f[4 * s + 1] = v.y;
        f[4 * s + 2] = v.z;
        f[4 * s + 3] = v.w;
    }
}

/* C's tile at (m0, n0) := alpha acc + beta C, inside the matrix: a lane's TM x TN block is (TM/4) x
 * (TN/4) sub-blocks of 4x4 at a_frag + STRIDE_M sm, b_frag + STRIDE_N sn (the pipelined and
 * warptile kernels' layout) */
template <class CFG>
__device__ __forceinline__ void store_tile(const problem &p, int m0, int n0, int a_frag, int b_frag,
                                           const float (&acc)[CFG::TM][CFG::TN])
{
    constexpr int TM = CFG::TM, TN = CFG::TN;
#pragma unroll
    for (int sn = 0; sn < TN / 4; ++sn)
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
            const int j = n0 + b_frag + sn * CFG::STRIDE_N + jj;
            if (j < p.n) {
#pragma unroll
                for (int sm = 0; sm < TM / 4; ++sm)
                    store_c4(p, m0 + a_frag + sm * CFG::STRIDE_M, j, acc[4 * sm][4 * sn + jj],
                             acc[4 * sm + 1][4 * sn + jj], acc[4 * sm + 2][4 * sn + jj],
                             acc[4 * sm + 3][4 * sn + jj]);
            }
        }
}

/* tile rows a raster group walks down (-DSHIM_RASTER_GROUP=n builds another, for measuring) */
#ifndef SHIM_RASTER_GROUP
#define SHIM_RASTER_GROUP 8
#endif
constexpr int RASTER_GROUP = SHIM_RASTER_GROUP;

/* the kernel-side view of sgemm::plan (sgemm_internal.h) */
struct sched {
    int tiles_m, tiles_n;
    int dp_tiles;
    int splits;
    int kslice;
    int sk_blocks; /* stream-K: the blocks the tiles' k tiles are shared among (0: not stream-K) */
    int ktiles;    /* k tiles of a whole tile */
};

/* Blocks walk down GROUP tile rows before moving to the next tile column, so the blocks resident
 * together share a few strips of A and B in L2 instead of streaming all of B. */
template <int GROUP>
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int &tm, int &tn)
{
    int per_group = GROUP * tiles_n;
    int group = t / per_group;
    int first_m = group * GROUP;
    int rows = min(tiles_m - first_m, GROUP);
    int in_group = t - group * per_group;
    tm = first_m + in_group % rows;
    tn = in_group / rows;
}

/* Moves a W x BK tile of an operand (rows r0.., k from k0) through registers into shared memory
 * laid out [l][r] with row stride LDS. The work is cut in chunks of four elements along the
 * operand's contiguous side, so a warp's loads are coalesced for either transpose; a K-contiguous
 * chunk is transposed by its four scalar shared stores. VEC (operand vec-capable) loads a chunk
 * with one 16-byte access when it lies wholly inside the matrix, element by element otherwise.
 * load() and store() are split so that a kernel can keep the next tile's loads in flight while
 * it computes. */
template <bool KC, bool VEC, int W, int BK, int THREADS, int LDS> struct reg_tile_loader {
    static constexpr int CHUNKS = W * BK / 4;
    static constexpr int PER_THREAD = CHUNKS / THREADS;
    static_assert(CHUNKS % THREADS == 0 && W % 4 == 0 && BK % 4 == 0 && LDS % 4 == 0, "tile shape");
    float v[PER_THREAD][4];

    static __device__ __forceinline__ void chunk_at(int c, int &r, int &l)
    {
        if (KC) {
            r = c / (BK / 4);
            l = c % (BK / 4) * 4;
        } else {
            l = c / (W / 4);
            r = c % (W / 4) * 4;
        }
    }

    __device__ __forceinline__ void load(const operand &x, int r0, int k0, int kend, int tid)
    {
#pragma unroll
        for (int s = 0; s < PER_THREAD; ++s) {
            int r, l;
            chunk_at(tid + s * THREADS, r, l);
            const int gr = r0 + r, gl = k0 + l;
            if (KC) {
                if (VEC && gr < x.rows && gl + 3 < kend) {
                    float4 t = *reinterpret_cast<const float4 *>(element_ptr<true>(x, gr, gl));
                    v[s][0] = t.x;
                    v[s][1] = t.y;
                    v[s][2] = t.z;
                    v[s][3] = t.w;
                } else {
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        v[s][e] = load_or_zero<true>(x, gr, gl + e, kend);
                }
            } else {
                if (VEC && gl < kend && gr + 3 < x.rows) {
                    float4 t = *reinterpret_cast<const float4 *>(element_ptr<false>(x, gr, gl));
                    v[s][0] = t.x;
                    v[s][1] = t.y;
                    v[s][2] = t.z;
                    v[s][3] = t.w;
                } else {
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        v[s][e] = load_or_zero<false>(x, gr + e, gl, kend);
                }
            }
        }
    }

    __device__ __forceinline__ void store(float *tile, int tid) const
    {
#pragma unroll
        for (int s = 0; s < PER_THREAD; ++s) {
            int r, l;
            chunk_at(tid + s * THREADS, r, l);
            if (KC) {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    tile[(l + e) * LDS + r] = v[s][e];
            } else {
                *reinterpret_cast<float4 *>(tile + l * LDS + r) =
                    make_float4(v[s][0], v[s][1], v[s][2], v[s][3]);
            }
        }
    }
};

/* ---- cp.async: global -> shared without a register round trip ---------------------------------- */

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* 16 bytes, bypassing L1; bytes < 16 reads only that many and zero-fills the rest */
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, uint32_t bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes)
                 : "memory");
}

/* 16 bytes, or (copy false) 16 zero bytes without reading the source: the copy's ignore-src
 * predicate, one predicate where a source size would take integer work on every copy */
__device__ __forceinline__ void cp_async16_if(uint32_t dst, const void *src, bool copy)
{
    asm volatile("{\n .reg .pred skip;\n setp.eq.u32 skip, %2, 0;\n"
                 " cp.async.cg.shared.global [%0], [%1], 16, skip;\n}\n" ::"r"(dst),
                 "l"(src), "r"((uint32_t)copy)
                 : "memory");
}

/* 4 bytes through L1 (neighbouring threads' 4-byte copies share sectors); bytes 0 writes a zero */
__device__ __forceinline__ void cp_async4(uint32_t dst, const void *src, uint32_t bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int PENDING> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

/* Raises a kernel's dynamic shared memory limit to bytes and prefers the largest shared-memory
 * carveout, once per device (the attributes are a device's; shim_kernel_ready_smem remembers them).
 * Loads the kernel on the device first (shim_kernel_ready, kernel_load.h), so a caller launching it
 * needs no check of its own. */
template <typename Kernel> inline cudaError_t smem_attribute_once(Kernel *kernel, int bytes)
{
    return shim_kernel_ready_smem((const void *)kernel, bytes);
}
/* the same on device, the current one, for a caller that has asked for it already */
template <typename Kernel> inline cudaError_t smem_attribute_once(Kernel *kernel, int bytes, int device)
{
    return shim_kernel_ready_smem_on((const void *)kernel, bytes, device);
}

} // namespace sgemm

#endif
