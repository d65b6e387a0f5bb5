/* The pipelined kernels' shared parts (pipelined.cu: data-parallel and split-K plans; streamk.cu:
 * stream-K plans): the tile configurations, the asynchronous loaders, one tile's product through the
 * cp.async stages, the stores, and the launch tables both files build from their kernel.
 *
 * The pipeline: warp-tiled like rung 6, but global -> shared copies are asynchronous and STAGES - 1
 * k tiles ahead of the compute, so the global latency is hidden without registers holding the data
 * in flight; 16-byte copies (.cg, L2 only) move the operands whose contiguous side is M or N and
 * which are 16-byte capable, 4-byte copies (.ca) the others, element by element, which also
 * transposes a K-contiguous operand into the K-major layout; where such an operand is 16-byte
 * capable and it pays (k16_operands), it comes by 16-byte copies and is transposed in shared memory
 * a k tile ahead, among the FFMAs (LOAD_K16). */
#ifndef SHIM_PIPELINED_TILE_CUH
#define SHIM_PIPELINED_TILE_CUH

#include <algorithm>
#include <array>
#include <atomic>
#include <tuple>
#include <type_traits>
#include <utility>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

/* how an operand reaches shared memory: R-contiguous by 16- or 4-byte copies; K-contiguous by 4-byte
 * transposing copies (K4), or, where 16-byte capable, by 16-byte copies of four consecutive k of a
 * row into a K-major stage that the block transposes in shared memory a k tile ahead (K16) */
enum load_mode { LOAD_R16 = 0, LOAD_R4 = 1, LOAD_K4 = 2, LOAD_K16 = 3, LOAD_MODES = 4 };

template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int MIN_BLOCKS_, bool K16_ = true,
          int KG_ = 1, bool SPLIT_ = true>
struct pipe_config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
    static constexpr int STAGES = STAGES_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr bool K16 = K16_; /* the K16 load mode may run (it spills in some configurations) */
    /* built with the split-K path (a K slice's partial to the workspace); without it the kernel
     * runs data-parallel plans only. The two 8-warp k8 configurations, planned by name only, leave
     * it out: with it, ptxas assigned their k loops' registers so that 52-58 % of the FFMAs read
     * two sources from one register bank, without it 11 % (bench/sass_loop.py) */
    static constexpr bool SPLIT = SPLIT_;
    /* k groups: KG sets of warps each cover the whole tile, group g taking steps [g BK/KG,
     * (g+1) BK/KG) of every k tile; their sums are added in shared memory at the end (group 0's,
     * then 1's, ...). More warps an SM on a problem of one wave, without a second pass over C. */
    static constexpr int KG = KG_, KSTEPS = BK / KG;
    /* K4 copies by lanes along k (async_loader's KL): measured faster only with k groups */
    static constexpr bool K4_LANES = KG > 1;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN, WARPS_TILE = WARPS_M * WARPS_N;
    static constexpr int THREADS = 32 * WARPS_TILE * KG;
    static constexpr int LANES_M = WM / TM, LANES_N = WN / TN;
    /* a lane's TM x TN block is (TM/4) x (TN/4) sub-blocks of 4x4, STRIDE apart, so that the
     * lanes of a warp read consecutive float4 from shared memory */
    static constexpr int STRIDE_M = 4 * LANES_M, STRIDE_N = 4 * LANES_N;
    /* +4 floats per row: rows stay 16-byte aligned and the 4-byte transposing copies of a warp
     * fall in (nearly) distinct banks */
    static constexpr int LDA_S = BM + 4, LDB_S = BN + 4;
    static constexpr int A_STAGE = BK * LDA_S, B_STAGE = BK * LDB_S; /* floats */
    static constexpr size_t SMEM = sizeof(float) * STAGES * (A_STAGE + B_STAGE);
    static_assert(LANES_M * LANES_N == 32, "a warp's lanes tile its warp tile");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0 && BK >= 2 && STAGES >= 2, "shape");
    /* a group's steps come in pairs (the fragments' double buffer); the K16 transpose is spread
     * over a whole tile's steps, so k groups run without it */
    static_assert(BK % KG == 0 && KSTEPS % 2 == 0 && (KG == 1 || !K16), "k groups");
};

/* a thread's N rows of a K-contiguous operand, STEP apart from row r0 + line: where each row's
 * chunk starts (at k = kbegin + lpos), and bit s set when row s lies inside the matrix. A row past
 * the matrix reads a row inside it instead: what it brings only reaches outputs past the matrix,
 * which are never stored, so copies of k inside the matrix need no row test. Which row: the last
 * one, or with SPREAD the row a tile (N x STEP rows) above, so that the rows past the matrix do not
 * all read one address (row 0 where the matrix is one tile high).
 * SPREAD is for the 4-byte copies of k tiles of 8 (async_loader), where a warp's 32 lanes take 16
 * rows: with the last row, every lane of a warp whose rows are all past the matrix copies from one
 * 32-byte sector, and one wave with edge tiles of 96 such rows of 128 ran 4-7 % slower than
 * with none (TT 1952x2048x2048 on 128x256x8, NN 2048x1952x2048 on 256x128x8; H200, 2026-11-29,
 * docs/notes/sgemm.md, "Rows past the matrix"). Elsewhere the last row ran as fast as spread rows,
 * and the other kernels' code stays as it was. */
template <int N, int STEP, bool SPREAD = false>
__device__ __forceinline__ unsigned k_rows(const operand &x, int r0, int line, int kbegin, int lpos,
                                           const float *(&src)[N])
{
    static_assert(N <= 32, "row mask width");
    unsigned ok = 0;
#pragma unroll
    for (int s = 0; s < N; ++s) {
        const int r = r0 + line + s * STEP;
        const int row = SPREAD ? (r < x.rows ? r : max(r - N * STEP, 0)) : min(r, x.rows - 1);
        src[s] = x.ptr + (int64_t)row * x.ld + kbegin + lpos;
        ok |= (unsigned)(r < x.rows) << s;
    }
    return ok;
}

