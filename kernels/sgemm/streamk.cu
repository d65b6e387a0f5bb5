/* Stream-K plans of the pipelined kernel (pipelined_tile.cuh): every tile's k tiles laid end to end,
 * tile after tile, and cut into plan.sk_blocks equal ranges, one a block of a single wave, so that
 * every block has the same work whatever the tile count. A launch of 1.3 waves of whole tiles ends
 * on blocks that run alone on their SM (docs/notes/sgemm.md, "a launch of one or two waves"); here
 * the last tiles' work is spread over every block instead. A tile shared by several blocks is
 * finished in the kernel by the last of them to arrive, which adds the partials in k order: the
 * order is the plan's alone, so the bits do not depend on which block arrives last, and no block
 * ever waits for another. */
#include "pipelined_tile.cuh"
#include "block_stamps.cuh"

namespace sgemm {
namespace {

/* where each block's range lies: a range covers the end of one tile, whole tiles and the start of
 * another */
struct stream_k {
    int units; /* tiles x k tiles (the plan keeps it under 2^31) */
    int blocks, ktiles;
    __device__ __forceinline__ int first_unit(int b) const { return (int)((int64_t)units * b / blocks); }
    /* the block whose range holds unit u */
    __device__ __forceinline__ int block_of(int u) const
    {
        int b = (int)((int64_t)u * blocks / units);
        while (b + 1 < blocks && first_unit(b + 1) <= u)
            ++b;
        while (b > 0 && first_unit(b) > u)
            --b;
        return b;
    }
    /* the workspace slot of block b's partial of tile t: 2b for its first tile, 2b + 1 for its last */
    __device__ __forceinline__ int64_t slot(int b, int t) const
    {
        return 2 * (int64_t)b + (first_unit(b) / ktiles == t ? 0 : 1);
    }
};

/* acc := the sum of tile t's partials of blocks first .. last, in their order (k order), onto acc
 * where `onto` (acc then holds the partial of the block before first): the thread's own elements,
 * as store_partial laid them out, each partial's loads all issued before its adds */
template <class CFG>
__device__ __forceinline__ void add_partials(const float *ws, const stream_k &sk, int t, int first, int last,
                                             int a_frag, int b_frag, float (&acc)[CFG::TM][CFG::TN],
                                             bool onto)
{
    constexpr int BM = CFG::BM, BN = CFG::BN, TM = CFG::TM, TN = CFG::TN;
    for (int s = first; s <= last; ++s) {
        const float *part = ws + sk.slot(s, t) * (BM * BN);
        float4 v[TN][TM / 4];
#pragma unroll
        for (int sn = 0; sn < TN / 4; ++sn)
#pragma unroll
            for (int jj = 0; jj < 4; ++jj)
#pragma unroll
                for (int sm = 0; sm < TM / 4; ++sm)
                    v[4 * sn + jj][sm] = __ldcg(reinterpret_cast<const float4 *>(
                        part + (b_frag + sn * CFG::STRIDE_N + jj) * BM + a_frag + sm * CFG::STRIDE_M));
#pragma unroll
        for (int j = 0; j < TN; ++j)
#pragma unroll
            for (int sm = 0; sm < TM / 4; ++sm) {
                const float4 x = v[j][sm];
                if (s == first && !onto) {
                    acc[4 * sm][j] = x.x;
                    acc[4 * sm + 1][j] = x.y;
                    acc[4 * sm + 2][j] = x.z;
                    acc[4 * sm + 3][j] = x.w;
                } else {
                    acc[4 * sm][j] += x.x;
                    acc[4 * sm + 1][j] += x.y;
                    acc[4 * sm + 2][j] += x.z;
                    acc[4 * sm + 3][j] += x.w;
                }
            }
    }
}

/* A block's range ends on the first k tiles of a tile whose other blocks did their part first in
 * their ranges, long before: where all of them have arrived, their partials are added onto acc in
 * k order and the tile stored, the same sums as add_partials' from the slots, without this block's
 * partial going through memory (true); otherwise nothing is done (false) and the partial goes to
 * memory as any other (no block ever waits for another). Only for 128x128 tiles (HOLD): at
 * 1632^3-1664^3 its stream-K plans ran 2.5 % faster so, 128x128's 86 stream-K plans after a copy
 * 3.4 % in geometric mean; 128x64 and 64x128 moved within +-1 % (a 32 KB partial, and their k
 * loops' registers assigned anew; H200, docs/notes/sgemm.md, "Stream-K's last tile from registers") */
template <class CFG> __host__ __device__ constexpr bool hold_last_tile()
{
    return CFG::BM * CFG::BN >= 128 * 128;
}

template <class CFG, class PLACE>
__device__ __forceinline__ bool finish_held(const problem &p, const stream_k &sk, const float *ws,
                                            int *arrived, int t, int first, int last, int m0, int n0,
                                            const PLACE &bp, float (&acc)[CFG::TM][CFG::TN], int &all_arrived)
{
    __syncthreads();
    if (threadIdx.x == 0)
        all_arrived = atomicAdd(arrived + t, 0) == last - first;
    __syncthreads();
    if (!all_arrived)
        return false;
    __threadfence();
    add_partials<CFG>(ws, sk, t, first + 1, last, bp.a_frag, bp.b_frag, acc, true);
    store_tile<CFG>(p, m0, n0, bp.a_frag, bp.b_frag, acc);
    return true;
}

/* the arrival counters zeroed before the stream-K kernel, by a kernel rather than a memset, so that
 * the stream-K kernel can be its programmatic dependent (its launch and the placing of its blocks
 * overlap this one), and this one a dependent of transpose_first's copy where one came before:
 * after a memset every stream-K launch waited for the stream to drain (docs/notes/sgemm.md, "the
 * stream-K counters zeroed by a kernel"). It waits for the kernel before it before it returns, so
 * that the stream-K kernel, waiting for this one, also sees what that one wrote.
 * After a copy (after_copy) its blocks stay resident until the copy completes: allowed then at
 * their start, the stream-K kernel's blocks were placed around them, some SMs taking three where
 * two a SM were planned, and the launch ran 1-3 % slower (1440^3-1536^3 TN and TT, H200,
 * docs/notes/sgemm.md, "the counters' kernel after a copy"): there it allows its dependent at its end. */
constexpr int ZERO_THREADS = 256, ZERO_MAX_BLOCKS = 64;
__global__ void __launch_bounds__(ZERO_THREADS) zero_counters(int *__restrict__ c, int n, int after_copy)
{
    BLOCK_STAMP(0);
    if (!after_copy)
        allow_dependents();
    for (int i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += (int)(gridDim.x * blockDim.x))
        c[i] = 0;
    wait_for_primary();
    BLOCK_STAMP(1);
    if (after_copy)
        allow_dependents();
}

/* the stream-K plan's kernel (struct stream_k): the workspace holds two partial tiles a block, then
 * one arrival counter a tile, zeroed before the launch (zero_counters), which it waits for at its
 * top. A block that arrives last at a shared tile
 * finishes it after its own range: with the finish inside the loop over segments, ptxas gave the k
 * loop a register assignment whose banks collided in 3 FFMAs of 5 (1 in 5 in the data-parallel
 * kernel), and it ran 12-14 % slower than the data-parallel kernel on the same tiles
 * (docs/notes/sgemm.md). A block finishes at most two tiles: its first and its last. */
template <class CFG, int MODE_A, int MODE_B>
__global__ void __launch_bounds__(CFG::THREADS, streamk_blocks<CFG>() > 0 ? streamk_blocks<CFG>() : 1)
    pipelined_streamk_kernel(const problem p, const sched sc, float *__restrict__ ws)
{
    static_assert(CFG::KG == 1, "stream-K runs one k group");
    constexpr int BM = CFG::BM, BN = CFG::BN, BK = CFG::BK, TM = CFG::TM, TN = CFG::TN;
    constexpr bool HOLD = hold_last_tile<CFG>();
    using place = block_place<CFG, MODE_A, MODE_B>;
    extern __shared__ float4 smem_raw[];
    __shared__ int to_finish[2], finishing, held_last;
    BLOCK_STAMP(3);
    wait_for_primary(); /* launched as a dependent of zero_counters: the counters are zero now */
    BLOCK_STAMP(4);
    BLOCK_RECORD(0, block_now());
    const stream_k sk{sc.tiles_m * sc.tiles_n * sc.ktiles, sc.sk_blocks, sc.ktiles};
    int *const arrived = reinterpret_cast<int *>(ws + 2 * (int64_t)sk.blocks * (BM * BN));
    const int b = (int)blockIdx.x, end = sk.first_unit(b + 1);
    if (threadIdx.x == 0)
        finishing = 0;
    for (int u = sk.first_unit(b); u < end;) {
        const int t = u / sk.ktiles, kt0 = u - t * sk.ktiles, kt1 = min(sk.ktiles, kt0 + (end - u));
        __syncthreads(); /* the last tile's fragment reads are done before its stages are refilled */
        int tm, tn;
        tile_coords<RASTER_GROUP>(t, sc.tiles_m, sc.tiles_n, tm, tn);
        const int m0 = tm * BM, n0 = tn * BN;
        const place bp(reinterpret_cast<float *>(smem_raw));
        float acc[TM][TN];
        tile_product<CFG, MODE_A, MODE_B>(p, bp, m0, n0, kt0 * BK, min(p.k, kt1 * BK), acc);
        u += kt1 - kt0;
        if (kt0 == 0 && kt1 == sk.ktiles) {
            store_tile<CFG>(p, m0, n0, bp.a_frag, bp.b_frag, acc);
            continue;
        }
        /* the blocks of a shared tile, by every thread where its last tile may be held (the k loops'
         * registers as measured), else by the thread that counts */
        const int first = HOLD ? sk.block_of(t * sk.ktiles) : 0,
                  last = HOLD ? sk.block_of((t + 1) * sk.ktiles - 1) : 0;
        if (HOLD && kt0 == 0 && u == end &&
            finish_held<CFG>(p, sk, ws, arrived, t, first, last, m0, n0, bp, acc, held_last)) {
            BLOCK_RECORD(5, 1);
            break;
        }
        /* a shared tile: the partial goes to this block's slot, then the tile's arrival count */
        store_partial<CFG>(ws + sk.slot(b, t) * (BM * BN), bp.a_frag, bp.b_frag, acc);
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) {
            const int f = HOLD ? first : sk.block_of(t * sk.ktiles),
                      l = HOLD ? last : sk.block_of((t + 1) * sk.ktiles - 1);
            if (atomicAdd(arrived + t, 1) == l - f)
                to_finish[finishing++] = t;
        }
    }
    __syncthreads();
    const int n = finishing;
    BLOCK_RECORD(1, block_now());
    BLOCK_RECORD(3, block_smid());
    BLOCK_RECORD(4, n);
    BLOCK_RECORD(6, sk.first_unit(b));
    BLOCK_RECORD(7, end);
    for (int i = 0; i < n; ++i) {
        /* every block of the tile has stored its partial: add them in k order and store C */
        const int t = to_finish[i];
        const int first = sk.block_of(t * sk.ktiles), last = sk.block_of((t + 1) * sk.ktiles - 1);
        int tm, tn;
        tile_coords<RASTER_GROUP>(t, sc.tiles_m, sc.tiles_n, tm, tn);
        const place bp(reinterpret_cast<float *>(smem_raw));
        float acc[TM][TN];
        __threadfence();
        add_partials<CFG>(ws, sk, t, first, last, bp.a_frag, bp.b_frag, acc, false);
        store_tile<CFG>(p, tm * BM, tn * BN, bp.a_frag, bp.b_frag, acc);
    }
    BLOCK_STAMP(5);
    BLOCK_RECORD(2, block_now());
}

template <class CFG, int MA, int MB> struct sk_entry {
    static constexpr bool built = streamk_built<CFG>();
    static constexpr void (*kernel())(const problem, const sched, float *)
    {
        return pipelined_streamk_kernel<CFG, MA, MB>;
    }
};

constexpr auto launchers = launchers_of<sk_entry>();

} // namespace

