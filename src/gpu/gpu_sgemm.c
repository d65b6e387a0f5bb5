/* The GPU executor for sgemm. Operands in host memory go through the staging pipeline in tiles
 * (src/gpu/tile_plan.c): while one tile of C computes, the blocks of A and B the next ones need are
 * on the bus and finished tiles are on their way back; device-resident operands are used in
 * place. The k chunks of one tile accumulate in a fixed order, so results are reproducible. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "block_exchange.h"
#include "config.h"
#include "gpu.h"
#include "gpu_internal.h"
#include "gpu_kernel_choice.h"
#include "gpu_pipeline.h"
#include "share_timeline.h"
#include "sgemm_kernels.h"
#include "stats.h"
#include "tile_plan.h"

SHIM_DEFINE_RUN_KERNEL(sgemm, sgemm_kernel, "SHIMBLAS_SGEMM_KERNEL")

static __thread char shared_why[300]; /* a failed share's reason, for the caller */

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* where block (row0, col0, rows x cols) of op(X) lies in the stored X */
typedef struct stored_block {
    int64_t r0, c0;
    int rows, cols;
} stored_block;

static stored_block stored(int trans, int64_t row0, int64_t col0, int rows, int cols)
{
    return trans ? (stored_block){col0, row0, cols, rows} : (stored_block){row0, col0, rows, cols};
}

/* what every device's share of one call needs: the problem, its operands and the one tile plan
 * (the same tiles, k chunks and kernels whatever the number of devices: the same bits) */
typedef struct sgemm_job {
    const shim_gemm_problem *p;
    shim_matrix_ref a, b, c;
    int k;
    shim_tile_plan plan;
    atomic_int next_row;      /* the next row band of tiles to take */
    shim_block_exchange *bx;  /* B's blocks staged once for all devices (NULL: each its own) */
    int sharers;              /* shares taking bands (devices) */
    double t0;                /* host ms at the call's start (SHIMBLAS_TIMELINE) */
    cudaEvent_t program_queued; /* the program's work the call waits for, recorded on the calling
                                   device (NULL: none); the other devices' shares wait for it too */
} sgemm_job;

/* With the exchange every share walks the tile columns in the same order. Before a tile it has
 * staged its own part of the tile's B blocks (chunk l of tile column j is share
 * (l + j) mod sharers's) and takes the others' parts from their devices; after the tile it stages
 * its part of the next column. In the first bands, when all of B is still to be staged, each
 * share's host copies are then spread evenly over its tiles instead of crowding its first ones,
 * and the others' parts of a tile were staged a column earlier, so that no share waits on another.
 * This stages share's part of tile column j. */
static int stage_own_part(shim_pipeline *pl, const sgemm_job *job, shim_block_cache *cb, int share, int device,
                          int j, const char **why)
{
    const shim_gemm_problem *p = job->p;
    const shim_tile_plan *plan = &job->plan;
    int j0 = j * plan->tn, tn = min_int(plan->tn, p->n - j0);
    for (int l = (job->sharers + share - j % job->sharers) % job->sharers; l < plan->kt; l += job->sharers) {
        int l0 = l * plan->kc, kc = min_int(plan->kc, job->k - l0);
        stored_block sb = stored(p->transb, l0, j0, kc, tn);
        if (shim_exchange_prefetch(pl, cb, job->bx, device, (long)l * plan->nt + j, sb.r0, sb.c0, sb.rows, sb.cols,
                                   why))
            return -1;
    }
    return 0;
}

/* one share's state while it runs: its pipeline and block caches */
typedef struct share_run {
    sgemm_job *job;
    int share, device;
    shim_pipeline *pl;
    shim_block_cache ca, cb, cc;
    shim_timeline tl;
} share_run;

