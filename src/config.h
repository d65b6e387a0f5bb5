/* Settings read once from the environment (SHIMBLAS_*), and the process-wide mode. */
#ifndef SHIM_CONFIG_H
#define SHIM_CONFIG_H

#include <stddef.h>

#include "shimblas.h"

typedef struct shim_config {
    int verbose;              /* SHIMBLAS_VERBOSE: one line per call on stderr */
    int stats;                /* SHIMBLAS_STATS: a summary of the counters at exit */
    const char *cpu_blas;     /* SHIMBLAS_CPU_BLAS: path of the CPU BLAS, or NULL */
    const char *sgemv_kernel; /* SHIMBLAS_SGEMV_KERNEL: force a variant, or NULL */
    const char *sgemm_kernel; /* SHIMBLAS_SGEMM_KERNEL: force a variant, or NULL */
    size_t device_memory;     /* SHIMBLAS_DEVICE_MEMORY: cap on device bytes the library uses, 0 = none */
} shim_config;

const shim_config *shim_config_get(void);
shimblas_mode shim_mode(void);

/* parses a byte count with an optional K/M/G suffix (powers of 1024); -1 when malformed */
long long shim_parse_bytes(const char *s);

#endif
