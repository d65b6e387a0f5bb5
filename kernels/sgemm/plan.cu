/* Launch plans for the pipelined kernel and the cost model that chooses between them. The model
 * is deliberately small (waves of blocks at a guessed per-configuration efficiency, a DRAM
 * floor, a price for the split reduction); its constants are first guesses, to be replaced by
 * measurements. Everything here is a pure function of the problem and the SM count, so a
 * variant's launch always reproduces the plan that work_bytes and the selector saw. */
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

constexpr double PEAK_PER_SM = 66.9e12 / 132; /* FFMA FLOP/s of one SM at boost clock */
constexpr double DRAM_BYTES_PER_S = 4.0e12;
/* pipeline fill and epilogue a wave cannot hide; fitted to run 9 (K = 64 and 256 shapes: 3-4 us) */
constexpr double BLOCK_OVERHEAD_S = 3.0e-6;
/* what a split plan costs beyond its compute and workspace traffic (the second launch, the main
 * kernel's tail before it, the reduction's ramp): run 9 measured 11-12 us on four split shapes;
 * with the reduction as a dependent launch, the selector's choices against every plan by name on
 * 6880 shapes (bench/sgemm_plans, H200, 2026-11-24) fit 3-5 us best (docs/notes/sgemm.md) */
constexpr double REDUCE_LAUNCH_S = 5.0e-6;
/* A cluster-finished split (split_cluster.cu) against the same split finished by the reduction
 * kernel: measured (H200, 2026-11-27, bench/sgemm_plan_space, 1571 pairs that cluster_placement_ok
 * admits, docs/notes/sgemm.md) 0.3 us + 0.353 us a MB of partial tiles faster: priced as the
 * reduction's price less that */
constexpr double CLUSTER_SAVED_S = 0.3e-6;
constexpr double CLUSTER_SAVED_BYTES_PER_S = 2.83e12;
constexpr size_t MAX_WORK_BYTES = (size_t)64 << 20;
/* Stream-K (plan.sk_blocks). Measured (bench/sgemm_plans, H100, 2026-11-25, docs/notes/sgemm.md):
 * the blocks an SM holds run at different rates for the whole launch (docs/notes/sgemm.md, "a
 * launch of one or two waves"), so equal ranges end on the youngest block, 8 % after the wave model;
 * the counters' memset and the fixups cost a few microseconds, and each further tile segment of a
 * block another pipeline fill */
constexpr double SK_FIXED_S = 3.0e-6;
constexpr double SK_SEGMENT_S = 1.0e-6;
constexpr double SK_IMBALANCE = 1.08;
/* stream-K launches of at most two blocks an SM (a configuration that holds three, one block an SM
 * fewer; or one whose units give no more blocks) against three or more: in a three-block launch the
 * third block of an SM ran 10 % longer than the mean of the three, the second 2 % longer than the
 * mean of the first two (the nineteenth session's timestamps), and at 1100^3-1536^3 NN and NT the
 * two-block launch ran 3-7 % faster on the H100 and the H200 (bench/sgemm_plan_space, 2026-11-26);
 * fitted with bench/plan_regret over 177 shapes (docs/notes/sgemm.md, "every square, and every plan
 * timed") */
constexpr double SK_IMBALANCE_2 = 1.03;
/* a data-parallel launch of less than one wave that puts three blocks or more on some SM ends with
 * the slowest of them (the third block of an SM ran 10 % longer than the mean of the three, above),
 * where the wave model prices their mean; over more waves the blocks fall out of step and the
 * difference spreads. At 1632^3-1664^3 NN and TT the 338 tiles of 128x64 or 64x128 (three blocks
 * on 74 SMs) ran 4-6 % behind stream-K over two blocks an SM that the model priced 2 % above them;
 * fitted with bench/plan_regret on the H200 and H100 plan spaces: 1.02-1.06 move the same shapes
 * and no others (docs/notes/sgemm.md, "a data-parallel wave of three blocks an SM") */
constexpr double DP_ONE_WAVE_IMBALANCE = 1.03;
/* below this K the plans it moved to ran slower: 3161x787x883 TT 9 %, and on fresh random shapes
 * (H200, 2026-11-27) five of K 1052-1164 1.8-9.4 %, where those of K 1195-1227 ran 3.5-7.3 % faster.
 * Checked on a second fresh set under this bound: 38 shapes changed, 0.978 of their time in
 * geometric mean (split plans all faster, stream-K over two blocks an SM as often slower as faster) */
constexpr int DP_ONE_WAVE_MIN_K = 1180;
/* the last block to reach a shared tile reads the partials one after another at the launch's end:
 * the thirteenth session's in-kernel finish measured about 1 us each; fitted at 2.5 us on
 * 141x2473x5387 NN, where six or seven blocks share a tile and stream-K ran 19 % behind splitk */
constexpr double SK_PARTIAL_S = 2.5e-6;
constexpr int SK_MIN_UNITS = 4; /* k tiles a block at least */
/* the partials are written and read back through L2 (60 MB), and the last reads end the launch */
constexpr double L2_BYTES_PER_S = 8.0e12;
constexpr int ONE_WAVE_MAX_K = 4096; /* config_planned */
constexpr int C16_STAGED_MIN_K = 256; /* config_planned */
constexpr int MIN_SLICE_TILES = 2; /* a K slice shorter than this many k tiles is all prologue */

const int split_candidates[] = {2,  3,  4,  5,  6,  8,   10,  12,  16,  20, 24,
                                32, 40, 48, 64, 96, 128, 192, 256, 384, 512};

