#include "tile_plan.h"

#include <stdint.h>

/* a tile this wide keeps a kernel launch near full speed (a 2048 x 2048 tile is two waves of
 * 128 x 128 blocks on 132 SMs) while giving the pipeline several tiles to overlap at n >= 4096 */
#define TILE 2048
#define MIN_TILE 128
/* calls of this many multiply-adds or more (about 6500^3) take k in long chunks (below) */
#define LONG_CHUNK_MACS ((double)(1LL << 38))
/* device buffers per operand the pipeline holds (SHIM_PIPE_MAX_SLOTS) */
#define SHIM_PLAN_MAX_BLOCKS 128

static int ceil_div(int64_t a, int64_t b)
{
    return (int)((a + b - 1) / b);
}

/* splits len into near-equal parts of at most target, each a multiple of 128 but the last */
static int part(int len, int target)
{
    if (len <= target + target / 2)
        return len;
    int parts = ceil_div(len, target);
    return ceil_div(ceil_div(len, parts), MIN_TILE) * MIN_TILE;
}

static size_t block_bytes(int rows, int cols)
{
    size_t ld = rows == 1 ? 1 : (size_t)(rows + 3) / 4 * 4;
    return ld * (size_t)cols * sizeof(float);
}

static int try_plan(int m, int n, int k, int transa, int transb, int stage_a, int stage_b, int stage_c,
                    size_t budget, int tm, int tn, int kc, shim_tile_plan *p)
{
    p->tm = tm;
    p->tn = tn;
    p->kc = kc;
    p->mt = ceil_div(m, tm);
    p->nt = ceil_div(n, tn);
    p->kt = k > 0 ? ceil_div(k, kc) : 1;
    size_t a = stage_a ? (transa ? block_bytes(kc, tm) : block_bytes(tm, kc)) : 0;
    size_t b = stage_b ? (transb ? block_bytes(tn, kc) : block_bytes(kc, tn)) : 0;
    size_t c = stage_c ? block_bytes(tm, tn) : 0;
    int tiles = p->mt * p->nt;
    p->slots_c = stage_c ? (tiles < 3 ? tiles : 3) : 0;
    /* preferred: every block of A and B uploaded once; then B kept and A cycled; then both cycled */
    int keep_a = p->mt * p->kt, keep_b = p->nt * p->kt;
    int options[3][2] = {{keep_a, keep_b}, {2, keep_b}, {2, 2}};
    for (int o = 0; o < 3; o++) {
        p->slots_a = stage_a ? (options[o][0] < keep_a ? options[o][0] : keep_a) : 0;
        p->slots_b = stage_b ? (options[o][1] < keep_b ? options[o][1] : keep_b) : 0;
        if (p->slots_a > SHIM_PLAN_MAX_BLOCKS || p->slots_b > SHIM_PLAN_MAX_BLOCKS)
            continue;
        p->bytes = a * (size_t)p->slots_a + b * (size_t)p->slots_b + c * (size_t)p->slots_c;
        if (p->bytes <= budget)
            return 0;
    }
    return -1;
}

int shim_plan_tiles(int m, int n, int k, int transa, int transb, int stage_a, int stage_b, int stage_c,
                    size_t budget, shim_tile_plan *out)
{
    if (!stage_a && !stage_b && !stage_c) {
        /* everything is on the device already: one launch over the whole problem */
        *out = (shim_tile_plan){m, n, k > 0 ? k : 1, 1, 1, 1, 0, 0, 0, 0};
        return 0;
    }
    int tm = part(m, TILE), tn = part(n, TILE);
    /* k chunks sized so a block of A or B holds about 16 MB (2048 for full tiles), or 64 MB (8192)
     * in calls of LONG_CHUNK_MACS or more; longer for thin tiles (a 128-wide tile takes k in chunks
     * of 32768 or 65536, not 32 launches of 2048). One launch of 2048 x 2048 runs at 46 TFLOP/s
     * with K = 2048 and 49-50 with K = 8192-16384 (H200, NT, the selector's plan: a launch's rate
     * grows with its waves of blocks, and a longer K is split over more of them), but the first
     * kernel waits for blocks four times as large: measured on malloc'd squares, long chunks gain
     * 3-9 % from 8192^3 and lose up to 11 % at 4096^3-6144^3 (docs/notes/multi_gpu.md, section 13).
     * The choice depends on the problem alone, so the k-order (and the bits) is the same whatever
     * the number of devices. */
    int wide = tm > tn ? tm : tn;
    size_t block_bytes_target = (double)m * n * k >= LONG_CHUNK_MACS ? (size_t)64 << 20 : (size_t)16 << 20;
    int kc_target = (int)(block_bytes_target / (sizeof(float) * (size_t)wide));
    kc_target = kc_target < TILE ? TILE : kc_target > 65536 ? 65536 : kc_target;
    int kc = k > 0 ? part(k, kc_target) : 1;
    /* Every block of A and B uploaded once needs mt x kt and nt x kt device buffers, at most
     * SHIM_PLAN_MAX_BLOCKS each: past that (n >= 23000 at 2048-wide tiles) both would be cycled and
     * uploaded again for every tile, 16 times over at n = 32768. Longer k chunks keep the count in
     * bounds (the memory check below still decides) */
    int bands = ceil_div(m, tm) > ceil_div(n, tn) ? ceil_div(m, tm) : ceil_div(n, tn);
    if (k > 0 && (stage_a || stage_b) && (int64_t)bands * ceil_div(k, kc) > SHIM_PLAN_MAX_BLOCKS &&
        bands <= SHIM_PLAN_MAX_BLOCKS) {
        int chunks = SHIM_PLAN_MAX_BLOCKS / bands;
        int longer = ceil_div(ceil_div(k, chunks), MIN_TILE) * MIN_TILE;
        kc = longer < k ? longer : k;
    }
    for (;;) {
        if (try_plan(m, n, k, transa, transb, stage_a, stage_b, stage_c, budget, tm, tn, kc, out) == 0)
            return 0;
        if (tm <= MIN_TILE && tn <= MIN_TILE && kc <= MIN_TILE)
            return -1;
        /* halve the largest dimension and try again */
        if (kc >= tm && kc >= tn && kc > MIN_TILE)
            kc = ceil_div(kc, 2 * MIN_TILE) * MIN_TILE;
        else if (tm >= tn && tm > MIN_TILE)
            tm = ceil_div(tm, 2 * MIN_TILE) * MIN_TILE;
        else
            tn = ceil_div(tn, 2 * MIN_TILE) * MIN_TILE;
    }
}

int shim_plan_panels(int m, int n, size_t budget, shim_panel_plan *out)
{
    /* blocks of about 32 MB: large enough that a kernel runs near full bandwidth, small enough
     * that the next one is on the bus while this one computes */
    size_t col_bytes = block_bytes(m, 1);
    int64_t cols = (int64_t)(((size_t)32 << 20) / col_bytes);
    if (cols < 1)
        cols = 1;
    if (cols > n)
        cols = n;
    for (;;) {
        out->cols = (int)cols;
        out->count = ceil_div(n, cols);
        out->slots = out->count < 3 ? out->count : 3;
        out->bytes = block_bytes(m, (int)cols) * (size_t)out->slots;
        if (out->bytes <= budget)
            return 0;
        if (cols == 1)
            return -1;
        cols = (cols + 1) / 2;
    }
}