/* per-thread state for the asynchronous copies of one operand's W x BK tiles. Work is cut in
 * chunks of four elements along the contiguous side, so a warp's copies are coalesced: R modes
 * copy four consecutive rows at one l. With BK 16 a LOAD_K4 chunk pos of a row holds
 * l = 2 pos + {0, 1, 8, 9}: a warp's e-th copies then write l = {e', e'+2, e'+4, e'+6} of 8 rows,
 * whose banks (4 l + row, with LDS = 4 mod 32) are all distinct, where four consecutive l would
 * collide two by two. With BK 8 a warp covers 16 rows x 2 chunks, and four consecutive l per
 * chunk already land the two chunks 16 banks apart.
 * KL (K4 by lanes along k, the configurations with k groups): the eight lanes of a row group take
 * eight consecutive k (k and k + 8 with BK 16), so a warp-wide copy reads 4 rows x 32 bytes, whole
 * sectors, where the chunks read 8 or 16 rows' sectors in part; its writes land in banks 4 k + row,
 * all distinct. A thread then covers W / (THREADS / 8) rows THREADS / 8 apart, from one pointer,
 * rows past the matrix copied with source size 0 (docs/notes/sgemm.md, "K4 copies by lanes along
 * k": faster only with k groups among the configurations measured). */
template <int MODE, int W, int BK, int THREADS, int LDS, bool KL = false> struct async_loader {
    static constexpr bool KC = MODE == LOAD_K4;
    static constexpr bool LANES = KC && KL;
    static constexpr int K_LANES = 8, ROW_LANES = THREADS / K_LANES, PER_ROW = BK / K_LANES;
    static_assert(!KC || ((BK == 16 || BK == 8) && LDS % 32 == 4),
                  "the K4 element pattern is laid out for BK 8, 16");
    /* offset along k of element e of a K4 chunk, and of chunk pos's first element */
    static constexpr __device__ __forceinline__ int k4_off(int e)
    {
        return BK == 16 ? (e & 1) + (e >> 1) * 8 : e;
    }
    static constexpr __device__ __forceinline__ int k4_first(int pos) { return BK == 16 ? 2 * pos : 4 * pos; }
    static constexpr int CHUNKS = W * BK / 4;
    static constexpr int PER_THREAD = LANES ? W / ROW_LANES : CHUNKS / THREADS; /* LANES: rows */
    static constexpr int CHUNKS_PER_LINE = KC ? BK / 4 : W / 4; /* a line: one row (K4) or one l (R) */
    static constexpr int LINES_PER_PASS = THREADS / CHUNKS_PER_LINE;
    /* R modes: a thread's chunks lie in one line, R_STEP rows apart, the threads of a line taking
     * consecutive chunks: one source pointer a thread, the other chunks at constant offsets from
     * it (the K4 chunks of a thread lie in different rows, ld apart, one pointer each) */
    static constexpr int R_THREADS_PER_LINE = KC ? 1 : CHUNKS_PER_LINE / PER_THREAD;
    static constexpr int R_STEP = 4 * R_THREADS_PER_LINE;
    static constexpr int POINTERS = KC && !LANES ? PER_THREAD : 1;
    /* byte distance in shared memory between a thread's successive chunks */
    static constexpr uint32_t DST_STEP = 4u * (LANES ? ROW_LANES : KC ? LINES_PER_PASS : R_STEP);
    static_assert(CHUNKS % THREADS == 0 && THREADS % CHUNKS_PER_LINE == 0, "loader shape");
    static_assert(!LANES || (W % ROW_LANES == 0 && ROW_LANES % 4 == 0), "K4 lanes shape");
    static_assert(KC || (CHUNKS_PER_LINE % PER_THREAD == 0 && THREADS / R_THREADS_PER_LINE == BK),
                  "R loader: a thread's chunks in one line");
    static_assert(PER_THREAD <= 32, "row mask width");

    const float *src[POINTERS];
    int64_t rstep;   /* LANES: ROW_LANES rows of the operand, in floats */
    uint32_t dst;    /* byte offset of the first chunk within a stage */
    int lpos;        /* l of the chunk's first element within the tile */
    int rrem;        /* R modes: rows of the matrix from the thread's first chunk on */
    unsigned row_ok; /* K4: bit s set when chunk s's row is inside the matrix; R16: chunk s's four rows */
    bool interior;   /* all W rows of the tile are inside the matrix (block-uniform) */
    /* issue_whole may copy this tile's k tiles that lie inside K (block-uniform): the rows need no
     * test (K4's rows past the matrix read a row inside it: k_rows), or one predicate a chunk (R16, whose
     * chunks are then whole or empty), or none are outside (R4) */
    bool whole_rows;

    /* where chunk s starts in global memory */
    __device__ __forceinline__ const float *source(int s) const
    {
        return LANES ? src[0] + s * rstep : KC ? src[s] : src[0] + s * R_STEP;
    }
    /* R modes: how many of chunk s's four rows are inside the matrix */
    __device__ __forceinline__ int rlim(int s) const { return min(max(rrem - s * R_STEP, 0), 4); }

    __device__ __forceinline__ void init(const operand &x, int r0, int kbegin, int tid)
    {
        interior = r0 + W <= x.rows;
        if constexpr (LANES) {
            const int line = tid / K_LANES;
            lpos = tid % K_LANES;
            src[0] = x.ptr + (int64_t)min(r0 + line, x.rows - 1) * x.ld + kbegin + lpos;
            rstep = (int64_t)ROW_LANES * x.ld;
            row_ok = 0;
#pragma unroll
            for (int s = 0; s < PER_THREAD; ++s)
                row_ok |= (unsigned)(r0 + line + s * ROW_LANES < x.rows) << s;
            dst = 4u * (uint32_t)(lpos * LDS + line);
            whole_rows = true;
        } else if constexpr (KC) {
            const int line = tid / CHUNKS_PER_LINE, pos = tid % CHUNKS_PER_LINE;
            lpos = k4_first(pos);
            row_ok = k_rows<PER_THREAD, LINES_PER_PASS, BK == 8>(x, r0, line, kbegin, lpos, src);
            dst = 4u * (uint32_t)(lpos * LDS + line);
            whole_rows = true;
        } else {
            const int rline = tid / R_THREADS_PER_LINE, rpos = tid % R_THREADS_PER_LINE;
            const int r = r0 + rpos * 4;
            lpos = rline;
            rrem = x.rows - r;
            src[0] = x.ptr + (int64_t)(kbegin + rline) * x.ld + r;
            dst = 4u * (uint32_t)(rline * LDS + rpos * 4);
            row_ok = 0;
#pragma unroll
            for (int s = 0; s < PER_THREAD; ++s)
                row_ok |= (unsigned)(rlim(s) == 4) << s;
            whole_rows = interior || (MODE == LOAD_R16 && x.rows % 4 == 0);
        }
    }

    /* copies the k tile starting at k0 (absolute) into the stage at shared address stage, then
     * moves on to the next k tile */
    __device__ __forceinline__ void issue(const operand &x, uint32_t stage, int k0, int kend)
    {
        if (interior && k0 + BK <= kend)
            copy_whole(stage);
        else
            issue_guarded(stage, k0, kend);
        advance(x);
    }
    /* issue() of a k tile inside K, where whole_rows holds */
    __device__ __forceinline__ void issue_whole(const operand &x, uint32_t stage)
    {
        if constexpr (MODE == LOAD_R16) {
#pragma unroll
            for (int s = 0; s < PER_THREAD; ++s)
                cp_async16_if(stage + dst + s * DST_STEP, source(s), (row_ok >> s) & 1u);
        } else if constexpr (LANES) {
#pragma unroll
            for (int s = 0; s < PER_THREAD; ++s)
#pragma unroll
                for (int e = 0; e < PER_ROW; ++e)
                    cp_async4(stage + dst + s * DST_STEP + 4 * LDS * K_LANES * e, source(s) + K_LANES * e,
                              (row_ok >> s) & 1u ? 4u : 0u);
        } else {
            copy_whole(stage);
        }
        advance(x);
    }
    __device__ __forceinline__ void advance(const operand &x)
    {
#pragma unroll
        for (int s = 0; s < POINTERS; ++s)
            src[s] += KC ? (int64_t)BK : BK * x.ld;
    }

    /* every element of the tile is inside the matrix: no predicates, no size operands */
    __device__ __forceinline__ void copy_whole(uint32_t stage) const
    {
#pragma unroll
        for (int s = 0; s < PER_THREAD; ++s) {
            const uint32_t d = stage + dst + s * DST_STEP;
            if (MODE == LOAD_R16) {
                cp_async16(d, source(s), 16u);
            } else if (LANES) {
#pragma unroll
                for (int e = 0; e < PER_ROW; ++e)
                    cp_async4(d + 4 * LDS * K_LANES * e, source(s) + K_LANES * e, 4u);
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    cp_async4(d + (KC ? 4 * LDS * k4_off(e) : 4 * e), source(s) + (KC ? k4_off(e) : e), 4u);
            }
        }
    }

    /* edge tiles: elements at k >= kend or outside the rows arrive as zeros. Their copies have
     * source size 0, which the hardware executes as "ignore the source" (LDGSTS with a false
     * fetch predicate), so their addresses, possibly past the matrix, are never read. */
    __device__ __forceinline__ void issue_guarded(uint32_t stage, int k0, int kend) const
    {
#pragma unroll
        for (int s = 0; s < PER_THREAD; ++s) {
            const uint32_t d = stage + dst + s * DST_STEP;
            if (MODE == LOAD_R16) {
                cp_async16(d, source(s), k0 + lpos < kend ? 4u * (uint32_t)rlim(s) : 0u);
            } else if (MODE == LOAD_R4) {
                const bool l_ok = k0 + lpos < kend;
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    cp_async4(d + 4 * e, source(s) + e, l_ok && e < rlim(s) ? 4u : 0u);
            } else if (LANES) {
                const bool r_ok = (row_ok >> s) & 1u;
#pragma unroll
                for (int e = 0; e < PER_ROW; ++e)
                    cp_async4(d + 4 * LDS * K_LANES * e, source(s) + K_LANES * e,
                              r_ok && k0 + lpos + K_LANES * e < kend ? 4u : 0u);
            } else {
                const bool r_ok = (row_ok >> s) & 1u;
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    cp_async4(d + 4 * LDS * k4_off(e), source(s) + k4_off(e),
                              r_ok && k0 + lpos + k4_off(e) < kend ? 4u : 0u);
            }
        }
    }
};

