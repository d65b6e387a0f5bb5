/* Which kernel variant runs a call, the same way for every kernel family: the one that
 * SHIMBLAS_<FAMILY>_KERNEL names when it takes the problem, otherwise the family's selector; and
 * when the chosen variant's workspace does not fit (a SHIMBLAS_DEVICE_MEMORY cap), the fastest one
 * that needs none. In the including file,
 *   SHIM_DEFINE_RUN_KERNEL(sgemv, sgemv_kernel, "SHIMBLAS_SGEMV_KERNEL")
 * defines static int run_kernel(shim_pipeline *pl, shim_sgemv_args *args, const char **why) for the
 * family whose registry is shim_sgemv_* and whose forced name is config->sgemv_kernel. */
#ifndef SHIM_GPU_KERNEL_CHOICE_H
#define SHIM_GPU_KERNEL_CHOICE_H

#include <stddef.h>

#include "config.h"
#include "gpu_internal.h"
#include "gpu_pipeline.h"
#include "kernel_load.h"

/* says once on stderr that the forced name is unknown, listing the known ones: variants is a
 * family's registry (count entries of stride bytes, each starting with its const char *name) */
void shim_report_unknown_kernel(const char *variable, const char *name, const void *variants, int count,
                                size_t stride);

#define SHIM_DEFINE_RUN_KERNEL(family, forced_field, variable)                                                         \
    static const shim_##family##_variant *choose(const shim_##family##_args *args)                                     \
    {                                                                                                                  \
        const char *forced = shim_config_get()->forced_field;                                                          \
        if (forced) {                                                                                                  \
            const shim_##family##_variant *v = shim_##family##_find(forced);                                           \
            if (v && v->accepts(args))                                                                                 \
                return v;                                                                                              \
            if (!v) {                                                                                                  \
                int count;                                                                                             \
                const shim_##family##_variant *all = shim_##family##_variants(&count);                                 \
                shim_report_unknown_kernel(variable, forced, all, count, sizeof *all);                                   \
            }                                                                                                          \
        }                                                                                                              \
        return shim_##family##_select(args);                                                                           \
    }                                                                                                                  \
                                                                                                                       \
    /* the fastest variant that needs no workspace (later entries of the ladder are the faster ones) */                \
    static const shim_##family##_variant *without_workspace(const shim_##family##_args *args)                          \
    {                                                                                                                  \
        int count;                                                                                                     \
        const shim_##family##_variant *all = shim_##family##_variants(&count);                                         \
        for (int i = count - 1; i >= 0; i--)                                                                           \
            if (all[i].accepts(args) && shim_##family##_work_bytes(&all[i], args) == 0)                                \
                return &all[i];                                                                                        \
        return NULL;                                                                                                   \
    }                                                                                                                  \
                                                                                                                       \
    static int run_kernel(shim_pipeline *pl, shim_##family##_args *args, const char **why)                             \
    {                                                                                                                  \
        if (shim_pipeline_launch_check(pl, why))                                                                       \
            return -1;                                                                                                 \
        const shim_##family##_variant *v = choose(args);                                                               \
        args->work_bytes = shim_##family##_work_bytes(v, args);                                                        \
        args->work = args->work_bytes ? shim_pipeline_workspace(pl, args->work_bytes, why) : NULL;                     \
        if (args->work_bytes && !args->work) {                                                                         \
            v = without_workspace(args);                                                                               \
            if (!v)                                                                                                    \
                return -1;                                                                                             \
            args->work_bytes = 0;                                                                                      \
        }                                                                                                              \
        const unsigned long long refusals = shim_kernel_refusals();                                                    \
        return shim_gpu_fail_run(shim_##family##_run(v, args), v->name, refusals, why);                                \
    }

#endif
