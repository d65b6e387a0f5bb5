/* The kernel registries' host-side functions on every shape their contract allows (m, n >= 1;
 * sgemm's k >= 0, k == 0 included), small, degenerate and large: the selector in every arithmetic
 * class and every variant's workspace size return (no division by zero) and name a registered
 * variant. Without a GPU the Hopper variants decline and the selector never weighs them; on the GPU
 * host (where the suite runs too) they accept, and the selector asks their cost for k == 0 as well,
 * which is how a division by zero there was found. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sgemm_kernels.h"
#include "sgemv_kernels.h"

static int failures, cases;

static void sgemm_shape(int m, int n, int k, int ta, int tb)
{
    int count;
    const shim_sgemm_variant *all = shim_sgemm_variants(&count);
    for (int math = SHIM_SGEMM_FP32; math <= SHIM_SGEMM_TF32; math++) {
        shim_sgemm_args p;
        memset(&p, 0, sizeof p);
        p.transa = ta, p.transb = tb, p.m = m, p.n = n, p.k = k, p.alpha = 1.0f, p.beta = 0.5f;
        p.lda = ta ? (k > 0 ? k : 1) : (m > 0 ? m : 1);
        p.ldb = tb ? (n > 0 ? n : 1) : (k > 0 ? k : 1);
        p.ldc = m > 0 ? m : 1;
        p.math = math;
        cases++;
        const shim_sgemm_variant *v = shim_sgemm_select(&p);
        if (!v || shim_sgemm_find(v->name) != v) {
            printf("FAIL sgemm %dx%dx%d math %d: the selector names no registered variant\n", m, n, k, math);
            failures++;
        } else if (strcmp(v->name, "transpose_first") == 0 &&
                   (math != SHIM_SGEMM_FP32 || k == 0 || (!ta && tb) || shim_sgemm_work_bytes(v, &p) == 0)) {
            /* copies are for FP32 plans of real products with a K-contiguous operand, into a workspace */
            printf("FAIL sgemm %dx%dx%d %c%c math %d: transpose_first chosen where it has nothing to copy\n", m, n,
                   k, "NT"[ta], "NT"[tb], math);
            failures++;
        }
        char how[256];
        const int len = v ? shim_sgemm_describe(v, &p, how, sizeof how) : 0;
        cases++;
        if (v && (len <= 0 || (size_t)len >= sizeof how || strncmp(how, v->name, strlen(v->name)) != 0)) {
            printf("FAIL sgemm %dx%dx%d math %d: %s described as \"%s\"\n", m, n, k, math, v->name, how);
            failures++;
        }
        for (int i = 0; i < count; i++) {
            cases++;
            /* the registry asks the variant whenever k > 0 (an empty C included) */
            size_t through = shim_sgemm_work_bytes(&all[i], &p);
            size_t direct = k > 0 ? all[i].work_bytes(&p) : 0;
            if (through != direct) {
                printf("FAIL sgemm %s %dx%dx%d: work %zu through the registry, %zu asked directly\n", all[i].name,
                       m, n, k, through, direct);
                failures++;
            }
        }
    }
}

static void sgemv_shape(int m, int n, int trans)
{
    int count;
    const shim_sgemv_variant *all = shim_sgemv_variants(&count);
    shim_sgemv_args p;
    memset(&p, 0, sizeof p);
    p.trans = trans, p.m = m, p.n = n, p.alpha = 1.0f, p.beta = 0.5f, p.lda = m > 0 ? m : 1;
    cases++;
    const shim_sgemv_variant *v = shim_sgemv_select(&p);
    if (!v || shim_sgemv_find(v->name) != v) {
        printf("FAIL sgemv %dx%d: the selector names no registered variant\n", m, n);
        failures++;
    }
    for (int i = 0; i < count; i++) {
        cases++;
        (void)shim_sgemv_work_bytes(&all[i], &p);
    }
}

