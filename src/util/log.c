#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void vlog(const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    /* one line, whatever a value shown in it held */
    for (char *c = line; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
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

const char *shim_show_value(const char *value, char out[SHIM_SHOWN_VALUE])
{
    size_t n = 0;
    if (!value)
        value = "";
    for (; value[n] && n < 60; n++)
        out[n] = value[n] >= 0x20 && value[n] < 0x7f ? value[n] : '?';
    strcpy(out + n, value[n] ? "..." : "");
    return out;
}
