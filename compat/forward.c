/* The slow path of the forwarders in forward_x86_64.S: the first call of a forwarded routine
 * looks its target up in the CPU BLAS and stores it in the routine's slot; later calls jump
 * straight through the slot. */
#include <stdatomic.h>

#include "cpu_blas.h"

void *shim_forward_resolve(void *_Atomic *slot, const char *name);

void *shim_forward_resolve(void *_Atomic *slot, const char *name)
{
    void *target = shim_cpu_blas_symbol(name);
    atomic_store_explicit(slot, target, memory_order_release);
    return target;
}
