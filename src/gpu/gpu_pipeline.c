#include "gpu_pipeline.h"

#include <string.h>

#include "config.h"
#include "gpu_fault.h"
#include "host_pool.h"
#include "stream_copy.h"
#include "stats.h"

struct shim_pipeline {
    shim_gpu_thread *t;
    int failed;
    shim_written *written; /* pieces of outputs written back into the caller's memory */
    int launches;          /* kernel launches so far (for SHIMBLAS_TEST_FAIL) */
    int used_in, used_out; /* whether anything was enqueued on the copy streams */
    int ring;              /* ring buffers this call cycles through */
    int big_work;          /* a kernel of this call asked for more workspace than a thread always keeps */
    shim_host_times *times; /* where the host thread's time goes (SHIMBLAS_TIMELINE), or NULL */
};

static __thread shim_pipeline thread_pipeline;

static const size_t ring_floats = SHIM_RING_BYTES / sizeof(float);

/* A workspace up to this size stays with the thread for its next call. A larger one stays too
 * while the device has room (shim_gpu_room_to_keep: at most 1/64 of it, more than a quarter free):
 * mapping 75-140 MB again every call cost 4096^3 calls 0.2-0.35 ms (H200, bench/device_api).
 * Otherwise it is given back at the end of the call, to the pool and the pool's unused memory to
 * the driver: a program handing us device pointers may need those bytes itself. The room is
 * looked at only by calls that asked for such a workspace (milliseconds of work): asking the
 * driver costs every other call 4-6 µs (sgemv on device data, H200). */
#define KEEP_WORKSPACE_BYTES ((size_t)64 << 20)

shim_pipeline *shim_pipeline_begin(shim_gpu_thread *t, shim_written *written)
{
    thread_pipeline = (shim_pipeline){t, 0, written, 0, 0, 0, SHIM_RING_DEFAULT, 0, NULL};
    return &thread_pipeline;
}

void shim_pipeline_time_host(shim_pipeline *pl, shim_host_times *times)
{
    pl->times = times;
}

double shim_pipeline_stamp(const shim_pipeline *pl)
{
    return pl->times ? shim_now_ms() : 0;
}

void shim_pipeline_exchange_waited(shim_pipeline *pl, double from)
{
    if (pl->times)
        pl->times->exchange_wait_ms += shim_now_ms() - from;
}

void shim_pipeline_ring(shim_pipeline *pl, size_t step_bytes)
{
    size_t want = (step_bytes + SHIM_RING_BYTES - 1) / SHIM_RING_BYTES + 2;
    if (want > (size_t)pl->ring)
        pl->ring = want < SHIM_RING_BUFFERS ? (int)want : SHIM_RING_BUFFERS;
}

int shim_pipeline_launch_check(shim_pipeline *pl, const char **why)
{
    return shim_fault_at_launch(++pl->launches, pl->t->stream, why);
}

int shim_pipeline_failed(shim_pipeline *pl)
{
    return pl->failed;
}

cudaStream_t shim_pipeline_compute_stream(shim_pipeline *pl)
{
    return pl->t->stream;
}

size_t shim_pipeline_budget(void)
{
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
        free_bytes = 0;
    /* leave room for the kernels' workspace and for other users of the device */
    size_t budget = free_bytes / 10 * 9;
    size_t cap = shim_config_get()->device_memory;
    if (cap) {
        size_t used = shim_gpu_pool_in_use();
        size_t left = cap > used ? cap - used : 0;
        if (left < budget)
            budget = left;
    }
    /* an eighth stays for vectors and the kernels' workspace */
    return budget - budget / 8;
}

/* ---- host packing, spread over the host thread pool -------------------------------------------- */

