/* The staging pipeline for operands in host memory. An operand is cut into blocks; each block a
 * kernel needs is brought to the device on the copy-in stream (packed by the host thread pool into
 * a ring of pinned buffers, then copied), kernels run on the compute stream as soon as their
 * blocks have arrived, and finished output blocks go back on the copy-out stream while the next
 * ones compute. Device-resident operands are used in place. */
#ifndef SHIM_GPU_PIPELINE_H
#define SHIM_GPU_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "gpu_internal.h"
#include "memory_kind.h"
#include "written.h"

#define SHIM_PIPE_MAX_SLOTS 128

/* a column-major matrix as the caller stored it */
typedef struct shim_matrix_ref {
    const float *base;
    int64_t ld;
    int kind;     /* enum shim_memory_kind */
    int in_place; /* device memory the kernels use where it is; otherwise blocks are copied into
                     device buffers (host memory always; device memory an output that would
                     otherwise be written in place several times, so that only finished pieces
                     ever reach the caller's matrix) */
} shim_matrix_ref;

/* for staging, host memory must be told apart as pinned or pageable: shim_memory_kind answers
 * pageable for host memory it recognises without the driver */
static inline enum shim_memory_kind shim_staging_kind(enum shim_memory_kind kind, const void *p)
{
    return kind == SHIM_MEM_PAGEABLE ? shim_memory_kind_exact(p) : kind;
}

/* a matrix operand: device memory in place, anything else staged */
static inline shim_matrix_ref shim_matrix(const float *base, int64_t ld, enum shim_memory_kind kind)
{
    shim_matrix_ref r = {base, ld, kind, kind == SHIM_MEM_DEVICE || kind == SHIM_MEM_UNUSED};
    return r;
}

/* copies rows x cols between a host region (leading dimension ld) and a dense pinned buffer, on
 * the host thread pool; to_host: pinned -> region */
void shim_host_pack(float *host, int64_t ld, float *pinned, int rows, int cols, int to_host);

/* a block of an operand on the device: where it is and its leading dimension */
typedef struct shim_dev_block {
    float *ptr;
    int64_t ld;
    int slot; /* index into the cache's slots, -1 when in place */
} shim_dev_block;

typedef struct shim_block_slot {
    float *dev;
    size_t floats;     /* capacity */
    long tag;          /* which block it holds, -1 for none */
    cudaEvent_t ready; /* its upload finished (copy-in stream) */
    cudaEvent_t idle;  /* the last kernel or download that used it finished */
} shim_block_slot;

/* device buffers for the blocks of one operand: as many as the plan allows; with one per block
 * every block is uploaded once, with fewer they are reused round-robin */
typedef struct shim_block_cache {
    shim_matrix_ref src;
    shim_block_slot slot[SHIM_PIPE_MAX_SLOTS];
    int slots, next;
    int64_t block_ld; /* leading dimension of every slot (padded to 4 floats) */
    int scratch;      /* src is the library's own copy: writes into it are not the caller's output */
} shim_block_cache;

typedef struct shim_pipeline shim_pipeline;

#define SHIM_TIMED_UPLOADS 48

/* where a pipeline's host thread spent its time (SHIMBLAS_TIMELINE): copying blocks into pinned
 * buffers and finished tiles out of them (ms, MB), waiting for a pinned buffer's copy and for a
 * block another device was staging; and for its first uploads, when each was packed (host ms)
 * and when it was on the device (an event on the copy-in stream) */
typedef struct shim_host_times {
    double pack_ms, pack_mb, unpack_ms, unpack_mb, wait_ms, exchange_wait_ms;
    int uploads;
    double packed_from[SHIM_TIMED_UPLOADS], packed_to[SHIM_TIMED_UPLOADS];
    cudaEvent_t landed[SHIM_TIMED_UPLOADS];
} shim_host_times;

/* starts a pipeline on the calling thread's streams; the pieces of outputs it writes back into
 * the caller's memory are listed in *written (see src/gpu/written.h) */
