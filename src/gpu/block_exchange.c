#include "block_exchange.h"

#include <sched.h>
#include <stdlib.h>

shim_block_exchange *shim_exchange_create(long count, int sharers, const int *devices)
{
    for (int i = 0; i < sharers; i++)
        for (int j = 0; j < sharers; j++)
            if (i != j && !shim_gpu_peer_readable(devices[i], devices[j]))
                return NULL;
    shim_block_exchange *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->entry = calloc((size_t)count, sizeof *x->entry);
    if (!x->entry) {
        free(x);
        return NULL;
    }
    x->count = count;
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->cv, NULL);
    return x;
}

void shim_exchange_expect(shim_block_exchange *x, int shares)
{
    pthread_mutex_lock(&x->lock);
    x->expected = shares;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->lock);
}

/* this share has claimed entry e (state 1): stages the block into its cache (how: SHIM_GET_*) and
 * publishes it, or gives it up for another share to stage */
static int stage_claimed(shim_pipeline *pl, shim_block_cache *c, shim_exchange_entry *e, int device, long tag,
                         int64_t r0, int64_t c0, int rows, int cols, int how, shim_dev_block *out, const char **why)
{
    int rc = shim_cache_get(pl, c, tag, r0, c0, rows, cols, how, out, why);
    if (!rc && out->slot >= 0) {
        e->device = device;
        e->dev = out->ptr;
        e->ready = c->slot[out->slot].ready;
        atomic_store_explicit(&e->state, 2, memory_order_release);
    } else {
        atomic_store_explicit(&e->state, 3, memory_order_release);
    }
    return rc;
}

static int claim(shim_exchange_entry *e, int from)
{
    return atomic_compare_exchange_strong_explicit(&e->state, &from, 1, memory_order_acq_rel, memory_order_acquire);
}

int shim_exchange_get(shim_pipeline *pl, shim_block_cache *c, shim_block_exchange *x, int device, long tag,
                      int64_t r0, int64_t c0, int rows, int cols, shim_dev_block *out, const char **why)
{
    shim_exchange_entry *e = &x->entry[tag];
    int state = atomic_load_explicit(&e->state, memory_order_acquire);
    /* being staged: it will be published (or given up) within a block's staging time */
    if (state == 1) {
        double from = shim_pipeline_stamp(pl);
        while (state == 1) {
            sched_yield();
            state = atomic_load_explicit(&e->state, memory_order_acquire);
        }
        shim_pipeline_exchange_waited(pl, from);
    }
    if (state == 2 && e->device != device)
        return shim_cache_get_peer(pl, c, tag, e->dev, e->device, e->ready, cols, out, why);
    if (state == 2) /* published by this device, which holds it in its cache */
        return shim_cache_get(pl, c, tag, r0, c0, rows, cols, SHIM_GET_UPLOAD, out, why);
    /* nobody has it (or its stager gave up): this share stages it, unless another claimed it first */
    if (!claim(e, state))
        return shim_exchange_get(pl, c, x, device, tag, r0, c0, rows, cols, out, why); /* lost the race */
    return stage_claimed(pl, c, e, device, tag, r0, c0, rows, cols, SHIM_GET_UPLOAD, out, why);
}

int shim_exchange_prefetch(shim_pipeline *pl, shim_block_cache *c, shim_block_exchange *x, int device, long tag,
                           int64_t r0, int64_t c0, int rows, int cols, const char **why)
{
    shim_exchange_entry *e = &x->entry[tag];
    shim_dev_block out;
    if (!claim(e, 0)) /* being staged or published already: the share takes it when it needs it */
        return 0;
    return stage_claimed(pl, c, e, device, tag, r0, c0, rows, cols, SHIM_GET_AHEAD, &out, why);
}

void shim_exchange_arrive(shim_block_exchange *x, int wait)
{
    pthread_mutex_lock(&x->lock);
    x->arrived++;
    pthread_cond_broadcast(&x->cv);
    while (wait && (x->expected == 0 || x->arrived < x->expected))
        pthread_cond_wait(&x->cv, &x->lock);
    pthread_mutex_unlock(&x->lock);
}

void shim_exchange_free(shim_block_exchange *x)
{
    if (!x)
        return;
    pthread_mutex_destroy(&x->lock);
    pthread_cond_destroy(&x->cv);
    free(x->entry);
    free(x);
}
