/* Where one call runs. */
#ifndef SHIM_DISPATCH_H
#define SHIM_DISPATCH_H

#include "execute.h"

/* SHIM_CPU or SHIM_GPU for the call (where: where its operands live); fills the record's note
 * and, in auto mode, its predictions and feedback key */
enum shim_side shim_dispatch(const shim_routine_ops *ops, const void *problem, const shim_operands *where,
                             shim_call_record *rec);

#endif
