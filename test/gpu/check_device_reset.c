/* A CUDA program that resets its device (cudaDeviceReset) between BLAS calls: every stream, event,
 * pool, pinned buffer and loaded module of the context is gone, and the next runtime call makes a
 * new context. Before the reset: device-operand sgemm and sgemv, and host-operand ones in gpu mode
 * (the staging ring of pinned buffers), from the main thread and from two others. Then the reset,
 * while one of those threads waits to call again and the other has finished (its state is freed at
 * its exit, after the reset). After it: the same calls from the main thread, twice, and from the
 * waiting thread, each checked against float64 and by the counters: on the GPU, never lost, never a
 * crash (one thread's calls at a time, as the counters judging them are the process's). Exit 77 without a usable GPU. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>

#include "blas_cases.h"
#include "gpu_calls.h"
#include "gpu_guard.h"
#include "gpu_memory.h"
#include "reference.h"
#include "shimblas.h"

/* one thread's calls at a time: the counters that judge them are the process's */
static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;

static void calls(tc_tally *t, uint64_t *rng, int expect)
{
    pthread_mutex_lock(&one_at_a_time);
    tc_gpu_calls(t, rng, expect);
    pthread_mutex_unlock(&one_at_a_time);
}

/* a thread that calls before the reset and, where it waits, after it too */
typedef struct worker {
    int waits;
    uint64_t rng;
    tc_tally tally;
} worker;

static pthread_barrier_t before, after;

static void *work(void *arg)
{
    worker *w = arg;
    calls(&w->tally, &w->rng, 'g');
    pthread_barrier_wait(&before); /* the reset */
    pthread_barrier_wait(&after);
    if (w->waits)
        calls(&w->tally, &w->rng, 'g');
    return NULL; /* (its state on the device is released at its exit: after the reset for both) */
}

int main(void)
{
    test_require_gpu();
    uint64_t rng = test_seed();
    tc_tally t = {0, 0};
    shimblas_set_mode(SHIMBLAS_MODE_GPU);
    calls(&t, &rng, 'g');
    worker w[2] = {{1, rng ^ 0x9e3779b97f4a7c15ull, {0, 0}}, {0, rng ^ 0x5851f42d4c957f2dull, {0, 0}}};
    pthread_t threads[2];
    pthread_barrier_init(&before, NULL, 3);
    pthread_barrier_init(&after, NULL, 3);
    for (int i = 0; i < 2; i++)
        pthread_create(&threads[i], NULL, work, &w[i]);
    pthread_barrier_wait(&before);
    printf("cudaDeviceReset: %s\n", cudaGetErrorString(cudaDeviceReset()));
    pthread_barrier_wait(&after);
    pthread_join(threads[1], NULL); /* exited without another call */
    for (int round = 1; round <= 2; round++) {
        printf("after the reset, round %d\n", round);
        calls(&t, &rng, 'g');
    }
    pthread_join(threads[0], NULL);
    for (int i = 0; i < 2; i++)
        t.cases += w[i].tally.cases, t.failures += w[i].tally.failures;
    printf("check_device_reset: %d cases, %d failures\n", t.cases, t.failures);
    return t.failures != 0;
}