BLOCK_STAMPS_READER(shim_block_stamps_streamk)
BLOCK_RECORDS_READER(shim_block_records_streamk)

cudaError_t launch_zero_counters(const shim_sgemm_args *p, int *counters, int n)
{
    const dim3 grid((unsigned)std::min(ZERO_MAX_BLOCKS, (n + ZERO_THREADS - 1) / ZERO_THREADS));
    if (p->dependent) /* after transpose_first's copy */
        return launch_dependent(zero_counters, grid, dim3(ZERO_THREADS), 0, p->stream, counters, n, 1);
    SHIM_KERNEL_READY(zero_counters);
    zero_counters<<<grid, ZERO_THREADS, 0, p->stream>>>(counters, n, 0);
    return cudaGetLastError();
}

namespace {

sched streamk_sched(const shim_sgemm_args *p, const plan &pl)
{
    const int bk = config(pl.cfg).bk;
    return {pl.tiles_m, pl.tiles_n, 0, 1, 0, pl.sk_blocks, (int)((std::max(p->k, 1) + (int64_t)bk - 1) / bk)};
}

} // namespace

int *streamk_counters(const shim_sgemm_args *p, const plan &pl)
{
    const tile_config &c = config(pl.cfg);
    /* after the two partial tiles of each block */
    return reinterpret_cast<int *>(aligned_work(p) + 2 * (size_t)pl.sk_blocks * (size_t)c.bm * (size_t)c.bn);
}