/* LOAD_K16: a K-contiguous, 16-byte capable operand's W x BK tile, copied as it lies in memory
 * (row r's BK consecutive k, BK floats a row) by one 16-byte cp.async per four k of a row. The
 * 16-byte copies cost the L1 a quarter of what the K4 copies' scattered 4-byte ones do; the price is
 * a transpose in shared memory (transpose_chunk) into the [k][r] layout the fragments are read from.
 * Rows are not padded, their chunks swizzled (raw_swizzle, smem_layout.h). */
template <int W, int BK, int THREADS> struct raw_loader {
    static constexpr int CHUNKS_PER_LINE = BK / 4, LINES_PER_PASS = THREADS / CHUNKS_PER_LINE;
    static constexpr int PER_THREAD = W * CHUNKS_PER_LINE / THREADS;
    static constexpr uint32_t DST_STEP = 4u * LINES_PER_PASS * BK;
    static_assert(BK % 4 == 0 && THREADS % CHUNKS_PER_LINE == 0 && (W * CHUNKS_PER_LINE) % THREADS == 0,
                  "raw loader shape");
    static_assert(LINES_PER_PASS % 8 == 0, "a thread's rows share one swizzle");
    static_assert(PER_THREAD <= 32, "row mask width");

    const float *src[PER_THREAD];
    uint32_t dst;
    int lpos;        /* k of the chunk's first element within the tile */
    unsigned row_ok; /* bit s: chunk s's row is inside the matrix */
    bool interior;
    static constexpr bool whole_rows = true; /* rows past the matrix read its last row (k_rows) */

    __device__ __forceinline__ void init(const operand &x, int r0, int kbegin, int tid)
    {
        const int line = tid / CHUNKS_PER_LINE, pos = tid % CHUNKS_PER_LINE;
        lpos = 4 * pos;
        interior = r0 + W <= x.rows;
        row_ok = k_rows<PER_THREAD, LINES_PER_PASS>(x, r0, line, kbegin, lpos, src);
        dst = 4u * (uint32_t)(line * BK + 4 * (pos ^ raw_swizzle<BK>(line)));
    }

    /* k from k0 below kend are copied; the rest, and rows outside the matrix, arrive as zeros (a
     * copy of source size 0 reads nothing) */
    __device__ __forceinline__ void issue(const operand &, uint32_t stage, int k0, int kend)
    {
        const bool whole = interior && k0 + BK <= kend;
        const uint32_t k_bytes = 4u * (uint32_t)min(max(kend - k0 - lpos, 0), 4);
#pragma unroll
        for (int s = 0; s < PER_THREAD; ++s) {
            cp_async16(stage + dst + s * DST_STEP, src[s], whole ? 16u : ((row_ok >> s) & 1u) ? k_bytes : 0u);
            src[s] += BK;
        }
    }
    /* issue() of a k tile inside K (rows past the matrix read its last row: k_rows) */
    __device__ __forceinline__ void issue_whole(const operand &, uint32_t stage)
    {
#pragma unroll
        for (int s = 0; s < PER_THREAD; ++s) {
            cp_async16(stage + dst + s * DST_STEP, src[s], 16u);
            src[s] += BK;
        }
    }
};

