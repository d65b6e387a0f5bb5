/* The choice among the SGEMM variants (shim_sgemm_select): the tensor-core classes by their cost
 * models, and the FP32 ladder by plan.cu's model, its rules where the model was measured wrong, and
 * transpose_first's copies where they pay. The variants themselves are registry.cu's table. */
#include <algorithm>
#include <cstdint>

#include "sgemm_internal.h"
#include "variant_table.h"

using namespace sgemm;

namespace {

/* a split plan must beat the best data-parallel one by this factor: its model has more terms
 * to get wrong */
constexpr double SPLIT_MARGIN = 0.97;

/* Two slices of 64x64w4 tiles in clusters past K = 1024 (plan_split_halves), taken by price: the
 * model's estimate times this. The model prices every 64x64w4 plan of K 900-1500 at 1.2-1.3x its
 * time (measured over model, medians: the halves 0.807, whole tiles 0.829; other configurations
 * 0.87-1.05) (H200, 2026-11-28, bench/sgemm_plan_space on 120 shapes, bench/shapes/halves_priced.txt);
 * with 0.85 bench/plan_regret finds every plan it changes there at 0.93-1.00 of the time before
 * (1100^3-1152^3 and 1300^3-1344^3 every case, 1420x1074x1232 NN), where 0.80 also took it at
 * 1184^3-1280^3, 1.05-1.09 slower, and 1.0 never. 0.84 moves 10 of the 6753 benchmark shapes and
 * 285 of 7973 random ones of that domain (K 1025-1500), all to the halves; measured against 0.85
 * (H200, 2026-11-30, bench/sgemm_plans, alternately, three rounds; docs/notes/sgemm.md, "The halves'
 * price at 0.84"): 60 of the random ones 0.961 of the time in geometric mean (0.904-1.068; 8 slower
 * by over 2 %), the 10 0.979 (1056^3 NN 0.949x -> 0.979x cuBLAS, 1056^3 and 1088^3 NN and TT 0.97),
 * 20 unmoved controls 1.001. (plan_cost multiplies their estimate by W4_SPLIT_PRICE already:
 * select_fp32_ladder divides that out, so they cost this of the model.) */
constexpr double HALVES_PRICE = 0.84;

/* In place of a split of at least this many slices finished by the reduction kernel, the halves
 * where their blocks are one an SM at most and more than two thirds of the SMs: their pairs then
 * all run at once, each block a 64x64 tile's half of K, against more, shorter blocks and a
 * reduction after. Measured on 71 random shapes of K 512-1024 where the selector took such a split
 * and the halves could run (H200, 2026-11-29, bench/shapes/halves_many_slices.txt,
 * docs/notes/sgemm.md "The halves in place of many slices"): at 90-132 blocks of the halves 0.68-0.93
 * of the split's time, every one of 35 (512^3 TN 0.75; geometric mean 0.83); at 88 and fewer
 * 0.97-1.60; past one an SM (140-312 blocks) 1.00-1.26, as the blocks of some SMs then run twice */
constexpr int HALVES_MANY_SLICES = 5;

/* the shortest K at which one wave of 128x128 whole tiles gives way to stream-K over every SM
 * (select_fp32_planned). 2560 while stream-K's last tile went through memory (at K 1400-1500 it ran
 * 1.01 of the whole tiles' time); with the last tile finished from registers (streamk.cu,
 * finish_held) the 52 benchmark shapes of 116-121 tiles and K 1066-2558 that 1024 moves ran 0.975
 * of the time in geometric mean, none slower by more than 0.1 % (H200, 2026-11-29,
 * docs/notes/sgemm.md, "Stream-K's last tile from registers") */
constexpr int SK_ONE_AN_SM_MIN_K = 1024;

} // namespace

