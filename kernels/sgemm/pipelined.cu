/* Rung 7: the multi-stage cp.async pipeline. Warp-tiled like rung 6, but global -> shared copies
 * are asynchronous and STAGES - 1 k tiles ahead of the compute, so the global latency is hidden
 * without registers holding the data in flight; 16-byte copies (.cg, L2 only) move the operands
 * whose contiguous side is M or N and which are 16-byte capable, 4-byte copies (.ca) the others,
 * element by element, which also transposes the K-contiguous operand into the K-major layout.
 *
 * The same kernel runs every launch plan (sgemm_internal.h): blocks below dp_tiles finish their
 * tile over the whole K range; the others compute one K slice of a tile and store it unscaled in
 * the workspace for the ordered reduction of splitk.cu. Several tile configurations are
 * instantiated; each is registered as a variant of its own. */
#include <atomic>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

enum load_mode { LOAD_R16 = 0, LOAD_R4 = 1, LOAD_K4 = 2 };

template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int MIN_BLOCKS_>
struct pipe_config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
    static constexpr int STAGES = STAGES_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
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
};

/* per-thread state for the asynchronous copies of one operand's W x BK tiles. Work is cut in
 * chunks of four elements along the contiguous side, so a warp's copies are coalesced: R modes
 * copy four consecutive rows at one l. With BK 16 a LOAD_K4 chunk pos of a row holds
 * l = 2 pos + {0, 1, 8, 9}: a warp's e-th copies then write l = {e', e'+2, e'+4, e'+6} of 8 rows,
 * whose banks (4 l + row, with LDS = 4 mod 32) are all distinct, where four consecutive l would
 * collide two by two. With BK 8 a warp covers 16 rows x 2 chunks, and four consecutive l per
 * chunk already land the two chunks 16 banks apart. */
template <int MODE, int W, int BK, int THREADS, int LDS> struct async_loader {
    static constexpr bool KC = MODE == LOAD_K4;
    static_assert(!KC || ((BK == 16 || BK == 8) && LDS % 32 == 4),
                  "the K4 element pattern is laid out for BK 8, 16");
    /* offset along k of element e of a K4 chunk, and of chunk pos's first element */
    static constexpr __device__ __forceinline__ int k4_off(int e)
    {
        return BK == 16 ? (e & 1) + (e >> 1) * 8 : e;
    }
    static constexpr __device__ __forceinline__ int k4_first(int pos) { return BK == 16 ? 2 * pos : 4 * pos; }
    static constexpr int CHUNKS = W * BK / 4;
    static constexpr int PER_THREAD = CHUNKS / THREADS;
    static constexpr int CHUNKS_PER_LINE = KC ? BK / 4 : W / 4; /* a line: one row (K4) or one l (R) */
    static constexpr int LINES_PER_PASS = THREADS / CHUNKS_PER_LINE;
    /* byte distance in shared memory between a thread's successive chunks */
    static constexpr uint32_t DST_STEP = 4u * (KC ? LINES_PER_PASS : LINES_PER_PASS * LDS);
    static_assert(CHUNKS % THREADS == 0 && THREADS % CHUNKS_PER_LINE == 0, "loader shape");
    static_assert(PER_THREAD <= 32, "row mask width");

    const float *src[PER_THREAD];
    uint32_t dst;    /* byte offset of the first chunk within a stage */
    int lpos;        /* l of the chunk's first element within the tile */
    int rlim;        /* R modes: how many of the chunk's four rows are inside the matrix */
    unsigned row_ok; /* K4: bit s set when chunk s's row is inside the matrix */
    bool interior;   /* all W rows of the tile are inside the matrix (block-uniform) */

    __device__ __forceinline__ void init(const operand &x, int r0, int kbegin, int tid)
    {
        const int line = tid / CHUNKS_PER_LINE, pos = tid % CHUNKS_PER_LINE;
        interior = r0 + W <= x.rows;
        if (KC) {
            lpos = k4_first(pos);
            row_ok = 0;
#pragma unroll
            for (int s = 0; s < PER_THREAD; ++s) {
                const int r = r0 + line + s * LINES_PER_PASS;
                src[s] = x.ptr + (int64_t)r * x.ld + kbegin + lpos;
                row_ok |= (unsigned)(r < x.rows) << s;
            }
            dst = 4u * (uint32_t)(lpos * LDS + line);
        } else {
            const int r = r0 + pos * 4;
            lpos = line;
            rlim = min(max(x.rows - r, 0), 4);
#pragma unroll
            for (int s = 0; s < PER_THREAD; ++s)
                src[s] = x.ptr + (int64_t)(kbegin + line + s * LINES_PER_PASS) * x.ld + r;
            dst = 4u * (uint32_t)(line * LDS + pos * 4);
        }
    }

    /* copies the k tile starting at k0 (absolute) into the stage at shared address stage, then
     * moves on to the next k tile */
    __device__ __forceinline__ void issue(const operand &x, uint32_t stage, int k0, int kend)
    {
        if (interior && k0 + BK <= kend)
            issue_whole(stage);
        else
            issue_guarded(stage, k0, kend);
#pragma unroll
        for (int s = 0; s < PER_THREAD; ++s)
            src[s] += KC ? (int64_t)BK : BK * x.ld;
    }

    /* every element of the tile is inside the matrix: no predicates, no size operands */
    __device__ __forceinline__ void issue_whole(uint32_t stage) const
    {
#pragma unroll
        for (int s = 0; s < PER_THREAD; ++s) {
            const uint32_t d = stage + dst + s * DST_STEP;
            if (MODE == LOAD_R16) {
                cp_async16(d, src[s], 16u);
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    cp_async4(d + (KC ? 4 * LDS * k4_off(e) : 4 * e), src[s] + (KC ? k4_off(e) : e), 4u);
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
                cp_async16(d, src[s], k0 + lpos + s * LINES_PER_PASS < kend ? 4u * rlim : 0u);
            } else if (MODE == LOAD_R4) {
                const bool l_ok = k0 + lpos + s * LINES_PER_PASS < kend;
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    cp_async4(d + 4 * e, src[s] + e, l_ok && e < rlim ? 4u : 0u);
            } else {
                const bool r_ok = (row_ok >> s) & 1u;
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    cp_async4(d + 4 * LDS * k4_off(e), src[s] + k4_off(e),
                              r_ok && k0 + lpos + k4_off(e) < kend ? 4u : 0u);
            }
        }
    }
};

