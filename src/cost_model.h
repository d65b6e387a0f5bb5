/* The measured cost model behind SHIMBLAS_MODE=auto: a few rates of this machine (bus, host
 * copies, our kernels, the CPU BLAS) and predictions of how long a call takes on either side.
 * The prediction and the decision are pure functions of the model, tested on any machine with a
 * synthetic one; src/cost_measure.c fills a real one on the first call that needs it. */
#ifndef SHIM_COST_MODEL_H
#define SHIM_COST_MODEL_H

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

void shim_predict_sgemm(const shim_cost_model *m, const shim_gemm_problem *p, shim_staging s, double *cpu_ms,
                        double *gpu_ms);
void shim_predict_sgemv(const shim_cost_model *m, const shim_gemv_problem *p, shim_staging s, double *cpu_ms,
                        double *gpu_ms);

/* the GPU is chosen only when it is predicted clearly faster: near the crossover the CPU BLAS,
 * which needs no device and no bus, keeps the call */
#define SHIM_GPU_MARGIN 0.85
int shim_prefer_gpu(double cpu_ms, double gpu_ms);

/* calls so small that the GPU cannot win on any machine are decided without measuring anything
 * (and without initialising CUDA) */
int shim_sgemm_worth_modelling(const shim_gemm_problem *p);
int shim_sgemv_worth_modelling(const shim_gemv_problem *p);

/* The process's model: measured once (or read from the cache file), NULL when it cannot be had */
const shim_cost_model *shim_cost_model_get(void);

/* the cache file's text form: parse returns 0 when every field was present */
int shim_cost_model_format(const shim_cost_model *m, char *out, int len);
int shim_cost_model_parse(const char *text, shim_cost_model *m);

#endif