/* chunk i of this thread's share of the K16 stage raw, written transposed into t ([k][r], rows LDS
 * apart): a warp takes 32 consecutive rows of one four-k chunk, so its float4 reads and its 4-byte
 * writes are free of bank conflicts */
template <int W, int BK, int THREADS, int LDS> struct raw_transpose {
    static constexpr int CHUNKS = W * BK / 4, PER_THREAD = CHUNKS / THREADS;
    static_assert(W % 32 == 0 && CHUNKS % THREADS == 0, "transpose shape");

    static __device__ __forceinline__ void chunk(const float *raw, float *t, int tid, int i)
    {
        const int c = tid + i * THREADS, r = c % W, l4 = c / W;
        const float4 v = *reinterpret_cast<const float4 *>(raw + r * BK + 4 * (l4 ^ raw_swizzle<BK>(r)));
        float *d = t + 4 * l4 * LDS + r;
        d[0] = v.x;
        d[LDS] = v.y;
        d[2 * LDS] = v.z;
        d[3 * LDS] = v.w;
    }
    static __device__ __forceinline__ void all(const float *raw, float *t, int tid)
    {
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i)
            chunk(raw, t, tid, i);
    }
    /* spread over a k tile's BK steps: the chunk due at step kk, or -1 */
    static constexpr __device__ __forceinline__ int due(int kk)
    {
        static_assert(2 * PER_THREAD <= BK, "at most one chunk a step, none at the last step");
        return kk % (BK / PER_THREAD) == 0 && kk / (BK / PER_THREAD) < PER_THREAD ? kk / (BK / PER_THREAD) : -1;
    }
};

/* an operand's stage in floats, its transposed tiles (K16 only: two, the one being read and the
 * next one being written), and its loader */
template <int MODE, int W, int BK, int THREADS, int LDS, bool KL = false> struct operand_path {
    static constexpr bool RAW = MODE == LOAD_K16;
    using loader = std::conditional_t<RAW, raw_loader<W, BK, THREADS>, async_loader<MODE, W, BK, THREADS, LDS, KL>>;
    using transpose = raw_transpose<W, BK, THREADS, LDS>;
    static constexpr int STAGE = RAW ? W * BK : BK * LDS;
    static constexpr int TILE = RAW ? BK * LDS : 0;
    static constexpr int TILES = RAW ? 2 : 0;
};

/* dynamic shared memory of one block of CFG with these load modes */
template <class CFG, int MODE_A, int MODE_B> constexpr size_t smem_bytes()
{
    using pa = operand_path<MODE_A, CFG::BM, CFG::BK, CFG::THREADS, CFG::LDA_S, CFG::K4_LANES>;
    using pb = operand_path<MODE_B, CFG::BN, CFG::BK, CFG::THREADS, CFG::LDB_S, CFG::K4_LANES>;
    return sizeof(float) * (CFG::STAGES * (pa::STAGE + pb::STAGE) + pa::TILES * pa::TILE + pb::TILES * pb::TILE);
}

/* where a block keeps its stages and K16 tiles, and where its thread reads fragments from */
template <class CFG, int MODE_A, int MODE_B> struct block_place {
    using path_a = operand_path<MODE_A, CFG::BM, CFG::BK, CFG::THREADS, CFG::LDA_S, CFG::K4_LANES>;
    using path_b = operand_path<MODE_B, CFG::BN, CFG::BK, CFG::THREADS, CFG::LDB_S, CFG::K4_LANES>;
    float *As, *Bs, *At, *Bt;
    int tid, gk, a_frag, b_frag;
    /* k group: its steps of a k tile start at gk (one group: known to be 0 at compile time) */
    __device__ __forceinline__ block_place(float *smem)
    {
        As = smem;
        Bs = As + CFG::STAGES * path_a::STAGE;
        /* the transposed tiles of the K16 operands, two each: tile kt's fragments are read from
         * tile kt % 2 while tile kt + 1 is transposed into the other */
        At = Bs + CFG::STAGES * path_b::STAGE;
        Bt = At + path_a::TILES * path_a::TILE;
        tid = (int)threadIdx.x;
        const int lane = tid % 32;
        const int group = CFG::KG > 1 ? tid / (32 * CFG::WARPS_TILE) : 0;
        gk = group * CFG::KSTEPS;
        const int warp = CFG::KG > 1 ? (tid / 32) % CFG::WARPS_TILE : tid / 32;
        const lane_xy place = lane_place<CFG::LANES_M>(lane);
        a_frag = (warp % CFG::WARPS_M) * CFG::WM + place.m * 4;
        b_frag = (warp / CFG::WARPS_M) * CFG::WN + place.n * 4;
    }
};

/* acc := the thread's share of the product of the tile at (m0, n0) over k in [kbegin, kend), through
 * the block's stages; every copy has landed when it returns */
