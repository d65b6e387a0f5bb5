/* How fast blocks move between pinned host buffers and each GPU, one GPU at a time and all at
 * once (one host thread per GPU): the ceiling under the staging pipeline's copies. Each thread
 * copies COUNT blocks of 16 MB through a ring of 8 pinned buffers, host to device, then device to
 * host, then both directions at once; with "pack", each block is first copied on the host from a
 * large pageable matrix into its pinned buffer by that one thread (memcpy, 8 KB columns), as the
 * pipeline does with its host threads. Usage: link_rate [COUNT]   (default 64) */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK ((size_t)16 << 20)
#define RING 8
#define MAXDEV 8

typedef struct job {
    int device, count, mode; /* mode: 0 in, 1 out, 2 both, 3 pack + in */
    float *matrix;           /* pageable source for pack (2048 x 2048 blocks of a 16384-wide one) */
    double gbs;
    const char *err;
} job;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void *run(void *arg)
{
    job *j = arg;
    float *host[RING], *dev;
    cudaStream_t in, out;
    cudaEvent_t done[RING], done_out[RING];
    j->err = NULL;
    if (cudaSetDevice(j->device) || cudaMalloc((void **)&dev, 2 * BLOCK) || cudaStreamCreate(&in) ||
        cudaStreamCreate(&out)) {
        j->err = "device set-up";
        return NULL;
    }
    for (int r = 0; r < RING; r++) {
        if (cudaHostAlloc((void **)&host[r], BLOCK, cudaHostAllocDefault) || cudaEventCreate(&done[r]) || cudaEventCreate(&done_out[r])) {
            j->err = "pinned buffers";
            return NULL;
        }
        memset(host[r], 0, BLOCK);
    }
    for (int pass = 0; pass < 2; pass++) { /* (the first warms up) */
        cudaDeviceSynchronize();
        double t0 = now();
        for (int b = 0; b < j->count; b++) {
            int r = b % RING;
            cudaEventSynchronize(done[r]);
            cudaEventSynchronize(done_out[r]);
            if (j->mode == 3) {
                const float *src = j->matrix + (size_t)(b % 64 / 8) * 2048 * 16384 + (size_t)(b % 8) * 2048;
                for (int c = 0; c < 2048; c++)
                    memcpy(host[r] + (size_t)c * 2048, src + (size_t)c * 16384, 2048 * sizeof(float));
            }
            if (j->mode != 1)
                cudaMemcpyAsync(dev, host[r], BLOCK, cudaMemcpyHostToDevice, in);
            if (j->mode == 1 || j->mode == 2)
                cudaMemcpyAsync(host[r], dev + BLOCK / sizeof(float), BLOCK, cudaMemcpyDeviceToHost, out);
            cudaEventRecord(done[r], in);
            cudaEventRecord(done_out[r], out);
        }
        cudaDeviceSynchronize();
        double dt = now() - t0;
        j->gbs = (j->mode == 2 ? 2.0 : 1.0) * (double)BLOCK * j->count / dt / 1e9;
    }
    if (cudaGetLastError())
        j->err = "copies";
    for (int r = 0; r < RING; r++)
        cudaFreeHost(host[r]), cudaEventDestroy(done[r]), cudaEventDestroy(done_out[r]);
    cudaFree(dev);
    cudaStreamDestroy(in);
    cudaStreamDestroy(out);
    return NULL;
}

static void measure(const char *label, int first, int ndev, int count, int mode, float *matrix)
{
    pthread_t th[MAXDEV];
    job jobs[MAXDEV];
    for (int d = 0; d < ndev; d++) {
        jobs[d] = (job){first + d, count, mode, matrix, 0, NULL};
        pthread_create(&th[d], NULL, run, &jobs[d]);
    }
    double total = 0;
    printf("| %s | %s |", label, (const char *[]){"in", "out", "in + out", "pack + in"}[mode]);
    for (int d = 0; d < ndev; d++) {
        pthread_join(th[d], NULL);
        total += jobs[d].gbs;
        if (jobs[d].err)
            printf(" device %d: %s failed |", jobs[d].device, jobs[d].err);
        else
            printf(" %.1f", jobs[d].gbs);
    }
    printf(" | %.1f |\n", total);
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 64, ndev = 0;
    if (count < RING || cudaGetDeviceCount(&ndev) || ndev < 1) {
        fprintf(stderr, "link_rate: no GPU (or COUNT below %d)\n", RING);
        return 2;
    }
    ndev = ndev > MAXDEV ? MAXDEV : ndev;
    size_t elems = (size_t)16384 * 16384;
    float *matrix = malloc(elems * sizeof(float));
    if (!matrix)
        return 2;
    for (size_t i = 0; i < elems; i++)
        matrix[i] = (float)(i & 1023);
    printf("| GPUs | direction | GB/s each | GB/s in all |\n| --- | --- | --- | ---: |\n");
    for (int mode = 0; mode < 4; mode++) {
        for (int d = 0; d < ndev; d++) {
            char label[32];
            snprintf(label, sizeof label, "%d", d);
            measure(label, d, 1, count, mode, matrix);
        }
        if (ndev > 1)
            measure("all", 0, ndev, count, mode, matrix);
    }
    free(matrix);
    return 0;
}
