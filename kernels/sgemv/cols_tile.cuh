/* The columns form (y_i = alpha * sum_j A[i,j] x_j + beta * y_i): the kernel template behind
 * cols_thread, cols_float4 and cols_splitn.
 *
 * A 256-thread block is TX x TY threads: TX along rows, each thread VEC consecutive rows, and TY
 * along columns, interleaved (thread ty takes columns js + ty, js + ty + TY, ...), so a warp reads
 * whole column segments, one contiguous span when lda == m. Each thread issues U columns' loads
 * (and their x values, held in registers) before the FMAs. The TY partial sums of a row are combined
 * by a butterfly inside the warp and then over the warps in index order in shared memory. With
 * gridDim.y > 1 the columns are split over blocks; partials go to the workspace, finish_splits
 * adds them in split order.
 *
 * VEC == 4 needs every column to share its 16-byte phase (lda % 4 == 0): row blocks then start at
 * row -q (q = a's float offset in its 16 bytes), and only the first and last row block of the matrix
 * can be partial; those two threads read element by element. */
#ifndef SHIM_SGEMV_COLS_TILE_CUH
#define SHIM_SGEMV_COLS_TILE_CUH

#include "sgemv_device.cuh"

namespace shim_sgemv {

struct cols_params {
    const float *a;
    long long lda;
    const float *x;
    float *y;
    float *part; /* [m][splits] partial sums when gridDim.y > 1 */
    int m, n;
    float alpha, beta;
    int q;                /* VEC == 4: row blocks start at row -q; 0 for VEC == 1 */
    long long row_blocks; /* blocks of VEC rows covering rows 0 .. m-1 */
    int tx_log2;          /* TX = 1 << tx_log2 threads along rows, TY = 256 / TX along columns */
    long long split_cols; /* columns per split */
};

template <int VEC>
struct cols_vec;
template <>
struct cols_vec<1> {
    typedef float type;
};
template <>
struct cols_vec<4> {
    typedef float4 type;
};

template <int VEC>
__device__ __forceinline__ void cols_fma(float (&acc)[VEC], typename cols_vec<VEC>::type a, float x);
template <>
__device__ __forceinline__ void cols_fma<1>(float (&acc)[1], float a, float x)
{
    acc[0] = fmaf(a, x, acc[0]);
}
template <>
__device__ __forceinline__ void cols_fma<4>(float (&acc)[4], float4 a, float x)
{
    acc[0] = fmaf(a.x, x, acc[0]);
    acc[1] = fmaf(a.y, x, acc[1]);
    acc[2] = fmaf(a.z, x, acc[2]);
    acc[3] = fmaf(a.w, x, acc[3]);
}

template <int VEC>
__device__ __forceinline__ typename cols_vec<VEC>::type cols_load_full(const float *p);
template <>
__device__ __forceinline__ float cols_load_full<1>(const float *p)
{
    return load_a1(p);
}
template <>
__device__ __forceinline__ float4 cols_load_full<4>(const float *p)
{
    return load_a4(reinterpret_cast<const float4 *>(p));
}

/* the tightest register bounds without spills: 6 blocks per SM for the scalar form, 4 for float4
 * (both keep 64 KB or more of loads in flight per SM) */
template <int VEC, int U>
__global__ void __launch_bounds__(kBlock, VEC == 4 ? 4 : 6) cols_kernel(const cols_params P)
{
    typedef typename cols_vec<VEC>::type vec_t;
    __shared__ float red[kBlock * VEC];
    const int TX = 1 << P.tx_log2, TY = kBlock >> P.tx_log2;
    const int tx = threadIdx.x & (TX - 1), ty = threadIdx.x >> P.tx_log2;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long b = (long long)blockIdx.x * TX + tx;
    const int split = blockIdx.y, splits = gridDim.y;
    const long long js = split * P.split_cols;
    const long long je = js + P.split_cols < P.n ? js + P.split_cols : P.n;
    if (splits > 1)
        allow_dependents(); /* finish_splits may be scheduled now; it waits for this grid */

    float acc[VEC];
#pragma unroll
    for (int c = 0; c < VEC; c++)
        acc[c] = 0.0f;
    if (b < P.row_blocks && js + ty < je) {
        const long long row0 = VEC * b - P.q;
        const int count = (int)((je - js - ty + TY - 1) / TY);
        const long long col_step = (long long)TY * P.lda;
        const float *xp = P.x + js + ty;
        const float *pa = P.a + (js + ty) * P.lda; /* column js + ty; row0 is added per load */
        const bool full = VEC == 1 || (row0 >= 0 && row0 + VEC <= P.m);
        if (full) {
            const float *pr = pa + row0;
            for (int k = 0; k < count; k += U) {
                vec_t av[U];
                float xv[U];
#pragma unroll
                for (int u = 0; u < U; u++) {
                    if (k + u < count) {
                        av[u] = cols_load_full<VEC>(pr + u * col_step);
                        xv[u] = load_x1(xp + (k + u) * TY);
                    } else {
                        av[u] = vec_t{};
                        xv[u] = 0.0f;
                    }
                }
#pragma unroll
                for (int u = 0; u < U; u++)
                    cols_fma<VEC>(acc, av[u], xv[u]);
                pr += U * col_step;
            }
        } else {
            /* the first or last row block, partly outside rows 0 .. m-1: element by element; the
             * accumulators of rows outside are never stored */
            for (int k = 0; k < count; k++) {
                const float xk = load_x1(xp + k * TY);
                const float *pc = pa + k * col_step;
#pragma unroll
                for (int c = 0; c < VEC; c++) {
                    const long long row = row0 + c;
                    if (row >= 0 && row < P.m)
                        acc[c] = fmaf(load_a1(pc + row), xk, acc[c]);
                }
            }
        }
    }

    /* threads of one warp with the same tx differ in lane by multiples of TX */
    if (TX < 32) {
        for (int off = TX; off < 32; off <<= 1) {
#pragma unroll
            for (int c = 0; c < VEC; c++)
                acc[c] += __shfl_xor_sync(0xffffffffu, acc[c], off);
        }
    }
    const int parts = TX < 32 ? kWarps : TY;
    if (TX >= 32 || lane < TX) {
        const int pidx = TX < 32 ? warp : ty;
#pragma unroll
        for (int c = 0; c < VEC; c++)
            red[(pidx * TX + tx) * VEC + c] = acc[c];
    }
    __syncthreads();
    for (int t = threadIdx.x; t < TX * VEC; t += kBlock) {
        const int txo = t / VEC, c = t % VEC;
        float s = red[txo * VEC + c];
        for (int pi = 1; pi < parts; pi++)
            s += red[(pi * TX + txo) * VEC + c];
        const long long row = (long long)VEC * blockIdx.x * TX - P.q + t;
        if (row >= 0 && row < P.m) {
            if (splits == 1)
                store_result(P.y + row, s, P.alpha, P.beta);
            else
                P.part[row * splits + split] = s;
        }
    }
}

struct cols_plan {
    cols_params P;
    dim3 grid;
};

template <int VEC>
struct cols_tile {
    /* columns per thread per batch: 4 x 16 B or 8 x 4 B of A in flight */
    static constexpr int U = VEC == 4 ? 4 : 8;