/* computes tile (i, j) of C: its k chunks in order, then the copy back */
static int run_tile(share_run *r, int i, int j, const char **why)
{
    const sgemm_job *job = r->job;
    const shim_gemm_problem *p = job->p;
    const shim_tile_plan *plan = &job->plan;
    shim_pipeline *pl = r->pl;
    int i0 = i * plan->tm, tm = min_int(plan->tm, p->m - i0);
    int j0 = j * plan->tn, tn = min_int(plan->tn, p->n - j0);
    shim_dev_block cblk;
    int rc = shim_cache_get(pl, &r->cc, (long)i * plan->nt + j, i0, j0, tm, tn,
                            p->beta != 0.0f ? SHIM_GET_UPLOAD : SHIM_GET_RESERVE, &cblk, why);
    for (int l = 0; l < plan->kt && !rc; l++) {
        int l0 = l * plan->kc, kc = min_int(plan->kc, job->k - l0);
        shim_dev_block ablk = {NULL, 1, -1}, bblk = {NULL, 1, -1};
        if (job->k > 0) {
            /* op(A) rows i0.., columns l0..; op(B) rows l0.., columns j0.. */
            stored_block sa = stored(p->transa, i0, l0, tm, kc), sb = stored(p->transb, l0, j0, kc, tn);
            long tag_b = (long)l * plan->nt + j;
            rc = shim_cache_get(pl, &r->ca, (long)i * plan->kt + l, sa.r0, sa.c0, sa.rows, sa.cols, SHIM_GET_UPLOAD,
                                &ablk, why) ||
                 (job->bx ? shim_exchange_get(pl, &r->cb, job->bx, r->device, tag_b, sb.r0, sb.c0, sb.rows, sb.cols,
                                              &bblk, why)
                          : shim_cache_get(pl, &r->cb, tag_b, sb.r0, sb.c0, sb.rows, sb.cols, SHIM_GET_UPLOAD, &bblk,
                                           why));
        }
        shim_sgemm_args args = {p->transa,
                                p->transb,
                                tm,
                                tn,
                                job->k > 0 ? kc : 0,
                                p->alpha,
                                l == 0 ? p->beta : 1.0f,
                                ablk.ptr,
                                ablk.ld,
                                bblk.ptr,
                                bblk.ld,
                                cblk.ptr,
                                cblk.ld,
                                NULL,
                                0,
                                shim_pipeline_compute_stream(pl),
                                shim_config_get()->sgemm_math,
                                0,
                                0};
        rc = rc || run_kernel(pl, &args, why) || shim_cache_release(pl, &r->ca, &ablk, why) ||
             shim_cache_release(pl, &r->cb, &bblk, why);
    }
    shim_timeline_tile(&r->tl, i, j, shim_pipeline_compute_stream(pl));
    return rc || shim_cache_put(pl, &r->cc, &cblk, i0, j0, tm, tn, why);
}

/* Runs row bands of tiles (all tile columns of each) taken from job->next_row until none is left,
 * on the calling thread's current device (`device`, the call's share `share`); what it writes back
 * is listed in *written. With the exchange, a share's first take is two bands, walked a tile
 * column at a time (both tiles of a column, then the next column): while B is still being staged
 * (the first bands), each block of it then serves two tiles, so the host copies a tile waits for
 * are half as many; later takes are one band, so that the shares end close together. */