/* Where the register-staged warptile kernels were measured faster than the cost model's choice
 * (H200; docs/perf.md, docs/notes/sgemm.md):
 * - An A stored K-contiguous (transa) reaches the pipelined kernels' shared memory by 4-byte
 *   transposing cp.async (K4), which costs 13-25 % against warptile's 16-byte loads transposed on
 *   the shared store. Where A goes by 16-byte copies instead (K16, k16_operands) the pipelined
 *   kernel is the faster one (8192^3 TN by name: 45.1 against 41.7-42.0) and stays. So with transa
 *   and K4: warptile (128x128) where its tiles give every SM at least one block
 *   and the last wave (2 blocks per SM) is at least 85 % full, and warptile_128x64x16 in place of a
 *   data-parallel 128x64 plan on grids of fewer tiles than SMs. Split-K plans stay: there the
 *   pipelined kernel's K slices matter more than the copy. So do TT plans whose tiles are 128 or
 *   more columns wide (64x128, which the model picks where A's copies dominate): A's copies face
 *   128 columns there, as NN's B copies face 128 rows at 128x64, the layout that costs the
 *   pipelined kernels least.
 * - With m, n and k all at least 16384 the 128x64 pipelined kernel falls to 42.6-45.6 TFLOP/s NN,
 *   where it does 47.6-48.9 NN at 12288^3, 16384x16384x8192 and 8192x8192x32768, while warptile
 *   holds 47.1 NN there. Not understood (L2 hit rate 61 % against 90 % at 8192^3; raster groups of
 *   4 and 16 tile rows do no better than 8); from that size on warptile replaces it for NN. NT does
 *   not fall as far (46.2 in one run, 48.8 in another, against warptile's 47.4 in both), so it
 *   keeps the pipelined kernel, and transpose_first turns the other cases into NT there. */
constexpr int LARGE_SIDE = 16384;

static int register_staged_where_faster(const shim_sgemm_args *p, int chosen, int cfg)
{
    if (!p->transa)
        return chosen == V_PIPE_128x64 && !p->transb && p->m >= LARGE_SIDE && p->n >= LARGE_SIDE &&
                       p->k >= LARGE_SIDE
                   ? V_WARPTILE
                   : chosen;
    if (chosen == V_SPLITK || chosen == V_SPLITK_CLUSTER || chosen == V_SPLITK_GROUPS ||
        chosen == V_SPLITK_HALVES || chosen == V_STREAMK || (p->transb && config(cfg).bn >= 128) ||
        (k16_operands(p, config(cfg)) & K16_A))
        return chosen;
    const int64_t tiles = (int64_t)((p->m + 127) / 128) * ((p->n + 127) / 128);
    const int64_t slots = 2 * (int64_t)sm_count();
    const int64_t waves = (tiles + slots - 1) / slots;
    if (tiles >= slots / 2 && (double)tiles >= 0.85 * (double)(waves * slots))
        return V_WARPTILE;
    if (tiles < slots / 2 && chosen == V_PIPE_128x64)
        return V_WARPTILE_128x64x16;
    return chosen;
}

/* Tiny products, where naive's small set-up wins. Its threads run along m, so it reads A coalesced
 * only when A is not transposed. Measured (H200, bench/sgemm_plans on 8480 shapes, naive against
 * the fastest other plan): A not transposed, 0.83x up to k = 128 and m n k = 2^24; A transposed,
 * 0.64-0.86x where k < 8 (to m n k = 2^24) or m <= 16 (to 2^21), and 1.7-80x slower beyond
 * m n k = 2^20 otherwise. */
static bool naive_is_fastest(const shim_sgemm_args *p)
{
    const int64_t mnk = (int64_t)p->m * p->n * std::max(p->k, 1);
    const int64_t tiny = (int64_t)1 << 18;
    if (!p->transa)
        return p->k <= 128 ? mnk <= ((int64_t)1 << 24) : p->k <= 256 && mnk <= tiny;
    if (p->k < 8)
        return mnk <= ((int64_t)1 << 24);
    return p->k <= 256 && (mnk < tiny || (p->m <= 16 && mnk <= ((int64_t)1 << 21)));
}

/* the FP32 ladder's choice and its expected seconds (0 for the tiny products, where launch latency
 * is all there is); spread: with the clusters of one wave that the device spreads as lone blocks
 * (plan_splitk_cluster in place of plan_splitk_cluster_placed) */
