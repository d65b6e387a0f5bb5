/* How a large sgemm on host operands is cut for the staging pipeline: C in tiles of tm x tn, the
 * shared dimension in chunks of kc, and how many device buffers each operand gets. Pure logic,
 * no CUDA: the decision is tested on any machine. */
#ifndef SHIM_TILE_PLAN_H
#define SHIM_TILE_PLAN_H

#include <stddef.h>

typedef struct shim_tile_plan {
    int tm, tn, kc;                /* full tile and chunk sizes (the last ones may be smaller) */
    int mt, nt, kt;                /* how many along m, n, k */
    int slots_a, slots_b, slots_c; /* device buffers per operand (0: in place or not read) */
    size_t bytes;                  /* device memory the buffers take */
} shim_tile_plan;

/* stage_*: the operand lives in host memory and must be brought over (stage_c: C is read, or
 * written back, through the pipeline); transa/transb decide the stored shapes of the blocks.
 * Returns 0 with a plan that fits budget bytes, -1 when even the smallest does not. */
int shim_plan_tiles(int m, int n, int k, int transa, int transb, int stage_a, int stage_b, int stage_c,
                    size_t budget, shim_tile_plan *out);

/* the column panels of an sgemv's A: how many columns per block and how many buffers */
typedef struct shim_panel_plan {
    int cols;  /* columns per block */
    int count; /* blocks along n */
    int slots;
    size_t bytes;
} shim_panel_plan;
int shim_plan_panels(int m, int n, size_t budget, shim_panel_plan *out);

/* host-data sgemm of at least this many multiply-adds, with at least two row bands of tiles, is
 * spread over the devices of SHIMBLAS_DEVICES (src/gpu/gpu_sgemm.c; the cost model predicts the same) */
#define SHIM_SPREAD_MIN_MACS 1e9

#endif
