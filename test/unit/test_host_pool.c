/* The host thread pool runs every task of every job exactly once and returns only when all are
 * done: jobs back to back (workers still spinning) and after pauses (workers asleep), from several
 * calling threads at once on one group and on groups of their own. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "host_pool.h"

#define TASKS_MAX 64
#define CALLERS 4
#define JOBS 3000

typedef struct job {
    int runs[TASKS_MAX];
} job;

static void task(void *ctx, int i)
{
    job *j = ctx;
    __atomic_fetch_add(&j->runs[i], 1, __ATOMIC_RELAXED);
}

typedef struct caller {
    int id, own_group, failures;
} caller;

static void *call(void *arg)
{
    caller *c = arg;
    for (int n = 0; n < JOBS; n++) {
        job j = {{0}};
        int tasks = 1 + (n * 7 + c->id) % TASKS_MAX;
        if (c->own_group)
            shim_host_parallel_in(c->id, CALLERS, tasks, task, &j);
        else
            shim_host_parallel(tasks, task, &j);
        for (int i = 0; i < TASKS_MAX; i++)
            if (j.runs[i] != (i < tasks)) {
                if (c->failures++ < 5)
                    printf("FAIL: caller %d job %d task %d of %d ran %d times\n", c->id, n, i, tasks, j.runs[i]);
            }
        if (n % 500 == 499) /* long enough for the workers to stop spinning and sleep */
            nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    return NULL;
}

int main(void)
{
    int failures = 0;
    for (int own = 0; own < 2; own++) {
        pthread_t t[CALLERS];
        caller c[CALLERS];
        for (int i = 0; i < CALLERS; i++) {
            c[i] = (caller){i, own, 0};
            pthread_create(&t[i], NULL, call, &c[i]);
        }
        for (int i = 0; i < CALLERS; i++) {
            pthread_join(t[i], NULL);
            failures += c[i].failures;
        }
    }
    printf("host_pool: %d jobs on %d threads, %d failures\n", 2 * CALLERS * JOBS, shim_host_threads(), failures);
    return failures != 0;
}