/* What the operands' layout costs the kernel, as a factor on the time of a wave relative to NN at
 * 128x64, to which the efficiencies and warp_factor were fitted. With both operands R-contiguous
 * (NT) every copy is a 16-byte one. A K-contiguous operand arrives by 4-byte transposing copies
 * (K4) or by 16-byte copies transposed in shared memory (K16, k16_operands): a thread's share of A's
 * copies per k tile grows with BM and its FFMAs with BM x BN, so A's copies per FFMA go as 1 / BN,
 * B's as 1 / BM. Measured (H200, 8192^3, by name, docs/notes/sgemm.md), against NT: K4 facing 128
 * rows or columns 1.05, facing 64 1.20-1.25, both (facing 128 and 64) 1.37-1.38; K16 (transposed a
 * tile ahead, among the FFMAs) facing 64 1.09-1.12, both 1.11-1.17; the same for 128x64 and its
 * mirror 64x128. Hence COST x (128 / side)^2 per operand, and for K4 BOTH more when there are two.
 * With one 4-warp block per SM (1000^3, 1024^3) NN falls 10-16 % behind NT instead of 5 %: fewer
 * warps hide the copies, so the cost grows as full / resident warps, up to the 3 measured, for
 * blocks of 4 warps or more (64x64's 2-warp blocks were not measured so: at 512^3 NT the bonus
 * this would give it chose 64x64 tiles over a 128x64 split that is 1.8 times faster).
 * K16_COST refitted 0.027 -> 0.020 on every plan of 177 shapes (bench/plan_regret over
 * bench/sgemm_plan_space runs on an H100 and an H200, 2026-11-26: TN direct at 1152^3, 1792^3,
 * 1800^3 and 664x5244x5752 2-11 % faster than after copies, 64x4096x4096 NN 8 K slices, 6 % faster
 * than 12; nothing measured slower).
 * A K-contiguous operand whose rows do not all start on 32-byte sectors (a leading dimension not a
 * multiple of 8, or a base off 32 bytes) reads three sectors instead of two for each such row's 64
 * bytes of a k tile: TN direct ran 13-32 % behind NT at 1100^3, 1300^3, 2500^3 and 3500^3 (leading
 * dimensions 4 mod 8), 1.5-4.5 % at the other squares (H100, 2026-11-26). MISALIGNED_COST a such
 * operand, x 128 / the side it faces: 0.06 scored best with bench/plan_regret; measured on the H200
 * (2026-11-26, 73 shapes) 0.9 % faster in geometric mean, 5-10 % at 2725x2748x4431 TN,
 * 2884x1253x3165 TN, 3045x3099x6687 NN and 2786x1159x706 TN (operands copied first), 6.5 % slower at
 * 2157x1044x745 NN.
 * K16_BOTH: both operands K16 (TN) cost less than their two prices: TN directly in split plans ran as
 * fast as NN (1536^3 128x64 split 3: 0.1892 ms TN, 0.1887 NN, H100), where the two prices put it 4.5 %
 * slower, and the model overpriced TN direct by 8-15 % at 1152^3-1600^3 on both cards (plan spaces of
 * 2026-11-26). -0.015 scored best with bench/plan_regret on both (1600^3 TN direct split 2 instead of
 * after copies, 6 % faster; 64x4096x4096 TN in 8 K slices instead of 12, 6.7 % on the H100; nothing
 * measured slower); -0.02 and below took 1400^3 TN direct, 1.5 % slower. */
constexpr double K4_COST = 0.053, K4_BOTH = 0.10, K16_COST = 0.020, K16_BOTH = -0.015;
constexpr double MISALIGNED_COST = 0.06;
/* An R-contiguous operand that is not 16-byte capable (a leading dimension not a multiple of 4, or a
 * base off 16 bytes) goes by 4-byte copies, four instructions where one would do: R4_COST x
 * (128 / the side it faces)^2, as K4, times the configuration's k4_scale (128x128 pays its 4-byte
 * copies twice what 128x64 does; priced so, its split plans ran 5663x493x5011 NT 13 %,
 * 1131x2420x2878 NN 9 %, 467x2576x1387 NT 7 % and 963x2687x2760 NT 6 % faster than the 128x64 plans
 * chosen before: H200, 2026-11-26, docs/notes/sgemm.md, "128x128 with 4-byte copies"). Unpriced,
 * the model sent odd NT shapes to 64-wide tiles whose copies face 64 (3501x3910x103 NT: 64x128
 * tiles 0.1138 ms, 128x128x8 0.0868); 0.04 scored best with bench/plan_regret on the H100's plan
 * space (quadratic better than linear or flat), and on the H200 (2026-11-26, 315 shapes, 32 of them
 * fresh odd ones) 33 plans changed, 0.979 of the time (docs/notes/sgemm.md, "4-byte copies of
 * R-contiguous operands priced").
 * The square of the side holds where the launch fills the SMs (their issue slots are what the copies
 * take); where few warps are resident their latency is what shows, and that barely depends on the
 * side: in one wave of one 4-warp block an SM the tiles whose 4-byte copies face 128 ran 12-17 %
 * over the model and those facing 64 5-6 % under it (H200, 2026-11-27, every plan of 715 shapes
 * with the copied forms' plans, docs/notes/sgemm.md, "4-byte copies where few warps are resident").
 * So where A alone goes by 4-byte copies, the side's power falls from R4_SIDE_POW_FULL to
 * R4_SIDE_POW_EXPOSED as the exposure rises to MAX_EXPOSED: on 78 fresh shapes whose choice that
 * changed (of 6000 random ones), NN and NT with A alone 4-byte, 0.861 of the time before (0.700x ->
 * 0.813x cuBLAS; 58 faster by over 2 %, 7 slower, at most 6.6 %). Taken for B's copies as well, NT
 * with both 4-byte ran as fast as before (0.997, 0.87-1.13x shape by shape) and TT with B's alone
 * 3.7 % slower, so those keep the square (as do the K-contiguous operands' prices). */
constexpr double R4_COST = 0.04, R4_SIDE_POW_FULL = 2.0, R4_SIDE_POW_EXPOSED = 0.5;

constexpr double MAX_EXPOSED = 3.0; /* measured down to one 4-warp block an SM, not below */

