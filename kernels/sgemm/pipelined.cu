/* Rung 7: the multi-stage cp.async pipeline (pipelined_tile.cuh), data-parallel and split-K.
 *
 * The same kernel runs the data-parallel and split-K launch plans (sgemm_internal.h): blocks below
 * dp_tiles finish their tile over the whole K range; the others compute one K slice of a tile and
 * store it unscaled in the workspace for the ordered reduction of splitk.cu. Stream-K plans run
 * streamk.cu's kernel. Several tile configurations are instantiated; each is registered as a
 * variant of its own. */
#include "pipelined_kernel.cuh"

namespace sgemm {
namespace {

template <class CFG, int MA, int MB> struct dp_entry {
    static constexpr bool built = true;
    static constexpr void (*kernel())(const problem, const sched, float *) { return pipelined_kernel<CFG, MA, MB>; }
};
template <class CFG, int MA, int MB> struct dp_staged_entry {
    static constexpr bool built = true;
    static constexpr void (*kernel())(const problem, const sched, float *)
    {
        static_assert(staged_store_fits<CFG, MA, MB>(), "the staged store fits the stages");
        return pipelined_kernel<CFG, MA, MB, true>;
    }
};

template <class CFG>
constexpr tile_config describe(const char *name, int blocks_per_sm, double efficiency, int k_face = 0,
                               double k4_scale = 1.0, bool c16 = false)
{
    return tile_config{name,       CFG::BM,    CFG::BN,   CFG::BK, CFG::THREADS, blocks_per_sm,
                       CFG::SMEM,  efficiency, fits<CFG, LOAD_K16, LOAD_K16>(),
                       std::min(streamk_blocks<CFG>(), blocks_per_sm), CFG::SPLIT,
                       k_face,     CFG::KG > 1, k4_scale, c16};
}

/* blocks_per_sm: the smaller of MIN_BLOCKS (registers) and what 227 KB of shared memory holds
 * with 1 KB reserved per block; efficiency: fraction of FFMA peak (66.9 TFLOP/s) at full
 * occupancy, fitted to run 9 (NN, 2048^3-16384^3 through plan.cu's wave model): 128x64 0.71
 * (0.67 at 16384^3), 128x128 0.63-0.64, 128x128x8 0.61, 128x256 0.60, 64x64 0.60; 64x128 (the
 * mirror of 128x64, for K-contiguous A) as 128x64: measured the same at 8192^3 NT, 50.4 and 50.3.
 * plan.cu's layout factor is 1 for NN at 128-row tiles and 1.15 for 64x64, whose NN B copies face
 * 64 rows: that makes 64x64 NN 15 % dearer than fitted, in line with 64x4096x4096, where it ran
 * 10-15 % behind 64x128 in every case.
 * The 8-warp k8 configurations (one block an SM, 8x16 a thread), since their k loop lost the copies'
 * tests (H100, 2026-11-25, bench/sgemm_plans, docs/notes/sgemm.md): 0.75-0.76 from one wave
 * (2048^3 NN and NT, 0.342 and 0.337 ms) to 16 (8192^3 NN 21.53 ms, NT 21.21), where 128x64 measures
 * 0.72 (22.11 and 22.20 ms). Measured fast only with a K-contiguous operand facing their 256 side
 * (K4 facing 128 ran 21 % behind at 2048^3) and 16-byte copies of the others (4-byte ones, odd
 * leading dimensions, ran up to 2x behind): k_face 256 keeps them to that.
 * 128x64kg2 (two k groups of four warps a 128x64 tile), planned only where the tiles leave each SM
 * one block (one_wave): 0.706 from 1000^3 NN (H100, 2026-11-25: 0.0543 ms, 0.96x cuBLAS, where the
 * four-warp 128x64 tiles take 0.0609 and splitk 0.0613); at 1200^3 (190 tiles) and 2048^3 it trails
 * splitk and the 8-warp k8 tiles.
 * Refitted on every plan of 177 shapes timed (bench/sgemm_plan_space, H100 and H200, 2026-11-26;
 * bench/plan_regret scores a set of constants against them, docs/notes/sgemm.md): 128x128 0.635 ->
 * 0.70 (measured 0.70 NN and 0.78 NT at two blocks an SM, 0.64 NN and 0.75 NT at one, from 1000^3 to
 * 2048^3, where the model put it 10-13 % too slow and chose 128x64 tiles 4-10 % slower), 128x64kg2
 * 0.706 -> 0.62 (measured 0.64 NN, 0.67 NT: 896^3 NT took it over a split 4 % faster). 128x128 was
 * measured with 16-byte copies of its R-contiguous operands only, and k_face 128 kept it to those,
 * until the plan space of the shapes furthest behind cuBLAS showed its split plans with 4-byte ones
 * fastest at 5663x493x5011 NT (14 % ahead of the 128x64 tiles chosen) and 963x2687x2760 NT (7 %):
 * no k_face now, its 4-byte copies priced (plan.cu's R4_COST x k4_scale; H200, 2026-11-26).
 * 128x128's K4 copies cost it twice what they cost 128x64: NN and TT ran 1.100x and 1.099x NT's
 * time in the same plans (medians over 535 plans each, H100 plan space, 2026-11-26; 1.105x and
 * 1.102x over 150 mid squares), where the model's K4 price is 1.053x, measured on 128x64 (1.036x
 * there): k4_scale 1.9, and its efficiency is its NN rate with that price, 0.70 x 1.100 / 1.053 =
 * 0.73 (NT 0.77; measured 0.78). And with 4-byte stores of C (C not 16-byte capable) its tiles ran
 * 4-9 % behind 128x64's where the 16-byte stores of a C four floats wider ran them 2-7 % ahead
 * (H200, 2026-11-26: 2725x2748x4431 TN against 2728x2748x4431, 6517x2633x702 against 6520x2636x702,
 * 1250x3467x4653 against 1252x3468x4653, operands copied first): c16 keeps its data-parallel tiles
 * to 16-byte C where C is not staged (K beyond staged_c_max_k; split plans store partials, not C:
 * config_planned).
 * 128x128w4 (four warps of 64x64, 8x16 a thread, k tiles of 8, two blocks an SM: the block cuBLAS
 * runs for TN and TT at the mid squares) measured 1.03-1.3x the time of our best other plan in NN, NT
 * and TT, but its K16 transposes cost it only what the model charges (TN 2.3-2.7 % over its NT, where
 * 128x64 pays 8-10 %), so TN splits of it ran 2-5 % ahead at 1120^3-1664^3 (H200, 2026-11-26,
 * bench/sgemm_plan_space, docs/notes/sgemm.md, "cuBLAS's TN block"). At 0.70, the best value on
 * its own plan space (38 shapes), the model took it for 18 TN shapes of 100 measured, 7 of them
 * 2-11 % slower (1280^3, 2048x2048x256, 512x512x4096, many-wave squares from 2080); at 0.66 for
 * three, each faster: 1120^3 TN 3.3 %, 1152^3 TN 5.6 %, 605x1252x10992 TN 4.7 %, and no other of the
 * 447 benchmark shapes. k4_scale 2.5: its NN ran 10-15 % behind its NT (K4 facing 128); c16 as
 * 128x128 (not measured with a C off 16 bytes).
 * 64x64w4 (four warps of 64x16, 8x4 a thread, four blocks an SM: cuBLAS's 896^3 block) planned for
 * whole tiles, where they give at least half the SMs a block (plan.cu's config_planned); its splits
 * of every tile by the reduction kernel are taken by rule (plan_split_halves), as pricing them took
 * many-slice splits of it in place of the two slices finished in clusters, up to 1.2x slower
 * (512^3); its tails and splits in clusters are priced at W4_SPLIT_PRICE of the model
 * (sgemm_internal.h), its whole tiles at this efficiency. Where few 128x64 tiles
 * leave most SMs idle and K is short its whole tiles ran the fastest plan of 43 of 49 benchmark shapes
 * on which the selector ran the k groups (0.59-0.86x cuBLAS before, 0.86-1.2x on them; H200,
 * 2026-11-28, every plan, bench/shapes/kg2_few_tiles.txt; docs/notes/sgemm.md, "64x64w4's whole tiles
 * priced"). 0.45-0.62 all gained with bench/plan_regret over 818 shapes measured under both (0.58:
 * 1.0642 -> 1.0377 of the fastest plan in geometric mean), 0.65 and above took it where it loses; the
 * 81 of 1469 benchmark shapes whose plan changes ran 0.828 of the time (0.763x -> 0.921x cuBLAS). */
const tile_config configs[] = {
    describe<cfg_128x128>("128x128", 2, 0.73, 0, 1.9, true), describe<cfg_128x256>("128x256", 1, 0.60),
    describe<cfg_128x64>("128x64", 3, 0.71),        describe<cfg_64x64>("64x64", 6, 0.60),
    describe<cfg_128x128_k8>("128x128x8", 2, 0.61), describe<cfg_128x256_k8>("128x256x8", 1, 0.75, 256),
    describe<cfg_256x128_k8>("256x128x8", 1, 0.75, 256), describe<cfg_64x128>("64x128", 3, 0.71),
    describe<cfg_128x64_kg2>("128x64kg2", 2, 0.62),  describe<cfg_128x128_w4>("128x128w4", 2, 0.66, 0, 2.5, true),
    describe<cfg_64x64_w4>("64x64w4", 4, 0.58),
};

constexpr auto launchers = launchers_of<dp_entry>();
constexpr auto launchers_staged = launchers_of<dp_staged_entry>();
static_assert(sizeof configs / sizeof *configs == TILE_CONFIGS, "one configuration per tile_config_id, in its order");

} // namespace

const tile_config &config(int id)
{
    return configs[id];
}

cudaError_t launch_plan(const shim_sgemm_args *p, const plan &pl)
{
    if (pl.sk_blocks > 0)
        return launch_streamk(p, pl);
    if (pl.cluster)
        return launch_split_cluster(p, pl);
    const problem q = make_problem(p);
    const sched sc = {pl.tiles_m, pl.tiles_n, pl.dp_tiles, pl.splits, pl.kslice, 0, 0};
    const int64_t blocks = (int64_t)pl.dp_tiles + (int64_t)pl.split_tiles * pl.splits;
    if (blocks < 1 || blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    float *ws = nullptr;
    if (pl.split_tiles > 0) {
        if (!p->work || p->work_bytes < plan_work_bytes(pl))
            return cudaErrorInvalidValue;
        ws = aligned_work(p);
    }
    if (pl.cfg < 0 || pl.cfg >= TILE_CONFIGS || (pl.split_tiles > 0 && !config(pl.cfg).split))
        return cudaErrorInvalidValue;
    int ma, mb;
    load_modes(p, q, config(pl.cfg), ma, mb);
    const bool staged = !q.c_vec && p->k <= staged_c_max_k(pl.cfg);
    const cudaError_t err = (staged ? launchers_staged : launchers)[pl.cfg](
        ma, mb, q, sc, ws, launch_at{(int)blocks, p->stream, p->dependent != 0});
    if (err != cudaSuccess || pl.split_tiles == 0)
        return err;
    return launch_split_reduce(p, pl, ws);
}

} // namespace sgemm
