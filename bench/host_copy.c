/* How fast the host threads move staged blocks between a large matrix and dense buffers (what the
 * staging pipeline's packing does for every block of A, B and C): 2048 x 2048 blocks of an
 * n x n column-major matrix, the columns of each block shared out among T threads, with memcpy and
 * with the library's streaming copy (src/cpu/stream_copy.c), both directions.
 * Usage: host_copy [N] [THREADS...]   (N default 16384; threads default: 1, half and all cores) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stream_copy.h"

#define BLOCK 2048
#define RING 8

typedef struct job {
    float *matrix, **ring;
    int64_t n;
    int threads, id, to_matrix, streaming;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    int64_t blocks = j->n / BLOCK;
    int c0 = BLOCK * j->id / j->threads, c1 = BLOCK * (j->id + 1) / j->threads;
    for (int64_t b = 0; b < blocks * blocks; b++) {
        float *dense = j->ring[b % RING];
        float *m = j->matrix + (b / blocks) * BLOCK * j->n + (b % blocks) * BLOCK;
        for (int c = c0; c < c1; c++) {
            float *h = m + (int64_t)c * j->n, *p = dense + (int64_t)c * BLOCK;
            float *dst = j->to_matrix ? h : p;
            const float *src = j->to_matrix ? p : h;
            if (j->streaming)
                shim_stream_copy(dst, src, BLOCK);
            else
                memcpy(dst, src, BLOCK * sizeof(float));
        }
    }
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 16384;
    n = n / BLOCK * BLOCK;
    if (n < BLOCK) {
        fprintf(stderr, "host_copy: N must be at least %d\n", BLOCK);
        return 2;
    }
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int counts[16], ncounts = 0;
    for (int a = 2; a < argc && ncounts < 16; a++)
        counts[ncounts++] = atoi(argv[a]);
    if (!ncounts) {
        counts[ncounts++] = 1;
        if (cores >= 4)
            counts[ncounts++] = cores / 2;
        counts[ncounts++] = cores;
    }
    float *matrix = aligned_alloc(64, (size_t)(n * n * sizeof(float)));
    float *ring[RING];
    if (!matrix)
        return 2;
    for (int64_t i = 0; i < n * n; i++)
        matrix[i] = (float)(i & 1023);
    for (int r = 0; r < RING; r++) {
        ring[r] = aligned_alloc(64, (size_t)BLOCK * BLOCK * sizeof(float));
        if (!ring[r])
            return 2;
        memset(ring[r], 0, (size_t)BLOCK * BLOCK * sizeof(float));
    }
    double gb = (double)n * n * sizeof(float) / 1e9;
    printf("| threads | direction | memcpy GB/s | streaming GB/s | streaming / memcpy |\n| --- | --- | ---: | ---: | ---: |\n");
    for (int ci = 0; ci < ncounts; ci++) {
        int t = counts[ci] < 1 ? 1 : counts[ci] > 256 ? 256 : counts[ci];
        for (int dir = 0; dir < 2; dir++) {
            double rate[2];
            for (int s = 0; s < 2; s++) {
                double best = 1e30;
                for (int rep = 0; rep < 3; rep++) {
                    pthread_t th[256];
                    job jobs[256];
                    double t0 = now();
                    for (int i = 0; i < t; i++) {
                        jobs[i] = (job){matrix, ring, n, t, i, dir, s};
                        pthread_create(&th[i], NULL, worker, &jobs[i]);
                    }
                    for (int i = 0; i < t; i++)
                        pthread_join(th[i], NULL);
                    double dt = now() - t0;
                    best = dt < best ? dt : best;
                }
                rate[s] = gb / best;
            }
            printf("| %d | %s | %.1f | %.1f | %.2fx |\n", t, dir ? "dense -> matrix (C back)" : "matrix -> dense (A, B in)",
                   rate[0], rate[1], rate[1] / rate[0]);
        }
    }
    return 0;
}
