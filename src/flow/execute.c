#include "execute.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "config.h"
#include "cost_model.h"
#include "cpu_blas.h"
#include "dispatch.h"
#include "gpu.h"
#include "log.h"

static const char *const routine_names[SHIM_ROUTINES] = {"sgemv", "sgemm"};

/* Stops the program: the output the caller asked for cannot be computed, and returning would let
 * it go on as if it had been. One line, naming the call. */
__attribute__((noreturn)) static void fatal(const shim_routine_ops *ops, const void *problem, const char *what,
                                            const char *why)
{
    char shape[128];
    ops->describe(problem, shape, sizeof shape);
    shim_log("fatal: %s %s: %s (%s); stopping the program rather than return an uncomputed result",
             routine_names[ops->routine], shape, what, why ? why : "unknown error");
    abort();
}

/* The GPU failed the call: compute what it left on the CPU. Host operands are still there; device
 * operands are copied down while the CUDA context works. What the GPU already wrote back is final
 * and is not recomputed (with beta != 0 its old values are gone). */
static void recover(const shim_routine_ops *ops, const void *problem, const shim_operands *where,
                    const shim_written *written, const char *why)
{
    int on_device = where->a == SHIM_MEM_DEVICE || where->b == SHIM_MEM_DEVICE || where->c == SHIM_MEM_DEVICE;
    int broken = shim_gpu_context_broken();
    if (written->lost)
        fatal(ops, problem, "failed on the GPU after writing part of its output, and what was written is lost", why);
    if (on_device) {
        if (broken)
            fatal(ops, problem, "failed on the GPU on device memory and the CUDA context is broken", why);
        const char *copy_why = NULL;
        if (ops->recover_on_host(problem, where, written, &copy_why) != 0)
            fatal(ops, problem, "failed on the GPU on device memory and could not be recomputed on the CPU",
                  copy_why);
    } else {
        if (broken && written->direct)
            fatal(ops, problem,
                  "failed on the GPU with the CUDA context broken while the device was writing its output", why);
        if (ops->recompute(problem, written) != 0)
            fatal(ops, problem, "failed on the GPU and there is no host memory to recompute it", why);
    }
    static atomic_int told;
    shim_log_once(&told, "a GPU call failed (%s); it and any later failures are recomputed on the CPU%s", why,
                  broken ? "; the CUDA context is broken, so the GPU is not used again" : "");
}

/* the GPU side of a call, recovered on the CPU when the GPU fails it */
static enum shim_side run_on_gpu(const shim_routine_ops *ops, const void *problem, const shim_operands *where,
                                 shim_call_record *rec)
{
    shim_written w;
    shim_written_init(&w);
    const char *why = NULL;
    enum shim_side side = SHIM_GPU;
    int rc = ops->run_gpu(problem, where, &w, &why);
    if (rc == SHIM_GPU_DECLINED) { /* operands on different GPUs: the CPU, through host copies */
        rec->note = why;
        rec->via_host = 1;
        side = SHIM_CPU;
    } else if (rc != 0) {
        rec->note = why;
        recover(ops, problem, where, &w, why);
        side = SHIM_GPU_FAILED;
    }
    shim_written_free(&w);
    return side;
}

void shim_execute(const shim_routine_ops *ops, const void *problem, const shim_operands *known)
{
    if (shim_cpu_guard_active()) {
        /* reached from inside the CPU BLAS: go straight back there, uncounted */
        ops->run_cpu(problem);
        return;
    }
    const shim_config *config = shim_config_get();
    shim_call_record rec;
    rec.routine = ops->routine;
    rec.note = NULL;
    rec.feedback_key = 0;
    rec.via_host = 0;
    rec.predicted_cpu_ms = rec.predicted_gpu_ms = -1;
    if (ops->quick_return(problem)) {
        rec.side = SHIM_TRIVIAL;
        rec.ms = 0;
    } else {
        shim_operands where;
        if (known)
            where = *known;
        else
            ops->residency(problem, &where);
        rec.side = shim_dispatch(ops, problem, &where, &rec);
        if (rec.side == SHIM_CPU && !rec.via_host && !config->verbose && !rec.feedback_key) {
            /* the hot path: a call that stays on the CPU BLAS pays for nothing more (not one with
             * device operands: those reach the CPU BLAS only through host copies, below) */
            ops->run_cpu(problem);
            shim_stats_count(ops->routine, ops->scaling_only(problem) ? SHIM_TRIVIAL : SHIM_CPU);
            return;
        }
        double t0 = shim_now_ms();
        /* the GPU's work in the library's own CUDA context, whatever context the program has current */
        shim_gpu_scope scope = {0};
        const int gpu_work = rec.side == SHIM_GPU || rec.via_host;
        if (gpu_work)
            shim_gpu_enter(&scope);
        if (rec.side == SHIM_GPU)
            rec.side = run_on_gpu(ops, problem, &where, &rec);
        if (rec.side == SHIM_CPU && rec.via_host) {
            shim_written nothing;
            shim_written_init(&nothing);
            const char *why = NULL;
            if (ops->recover_on_host(problem, &where, &nothing, &why) != 0)
                fatal(ops, problem, "has device operands too large for the kernels and could not be copied to the host", why);
        } else if (rec.side == SHIM_CPU) {
            if (ops->scaling_only(problem))
                rec.side = SHIM_TRIVIAL;
            ops->run_cpu(problem);
        }
        if (gpu_work)
            shim_gpu_leave(&scope);
        rec.ms = shim_now_ms() - t0;
        if (rec.feedback_key && (rec.side == SHIM_CPU || rec.side == SHIM_GPU))
            shim_feedback_record(rec.feedback_key, rec.side == SHIM_GPU,
                                 rec.raw_predicted_ms[rec.side == SHIM_GPU], rec.ms);
    }
    if (config->verbose)
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