template <class CFG, int MODE_A, int MODE_B>
__device__ __forceinline__ void tile_product(const problem &p, const block_place<CFG, MODE_A, MODE_B> &bp, int m0, int n0,
                                             int kbegin, int kend, float (&acc)[CFG::TM][CFG::TN])
{
    constexpr int BK = CFG::BK, TM = CFG::TM, TN = CFG::TN;
    constexpr int STAGES = CFG::STAGES, KSTEPS = CFG::KSTEPS;
    using path_a = typename block_place<CFG, MODE_A, MODE_B>::path_a;
    using path_b = typename block_place<CFG, MODE_A, MODE_B>::path_b;
    using loader_a = typename path_a::loader;
    using loader_b = typename path_b::loader;
    constexpr int A_STAGE = path_a::STAGE, B_STAGE = path_b::STAGE;
    float *const As = bp.As, *const Bs = bp.Bs, *const At = bp.At, *const Bt = bp.Bt;
    const int tid = bp.tid, gk = bp.gk, a_frag = bp.a_frag, b_frag = bp.b_frag;
    /* with a K16 operand the stage of tile kt + 1 must have landed while tile kt is computed: one
     * k tile less in flight */
    constexpr bool RAW = path_a::RAW || path_b::RAW;
    constexpr int IN_FLIGHT = RAW ? STAGES - 3 : STAGES - 2;
    static_assert(IN_FLIGHT >= 0, "stages");
    const uint32_t as_addr = smem_addr(As), bs_addr = smem_addr(Bs);

    loader_a la;
    loader_b lb;
    la.init(p.a, m0, kbegin, tid);
    lb.init(p.b, n0, kbegin, tid);
    const int ktiles = (kend - kbegin + BK - 1) / BK;

    /* one commit group per k tile, empty ones included, so that wait_group counts tiles */
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        if (st < ktiles) {
            la.issue(p.a, as_addr + 4u * st * A_STAGE, kbegin + st * BK, kend);
            lb.issue(p.b, bs_addr + 4u * st * B_STAGE, kbegin + st * BK, kend);
        }
        cp_async_commit();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;
    float af[2][TM], bf[2][TN];

    auto load_frags = [&](int buf, const float *as, const float *bs) {
        load_fragment<TM, CFG::STRIDE_M>(af[buf], as + a_frag);
        load_fragment<TN, CFG::STRIDE_N>(bf[buf], bs + b_frag);
    };

    /* K16 operands: the stage of tile kt, transposed into tile kt % 2, the whole of it (before the
     * first tile) or chunk i of each thread's share (spread over the steps of tile kt - 1) */
    auto transpose_all = [&](int stage, int kt) {
        if constexpr (path_a::RAW)
            path_a::transpose::all(As + stage * A_STAGE, At + (kt & 1) * path_a::TILE, tid);
        if constexpr (path_b::RAW)
            path_b::transpose::all(Bs + stage * B_STAGE, Bt + (kt & 1) * path_b::TILE, tid);
    };
    /* chunk kk's share of tile kt + 1's stages (a_raw, b_raw) transposed into its tiles (a_t, b_t) */
    auto transpose_part = [&](const float *a_raw, float *a_t, const float *b_raw, float *b_t, int kk) {
        if constexpr (path_a::RAW)
            if (path_a::transpose::due(kk) >= 0)
                path_a::transpose::chunk(a_raw, a_t, tid, path_a::transpose::due(kk));
        if constexpr (path_b::RAW)
            if (path_b::transpose::due(kk) >= 0)
                path_b::transpose::chunk(b_raw, b_t, tid, path_b::transpose::due(kk));
    };
    /* where tile kt's fragments are read from: its stage, or a K16 operand's transposed tile */
    auto a_src = [&](int stage, int kt) { return path_a::RAW ? At + (kt & 1) * path_a::TILE : As + stage * A_STAGE; };
    auto b_src = [&](int stage, int kt) { return path_b::RAW ? Bt + (kt & 1) * path_b::TILE : Bs + stage * B_STAGE; };

    cp_async_wait<IN_FLIGHT>();
    __syncthreads();
    if constexpr (RAW) {
        transpose_all(0, 0);
        __syncthreads();
    }
    int read_stage = 0, write_stage = STAGES - 1;
    /* the stage addresses are carried from tile to tile rather than recomputed from the stage index:
     * recomputed, ptxas rebuilds the shared window's base (S2R of the CTA's place in its cluster and
     * a chain of dependent integer ops) before every k tile's copies and fragment reads */
    uint32_t a_write = as_addr + 4u * (STAGES - 1) * A_STAGE, b_write = bs_addr + 4u * (STAGES - 1) * B_STAGE;
    const float *as = a_src(0, 0), *bs = b_src(0, 0);
    load_frags(0, as + gk * CFG::LDA_S, bs + gk * CFG::LDB_S);

    /* Two runs of the same k-tile body: first the tiles whose copies (STAGES - 1 tiles ahead) lie
     * inside K, issued by issue_whole without a branch or a size computed (rows past the matrix
     * take the loaders' loop-invariant answers: whole_rows), then the last ones, each copy tested.
     * With the tests in every tile, every warp of the block reached them together after the
     * barrier and waited out their dependent integer and branch latencies at the same time
     * (docs/notes/sgemm.md, "the copies' tests out of the k loop"). Every block of a launch runs the
     * first loop, so a one-wave launch does not hold two hot loops in the instruction caches. */
    const int whole_tiles = la.whole_rows && lb.whole_rows ? (kend - kbegin) / BK : 0;
    const int steady = max(0, min(ktiles, whole_tiles - (STAGES - 1)));
    auto k_tile = [&](int kt, auto whole) {
        /* K16: tile kt + 1 is transposed among tile kt's steps. In the steady run it always
         * exists (kt + 1 < steady + STAGES - 1 <= ktiles), so no test there: with one, each
         * chunk's loads and stores sat behind a branch of their own, fenced off from the FFMAs,
         * and re-derived their addresses; here they are found once a k tile (docs/notes/sgemm.md,
         * "the K16 transpose without a branch") */
        const bool transpose_next = RAW && (decltype(whole)::value || kt + 1 < ktiles);
        const int next_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
        const float *const a_raw = As + next_stage * A_STAGE, *const b_raw = Bs + next_stage * B_STAGE;
        float *const a_t = At + ((kt + 1) & 1) * path_a::TILE;
        float *const b_t = Bt + ((kt + 1) & 1) * path_b::TILE;
#pragma unroll
        for (int kk = 0; kk < KSTEPS; ++kk) {
            if (kk == KSTEPS - 1) {
                /* tile kt + 1 (and, with K16, its transposed tile and the stage of kt + 2) is
                 * there for every thread, and every thread is done reading the stage that the
                 * copies issued at the next kk == 0 will overwrite */
                cp_async_wait<IN_FLIGHT>();
                __syncthreads();
                const bool wrap = read_stage + 1 == STAGES;
                read_stage = wrap ? 0 : read_stage + 1;
                if constexpr (path_a::RAW)
                    as = a_src(read_stage, kt + 1);
                else
                    as = wrap ? as - (STAGES - 1) * A_STAGE : as + A_STAGE;
                if constexpr (path_b::RAW)
                    bs = b_src(read_stage, kt + 1);
                else
                    bs = wrap ? bs - (STAGES - 1) * B_STAGE : bs + B_STAGE;
            }
            const int next_kk = gk + (kk + 1) % KSTEPS;
            load_frags((kk + 1) % 2, as + next_kk * CFG::LDA_S, bs + next_kk * CFG::LDB_S);
            if (kk == 0) {
                const int next = kt + STAGES - 1;
                if constexpr (decltype(whole)::value) {
                    la.issue_whole(p.a, a_write);
                    lb.issue_whole(p.b, b_write);
                } else if (next < ktiles) {
                    la.issue(p.a, a_write, kbegin + next * BK, kend);
                    lb.issue(p.b, b_write, kbegin + next * BK, kend);
                }
                cp_async_commit();
                const bool wrap = write_stage + 1 == STAGES;
                write_stage = wrap ? 0 : write_stage + 1;
                a_write = wrap ? a_write - 4u * (STAGES - 1) * A_STAGE : a_write + 4u * A_STAGE;
                b_write = wrap ? b_write - 4u * (STAGES - 1) * B_STAGE : b_write + 4u * B_STAGE;
            }
            if (transpose_next && kk < KSTEPS - 1) /* KG is 1 here */
                transpose_part(a_raw, a_t, b_raw, b_t, kk);
            outer_product(acc, af[kk % 2], bf[kk % 2]);
        }
    };
    int kt = 0;
    for (; kt < steady; ++kt)
        k_tile(kt, std::true_type{});
    for (; kt < ktiles; ++kt)
        k_tile(kt, std::false_type{});
    cp_async_wait<0>();
}

