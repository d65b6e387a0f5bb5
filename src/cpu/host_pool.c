#include "host_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_WORKERS 15

static struct {
    pthread_mutex_t lock;   /* guards the job fields and counters */
    pthread_cond_t wake;    /* a new job is posted */
    pthread_cond_t done;    /* the last task finished */
    pthread_mutex_t serial; /* one job at a time */
    void (*fn)(void *, int);
    void *ctx;
    int tasks, next, finished;
    unsigned long generation;
    int workers;
} pool = {PTHREAD_MUTEX_INITIALIZER,
          PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER,
          PTHREAD_MUTEX_INITIALIZER,
          NULL,
          NULL,
          0,
          0,
          0,
          0,
          0};
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* takes tasks until none are left; called with pool.lock held, returns with it held */
static void drain(void)
{
    while (pool.next < pool.tasks) {
        int task = pool.next++;
        void (*fn)(void *, int) = pool.fn;
        void *ctx = pool.ctx;
        pthread_mutex_unlock(&pool.lock);
        fn(ctx, task);
        pthread_mutex_lock(&pool.lock);
        if (++pool.finished == pool.tasks)
            pthread_cond_broadcast(&pool.done);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.generation == seen)
            pthread_cond_wait(&pool.wake, &pool.lock);
        seen = pool.generation;
        drain();
    }
    return NULL;
}

static void start_workers(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cores > 1 ? (int)(cores - 1) : 0;
    if (want > MAX_WORKERS)
        want = MAX_WORKERS;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < want; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker, NULL) == 0)
            pool.workers++;
    }
    pthread_attr_destroy(&attr);
}

int shim_host_threads(void)
{
    pthread_once(&pool_once, start_workers);
    return pool.workers + 1;
}

void shim_host_parallel(int tasks, void (*fn)(void *ctx, int task), void *ctx)
{
    if (tasks <= 1 || shim_host_threads() == 1) {
        for (int i = 0; i < tasks; i++)
            fn(ctx, i);
        return;
    }
    pthread_mutex_lock(&pool.serial);
    pthread_mutex_lock(&pool.lock);
    pool.fn = fn;
    pool.ctx = ctx;
    pool.tasks = tasks;
    pool.next = 0;
    pool.finished = 0;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    drain();
    while (pool.finished < pool.tasks)
        pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.serial);
}
