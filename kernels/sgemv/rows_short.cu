/* rows_shortV (V = 2, 4): short columns in the rows form (m up to kRowsShortMaxM<V>), with a whole
 * tile's loads in flight at once.
 *
 * When lda % 4 == 0 every column shares a's 16-byte phase q, so block b of every column covers
 * elements 4b - q .. 4b - q + 3 and the same blocks are whole (one 16-byte load) or partial (element
 * by element) in every column. LPO lanes serve one output, lane g of the group taking blocks
 * g, g + LPO, ..., g + LPO*(V-1): LPO is the smallest power of two with LPO * V >= the column's
 * blocks, so each lane has exactly V blocks per column and no loop. A warp serves U = 8 / V rounds of
 * 32/LPO neighbouring outputs, so each lane issues 8 independent 16-byte loads per tile and waits
 * once; with lda == m a round of the warp reads 32/LPO whole columns, one contiguous span.
 *
 * x: the lane's V blocks of x never change, so they are loaded once (4-byte loads, any alignment of
 * x, zeros outside 0 .. m-1) and stay in registers for every tile. The per-tile cost is one 64-bit
 * address per output, the loads, 4*U*V FMAs, a butterfly over LPO lanes and the store.
 *
 * lda % 4 != 0 (each column its own phase) runs the rows_multi kernel with two blocks per lane. */
#include "rows_vec.cuh"

namespace shim_sgemv {

struct rows_short_params {
    const float *a;
    long long lda; /* a multiple of 4 */
    const float *x;
    float *y;
    int m, n;
    float alpha, beta;
    int q;      /* the 16-byte phase every column shares */
    int blocks; /* blocks per column: (m + q + 3) / 4 */
    long long tiles;
};

/* 8 x 16-byte loads and V x 16 bytes of x per lane: under 80 registers, 3 blocks (24 warps, 96 KB
 * of loads in flight) per SM */
constexpr int kRowsShortMinBlocks = 3;

/* EDGES: some blocks of a column are partial (q > 0 or m % 4 != 0) */
template <int LPO, int V, bool EDGES>
__global__ void __launch_bounds__(kBlock, kRowsShortMinBlocks) rows_short_kernel(const rows_short_params P)
{
    constexpr int U = 8 / V;
    constexpr int kOutsPerWarp = 32 / LPO;
    constexpr int kTile = kWarps * U * kOutsPerWarp;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane & (LPO - 1), grp = lane / LPO;

    /* which of the lane's blocks exist: whole (bit v of whole) or partial (4-bit element mask) */
    unsigned whole = 0;
    int part_mask[V];
    float4 xr[V];
#pragma unroll
    for (int v = 0; v < V; v++) {
        const int b = g + LPO * v;
        const long long first = 4LL * b - P.q; /* element index of the block's first float */
        part_mask[v] = 0;
        xr[v] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (b >= P.blocks)
            continue;
        if (first >= 0 && first + 4 <= P.m) {
            whole |= 1u << v;
            const float *xp = P.x + first;
            xr[v] = make_float4(load_x1(xp), load_x1(xp + 1), load_x1(xp + 2), load_x1(xp + 3));
        } else {
            float e[4];
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const bool in = first + k >= 0 && first + k < P.m;
                part_mask[v] |= in ? 1 << k : 0;
                e[k] = in ? load_x1(P.x + first + k) : 0.0f;
            }
            xr[v] = make_float4(e[0], e[1], e[2], e[3]);
        }
    }
    const float4 *a4 = aligned_base(P.a, P.q);
    const long long lda4 = P.lda >> 2;

    for (long long tile = blockIdx.x; tile < P.tiles; tile += gridDim.x) {
        const long long j0 = tile * kTile + (long long)warp * U * kOutsPerWarp + grp;
        float4 av[U][V];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const long long j = j0 + (long long)u * kOutsPerWarp;
            const bool ok = j < P.n;
            const float4 *c4 = ok ? a4 + j * lda4 : a4;
#pragma unroll
            for (int v = 0; v < V; v++) {
                const int b = g + LPO * v;
                av[u][v] = ok && (whole >> v & 1u) ? load_a4(c4 + b) : make_float4(0.f, 0.f, 0.f, 0.f);
                if (EDGES && ok && part_mask[v]) {
                    /* the column's elements of a partial block; the rest of the block is another
                     * column, padding or outside the allocation, never read */
                    const float *cf = P.a + j * P.lda + (4LL * b - P.q);
                    const int pm = part_mask[v];
                    av[u][v] = make_float4(pm & 1 ? load_a1(cf) : 0.0f, pm & 2 ? load_a1(cf + 1) : 0.0f,
                                           pm & 4 ? load_a1(cf + 2) : 0.0f, pm & 8 ? load_a1(cf + 3) : 0.0f);
                }
            }
        }
        /* blocks that do not exist hold zeros in both av and xr: no NaN can come from them */
#pragma unroll
        for (int u = 0; u < U; u++) {
            float acc = 0.0f;
#pragma unroll
            for (int v = 0; v < V; v++)
                acc = dot4(av[u][v], xr[v], acc);
            acc = group_sum<LPO>(acc);
            const long long j = j0 + (long long)u * kOutsPerWarp;
            if (g == 0 && j < P.n)
                store_result(P.y + j, acc, P.alpha, P.beta);
        }
    }
}

