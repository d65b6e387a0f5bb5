/* Where one call runs. */
#ifndef SHIM_DISPATCH_H
#define SHIM_DISPATCH_H

#include "execute.h"

/* SHIM_CPU or SHIM_GPU for the call (on_device: some operand is in device memory); fills the
 * record's note and, in auto mode, its predictions */
enum shim_side shim_dispatch(const shim_routine_ops *ops, const void *problem, int on_device,
                             shim_call_record *rec);

#endif