shim_pipeline *shim_pipeline_begin(shim_gpu_thread *t, shim_written *written);
/* the host threads the calling thread's packing runs on: group of groups (src/cpu/host_pool.h);
 * 0 of 1 unless a call spread over several GPUs says otherwise */
void shim_pipeline_host_group(int group, int groups);
/* one step of this call's pipeline moves step_bytes through the pinned ring (host copies the host
 * does before it waits for the device): the ring is widened to hold that and two buffers more, so
 * that the copies of a step never wait for the results of the same step */
void shim_pipeline_ring(shim_pipeline *pl, size_t step_bytes);
/* device bytes that are still free for this call (the SHIMBLAS_DEVICE_MEMORY cap and the device) */
size_t shim_pipeline_budget(void);

/* gives cache `slots` device buffers able to hold rows x cols blocks (none when src is on the
 * device: its blocks are views) */
int shim_cache_init(shim_pipeline *pl, shim_block_cache *c, shim_matrix_ref src, int slots, int rows,
                    int cols, const char **why);
/* what shim_cache_get does with a block not yet in the cache */
enum {
    SHIM_GET_RESERVE = 0, /* only reserves room (an output whose old value is not read) */
    SHIM_GET_UPLOAD = 1,  /* uploads it; the compute stream waits for it */
    SHIM_GET_AHEAD = 2,   /* uploads it ahead of need: the compute stream waits only when a later
                             get finds it in the cache */
};
/* the block (r0, c0, rows, cols) of the cache's operand on the device, ready for a kernel on the
 * compute stream (upload: SHIM_GET_*) */
int shim_cache_get(shim_pipeline *pl, shim_block_cache *c, long tag, int64_t r0, int64_t c0, int rows,
                   int cols, int upload, shim_dev_block *out, const char **why);
/* the same block from another device's cache (src on src_device, block_ld and cols as this
 * cache's, complete once src_ready has happened), copied device to device */
int shim_cache_get_peer(shim_pipeline *pl, shim_block_cache *c, long tag, const float *src, int src_device,
                        cudaEvent_t src_ready, int cols, shim_dev_block *out, const char **why);
/* the compute stream has enqueued its last use of the block */
int shim_cache_release(shim_pipeline *pl, shim_block_cache *c, const shim_dev_block *b, const char **why);
/* copies the block back into the caller's matrix once the compute stream is done with it (a
 * block computed in place is only listed as written) */
int shim_cache_put(shim_pipeline *pl, shim_block_cache *c, const shim_dev_block *b, int64_t r0, int64_t c0,
                   int rows, int cols, const char **why);
void shim_cache_free(shim_pipeline *pl, shim_block_cache *c);

cudaStream_t shim_pipeline_compute_stream(shim_pipeline *pl);
/* device scratch for the kernels, at least bytes, valid until the end of the pipeline; NULL (with
 * *why, the pipeline still usable) when there is no room for it */
void *shim_pipeline_workspace(shim_pipeline *pl, size_t bytes, const char **why);
/* 1 once anything in the pipeline has failed */
int shim_pipeline_failed(shim_pipeline *pl);
/* every kernel launch of a call goes through here first: 0 to go on; nonzero (with *why) when
 * SHIMBLAS_TEST_FAIL asks this launch to fail (src/gpu/gpu_fault.c) */
int shim_pipeline_launch_check(shim_pipeline *pl, const char **why);
/* waits for everything and unpacks every result still in pinned buffers; 0 when all went well.
 * failed: the caller saw a failure (its *why stands); then nothing more is unpacked. */
int shim_pipeline_end(shim_pipeline *pl, int failed, const char **why);
/* from now on the host thread's time is added up in *times (NULL: not) */
void shim_pipeline_time_host(shim_pipeline *pl, shim_host_times *times);
/* host ms now while the time is added up, else 0 (one branch) */
double shim_pipeline_stamp(const shim_pipeline *pl);
/* the host thread waited since `from` (a stamp) for a block another device was staging */
void shim_pipeline_exchange_waited(shim_pipeline *pl, double from);

#endif
