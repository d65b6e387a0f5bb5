#include "stats.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "log.h"

static atomic_ullong counts[SHIM_ROUTINES][SHIM_SIDES];

static const char *const routine_names[SHIM_ROUTINES] = {"sgemv", "sgemm"};
static const char *const side_names[SHIM_SIDES] = {"trivial", "cpu", "gpu", "error", "gpu failed, recomputed on the CPU"};

double shim_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void shim_stats_count(enum shim_routine routine, enum shim_side side)
{
    atomic_fetch_add_explicit(&counts[routine][side], 1, memory_order_relaxed);
}

void shim_stats_record(const shim_call_record *r)
{
    shim_stats_count(r->routine, r->side);
    if (!shim_config_get()->verbose)
        return;
    char predicted[96] = "";
    if (r->predicted_cpu_ms >= 0 || r->predicted_gpu_ms >= 0)
        snprintf(predicted, sizeof predicted, " predicted cpu %.3f ms gpu %.3f ms;", r->predicted_cpu_ms,
                 r->predicted_gpu_ms);
    shim_log("%s %s -> %s;%s took %.3f ms%s%s", routine_names[r->routine], r->shape, side_names[r->side],
             predicted, r->ms, r->note ? "; " : "", r->note ? r->note : "");
}

static void fill_counts(shimblas_counts *out, int routine)
{
    out->trivial = atomic_load(&counts[routine][SHIM_TRIVIAL]);
    out->cpu = atomic_load(&counts[routine][SHIM_CPU]);
    out->gpu = atomic_load(&counts[routine][SHIM_GPU]);
    out->errors = atomic_load(&counts[routine][SHIM_ERROR]);
    out->gpu_failed = atomic_load(&counts[routine][SHIM_GPU_FAILED]);
    out->calls = out->trivial + out->cpu + out->gpu + out->errors + out->gpu_failed;
}

__attribute__((visibility("default"))) void shimblas_get_stats(shimblas_stats *out)
{
    fill_counts(&out->sgemv, SHIM_SGEMV);
    fill_counts(&out->sgemm, SHIM_SGEMM);
}

__attribute__((visibility("default"))) void shimblas_reset_stats(void)
{
    for (int r = 0; r < SHIM_ROUTINES; r++)
        for (int s = 0; s < SHIM_SIDES; s++)
            atomic_store(&counts[r][s], 0);
}

/* runs at exit (and at dlclose): the summary SHIMBLAS_STATS asks for */
__attribute__((destructor)) static void stats_summary(void)
{
    if (!shim_config_get()->stats)
        return;
    for (int r = 0; r < SHIM_ROUTINES; r++) {
        shimblas_counts c;
        fill_counts(&c, r);
        shim_log("%s calls=%llu gpu=%llu cpu=%llu trivial=%llu errors=%llu gpu_failed=%llu", routine_names[r],
                 c.calls, c.gpu, c.cpu, c.trivial, c.errors, c.gpu_failed);
    }
}