/* The k-group tiles (one_wave: 128x64kg2) copy a K-contiguous operand by lanes along k (CFG::K4_LANES;
 * both follow CFG::KG > 1), which costs A's copies (TT, facing 64) far less than K4_COST x (128 / 64)^2
 * says, and more where A's rows lie a multiple of 128 bytes apart (lda % 32 == 0: a warp's 4-byte
 * reads of 128 rows then start at the same offset of every line). Measured (H200, 2026-11-28, every
 * plan of 1000x1000xK for K = 992-1024 by 4 in NN, TT and TN and of the TT squares 904-1016 by 8, two
 * rounds; docs/notes/sgemm.md, "The k-group tiles' copies of A priced"), a k tile at one block an
 * SM: NT 0.838 us, NN 0.822-0.835 at every ldb, TT 0.839-0.875 with lda % 32 != 0 and 0.895-0.922
 * with lda % 32 == 0, TN (both) 0.913-1.022. So TT ran directly 3-5 % ahead of A's copy at every
 * such lda but the multiples of 32, where the old price copied it (1000^3 TT 0.0560 ms copied,
 * 0.0537 directly), and 1-4 % behind it at the multiples (1024^3 TT). LANES_A, LANES_A_PITCH128 and
 * LANES_BOTH (the pair; K4_BOTH elsewhere) stand in for A's price and the pair's: values in the
 * middle of the flat best region of bench/plan_regret over 720 measured shapes (the H200 plan spaces
 * since the lanes; 1.0346 -> 1.0324 of the fastest plan in geometric mean, 36 picks changed, none
 * slower): TT directly where lda % 32 != 0, A copied at the multiples and for TN. B's price (NN,
 * K4_COST facing 128; below LANES_B_MIN_K) and the misaligned rows' stay as fitted with the
 * efficiency: NN runs as fast as NT on these tiles, but priced so, NN shapes left split plans
 * finished in clusters for these tiles and ran slower (588x1092x528 NN 1.7 %; 864^3 NN would leave
 * plan_split_halves), and without the misaligned price TT shapes with odd leading dimensions went
 * direct and lost up to 7 % (746x1375x1085 TT). */
constexpr double LANES_A = 0.035, LANES_A_PITCH128 = 0.09, LANES_BOTH = 0.04;
/* From K = LANES_B_MIN_K, B's price on these tiles as NT's (none): there their one wave ran ahead
 * of the split plans and of both copies that the price chose over them. Measured (H200, 2026-11-29,
 * bench/sgemm_plans, alternately with the price kept, four rounds; docs/notes/sgemm.md, "The k-group
 * tiles' B priced from K = 900"): B priced as NT at every K moved 39 benchmark shapes, 1.014 of the
 * time (0.86-1.34): faster from K 900 on, slower below K 750 (142x830x145 TN 1.33, 864^3 NN off the
 * halves 1.15). From K = 900: the 9 benchmark shapes it moves 0.965 (960^3 NN 0.926, 928^3 TN A
 * copied 0.945, 1164x786x1664 NN 0.897), 35 fresh random ones of K 900-4096 0.959 (0.835-1.057; 18
 * faster by over 2 %, 2 slower: 605x1406x904 TN, 2626x269x1168 NN), 16 controls 0.999. Those had
 * B's base on a 32-byte sector (its rows off sectors by ldb alone in many); a base off one keeps
 * the price, as it keeps B's copy where the copy feeds these tiles (select.cu,
 * direct_in_place_of_copies): not measured. */
constexpr int LANES_B_MIN_K = 900;

bool rows_128_bytes_apart(int64_t ld)
{
    return ld % 32 == 0;
}

double layout_factor(const shim_sgemm_args *p, const tile_config &c, int resident_warps)
{
    const int k16 = k16_operands(p, c);
    const double k4 = K4_COST * c.k4_scale;
    const double a = !p->transa  ? 0.0
                     : c.one_wave ? (rows_128_bytes_apart(p->lda) ? LANES_A_PITCH128 : LANES_A)
                                  : ((k16 & K16_A) ? K16_COST : k4) * (128.0 / c.bn) * (128.0 / c.bn);
    const double b = p->transb || (c.one_wave && p->k >= LANES_B_MIN_K && base_on_sector(p->b))
                         ? 0.0
                         : ((k16 & K16_B) ? K16_COST : k4) * (128.0 / c.bm) * (128.0 / c.bm);
    const double pair = !p->transa || p->transb ? 0.0
                        : c.one_wave            ? LANES_BOTH
                                                : (k16 == (K16_A | K16_B) ? K16_BOTH : K4_BOTH);
    const int full = c.blocks_per_sm * c.threads / 32;
    const double exposed = c.threads < 128 ? 1.0
                                           : std::min(MAX_EXPOSED, (double)full / std::max(1, std::min(resident_warps, full)));
    const bool r4_a = !p->transa && !operand_vec(p->a, p->lda), r4_b = p->transb && !operand_vec(p->b, p->ldb);
    const double side_pow =
        r4_a && !r4_b ? R4_SIDE_POW_FULL + (R4_SIDE_POW_EXPOSED - R4_SIDE_POW_FULL) * (exposed - 1.0) / (MAX_EXPOSED - 1.0)
                      : R4_SIDE_POW_FULL;
    const double r4 = R4_COST * c.k4_scale *
                      ((r4_a ? std::pow(128.0 / c.bn, side_pow) : 0.0) + (r4_b ? std::pow(128.0 / c.bm, side_pow) : 0.0));
    const double misaligned = MISALIGNED_COST * ((p->transa && rows_misaligned(p->a, p->lda) ? 128.0 / c.bn : 0.0) +
                                                 (!p->transb && rows_misaligned(p->b, p->ldb) ? 128.0 / c.bm : 0.0));
    return (1.0 + exposed * (a + b + pair + misaligned + r4)) / (1.0 + exposed * K4_COST);
}

