/* Where one call runs. */
#ifndef SHIM_DISPATCH_H
#define SHIM_DISPATCH_H

#include "execute.h"

/* SHIM_CPU or SHIM_GPU for the call (on_device: which operands are in device memory); fills the
 * record's note and, in auto mode, its predictions */
enum shim_side shim_dispatch(const shim_routine_ops *ops, const void *problem, shim_staging on_device,
                             shim_call_record *rec);

#endif
