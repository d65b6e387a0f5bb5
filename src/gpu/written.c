#include "written.h"

#include <stdlib.h>

#include <string.h>

void shim_written_init(shim_written *w)
{
    w->rects = w->inline_rects;
    w->cap = SHIM_WRITTEN_INLINE;
    w->count = 0;
    w->direct = 0;
    w->lost = 0;
}

void shim_written_add(shim_written *w, int64_t r0, int64_t c0, int64_t rows, int64_t cols, int direct)
{
    if (w->count == w->cap) {
        int cap = 2 * w->cap;
        shim_rect *grown = w->rects == w->inline_rects ? malloc(sizeof *grown * (size_t)cap)
                                                        : realloc(w->rects, sizeof *grown * (size_t)cap);
        if (!grown) {
            w->lost = 1;
            return;
        }
        if (w->rects == w->inline_rects)
            memcpy(grown, w->inline_rects, sizeof w->inline_rects);
        w->rects = grown;
        w->cap = cap;
    }
    w->rects[w->count++] = (shim_rect){r0, c0, rows, cols};
    w->direct |= direct;
}

void shim_written_free(shim_written *w)
{
    if (w->rects != w->inline_rects)
        free(w->rects);
    shim_written_init(w);
}

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct interval {
    int64_t lo, hi;
} interval;

static int compare_interval(const void *a, const void *b)
{
    return compare_i64(&((const interval *)a)->lo, &((const interval *)b)->lo);
}

/* Cuts the columns at every piece's left and right edge: inside one band every piece covers all
 * of it or none of it, so the band's uncovered rows are the gaps between the covering pieces'
 * row intervals. Few pieces (tiles of ~2048), so quadratic work is nothing next to the
 * recomputation it plans. */
int shim_written_complement(const shim_written *w, int64_t rows, int64_t cols,
                            void (*fn)(void *ctx, int64_t r0, int64_t c0, int64_t rows, int64_t cols), void *ctx)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    if (w->count == 0) {
        fn(ctx, 0, 0, rows, cols);
        return 0;
    }
    int64_t *edges = malloc(sizeof *edges * (2 * (size_t)w->count + 2));
    interval *cover = malloc(sizeof *cover * (size_t)w->count);
    if (!edges || !cover) {
        free(edges);
        free(cover);
        return -1;
    }
    int ne = 0;
    edges[ne++] = 0;
    edges[ne++] = cols;
    for (int i = 0; i < w->count; i++) {
        edges[ne++] = w->rects[i].c0;
        edges[ne++] = w->rects[i].c0 + w->rects[i].cols;
    }
    qsort(edges, (size_t)ne, sizeof *edges, compare_i64);
    for (int e = 0; e + 1 < ne; e++) {
        int64_t b0 = edges[e], b1 = edges[e + 1];
        if (b0 == b1 || b0 < 0 || b1 > cols)
            continue;
        int nc = 0;
        for (int i = 0; i < w->count; i++) {
            const shim_rect *q = &w->rects[i];
            if (q->c0 <= b0 && b1 <= q->c0 + q->cols)
                cover[nc++] = (interval){q->r0, q->r0 + q->rows};
        }
        qsort(cover, (size_t)nc, sizeof *cover, compare_interval);
        int64_t r = 0;
        for (int i = 0; i < nc; i++) {
            if (cover[i].lo > r)
                fn(ctx, r, b0, cover[i].lo - r, b1 - b0);
            if (cover[i].hi > r)
                r = cover[i].hi;
        }
        if (r < rows)
            fn(ctx, r, b0, rows - r, b1 - b0);
    }
    free(edges);
    free(cover);
    return 0;
}
