/* The FP32 selector's choices where thread-block clusters run, without a GPU: the cluster
 * capacities of an H200 assumed (assumed_capacity.h), the plans it takes for shapes whose measured
 * choice is recorded in kernels/sgemm/select.cu. Exit 77 (skipped) where a GPU of another SM count
 * answers sm_count: the rules count blocks against the SMs. */
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "assumed_capacity.h"
#include "sgemm_internal.h"

static int failures, cases;

/* the FP32 problem of a shape, operands aligned, tight leading dimensions */
static shim_sgemm_args shape_args(int m, int n, int k, int ta, int tb)
{
    shim_sgemm_args p;
    memset(&p, 0, sizeof p);
    p.transa = ta, p.transb = tb, p.m = m, p.n = n, p.k = k, p.alpha = 1.0f, p.beta = 0.0f;
    p.lda = ta ? k : m, p.ldb = tb ? n : k, p.ldc = m, p.math = SHIM_SGEMM_FP32;
    p.a = (const float *)(uintptr_t)4096, p.b = (const float *)(uintptr_t)4096;
    p.c = (float *)(uintptr_t)8192;
    return p;
}

/* expect "^text": a plan description starting with text; otherwise text anywhere in it */
static void choice(int m, int n, int k, int ta, int tb, const char *expect)
{
    const shim_sgemm_args p = shape_args(m, n, k, ta, tb);
    char how[256];
    shim_sgemm_describe(shim_sgemm_select(&p), &p, how, sizeof how);
    cases++;
    const bool prefix = expect[0] == '^';
    const bool found =
        prefix ? strncmp(how, expect + 1, strlen(expect + 1)) == 0 : strstr(how, expect) != nullptr;
    if (!found) {
        printf("FAIL sgemm %dx%dx%d %c%c: runs %s, expected %s%s\n", m, n, k, "NT"[ta], "NT"[tb], how,
               prefix ? "a plan starting " : "", expect + prefix);
        failures++;
    }
}

/* the stream-K counters zeroed by transpose_first's copy (expect: how many), the plan run after
 * the copy being expect_plan */
static void counters_by_copy(int m, int n, int k, int ta, int tb, const char *expect_plan, int expect)
{
    const shim_sgemm_args p = shape_args(m, n, k, ta, tb);
    shim_sgemm_args q;
    int copies = 0;
    const shim_sgemm_variant *inner = sgemm::transpose_first_inner(&p, &copies, &q);
    char how[256];
    shim_sgemm_describe(inner, &q, how, sizeof how);
    sgemm::plan pl;
    const int got = sgemm::fp32_variant_plan(inner, &q, &pl) ? sgemm::streamk_counters_by_copy(&q, pl) : -1;
    cases++;
    if (!copies || !strstr(how, expect_plan) || got != expect) {
        printf("FAIL sgemm %dx%dx%d %c%c: copies %d, then %s, its counters zeroed by the copy %d; expected "
               "%s, %d\n",
               m, n, k, "NT"[ta], "NT"[tb], copies, how, got, expect_plan, expect);
        failures++;
    }
}