int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* latency hiding falls off with fewer resident warps; 1.0 at 9 warps per SM and above. Fitted to
 * run 9: one 4-warp block of 128x64 per SM runs at 0.72 of its full-occupancy rate (1024^3,
 * 1000^3), one 8-warp block of 128x128 or 128x256 at 0.9-1.0. Below that line with fewer than 4
 * (64x64's 2-warp blocks one an SM): its waves ran 13-35 % over the model there, against 0.8-1.0 at
 * 4-12 warps (H200, 2026-11-27, every plan of 715 shapes, docs/notes/sgemm.md, "64x64 one to an
 * SM"); 0.8 of the line scored best with bench/plan_regret, and anything from 0.85 down the same. */
constexpr double FEW_WARPS_FACTOR = 0.8;
double warp_factor(int warps)
{
    return std::min(1.0, 0.5 + warps / 18.0) * (warps < 4 ? FEW_WARPS_FACTOR : 1.0);
}

/* seconds for nblocks equal blocks of `flops` each: full waves at the configuration's
 * occupancy, the last partial wave at the residency it really has */
double waves_seconds(const shim_sgemm_args *p, const tile_config &c, int64_t nblocks, double flops, int sms)
{
    const int64_t slots = (int64_t)c.blocks_per_sm * sms;
    const int64_t full = nblocks / slots, rem = nblocks % slots;
    auto wave = [&](int resident) {
        const int warps = resident * c.threads / 32;
        double eff = c.efficiency * warp_factor(warps) / warp_factor(c.blocks_per_sm * c.threads / 32);
        return resident * flops / (PEAK_PER_SM * eff) * layout_factor(p, c, warps) + BLOCK_OVERHEAD_S;
    };
    double t = (double)full * wave(c.blocks_per_sm);
    if (rem)
        t += wave((int)ceil_div(rem, sms));
    return t;
}

plan split_plan(const shim_sgemm_args *p, int cfg, int dp_tiles, int splits)
{
    plan pl = plan_dp(p, cfg);
    const int bk = config(cfg).bk;
    const int kslice = (int)(ceil_div(ceil_div(p->k, splits), bk) * bk);
    pl.split_tiles = pl.dp_tiles - dp_tiles;
    pl.dp_tiles = dp_tiles;
    pl.kslice = kslice;
    pl.splits = (int)ceil_div(p->k, kslice); /* every slice non-empty */
    return pl;
}

/* Where a cluster-finished split runs as fast as the blocks' waves say. The device places a cluster's
 * blocks together, several to an SM where they fit, so a launch that leaves SMs fewer blocks than
 * they hold (one 128x128 block an SM where two fit) ran up to 1.9x slower in clusters: the blocks
 * packed onto part of the SMs (H200, 2026-11-27: 128 blocks of 128x128 in clusters of four, 1.8-1.9x;
 * 18 clusters of six, 1.6-1.7x). Admitted: as many waves of clusters as of blocks (the device's
 * cluster capacity, below its block slots: 92 clusters of four 128x64 blocks, 368 of 396 slots), and
 * a last wave that already gives every SM as many blocks as it holds; there the cluster finish ran
 * 0.950 of the reduction's time (geometric mean of 1571 pairs, the slowest 1.06) */
bool cluster_placement_ok(const plan &pl)
{
    const tile_config &c = config(pl.cfg);
    const int sms = sm_count();
    const int64_t slots = (int64_t)c.blocks_per_sm * sms, blocks = (int64_t)pl.split_tiles * pl.splits;
    const int64_t cap = (int64_t)cluster_split_max_active(pl.cfg, pl.cluster) * pl.cluster;
    if (cap < 1 || blocks < 1)
        return false;
    const int64_t waves = ceil_div(blocks, slots), last = blocks - (waves - 1) * slots;
    if (ceil_div(blocks, cap) != waves)
        return false;
    /* two slices over two waves, K from 1000 (where it was measured): the pairs of blocks pack no
     * worse than the tiles do (0.959-0.976 of the reduction's time, 216 pairs; 1600^3 2.6-6.3 %
     * faster). Not over more waves: 4097^3 NT, 17 waves of 128x128 pairs, ran 0.8 % behind the
     * split tail it displaced (H200, 2026-11-27) */
    if (pl.splits == 2 && waves == 2 && (int64_t)pl.kslice * pl.splits >= 1000)
        return true;
    return ceil_div(last, sms) == c.blocks_per_sm;
}

/* One cluster a tile (best_split's cluster plans) in a single wave of blocks that leaves SMs fewer
 * blocks than they hold, which cluster_placement_ok turns away: the device packs a cluster's blocks
 * where the even spread would give the SMs a whole number of blocks or just under one, and not
 * otherwise. Measured against the same split finished by the reduction kernel (every such pair of
 * the H200 plan spaces since 2026-11-27, 4443 in one wave; bench/cluster_spread.py, docs/notes/
 * sgemm.md, "Clusters in one wave that the device spreads"): where blocks / SMs lie at most 0.8
 * past a whole number (1.1-1.8 an SM) 0.93-0.99 of the time in geometric mean at every cluster size,
 * 0-8 % of the pairs past 1.05; at 0.81-1.0 past one (0.9, 1.9, 2.0 an SM) 1.12-1.32 for clusters
 * of three or more (46-81 % past 1.05). Admitted at most two blocks an SM: past that the selector
 * took 64x64 tiles at 4.4-4.6 an SM, 1.09-1.14x the time of the splits they displaced (H200,
 * 2026-11-29). The selector weighs them only where it would split every tile without them
 * (select.cu's select_fp32_planned). */
constexpr double CLUSTER_SPREAD_MAX_FRACTION = 0.8;
constexpr int64_t CLUSTER_SPREAD_MAX_PER_SM = 2;

bool cluster_spread_in_one_wave(const plan &pl)
{
    const tile_config &c = config(pl.cfg);
    const int64_t sms = sm_count(), blocks = (int64_t)pl.split_tiles * pl.splits;
    const int64_t cap = (int64_t)cluster_split_max_active(pl.cfg, pl.cluster) * pl.cluster;
    if (pl.cluster != pl.splits || blocks < 1 ||
        blocks > std::min<int64_t>(cap, (int64_t)c.blocks_per_sm * sms) ||
        blocks > CLUSTER_SPREAD_MAX_PER_SM * sms)
        return false;
    const int64_t past = blocks % sms; /* blocks past a whole number an SM */
    return past > 0 && (double)past <= CLUSTER_SPREAD_MAX_FRACTION * (double)sms;
}

bool plan_usable(const plan &pl)
{
    const int64_t blocks = pl.sk_blocks > 0 ? pl.sk_blocks : (int64_t)pl.dp_tiles + (int64_t)pl.split_tiles * pl.splits;
    return pl.tiles_m > 0 && pl.tiles_n > 0 && blocks <= INT32_MAX && plan_work_bytes(pl) <= MAX_WORK_BYTES;
}

/* the cheapest split of the tiles from dp_tiles on, over every configuration (dp_of(cfg) gives
 * the data-parallel tile count, or -1 to skip the configuration) */
template <class DpOf>
plan best_split(const shim_sgemm_args *p, DpOf dp_of, bool &found, bool cluster = false, bool spread = false)
{
    plan best{};
    double best_cost = INFINITY;
    found = false;
    for (int cfg = 0; cfg < TILE_CONFIGS; ++cfg) {
        const int dp = dp_of(cfg);
        /* 64x64w4's splits of every tile by the reduction kernel are left to the halves' rules
         * (plan_split_halves, select.cu): in their place the halves ran faster */
        if (dp < 0 || !config(cfg).split || config(cfg).one_wave ||
            (cfg == TILE_64x64_W4 && dp == 0 && !cluster) || !config_planned(p, cfg, dp > 0) ||
            (cluster && (dp > 0 || !cluster_split_usable(cfg))))
            continue;
        const int bk = config(cfg).bk;
        for (int s : split_candidates) {
            if ((int64_t)s * bk * MIN_SLICE_TILES > p->k || (cluster && s > CLUSTER_MAX_SPLITS))
                break;
            plan pl = split_plan(p, cfg, dp, s);
            pl.cluster = cluster ? pl.splits : 0;
            if (pl.splits < 2 || pl.split_tiles == 0 || !plan_usable(pl) ||
                (cluster && !cluster_placement_ok(pl) && !(spread && cluster_spread_in_one_wave(pl))))
                continue;
            const double cost = plan_cost(p, pl);
            if (cost < best_cost) {
                best_cost = cost;
                best = pl;
                found = true;
            }
        }
    }
    return best;
}

} // namespace

plan best_dp(const shim_sgemm_args *p)
{
    /* 128x64 is planned for every problem (no k_face, not one_wave); the others where
     * config_planned allows */
    plan best = plan_dp(p, TILE_128x64);
    double best_cost = INFINITY;
    for (int cfg = 0; cfg < TILE_CONFIGS; ++cfg) {
        if (!config_planned(p, cfg))
            continue;
        plan pl = plan_dp(p, cfg);
        const double cost = plan_cost(p, pl);
        if (plan_usable(pl) && cost < best_cost) {
            best_cost = cost;
            best = pl;
        }
    }
    return best;
}

/* an unaligned C goes through shared memory (STAGED_C) where the product is this short in k: there
 * C's stores are what it costs (H200, 2026-11-26: 4097x4097x32 NN 0.112 ms with 4-byte stores
 * against 0.047 at 4096). Up to K = 3072 the staged kernels ran the shapes with a C off 16 bytes
 * 0-12 % faster (3297x2431x398 TN 12 %, 2237x1165x2981 NN 4 %); beyond it their k loops ran up to 6 %
 * behind (3470x1067x6953 TN), and those of the 8-warp k8 tiles (255 registers) from K = 1976 on
 * (2527x3166x2886 TN 5.6 %, 2489x1628x1976 TT 2.6 %) where they gained 9-12 % at K = 355-438: longer
 * products keep the 4-byte stores (docs/notes/sgemm.md, "C staged up to K = 3072") */
int staged_c_max_k(int cfg)
{
    return cfg == TILE_256x128_K8 || cfg == TILE_128x256_K8 ? 1024 : 3072;
}

bool config_planned(const shim_sgemm_args *p, int cfg, bool c_direct)
{
    const tile_config &c = config(cfg);
    if (c.efficiency <= 0.0)
        return false;
    /* 64x64w4's whole tiles where they give at least half the SMs a block: on fewer, where the
     * selector had split 128x64 or 128x128x8 tiles, they ran 1.01-1.20x its time (H200, 2026-11-28:
     * 122x340x215 TN 12 tiles 1.20, 555x232x147 TT 36 tiles 1.10, 592x348x180 NN 60 tiles 1.04) */
    if (cfg == TILE_64x64_W4 && 2 * ceil_div(p->m, c.bm) * ceil_div(p->n, c.bn) < sm_count())
        return false;
    /* k groups: where the tiles leave each SM one block, and K is not so long that split-K's slices
     * fill the SMs better (H100, 2026-11-25: 1000^3 NN 0.0541 ms against splitk's 0.0613,
     * 1000x1000x4000 NT even, 8192x128x8192 NN and 128x8192x8192 NT 3 % behind) */
    if (c.one_wave && (ceil_div(p->m, c.bm) * ceil_div(p->n, c.bn) > sm_count() || p->k > ONE_WAVE_MAX_K))
        return false;
    /* c16: its 4-byte stores of C ran it behind 128x64, where C is not staged (pipelined.cu); staged,
     * its tiles ran 0.971 of the time of the plans chosen without them on 22 shapes (H200,
     * 2026-11-26, docs/notes/sgemm.md, "c16 where C is staged"), but at K = 103, where the stores are
     * the whole product, 7.5 % behind the 8-warp 128x128x8 tiles: c16 holds up to C16_STAGED_MIN_K */
    if (c.c16 && c_direct && !operand_vec(p->c, p->ldc) && (p->k <= C16_STAGED_MIN_K || p->k > staged_c_max_k(cfg)))
        return false;
    if (c.k_face == 0)
        return true;
    const bool a_ok = p->transa ? c.bn >= c.k_face : operand_vec(p->a, p->lda);
    const bool b_ok = !p->transb ? c.bm >= c.k_face : operand_vec(p->b, p->ldb);
    return a_ok && b_ok;
}

int k16_operands(const shim_sgemm_args *p, const tile_config &c)
{
    if (!c.k16)
        return 0;
    const bool both = p->transa && !p->transb;
    const bool a = p->transa && operand_vec(p->a, p->lda) && (c.bn < 128 || both);
    const bool b = !p->transb && operand_vec(p->b, p->ldb) && (c.bm < 128 || both);
    return (a ? K16_A : 0) | (b ? K16_B : 0);
}

bool operand_vec(const float *x, int64_t ld)
{
    return aligned16(x) && ld % 4 == 0;
}

bool base_on_sector(const float *x)
{
    return (uintptr_t)x % 32 == 0;
}

bool rows_misaligned(const float *x, int64_t ld)
{
    return !base_on_sector(x) || ld % 8 != 0;
}

int operand_alignment(const float *x, int64_t ld)
{
    return (operand_vec(x, ld) ? (rows_misaligned(x, ld) ? 1 : 2) : 0) + (base_on_sector(x) ? 3 : 0);
}

plan plan_dp(const shim_sgemm_args *p, int cfg)
{
    const tile_config &c = config(cfg);
    plan pl;
    pl.cfg = cfg;
    pl.tiles_m = (int)ceil_div(p->m, c.bm);
    pl.tiles_n = (int)ceil_div(p->n, c.bn);
    const int64_t tiles = (int64_t)pl.tiles_m * pl.tiles_n;
    pl.dp_tiles = tiles <= INT32_MAX ? (int)tiles : 0; /* 0 tiles: plan_usable says no */
    if (tiles > INT32_MAX)
        pl.tiles_m = 0;
    pl.split_tiles = 0;
    pl.splits = 1;
    pl.kslice = (int)std::min<int64_t>(ceil_div(std::max(p->k, 1), c.bk) * c.bk, INT32_MAX - c.bk);
    pl.sk_blocks = 0;
    pl.cluster = 0;
    return pl;
}

plan plan_streamk_priced(const shim_sgemm_args *p)
{
    static thread_local shape_memo<plan> memo;
    if (const plan *known = memo.find(p))
        return *known;
    const int sms = sm_count();
    plan best = plan_dp(p, TILE_128x64);
    double best_cost = INFINITY;
    /* not with a K-contiguous A going by K16: there the stream-K kernel's k loop gets a register
     * assignment whose banks collide (3 FFMAs of 5), and 2048^3 TN and 3000x5000x700 TN ran 19-28 %
     * behind the best other plan (TN with A by 4-byte copies: not measured). TT with A by 4-byte
     * copies (64x128 tiles), only where the blocks outnumber the tiles: 1120^3 TT 5.8 % and 1152^3 TT
     * 3.3 % faster than the plans chosen without it, 1056^3-1088^3 TT 0.7-1.2 %, 1248^3-1280^3 TT
     * 0.7-1.2 % slower; with more tiles than blocks (1440^3-1536^3 TT) 2-3 % slower than A's copy,
     * then stream-K (H200, 2026-11-26, docs/perf/sgemm_streamk_tt_h200.csv) */
    for (int cfg = 0; cfg < TILE_CONFIGS; ++cfg) {
        const tile_config &c = config(cfg);
        if (!c.streamk || c.efficiency <= 0.0 || (p->transa && (!p->transb || (k16_operands(p, c) & K16_A))))
            continue;
        plan pl = plan_dp(p, cfg);
        const int64_t tiles = pl.dp_tiles, units = tiles * ceil_div(std::max(p->k, 1), c.bk);
        /* a kernel of one block an SM (128x128): where its whole tiles are one wave that leaves at
         * least a twelfth of the SMs idle and at most an eighth (116-121 tiles of 132; 1300^3-1408^3:
         * 121): with 126-130 tiles it ran 0.99-1.03 of the whole tiles' time even at K 2800-7300,
         * with 117-121 0.93-0.98 (H200, 2026-11-29, bench/shapes/sk_one_an_sm_long_k.txt), and C is
         * 16-byte capable (the stream-K kernel's stores are not staged; c16 in config_planned). The
         * model prices it above the whole tiles (within SPLIT_MARGIN at long K); the selector takes
         * it by rule from K = SK_ONE_AN_SM_MIN_K (select.cu), the streamk variant by name. Against
         * the whole tiles (H200, 2026-11-29): 1400^3 NT 1.01 of their time, 1300^3 NT 1.04,
         * 1400x1400x300 NT 1.29, 1400x1400x4000 NT 0.94 (docs/notes/sgemm.md, "128x128 by stream-K,
         * one block an SM") */
        if (c.streamk == 1 && (12 * tiles > 11 * (int64_t)sms || 8 * tiles < 7 * (int64_t)sms || !operand_vec(p->c, p->ldc)))
            continue;
        /* a full wave of blocks, or one block an SM fewer (SK_IMBALANCE_2), as many an SM as its
         * stream-K kernel holds */
        for (int per = std::max(1, c.streamk - 1); per <= c.streamk; ++per) {
            const int64_t blocks = std::min<int64_t>((int64_t)per * sms, units / SK_MIN_UNITS);
            /* the kernel counts units in 32 bits */
            if (tiles < 1 || blocks < 1 || units > INT32_MAX || (p->transa && tiles > blocks))
                continue;
            pl.dp_tiles = 0;
            pl.sk_blocks = (int)blocks;
            const double cost = plan_cost(p, pl);
            if (plan_usable(pl) && cost < best_cost) {
                best_cost = cost;
                best = pl;
            }
        }
    }
    return memo.keep(p, best);
}

namespace {
/* a plan's tiles' area, padding included */
int64_t padded_area(const plan &pl)
{
    const tile_config &c = config(pl.cfg);
    return (int64_t)pl.tiles_m * c.bm * pl.tiles_n * c.bn;
}
} // namespace

/* Where the priced stream-K plan runs 128x64 or 64x128 tiles (two blocks an SM) on NT data (both
 * operands by 16-byte copies: directly, or the form transpose_first copies to) and 128x128 tiles
 * would be more than one and at most two waves of the one-block-an-SM stream-K kernel, padding the
 * product no more than 3 % beyond the priced tiles: 128x128 over every SM, one block each. Fitted
 * on the stream-K plans it replaces (H200, 2026-11-29, bench/shapes/sk_one_an_sm_waves.txt): with
 * no more padding 0.896-0.991 of the time but one (1.012), up to 3 % more 0.92-0.98, 4-5 % more
 * 0.97-1.03 (1440^3 and 1472^3 1.2-1.9 % slower); out of sample (49 random shapes,
 * bench/shapes/sk_one_an_sm_waves_fresh.txt) 0.976 of the time in geometric mean (0.899-1.037, 33
 * more than 1 % faster, 5 more than 1 % slower), on the 31 benchmark shapes it moves 0.973
 * (0.920-0.999; 1616^3-1664^3 TN and TT 2.5-3 % faster). In place of whole tiles, splits or past two
 * waves it ran 1.00-1.11, and with B by 4-byte copies it was not measured: not offered there. The
 * model, whose stream-K terms were fitted at two blocks an SM, prices it below those (7000^3 NT 7.5 %
 * slower where it took it), so the selector prices the plan it replaces (plan_streamk_priced;
 * docs/notes/sgemm.md, "128x128 by stream-K past one wave") */
plan plan_streamk(const shim_sgemm_args *p)
{
    static thread_local shape_memo<plan> memo;
    if (const plan *known = memo.find(p))
        return *known;
    const plan priced = plan_streamk_priced(p);
    if (priced.sk_blocks <= 0 || (priced.cfg != TILE_128x64 && priced.cfg != TILE_64x128) || p->transa ||
        !p->transb)
        return memo.keep(p, priced);
    const tile_config &c = config(TILE_128x128);
    const int64_t sms = sm_count();
    plan wide = plan_dp(p, TILE_128x128);
    const int64_t tiles = wide.dp_tiles, units = tiles * ceil_div(std::max(p->k, 1), c.bk);
    if (c.streamk != 1 || c.efficiency <= 0.0 || tiles <= sms || tiles > 2 * sms ||
        units / SK_MIN_UNITS < sms || units > INT32_MAX || !operand_vec(p->c, p->ldc) ||
        100 * padded_area(wide) > 103 * padded_area(priced))
        return memo.keep(p, priced);
    wide.dp_tiles = 0;
    wide.sk_blocks = (int)sms;
    return memo.keep(p, plan_usable(wide) ? wide : priced);
}

/* select, work_bytes and launch each ask for the same plans in a row, and the selector weighs up to
 * four transpose forms of one shape (transpose_first's copied forms): each thread remembers the last
 * few plans (shape_memo) */
namespace {
/* how a split of every tile is finished: by the reduction kernel, or in clusters where
 * cluster_placement_ok admits them, or also where cluster_spread_in_one_wave does */
enum split_finish { BY_REDUCTION, IN_CLUSTERS_PLACED, IN_CLUSTERS, SPLIT_FINISHES };

/* every tile split, finished as `finish` says (a cluster finish falls back to the reduction's) */
plan split_every_tile(const shim_sgemm_args *p, split_finish finish)
{
    static thread_local shape_memo<plan> memo[SPLIT_FINISHES];
    if (const plan *known = memo[finish].find(p))
        return *known;
    bool found;
    plan pl = best_split(
        p, [](int) { return 0; }, found, finish != BY_REDUCTION, finish == IN_CLUSTERS);
    return memo[finish].keep(p, found                    ? pl
                                : finish != BY_REDUCTION ? split_every_tile(p, BY_REDUCTION)
                                                         : best_dp(p));
}
} // namespace

plan plan_splitk(const shim_sgemm_args *p)
{
    return split_every_tile(p, BY_REDUCTION);
}

plan plan_splitk_cluster(const shim_sgemm_args *p)
{
    return split_every_tile(p, IN_CLUSTERS);
}

plan plan_splitk_cluster_placed(const shim_sgemm_args *p)
{
    return split_every_tile(p, IN_CLUSTERS_PLACED);
}

/* plan_splitk's plan finished in groups of clusters of two where that measured faster than the
 * reduction kernel: four slices, or eight over more than one wave; pairs the device places as it
 * would the blocks (cluster_placement_ok). Against the reduction, where the pairs are admitted
 * (H200, 2026-11-28, bench/sgemm_plan_space, 132 shapes, docs/notes/sgemm.md): 0.98-0.99 of the time
 * with four slices in one wave, 0.96-0.98 in two, 0.95 over more; six slices 1.02-1.03 in one wave;
 * eight 0.99-1.00 in one wave, 0.94-0.96 in two, 0.89-0.91 over more. A rule on the split the model
 * chose rather than a price of its own: the model prices the pairs as the split they finish */
plan plan_splitk_groups(const shim_sgemm_args *p)
{
    plan pl = plan_splitk(p);
    if (pl.split_tiles == 0 || pl.dp_tiles != 0 || pl.splits > CLUSTER_MAX_SPLITS || !cluster_split_usable(pl.cfg))
        return pl;
    const int64_t slots = (int64_t)config(pl.cfg).blocks_per_sm * sm_count();
    const int64_t waves = ceil_div((int64_t)pl.split_tiles * pl.splits, slots);
    if (pl.splits != 4 && (pl.splits != 8 || waves < 2))
        return pl;
    plan groups = pl;
    groups.cluster = 2;
    return plan_usable(groups) && cluster_placement_ok(groups) ? groups : pl;
}

/* cuBLAS's plan at 896^3 (one kernel of 64x64 tiles of four warps in two K slices, finished inside
 * it): our 64x64w4 tiles in two slices, a tile's two blocks a cluster (the one-cluster-a-tile
 * finish: the slices added in distributed shared memory, no workspace, no second launch). Against
 * the selector's plans (H200, 2026-11-28, bench/sgemm_plan_space; docs/notes/sgemm.md, "64x64 tiles of
 * four warps"): on the squares (bench/shapes/tiles_64x64w4.txt) 512^3 0.75-0.80 of the time, 640^3
 * 0.89, 896^3 0.89-0.92, every case, where its blocks are at most three an SM and K at most 896;
 * 1000^3 TN and TT (512 blocks, four an SM) 1.03-1.06, K of 4096 1.00-1.06. On 63 shapes of that
 * domain drawn at random (bench/shapes/halves_random.txt) 0.80-1.87: it loses where the model's
 * split has more slices (its blocks then fewer, each a longer k loop: 1.1-1.9 with 8-26 slices)
 * and where an operand goes by 4-byte copies (1.05-1.10 at four slices), and wins 0.80-0.92 where
 * both operands go by 16-byte copies and the model's split is four slices finished by the
 * reduction kernel or in pairs (the selector checks that part). A rule rather than a price: the model, whatever efficiency
 * it is given, prices this finish as it prices the others and picks whole tiles or the reduction */
constexpr int HALVES_MIN_K = 512, HALVES_MAX_K = 1024, HALVES_BLOCKS_PER_SM = 3;
/* Past K = 1024, up to the longest K measured there, the same plan in more than one wave of blocks
 * and at most two, where its pairs may run as the blocks would (cluster_placement_ok), chosen by
 * price (split_halves_priced). In one wave or less it lost to the plans it displaced on 23 of 32
 * random shapes (up to 1.15x: 654x1516x1124 TN, 528 blocks), beyond one wave it won 27 of 28 (H200,
 * 2026-11-28, docs/notes/sgemm.md "The halves past K = 1024, by price") */
constexpr int HALVES_PRICED_MAX_K = 1500, HALVES_PRICED_MAX_WAVES = 2;

bool split_halves_priced(const shim_sgemm_args *p)
{
    return p->k > HALVES_MAX_K;
}

plan plan_split_halves(const shim_sgemm_args *p)
{
    if (p->k < HALVES_MIN_K || p->k > HALVES_PRICED_MAX_K || !operand_vec(p->a, p->lda) ||
        !operand_vec(p->b, p->ldb) || !cluster_split_usable(TILE_64x64_W4))
        return plan_dp(p, TILE_64x64_W4);
    plan halves = split_plan(p, TILE_64x64_W4, 0, 2);
    halves.cluster = 2;
    const int64_t tiles = halves.split_tiles;
    const int64_t slots = (int64_t)config(TILE_64x64_W4).blocks_per_sm * sm_count();
    const bool placed = split_halves_priced(p)
                            ? 2 * tiles > slots && 2 * tiles <= HALVES_PRICED_MAX_WAVES * slots &&
                                  cluster_placement_ok(halves)
                            : 2 * tiles <= (int64_t)HALVES_BLOCKS_PER_SM * sm_count() &&
                                  cluster_split_max_active(TILE_64x64_W4, 2) >= tiles;
    const bool fits = halves.splits == 2 && tiles >= 1 && placed && plan_usable(halves);
    return fits ? halves : plan_dp(p, TILE_64x64_W4);
}

plan plan_tail(const shim_sgemm_args *p)
{
    static thread_local shape_memo<plan> memo;
    if (const plan *known = memo.find(p))
        return *known;
    const int sms = sm_count();
    bool found;
    plan pl = best_split(
        p,
        [&](int cfg) {
            const plan dp = plan_dp(p, cfg);
            const int slots = config(cfg).blocks_per_sm * sms;
            if (dp.dp_tiles < slots || dp.dp_tiles % slots == 0)
                return -1;
            return dp.dp_tiles / slots * slots;
        },
        found);
    return memo.keep(p, found ? pl : plan_splitk(p));
}

double plan_cost(const shim_sgemm_args *p, const plan &pl)
{
    const tile_config &c = config(pl.cfg);
    const int sms = sm_count();
    const double tile_flops = 2.0 * c.bm * c.bn;
    double compute = 0.0, reduce = 0.0;
    if (pl.sk_blocks > 0) {
        /* one wave of equal ranges; a range meets tiles / blocks + 1 tiles on average */
        const double tiles = (double)pl.tiles_m * pl.tiles_n;
        const double flops = tile_flops * (double)ceil_div(p->k, c.bk) * c.bk * tiles;
        const double imbalance = pl.sk_blocks > 2 * (int64_t)sms ? SK_IMBALANCE : SK_IMBALANCE_2;
        compute = imbalance * waves_seconds(p, c, pl.sk_blocks, flops / pl.sk_blocks, sms) +
                  SK_SEGMENT_S * tiles / pl.sk_blocks;
        const double per_tile = pl.sk_blocks > tiles ? std::ceil(pl.sk_blocks / tiles) + 1.0 : 2.0;
        reduce = SK_FIXED_S + SK_PARTIAL_S * per_tile + (double)plan_work_bytes(pl) / L2_BYTES_PER_S;
    }
    if (pl.dp_tiles > 0) {
        const bool short_wave = pl.split_tiles == 0 && pl.dp_tiles < (int64_t)c.blocks_per_sm * sms &&
                                ceil_div(pl.dp_tiles, sms) >= 3 && p->k >= DP_ONE_WAVE_MIN_K;
        compute += (short_wave ? DP_ONE_WAVE_IMBALANCE : 1.0) *
                   waves_seconds(p, c, pl.dp_tiles, tile_flops * (double)ceil_div(p->k, c.bk) * c.bk, sms);
    }
    if (pl.split_tiles > 0) {
        compute += waves_seconds(p, c, (int64_t)pl.split_tiles * pl.splits, tile_flops * pl.kslice, sms);
        /* partials written by the main kernel and read back, plus the C traffic of those tiles; a
         * cluster-finished split adds its slices in shared memory at the kernel's end */
        const double partial_bytes = 4.0 * c.bm * c.bn * (double)pl.split_tiles * pl.splits;
        reduce = REDUCE_LAUNCH_S + 2.0 * partial_bytes / DRAM_BYTES_PER_S;
        if (pl.cluster == pl.splits)
            reduce -= CLUSTER_SAVED_S + partial_bytes / CLUSTER_SAVED_BYTES_PER_S;
    }
    const double c_bytes = 4.0 * p->m * (double)p->n * (p->beta != 0.0f ? 2 : 1);
    const double ab_bytes = 4.0 * ((double)p->m * p->k + (double)p->k * p->n);
    const double memory = (c_bytes + ab_bytes) / DRAM_BYTES_PER_S;
    const double price = pl.cfg == TILE_64x64_W4 && pl.split_tiles > 0 ? W4_SPLIT_PRICE : 1.0;
    return price * (std::max(compute, memory) + reduce);
}

} // namespace sgemm
