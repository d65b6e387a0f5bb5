/* Where one call runs. */
#ifndef SHIM_DISPATCH_H
#define SHIM_DISPATCH_H

#include "stats.h"

/* SHIM_CPU or SHIM_GPU for a call of routine r; *note may be set to a short reason */
enum shim_side shim_dispatch(enum shim_routine r, const char **note);

#endif