static int run_bands(sgemm_job *job, int share, int device, shim_written *written, const char **why)
{
    shim_gpu_thread *t = shim_gpu_thread_state(why);
    /* another device's share: its copies of pinned operands wait for what the program queued too */
    if (!t || (share > 0 && job->program_queued && shim_gpu_wait_for(t, job->program_queued, why))) {
        if (job->bx)
            shim_exchange_arrive(job->bx, 0); /* (done with the exchange: never took part) */
        return -1;
    }
    const shim_tile_plan plan = job->plan;
    share_run run, *r = &run; /* (large: only what a failed init leaves behind is cleared) */
    r->job = job;
    r->share = share;
    r->device = device;
    r->pl = shim_pipeline_begin(t, written);
    r->ca.slots = r->cb.slots = r->cc.slots = 0;
    const shim_gemm_problem *p = job->p;
    int ar = p->transa ? plan.kc : plan.tm, ac = p->transa ? plan.tm : plan.kc;
    int br = p->transb ? plan.tn : plan.kc, bc = p->transb ? plan.kc : plan.tn;
    int rc = shim_cache_init(r->pl, &r->ca, job->a, plan.slots_a, ar, ac, why);
    rc = rc || shim_cache_init(r->pl, &r->cb, job->b, plan.slots_b, br, bc, why);
    rc = rc || shim_cache_init(r->pl, &r->cc, job->c, plan.slots_c, plan.tm, plan.tn, why);
    shim_timeline_begin(&r->tl, job->t0, device, share, r->pl);

    const int exchange = job->bx && job->k > 0; /* B's blocks come through the exchange */
    /* two bands at first: with the exchange, enough bands for every share to take two, and both
     * bands' blocks of A kept on the device */
    int take = exchange && plan.mt >= 2 * job->sharers && (job->a.in_place || plan.slots_a >= 2 * plan.kt) ? 2 : 1;
    if (exchange) {
        /* a column step: this share's part of the next column's B blocks, and its tiles of C */
        size_t b_block = sizeof(float) * (size_t)plan.kc * (size_t)plan.tn;
        size_t part = (size_t)((plan.kt + job->sharers - 1) / job->sharers);
        shim_pipeline_ring(r->pl, part * b_block + (size_t)take * sizeof(float) * (size_t)plan.tm * (size_t)plan.tn);
    }
    for (int i = rc ? plan.mt : atomic_fetch_add(&job->next_row, take); i < plan.mt && !rc;
         i = atomic_fetch_add(&job->next_row, take = 1)) {
        int bands = min_int(take, plan.mt - i);
        for (int j = 0; j < plan.nt && !rc; j++) {
            /* this column's part (staged a column earlier but at the first), its tiles, then the next
             * column's part: the tiles are issued before the host copies that may have to wait for
             * the previous tiles to come back (their pinned buffers), so the device never waits
             * for copies that wait for it */
            rc = exchange && stage_own_part(r->pl, job, &r->cb, share, device, j, why);
            for (int b = 0; b < bands && !rc; b++)
                rc = run_tile(r, i + b, j, why);
            rc = rc || (exchange && j + 1 < plan.nt && stage_own_part(r->pl, job, &r->cb, share, device, j + 1, why));
        }
    }
    shim_timeline_mark(&r->tl, &r->tl.issue_end);
    rc = shim_pipeline_end(r->pl, rc, why);
    shim_timeline_mark(&r->tl, &r->tl.end);
    /* other devices may still be copying blocks out of this one's cache */
    if (job->bx)
        shim_exchange_arrive(job->bx, 1);
    shim_timeline_mark(&r->tl, &r->tl.joined);
    shim_timeline_end(&r->tl);
    shim_cache_free(r->pl, &r->ca);
    shim_cache_free(r->pl, &r->cb);
    shim_cache_free(r->pl, &r->cc);
    return rc ? -1 : 0;
}

/* Host-data calls are spread over the devices of SHIMBLAS_DEVICES: one thread per device (the
 * caller's thread drives the first) takes row bands of the one tile plan in turn. Device operands
 * run on the device that holds them; the caller's current device is the same afterwards.
 * A device that fails stops taking bands; the others take the rest, and what is left unwritten of
 * its band is computed on the CPU (src/flow/execute.c). */
typedef struct device_share {
    sgemm_job *job;
    int device;
    int group, groups; /* its host threads: group of groups */
    shim_written written;
    int rc;
    char why[256];
} device_share;

static void *share_thread(void *arg)
{
    device_share *s = arg;
    const char *why = NULL;
    shim_pipeline_host_group(s->group, s->groups);
    s->rc = shim_gpu_fail(cudaSetDevice(s->device), "cudaSetDevice", &why);
    if (s->rc && s->job->bx)
        shim_exchange_arrive(s->job->bx, 0); /* (run_bands arrives itself) */
    s->rc = s->rc || run_bands(s->job, s->group, s->device, &s->written, &why);
    shim_pipeline_host_group(0, 1);
    if (s->rc)
        snprintf(s->why, sizeof s->why, "device %d: %s", s->device, why ? why : "failed");
    return NULL;
}


