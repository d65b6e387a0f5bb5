/* Shared by the FP32 plan benchmarks (bench/sgemm_plans, bench/sgemm_plan_space) and the offline
 * scorer (bench/plan_regret): the shape files of bench/shapes/ (lines "M N K TA TB", column-major,
 * TA and TB N or T), one shape's call on given operands, and cuBLAS pedantic FP32 on the same. */
#ifndef SHIM_BENCH_SGEMM_SHAPES_H
#define SHIM_BENCH_SGEMM_SHAPES_H

#include <cublas_v2.h>
#include <stddef.h>
#include <string.h>

#include "sgemm_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_shape {
    int m, n, k, ta, tb;
    int pad; /* added to every leading dimension (BENCH_LD_PAD, 0 unset): the same shape on rows
                whose starts fall elsewhere in memory's 32- and 128-byte blocks */
    float beta; /* BENCH_BETA (0 unset): C := A B + beta C, C read where it is not 0 */
} bench_shape;

/* the shapes of file path (*count of them, malloc'd, each with the pad of BENCH_LD_PAD and the beta
 * of BENCH_BETA), and the
 * largest A, B and C among them in elements (max[0..2], at least 1); a message on stderr naming `who` and NULL on a bad file or shape */
bench_shape *bench_read_shapes(const char *path, const char *who, int *count, size_t max[3]);

/* C := A B in shape sh's layout on a, b, c (leading dimensions the operands' own rows or columns
 * plus sh.pad),
 * alpha 1, beta sh.beta, FP32 math */
static inline shim_sgemm_args bench_shape_args(bench_shape sh, const float *a, const float *b, float *c,
                                               cudaStream_t stream)
{
    shim_sgemm_args p;
    memset(&p, 0, sizeof p);
    p.transa = sh.ta, p.transb = sh.tb, p.m = sh.m, p.n = sh.n, p.k = sh.k, p.alpha = 1.0f, p.beta = sh.beta;
    p.a = a, p.lda = (sh.ta ? sh.k : sh.m) + sh.pad;
    p.b = b, p.ldb = (sh.tb ? sh.n : sh.k) + sh.pad;
    p.c = c, p.ldc = sh.m + sh.pad;
    p.stream = stream, p.math = SHIM_SGEMM_FP32;
    return p;
}

/* what the FP32 plan benchmarks time on: a stream, a cuBLAS handle on it, and device operands as
 * large as a shape file's largest shapes need (max from bench_read_shapes), A and B filled with
 * random data; started, or the process exits naming `who` */
typedef struct bench_sgemm_rig {
    cudaStream_t stream;
    cublasHandle_t handle;
    float *a, *b, *c;
} bench_sgemm_rig;
bench_sgemm_rig bench_sgemm_rig_start(const size_t max[3], const char *who);
/* frees the operands */
void bench_sgemm_rig_stop(bench_sgemm_rig *rig);

/* p's product by cuBLAS (pedantic FP32) on handle's stream; exits naming `who` if cuBLAS fails */
void bench_cublas_sgemm(cublasHandle_t handle, const shim_sgemm_args *p, const char *who);

#ifdef __cplusplus
}
#endif

#endif