/* The copy of K-contiguous operands (transpose_first) where the cost model says it pays: a large
 * square with both operands K-contiguous (its copy is under 2 % of the product), never NT (nothing
 * to copy), never a small square (the copy's launch is a tenth of the product). With one
 * K-contiguous operand (NN, TT) the 8-warp k8 tiles take it on their 256 side directly, faster than
 * a copy and NT (H100, 2026-11-25: 8192^3 NN 21.53 ms against 22.38 for transpose_first). */
static void sgemm_copy_choice(int m, int n, int k, int ta, int tb, int expect)
{
    shim_sgemm_args p;
    memset(&p, 0, sizeof p);
    p.transa = ta, p.transb = tb, p.m = m, p.n = n, p.k = k, p.alpha = 1.0f, p.beta = 0.0f;
    p.lda = ta ? k : m, p.ldb = tb ? n : k, p.ldc = m, p.math = SHIM_SGEMM_FP32;
    const shim_sgemm_variant *v = shim_sgemm_select(&p);
    const int copies = v && strcmp(v->name, "transpose_first") == 0;
    cases++;
    if (copies != expect) {
        printf("FAIL sgemm %dx%dx%d %c%c: %s chosen, transpose_first %s\n", m, n, k, "NT"[ta], "NT"[tb],
               v ? v->name : "nothing", expect ? "expected" : "not expected");
        failures++;
    }
}

/* The tiles the FP32 plan runs (shim_sgemm_describe) with A, B and C off_a, off_b and off_c floats
 * past 16-byte (indeed 256-byte) boundaries; expect "!text": anything but text; "^text": a plan
 * description starting with text.
 * A plan depends on whether A, B and C are 16-byte capable (128x128's 4-byte copies of R-contiguous
 * operands are priced, its 4-byte stores of an unstaged C refused) and whether K-contiguous rows
 * start on 32-byte sectors, so the plans remembered from a thread's earlier calls (shape_memo) must
 * not answer for operands placed otherwise: the same shape with A, then C (where K is beyond its
 * staging), four bytes off is planned without those tiles, and the aligned call after it with them,
 * as in a fresh thread. And a copied form is planned as the copy is launched (16-byte capable
 * whatever the caller's pointer): TT with A four bytes off
 * copies A and runs the same tiles as aligned. */
static void sgemm_choice_at(int m, int n, int k, int ta, int tb, int off_a, int off_b, int off_c,
                            const char *expect)
{
    shim_sgemm_args p;
    memset(&p, 0, sizeof p);
    p.transa = ta, p.transb = tb, p.m = m, p.n = n, p.k = k, p.alpha = 1.0f, p.beta = 0.0f;
    p.lda = ta ? k : m, p.ldb = tb ? n : k, p.ldc = m, p.math = SHIM_SGEMM_FP32;
    p.a = (const float *)(uintptr_t)(4096 + 4 * off_a), p.b = (const float *)(uintptr_t)(4096 + 4 * off_b);
    p.c = (float *)(uintptr_t)(8192 + 4 * off_c);
    char how[256];
    shim_sgemm_describe(shim_sgemm_select(&p), &p, how, sizeof how);
    cases++;
    const int negated = expect[0] == '!', prefix = expect[0] == '^';
    const int found = prefix ? strncmp(how, expect + 1, strlen(expect + 1)) == 0 : strstr(how, expect + negated) != NULL;
    if (negated ? found : !found) {
        printf("FAIL sgemm %dx%dx%d %c%c, A %d, B %d and C %d floats off: runs %s, expected %s%s\n", m, n, k,
               "NT"[ta], "NT"[tb], off_a, off_b, off_c, how, negated ? "anything but " : prefix ? "a plan starting " : "",
               expect + negated + prefix);
        failures++;
    }
}