/* One persistent thread per further device (its streams and pinned buffers live as long as it):
 * given a share, it runs it and hands it back. */
typedef struct device_worker {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    device_share *share; /* the share to run, NULL when idle */
    int started;
} device_worker;

static device_worker workers[SHIM_MAX_DEVICES];
static pthread_once_t workers_once = PTHREAD_ONCE_INIT;

static void init_workers(void)
{
    for (int d = 0; d < SHIM_MAX_DEVICES; d++) {
        pthread_mutex_init(&workers[d].lock, NULL);
        pthread_cond_init(&workers[d].cv, NULL);
    }
}

static void *worker_main(void *arg)
{
    device_worker *w = arg;
    /* the library's own thread: never refused, nor a program's graph capture spoilt, for its CUDA calls */
    (void)shim_gpu_relax_capture();
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->share)
            pthread_cond_wait(&w->cv, &w->lock);
        device_share *s = w->share;
        pthread_mutex_unlock(&w->lock);
        share_thread(s);
        pthread_mutex_lock(&w->lock);
        w->share = NULL;
        pthread_cond_broadcast(&w->cv);
    }
    return NULL;
}

/* hands the share to device d's worker (waiting while another call's share runs there); 0 when
 * the worker could not be started (the other devices then take its bands) */
static int submit(int d, device_share *s)
{
    device_worker *w = &workers[d];
    pthread_once(&workers_once, init_workers);
    pthread_mutex_lock(&w->lock);
    while (w->share)
        pthread_cond_wait(&w->cv, &w->lock);
    if (!w->started) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        w->started = pthread_create(&t, &attr, worker_main, w) == 0;
        pthread_attr_destroy(&attr);
    }
    if (w->started) {
        w->share = s;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->lock);
    return w->started;
}

