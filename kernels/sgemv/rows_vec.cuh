/* The rows form (y_j = alpha * dot(A[:,j], x) + beta * y_j) with aligned 16-byte loads: the kernel
 * template behind rows_float4, rows_multiN, rows_splitk and rows_splitk_smem.
 *
 * A column starts at any 4-byte boundary; q = its float offset in a 16-byte block. Block b of the
 * column covers elements 4b - q .. 4b - q + 3. Blocks wholly inside the column (the body: b in
 * [q > 0, (m + q) / 4)) are read with one 16-byte load each; the head block (q > 0) and the tail
 * block ((m + q) % 4 != 0) are read element by element. LPO lanes serve one output; a warp serves
 * 32/LPO outputs side by side and U such rounds at once, each lane issuing U*V 16-byte loads before
 * the first FMA. Blocks are split over gridDim.y pieces when the grid would otherwise not fill the
 * GPU; each piece's sum goes to the workspace and finish_splits adds them in piece order. */
#ifndef SHIM_SGEMV_ROWS_VEC_CUH
#define SHIM_SGEMV_ROWS_VEC_CUH

#include "sgemv_device.cuh"

namespace shim_sgemv {

/* where a lane reads x's block for column block b */
enum class xsrc {
    global_vec,    /* every column shares q and x's offset is q: one aligned 16-byte load */
    global_scalar, /* four 4-byte loads (x is small and L1-resident in the cases this serves) */
    smem,          /* x staged per chunk in shared memory, one copy per q in use */
};

struct rows_vec_params {
    const float *a;
    long long lda;
    const float *x;
    float *y;
    float *part; /* [n][splits] partial sums when gridDim.y > 1 */
    int m, n;
    float alpha, beta;
    int q_uniform;    /* the offset every column shares when lda % 4 == 0, else -1 */
    int bmax;         /* blocks per column, enough for every q that occurs */
    int split_blocks; /* blocks per split piece */
    int chunk_blocks; /* smem: blocks of x staged at once, a multiple of 32 */
    int copies;       /* smem: 1 (shifted by q_uniform) or 4 (copy k shifted by k floats) */
    long long tiles;  /* output tiles of kWarps * U * 32/LPO outputs */
};

/* x elements 4*c0 - shift + e for e < 4*(c1 - c0), per copy, zero outside x (never used there: the
 * body only covers whole blocks inside the column, whose x elements all exist) */
__device__ inline void stage_x(const rows_vec_params &P, float *xs, int c0, int c1)
{
    const int len = 4 * (c1 - c0), stride = 4 * P.chunk_blocks;
    for (int k = 0; k < P.copies; k++) {
        const int shift = P.copies == 1 ? P.q_uniform : k;
        const long long first = 4LL * c0 - shift;
        for (int e = threadIdx.x; e < len; e += kBlock) {
            const long long i = first + e;
            xs[k * stride + e] = i >= 0 && i < P.m ? load_x1(P.x + i) : 0.0f;
        }
    }
}

/* the head and tail blocks of column c that fall in piece [pb0, pb1), element by element, on the
 * lane that owns that block in the body's striding ((b - pb0) mod LPO). Loads are predicated, not
 * branched around, so all six are in flight together. */
template <int LPO>
__device__ inline float edge_blocks(const float *c, const float *x, int m, int q, int bl, int pb0, int pb1,
                                    int g)
{
    const bool head = q > 0 && pb0 == 0 && g == 0;
    /* when the head block also holds the column's end (m + q < 4) the head covers it */
    const bool tail = (((long long)m + q) & 3) != 0 && !(q > 0 && bl == 0) && bl >= pb0 && bl < pb1 &&
                      g == ((bl - pb0) & (LPO - 1));
    const long long first = 4LL * bl - q; /* tail elements first .. m - 1 */
    float ea[6], ex[6];
#pragma unroll
    for (int k = 0; k < 3; k++) {
        const bool in_head = head && k < 4 - q && k < m;
        ea[k] = in_head ? load_a1(c + k) : 0.0f;
        ex[k] = in_head ? load_x1(x + k) : 0.0f;
        const bool in_tail = tail && first + k < m;
        ea[3 + k] = in_tail ? load_a1(c + first + k) : 0.0f;
        ex[3 + k] = in_tail ? load_x1(x + first + k) : 0.0f;
    }
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 6; k++)
        acc = fmaf(ea[k], ex[k], acc);
    return acc;
}

