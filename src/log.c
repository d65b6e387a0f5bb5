#include "log.h"

#include <stdarg.h>
#include <stdio.h>

static void vlog(const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    /* one write per line so lines from several threads do not interleave */
    fprintf(stderr, "shimblas: %s\n", line);
}

void shim_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void shim_log_once(atomic_int *once, const char *fmt, ...)
{
    if (atomic_exchange(once, 1))
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}
