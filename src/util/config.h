/* Settings read once from the environment (SHIMBLAS_*), and the process-wide mode. */
#ifndef SHIM_CONFIG_H
#define SHIM_CONFIG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "shimblas.h"

typedef struct shim_config {
    int verbose;              /* SHIMBLAS_VERBOSE: one line per call on stderr */
    int stats;                /* SHIMBLAS_STATS: a summary of the counters at exit */
    int timeline;             /* SHIMBLAS_TIMELINE: per device share of a host-data sgemm, when its tiles ran */
    const char *cpu_blas;     /* SHIMBLAS_CPU_BLAS: path of the CPU BLAS, or NULL */
    const char *sgemv_kernel; /* SHIMBLAS_SGEMV_KERNEL: force a variant, or NULL */
    const char *sgemm_kernel; /* SHIMBLAS_SGEMM_KERNEL: force a variant, or NULL */
    size_t device_memory;     /* SHIMBLAS_DEVICE_MEMORY: cap on device bytes the library uses, 0 = none */
    uint64_t devices;         /* SHIMBLAS_DEVICES: bit d = device d takes host-data work; 0 = all */
    int sgemm_math;           /* SHIMBLAS_SGEMM_MATH: fp32 (0), 3xtf32 (1), tf32 (2): enum shim_sgemm_math */
    int test_fail;            /* SHIMBLAS_TEST_FAIL (tests only): enum shim_test_fail */
    int test_fail_launch;     /* ... at this kernel launch of each call (1 = the first) */
    int test_fail_device;     /* ... only on this device (-1: any) */
} shim_config;

/* SHIMBLAS_TEST_FAIL=gpu[:N][@D]: the N-th kernel launch (default the first) of every GPU call
 * (on device D only, with @D) fails with an ordinary (non-sticky) error; =sticky: the first GPU call breaks the CUDA context with a
 * real device fault. For the tests of what happens when the GPU fails. */
enum shim_test_fail { SHIM_TEST_FAIL_NONE = 0, SHIM_TEST_FAIL_GPU, SHIM_TEST_FAIL_STICKY };

const shim_config *shim_config_get(void);
/* whether a flag's value (SHIMBLAS_VERBOSE=..., NULL when unset) turns it on, as the config reads it */
int shim_config_flag_on(const char *value);
shimblas_mode shim_mode(void);

/* What the hot path may skip, kept with the mode (src/flow/execute.h): SHIM_FAST_NONE until the
 * environment was read, and whenever every call must take the full path (gpu mode, a trace). */
enum { SHIM_FAST_NONE = 0, SHIM_FAST_CPU = 1, SHIM_FAST_AUTO = 2 };
extern atomic_int shim_fast_path;

/* parses a byte count with an optional K/M/G suffix (powers of 1024); -1 when malformed or too large */
long long shim_parse_bytes(const char *s);

/* the settings as get(name) gives the variables (getenv for the process; the fuzz test passes its
 * own); a value it cannot use is reported in one line and ignored */
void shim_config_read(shim_config *c, int *initial_mode, const char *(*get)(const char *name));

#endif