/* C's tile where C cannot take 16-byte stores (its base or ldc not a multiple of four floats), in
 * the kernels built for it (pipelined_kernel's STAGED_C, launched where such a product is store-bound).
 * store_tile writes each lane's four rows there by four 4-byte stores, each warp-wide store touching
 * every sector of its columns in part: on the H200 store-bound products ran 2-3x slower than with
 * an aligned C (docs/notes/sgemm.md, "an unaligned C costs store-bound products 2-3x"). Here each
 * warp puts one 16-column slice of its tile at a time in its own region of shared memory, at
 * `staging` (the stages' memory, free once the k loop is over), and writes it out a column at a
 * time, its lanes on 32 consecutive rows. The threads of the storing warps call this together,
 * after the block's last reads of that memory; `warp` counts within them. */
template <class CFG>
__device__ __forceinline__ void store_tile_staged(const problem &p, int m0, int n0, int a_frag, int b_frag,
                                                  const float (&acc)[CFG::TM][CFG::TN], float *staging, int warp)
{
    constexpr int TM = CFG::TM, TN = CFG::TN, WM = CFG::WM, COLS = CFG::STRIDE_N;
    static_assert(WM % 32 == 0, "a column of a warp tile is whole warp-wide stores");
    const int lane = (int)threadIdx.x % 32;
    const int wm = (warp % CFG::WARPS_M) * WM, wn = (warp / CFG::WARPS_M) * CFG::WN;
    float *const region = staging + warp * COLS * WM;
    const int lm = a_frag - wm, ln = b_frag - wn;
#pragma unroll
    for (int sn = 0; sn < TN / 4; ++sn) {
#pragma unroll
        for (int jj = 0; jj < 4; ++jj)
#pragma unroll
            for (int sm = 0; sm < TM / 4; ++sm)
                *reinterpret_cast<float4 *>(region + (ln + jj) * WM + lm + sm * CFG::STRIDE_M) =
                    make_float4(acc[4 * sm][4 * sn + jj], acc[4 * sm + 1][4 * sn + jj],
                                acc[4 * sm + 2][4 * sn + jj], acc[4 * sm + 3][4 * sn + jj]);
        __syncwarp();
        const int i0 = m0 + wm + lane;
#pragma unroll 4
        for (int c = 0; c < COLS; ++c) {
            const int j = n0 + wn + sn * COLS + c;
            if (j < p.n) {
#pragma unroll
                for (int r = 0; r < WM; r += 32)
                    if (i0 + r < p.m)
                        store_c1(p, i0 + r, j, region[c * WM + r + lane]);
            }
        }
        __syncwarp(); /* the slice is read before the next one is written */
    }
}

/* where store_tile_staged's regions start in the stages' memory (floats): past the k groups' sums */
template <class CFG> constexpr __host__ __device__ int staging_offset()
{
    return CFG::KG > 1 ? (CFG::KG - 1) * CFG::TM * CFG::TN * (CFG::THREADS / CFG::KG) : 0;
}
/* the regions of the warps that store (one group's) fit the block's shared memory past that */
template <class CFG, int MA, int MB> constexpr bool staged_store_fits()
{
    return sizeof(float) * (size_t)(staging_offset<CFG>() + CFG::WARPS_TILE * CFG::STRIDE_N * CFG::WM) <=
           smem_bytes<CFG, MA, MB>();
}

/* the whole BM x BN tile of the thread's sums, unscaled, edges included, at part */
template <class CFG>
__device__ __forceinline__ void store_partial(float *part, int a_frag, int b_frag, const float (&acc)[CFG::TM][CFG::TN])
{
    constexpr int BM = CFG::BM, TM = CFG::TM, TN = CFG::TN;
#pragma unroll
    for (int sn = 0; sn < TN / 4; ++sn)
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
            const int jl = b_frag + sn * CFG::STRIDE_N + jj;
#pragma unroll
            for (int sm = 0; sm < TM / 4; ++sm)
                *reinterpret_cast<float4 *>(part + jl * BM + a_frag + sm * CFG::STRIDE_M) =
                    make_float4(acc[4 * sm][4 * sn + jj], acc[4 * sm + 1][4 * sn + jj],
                                acc[4 * sm + 2][4 * sn + jj], acc[4 * sm + 3][4 * sn + jj]);
        }
}

/*                               BM   BN  BK  WM  WN TM  TN STAGES MIN_BLOCKS */
using cfg_128x128 = pipe_config<128, 128, 16, 64, 32, 8, 8, 4, 2, false>;
using cfg_128x256 = pipe_config<128, 256, 16, 64, 64, 8, 16, 4, 1>;
using cfg_128x64 = pipe_config<128, 64, 16, 64, 32, 8, 8, 4, 3>;
using cfg_64x64 = pipe_config<64, 64, 16, 64, 32, 8, 8, 4, 6>;
using cfg_128x128_k8 = pipe_config<128, 128, 8, 64, 32, 8, 8, 4, 2>;
using cfg_128x256_k8 = pipe_config<128, 256, 8, 64, 64, 8, 16, 4, 1, true, 1, false>;
using cfg_256x128_k8 = pipe_config<256, 128, 8, 64, 64, 8, 16, 4, 1, true, 1, false>;
using cfg_64x128 = pipe_config<64, 128, 16, 32, 64, 8, 8, 4, 3>;
using cfg_128x64_kg2 = pipe_config<128, 64, 16, 64, 32, 8, 8, 4, 2, false, 2>; /* k groups: 2 */
/* four warps of 64x64, 8x16 a thread, two blocks an SM: the block cuBLAS runs for TN and TT at the
 * squares 1152-1664 (Nsight Compute, H200, 2026-11-26: its 128x128x8 "warpsize2x2x1" kernel) */
using cfg_128x128_w4 = pipe_config<128, 128, 8, 64, 64, 8, 16, 4, 2>;
/* four warps of 64x16, 8x4 a thread, four blocks an SM: the block cuBLAS runs at 896^3 in every case,
 * 196 tiles in two K slices (Nsight Compute, H200, 2026-11-28: its 64x64x8 "warpsize1x4x1" kernel) */
using cfg_64x64_w4 = pipe_config<64, 64, 16, 64, 16, 8, 4, 4, 4>;