/* The tiles the FP32 plan runs with aligned operands: a K-contiguous operand reaches shared memory by
 * 4-byte transposing copies, whose cost falls with the tile's other side, so a plan whose large
 * operand is a K-contiguous A takes 64x128 tiles (A's copies face 128 columns), never 128x64; with
 * an R-contiguous A and a K-contiguous B, 128x64. Where the small operand is the K-contiguous one, it
 * is copied first. */
static void sgemm_tile_choice(int m, int n, int k, int ta, int tb, const char *expect)
{
    sgemm_choice_at(m, n, k, ta, tb, 0, 0, 0, expect);
}

int main(void)
{
    sgemm_choice_at(1400, 1400, 1400, 0, 1, 1, 0, 0, "!128x128");
    sgemm_choice_at(1400, 1400, 1400, 0, 1, 0, 0, 0, "streamk (121 tiles of 128x128 over 132 blocks)");
    /* (C 4 bytes off at K > 3072, where C is not staged: at K = 1400 c16 no longer holds; a split of
     * those tiles may run, whose C is stored as the reduction stores it) */
    sgemm_choice_at(1400, 1400, 4000, 0, 1, 0, 0, 1, "!121 tiles of 128x128");
    /* aligned, K from 1024: stream-K over every SM in place of the one wave of whole tiles (select.cu,
     * SK_ONE_AN_SM_MIN_K: H200, 2026-11-29, 0.94 of their time at K 4000, 0.975 on the 52 shapes of
     * K 1066-2558 it moved once stream-K's last tile stayed in registers) */
    sgemm_choice_at(1400, 1400, 4000, 0, 1, 0, 0, 0, "streamk (121 tiles of 128x128 over 132 blocks)");
    /* and its edges: 120 tiles at K 6483 (measured 0.927; the model prices it first there) and at
     * K 2000, not under K 1024, nor with 130 tiles (two idle SMs: 0.99-1.03) */
    sgemm_tile_choice(1512, 1188, 6483, 0, 1, "streamk (120 tiles of 128x128 over 132 blocks)");
    sgemm_tile_choice(1512, 1188, 2000, 0, 1, "streamk (120 tiles of 128x128 over 132 blocks)");
    sgemm_tile_choice(1512, 1188, 1000, 0, 1, "pipelined_128x128 (120 tiles of 128x128)");
    sgemm_tile_choice(1540, 1200, 4664, 0, 1, "pipelined_128x128 (130 tiles of 128x128)");
    /* stream-K's 128x64 tiles on NT data give way to 128x128 over one block an SM where those are one
     * to two of its waves and pad no more (plan_streamk: H200, 2026-11-29, 1616^3-1664^3 2.5-3 %
     * faster): not with C 4 bytes off (its stores are not staged), nor with B by 4-byte copies (NN,
     * not measured), nor where 128x128 pads 4 % more (1440^3: 1.2-1.9 % slower; there 64x64w4's whole
     * tiles with the last split in thirty, W4_SPLIT_PRICE: 0.925 of 128x64 stream-K's time, H200,
     * 2026-11-29), nor past two waves (7000^3, whole tiles) */
    sgemm_tile_choice(1632, 1632, 1632, 0, 1, "streamk (169 tiles of 128x128 over 132 blocks)");
    sgemm_tile_choice(1632, 1632, 1632, 1, 0, "AB copied, then streamk (169 tiles of 128x128 over 132 blocks)");
    sgemm_choice_at(1632, 1632, 1632, 0, 1, 0, 0, 1, "streamk (338 tiles of 128x64 over 264 blocks)");
    sgemm_tile_choice(1632, 1632, 1632, 0, 0, "streamk (338 tiles of 128x64 over 264 blocks; B K4)");
    sgemm_tile_choice(1440, 1440, 1440, 0, 1, "splitk_tail (tiles of 64x64w4: 528 whole, 1 in 30 K slices)");
    sgemm_tile_choice(7000, 7000, 7000, 0, 1, "pipelined_128x128 (3025 tiles of 128x128)");
    sgemm_choice_at(1400, 1400, 1400, 1, 1, 1, 0, 0, "A copied, then streamk (121 tiles of 128x128 over 132 blocks)");
    /* a K-contiguous B 16 bytes off 32-byte sectors is priced (MISALIGNED_COST) and copied; on them,
     * not */
    sgemm_choice_at(1000, 1000, 1000, 0, 0, 0, 4, 0, "B copied");
    sgemm_choice_at(1000, 1000, 1000, 0, 0, 0, 0, 0, "pipelined_128x64_kg2 (128 tiles of 128x64kg2; B K4)");
    /* B's rows off 32-byte sectors by its leading dimension alone, where the copy would feed the k-group
     * tiles: they take B directly (H200, 2026-11-28: 1000x1000x996 NN 0.0525 ms against 0.0563 after
     * B's copy, 1409x458x257 NN 0.0215 against 0.0233); where the copy feeds other tiles, copied */
    sgemm_choice_at(1000, 1000, 996, 0, 0, 0, 0, 0, "pipelined_128x64_kg2 (128 tiles of 128x64kg2; B K4)");
    sgemm_choice_at(1409, 458, 257, 0, 0, 0, 0, 0, "pipelined_128x64_kg2 (96 tiles of 128x64kg2; B K4)");
    sgemm_choice_at(3045, 3099, 6687, 0, 0, 0, 0, 0, "B copied");
    /* the k-group tiles' B by lanes priced as NT's from K = 900 only where B's base lies on a
     * 32-byte sector (plan.cu LANES_B_MIN_K; the aligned choices in test_cluster_choices): 16 bytes
     * off, B is still copied */
    sgemm_choice_at(960, 960, 960, 0, 0, 0, 4, 0, "^transpose_first: B copied");
    /* and a plan remembered for B on a sector does not answer for B off one in the same alignment
     * class otherwise (rows off sectors by ldb alone, or not 16-byte capable: shape_memo's key) */
    sgemm_choice_at(372, 2815, 1323, 1, 0, 0, 0, 0, "^transpose_first: A copied, then pipelined_128x64_kg2");
    sgemm_choice_at(372, 2815, 1323, 1, 0, 0, 4, 0, "^transpose_first: AB copied");
    sgemm_choice_at(1164, 786, 1668, 0, 0, 0, 0, 0, "^pipelined_128x64_kg2");
    sgemm_choice_at(1164, 786, 1668, 0, 0, 0, 4, 0, "^transpose_first: B copied");

    sgemm_tile_choice(8192, 128, 8192, 1, 1, "of 64x128");
    /* both K-contiguous, their rows 32-byte aligned: split directly (H200, 2026-11-26: 0.3744 ms
     * against 0.3762 with B copied first) */
    sgemm_tile_choice(8192, 128, 8192, 1, 0, "splitk (tiles of 128x64: 0 whole, 128 in 3 K slices; A K16 B K16)");
    sgemm_tile_choice(8192, 128, 8192, 0, 0, "B copied, then splitk (tiles of 128x");
    sgemm_tile_choice(128, 128, 65536, 1, 1, "of 64x128");
    sgemm_tile_choice(128, 128, 65536, 0, 0, "of 128x64");
    /* K-contiguous operands facing a 64-wide side, or both K-contiguous: 16-byte copies (K16); one
     * facing 128: 4-byte ones (K4) */
    sgemm_tile_choice(64, 4096, 4096, 0, 0, "64x128: 0 whole, 32 in 8 K slices; B K16)");
    sgemm_tile_choice(8192, 128, 8192, 1, 1, "; A K4)");
    sgemm_tile_choice(4096, 64, 4096, 1, 0, "; A K16 B K16)");
    /* both K16 priced below their two prices (K16_BOTH): 8 K slices, not 12, and 1600^3 TN split
     * directly rather than after both copies (H200, 2026-11-26: 64x4096x4096 TN 0.0603 ms against
     * 0.0646, 1600^3 TN 0.2010 against 0.2129); where the device runs clusters, the two slices
     * finished in them (H200, 2026-11-27: 0.1973 ms against 0.2026), without a device by the
     * reduction */
    sgemm_tile_choice(64, 4096, 4096, 1, 0, "splitk (tiles of 64x128: 0 whole, 32 in 8 K slices; A K16 B K16)");
    sgemm_tile_choice(1600, 1600, 1600, 1, 0, "^splitk");
    sgemm_tile_choice(1600, 1600, 1600, 1, 0, "tiles of 128x64: 0 whole, 325 in 2 K slices");
    sgemm_tile_choice(1600, 1600, 1600, 1, 0, "; A K16 B K16)");
    /* TT by stream-K with A by 4-byte copies where the blocks outnumber the tiles (H200, 2026-11-26:
     * 1120^3 TT 0.0819 ms against 0.0869 split on 128x128 tiles), not where the tiles outnumber them
     * (1536^3 TT 0.1748 against 0.1708 after A's copy; that stream-K, priced on 128x64 tiles, now
     * runs 128x128 over one block an SM: plan_streamk); TN with a K16 A not at all */
    sgemm_tile_choice(1120, 1120, 1120, 1, 1, "streamk (162 tiles of 64x128 over 264 blocks; A K4)");
    sgemm_tile_choice(1536, 1536, 1536, 1, 1, "A copied, then streamk (144 tiles of 128x128 over 132 blocks)");
    sgemm_tile_choice(1120, 1120, 1120, 1, 0, "!streamk");
    /* the four-warp 128x128x8 tiles of 8x16 a thread, split, where TN's transposes cost them little
     * (H200, 2026-11-26: 1152^3 TN 0.0838 ms against 0.0888 on 128x64 tiles, 1120^3 TN 0.0820 against
     * 0.0848 after A's copy); not at 1280^3 (0.1218 against 0.1143 after A's copy) nor 2048x2048x256
     * (0.0542 against 0.0521 on 256x128x8) */
    sgemm_tile_choice(1152, 1152, 1152, 1, 0, "splitk (tiles of 128x128w4: 0 whole, 81 in 3 K slices; A K16 B K16)");
    sgemm_tile_choice(1120, 1120, 1120, 1, 0, "splitk (tiles of 128x128w4: 0 whole, 81 in 3 K slices; A K16 B K16)");
    sgemm_tile_choice(605, 1252, 10992, 1, 0, "splitk (tiles of 128x128w4: 0 whole, 50 in 5 K slices; A K16 B K16)");
    /* both K-contiguous, and the copied forms one wave of blocks with at most a tile's work each: A
     * alone copied, B by 4-byte copies (H200, 2026-11-26: 1280^3 TN, stream-K 200 tiles over 264
     * blocks, 0.1135 ms against 0.1174 with both copied; 1000^3 TN 0.0568 against 0.0576); at K = 128
     * no copy, the k groups by lanes (H200, 2026-11-28: 0.0137 ms against 0.0148 on 128x64 tiles) */
    sgemm_tile_choice(1000, 1000, 128, 1, 0, "pipelined_128x64_kg2 (128 tiles of 128x64kg2; A K4 B K4)");
    /* TT on the k groups, A by lanes: directly where A's rows do not lie a multiple of 128 bytes
     * apart, after A's copy where they do (H200, 2026-11-28: 1000^3 TT 0.0535 ms against 0.0560
     * copied, 1016^3 0.0536 against 0.0569; 1024^3 0.0566 copied, 0.0590 directly) */
    sgemm_tile_choice(1000, 1000, 1000, 1, 1, "pipelined_128x64_kg2 (128 tiles of 128x64kg2; A K4)");
    sgemm_tile_choice(1016, 1016, 1016, 1, 1, "pipelined_128x64_kg2 (128 tiles of 128x64kg2; A K4)");
    sgemm_tile_choice(1024, 1024, 1024, 1, 1, "A copied, then pipelined_128x64_kg2 (128 tiles of 128x64kg2)");
    sgemm_tile_choice(1000, 1000, 1024, 1, 1, "A copied, then pipelined_128x64_kg2");
    /* 64x64w4's whole tiles where 128x64 tiles would leave most SMs idle and K is short, at least half
     * the SMs a tile (H200, 2026-11-28: 459x576x173 NT 0.0101 ms against 0.0157 on the k groups,
     * 1102x420x258 NT 0.652 of the time); not on fewer in place of a split (122x340x215 TN: its split
     * 1.20x faster) */
    sgemm_tile_choice(459, 576, 173, 0, 1, "pipelined_64x64w4 (72 tiles of 64x64w4)");
    sgemm_tile_choice(1102, 420, 258, 0, 1, "pipelined_64x64w4 (126 tiles of 64x64w4)");
    sgemm_tile_choice(122, 340, 215, 1, 0, "!64x64w4");
    /* ... except in place of the k groups' whole tiles (select_fp32: 512x512x128 TN 0.0096 ms against
     * 0.0133) */
    sgemm_tile_choice(512, 512, 128, 1, 0, "pipelined_64x64w4 (64 tiles of 64x64w4; A K16 B K16)");
    sgemm_tile_choice(400, 472, 91, 0, 0, "pipelined_64x64w4 (56 tiles of 64x64w4; B K4)");
    sgemm_tile_choice(1000, 1000, 1000, 1, 0, "A copied, then pipelined_128x64_kg2 (128 tiles of 128x64kg2; B K4)");
    sgemm_tile_choice(1280, 1280, 1280, 1, 0, "A copied, then streamk (200 tiles of 128x64 over 264 blocks; B K4)");
    /* stream-K with more tiles than blocks: both copied (1536^3 TN 0.1777 ms against 0.1822 with A
     * alone, 1500^3 TN 0.1757 against 0.1820; priced on 128x64 tiles, run on 128x128: plan_streamk) */
    sgemm_tile_choice(1536, 1536, 1536, 1, 0, "AB copied, then streamk (144 tiles of 128x128 over 132 blocks)");
    /* a data-parallel launch of less than a wave with three blocks on some SM priced for its slowest
     * block (DP_ONE_WAVE_IMBALANCE): stream-K over two blocks an SM instead (H200, 2026-11-27: 1664^3
     * NN 0.2204 ms against 0.2316 on 338 whole tiles, 1664^3 TT 0.2153 after A's copy against 0.2294);
     * not at K < 1180 (3161x787x883 TT: 0.1506 by stream-K after A's copy against 0.1378); on NT
     * data (after A's copy) the stream-K plan runs 128x128 over one block an SM (plan_streamk) */
    sgemm_tile_choice(1664, 1664, 1664, 0, 0, "streamk (338 tiles of 128x64 over 264 blocks; B K4)");
    sgemm_tile_choice(1664, 1664, 1664, 1, 1, "A copied, then streamk (169 tiles of 128x128 over 132 blocks)");
    sgemm_tile_choice(3161, 787, 883, 1, 1, "A copied, then pipelined_128x64 (325 tiles of 128x64)");
    /* many waves: both copied */
    sgemm_tile_choice(1250, 3467, 4653, 1, 0, "AB copied, then splitk_tail");
    /* rows off 32-byte sectors (leading dimension not a multiple of 8): copied where an aligned shape
     * would not be (H200, 2026-11-26: 2725x2748x4431 TN 1.4537 ms against 1.6067 with A alone
     * copied, 3045x3099x6687 NN 2.8274 against 3.0951 direct) */
    sgemm_tile_choice(2725, 2748, 4431, 1, 0, "AB copied");
    sgemm_tile_choice(3045, 3099, 6687, 0, 0, "B copied");
    /* the k groups where a launch leaves each SM one four-warp block (H100, 2026-11-25: 1000^3 NN
     * 0.0541 ms against 0.0613 for splitk, NT 0.0529 against 0.0589), not where K is long */
    sgemm_tile_choice(1000, 1000, 1000, 0, 0, "pipelined_128x64_kg2 (128 tiles of 128x64kg2; B K4)");
    sgemm_tile_choice(1000, 1000, 1000, 0, 1, "pipelined_128x64_kg2 (128 tiles of 128x64kg2)");
    /* TN where A's copy would feed the 8-warp 256x128x8 tiles: those tiles directly, both operands
     * K16 (H200, 2026-11-26: 2048^3 TN 0.3496 ms against 0.3597 after the copy) */
    sgemm_tile_choice(2048, 2048, 256, 1, 0, "pipelined_256x128x8 (128 tiles of 256x128x8; A K16 B K16)");
    sgemm_tile_choice(2048, 2048, 2048, 1, 0, "pipelined_256x128x8 (128 tiles of 256x128x8; A K16 B K16)");
    sgemm_tile_choice(4096, 4096, 4096, 1, 0, "pipelined_256x128x8 (512 tiles of 256x128x8; A K16 B K16)");
    /* stream-K where whole tiles fill under a wave and K is long enough to share them (H100, by name:
     * 1280^3 NN 0.961 and 1536^3 NN 0.974 of the fastest other plan), not at 2048^3 (1.02-1.03);
     * over two blocks an SM there, not three (bench/sgemm_plan_space, H100 and H200, 2026-11-26:
     * 3-7 % faster at 1152^3-1536^3 NN and NT) */
    sgemm_tile_choice(1536, 1536, 1536, 0, 0, "streamk (288 tiles of 128x64 over 264 blocks; B K4)");
    sgemm_tile_choice(1280, 1280, 1280, 0, 0, "streamk (200 tiles of 128x64 over 264 blocks; B K4)");
    sgemm_tile_choice(1152, 1152, 1152, 0, 0, "streamk (162 tiles of 128x64 over 264 blocks; B K4)");
    /* one wave of 8-warp 128x128 tiles where they leave each SM one block (1400^3 NT: 0.1250 ms
     * against 0.1327 for 242 tiles of 128x64, H100, 2026-11-26), and 128x64 tiles split where the
     * k groups left 34 SMs idle (896^3 NT 0.0445 against 0.0464); from K 1024 stream-K over them
     * (SK_ONE_AN_SM_MIN_K) */
    sgemm_tile_choice(1400, 1400, 1000, 0, 1, "pipelined_128x128 (121 tiles of 128x128)");
    sgemm_tile_choice(1400, 1400, 1400, 0, 1, "streamk (121 tiles of 128x128 over 132 blocks)");
    /* their K4 copies priced at what they cost them (k4_scale): where a K-contiguous operand would
     * take them off those tiles, it is copied to keep them (H200, 2026-11-26: 1400^3 NN 0.1292 ms
     * against 0.1389 on 128x64 tiles, TT 0.1294 against 0.1346; 1100^3 NT split 3 on 128x128 tiles
     * 0.0765 against 0.0829 by stream-K) */
    sgemm_tile_choice(1400, 1400, 1400, 0, 0, "B copied, then streamk (121 tiles of 128x128 over 132 blocks)");
    sgemm_tile_choice(1400, 1400, 1400, 1, 1, "A copied, then streamk (121 tiles of 128x128 over 132 blocks)");
    sgemm_tile_choice(1100, 1100, 1100, 0, 1, "splitk (tiles of 128x128: 0 whole, 81 in 3 K slices)");
    sgemm_tile_choice(896, 896, 896, 0, 1, "splitk (tiles of 128x64: 0 whole, 98 in 4 K slices)");
    /* one wave of 8-warp blocks, the K-contiguous operand (if any) facing their 256 side (H100,
     * 2026-11-25, by name: 2048^3 NT 0.3373 ms against 0.3593 for the 128x64 tiles, NN 0.3419
     * against 0.3731 for splitk_tail, TT 0.3427 against 0.3728) */
    sgemm_tile_choice(2048, 2048, 2048, 0, 1, "pipelined_128x256x8 (128 tiles of 128x256x8)");
    sgemm_tile_choice(2048, 2048, 2048, 0, 0, "pipelined_256x128x8 (128 tiles of 256x128x8; B K4)");
    sgemm_tile_choice(2048, 2048, 2048, 1, 1, "pipelined_128x256x8 (128 tiles of 128x256x8; A K4)");
    /* and at 16 waves (8192^3 NT: 21.21 ms against 22.20 for the 128x64 tiles) */
    sgemm_tile_choice(8192, 8192, 8192, 0, 1, "pipelined_128x256x8 (2048 tiles of 128x256x8)");
    /* not where an R-contiguous operand goes by 4-byte copies (leading dimension not a multiple of
     * 4: up to 2x behind) */
    sgemm_tile_choice(2047, 2048, 2048, 0, 1, "!pipelined_128x256x8");
    sgemm_tile_choice(2047, 2048, 2048, 0, 1, "!256x128x8");
    /* such copies priced (R4_COST): the tiles' wide side toward them (H200, 2026-11-26: 3501x3910x103
     * NT, A and B by 4-byte copies, 0.0868 ms on 128x128x8 tiles against 0.1138 on 64x128) */
    sgemm_tile_choice(3501, 3910, 103, 0, 1, "pipelined_128x128x8 (868 tiles of 128x128x8)");
    /* 128x128 with such copies, priced at its k4_scale, and split in every tile although C is not
     * 16-byte capable (the split stores partials; H200, 2026-11-26: 5663x493x5011 NT 0.6998 ms
     * against 0.8053 on 128x64 tiles, 963x2687x2760 NT 0.3669 against 0.3891 by stream-K) */
    sgemm_tile_choice(5663, 493, 5011, 0, 1, "splitk (tiles of 128x128: 0 whole, 180 in 5 K slices)");
    sgemm_tile_choice(963, 2687, 2760, 0, 1, "splitk (tiles of 128x128: 0 whole, 168 in 3 K slices)");
    /* its data-parallel tiles with a C off 16 bytes only where C is staged and K > 256 (H200,
     * 2026-11-26: 3551x3464x785 NT 0.4243 ms against 0.4481 on 64x128 tiles; 3501x3910x103 above
     * stays on 128x128x8) */
    sgemm_tile_choice(3551, 3464, 785, 0, 1, "pipelined_128x128 (784 tiles of 128x128)");
    sgemm_tile_choice(3551, 3464, 4000, 0, 1, "!128x128");

    for (int t = 0; t < 4; t++) {
        const int ta = t >> 1, tb = t & 1, has_kc = ta && !tb;
        sgemm_copy_choice(8192, 8192, 8192, ta, tb, has_kc);
        /* at 4096^3 TN A's copy would feed the 8-warp tiles: they take TN directly instead */
        sgemm_copy_choice(4096, 4096, 4096, ta, tb, 0);
        sgemm_copy_choice(256, 256, 256, ta, tb, 0);
    }
    static const int sizes[] = {1, 2, 63, 64, 65, 127, 128, 129, 1000, 4097, 65536};
    static const int ksizes[] = {0, 1, 2, 31, 32, 33, 255, 256, 257, 1000, 65536, 1 << 24};
    const int ns = (int)(sizeof sizes / sizeof *sizes), nk = (int)(sizeof ksizes / sizeof *ksizes);
    for (int a = 0; a < ns; a++)
        for (int b = 0; b < ns; b++)
            for (int c = 0; c < nk; c++)
                sgemm_shape(sizes[a], sizes[b], ksizes[c], (a + c) & 1, (b + c) >> 1 & 1);
    for (int a = 0; a < ns; a++)
        for (int b = 0; b < ns; b++)
            sgemv_shape(sizes[a], sizes[b], (a + b) & 1);
    printf("test_kernel_registry: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
