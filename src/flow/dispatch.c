#include "dispatch.h"

#include <limits.h>

#include "config.h"
#include "cost_model.h"
#include "gpu.h"
#include "log.h"

static int staged(enum shim_memory_kind kind)
{
    return kind == SHIM_MEM_PAGEABLE || kind == SHIM_MEM_PINNED;
}

enum shim_side shim_dispatch(const shim_routine_ops *ops, const void *problem, const shim_operands *where,
                             shim_call_record *rec)
{
    const char *why;
    int beyond_kernels = !ops->fits_kernels(problem);
    if (where->a == SHIM_MEM_DEVICE || where->b == SHIM_MEM_DEVICE || where->c == SHIM_MEM_DEVICE) {
        /* whatever the mode: a device pointer must never reach the CPU BLAS */
        if (beyond_kernels) {
            rec->note = "a dimension beyond the kernels' range: computed on the CPU through host copies";
            rec->via_host = 1;
            return SHIM_CPU;
        }
        rec->note = "operands in device memory";
        return SHIM_GPU;
    }
    if (beyond_kernels) {
        rec->note = "a dimension beyond the kernels' range";
        return SHIM_CPU;
    }
    switch (shim_mode()) {
    case SHIMBLAS_MODE_CPU: return SHIM_CPU;
    case SHIMBLAS_MODE_GPU: {
        static atomic_int told;
        if (!shim_gpu_usable(&why)) {
            shim_log_once(&told, "SHIMBLAS_MODE=gpu but no usable GPU (%s): running on the CPU", why);
            rec->note = "no usable GPU";
            return SHIM_CPU;
        }
        return SHIM_GPU;
    }
    case SHIMBLAS_MODE_AUTO:
    default: {
        if (!ops->worth_modelling(problem)) {
            rec->note = "too small for the GPU";
            return SHIM_CPU;
        }
        if (!shim_gpu_usable(&why)) {
            rec->note = "no usable GPU";
            return SHIM_CPU;
        }
        const shim_cost_model *m = shim_cost_model_get(ops->origin(problem));
        if (!m) {
            rec->note = "no cost model";
            return SHIM_CPU;
        }
        /* an operand the call does not touch crosses no bus */
        shim_staging crossing = {staged(where->a), staged(where->b), staged(where->c)};
        ops->predict(m, problem, crossing, &rec->raw_predicted_ms[0], &rec->raw_predicted_ms[1]);
        int64_t dims[3];
        ops->shape(problem, dims);
        rec->feedback_key = shim_feedback_key(ops->routine, dims[0], dims[1], dims[2]);
        rec->predicted_cpu_ms = rec->raw_predicted_ms[0];
        rec->predicted_gpu_ms = rec->raw_predicted_ms[1];
        shim_feedback_apply(rec->feedback_key, &rec->predicted_cpu_ms, &rec->predicted_gpu_ms);
        return shim_prefer_gpu(rec->predicted_cpu_ms, rec->predicted_gpu_ms) ? SHIM_GPU : SHIM_CPU;
    }
    }
}

__attribute__((visibility("default"))) int shimblas_gpu_available(void)
{
    const char *why;
    return shim_gpu_usable(&why);
}