static int select_fp32_ladder(const shim_sgemm_args *p, double *seconds, bool spread)
{
    *seconds = 0.0;
    if (naive_is_fastest(p))
        return V_NAIVE;
    const plan dp = best_dp(p);
    int best = variant_for_config(dp.cfg), best_cfg = dp.cfg;
    double best_cost = plan_cost(p, dp);
    if (p->k > 0 && p->alpha != 0.0f) {
        const plan split = plan_splitk(p);
        if (split.split_tiles > 0 && plan_cost(p, split) < SPLIT_MARGIN * best_cost) {
            best_cost = plan_cost(p, split) / SPLIT_MARGIN;
            best = V_SPLITK;
            best_cfg = split.cfg;
        }
        const plan csplit = spread ? plan_splitk_cluster(p) : plan_splitk_cluster_placed(p);
        if (csplit.cluster && plan_cost(p, csplit) < SPLIT_MARGIN * best_cost) {
            best_cost = plan_cost(p, csplit) / SPLIT_MARGIN;
            best = V_SPLITK_CLUSTER;
            best_cfg = csplit.cfg;
        }
        const plan tail = plan_tail(p);
        if (tail.split_tiles > 0 && tail.dp_tiles > 0 && plan_cost(p, tail) < SPLIT_MARGIN * best_cost) {
            best_cost = plan_cost(p, tail) / SPLIT_MARGIN;
            best = V_SPLITK_TAIL;
            best_cfg = tail.cfg;
        }
        const plan sk = plan_streamk_priced(p);
        if (sk.sk_blocks > 0 && plan_cost(p, sk) < SPLIT_MARGIN * best_cost) {
            best_cost = plan_cost(p, sk) / SPLIT_MARGIN;
            best = V_STREAMK;
            best_cfg = sk.cfg;
        }
    }
    /* the split finished in groups of clusters where that measured faster (plan_splitk_groups) */
    if (best == V_SPLITK && plan_splitk_groups(p).cluster)
        best = V_SPLITK_GROUPS;
    /* in place of a split of every tile in four slices finished by the reduction kernel or in pairs,
     * two slices of 64x64 tiles finished in clusters where they may run (plan_split_halves): as many
     * blocks (twice as many for 128x128 tiles), the same work a block, a quarter of the partial sums,
     * no reduction after. Measured against those plans (H200, 2026-11-28, bench/shapes/
     * halves_aligned.txt, 69 random shapes, K 512-1024): 0.75-0.93 of the time, all 22; against
     * splits of three slices 1.00-1.09 and against four finished in one cluster a tile 0.94-1.05,
     * which it does not replace. The model's estimate kept, an upper bound here. So also where the
     * same tiles won whole (their efficiency in pipelined.cu): in place of them, the two slices in clusters
     * ran 0.954-1.000 of the time, on the whole 1148x436x896 NT 4.6 % slower (plan spaces, H200, 2026-11-28).
     * And in place of a split of five or more slices where the halves' blocks fill most of one wave
     * (HALVES_MANY_SLICES) */
    if (split_halves_priced(p)) {
        const plan halves = plan_split_halves(p);
        /* plan_cost prices them at W4_SPLIT_PRICE of the model already */
        const double price = HALVES_PRICE / W4_SPLIT_PRICE * plan_cost(p, halves);
        if (halves.cluster && price < best_cost) {
            best_cost = price;
            best = V_SPLITK_HALVES;
            best_cfg = TILE_64x64_W4;
        }
    } else if (best == V_SPLITK || best == V_SPLITK_GROUPS ||
               best == V_PIPE_64x64_W4) { /* plan_splitk's tiles and slices */
        const plan halves = plan_split_halves(p), split = plan_splitk(p);
        const int64_t blocks = (int64_t)halves.split_tiles * halves.splits, sms = sm_count();
        const bool as_many =
            split.splits == 4 && blocks >= (int64_t)split.split_tiles * split.splits * 9 / 10;
        const bool one_an_sm =
            best == V_SPLITK && split.splits >= HALVES_MANY_SLICES && 3 * blocks > 2 * sms && blocks <= sms;
        if (halves.cluster && (as_many || one_an_sm)) {
            best = V_SPLITK_HALVES;
            best_cfg = TILE_64x64_W4;
        }
    }
    /* one wave of 128x128 whole tiles that leaves SMs idle, where K is long enough for their share
     * to outrun stream-K's own work (SK_ONE_AN_SM_MIN_K): stream-K over every SM, as plan_streamk offers it
     * there (one block an SM, streamk_blocks; 116-121 tiles of 132). Against the whole tiles (H200,
     * 2026-11-29): 1400x1400x4000 NT 0.94 of their time, at K 1400-1500 1.01, at K 300 1.29
     * (bench/sgemm_plan_space); on 39 random shapes of K 2592-7324 (bench/shapes/
     * sk_one_an_sm_long_k.txt, NT, the form they run in after copies) 0.927-0.979 with 117-121 tiles
     * (19 shapes, geometric mean 0.948), 0.99-1.03 with 126-130 (20), which plan_streamk_priced
     * does not offer; the estimate kept (docs/notes/sgemm.md, "128x128 by stream-K, one block an
     * SM"). The priced plan, as plan_streamk also runs 128x128 past one wave */
    if (best == V_PIPE_128x128 && p->k >= SK_ONE_AN_SM_MIN_K) {
        const plan sk = plan_streamk_priced(p);
        if (sk.cfg == TILE_128x128 && sk.sk_blocks > 0)
            best = V_STREAMK;
    }
    *seconds = best_cost;
    return register_staged_where_faster(p, best, best_cfg);
}

