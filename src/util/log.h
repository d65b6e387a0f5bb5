/* Messages on stderr, always one line, always prefixed "shimblas: ". */
#ifndef SHIM_LOG_H
#define SHIM_LOG_H

#include <stdatomic.h>

void shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* prints only the first time *once is seen clear, across threads */
void shim_log_once(atomic_int *once, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A value from outside (the environment, a path) as a message may show it: at most 60 bytes, what
 * is not printable ASCII as '?', "..." when cut. Returns out. */
#define SHIM_SHOWN_VALUE 72
const char *shim_show_value(const char *value, char out[SHIM_SHOWN_VALUE]);

#endif