template <class CFG, int MODE_A, int MODE_B>
__global__ void __launch_bounds__(CFG::THREADS, CFG::MIN_BLOCKS)
    pipelined_kernel(const problem p, const sched sc, float *__restrict__ ws)
{
    constexpr int BM = CFG::BM, BN = CFG::BN, BK = CFG::BK, TM = CFG::TM, TN = CFG::TN;
    constexpr int STAGES = CFG::STAGES;
    using loader_a = async_loader<MODE_A, BM, BK, CFG::THREADS, CFG::LDA_S>;
    using loader_b = async_loader<MODE_B, BN, BK, CFG::THREADS, CFG::LDB_S>;
    extern __shared__ float4 smem_raw[];
    float *const As = reinterpret_cast<float *>(smem_raw);
    float *const Bs = As + STAGES * CFG::A_STAGE;
    const uint32_t as_addr = smem_addr(As), bs_addr = smem_addr(Bs);

    int t = (int)blockIdx.x, slice = 0, kbegin = 0, kend = p.k;
    const bool split = t >= sc.dp_tiles;
    if (split) {
        const int r = t - sc.dp_tiles;
        t = sc.dp_tiles + r / sc.splits;
        slice = r % sc.splits;
        kbegin = slice * sc.kslice;
        kend = min(p.k, kbegin + sc.kslice);
    }
    int tm, tn;
    tile_coords<RASTER_GROUP>(t, sc.tiles_m, sc.tiles_n, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int tid = (int)threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int a_frag = (warp % CFG::WARPS_M) * CFG::WM + (lane % CFG::LANES_M) * 4;
    const int b_frag = (warp / CFG::WARPS_M) * CFG::WN + (lane / CFG::LANES_M) * 4;

    loader_a la;
    loader_b lb;
    la.init(p.a, m0, kbegin, tid);
    lb.init(p.b, n0, kbegin, tid);
    const int ktiles = (kend - kbegin + BK - 1) / BK;

    /* one commit group per k tile, empty ones included, so that wait_group counts tiles */
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        if (st < ktiles) {
            la.issue(p.a, as_addr + 4u * st * CFG::A_STAGE, kbegin + st * BK, kend);
            lb.issue(p.b, bs_addr + 4u * st * CFG::B_STAGE, kbegin + st * BK, kend);
        }
        cp_async_commit();
    }

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;
    float af[2][TM], bf[2][TN];

    auto load_frags = [&](int buf, const float *as, const float *bs) {
#pragma unroll
        for (int s = 0; s < TM / 4; ++s) {
            const float4 v = *reinterpret_cast<const float4 *>(as + a_frag + s * CFG::STRIDE_M);
            af[buf][4 * s] = v.x;
            af[buf][4 * s + 1] = v.y;
            af[buf][4 * s + 2] = v.z;
            af[buf][4 * s + 3] = v.w;
        }
#pragma unroll
        for (int s = 0; s < TN / 4; ++s) {
            const float4 v = *reinterpret_cast<const float4 *>(bs + b_frag + s * CFG::STRIDE_N);
            bf[buf][4 * s] = v.x;
            bf[buf][4 * s + 1] = v.y;
            bf[buf][4 * s + 2] = v.z;
            bf[buf][4 * s + 3] = v.w;
        }
    };

    cp_async_wait<STAGES - 2>();
    __syncthreads();
    int read_stage = 0, write_stage = STAGES - 1;
    const float *as = As, *bs = Bs;
    load_frags(0, as, bs);

    for (int kt = 0; kt < ktiles; ++kt) {
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            if (kk == BK - 1) {
                /* tile kt + 1 has landed for every thread, and every thread is done reading the
                 * stage that the copies issued at the next kk == 0 will overwrite */
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
                as = As + read_stage * CFG::A_STAGE;
                bs = Bs + read_stage * CFG::B_STAGE;
            }
            const int next_kk = (kk + 1) % BK;
            load_frags((kk + 1) % 2, as + next_kk * CFG::LDA_S, bs + next_kk * CFG::LDB_S);
            if (kk == 0) {
                const int next = kt + STAGES - 1;
                if (next < ktiles) {
                    la.issue(p.a, as_addr + 4u * write_stage * CFG::A_STAGE, kbegin + next * BK, kend);
                    lb.issue(p.b, bs_addr + 4u * write_stage * CFG::B_STAGE, kbegin + next * BK, kend);
                }
                cp_async_commit();
                write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
            }
            outer_product(acc, af[kk % 2], bf[kk % 2]);
        }
    }
    cp_async_wait<0>();

    if (!split) {
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
    } else {
        /* the whole tile, edges included: the reduction only reads what lies inside C */
        float *part = ws + ((int64_t)(t - sc.dp_tiles) * sc.splits + slice) * (BM * BN);
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
}