/* Blocks per SM the register allocation must allow. Without it ptxas picked 40 registers and
 * spilled for the one-output form; these are the tightest bounds that compile without spills, and
 * each leaves 64-96 KB of loads in flight per SM. */
constexpr int rows_vec_min_blocks(int U, xsrc XS)
{
    return U == 1 ? 6 : XS == xsrc::global_scalar ? 4 : 5;
}

template <int LPO, int U, int V, xsrc XS>
__global__ void __launch_bounds__(kBlock, rows_vec_min_blocks(U, XS)) rows_vec_kernel(const rows_vec_params P)
{
    constexpr int kOutsPerWarp = 32 / LPO;
    constexpr int kTile = kWarps * U * kOutsPerWarp;
    extern __shared__ float4 xs4[];
    float *xs = reinterpret_cast<float *>(xs4);

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane & (LPO - 1), grp = lane / LPO;
    const int split = blockIdx.y, splits = gridDim.y;
    const int pb0 = split * P.split_blocks;
    const int pb1 = min(pb0 + P.split_blocks, P.bmax);
    if (splits > 1)
        allow_dependents(); /* finish_splits may be scheduled now; it waits for this grid */
    const int nchunks = XS == xsrc::smem ? (pb1 - pb0 + P.chunk_blocks - 1) / P.chunk_blocks : 1;
    if (XS == xsrc::smem && nchunks == 1) {
        stage_x(P, xs, pb0, pb1);
        __syncthreads();
    }
    /* global_vec: the shared x blocks and the body range every valid column has */
    const float4 *x4 = aligned_base(P.x, P.q_uniform < 0 ? 0 : P.q_uniform);
    const int xlo = max(pb0, P.q_uniform > 0 ? 1 : 0);
    const int xhi = min(pb1, (int)(((long long)P.m + (P.q_uniform < 0 ? 0 : P.q_uniform)) >> 2));

    for (long long tile = blockIdx.x; tile < P.tiles; tile += gridDim.x) {
        float acc[U];
        const float4 *col4[U];
        int q[U], lo[U], hi[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const long long j = tile * kTile + (long long)(warp * U + u) * kOutsPerWarp + grp;
            acc[u] = 0.0f;
            q[u] = 0;
            lo[u] = 0;
            hi[u] = 0;
            col4[u] = x4; /* never dereferenced while lo == hi */
            if (j < P.n) {
                const float *c = P.a + j * P.lda;
                const int qc = quad_offset(c);
                const int bl = (int)(((long long)P.m + qc) >> 2);
                q[u] = qc;
                col4[u] = aligned_base(c, qc);
                lo[u] = max(pb0, qc > 0 ? 1 : 0);
                hi[u] = min(pb1, bl);
                acc[u] = edge_blocks<LPO>(c, P.x, P.m, qc, bl, pb0, pb1, g);
            }
        }
        for (int ch = 0; ch < nchunks; ch++) {
            int c0 = pb0, c1 = pb1;
            if (XS == xsrc::smem) {
                c0 = pb0 + ch * P.chunk_blocks;
                c1 = min(c0 + P.chunk_blocks, pb1);
                if (nchunks > 1) {
                    __syncthreads(); /* every warp is done with the previous chunk */
                    stage_x(P, xs, c0, c1);
                    __syncthreads();
                }
            }
            /* a lane's batch of V blocks may run past the chunk: those belong to the next one */
            int hic[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                hic[u] = min(hi[u], c1);
            for (int b = c0 + g; b < c1; b += LPO * V) {
                float4 av[U][V];
                float4 xv[XS == xsrc::global_vec ? 1 : U][V];
#pragma unroll
                for (int u = 0; u < U; u++) {
#pragma unroll
                    for (int v = 0; v < V; v++) {
                        const int bb = b + v * LPO;
                        av[u][v] = bb >= lo[u] && bb < hic[u] ? load_a4(col4[u] + bb) : make_float4(0.f, 0.f, 0.f, 0.f);
                    }
                }
#pragma unroll
                for (int v = 0; v < V; v++) {
                    const int bb = b + v * LPO;
                    if (XS == xsrc::global_vec) {
                        xv[0][v] = bb >= xlo && bb < xhi ? load_x4(x4 + bb) : make_float4(0.f, 0.f, 0.f, 0.f);
                    } else {
#pragma unroll
                        for (int u = 0; u < U; u++) {
                            float4 t = make_float4(0.f, 0.f, 0.f, 0.f);
                            if (bb >= lo[u] && bb < hic[u]) {
                                if (XS == xsrc::smem) {
                                    const int copy = P.copies == 1 ? 0 : q[u];
                                    t = xs4[copy * P.chunk_blocks + (bb - c0)];
                                } else {
                                    const float *xp = P.x + (4LL * bb - q[u]);
                                    t = make_float4(load_x1(xp), load_x1(xp + 1), load_x1(xp + 2), load_x1(xp + 3));
                                }
                            }
                            xv[u][v] = t;
                        }
                    }
                }
#pragma unroll
                for (int u = 0; u < U; u++) {
#pragma unroll
                    for (int v = 0; v < V; v++) {
                        const int bb = b + v * LPO;
                        if (bb >= lo[u] && bb < hic[u])
                            acc[u] = dot4(av[u][v], xv[XS == xsrc::global_vec ? 0 : u][v], acc[u]);
                    }
                }
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const float s = group_sum<LPO>(acc[u]);
            const long long j = tile * kTile + (long long)(warp * U + u) * kOutsPerWarp + grp;
            if (g == 0 && j < P.n) {
                if (splits == 1)
                    store_result(P.y + j, s, P.alpha, P.beta);
                else
                    P.part[j * splits + split] = s;
            }
        }
    }
}

struct rows_vec_plan {
    rows_vec_params P;
    dim3 grid;
    size_t smem;
    xsrc xs;
    const void *kernel;
};

/* LPO lanes per output, U output rounds and V blocks per lane in flight; SMEM stages x in shared
 * memory (otherwise x is read through L1, 16 bytes at a time when its alignment allows) */
template <int LPO, int U, int V, bool SMEM>
struct rows_vec {
    static constexpr int kTile = kWarps * U * (32 / LPO);
    /* shared memory per block stays <= 32 KB so that 7-8 blocks fit an SM */
    static constexpr int kChunkOneCopy = 1024, kChunkFourCopies = 512;
    /* a split piece keeps at least this many 16-byte blocks (8 per lane) */
    static constexpr int kMinPieceBlocks = 256;

    static const void *kernel_for(xsrc xs)
    {
        if constexpr (SMEM) {
            (void)xs;
            return (const void *)rows_vec_kernel<LPO, U, V, xsrc::smem>;
        } else {
            if (xs == xsrc::global_vec)
                return (const void *)rows_vec_kernel<LPO, U, V, xsrc::global_vec>;
            return (const void *)rows_vec_kernel<LPO, U, V, xsrc::global_scalar>;
        }
    }

    static void plan(const shim_sgemv_args *p, bool allow_split, rows_vec_plan *r)
    {
        rows_vec_params &P = r->P;
        P.a = p->a;
        P.lda = p->lda;
        P.x = p->x;
        P.y = p->y;
        P.part = static_cast<float *>(p->work);
        P.m = p->m;
        P.n = p->n;
        P.alpha = p->alpha;
        P.beta = p->beta;
        P.q_uniform = p->lda % 4 == 0 ? quad_offset(p->a) : -1;
        P.bmax = (int)(((long long)p->m + (P.q_uniform >= 0 ? P.q_uniform + 3 : 6)) / 4);
        P.copies = P.q_uniform >= 0 ? 1 : 4;
        const int chunk_max = P.copies == 1 ? kChunkOneCopy : kChunkFourCopies;
        if (SMEM)
            r->xs = xsrc::smem;
        else if (P.q_uniform >= 0 && quad_offset(p->x) == P.q_uniform)
            r->xs = xsrc::global_vec;
        else
            r->xs = xsrc::global_scalar;
        r->kernel = kernel_for(r->xs);
        P.tiles = ceil_div(p->n, kTile);
        const long long resident = resident_blocks(r->kernel, SMEM ? (size_t)P.copies * chunk_max * 16 : 0);
        long long splits = 1;
        if (allow_split) {
            long long cap = P.bmax / kMinPieceBlocks;
            if (cap > 65535)
                cap = 65535;
            splits = resident / P.tiles;
            if (splits > cap)
                splits = cap;
            if (splits < 1)
                splits = 1;
        }
        P.split_blocks = (int)ceil_div(P.bmax, splits);
        splits = ceil_div(P.bmax, P.split_blocks); /* no empty pieces */
        P.chunk_blocks = 32;
        r->smem = 0;
        if (SMEM) {
            const long long nch = ceil_div(P.split_blocks, chunk_max);
            P.chunk_blocks = (int)(ceil_div(ceil_div(P.split_blocks, nch), 32) * 32);
            r->smem = (size_t)P.copies * P.chunk_blocks * 16;
        }
        r->grid = dim3(balanced_grid(P.tiles, resident / splits), (unsigned)splits, 1);
    }

    static size_t work(const shim_sgemv_args *p, bool allow_split)
    {
        rows_vec_plan r;
        plan(p, allow_split, &r);
        return r.grid.y > 1 ? (size_t)p->n * r.grid.y * sizeof(float) : 0;
    }

    static int splits(const shim_sgemv_args *p)
    {
        rows_vec_plan r;
        plan(p, true, &r);
        return (int)r.grid.y;
    }

    static cudaError_t launch(const shim_sgemv_args *p, bool allow_split)
    {
        rows_vec_plan r;
        plan(p, allow_split, &r);
        if (r.grid.y > 1 && (!p->work || p->work_bytes < (size_t)p->n * r.grid.y * sizeof(float)))
            return cudaErrorInvalidValue;
        SHIM_KERNEL_READY((SMEM                        ? rows_vec_kernel<LPO, U, V, xsrc::smem>
                           : r.xs == xsrc::global_vec ? rows_vec_kernel<LPO, U, V, xsrc::global_vec>
                                                      : rows_vec_kernel<LPO, U, V, xsrc::global_scalar>));
        if constexpr (SMEM)
            rows_vec_kernel<LPO, U, V, xsrc::smem><<<r.grid, kBlock, r.smem, p->stream>>>(r.P);
        else if (r.xs == xsrc::global_vec)
            rows_vec_kernel<LPO, U, V, xsrc::global_vec><<<r.grid, kBlock, 0, p->stream>>>(r.P);
        else
            rows_vec_kernel<LPO, U, V, xsrc::global_scalar><<<r.grid, kBlock, 0, p->stream>>>(r.P);
        if (r.grid.y > 1) {
            const cudaError_t err = cudaGetLastError();
            if (err != cudaSuccess)
                return err;
            return finish_splits(r.P.part, (int)r.grid.y, p->n, p->alpha, p->beta, p->y, p->stream);
        }
        return cudaGetLastError();
    }
};

} // namespace shim_sgemv

#endif