/* one packing job: rows x cols between a host region (leading dimension ld) and a dense pinned
 * buffer; split by columns, or by rows when there is a single long column. Copies back into the
 * caller's matrix use streaming stores (measured on the 2x H200 host with bench/host_copy, 16 and
 * 32 threads: 1.9x memcpy's rate); copies into the pinned buffers use memcpy (streaming stores
 * there ran at 0.7-0.8x: the buffers stay in the host's large cache for the copy engine) */
typedef struct pack_job {
    float *host;
    int64_t ld;
    float *pinned;
    int rows, cols;
    int to_host;
    int tasks;
} pack_job;

static void pack_task(void *ctx, int task)
{
    const pack_job *j = ctx;
    if (j->cols >= j->tasks) {
        int c0 = (int)((int64_t)j->cols * task / j->tasks),
            c1 = (int)((int64_t)j->cols * (task + 1) / j->tasks);
        for (int c = c0; c < c1; c++) {
            float *h = j->host + (int64_t)c * j->ld, *p = j->pinned + (int64_t)c * j->rows;
            if (j->to_host)
                shim_stream_copy(h, p, (size_t)j->rows);
            else
                memcpy(p, h, sizeof(float) * (size_t)j->rows);
        }
        return;
    }
    /* fewer columns than tasks: every task takes a slice of rows of every column */
    int r0 = (int)((int64_t)j->rows * task / j->tasks), r1 = (int)((int64_t)j->rows * (task + 1) / j->tasks);
    for (int c = 0; c < j->cols; c++) {
        float *h = j->host + (int64_t)c * j->ld + r0, *p = j->pinned + (int64_t)c * j->rows + r0;
        if (j->to_host)
            shim_stream_copy(h, p, (size_t)(r1 - r0));
        else
            memcpy(p, h, sizeof(float) * (size_t)(r1 - r0));
    }
}

static __thread int host_group, host_groups = 1; /* the calling thread's host threads (a share of a
                                                     call spread over several GPUs packs on its own) */

void shim_pipeline_host_group(int group, int groups)
{
    host_group = group;
    host_groups = groups > 0 ? groups : 1;
}

void shim_host_pack(float *host, int64_t ld, float *pinned, int rows, int cols, int to_host)
{
    size_t bytes = sizeof(float) * (size_t)rows * (size_t)cols;
    /* below ~256 KB a task costs more to hand out than to do */
    int tasks = (int)(bytes >> 18);
    int threads = shim_host_group_threads(host_group, host_groups);
    if (tasks > threads)
        tasks = threads;
    if (tasks < 1)
        tasks = 1;
    pack_job j = {host, ld, pinned, rows, cols, to_host, tasks};
    shim_host_parallel_in(host_group, host_groups, tasks, pack_task, &j);
}

/* ---- the ring of pinned buffers ----------------------------------------------------------------- */

static int fail(shim_pipeline *pl, cudaError_t err, const char *what, const char **why)
{
    if (shim_gpu_fail(err, what, why)) {
        pl->failed = 1;
        return -1;
    }
    return 0;
}

static int unpack(shim_pipeline *pl, shim_ring_buffer *b, const char **why)
{
    if (!b->pending)
        return 0;
    b->pending = 0;
    double t0 = shim_pipeline_stamp(pl);
    if (fail(pl, cudaEventSynchronize(b->done), "device-to-host copy", why))
        return -1;
    double t1 = shim_pipeline_stamp(pl);
    shim_host_pack(b->dst, b->dst_ld, b->host, b->rows, b->cols, 1);
    if (pl->times) {
        pl->times->wait_ms += t1 - t0;
        pl->times->unpack_ms += shim_pipeline_stamp(pl) - t1;
        pl->times->unpack_mb += sizeof(float) * (double)b->rows * b->cols / 1e6;
    }
    if (b->record)
        shim_written_add(pl->written, b->r0, b->c0, b->rows, b->cols, 0);
    return 0;
}