/* plan_splitk_cluster's plan is one that only cluster_spread_in_one_wave admits */
static bool spread_cluster_plan(const shim_sgemm_args *p)
{
    const plan spread = plan_splitk_cluster(p), placed = plan_splitk_cluster_placed(p);
    return spread.cfg != placed.cfg || spread.splits != placed.splits || spread.cluster != placed.cluster;
}

/* Clusters in one wave that the device spreads (plan.cu's cluster_spread_in_one_wave), where the
 * ladder without them splits every tile, finished by the reduction kernel or in clusters. Measured
 * against the plans chosen without them (H200, 2026-11-29, bench/sgemm_plans on the benchmark shapes
 * whose choice they moved, bench/shapes/cluster_spread.txt; docs/notes/sgemm.md, "Clusters in one
 * wave that the device spreads"): in place of a split finished by the reduction kernel 0.935 of the
 * time in geometric mean (53 shapes), of another cluster split 0.917 (38); in place of the halves
 * (plan_split_halves) 1.078 (88) and of 64x64w4's whole tiles 1.085 (6), which the model prices
 * above the new clusters: those are kept. */
static int select_fp32_planned(const shim_sgemm_args *p, double *seconds)
{
    const int placed = select_fp32_ladder(p, seconds, false);
    if ((placed != V_SPLITK && placed != V_SPLITK_CLUSTER) || !spread_cluster_plan(p))
        return placed;
    double spread_seconds;
    const int spread = select_fp32_ladder(p, &spread_seconds, true);
    if (spread != V_SPLITK_CLUSTER)
        return placed;
    *seconds = spread_seconds;
    return spread;
}

/* the same, remembered: asked for the caller's form and each copied form at every select, work_bytes
 * and launch */
static int select_fp32_index(const shim_sgemm_args *p, double *seconds)
{
    struct choice {
        int index;
        double seconds;
    };
    static thread_local shape_memo<choice> memo;
    choice c;
    if (const choice *known = memo.find(p))
        c = *known;
    else
        c.index = select_fp32_planned(p, &c.seconds), memo.keep(p, c);
    *seconds = c.seconds;
    return c.index;
}