template <int V>
constexpr int kRowsShortMaxM = 128 * V - 8; /* blocks <= 32 * V for every phase q */

template <int LPO, int V>
static cudaError_t rows_short_launch_lpo(const rows_short_params &P0, bool edges, cudaStream_t stream)
{
    constexpr int kTile = kWarps * (8 / V) * (32 / LPO);
    rows_short_params P = P0;
    P.tiles = ceil_div(P.n, kTile);
    const void *kernel = edges ? (const void *)rows_short_kernel<LPO, V, true> : (const void *)rows_short_kernel<LPO, V, false>;
    const unsigned grid = balanced_grid(P.tiles, resident_blocks(kernel, 0));
    SHIM_KERNEL_READY(kernel);
    if (edges)
        rows_short_kernel<LPO, V, true><<<grid, kBlock, 0, stream>>>(P);
    else
        rows_short_kernel<LPO, V, false><<<grid, kBlock, 0, stream>>>(P);
    return cudaGetLastError();
}

/* lda % 4 != 0: the rows_vec kernel (4-byte x loads, per-column phase) with two blocks per lane,
 * the mapping run 3 measured best for it */
static cudaError_t rows_short_unaligned(const shim_sgemv_args *p)
{
    const int blocks = (p->m + 6) / 4;
    if (blocks <= 2)
        return rows_multi_launch<32>(p);
    if (blocks <= 4)
        return rows_multi_launch<16>(p);
    if (blocks <= 8)
        return rows_multi_launch<8>(p);
    if (blocks <= 16)
        return rows_multi_launch<4>(p);
    if (blocks <= 32)
        return rows_multi_launch<2>(p);
    return rows_float4_launch(p);
}

template <int V>
int rows_short_accepts(const shim_sgemv_args *p)
{
    return p->trans == 1 && p->m >= 1 && p->n >= 1 && p->lda >= p->m && p->m <= kRowsShortMaxM<V>;
}

template <int V>
cudaError_t rows_short_launch(const shim_sgemv_args *p)
{
    if (!rows_short_accepts<V>(p))
        return cudaErrorInvalidValue;
    if (p->lda % 4 != 0)
        return rows_short_unaligned(p);
    rows_short_params P;
    P.a = p->a;
    P.lda = p->lda;
    P.x = p->x;
    P.y = p->y;
    P.m = p->m;
    P.n = p->n;
    P.alpha = p->alpha;
    P.beta = p->beta;
    P.q = quad_offset(p->a);
    P.blocks = (p->m + P.q + 3) / 4;
    P.tiles = 0;
    const bool edges = P.q != 0 || p->m % 4 != 0;
    int lpo = 1;
    while (lpo * V < P.blocks)
        lpo *= 2;
    switch (lpo) {
    case 1: return rows_short_launch_lpo<1, V>(P, edges, p->stream);
    case 2: return rows_short_launch_lpo<2, V>(P, edges, p->stream);
    case 4: return rows_short_launch_lpo<4, V>(P, edges, p->stream);
    case 8: return rows_short_launch_lpo<8, V>(P, edges, p->stream);
    case 16: return rows_short_launch_lpo<16, V>(P, edges, p->stream);
    default: return rows_short_launch_lpo<32, V>(P, edges, p->stream);
    }
}

template int rows_short_accepts<2>(const shim_sgemv_args *p);
template int rows_short_accepts<4>(const shim_sgemv_args *p);
template cudaError_t rows_short_launch<2>(const shim_sgemv_args *p);
template cudaError_t rows_short_launch<4>(const shim_sgemv_args *p);

} // namespace shim_sgemv
