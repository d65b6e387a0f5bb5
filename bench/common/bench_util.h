/* Shared by the device-resident benchmarks: CUDA-event timing (median of many after warm-up),
 * the copy-bandwidth ceiling measured in the same run, and CSV/table output. */
#ifndef SHIM_BENCH_UTIL_H
#define SHIM_BENCH_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

#define BENCH_CUDA(call) bench_cuda_check((int)(call), #call, __FILE__, __LINE__)
void bench_cuda_check(int err, const char *what, const char *file, int line);

/* run(i, ctx) enqueues one repetition on stream (i counts up so callers can rotate buffers);
 * returns the median time in milliseconds over reps timed launches after warmup untimed ones */
typedef void (*bench_fn)(int i, void *ctx, cudaStream_t stream);
double bench_median_ms(bench_fn run, void *ctx, cudaStream_t stream, int warmup, int reps);

/* device-to-device copy bandwidth in GB/s (bytes read + written), on bytes-sized buffers */
double bench_copy_gbps(size_t bytes);

/* random floats in [-1, 1) straight into device memory (seeded; never zeros) */
void bench_fill_device(float *d, size_t n, unsigned long long seed);

/* how many buffer sets of set_bytes to rotate through so that the working set is several times
 * the L2 (at least 1, at most max_sets) */
int bench_rotation(size_t set_bytes, int max_sets);

/* a device scratch buffer of at least bytes, kept and grown across calls (one per process) */
void *bench_scratch(size_t bytes);

/* monotonic wall clock in milliseconds */
double bench_wall_ms(void);

/* the median of n values (sorts them in place) */
double bench_median(double *v, int n);

/* largest |got - ref| over largest |ref| between two column-major device matrices (rows x cols,
 * leading dimension ld): every column when cols <= 24, else the first, middle and last 8; NaN or
 * an infinite difference when got holds one where ref does not */
double bench_max_rel_diff(const float *got, const float *ref, int rows, int cols, long long ld);

#endif