/* the next pinned buffer, free to be overwritten */
static shim_ring_buffer *next_buffer(shim_pipeline *pl, const char **why)
{
    shim_gpu_thread *t = pl->t;
    if (t->ring_next >= pl->ring) /* (an earlier call cycled through more) */
        t->ring_next = 0;
    shim_ring_buffer *b = &t->ring[t->ring_next];
    t->ring_next = (t->ring_next + 1) % pl->ring;
    if (!b->host && fail(pl, cudaHostAlloc((void **)&b->host, SHIM_RING_BYTES, cudaHostAllocDefault),
                         "pinned staging buffer", why))
        return NULL;
    if (unpack(pl, b, why))
        return NULL;
    double t0 = shim_pipeline_stamp(pl);
    if (fail(pl, cudaEventSynchronize(b->done), "staging", why))
        return NULL;
    if (pl->times)
        pl->times->wait_ms += shim_pipeline_stamp(pl) - t0;
    return b;
}

/* Splits a rows x cols transfer into pieces that fit one ring buffer: whole columns when a column
 * fits, else pieces of one column. Calls piece(r, c, piece_rows, piece_cols) in order. */
typedef int (*piece_fn)(shim_pipeline *pl, void *ctx, int r, int c, int rows, int cols, const char **why);

static int for_each_piece(shim_pipeline *pl, int rows, int cols, piece_fn piece, void *ctx, const char **why)
{
    if ((size_t)rows <= ring_floats) {
        int per = (int)(ring_floats / (size_t)rows);
        for (int c = 0; c < cols; c += per)
            if (piece(pl, ctx, 0, c, rows, cols - c < per ? cols - c : per, why))
                return -1;
        return 0;
    }
    for (int c = 0; c < cols; c++)
        for (int r = 0; r < rows; r += (int)ring_floats)
            if (piece(pl, ctx, r, c, rows - r < (int)ring_floats ? rows - r : (int)ring_floats, 1, why))
                return -1;
    return 0;
}

typedef struct transfer {
    float *host; /* the region's first element in host memory */
    int64_t host_ld;
    float *dev;
    int64_t dev_ld;
    int64_t r0, c0; /* where the region starts in the caller's matrix */
    int record;     /* the region is the caller's output: list what lands there as written */
} transfer;

static int upload_piece(shim_pipeline *pl, void *ctx, int r, int c, int rows, int cols, const char **why)
{
    const transfer *x = ctx;
    shim_ring_buffer *b = next_buffer(pl, why);
    if (!b)
        return -1;
    double t0 = shim_pipeline_stamp(pl);
    shim_host_pack(x->host + (int64_t)c * x->host_ld + r, x->host_ld, b->host, rows, cols, 0);
    shim_host_times *times = pl->times;
    int timed = times && times->uploads < SHIM_TIMED_UPLOADS &&
                cudaEventCreate(&times->landed[times->uploads]) == cudaSuccess;
    if (times) {
        double t1 = shim_now_ms();
        times->pack_ms += t1 - t0;
        times->pack_mb += sizeof(float) * (double)rows * cols / 1e6;
        if (timed) {
            times->packed_from[times->uploads] = t0;
            times->packed_to[times->uploads] = t1;
        }
    }
    pl->used_in = 1;
    int rc = fail(pl,
                  cudaMemcpy2DAsync(x->dev + (int64_t)c * x->dev_ld + r, sizeof(float) * (size_t)x->dev_ld,
                                    b->host, sizeof(float) * (size_t)rows, sizeof(float) * (size_t)rows,
                                    (size_t)cols, cudaMemcpyHostToDevice, pl->t->in),
                  "host-to-device copy", why) ||
             fail(pl, cudaEventRecord(b->done, pl->t->in), "staging", why);
    if (timed)
        cudaEventRecord(times->landed[times->uploads++], pl->t->in);
    return rc;
}