/* The K16 path takes more shared memory than K4 (the two transposed tiles beside the stages) and a
 * few registers: where that would cost the configuration a block per SM (64x64), or spills (128x128
 * at 128 registers), K4 runs instead. */
constexpr size_t SMEM_PER_SM = 227 * 1024, SMEM_RESERVED_PER_BLOCK = 1024;
template <class CFG, int MA, int MB> constexpr bool fits()
{
    return (CFG::K16 || (MA != LOAD_K16 && MB != LOAD_K16)) &&
           CFG::MIN_BLOCKS * (smem_bytes<CFG, MA, MB>() + SMEM_RESERVED_PER_BLOCK) <= SMEM_PER_SM;
}
constexpr int without_k16(int mode)
{
    return mode == LOAD_K16 ? LOAD_K4 : mode;
}

/* the configurations in tile_config_id order */
using configs_in_order = std::tuple<cfg_128x128, cfg_128x256, cfg_128x64, cfg_64x64, cfg_128x128_k8, cfg_128x256_k8,
                                    cfg_256x128_k8, cfg_64x128, cfg_128x64_kg2, cfg_128x128_w4,
                                    cfg_64x64_w4>;
static_assert(std::tuple_size<configs_in_order>::value == TILE_CONFIGS, "one configuration per tile_config_id");

/* the blocks an SM of a configuration's stream-K kernel, built beside the data-parallel one (0: not
 * built): one k group and k tiles of 16, and either at least two blocks an SM with room for 160
 * registers a thread (at 128, 128x128's loop over tiles spills 400 bytes a thread), or one block
 * an SM of eight warps of 8x8 sums (128x128, up to 255 registers: its one-wave launches, 121 tiles at
 * 1400^3, leave SMs idle that stream-K gives a share; with 8x16 sums a thread the loop's banks
 * collided at 255 registers, docs/notes/sgemm.md "The 8-warp tiles by stream-K") */
template <class CFG> constexpr int streamk_blocks()
{
    return CFG::KG != 1 || CFG::BK != 16                                                       ? 0
           : CFG::MIN_BLOCKS >= 2 && 65536 / (CFG::THREADS * CFG::MIN_BLOCKS) >= 160            ? CFG::MIN_BLOCKS
           : CFG::THREADS == 256 && CFG::TM * CFG::TN == 64 && 65536 / CFG::THREADS >= 160 ? 1
                                                                                                : 0;
}
template <class CFG> constexpr bool streamk_built()
{
    return streamk_blocks<CFG>() > 0;
}

/* how each operand of p reaches shared memory under configuration c */
inline void load_modes(const shim_sgemm_args *p, const problem &q, const tile_config &c, int &ma, int &mb)
{
    const int k16 = k16_operands(p, c);
    ma = p->transa ? ((k16 & K16_A) ? LOAD_K16 : LOAD_K4) : q.a.vec ? LOAD_R16 : LOAD_R4;
    mb = !p->transb ? ((k16 & K16_B) ? LOAD_K16 : LOAD_K4) : q.b.vec ? LOAD_R16 : LOAD_R4;
}

/* where and how a plan's kernel is launched: its grid, its stream, and whether as a programmatic
 * dependent of the kernel before it (transpose_first's copy, which allows it as its blocks end) */
struct launch_at {
    int blocks;
    cudaStream_t stream;
    bool dependent;
    int cluster = 0; /* blocks a thread-block cluster (split_cluster.cu); 0: no clusters */
};

/* kernel over at's grid in clusters of at.cluster consecutive blocks (compute capability 9.0 and
 * later), a programmatic dependent where at.dependent; the launch's error, none left behind. The
 * caller has the kernel loaded (launch_modes: smem_attribute_once) */
template <typename... Params, typename... Args>
cudaError_t launch_clustered(void (*kernel)(Params...), const launch_at &at, int threads, size_t smem, Args... args)
{
    cudaLaunchAttribute attr[2];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)at.cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[1].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)at.blocks);
    cfg.blockDim = dim3((unsigned)threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = at.stream;
    cfg.attrs = attr;
    cfg.numAttrs = at.dependent ? 2 : 1;
    const cudaError_t err = cudaLaunchKernelEx(&cfg, kernel, args...);
    if (err != cudaSuccess)
        (void)cudaGetLastError();
    return err;
}

/* the least dynamic shared memory a kernel family's block needs besides its stages (ENTRY::smem_floor()
 * where it says, else nothing) */
template <class E, class = void> struct smem_floor_of {
    static constexpr size_t value = 0;
};
template <class E> struct smem_floor_of<E, std::void_t<decltype(E::smem_floor())>> {
    static constexpr size_t value = E::smem_floor();
};
/* the dynamic shared memory a block of ENTRY's kernel for (CFG, MA, MB) is launched with */
template <class CFG, int MA, int MB, template <class, int, int> class ENTRY> constexpr size_t launch_smem()
{
    return std::max(smem_bytes<CFG, MA, MB>(), smem_floor_of<ENTRY<CFG, MA, MB>>::value);
}

/* whether the blocks of a launch of CFG's tiles each compute at least 2^23 FLOPs (some 20 µs at an SM's
 * share of the FP32 rate): 128x128 tiles over 256 k and more; their shortest block, a K slice where
 * the plan splits, a stream-K block's share of the tiles' k otherwise */
constexpr double HEAVY_BLOCK_FLOPS = 8388608.0;
inline bool heavy_blocks(int bm, int bn, int bk, int k_total, const sched &sc, int blocks)
{
    double k = k_total;
    if (sc.sk_blocks > 0)
        k = (double)sc.ktiles * bk * sc.tiles_m * sc.tiles_n / sc.sk_blocks;
    else if (sc.dp_tiles < blocks && sc.splits > 1)
        k = sc.kslice;
    return 2.0 * bm * bn * k >= HEAVY_BLOCK_FLOPS;
}
template <class CFG> bool heavy_blocks(const problem &q, const sched &sc, const launch_at &at)
{
    return heavy_blocks(CFG::BM, CFG::BN, CFG::BK, q.k, sc, at.blocks);
}

/* A kernel family for the launch tables: ENTRY<CFG, MA, MB>::kernel is its instantiation and
 * ENTRY<CFG, MA, MB>::built whether it exists for CFG. Launches it with the configuration's shared
 * memory, K16 falling back to K4 where it does not fit. Every kernel of a family calls
 * wait_for_primary() before it touches memory. */
