/* The measured cost model behind SHIMBLAS_MODE=auto: a few rates of this machine (bus, host
 * copies, our kernels, the CPU BLAS) and predictions of how long a call takes on either side.
 * The prediction and the decision are pure functions of the model, tested on any machine with a
 * synthetic one; src/cost/cost_measure.c fills a real one on the first call that needs it. */
#ifndef SHIM_COST_MODEL_H
#define SHIM_COST_MODEL_H

#include <stdint.h>

#include <stddef.h>

#include "problem.h"

typedef struct shim_cost_model {
    double h2d_gbps, d2h_gbps; /* pinned host <-> device */
    double pack_gbps;          /* pageable <-> pinned copies by the host thread pool */
    double gpu_sgemm_gflops;   /* shimblas's sgemm on device data, large square */
    double gpu_sgemv_gbps;     /* shimblas's sgemv on device data, bytes of A per second */
    double gpu_call_ms;        /* fixed cost of one GPU call: queries, launches, synchronisation */
    double cpu_sgemm_gflops, cpu_sgemm_call_ms; /* the CPU BLAS: t = call + flops / rate */
    double cpu_sgemv_gbps, cpu_sgemv_call_ms;
} shim_cost_model;

/* which operands a GPU call would have to move over the bus */
typedef struct shim_staging {
    int a, b, c; /* for sgemv: a = A, b = x, c = y */
} shim_staging;

/* gpus: the devices host data is spread over (SHIMBLAS_DEVICES); a call the executor would spread
 * (host data, SHIM_SPREAD_MIN_MACS, two row bands or more) is predicted on min(gpus, bands) of them:
 * the compute shared out, each device's link carrying its part of A and C and all of B, and the host
 * copies of all of that on one host */
void shim_predict_sgemm(const shim_cost_model *m, const shim_gemm_problem *p, shim_staging s, int gpus,
                        double *cpu_ms, double *gpu_ms);
void shim_predict_sgemv(const shim_cost_model *m, const shim_gemv_problem *p, shim_staging s, double *cpu_ms,
                        double *gpu_ms);

/* the GPU is chosen only when it is predicted clearly faster: near the crossover the CPU BLAS,
 * which needs no device and no bus, keeps the call */
#define SHIM_GPU_MARGIN 0.85
int shim_prefer_gpu(double cpu_ms, double gpu_ms);

/* calls so small that the GPU cannot win on any machine are decided without measuring anything
 * (and without initialising CUDA); inline, as every call asks */
static inline int shim_sgemm_worth_modelling(const shim_gemm_problem *p)
{
    /* below about 2 * 128^3 flops a CPU core finishes before a GPU round trip */
    return 2.0 * p->m * (double)p->n * p->k >= 4.0e6;
}

static inline int shim_sgemv_worth_modelling(const shim_gemv_problem *p)
{
    /* A of at least 4 MB: smaller ones sit in the CPU's caches */
    return 4.0 * p->m * (double)p->n >= 4.0 * (1 << 20);
}

/* Corrections learned from the calls themselves. The model's rates are measured on squares; a CPU
 * BLAS or a kernel can be several times off that on other shapes (long k, one tiny dimension).
 * Each measured call updates, for its routine and shape class (half-octaves of m, n, k) and the
 * side it ran on, the ratio of measured to predicted time; later predictions for that class are
 * scaled by it. The first call of a class and side is not learned from: it carries one-time
 * costs (CUDA context, pinned buffers, the CPU BLAS's thread start). */
unsigned shim_feedback_key(int routine, int64_t m, int64_t n, int64_t k);
/* scales the two predictions by what was learned for the key */
void shim_feedback_apply(unsigned key, double *cpu_ms, double *gpu_ms);
/* side: 0 for the CPU, 1 for the GPU; predicted is the unscaled prediction for that side */
void shim_feedback_record(unsigned key, int side, double predicted_ms, double measured_ms);
void shim_feedback_reset(void);

/* The process's model: measured once (or read from the cache file), NULL when it cannot be had */
/* The model, loaded or measured at the first call that asks. Its CPU side is measured on the CPU
 * side of that first call's interface (o): a process calling through a NumPy wheel's names is
 * measured on the wheel's OpenBLAS, and the LP64 CPU BLAS (a second OpenBLAS with its own threads)
 * is then never loaded. One model per process: calls of other interfaces share it. */
const shim_cost_model *shim_cost_model_get(shim_origin o);
/* one line on where the model came from (the cache file, a measurement, or why there is none);
 * probe = 0 does not load or measure it; snprintf's return value */
int shim_cost_model_describe(char *out, size_t len, int probe);


#endif