namespace sgemm {
const shim_sgemm_variant *select_fp32_direct(const shim_sgemm_args *p, double *seconds)
{
    return &variants[select_fp32_index(p, seconds)];
}
} // namespace sgemm

/* Tiles that take the operand a copy would flip as it is, where the copied form would run on them:
 * they run directly, in place of the copy.
 * - TN's copy of A feeding the 8-warp 256x128x8 tiles: those tiles run TN directly, both operands by
 *   16-byte copies transposed in shared memory: measured 1-4 % faster than after the copy at
 *   2000^3-4096^3 (H200: 2000^3 0.3411 ms against 0.3522, 2048^3 0.3496 against 0.3597; H100: 2816^3
 *   4.3 %, 3584^3 3 %). The model does not choose them itself: k_face keeps K-contiguous operands
 *   facing their 128 side off them, and waived for TN it also took them where they displace 128x64
 *   plans on fewer tiles than SMs, 10 % slower (docs/notes/sgemm.md).
 * - NN's copy of B feeding the k-group tiles (one the model makes where B's rows lie off 32-byte
 *   sectors: MISALIGNED_COST): their copies by lanes take B as fast at every leading dimension (H200,
 *   2026-11-28: 1000x1000xK NN, a k tile 0.822-0.835 us for K = 992-1024, ldb % 8 == 4 included), and
 *   directly they ran 0.927-0.983 of the time after B's copy on the 25 benchmark shapes where the
 *   selector made it (1000x1000x996 NN 0.0563 -> 0.0527 ms, 0.929x -> 0.992x cuBLAS; 1409x458x257
 *   0.795x -> 0.857x). Not by a price: without the misaligned price for these tiles the model also
 *   took them in place of split plans, up to 1.37x slower where the tiles are few (89x469x132 NN,
 *   302x425x145 NN; docs/notes/sgemm.md, "The k-group tiles' copies of A priced"). Measured with
 *   B's base on a 32-byte sector (rows off sectors by ldb alone): a base off one stays copied. */
static int direct_in_place_of_copies(const shim_sgemm_args *p, int copies)
{
    int cfg;
    if (copies == COPY_A && p->transa && !p->transb &&
        k16_operands(p, config(TILE_256x128_K8)) == (K16_A | K16_B))
        cfg = TILE_256x128_K8;
    else if (copies == COPY_B && !p->transa && !p->transb && base_on_sector(p->b))
        cfg = TILE_128x64_KG2;
    else
        return -1;
    const int v = variant_for_config(cfg);
    shim_sgemm_args q;
    return copied_form_variant(p, copies, &q) == &variants[v] ? v : -1;
}

/* The halves and 64x64w4's whole tiles, where the selector keeps them over clusters of one wave that
 * the device spreads (select_fp32_planned), kept also where a copied form beats them only by such
 * clusters: after A's or B's copy those ran 1.07-1.11x the halves' time (H200, 2026-11-29: TN at
 * 272x808x540, 400x532x924 and 564x392x916; docs/notes/sgemm.md, "Clusters in one wave that the
 * device spreads") */
static bool direct_over_spread_copies(const shim_sgemm_args *p, int direct, int copies)
{
    if (direct != V_SPLITK_HALVES && direct != V_PIPE_64x64_W4)
        return false;
    shim_sgemm_args q;
    return copied_form_variant(p, copies, &q) == &variants[V_SPLITK_CLUSTER] && spread_cluster_plan(&q);
}

/* the direct choice, or the same ladder after copying the K-contiguous operands where that pays
 * (transpose_first.cu), or the copied form's tiles directly (direct_in_place_of_copies).
 * The k-group tiles chosen directly where 64x64w4's tiles would give fewer than half the SMs a tile
 * (where config_planned leaves those out: there they lost to splits) run 64x64w4 instead, whatever
 * the model says of them. Measured (H200, 2026-11-28, every plan,
 * bench/shapes/kg2_few_tiles.txt): on all 8 such shapes of the benchmark lists 0.69-0.76 of the k
 * groups' time (512x512x128 TN 0.0096 ms against 0.0133, 461x321x148 TT 0.0104 against 0.0144,
 * 245x116x16 TN 0.0050 against 0.0066); the model, pricing 4-byte copies of odd leading dimensions
 * facing 64, would copy first. Selector against selector (same day, three rounds): 0.698-0.909 of
 * the time, 0.739 in geometric mean (245x116x16 TN 0.909, the rest 0.70-0.76). */
