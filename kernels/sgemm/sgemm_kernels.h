/* SGEMM kernel family: the canonical problem the GPU executor hands over, and the registry of
 * variants. Host code (C) and device code (CUDA) both include this header. */
#ifndef SHIM_SGEMM_KERNELS_H
#define SHIM_SGEMM_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* C := alpha * op(A) * op(B) + beta * C on device memory, everything column-major
 * (row-major calls arrive as the swapped problem). op(A) is m x k, op(B) is k x n, C is m x n,
 * m, n >= 1, k >= 0. transa/transb: 0 = N, 1 = T.
 *   A is stored m x k (lda >= m) when transa == 0, k x m (lda >= k) when transa == 1; B likewise.
 * Pointers need not be 16-byte aligned, leading dimensions need not be multiples of anything.
 * beta == 0: C is written, never read. alpha == 0 or k == 0: A and B are not read. */
/* The arithmetic of a variant (SHIMBLAS_SGEMM_MATH): FP32 on the CUDA cores; 3xTF32 on the tensor
 * cores (each operand split into two TF32 parts, three products: FP32-class accuracy); TF32 (one
 * product of 10-bit mantissas: the reduced precision of cuBLAS's TF32 mode, only when asked for). */
enum shim_sgemm_math { SHIM_SGEMM_FP32 = 0, SHIM_SGEMM_3XTF32 = 1, SHIM_SGEMM_TF32 = 2 };

typedef struct shim_sgemm_args {
    int transa, transb;
    int m, n, k;
    float alpha, beta;
    const float *a;
    int64_t lda;
    const float *b;
    int64_t ldb;
    float *c;
    int64_t ldc;
    void *work; /* device scratch of at least shim_sgemm_work_bytes() bytes */
    size_t work_bytes;
    cudaStream_t stream;
    int math; /* enum shim_sgemm_math: which variants the selector chooses among */
    /* 1: the kernel before this call's first kernel on stream is transpose_first's copy, which
     * allows a programmatic dependent as its blocks end: the pipelined kernels are launched as one */
    int dependent;
    /* 1 (with dependent): that copy also zeroed the arrival counters of this call's stream-K plan,
     * so no zero_counters kernel comes between (transpose_first_launch, streamk_counters_by_copy) */
    int counters_zeroed;
} shim_sgemm_args;

typedef struct shim_sgemm_variant {
    const char *name;    /* what SHIMBLAS_SGEMM_KERNEL names */
    const char *summary; /* one line for listings and benchmark tables */
    int (*accepts)(const shim_sgemm_args *p);
    size_t (*work_bytes)(const shim_sgemm_args *p);
    /* enqueue on p->stream; alpha != 0 and k > 0 are guaranteed; returns the launch's error */
    cudaError_t (*launch)(const shim_sgemm_args *p);
    int math; /* enum shim_sgemm_math: the arithmetic it does */
} shim_sgemm_variant;

const shim_sgemm_variant *shim_sgemm_variants(int *count);
const shim_sgemm_variant *shim_sgemm_find(const char *name);
const shim_sgemm_variant *shim_sgemm_select(const shim_sgemm_args *p);
size_t shim_sgemm_work_bytes(const shim_sgemm_variant *v, const shim_sgemm_args *p);
/* what v runs for p, in one line (tile configuration, K slices, operands copied first), for logs,
 * benchmarks and tests; the length snprintf would write */
int shim_sgemm_describe(const shim_sgemm_variant *v, const shim_sgemm_args *p, char *buf, size_t len);
/* runs v on p, including the alpha == 0 / k == 0 rule (C := beta * C, A and B untouched); where
 * the device has no memory to load a kernel of v's, on the fallback plan instead (kernel_load.h) */
cudaError_t shim_sgemm_run(const shim_sgemm_variant *v, const shim_sgemm_args *p);
/* loads on the current device the kernels of the fallback plan and of C := beta * C (those
 * loaded already pass at one lookup each): called at a thread's first use of a device, while the
 * program may have left memory free, and at its later calls until it succeeds; cudaSuccess once
 * they are loaded */
cudaError_t shim_sgemm_preload(void);

#ifdef __cplusplus
}
#endif

#endif
