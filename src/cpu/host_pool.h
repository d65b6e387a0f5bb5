/* A small pool of host threads for the memory-bound work of staging: packing pageable operands
 * into pinned buffers and unpacking results, so the bus and not one core's memcpy is the limit. */
#ifndef SHIM_HOST_POOL_H
#define SHIM_HOST_POOL_H

/* runs fn(ctx, i) for i in [0, tasks) on the pool and the calling thread; returns when all are done.
 * Calls from several threads at once are serialised. */
void shim_host_parallel(int tasks, void (*fn)(void *ctx, int task), void *ctx);
/* how many threads take part (the caller included) */
int shim_host_threads(void);
/* The same on group group of groups: a call spread over several GPUs packs for each on a group of
 * its own (the cores shared out), so the GPUs' staging runs side by side. Group 0 of 1 is the pool
 * above; a group's size is fixed by its first use. */
void shim_host_parallel_in(int group, int groups, int tasks, void (*fn)(void *ctx, int task), void *ctx);
int shim_host_group_threads(int group, int groups);

#endif
