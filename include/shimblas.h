/* shimblas: a drop-in BLAS shim that runs SGEMV and SGEMM on an NVIDIA GPU with its own
 * kernels and hands every other call to the CPU BLAS the program already had.
 *
 * This header declares what libshimblas.so exports beyond the standard BLAS: the CBLAS
 * prototypes of the routines it implements (the same as netlib's cblas.h; a program that needs
 * both includes cblas.h first), the Fortran entry points, and a small extension API. */
#ifndef SHIMBLAS_H
#define SHIMBLAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMBLAS_VERSION "0.1.0"

/* The CBLAS enums, unless a cblas.h (netlib's, OpenBLAS's) already defined them. */
#if !defined(CBLAS_H) && !defined(SHIMBLAS_CBLAS_ENUMS)
#define SHIMBLAS_CBLAS_ENUMS
enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };
typedef enum CBLAS_ORDER CBLAS_LAYOUT;

void cblas_sgemv(const enum CBLAS_ORDER layout, const enum CBLAS_TRANSPOSE TransA, const int M,
                 const int N, const float alpha, const float *A, const int lda, const float *X,
                 const int incX, const float beta, float *Y, const int incY);
void cblas_sgemm(const enum CBLAS_ORDER layout, const enum CBLAS_TRANSPOSE TransA,
                 const enum CBLAS_TRANSPOSE TransB, const int M, const int N, const int K,
                 const float alpha, const float *A, const int lda, const float *B, const int ldb,
                 const float beta, float *C, const int ldc);
#endif

/* Fortran 77 entry points (gfortran convention: hidden string lengths at the end). */
void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a,
            const int *lda, const float *x, const int *incx, const float *beta, float *y,
            const int *incy, size_t trans_len);
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc, size_t transa_len, size_t transb_len);

/* ---- extension API ---------------------------------------------------------------------- */

/* the library's version string, e.g. "0.1.0" */
const char *shimblas_version(void);

/* Where calls run. The environment variable SHIMBLAS_MODE (auto, gpu, cpu) sets the initial
 * mode; shimblas_set_mode changes it for the whole process. */
typedef enum shimblas_mode {
    SHIMBLAS_MODE_AUTO = 0, /* choose per call */
    SHIMBLAS_MODE_GPU = 1,  /* every call the GPU can take goes there */
    SHIMBLAS_MODE_CPU = 2   /* every call goes to the CPU BLAS */
} shimblas_mode;
shimblas_mode shimblas_get_mode(void);
void shimblas_set_mode(shimblas_mode mode);

/* 1 when a CUDA device is usable by this process (initialises CUDA on first call), else 0 */
int shimblas_gpu_available(void);

/* Call counters, per routine, since load or the last reset. Every call that entered a shimblas
 * entry point is counted once, by where it was served: calls = gpu + cpu + trivial + errors +
 * gpu_failed. */
typedef struct shimblas_counts {
    unsigned long long calls;   /* every call */
    unsigned long long gpu;     /* computed by shimblas's kernels on the GPU */
    unsigned long long cpu;     /* handed to the CPU BLAS */
    unsigned long long trivial; /* quick return, or alpha == 0 scaling done in place */
    unsigned long long errors;  /* rejected by the argument checks (xerbla called) */
    unsigned long long gpu_failed; /* failed on the GPU and recomputed on the CPU BLAS (never counted
                                      as gpu, cpu or trivial) */
} shimblas_counts;
typedef struct shimblas_stats {
    shimblas_counts sgemv;
    shimblas_counts sgemm;
} shimblas_stats;
void shimblas_get_stats(shimblas_stats *out);
void shimblas_reset_stats(void);

/* What the library sees, as text (what shimblas-info prints): the version and the library's path,
 * the mode, the GPU (or why none is usable), where each interface's calls go on the CPU, the cost
 * model and where it came from, and the counters. Writes at most size bytes (NUL included) to buf
 * and returns the length of the whole text, as snprintf does. probe = 1 finds the GPU and the cost
 * model when nothing has asked for them yet (the model may be measured, about a second, and
 * cached); probe = 0 only reports what the process already found. With SHIMBLAS_REPORT=1 the
 * library writes it (probe = 0) to stderr at exit. */
size_t shimblas_report(char *buf, size_t size, int probe);

#ifdef __cplusplus
}
#endif

#endif