/* The counters zeroed by transpose_first's copy, and the stream-K kernel that copy's dependent
 * directly: the zero_counters kernel between them waited for the copy, then allowed the stream-K
 * kernel at its end, so that its blocks were placed only after the copy and then waited for it too.
 * Without it the chain is about 1 µs shorter (1400^3 TN 0.1308 -> 0.1296 ms, H200,
 * docs/notes/sgemm.md "The counters zeroed by the copy"). Only where the launch runs one block an SM
 * held there by the floor (launch_modes): where two an SM of a kernel holding three were placed as
 * the copy's blocks left, 23 of 50 such shapes ran 1.25-1.42x their time. */
int streamk_counters_by_copy(const shim_sgemm_args *p, const plan &pl)
{
    if (pl.sk_blocks < 1 || pl.sk_blocks > sm_count() || pl.cfg < 0 || pl.cfg >= TILE_CONFIGS)
        return 0;
    const tile_config &c = config(pl.cfg);
    const sched sc = streamk_sched(p, pl);
    return c.streamk && heavy_blocks(c.bm, c.bn, c.bk, p->k, sc, pl.sk_blocks) ? pl.tiles_m * pl.tiles_n : 0;
}

cudaError_t launch_streamk(const shim_sgemm_args *p, const plan &pl)
{
    if (pl.cfg < 0 || pl.cfg >= TILE_CONFIGS || pl.sk_blocks < 1 || !config(pl.cfg).streamk)
        return cudaErrorInvalidConfiguration;
    if (!p->work || p->work_bytes < plan_work_bytes(pl))
        return cudaErrorInvalidValue;
    const tile_config &c = config(pl.cfg);
    const problem q = make_problem(p);
    const sched sc = streamk_sched(p, pl);
    float *ws = aligned_work(p);
    if (!(p->dependent && p->counters_zeroed)) {
        const cudaError_t err = launch_zero_counters(p, streamk_counters(p, pl), pl.tiles_m * pl.tiles_n);
        if (err != cudaSuccess)
            return err;
    }
    int ma, mb;
    load_modes(p, q, c, ma, mb);
    return launchers[pl.cfg](ma, mb, q, sc, ws, launch_at{pl.sk_blocks, p->stream, true});
}

} // namespace sgemm
