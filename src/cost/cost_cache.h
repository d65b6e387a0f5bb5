/* The cost model's cache: a small text file per machine setup, so later processes skip measuring.
 * Everything that comes from outside is untrusted here: the environment (the folder, the key's
 * parts), the file system (the folder may belong to someone else, the file may be a symlink, a
 * directory, a FIFO, truncated, half-written by another process) and the file's text (any field
 * may be missing, repeated, NaN, zero, negative or absurd). No CUDA: the device's identity comes in
 * as strings, so all of this is tested on any machine. */
#ifndef SHIM_COST_CACHE_H
#define SHIM_COST_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "cost_model.h"

/* the text form: one "name value" line per field; format returns -1 when len is too small */
int shim_cost_model_format(const shim_cost_model *m, char *out, size_t len);
/* 0 when every field appears exactly once with a number and nothing else is there */
int shim_cost_model_parse(const char *text, shim_cost_model *m);
/* 0 when every field is finite and within the plausible range for its unit; else -1 with *field
 * naming the first one that is not */
int shim_cost_model_check(const shim_cost_model *m, const char **field);

/* the key of a machine setup: a hash of its parts (device, driver, library, CPU BLAS and its
 * threading variables), taken part by part, so no part's length matters */
uint64_t shim_cost_cache_key(const char *const *parts, int count);

/* The cache folder: SHIMBLAS_CACHE_DIR, else $XDG_CACHE_HOME/shimblas, else $HOME/.cache/shimblas,
 * created (mode 0755, the umask applied) when missing. Returns an open descriptor of it, or -1 with
 * *why when there is none or it is not safe: not a directory, not owned by the user, or writable by
 * others. */
int shim_cost_cache_open_dir(const char **why);
/* the folder the last shim_cost_cache_open_dir looked at ("" before the first) */
const char *shim_cost_cache_last_dir(void);

/* reads the model for key from the folder; 0 with *m valid; -1 with *why otherwise (no file, not a
 * regular file, unreadable, malformed, implausible) */
int shim_cost_cache_load(int dir, uint64_t key, shim_cost_model *m, const char **why);
/* writes it: a private file created next to it (the umask applied to 0644, never following a
 * link), then renamed over it, so a reader sees the old file or the new one, never a part */
int shim_cost_cache_store(int dir, uint64_t key, const shim_cost_model *m);

#endif