    /* loads the kernel on the current device (kernels/common/kernel_load.h) */
    static cudaError_t preload() { return shim_kernel_ready((const void *)cols_kernel<VEC, U>); }

    static void plan(const shim_sgemv_args *p, bool allow_split, cols_plan *r)
    {
        cols_params &P = r->P;
        P.a = p->a;
        P.lda = p->lda;
        P.x = p->x;
        P.y = p->y;
        P.part = static_cast<float *>(p->work);
        P.m = p->m;
        P.n = p->n;
        P.alpha = p->alpha;
        P.beta = p->beta;
        P.q = VEC == 4 ? quad_offset(p->a) : 0;
        P.row_blocks = VEC == 4 ? ((long long)p->m + P.q + 3) / 4 : p->m;
        const long long resident = resident_blocks((const void *)cols_kernel<VEC, U>, 0);
        /* a warp's worth of row blocks when there are that many, fewer for short columns so the
         * rest of the block spreads over columns */
        int txl = 0;
        while (txl < 5 && (1LL << txl) < P.row_blocks)
            txl++;
        /* tall matrices: more rows per block and more columns per thread (fewer partial sums to
         * combine) as long as the row tiles still make two waves */
        while (txl < 8 && ceil_div(P.row_blocks, 2LL << txl) >= 2 * resident)
            txl++;
        /* every column lane should keep at least 2U columns */
        while (txl < 8 && (long long)p->n < (long long)(kBlock >> txl) * 2 * U)
            txl++;
        P.tx_log2 = txl;
        const long long tiles = ceil_div(P.row_blocks, 1LL << txl);
        long long splits = 1;
        if (allow_split) {
            long long cap = (long long)p->n / ((long long)(kBlock >> txl) * 2 * U);
            if (cap > 65535)
                cap = 65535;
            splits = resident / tiles;
            if (splits > cap)
                splits = cap;
            if (splits < 1)
                splits = 1;
        }
        P.split_cols = ceil_div(p->n, splits);
        splits = ceil_div(p->n, P.split_cols); /* no empty splits */
        r->grid = dim3((unsigned)tiles, (unsigned)splits, 1);
    }

    static size_t work(const shim_sgemv_args *p, bool allow_split)
    {
        cols_plan r;
        plan(p, allow_split, &r);
        return r.grid.y > 1 ? (size_t)p->m * r.grid.y * sizeof(float) : 0;
    }

    static cudaError_t launch(const shim_sgemv_args *p, bool allow_split)
    {
        cols_plan r;
        plan(p, allow_split, &r);
        if (r.grid.y > 1 && (!p->work || p->work_bytes < (size_t)p->m * r.grid.y * sizeof(float)))
            return cudaErrorInvalidValue;
        SHIM_KERNEL_READY((cols_kernel<VEC, U>));
        cols_kernel<VEC, U><<<r.grid, kBlock, 0, p->stream>>>(r.P);
        if (r.grid.y > 1) {
            const cudaError_t err = cudaGetLastError();
            if (err != cudaSuccess)
                return err;
            return finish_splits(r.P.part, (int)r.grid.y, p->m, p->alpha, p->beta, p->y, p->stream);
        }
        return cudaGetLastError();
    }
};

/* 16-byte loads need every column in the same 16-byte phase */
inline bool cols_vec4_legal(const shim_sgemv_args *p)
{
    return p->lda % 4 == 0;
}

} // namespace shim_sgemv

#endif
