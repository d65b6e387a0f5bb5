/* Per-call accounting: counters behind shimblas_get_stats, the SHIMBLAS_VERBOSE line for each
 * call, and the SHIMBLAS_STATS summary at exit. */
#ifndef SHIM_STATS_H
#define SHIM_STATS_H

enum shim_routine { SHIM_SGEMV = 0, SHIM_SGEMM = 1, SHIM_ROUTINES };
/* where a call was served; SHIM_GPU_FAILED: the GPU failed it and the CPU BLAS recomputed it */
enum shim_side { SHIM_TRIVIAL = 0, SHIM_CPU, SHIM_GPU, SHIM_ERROR, SHIM_GPU_FAILED, SHIM_SIDES };

typedef struct shim_call_record {
    enum shim_routine routine;
    enum shim_side side;
    char shape[128];         /* e.g. "T m=100 n=30 lda=100 incx=1 incy=-2" */
    double predicted_cpu_ms; /* the cost model's predictions, < 0 when not made */
    double predicted_gpu_ms;
    double ms;        /* measured wall time of the call */
    unsigned feedback_key;      /* auto mode: the shape class the prediction was made for, 0 if none */
    double raw_predicted_ms[2]; /* the unscaled predictions (cpu, gpu) */
    const char *note; /* why, when the side was not the obvious one; may be NULL */
    int via_host;     /* device operands the kernels cannot take: copied to the host for the CPU */
} shim_call_record;

/* counts the call and, under SHIMBLAS_VERBOSE, prints its line */
void shim_stats_record(const shim_call_record *r);
/* only counts it (the hot path: nothing to print) */
void shim_stats_count(enum shim_routine routine, enum shim_side side);
/* monotonic wall clock in milliseconds */
double shim_now_ms(void);

#endif
