/* Where a call's time goes between its kernels: for every shape of SHAPES, the selector's plan run
 * REPS times (one call at a time, after warm-up calls), each time with the block timestamps of a
 * build whose transpose_first.cu and streamk.cu were compiled with SHIM_BLOCK_STAMPS
 * (kernels/common/block_stamps.cuh; e.g. touch those two files, then
 * NVCC_APPEND_FLAGS=-DSHIM_BLOCK_STAMPS ninja bench/sgemm_stamps), and the medians of the
 * intervals, in µs from the copy's last block end (or from the first kernel's first block start
 * where no copy runs):
 *   copy        first block start to last block end (negative: before the reference)
 *   zero        zero_counters' first block start, and its last block past its wait
 *   sk_start    the stream-K kernel's first and last block start, sk_wait the same past the wait
 *   sk_end      first and last block end; product: last wait to last end; events: the call between events
 * (zero: absent where transpose_first's copy zeroed the counters, streamk_counters_by_copy)
 * With STAMPS_RECORDS=FILE, each stream-K block of a shape's last three calls is appended to FILE, one
 * line a block: shape, case, call, block, its start past its wait, its loop's end and its end (µs
 * from the same reference), its SM, the tiles it finished from memory after its loop, 1 where it
 * finished a tile from registers, its first unit and the unit past its last (BLOCK_RECORD).
 * Usage: sgemm_stamps SHAPES [REPS]  (a library built without the stamps: a message, exit 2) */
#include "bench_util.h"
#include "sgemm_kernels.h"
#include "sgemm_shapes.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int shim_block_stamps_copy(unsigned long long *out);
int shim_block_stamps_streamk(unsigned long long *out);
int shim_block_records_streamk(unsigned long long *out);

#define NONE 0xffffffffffffffffull
#define COLS 11

static double rel(unsigned long long t, unsigned long long ref)
{
    return t == NONE || t == 0 || ref == NONE ? NAN : ((double)(long long)(t - ref)) / 1000.0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sgemm_stamps SHAPES [REPS]\n");
        return 2;
    }
    const int reps = argc > 2 ? atoi(argv[2]) : 30;
    int count = 0;
    size_t max[3];
    bench_shape *shapes = bench_read_shapes(argv[1], "sgemm_stamps", &count, max);
    if (!shapes)
        return 1;
    bench_sgemm_rig rig = bench_sgemm_rig_start(max, "sgemm_stamps");
    if (shim_block_stamps_copy(NULL) || shim_block_stamps_streamk(NULL)) {
        fprintf(stderr, "sgemm_stamps: this build carries no block timestamps (SHIM_BLOCK_STAMPS)\n");
        return 2;
    }
    cudaEvent_t e0, e1;
    BENCH_CUDA(cudaEventCreate(&e0));
    BENCH_CUDA(cudaEventCreate(&e1));
    static const char *names[COLS] = {"copy_start", "zero_start", "zero_waited", "sk_start0",
                                      "sk_start1",  "sk_wait0",   "sk_wait1",    "sk_end0",
                                      "sk_end1",    "product",    "events"};
    printf("shape case plan");
    for (int c = 0; c < COLS; c++)
        printf(" %s", names[c]);
    printf("\n");
    double *v = malloc(sizeof(double) * (size_t)reps * COLS), col[1024];
    for (int s = 0; s < count; s++) {
        const bench_shape sh = shapes[s];
        shim_sgemm_args p = bench_shape_args(sh, rig.a, rig.b, rig.c, rig.stream);
        const shim_sgemm_variant *sel = shim_sgemm_select(&p);
        p.work_bytes = shim_sgemm_work_bytes(sel, &p);
        p.work = bench_scratch(p.work_bytes);
        char how[256];
        shim_sgemm_describe(sel, &p, how, sizeof how);
        for (int i = 0; i < 5; i++)
            BENCH_CUDA(shim_sgemm_run(sel, &p));
        BENCH_CUDA(cudaStreamSynchronize(rig.stream));
        const char *records = getenv("STAMPS_RECORDS");
        for (int r = 0; r < reps; r++) {
            unsigned long long cp[16], sk[16];
            shim_block_stamps_copy(NULL);
            shim_block_stamps_streamk(NULL);
            if (records && r >= reps - 3)
                shim_block_records_streamk(NULL);
            BENCH_CUDA(cudaEventRecord(e0, rig.stream));
            BENCH_CUDA(shim_sgemm_run(sel, &p));
            BENCH_CUDA(cudaEventRecord(e1, rig.stream));
            BENCH_CUDA(cudaEventSynchronize(e1));
            float ms;
            BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
            shim_block_stamps_copy(cp);
            shim_block_stamps_streamk(sk);
            const unsigned long long ref = cp[3] ? cp[3] : sk[6] != NONE ? sk[6] : sk[0];
            double *row = v + (size_t)r * COLS;
            row[0] = rel(cp[0], ref), row[1] = rel(sk[0], ref), row[2] = rel(sk[3], ref);
            row[3] = rel(sk[6], ref), row[4] = rel(sk[7], ref), row[5] = rel(sk[8], ref),
            row[6] = rel(sk[9], ref);
            row[7] = rel(sk[10], ref), row[8] = rel(sk[11], ref);
            row[9] = sk[11] && sk[9] ? ((double)(sk[11] - sk[9])) / 1000.0 : NAN;
            row[10] = 1000.0 * ms;
            if (records && r >= reps - 3) {
                /* each stream-K block of this call: start (past its wait), loop end, end (µs
                 * from ref), its SM, tiles finished from memory, finished held, its units */
                static unsigned long long rec[4096 * 8];
                FILE *f = fopen(records, "a");
                if (f && shim_block_records_streamk(rec) == 0) {
                    for (int i = 0; i < 4096; i++) {
                        const unsigned long long *x = rec + 8 * i;
                        if (!x[0])
                            continue;
                        fprintf(f, "%dx%dx%d %c%c %d %d %.3f %.3f %.3f %llu %llu %llu %llu %llu\n", sh.m,
                                sh.n, sh.k, sh.ta ? 'T' : 'N', sh.tb ? 'T' : 'N', r, i, rel(x[0], ref),
                                rel(x[1], ref), rel(x[2], ref), x[3], x[4], x[5], x[6], x[7]);
                    }
                }
                if (f)
                    fclose(f);
            }
        }
        printf("%dx%dx%d %c%c \"%s\"", sh.m, sh.n, sh.k, sh.ta ? 'T' : 'N', sh.tb ? 'T' : 'N', how);
        for (int c = 0; c < COLS; c++) {
            int n = 0;
            for (int r = 0; r < reps && n < 1024; r++)
                if (!isnan(v[(size_t)r * COLS + c]))
                    col[n++] = v[(size_t)r * COLS + c];
            printf(" %.2f", n ? bench_median(col, n) : NAN);
        }
        printf("\n");
        fflush(stdout);
    }
    bench_sgemm_rig_stop(&rig);
    free(v);
    free(shapes);
    return 0;
}
