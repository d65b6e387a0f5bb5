/* Which kernel variant runs a call: the one SHIMBLAS_SGEMV_KERNEL / SHIMBLAS_SGEMM_KERNEL names
 * when it takes the problem, otherwise the family's selector. */
#ifndef SHIM_GPU_KERNEL_CHOICE_H
#define SHIM_GPU_KERNEL_CHOICE_H

#include <stddef.h>

/* says once on stderr that the forced name is unknown, listing the known ones: variants is a
 * family's registry (count entries of stride bytes, each starting with its const char *name) */
void shim_report_unknown_kernel(const char *variable, const char *name, const void *variants, int count,
                                size_t stride);

#endif
