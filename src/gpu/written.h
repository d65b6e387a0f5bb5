/* Which parts of a call's output already hold their final values in the caller's memory. The GPU
 * executor writes an output back piece by piece while later pieces still compute; when a call
 * fails midway, the pieces written are final and the rest is untouched, so the CPU recomputes only
 * the rest (recomputing a written piece would read its new values as the old C when beta != 0). */
#ifndef SHIM_WRITTEN_H
#define SHIM_WRITTEN_H

#include <stdint.h>

/* rows x cols of the output from (r0, c0), in the caller's column-major coordinates
 * (sgemv's y is a leny x 1 matrix) */
typedef struct shim_rect {
    int64_t r0, c0;
    int64_t rows, cols;
} shim_rect;

#define SHIM_WRITTEN_INLINE 32

typedef struct shim_written {
    shim_rect *rects; /* the inline array below, or a larger one on the heap */
    int count, cap;
    /* direct: some pieces were written by the device itself (a copy engine into pinned memory,
     * a kernel in place): they are final only once the device finished them, which a broken
     * context cannot tell */
    int direct;
    /* the list could not grow (out of host memory): what was written is unknown */
    int lost;
    shim_rect inline_rects[SHIM_WRITTEN_INLINE]; /* enough for most calls: no allocation */
} shim_written;

/* an empty list (call shim_written_free when done with it) */
void shim_written_init(shim_written *w);
void shim_written_add(shim_written *w, int64_t r0, int64_t c0, int64_t rows, int64_t cols, int direct);
void shim_written_free(shim_written *w);

/* Calls fn(ctx, r0, c0, rows, cols) for rectangles that together cover exactly the part of the
 * rows x cols output that no written piece covers (the pieces are disjoint). -1 (nothing called)
 * when there is no host memory to plan with. */
int shim_written_complement(const shim_written *w, int64_t rows, int64_t cols,
                            void (*fn)(void *ctx, int64_t r0, int64_t c0, int64_t rows, int64_t cols), void *ctx);

#endif