static int download_piece(shim_pipeline *pl, void *ctx, int r, int c, int rows, int cols, const char **why)
{
    const transfer *x = ctx;
    shim_ring_buffer *b = next_buffer(pl, why);
    if (!b)
        return -1;
    if (fail(pl,
             cudaMemcpy2DAsync(b->host, sizeof(float) * (size_t)rows, x->dev + (int64_t)c * x->dev_ld + r,
                               sizeof(float) * (size_t)x->dev_ld, sizeof(float) * (size_t)rows, (size_t)cols,
                               cudaMemcpyDeviceToHost, pl->t->out),
             "device-to-host copy", why) ||
        fail(pl, cudaEventRecord(b->done, pl->t->out), "staging", why))
        return -1;
    pl->used_out = 1;
    b->pending = 1;
    b->record = x->record;
    b->r0 = x->r0 + r;
    b->c0 = x->c0 + c;
    b->dst = x->host + (int64_t)c * x->host_ld + r;
    b->dst_ld = x->host_ld;
    b->rows = rows;
    b->cols = cols;
    return 0;
}

/* ---- block caches ------------------------------------------------------------------------------ */

int shim_cache_init(shim_pipeline *pl, shim_block_cache *c, shim_matrix_ref src, int slots, int rows,
                    int cols, const char **why)
{
    /* (not the whole slot array: a call in place should not pay for clearing it) */
    c->src = src;
    c->slots = c->next = 0;
    c->block_ld = 0;
    c->scratch = 0;
    if (src.in_place)
        return 0;
    if (slots > SHIM_PIPE_MAX_SLOTS)
        slots = SHIM_PIPE_MAX_SLOTS;
    /* padded so every column of a block starts 16-byte aligned: the kernels' vector paths apply */
    c->block_ld = rows == 1 ? 1 : (rows + 3) / 4 * 4;
    size_t floats = (size_t)c->block_ld * (size_t)cols;
    for (int i = 0; i < slots; i++) {
        shim_block_slot *s = &c->slot[i];
        *s = (shim_block_slot){0};
        s->tag = -1;
        s->floats = floats;
        if (shim_gpu_alloc((void **)&s->dev, floats * sizeof(float), pl->t->in, why) ||
            fail(pl, cudaEventCreateWithFlags(&s->ready, cudaEventDisableTiming), "event", why) ||
            fail(pl, cudaEventCreateWithFlags(&s->idle, cudaEventDisableTiming), "event", why)) {
            c->slots = i + 1;
            pl->failed = 1;
            return -1;
        }
        c->slots = i + 1;
    }
    return 0;
}

/* the slot for tag: the one holding it (1, the compute stream then waits for it), or the next one,
 * reserved for tag with stream `writer` (that copies into it) waiting for its previous user (0);
 * -1 on failure */
static int take_slot(shim_pipeline *pl, shim_block_cache *c, long tag, cudaStream_t writer, shim_dev_block *out,
                     const char **why)
{
    for (int i = 0; i < c->slots; i++) {
        if (c->slot[i].tag == tag) {
            *out = (shim_dev_block){c->slot[i].dev, c->block_ld, i};
            return fail(pl, cudaStreamWaitEvent(pl->t->stream, c->slot[i].ready, 0), "stream order", why) ? -1 : 1;
        }
    }
    int i = c->next;
    c->next = (c->next + 1) % c->slots;
    shim_block_slot *s = &c->slot[i];
    s->tag = tag;
    *out = (shim_dev_block){s->dev, c->block_ld, i};
    /* the slot's previous block must be finished with before it is overwritten */
    return fail(pl, cudaStreamWaitEvent(writer, s->idle, 0), "stream order", why) ? -1 : 0;
}

/* the block's copy-in is enqueued on stream `writer`: the kernels that use it wait for it (now, or
 * when a later get finds it in the cache) */
static int block_arriving(shim_pipeline *pl, shim_block_slot *s, cudaStream_t writer, int compute_waits,
                          const char **why)
{
    return fail(pl, cudaEventRecord(s->ready, writer), "staging", why) ||
           (compute_waits && fail(pl, cudaStreamWaitEvent(pl->t->stream, s->ready, 0), "stream order", why));
}

