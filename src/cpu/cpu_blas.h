/* The CPU BLAS: found once, lazily, and called for every call the GPU does not take.
 * The LP64 names (sgemm_, cblas_sgemm): SHIMBLAS_CPU_BLAS (a path); else the library holding the
 * next sgemm_ in the process (the LD_PRELOAD case); else the CPU BLAS the library was built for
 * (meson option cpu_blas). Every other interface's names (src/util/interfaces.inc): the next
 * definition of that very name in the process. Never this library itself. */
#ifndef SHIM_CPU_BLAS_H
#define SHIM_CPU_BLAS_H

#include <stddef.h>

#include "problem.h"

/* the CPU BLAS's definition of symbol name (falling back to the next definition in the process);
 * prints one line naming what was tried and aborts when there is none */
void *shim_cpu_blas_symbol(const char *name);

/* where the CPU BLAS came from, for the trace and the cost model's cache key */
const char *shim_cpu_blas_origin(void);

/* the next definition of the name a call came in through (origin) for routine (enum shim_routine):
 * what an interface that hands illegal calls on calls with the caller's own arguments */
void *shim_cpu_next_definition(shim_origin origin, int routine);

/* run the problem on the CPU BLAS, with the beta == 0 and alpha == 0 rules applied here so they
 * hold whatever the CPU BLAS does */
void shim_cpu_sgemv(const shim_gemv_problem *p);
void shim_cpu_sgemm(const shim_gemm_problem *p);

/* nonzero while this thread is inside a CPU BLAS call made by shimblas: an entry point reached
 * from there must go straight back to the CPU BLAS, never to the GPU path. (Read on every call:
 * the library is built with TLS descriptors, -mtls-dialect=gnu2, so this costs a few instructions
 * and no call into the dynamic linker, also when the library was dlopen()ed; the initial-exec
 * model would be cheaper still but makes dlopen() fail in processes whose static TLS is full.) */
/* one line on where the CPU calls of interface iface (enum shim_interface) go, for the report:
 * the LP64 CPU BLAS found as a call finds it, or the library holding the next definitions of the
 * interface's names, or that none is loaded; probe = 0 loads nothing; snprintf's return value */
int shim_cpu_describe(int iface, char *out, size_t len, int probe);

extern __thread int shim_cpu_guard_depth;
static inline int shim_cpu_guard_active(void)
{
    return shim_cpu_guard_depth > 0;
}

#endif
