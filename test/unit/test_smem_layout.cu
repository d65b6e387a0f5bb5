/* The shared-memory layouts of the FFMA kernels (kernels/sgemm/smem_layout.h), checked on the host
 * against the rule measured on the H200 (docs/notes/sgemm.md): a warp's LDS.128 takes as many
 * wavefronts as the distinct 16-byte addresses of each group of four consecutive lanes, summed
 * over the eight groups, over 8, and at least 2; the distinct addresses of one wavefront must lie
 * in distinct bank groups (16-byte address mod 8). */
#include <cstdio>
#include <set>

#include "smem_layout.h"

using namespace sgemm;

static int cases, failures;

static void check(bool ok, const char *what, int a, int b)
{
    cases++;
    if (!ok) {
        printf("FAIL %s (%d, %d)\n", what, a, b);
        failures++;
    }
}

/* wavefronts of one warp-wide LDS.128 whose lane l reads the 16-byte chunk chunk[l] */
static int wavefronts(const int chunk[32])
{
    int sum = 0;
    for (int g = 0; g < 8; ++g) {
        std::set<int> distinct(chunk + 4 * g, chunk + 4 * g + 4);
        sum += (int)distinct.size();
    }
    const int w = (sum + 7) / 8;
    return w < 2 ? 2 : w;
}

/* the warp's distinct chunks, at most eight of them, in distinct bank groups */
static bool one_line(const int chunk[32])
{
    std::set<int> distinct(chunk, chunk + 32), groups;
    for (int c : distinct)
        groups.insert(c % 8);
    return distinct.size() <= 8 && groups.size() == distinct.size();
}

template <int LANES_M> static void lanes()
{
    constexpr int LANES_N = 32 / LANES_M;
    std::set<int> seen;
    int a[32], b[32], column[32];
    for (int l = 0; l < 32; ++l) {
        const lane_xy p = lane_place<LANES_M>(l);
        check(p.m >= 0 && p.m < LANES_M && p.n >= 0 && p.n < LANES_N, "lane_place inside the grid", LANES_M, l);
        seen.insert(p.m * LANES_N + p.n);
        a[l] = p.m; /* the first float4 of A's fragment: chunk m of the warp's row of A */
        b[l] = p.n;
        column[l] = l % LANES_M; /* the layout before lane_place */
    }
    check((int)seen.size() == 32, "lane_place a bijection onto the grid", LANES_M, (int)seen.size());
    check(wavefronts(a) == 2, "A fragment load in 2 wavefronts", LANES_M, wavefronts(a));
    check(wavefronts(b) == 2, "B fragment load in 2 wavefronts", LANES_M, wavefronts(b));
    check(one_line(a) && one_line(b), "fragment chunks in distinct bank groups", LANES_M, 0);
    /* the rule tells the layouts apart: lanes in columns of LANES_M (every group of four reads
     * four of A's chunks) read A in 4 (the probe measured 4 for lane % 8 and for lane % 4) */
    check(wavefronts(column) == 4, "the rule on lane % LANES_M", LANES_M, wavefronts(column));
}

template <int BK> static void swizzle()
{
    constexpr int CHUNKS = BK / 4;
    for (int r = 0; r < 256; ++r) {
        std::set<int> row;
        for (int c = 0; c < CHUNKS; ++c)
            row.insert(c ^ raw_swizzle<BK>(r));
        check((int)row.size() == CHUNKS && *row.rbegin() == CHUNKS - 1, "a row's chunks permuted", BK, r);
        /* a thread's rows of one loader lie LINES_PER_PASS apart, a multiple of 8: one swizzle */
        check(raw_swizzle<BK>(r) == raw_swizzle<BK>(r % 8), "the swizzle repeats every 8 rows", BK, r);
    }
    /* the transposing reads: a quarter warp takes eight consecutive rows (from a multiple of 8) at
     * one chunk c */
    for (int r0 = 0; r0 < 256; r0 += 8)
        for (int c = 0; c < CHUNKS; ++c) {
            std::set<int> groups;
            for (int r = r0; r < r0 + 8; ++r)
                groups.insert((r * CHUNKS + (c ^ raw_swizzle<BK>(r))) % 8);
            check(groups.size() == 8, "transposing reads in distinct bank groups", BK, r0 * CHUNKS + c);
        }
    /* the 16-byte copies: thread t writes row t / CHUNKS, chunk t % CHUNKS; eight consecutive
     * threads fill whole 128-byte lines */
    for (int t0 = 0; t0 < 256; t0 += 8) {
        std::set<int> groups;
        for (int t = t0; t < t0 + 8; ++t) {
            const int line = t / CHUNKS, pos = t % CHUNKS;
            groups.insert((line * CHUNKS + (pos ^ raw_swizzle<BK>(line))) % 8);
        }
        check(groups.size() == 8, "16-byte copies in distinct bank groups", BK, t0);
    }
}

int main()
{
    lanes<8>();
    lanes<4>();
    swizzle<16>();
    swizzle<8>();
    printf("test_smem_layout: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
