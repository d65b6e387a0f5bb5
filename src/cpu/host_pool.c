#include "host_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 15

#define GROUPS 8 /* one per GPU a call is spread over (the caller's share of cores each) */

typedef struct host_group {
    pthread_mutex_t lock;   /* guards the job fields and counters */
    pthread_cond_t wake;    /* a new job is posted */
    pthread_cond_t done;    /* the last task finished */
    pthread_mutex_t serial; /* one job at a time */
    void (*fn)(void *, int);
    void *ctx;
    int tasks, next, finished;
    unsigned long generation; /* (also read without the lock, by a spinning thread) */
    unsigned long unfinished; /* 1 while the job posted has tasks running (likewise) */
    int workers;
    int want;             /* workers started (-1: none wanted; 0: not yet) */
} host_group;

static host_group group_pool[GROUPS];
static pthread_once_t groups_once = PTHREAD_ONCE_INIT;

static void init_groups(void)
{
    for (int g = 0; g < GROUPS; g++) {
        pthread_mutex_init(&group_pool[g].lock, NULL);
        pthread_cond_init(&group_pool[g].wake, NULL);
        pthread_cond_init(&group_pool[g].done, NULL);
        pthread_mutex_init(&group_pool[g].serial, NULL);
    }
}

/* While a call stages, one packing job follows another within a block's copy time (about 0.3 ms
 * for 16 MB): a thread that has run out of work looks for the next job (or the job's end) this long
 * before it sleeps, instead of paying a wake-up on every job */
#define SPIN_NS 200000

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* returns once *word differs from value, or after SPIN_NS; the caller checks again under the lock */
static void spin_while_equal(const unsigned long *word, unsigned long value)
{
    long long end = 0;
    for (unsigned i = 0; __atomic_load_n(word, __ATOMIC_ACQUIRE) == value; i++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (i % 64 == 0) {
            long long t = now_ns();
            if (!end)
                end = t + SPIN_NS;
            else if (t > end)
                return;
        }
    }
}

/* takes tasks until none are left; called with pool->lock held, returns with it held */
static void drain(host_group *pool)
{
    while (pool->next < pool->tasks) {
        int task = pool->next++;
        void (*fn)(void *, int) = pool->fn;
        void *ctx = pool->ctx;
        pthread_mutex_unlock(&pool->lock);
        fn(ctx, task);
        pthread_mutex_lock(&pool->lock);
        if (++pool->finished == pool->tasks) {
            __atomic_store_n(&pool->unfinished, 0, __ATOMIC_RELEASE);
            pthread_cond_broadcast(&pool->done);
        }
    }
}

static void *worker(void *arg)
{
    host_group *pool = arg;
    unsigned long seen = 0;
    for (;;) {
        spin_while_equal(&pool->generation, seen);
        pthread_mutex_lock(&pool->lock);
        while (pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->lock);
        seen = pool->generation;
        drain(pool);
        pthread_mutex_unlock(&pool->lock);
    }
    return NULL;
}

/* group g's workers, started on its first use: each of ngroups groups gets its share of the
 * cores (the calling thread of each included), at most MAX_WORKERS */
static int group_threads(int g, int ngroups)
{
    pthread_once(&groups_once, init_groups);
    host_group *pool = &group_pool[g];
    pthread_mutex_lock(&pool->serial);
    if (!pool->want) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        long share = cores / (ngroups > 0 ? ngroups : 1);
        int want = share > 1 ? (int)(share - 1) : 0;
        pool->want = want > MAX_WORKERS ? MAX_WORKERS : want > 0 ? want : -1;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        for (int i = 0; i < pool->want; i++) {
            pthread_t t;
            if (pthread_create(&t, &attr, worker, pool) == 0)
                pool->workers++;
        }
        pthread_attr_destroy(&attr);
    }
    pthread_mutex_unlock(&pool->serial);
    return pool->workers + 1;
}

int shim_host_threads(void)
{
    return group_threads(0, 1);
}

int shim_host_group_threads(int group, int groups)
{
    return group_threads(group % GROUPS, groups);
}

void shim_host_parallel_in(int group, int groups, int tasks, void (*fn)(void *ctx, int task), void *ctx)
{
    group %= GROUPS;
    if (tasks <= 1 || group_threads(group, groups) == 1) {
        for (int i = 0; i < tasks; i++)
            fn(ctx, i);
        return;
    }
    host_group *pool = &group_pool[group];
    pthread_mutex_lock(&pool->serial);
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->ctx = ctx;
    pool->tasks = tasks;
    pool->next = 0;
    pool->finished = 0;
    __atomic_store_n(&pool->unfinished, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&pool->generation, pool->generation + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool->wake);
    drain(pool);
    if (pool->finished < pool->tasks) {
        pthread_mutex_unlock(&pool->lock);
        spin_while_equal(&pool->unfinished, 1);
        pthread_mutex_lock(&pool->lock);
    }
    while (pool->finished < pool->tasks)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
    pthread_mutex_unlock(&pool->serial);
}

void shim_host_parallel(int tasks, void (*fn)(void *ctx, int task), void *ctx)
{
    shim_host_parallel_in(0, 1, tasks, fn, ctx);
}