/*                               BM   BN  BK  WM  WN TM  TN STAGES MIN_BLOCKS */
using cfg_128x128 = pipe_config<128, 128, 16, 64, 32, 8, 8, 4, 2>;
using cfg_128x256 = pipe_config<128, 256, 16, 64, 64, 8, 16, 4, 1>;
using cfg_128x64 = pipe_config<128, 64, 16, 64, 32, 8, 8, 4, 3>;
using cfg_64x64 = pipe_config<64, 64, 16, 64, 32, 8, 8, 4, 6>;
using cfg_128x128_k8 = pipe_config<128, 128, 8, 64, 32, 8, 8, 4, 2>;
using cfg_128x256_k8 = pipe_config<128, 256, 8, 64, 64, 8, 16, 4, 1>;
using cfg_256x128_k8 = pipe_config<256, 128, 8, 64, 64, 8, 16, 4, 1>;
using cfg_64x128 = pipe_config<64, 128, 16, 32, 64, 8, 8, 4, 3>;

template <class CFG, int MA, int MB>
cudaError_t launch_modes(const problem &q, const sched &sc, float *ws, int blocks, cudaStream_t stream)
{
    void (*kernel)(const problem, const sched, float *) = pipelined_kernel<CFG, MA, MB>;
    static std::atomic<unsigned long long> configured{0}; /* one per instantiation */
    const cudaError_t err = smem_attribute_once(kernel, (int)CFG::SMEM, configured);
    if (err != cudaSuccess)
        return err;
    kernel<<<(unsigned)blocks, CFG::THREADS, CFG::SMEM, stream>>>(q, sc, ws);
    return cudaGetLastError();
}

template <class CFG>
cudaError_t launch_config(int ma, int mb, const problem &q, const sched &sc, float *ws, int blocks,
                          cudaStream_t stream)
{
    switch (ma * 3 + mb) {
    case LOAD_R16 * 3 + LOAD_R16: return launch_modes<CFG, LOAD_R16, LOAD_R16>(q, sc, ws, blocks, stream);
    case LOAD_R16 * 3 + LOAD_R4: return launch_modes<CFG, LOAD_R16, LOAD_R4>(q, sc, ws, blocks, stream);
    case LOAD_R16 * 3 + LOAD_K4: return launch_modes<CFG, LOAD_R16, LOAD_K4>(q, sc, ws, blocks, stream);
    case LOAD_R4 * 3 + LOAD_R16: return launch_modes<CFG, LOAD_R4, LOAD_R16>(q, sc, ws, blocks, stream);
    case LOAD_R4 * 3 + LOAD_R4: return launch_modes<CFG, LOAD_R4, LOAD_R4>(q, sc, ws, blocks, stream);
    case LOAD_R4 * 3 + LOAD_K4: return launch_modes<CFG, LOAD_R4, LOAD_K4>(q, sc, ws, blocks, stream);
    case LOAD_K4 * 3 + LOAD_R16: return launch_modes<CFG, LOAD_K4, LOAD_R16>(q, sc, ws, blocks, stream);
    case LOAD_K4 * 3 + LOAD_R4: return launch_modes<CFG, LOAD_K4, LOAD_R4>(q, sc, ws, blocks, stream);
    default: return launch_modes<CFG, LOAD_K4, LOAD_K4>(q, sc, ws, blocks, stream);
    }
}