static void wait_for(int d, device_share *s)
{
    device_worker *w = &workers[d];
    pthread_mutex_lock(&w->lock);
    while (w->share == s)
        pthread_cond_wait(&w->cv, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

static int run_on_devices(const shim_gemm_problem *p, const shim_operands *where, shim_written *written,
                          const char **why, int ndev, const int *devices)
{
    shim_gpu_thread *t = shim_gpu_thread_state(why);
    if (!t)
        return -1;
    int reads_ab = p->alpha != 0.0f && p->k > 0;
    shim_matrix_ref a = shim_matrix(p->a, p->lda, reads_ab ? shim_staging_kind(where->a, p->a) : SHIM_MEM_UNUSED);
    shim_matrix_ref b = shim_matrix(p->b, p->ldb, reads_ab ? shim_staging_kind(where->b, p->b) : SHIM_MEM_UNUSED);
    shim_matrix_ref c = shim_matrix(p->c, p->ldc, shim_staging_kind(where->c, p->c));
    const int ordered = shim_gpu_after_program(t, a.kind, b.kind, c.kind, why);
    if (ordered < 0)
        return -1;
    int k = reads_ab ? p->k : 0;
    int staged = !a.in_place || !b.in_place || !c.in_place;
    /* everything on the device: one launch, no plan to fit, no device memory query */
    size_t budget = staged ? shim_pipeline_budget() : 0;
    shim_tile_plan plan;
    int rc = shim_plan_tiles(p->m, p->n, k, p->transa, p->transb, !a.in_place, !b.in_place, !c.in_place, budget,
                             &plan);
    /* C in device memory that several launches would write in place goes through device buffers
     * instead, so the caller's C only ever receives finished tiles: a failure midway leaves the
     * rest of it as it was, for the CPU to compute */
    if (!rc && c.in_place && (int64_t)plan.mt * plan.nt * plan.kt > 1) {
        c.in_place = 0;
        rc = shim_plan_tiles(p->m, p->n, k, p->transa, p->transb, !a.in_place, !b.in_place, 1, budget, &plan);
    }
    if (rc) {
        *why = "not enough device memory for even the smallest tiles";
        return -1;
    }
    sgemm_job job = {p, a, b, c, k, plan, 0, NULL, 1, shim_config_get()->timeline ? shim_now_ms() : 0,
                     ordered ? t->program_queued : NULL};
    /* one device, or a call too small to share: the caller's thread alone */
    if (ndev > 1 && (!a.in_place || !b.in_place || !c.in_place) && plan.mt >= 2 &&
        (double)p->m * p->n * (double)(k > 0 ? k : 1) >= SHIM_SPREAD_MIN_MACS) {
        int count = ndev < plan.mt ? ndev : plan.mt;
        device_share shares[SHIM_MAX_DEVICES];
        int started[SHIM_MAX_DEVICES] = {0};
        for (int d = 0; d < count; d++) {
            shares[d] = (device_share){&job, devices[d], d, count, {0}, 0, ""};
            shim_written_init(&shares[d].written);
        }
        /* every band needs all of B: staged once, copied between the devices, when every block of
         * it stays on the devices for the whole call and they can read each other's memory */
        if (!b.in_place && k > 0 && plan.slots_b >= plan.kt * plan.nt && plan.kt * plan.nt <= SHIM_PIPE_MAX_SLOTS)
            job.bx = shim_exchange_create((long)plan.kt * plan.nt, count, devices);
        job.sharers = count;
        int running = 1;
        for (int d = 1; d < count; d++)
            running += started[d] = submit(shares[d].device, &shares[d]);
        if (job.bx)
            shim_exchange_expect(job.bx, running);
        share_thread(&shares[0]); /* (the caller's thread: its current device is restored by the caller) */
        int failed = 0;
        for (int d = 0; d < count; d++) {
            if (d > 0 && started[d])
                wait_for(shares[d].device, &shares[d]);
            else if (d > 0)
                shares[d].rc = 0; /* never started: its bands were taken by the others */
            const shim_written *w = &shares[d].written;
            for (int r = 0; r < w->count; r++)
                shim_written_add(written, w->rects[r].r0, w->rects[r].c0, w->rects[r].rows, w->rects[r].cols,
                                 w->direct);
            written->lost |= w->lost;
            if (shares[d].rc && !failed) {
                failed = 1;
                snprintf(shared_why, sizeof shared_why, "%s", shares[d].why);
                *why = shared_why;
            }
            shim_written_free(&shares[d].written);
        }
        shim_exchange_free(job.bx);
        return failed ? -1 : 0;
    }
    int device = 0;
    cudaGetDevice(&device);
    return run_bands(&job, 0, device, written, why) ? -1 : 0;
}

int shim_gpu_sgemm(const shim_gemm_problem *p, const shim_operands *where, shim_written *written,
                   const char **why)
{
    int saved = 0, device = -1;
    if (cudaGetDevice(&saved) != cudaSuccess)
        saved = 0;
    /* device operands: the device holding them (all of them: else the CPU, through host copies) */
    const void *ptrs[3] = {where->a == SHIM_MEM_DEVICE ? p->a : NULL, where->b == SHIM_MEM_DEVICE ? p->b : NULL,
                           where->c == SHIM_MEM_DEVICE ? p->c : NULL};
    if (p->alpha == 0.0f || p->k == 0)
        ptrs[0] = ptrs[1] = NULL;
    for (int o = 0; o < 3; o++) {
        if (!ptrs[o])
            continue;
        int d = shim_gpu_pointer_device(ptrs[o]);
        if (d >= 0 && device >= 0 && d != device) {
            *why = "operands on different GPUs: computed on the CPU through host copies";
            return SHIM_GPU_DECLINED;
        }
        if (d >= 0)
            device = d;
    }
    const int *devices;
    int ndev = shim_gpu_host_devices(&devices);
    if (device < 0 && ndev > 0)
        device = devices[0];
    if (device >= 0 && device != saved && shim_gpu_fail(cudaSetDevice(device), "cudaSetDevice", why))
        return -1;
    int rc = run_on_devices(p, where, written, why, ptrs[0] || ptrs[1] || ptrs[2] ? 1 : ndev, devices);
    if (device >= 0 && device != saved)
        cudaSetDevice(saved);
    return rc;
}
