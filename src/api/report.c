/* The report: what the library sees in this process, for people (shimblas-info, SHIMBLAS_REPORT). */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shimblas.h"

#include "config.h"
#include "cost_model.h"
#include "cpu_blas.h"
#include "gpu.h"
#include "log.h"
#include "problem.h"

static const char *const interface_ids[SHIM_INTERFACES] = {
#define SHIM_INTERFACE(id, prefix, integer, cblas_suffix, fortran_suffix, illegal) #id,
#include "interfaces.inc"
#undef SHIM_INTERFACE
};

typedef struct text {
    char *buf;
    size_t size, used; /* used may pass size: the length the whole text needs */
} text;

__attribute__((format(printf, 2, 3))) static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->used < t->size ? t->buf + t->used : NULL, t->used < t->size ? t->size - t->used : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used += (size_t)n;
}

/* one of the describe functions' lines, appended */
static void put_line(text *t, const char *label, int (*describe)(char *, size_t, int), int arg)
{
    char line[4096];
    describe(line, sizeof line, arg);
    put(t, "%s%s\n", label, line);
}


__attribute__((visibility("default"))) size_t shimblas_report(char *buf, size_t size, int probe)
{
    text t = {buf, size, 0};
    if (buf && size)
        buf[0] = '\0';
    Dl_info info;
    put(&t, "shimblas %s (%s)\n", SHIMBLAS_VERSION,
        dladdr((void *)shimblas_report, &info) && info.dli_fname ? info.dli_fname : "?");
    static const char *const modes[] = {"auto", "gpu", "cpu"}; /* shimblas_mode's order */
    shimblas_mode mode = shim_mode();
    put(&t, "mode: %s\n", (unsigned)mode < 3 ? modes[mode] : "?");
    put_line(&t, "GPU: ", shim_gpu_describe, probe);
    put(&t, "CPU side of each interface (where calls that stay on the CPU go):\n");
    for (int i = 0; i < SHIM_INTERFACES; i++) {
        char line[4096];
        shim_cpu_describe(i, line, sizeof line, probe);
        put(&t, "  %s: %s\n", interface_ids[i], line);
    }
    put_line(&t, "cost model: ", shim_cost_model_describe, probe);
    shimblas_stats st;
    shimblas_get_stats(&st);
    const shimblas_counts *c[2] = {&st.sgemv, &st.sgemm};
    for (int r = 0; r < 2; r++)
        put(&t, "%s: calls %llu, gpu %llu, cpu %llu, trivial %llu, errors %llu, gpu_failed %llu\n",
            r ? "sgemm" : "sgemv", c[r]->calls, c[r]->gpu, c[r]->cpu, c[r]->trivial, c[r]->errors, c[r]->gpu_failed);
    return t.used;
}

/* SHIMBLAS_REPORT=1: the report at exit, of what the program found (nothing probed now). An
 * exit handler, not a destructor: handlers run before any library's destructors, so the objects
 * the report looks at (which it may open by reference) are all still initialised; an object whose
 * destructors ran would be initialised again by that. */
static void report_at_exit(void)
{
    char text[16384];
    shimblas_report(text, sizeof text, 0);
    fflush(stdout);
    /* as the library's other messages: each line "shimblas: " first and under 300 bytes */
    shim_log("report at exit of process %ld", (long)getpid());
    for (char *line = text, *end; *line; line = end + (*end != '\0')) {
        end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        int len = (int)(end - line);
        shim_log("%.*s%s", len > 280 ? 277 : len, line, len > 280 ? "..." : "");
    }
}

/* (only this variable is read at load: the configuration proper is read at the first call, so a
 * program may still set SHIMBLAS_* variables before it) */
__attribute__((constructor)) static void report_setup(void)
{
    if (shim_config_flag_on(getenv("SHIMBLAS_REPORT")))
        atexit(report_at_exit);
}