int main()
{
    if (sgemm::sm_count() != 132) {
        printf("skipped: the device has %d SMs, the H200's capacities assume 132\n", sgemm::sm_count());
        return 77;
    }
    sgemm::assume_h200_cluster_capacities(true);
    /* transpose_first's copy zeroes the counters of a stream-K plan of one block an SM (1400^3 TN and
     * TT 0.99 of the time without zero_counters between); not of two an SM where three fit, whose
     * blocks were then placed unevenly (1248^3 TN 1.33x); none where the plan is not stream-K */
    counters_by_copy(1400, 1400, 1400, 1, 0, "streamk (121 tiles of 128x128 over 132 blocks)", 121);
    counters_by_copy(1400, 1400, 1400, 1, 1, "streamk (121 tiles of 128x128 over 132 blocks)", 121);
    counters_by_copy(1632, 1632, 1632, 1, 0, "streamk (169 tiles of 128x128 over 132 blocks)", 169);
    counters_by_copy(1248, 1248, 1248, 1, 0, "streamk (200 tiles of 128x64 over 264 blocks", 0);
    counters_by_copy(3000, 3000, 3000, 1, 0, "splitk_tail (tiles of 128x128: 528 whole", 0);
    /* a split of every tile in four slices: the halves in its place (same blocks) */
    choice(512, 512, 512, 0, 0, "^splitk_halves");
    /* five or more slices finished by the reduction kernel, the halves' blocks 90-132 (one an SM at
     * most, more than two thirds of the SMs): the halves (HALVES_MANY_SLICES) */
    choice(512, 512, 512, 1, 0, "^splitk_halves (tiles of 64x64w4: 0 whole, 64 in 2 K slices");
    choice(1320, 140, 924, 1, 1, "^splitk_halves");
    choice(300, 780, 800, 0, 1, "^splitk_halves (tiles of 64x64w4: 0 whole, 65 in 2 K slices");
    choice(610, 258, 681, 1, 0, "^transpose_first: AB copied, then splitk_halves");
    /* the same splits where the halves' blocks would be 140 (some SMs twice) or 88: the halves are not
     * taken; the split stays, finished in clusters of one wave that the device spreads (210 and 176
     * blocks, 1.59 and 1.33 an SM: plan.cu's cluster_spread_in_one_wave); at 280x884x668 TN on 64x64w4
     * tiles since their splits are priced (W4_SPLIT_PRICE: 420 placed blocks, 1.03x the time of the
     * 64x128 tiles' 210, H200, 2026-11-29) */
    choice(280, 884, 668, 1, 0, "^splitk_cluster (tiles of 64x64w4: 0 whole, 70 in 6 K slices");
    choice(68, 1388, 712, 0, 0, "^splitk_cluster (tiles of 128x64: 0 whole, 22 in 8 K slices");
    /* clusters of one wave whose blocks an SM lie at most 0.8 past a whole number: 200 blocks of three
     * an SM in clusters of four (1.52 an SM), 216 of 128x64 in clusters of three (1.64), where the
     * placed clusters were 128x128 tiles in eight or six slices */
    choice(640, 640, 640, 1, 1, "^splitk_cluster (tiles of 64x128: 0 whole, 50 in 4 K slices");
    choice(640, 640, 640, 1, 0, "^splitk_cluster (tiles of 128x64: 0 whole, 50 in 4 K slices");
    choice(736, 736, 736, 0, 0, "^splitk_cluster (tiles of 128x64: 0 whole, 72 in 3 K slices");
    /* not where the blocks an SM are a whole number or just under one (264 blocks of 128x64 in four
     * slices, 2.0 an SM): placed clusters, since W4_SPLIT_PRICE those of 64x64w4 tiles in four slices
     * (484 blocks; 0.866 of the time of 128x64's in five, 1.05x cuBLAS, H200, 2026-11-29) */
    choice(704, 704, 704, 0, 0, "^splitk_cluster (tiles of 64x64w4: 0 whole, 121 in 4 K slices");
    /* nor in place of the halves (900x252x684 NN: 128x64 tiles in six slices ran 1.20x the halves'
     * time) or past two blocks an SM (1056x536x668 NT: 612 blocks of 64x64, 1.125x the split it
     * displaced; there 64x64w4's clusters of three slices, placed, ran 0.932 of that split's time
     * since W4_SPLIT_PRICE, H200, 2026-11-29) */
    choice(900, 252, 684, 0, 0, "^splitk_halves");
    /* nor in place of the halves by a copied form that beats them only by such clusters (272x808x540
     * TN: A copied, then 128x64 tiles in six slices, 1.11x the halves' time) */
    choice(272, 808, 540, 1, 0, "^splitk_halves");
    choice(1056, 536, 668, 0, 1, "^splitk_cluster (tiles of 64x64w4: 0 whole, 153 in 3 K slices");
    /* the k-group tiles' B by lanes priced as NT's from K = 900 (plan.cu LANES_B_MIN_K): their one
     * wave in place of the split in clusters (960^3 NN 0.0529 -> 0.0490 ms, 928^3 TN with A alone
     * copied 0.0530 -> 0.0501; H200, 2026-11-29); below it the price kept (864^3 NN: the halves,
     * 1.15x faster than these tiles) */
    choice(960, 960, 960, 0, 0, "^pipelined_128x64_kg2 (120 tiles of 128x64kg2; B K4)");
    choice(928, 928, 928, 1, 0, "^transpose_first: A copied, then pipelined_128x64_kg2 (120 tiles");
    choice(864, 864, 864, 0, 0, "^splitk_halves");
    /* the halves past K = 1024 at HALVES_PRICE 0.84 (select.cu): in place of stream-K on 128x64
     * (1056^3 NN 0.0744 -> 0.0723 ms) and of one wave of 128x128 after both copies (1599x1097x1255 TN
     * 0.1310 -> 0.1207; H200, 2026-11-30); 1184^3 keeps its plan (a price of 0.80 gave it the halves,
     * 1.05-1.09x that plan's time) */
    choice(1056, 1056, 1056, 0, 0, "^splitk_halves (tiles of 64x64w4: 0 whole, 289 in 2 K slices");
    choice(1599, 1097, 1255, 1, 0, "^transpose_first: AB copied, then splitk_halves");
    choice(1184, 1184, 1184, 0, 0, "^splitk_cluster (tiles of 128x64: 0 whole, 190 in 2 K slices");
    printf("cluster choices: %d cases, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