int shim_cache_get(shim_pipeline *pl, shim_block_cache *c, long tag, int64_t r0, int64_t c0, int rows,
                   int cols, int upload, shim_dev_block *out, const char **why)
{
    float *host = (float *)c->src.base + c0 * c->src.ld + r0;
    if (c->src.in_place) {
        *out = (shim_dev_block){host, c->src.ld, -1};
        return 0;
    }
    int found = take_slot(pl, c, tag, pl->t->in, out, why);
    if (found)
        return found < 0 ? -1 : 0;
    shim_block_slot *s = &c->slot[out->slot];
    if (upload) {
        pl->used_in = 1;
        if (c->src.kind != SHIM_MEM_PAGEABLE) {
            /* pinned host or device memory: one copy, no staging buffer */
            if (fail(pl,
                     cudaMemcpy2DAsync(s->dev, sizeof(float) * (size_t)c->block_ld, host,
                                       sizeof(float) * (size_t)c->src.ld, sizeof(float) * (size_t)rows,
                                       (size_t)cols, cudaMemcpyDefault, pl->t->in),
                     "copy to the device", why))
                return -1;
        } else {
            transfer x = {host, c->src.ld, s->dev, c->block_ld, r0, c0, 0};
            if (for_each_piece(pl, rows, cols, upload_piece, &x, why))
                return -1;
        }
    }
    return block_arriving(pl, s, pl->t->in, upload != SHIM_GET_AHEAD, why);
}

int shim_cache_get_peer(shim_pipeline *pl, shim_block_cache *c, long tag, const float *src, int src_device,
                        cudaEvent_t src_ready, int cols, shim_dev_block *out, const char **why)
{
    cudaStream_t peer = pl->t->peer;
    int found = take_slot(pl, c, tag, peer, out, why);
    if (found)
        return found < 0 ? -1 : 0;
    int me = 0;
    shim_block_slot *s = &c->slot[out->slot];
    pl->used_in = 1;
    /* (the slots were allocated in the copy-in stream's order: the copy comes after that) */
    return fail(pl, cudaGetDevice(&me), "cudaGetDevice", why) ||
           fail(pl, cudaEventRecord(s->ready, pl->t->in), "stream order", why) ||
           fail(pl, cudaStreamWaitEvent(peer, s->ready, 0), "stream order", why) ||
           fail(pl, cudaStreamWaitEvent(peer, src_ready, 0), "stream order", why) ||
           fail(pl,
                cudaMemcpyPeerAsync(s->dev, me, src, src_device, sizeof(float) * (size_t)c->block_ld * (size_t)cols,
                                    peer),
                "copy between devices", why) ||
           block_arriving(pl, s, peer, 1, why);
}

int shim_cache_release(shim_pipeline *pl, shim_block_cache *c, const shim_dev_block *b, const char **why)
{
    if (b->slot < 0)
        return 0;
    return fail(pl, cudaEventRecord(c->slot[b->slot].idle, pl->t->stream), "staging", why);
}