template <class CFG> constexpr tile_config describe(const char *name, int blocks_per_sm, double efficiency)
{
    return tile_config{name, CFG::BM, CFG::BN, CFG::BK, CFG::THREADS, blocks_per_sm, CFG::SMEM, efficiency};
}

/* blocks_per_sm: the smaller of MIN_BLOCKS (registers) and what 227 KB of shared memory holds
 * with 1 KB reserved per block; efficiency: fraction of FFMA peak (66.9 TFLOP/s) at full
 * occupancy, fitted to run 9 (NN, 2048^3-16384^3 through plan.cu's wave model): 128x64 0.71
 * (0.67 at 16384^3), 128x128 0.63-0.64, 128x128x8 0.61, 128x256 0.60, 64x64 0.60; 64x128 (the
 * mirror of 128x64, for K-contiguous A) as 128x64: measured the same at 8192^3 NT, 50.4 and 50.3.
 * plan.cu's layout factor is 1 for NN at 128-row tiles and 1.15 for 64x64, whose NN B copies face
 * 64 rows: that makes 64x64 NN 15 % dearer than fitted, in line with 64x4096x4096, where it ran
 * 10-15 % behind 64x128 in every case. */
const tile_config configs[] = {
    describe<cfg_128x128>("128x128", 2, 0.635),     describe<cfg_128x256>("128x256", 1, 0.60),
    describe<cfg_128x64>("128x64", 3, 0.71),        describe<cfg_64x64>("64x64", 6, 0.60),
    describe<cfg_128x128_k8>("128x128x8", 2, 0.61), describe<cfg_128x256_k8>("128x256x8", 1, 0.0),
    describe<cfg_256x128_k8>("256x128x8", 1, 0.0),  describe<cfg_64x128>("64x128", 3, 0.71),
};

/* one launcher per configuration, indexed by tile_config_id */
using config_launcher = cudaError_t (*)(int, int, const problem &, const sched &, float *, int, cudaStream_t);
const config_launcher launchers[] = {
    launch_config<cfg_128x128>, launch_config<cfg_128x256>,    launch_config<cfg_128x64>,
    launch_config<cfg_64x64>,   launch_config<cfg_128x128_k8>, launch_config<cfg_128x256_k8>,
    launch_config<cfg_256x128_k8>, launch_config<cfg_64x128>,
};
static_assert(sizeof configs / sizeof *configs == TILE_CONFIGS && sizeof launchers / sizeof *launchers == TILE_CONFIGS,
              "one configuration and one launcher per tile_config_id, in its order");

} // namespace

const tile_config &config(int id)
{
    return configs[id];
}

cudaError_t launch_plan(const shim_sgemm_args *p, const plan &pl)
{
    const problem q = make_problem(p);
    const sched sc = {pl.tiles_m, pl.tiles_n, pl.dp_tiles, pl.splits, pl.kslice};
    const int64_t blocks = (int64_t)pl.dp_tiles + (int64_t)pl.split_tiles * pl.splits;
    if (blocks < 1 || blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    float *ws = nullptr;
    if (pl.split_tiles > 0) {
        if (!p->work || p->work_bytes < plan_work_bytes(pl))
            return cudaErrorInvalidValue;
        ws = aligned_work(p);
    }
    const int ma = p->transa ? LOAD_K4 : q.a.vec ? LOAD_R16 : LOAD_R4;
    const int mb = !p->transb ? LOAD_K4 : q.b.vec ? LOAD_R16 : LOAD_R4;
    if (pl.cfg < 0 || pl.cfg >= TILE_CONFIGS)
        return cudaErrorInvalidValue;
    const cudaError_t err = launchers[pl.cfg](ma, mb, q, sc, ws, (int)blocks, p->stream);
    if (err != cudaSuccess || pl.split_tiles == 0)
        return err;
    return launch_split_reduce(p, pl, ws);
}

} // namespace sgemm
