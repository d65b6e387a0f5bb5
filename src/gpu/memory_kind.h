/* Where an operand lives: pageable host memory, pinned (page-locked, registered) host memory, or
 * device / managed memory. Asked for every operand of every call that is not a quick return, so
 * the common answer ("host, and no CUDA here") costs a few loads: no system call, no lock, no
 * dlopen/dlsym after the first call. src/gpu/memory_kind.c explains how. */
#ifndef SHIM_MEMORY_KIND_H
#define SHIM_MEMORY_KIND_H

#include <link.h>
#include <stdatomic.h>

enum shim_memory_kind {
    SHIM_MEM_PAGEABLE = 0, /* ordinary host memory (or unknown to CUDA) */
    SHIM_MEM_PINNED = 1,   /* host memory CUDA has page-locked: copies go straight from it */
    SHIM_MEM_DEVICE = 2,   /* device or managed memory: only the GPU path may touch it */
    SHIM_MEM_UNUSED = 3    /* an operand the call does not read or write (alpha == 0, k == 0) */
};

/* where each operand of a call lives (sgemv: a = A, b = x, c = y); SHIM_MEM_UNUSED for an
 * operand the call does not touch */
typedef struct shim_operands {
    enum shim_memory_kind a, b, c;
} shim_operands;

/* the kind of the memory p points at; host memory recognised without the driver may be answered
 * SHIM_MEM_PAGEABLE although CUDA has pinned it (the CPU BLAS does not care) */
enum shim_memory_kind shim_memory_kind(const void *p);
/* the same, asking the driver for every pointer, so pinned memory is told apart (for staging) */
enum shim_memory_kind shim_memory_kind_exact(const void *p);

/* 1 when a CUDA driver is loaded in this process (cheap, see shim_memory_kind) */
int shim_cuda_driver_loaded(void);

/* The hot path's part of it, inline: the object at the tail of the dynamic linker's list when
 * shimblas last looked. While it has no successor, nothing was loaded since and no CUDA driver is
 * in the process, so no operand can be device memory. NULL when that does not hold or is not
 * known (nobody looked yet, or the driver is loaded): ask shim_memory_kind. */
extern struct link_map *_Atomic shim_watched_object;
static inline int shim_no_cuda_driver(void)
{
    struct link_map *w = atomic_load_explicit(&shim_watched_object, memory_order_acquire);
    return w && !__atomic_load_n(&w->l_next, __ATOMIC_ACQUIRE);
}

#endif
