/* One checked cblas_sgemm / cblas_sgemv call with its operands in a chosen kind of memory, random
 * cases of small and medium shapes, and workers that make such calls from many threads at once.
 * Every case is checked against the float64 reference (reference.h), and every element of the
 * output buffers outside the referenced region (padding, gaps between strided elements, guard
 * elements after the end) must come back untouched. Host memory is here; device, managed, pinned
 * and registered host memory are in gpu_memory.h (GPU tests only). */
#ifndef SHIM_TEST_BLAS_CASES_H
#define SHIM_TEST_BLAS_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "shimblas.h"

/* where a case keeps its operands; put/get copy between a host buffer and that memory */
typedef struct tc_memory {
    const char *name;
    float *(*alloc)(size_t floats);
    void (*release)(float *p);
    void (*put)(float *dst, const float *src, size_t floats);
    void (*get)(float *dst, const float *src, size_t floats);
} tc_memory;

extern const tc_memory tc_host_memory; /* malloc */

/* C := alpha op(A) op(B) + beta C as a CBLAS caller writes it: op(A) is m x k, op(B) k x n, in
 * the given layout; each leading dimension is its minimum plus pad */
typedef struct tc_gemm {
    int row_major, transa, transb;
    int m, n, k;
    float alpha, beta;
    int pad;
} tc_gemm;

/* y := alpha op(A) x + beta y as a CBLAS caller writes it: A is m x n in the given layout */
typedef struct tc_gemv {
    int row_major, trans;
    int m, n;
    int incx, incy;
    float alpha, beta;
    int pad;
} tc_gemv;

void tc_gemm_describe(const tc_gemm *g, char *out, size_t len);
void tc_gemv_describe(const tc_gemv *g, char *out, size_t len);

/* Makes the call with every operand in mem. Inputs are random, except A, B (x) when the call must
 * not read them (alpha == 0, or k == 0): those are NaN. Where beta == 0 the referenced output is
 * NaN before the call. Prints what is wrong, prefixed by label; returns the number of wrong
 * elements plus the number of elements written outside the referenced region (0: correct). */
long tc_gemm_case(const tc_memory *mem, const tc_gemm *g, uint64_t *rng, const char *label);
long tc_gemv_case(const tc_memory *mem, const tc_gemv *g, uint64_t *rng, const char *label);

/* Judges what one routine's counters did over one call: NULL when that is right, else a reason
 * written into why. expect is the judge's own code for what the call should have counted. */
typedef const char *(*tc_count_judge)(const shimblas_counts *before, const shimblas_counts *after, int expect,
                                      char *why, size_t len);

/* cases run and failed, with a PASS or FAIL line printed for each */
typedef struct tc_tally {
    int cases, failures;
} tc_tally;
void tc_verdict(tc_tally *t, const char *label, long bad, const char *count_problem);

/* one case (tc_gemm_case / tc_gemv_case) whose counters judge checks */
void tc_gemm_counted(tc_tally *t, const tc_memory *mem, tc_gemm g, uint64_t *rng, tc_count_judge judge, int expect);
void tc_gemv_counted(tc_tally *t, const tc_memory *mem, tc_gemv g, uint64_t *rng, tc_count_judge judge, int expect);

/* a judge for the GPU's tests: expect 'g', the call counted on the GPU; 'r', on the GPU or failed
 * there and recomputed on the CPU (never on the CPU BLAS as a host call, trivial or rejected) */
const char *tc_judge_gpu(const shimblas_counts *before, const shimblas_counts *after, int expect, char *why,
                         size_t len);

/* a random computing case (alpha != 0, k >= 1) of small and medium shapes: either layout, any
 * transposes, padded leading dimensions, unit, strided and negative increments, beta 0, 1 or other */
void tc_random_gemm(uint64_t *rng, tc_gemm *out);
void tc_random_gemv(uint64_t *rng, tc_gemv *out);

/* a thread making `rounds` random calls, sgemm and sgemv alternately, on operands in mem */
typedef struct tc_worker {
    int id;
    const tc_memory *mem;
    uint64_t seed;
    int rounds;
    /* results */
    long gemm_calls, gemv_calls; /* calls made (every one computes) */
    long failed;                 /* calls whose result was wrong */
} tc_worker;

/* starts one thread per worker, lets them all begin at once, and joins them (a thread that cannot
 * be started ends the test with a FAIL line) */
void tc_run_workers(tc_worker *workers, int count);

/* Compares what the counters of one routine did between before and after with what the workers
 * did: `calls` computing calls, at least `min_gpu` of them on the GPU, none failed on the GPU
 * (gpu_failed), none trivial or rejected; expect 'g': every call on the GPU, 'c': every call on
 * the CPU BLAS, 0: either. Prints a PASS or FAIL line; returns the number of failures (0 or 1). */
int tc_check_counts(const char *routine, const shimblas_counts *before, const shimblas_counts *after, long calls,
                    long min_gpu, char expect);

#endif