int shim_cache_put(shim_pipeline *pl, shim_block_cache *c, const shim_dev_block *b, int64_t r0, int64_t c0,
                   int rows, int cols, const char **why)
{
    if (b->slot < 0) {
        /* computed in place: final once the device has finished it */
        if (!c->scratch)
            shim_written_add(pl->written, r0, c0, rows, cols, 1);
        return 0;
    }
    shim_block_slot *s = &c->slot[b->slot];
    cudaStream_t out = pl->t->out;
    /* reuse the slot's idle event to hand the finished block from the compute stream to copy-out */
    if (fail(pl, cudaEventRecord(s->idle, pl->t->stream), "staging", why) ||
        fail(pl, cudaStreamWaitEvent(out, s->idle, 0), "stream order", why))
        return -1;
    float *host = (float *)c->src.base + c0 * c->src.ld + r0;
    pl->used_out = 1;
    if (c->src.kind != SHIM_MEM_PAGEABLE) {
        if (fail(pl,
                 cudaMemcpy2DAsync(host, sizeof(float) * (size_t)c->src.ld, b->ptr,
                                   sizeof(float) * (size_t)b->ld, sizeof(float) * (size_t)rows, (size_t)cols,
                                   cudaMemcpyDefault, out),
                 "copy from the device", why))
            return -1;
        if (!c->scratch)
            shim_written_add(pl->written, r0, c0, rows, cols, 1);
    } else {
        transfer x = {host, c->src.ld, b->ptr, b->ld, r0, c0, !c->scratch};
        if (for_each_piece(pl, rows, cols, download_piece, &x, why))
            return -1;
    }
    return fail(pl, cudaEventRecord(s->idle, out), "staging", why);
}

void shim_cache_free(shim_pipeline *pl, shim_block_cache *c)
{
    for (int i = 0; i < c->slots; i++) {
        shim_block_slot *s = &c->slot[i];
        shim_gpu_free(s->dev, s->floats * sizeof(float), pl->t->stream);
        if (s->ready)
            cudaEventDestroy(s->ready);
        if (s->idle)
            cudaEventDestroy(s->idle);
    }
    c->slots = 0;
}

/* The workspace is the thread's: kept from call to call (stream-ordered on its compute stream,
 * so a call's kernels are done with it before the next call's use it). */
void *shim_pipeline_workspace(shim_pipeline *pl, size_t bytes, const char **why)
{
    shim_gpu_thread *t = pl->t;
    if (bytes > KEEP_WORKSPACE_BYTES)
        pl->big_work = 1;
    if (bytes <= t->work_bytes)
        return t->work;
    shim_gpu_free(t->work, t->work_bytes, t->stream);
    t->work = NULL;
    t->work_bytes = 0;
    if (shim_gpu_alloc(&t->work, bytes, t->stream, why))
        return NULL;
    t->work_bytes = bytes;
    return t->work;
}

int shim_pipeline_end(shim_pipeline *pl, int failed, const char **why)
{
    shim_gpu_thread *t = pl->t;
    int rc = pl->failed || failed;
    /* unpack every download still sitting in the ring, oldest first */
    for (int k = 0; k < pl->ring; k++) {
        shim_ring_buffer *b = &t->ring[(t->ring_next + k) % pl->ring];
        if (b->pending && !rc)
            rc = unpack(pl, b, why);
        b->pending = 0;
    }
    /* copies on the copy-in stream are waited for by the kernels, and the copy-out stream waits
     * for the kernels: syncing the last stream used covers the others */
    cudaStream_t last = pl->used_out ? t->out : t->stream;
    cudaError_t err = cudaStreamSynchronize(last);
    if (rc) {
        /* after a failure the chain may be cut: wait for each stream */
        cudaStream_t *streams[SHIM_THREAD_STREAMS];
        shim_thread_streams(t, streams);
        for (int i = 0; i < SHIM_THREAD_STREAMS; i++)
            (void)cudaStreamSynchronize(*streams[i]);
    }
    if (err != cudaSuccess && !rc)
        rc = shim_gpu_fail(err, "GPU work", why);
    if (pl->big_work && t->work_bytes > KEEP_WORKSPACE_BYTES && !shim_gpu_room_to_keep(t->work_bytes)) {
        /* and out of the pool too, which otherwise keeps freed memory for the next call: a
         * program handing us device pointers may need those bytes itself */
        shim_gpu_free(t->work, t->work_bytes, t->stream);
        shim_gpu_release_unused(t->stream);
        t->work = NULL;
        t->work_bytes = 0;
    }
    return rc ? -1 : 0;
}
