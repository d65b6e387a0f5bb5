/* Blocks of an operand that every device of a spread call needs (B, when row bands of C are
 * spread): staged from host memory once, by one device, and copied device to device by the others
 * over their direct link, instead of every device staging all of them through host memory. */
#ifndef SHIM_BLOCK_EXCHANGE_H
#define SHIM_BLOCK_EXCHANGE_H

#include <pthread.h>
#include <stdatomic.h>

#include "gpu_pipeline.h"

typedef struct shim_exchange_entry {
    atomic_int state; /* 0: nobody has it; 1: being staged; 2: published; 3: its stager gave up */
    int device;
    const float *dev;
    cudaEvent_t ready;
} shim_exchange_entry;

typedef struct shim_block_exchange {
    shim_exchange_entry *entry; /* by block tag */
    long count;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int arrived, expected; /* shares done with the exchange; how many will be (0: not known yet) */
} shim_block_exchange;

/* an exchange for count blocks among `sharers` shares whose devices can all read each other's
 * memory; NULL when they cannot (or no memory): then every share stages its own */
shim_block_exchange *shim_exchange_create(long count, int sharers, const int *devices);
/* how many shares will arrive (set once they are started) */
void shim_exchange_expect(shim_block_exchange *x, int shares);
/* block tag of the cache's operand, for the share on device `device`: published by another device,
 * it is copied from there; being staged by another, it waits for that; else this share stages it
 * from host memory and publishes it (each share stages its own part ahead:
 * shim_exchange_prefetch).
 * The cache must hold every block of the call (nothing is evicted while others may read it). */
int shim_exchange_get(shim_pipeline *pl, shim_block_cache *c, shim_block_exchange *x, int device, long tag, int64_t r0, int64_t c0, int rows, int cols, shim_dev_block *out, const char **why);
/* stages block tag ahead of need and publishes it, when nobody has taken it yet (else nothing):
 * each share stages its own part of the blocks a tile needs before it needs the others' part, so
 * the shares' host copies run side by side instead of one waiting for the other */
int shim_exchange_prefetch(shim_pipeline *pl, shim_block_cache *c, shim_block_exchange *x, int device, long tag,
                           int64_t r0, int64_t c0, int rows, int cols, const char **why);
/* a share is done with the exchange (its streams are finished); with wait, returns once every
 * share is, so that no device's blocks are freed while another may still copy them */
void shim_exchange_arrive(shim_block_exchange *x, int wait);
void shim_exchange_free(shim_block_exchange *x);

#endif