static int select_fp32(const shim_sgemm_args *p, double *seconds)
{
    const int direct = select_fp32_index(p, seconds);
    const int copies = copies_that_pay(p, *seconds);
    if (!copies)
        return direct == V_PIPE_128x64_KG2 && !config_planned(p, TILE_64x64_W4) ? V_PIPE_64x64_W4 : direct;
    if (direct_over_spread_copies(p, direct, copies))
        return direct;
    *seconds = transpose_first_seconds(p, copies);
    const int in_place = direct_in_place_of_copies(p, copies);
    return in_place >= 0 ? in_place : V_TRANSPOSE_FIRST;
}

extern "C" const shim_sgemm_variant *shim_sgemm_select(const shim_sgemm_args *p)
{
    double fp32_seconds;
    if (p->math != SHIM_SGEMM_3XTF32 && p->math != SHIM_SGEMM_TF32)
        return &variants[select_fp32(p, &fp32_seconds)];
    /* The tensor-core classes. On Hopper the cheapest of three by their cost models: the kernel fed
     * by a split done once before the GEMM (large shapes), the TMA-fed one that splits in shared
     * memory (thin shapes, small squares; TMA-readable operands only), and the FP32 ladder (tiny
     * products; FP32 is also the more accurate). Elsewhere the register-staged mma.sync kernels
     * (measured faster than the ring-fed ones: docs/notes/sgemm.md), else the ring-fed ones (grids
     * too large for all of them: the FP32 kernels). The FP32 ladder is asked only where its answer
     * is used. */
    const bool tf32 = p->math == SHIM_SGEMM_TF32;
    const int passes = tf32 ? 1 : 3;
    const int presplit = tf32 ? V_TF32_PRESPLIT : V_TF32X3_PRESPLIT, tma = tf32 ? V_TF32_TMA : V_TF32X3_TMA;
    if (variants[presplit].accepts(p)) {
        int best = presplit;
        double seconds = tf32_presplit_cost(p, passes);
        if (variants[tma].accepts(p)) {
            const double tma_seconds = tf32_tma_cost(p, passes);
            if (tma_seconds < seconds) {
                seconds = tma_seconds;
                best = tma;
            }
        }
        const int fp32 = select_fp32(p, &fp32_seconds);
        return &variants[seconds > fp32_seconds ? fp32 : best];
    }
    static const int other[][3] = {{V_TF32X3_WGMMA, V_TF32X3_MMA, V_TF32X3_ASYNC},
                                   {V_TF32_WGMMA, V_TF32_MMA, V_TF32_ASYNC}};
    for (int v : other[tf32])
        if (variants[v].accepts(p))
            return &variants[v];
    return &variants[select_fp32(p, &fp32_seconds)];
}

namespace sgemm {
bool fp32_direct_plan(const shim_sgemm_args *p, plan *pl)
{
    double seconds;
    return variant_plan(select_fp32_index(p, &seconds), p, pl);
}

bool fp32_one_wave(const shim_sgemm_args *p)
{
    plan pl;
    if (!fp32_direct_plan(p, &pl))
        return false;
    /* a stream-K plan as the selector priced it (plan_streamk may run 128x128 in its place), and
     * 128x128 by stream-K (one block an SM) standing in for its one wave of whole tiles, which
     * transpose_first's copy choice was measured with: judged as those */
    if (pl.sk_blocks > 0)
        pl = plan_streamk_priced(p);
    return pl.sk_blocks > 0 && config(pl.cfg).streamk > 1 ? pl.tiles_m * pl.tiles_n <= pl.sk_blocks
                                                          : config(pl.cfg).one_wave;
}
} // namespace sgemm
