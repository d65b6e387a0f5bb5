/* The pipeline's tiling decisions, without a GPU: tiles cover the problem exactly, device buffers
 * fit the budget, and shrinking the budget (the out-of-core case) still yields a valid plan down to
 * the smallest tiles, then a clear refusal. */
#include <stdio.h>

#include "tile_plan.h"

static int failures, cases;

static void check_tiles(int m, int n, int k, int ta, int tb, int sa, int sb, int sc, size_t budget, int expect_ok)
{
    cases++;
    shim_tile_plan p;
    int rc = shim_plan_tiles(m, n, k, ta, tb, sa, sb, sc, budget, &p);
    char what[160];
    snprintf(what, sizeof what, "%dx%dx%d t=%d%d stage=%d%d%d budget=%zu", m, n, k, ta, tb, sa, sb, sc, budget);
    if ((rc == 0) != expect_ok) {
        printf("FAIL %s: plan %s\n", what, rc ? "refused" : "accepted");
        failures++;
        return;
    }
    if (rc)
        return;
    int ok = p.tm >= 1 && p.tn >= 1 && p.kc >= 1 && (long)p.mt * p.tm >= m && (long)(p.mt - 1) * p.tm < m &&
             (long)p.nt * p.tn >= n && (long)(p.nt - 1) * p.tn < n && p.bytes <= budget &&
             (k == 0 || ((long)p.kt * p.kc >= k && (long)(p.kt - 1) * p.kc < k)) && (sa || p.slots_a == 0) &&
             (sb || p.slots_b == 0) && (sc || p.slots_c == 0) && (!sa || p.slots_a >= 1) && (!sb || p.slots_b >= 1) &&
             (!sc || p.slots_c >= 1) && p.slots_a <= 128 && p.slots_b <= 128;
    if (!ok) {
        printf("FAIL %s: tiles %dx%dx%d (%d,%d,%d) slots %d/%d/%d bytes %zu\n", what, p.tm, p.tn, p.kc, p.mt, p.nt,
               p.kt, p.slots_a, p.slots_b, p.slots_c, p.bytes);
        failures++;
    }
}

int main(void)
{
    const size_t big = (size_t)100 << 30;
    check_tiles(8192, 8192, 8192, 0, 0, 1, 1, 1, big, 1);
    check_tiles(4096, 4096, 4096, 1, 1, 1, 1, 1, big, 1);
    check_tiles(1000, 1000, 1000, 0, 1, 1, 1, 1, big, 1);
    check_tiles(1, 1, 1, 0, 0, 1, 1, 1, big, 1);
    check_tiles(4097, 17, 65536, 1, 0, 1, 1, 0, big, 1);
    check_tiles(128, 128, 65536, 0, 0, 1, 1, 1, big, 1);
    check_tiles(16384, 16384, 256, 0, 1, 1, 0, 1, big, 1);
    check_tiles(300, 200, 0, 0, 0, 0, 0, 1, big, 1);
    check_tiles(300, 200, 100, 0, 0, 0, 0, 0, 0, 1); /* all on the device: nothing to hold */
    /* out of core: shrinking budgets */
    for (size_t budget = (size_t)1 << 30; budget >= ((size_t)1 << 20); budget /= 4)
        check_tiles(8192, 8192, 8192, 0, 1, 1, 1, 1, budget, 1);
    check_tiles(8192, 8192, 8192, 0, 0, 1, 1, 1, 1024, 0);

    /* the 8192 square keeps its tiles near 2048 and has several of them to overlap */
    shim_tile_plan p;
    shim_plan_tiles(8192, 8192, 8192, 0, 0, 1, 1, 1, big, &p);
    cases++;
    if (p.mt * p.nt < 4 || p.tm < 1024 || p.slots_a != p.mt * p.kt) {
        printf("FAIL 8192^3 with room: tiles %dx%d kc %d, slots_a %d\n", p.tm, p.tn, p.kc, p.slots_a);
        failures++;
    }

    /* full tiles take k in chunks of 8192 in large calls (a launch that long runs near the kernel's
     * full rate), of 2048 in smaller ones (the first kernel starts sooner) */
    int chunks[][5] = {{16384, 16384, 16384, 8192, 2}, {8192, 8192, 8192, 8192, 1}, {6144, 6144, 6144, 2048, 3},
                       {4096, 4096, 4096, 2048, 2}, {4096, 4096, 65536, 8192, 8}};
    for (int i = 0; i < 5; i++) {
        shim_plan_tiles(chunks[i][0], chunks[i][1], chunks[i][2], 0, 1, 1, 1, 1, big, &p);
        cases++;
        if (p.tm != 2048 || p.kc != chunks[i][3] || p.kt != chunks[i][4]) {
            printf("FAIL %dx%dx%d with room: tiles %dx%d, %d k chunks of %d\n", chunks[i][0], chunks[i][1],
                   chunks[i][2], p.tm, p.tn, p.kt, p.kc);
            failures++;
        }
    }

    /* thin tiles take k in long chunks: few launches */
    shim_plan_tiles(128, 128, 65536, 0, 0, 1, 1, 1, big, &p);
    cases++;
    if (p.kt > 2) {
        printf("FAIL 128x128x65536: %d k chunks of %d\n", p.kt, p.kc);
        failures++;
    }

    shim_panel_plan q;
    int sizes[][2] = {{1048576, 16}, {16, 1048576}, {16384, 16384}, {65536, 256}, {1, 1}, {5000000, 3}};
    for (int i = 0; i < 6; i++) {
        cases++;
        int rc = shim_plan_panels(sizes[i][0], sizes[i][1], big, &q);
        if (rc || (long)q.cols * q.count < sizes[i][1] || (long)q.cols * (q.count - 1) >= sizes[i][1] || q.slots < 1 ||
            q.slots > 3) {
            printf("FAIL panels %dx%d: %d cols x %d, %d slots\n", sizes[i][0], sizes[i][1], q.cols, q.count, q.slots);
            failures++;
        }
    }
    cases++;
    if (shim_plan_panels(1 << 20, 4, 1 << 20, &q) == 0) {
        printf("FAIL panels: a column larger than the budget was accepted\n");
        failures++;
    }
    printf("test_tile_plan: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