template <class CFG, int MA, int MB, template <class, int, int> class ENTRY>
cudaError_t launch_modes(const problem &q, const sched &sc, float *ws, const launch_at &at)
{
    if constexpr (!fits<CFG, MA, MB>()) {
        return launch_modes<CFG, without_k16(MA), without_k16(MB), ENTRY>(q, sc, ws, at);
    } else if constexpr (!ENTRY<CFG, MA, MB>::built) {
        return cudaErrorInvalidConfiguration;
    } else {
        size_t smem = launch_smem<CFG, MA, MB, ENTRY>();
        /* The k-group tiles are planned one block an SM (no more tiles than SMs), and their kernel
         * fits two. Launched after transpose_first's copy as its programmatic dependent, their
         * blocks were sometimes placed two to an SM as the copy's blocks left, and the product ran
         * 1.7x its time (H200, 2026-11-28: 1313x728x1356 TN after both copies 138 µs, the same
         * chain launched only after the copy 84, the plan alone 78; bench/copy_chain,
         * docs/notes/sgemm.md "The k-group tiles two to an SM"): they take half an SM's shared
         * memory, so that an SM holds one. So does any other launch of one wave that runs as a
         * dependent, where a block's product is long (heavy_blocks), as many blocks an SM as the
         * even spread gives (per) where the kernel would hold more: 128x128 tiles after
         * transpose_first's copy, one an SM, ran 1.5-1.8x their time in some runs (2000x1000x1500 TN
         * 0.261 ms, 0.142 with the floor), and 121 of them at 1400^3 after a kernel reading 64 MB
         * 243 µs where they run 126 alone; 252 tiles of 64x128, which fit three an SM, 0.52-0.55 ms
         * in most runs after B's copy at 1097x1672x3760 NN and 0.39 in the others (H200,
         * 2026-11-29; docs/notes/sgemm.md, "Two an SM where three fit"). Stream-K over two blocks an
         * SM where three fit gained nothing so (0.997-1.004 of the time in four sets, 435 shapes,
         * single shapes up to 7 % slower): it keeps the floor for one an SM only. A block that must
         * wait for room on an SM starts only once the copy's last blocks there are gone: short
         * blocks lose more by that than they risk (docs/notes/sgemm.md, "One block an SM for every
         * one-wave dependent") */
        const int per = CFG::KG > 1 ? 1 : (int)((at.blocks + sm_count() - 1) / sm_count());
        const int holds = (int)std::min<size_t>(CFG::MIN_BLOCKS, SMEM_PER_SM / (smem + SMEM_RESERVED_PER_BLOCK));
        const int device = shim_kernel_device(); /* the one runtime call here; the rest read caches */
        if (CFG::KG > 1 || (at.dependent && at.cluster <= 1 && per < holds && (per == 1 || sc.sk_blocks == 0) &&
                            heavy_blocks<CFG>(q, sc, at)))
            smem = std::max(smem, blocks_an_sm_smem(per, device));
        void (*kernel)(const problem, const sched, float *) = ENTRY<CFG, MA, MB>::kernel();
        /* (also loads the kernel at its first use on the device, or refuses it: kernel_load.h). The
         * limit is set once a device, so it admits both launches, with and without the floor */
        const cudaError_t err = smem_attribute_once(
            kernel, (int)std::max(launch_smem<CFG, MA, MB, ENTRY>(), blocks_an_sm_smem(1, device)), device);
        if (err != cudaSuccess)
            return err;
        if (at.cluster > 1)
            return launch_clustered(kernel, at, CFG::THREADS, smem, q, sc, ws);
        if (at.dependent)
            return launch_dependent(kernel, dim3((unsigned)at.blocks), dim3(CFG::THREADS), smem, at.stream, q,
                                    sc, ws);
        kernel<<<(unsigned)at.blocks, CFG::THREADS, smem, at.stream>>>(q, sc, ws);
        return cudaGetLastError();
    }
}

/* loads on the current device the kernel launch_modes<CFG, MA, MB, ENTRY> launches (kernel_load.h) */
template <class CFG, int MA, int MB, template <class, int, int> class ENTRY> cudaError_t preload_modes()
{
    if constexpr (!fits<CFG, MA, MB>())
        return preload_modes<CFG, without_k16(MA), without_k16(MB), ENTRY>();
    else if constexpr (!ENTRY<CFG, MA, MB>::built)
        return cudaSuccess;
    else
        return shim_kernel_ready((const void *)ENTRY<CFG, MA, MB>::kernel());
}
/* ... for every (A mode, B mode): the first refusal, or cudaSuccess */
template <class CFG, template <class, int, int> class ENTRY, int... I>
cudaError_t preload_config(std::integer_sequence<int, I...>)
{
    cudaError_t err = cudaSuccess;
    ((err = err == cudaSuccess ? preload_modes<CFG, I / LOAD_MODES, I % LOAD_MODES, ENTRY>() : err), ...);
    return err;
}
template <class CFG, template <class, int, int> class ENTRY> cudaError_t preload_config()
{
    return preload_config<CFG, ENTRY>(std::make_integer_sequence<int, LOAD_MODES * LOAD_MODES>{});
}

using modes_launcher = cudaError_t (*)(const problem &, const sched &, float *, const launch_at &);
/* launch_modes of CFG for every (A mode, B mode), indexed by ma * LOAD_MODES + mb */
template <class CFG, template <class, int, int> class ENTRY, int... I>
constexpr std::array<modes_launcher, sizeof...(I)> modes_table(std::integer_sequence<int, I...>)
{
    return {launch_modes<CFG, I / LOAD_MODES, I % LOAD_MODES, ENTRY>...};
}

template <class CFG, template <class, int, int> class ENTRY>
cudaError_t launch_config(int ma, int mb, const problem &q, const sched &sc, float *ws, const launch_at &at)
{
    static constexpr auto table = modes_table<CFG, ENTRY>(std::make_integer_sequence<int, LOAD_MODES * LOAD_MODES>{});
    return table[ma * LOAD_MODES + mb](q, sc, ws, at);
}

/* one launcher per configuration, indexed by tile_config_id */
using config_launcher = cudaError_t (*)(int, int, const problem &, const sched &, float *, const launch_at &);
template <template <class, int, int> class ENTRY, size_t... I>
constexpr std::array<config_launcher, sizeof...(I)> config_table(std::index_sequence<I...>)
{
    return {launch_config<std::tuple_element_t<I, configs_in_order>, ENTRY>...};
}
template <template <class, int, int> class ENTRY> constexpr std::array<config_launcher, TILE_CONFIGS> launchers_of()
{
    return config_table<ENTRY>(std::make_index_sequence<TILE_CONFIGS>{});
}

} // namespace
} // namespace sgemm

#endif
