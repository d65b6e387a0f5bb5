#include "execute.h"

#include <stdatomic.h>

#include "config.h"
#include "cost_model.h"
#include "cpu_blas.h"
#include "dispatch.h"
#include "log.h"

void shim_execute(const shim_routine_ops *ops, const void *problem)
{
    if (shim_cpu_guard_active()) {
        /* reached from inside the CPU BLAS: go straight back there, uncounted */
        ops->run_cpu(problem);
        return;
    }
    shim_call_record rec = {.routine = ops->routine, .predicted_cpu_ms = -1, .predicted_gpu_ms = -1};
    double t0 = shim_now_ms();
    if (ops->quick_return(problem)) {
        rec.side = SHIM_TRIVIAL;
    } else {
        shim_staging resident;
        ops->residency(problem, &resident);
        int on_device = resident.a || resident.b || resident.c;
        rec.side = shim_dispatch(ops, problem, resident, &rec);
        if (rec.side == SHIM_GPU) {
            const char *why = NULL;
            if (ops->run_gpu(problem, &why) != 0) {
                rec.note = why;
                if (on_device) {
                    /* the CPU BLAS cannot read device memory: nothing else can serve this call */
                    shim_log(
                        "error: a call on device-resident operands failed on the GPU (%s); its output is "
                        "not computed",
                        why ? why : "unknown error");
                    rec.side = SHIM_ERROR;
                } else {
                    static atomic_int told;
                    shim_log_once(&told, "a GPU call failed (%s); it and any later failures rerun on the CPU",
                                  why ? why : "unknown error");
                    rec.side = SHIM_CPU;
                }
            }
        }
        if (rec.side == SHIM_CPU) {
            if (ops->scaling_only(problem))
                rec.side = SHIM_TRIVIAL;
            ops->run_cpu(problem);
        }
    }
    rec.ms = shim_now_ms() - t0;
    if (rec.feedback_key && (rec.side == SHIM_CPU || rec.side == SHIM_GPU))
        shim_feedback_record(rec.feedback_key, rec.side == SHIM_GPU,
                             rec.raw_predicted_ms[rec.side == SHIM_GPU], rec.ms);
    if (shim_config_get()->verbose)
        ops->describe(problem, rec.shape, sizeof rec.shape);
    shim_stats_record(&rec);
}

void shim_count_error(enum shim_routine routine)
{
    shim_call_record rec = {.routine = routine,
                            .side = SHIM_ERROR,
                            .predicted_cpu_ms = -1,
                            .predicted_gpu_ms = -1,
                            .shape = "invalid arguments"};
    shim_stats_record(&rec);
}
