/* src/gpu/written.c: after a GPU failure the CPU recomputes exactly the part of the output that no
 * written piece covers. Random disjoint pieces (tile grids cut into column pieces, single column
 * segments, as the staging pipeline writes them) on random output shapes; every cell must be covered
 * exactly once by a written piece or by a complement rectangle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "written.h"

typedef struct grid {
    int rows, cols;
    unsigned char *seen;
    int bad;
} grid;

static void mark(void *ctx, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    grid *g = ctx;
    if (rows <= 0 || cols <= 0 || r0 < 0 || c0 < 0 || r0 + rows > g->rows || c0 + cols > g->cols) {
        g->bad++;
        return;
    }
    for (int64_t c = c0; c < c0 + cols; c++)
        for (int64_t r = r0; r < r0 + rows; r++)
            g->seen[c * g->rows + r]++;
}

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

int main(void)
{
    unsigned seed = 12345;
    int failures = 0, cases = 0;
    for (int t = 0; t < 400; t++) {
        int rows = 1 + (int)(rnd(&seed) % 300), cols = 1 + (int)(rnd(&seed) % 300);
        int tm = 1 + (int)(rnd(&seed) % rows), tn = 1 + (int)(rnd(&seed) % cols);
        shim_written w;
        shim_written_init(&w);
        grid g = {rows, cols, calloc((size_t)rows * cols, 1), 0};
        /* tiles in row order, each written as column pieces of `per` columns; the first `done`
         * pieces of the whole sequence were written, the rest not (a failure midway) */
        int per = 1 + (int)(rnd(&seed) % tn);
        long pieces = 0, done = (long)(rnd(&seed) % 1000);
        for (int i0 = 0; i0 < rows; i0 += tm)
            for (int j0 = 0; j0 < cols; j0 += tn)
                for (int c = 0; c < tn && j0 + c < cols; c += per, pieces++) {
                    int r = rows - i0 < tm ? rows - i0 : tm, n = tn - c < per ? tn - c : per;
                    if (j0 + c + n > cols)
                        n = cols - j0 - c;
                    if (pieces < done) {
                        shim_written_add(&w, i0, j0 + c, r, n, 0);
                        mark(&g, i0, j0 + c, r, n);
                    }
                }
        if (shim_written_complement(&w, rows, cols, mark, &g) != 0)
            g.bad++;
        for (long i = 0; i < (long)rows * cols; i++)
            if (g.seen[i] != 1)
                g.bad++;
        cases++;
        if (g.bad) {
            failures++;
            printf("FAIL: %dx%d tiles %dx%d pieces of %d, %ld of %ld written: %d cells wrong\n", rows, cols, tm,
                   tn, per, done < pieces ? done : pieces, pieces, g.bad);
        }
        free(g.seen);
        shim_written_free(&w);
    }
    printf("test_written: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
