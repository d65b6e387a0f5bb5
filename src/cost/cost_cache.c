#include "cost_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One table for the text form and the checks. The ranges are what a real machine can show, with
 * room on both sides: a bus from a slow PCIe link to far past NVLink, a GPU from a laptop to ten
 * times an H200, a CPU BLAS from one slow core to a large server; fixed costs from a microsecond to
 * a second. A value outside is not a measurement (a corrupt or hand-edited file, a broken timer). */
typedef struct field {
    const char *name;
    size_t offset;
    double low, high;
} field;

#define FIELD(name, low, high) {#name, offsetof(shim_cost_model, name), low, high}
static const field fields[] = {
    FIELD(h2d_gbps, 0.05, 10000.0),        FIELD(d2h_gbps, 0.05, 10000.0),
    FIELD(pack_gbps, 0.05, 10000.0),       FIELD(gpu_sgemm_gflops, 1.0, 1.0e7),
    FIELD(gpu_sgemv_gbps, 1.0, 1.0e5),     FIELD(gpu_call_ms, 1.0e-4, 1000.0),
    FIELD(cpu_sgemm_gflops, 0.01, 1.0e6),  FIELD(cpu_sgemm_call_ms, 1.0e-6, 1000.0),
    FIELD(cpu_sgemv_gbps, 0.01, 1.0e5),    FIELD(cpu_sgemv_call_ms, 1.0e-6, 1000.0),
};
#undef FIELD
enum { FIELD_COUNT = sizeof fields / sizeof fields[0] };

static double *field_of(shim_cost_model *m, int i)
{
    return (double *)((char *)m + fields[i].offset);
}

static double field_value(const shim_cost_model *m, int i)
{
    return *(const double *)((const char *)m + fields[i].offset);
}

int shim_cost_model_format(const shim_cost_model *m, char *out, size_t len)
{
    size_t used = 0;
    for (int i = 0; i < FIELD_COUNT; i++) {
        int n = snprintf(out + used, len - used, "%s %.9g\n", fields[i].name, field_value(m, i));
        if (n < 0 || (size_t)n >= len - used)
            return -1; /* (out holds what fitted, terminated) */
        used += (size_t)n;
    }
    return (int)used;
}

int shim_cost_model_parse(const char *text, shim_cost_model *m)
{
    int seen[FIELD_COUNT] = {0};
    shim_cost_model parsed = {0};
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        char line[128];
        if (n >= sizeof line)
            return -1;
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (eol != NULL);
        if (n == 0)
            continue;
        char *value = strchr(line, ' ');
        if (!value)
            return -1;
        *value++ = '\0';
        int i = 0;
        while (i < FIELD_COUNT && strcmp(fields[i].name, line) != 0)
            i++;
        char *end;
        double v = strtod(value, &end);
        if (i == FIELD_COUNT || seen[i] || end == value || *end != '\0')
            return -1;
        *field_of(&parsed, i) = v;
        seen[i] = 1;
    }
    for (int i = 0; i < FIELD_COUNT; i++)
        if (!seen[i])
            return -1;
    *m = parsed;
    return 0;
}

int shim_cost_model_check(const shim_cost_model *m, const char **bad)
{
    for (int i = 0; i < FIELD_COUNT; i++) {
        double v = field_value(m, i);
        if (!isfinite(v) || v < fields[i].low || v > fields[i].high) {
            *bad = fields[i].name;
            return -1;
        }
    }
    return 0;
}

uint64_t shim_cost_cache_key(const char *const *parts, int count)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < count; i++) {
        for (const char *s = parts[i] ? parts[i] : ""; *s; s++)
            h = (h ^ (unsigned char)*s) * 1099511628211ull;
        h = (h ^ 0x1fu) * 1099511628211ull; /* a separator: "ab","c" is not "a","bc" */
    }
    return h;
}

/* ---- the folder and the file ------------------------------------------------------------------- */

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static char last_dir[PATH_MAX]; /* the folder the last open_dir looked at, for the report */

const char *shim_cost_cache_last_dir(void)
{
    return last_dir;
}

int shim_cost_cache_open_dir(const char **why)
{
    char path[PATH_MAX];
    const char *dir = env("SHIMBLAS_CACHE_DIR"), *xdg = env("XDG_CACHE_HOME"), *home = env("HOME");
    int n;
    if (dir)
        n = snprintf(path, sizeof path, "%s", dir);
    else if (xdg)
        n = snprintf(path, sizeof path, "%s/shimblas", xdg);
    else if (home) {
        /* a missing ~/.cache is made too; nothing further up */
        n = snprintf(path, sizeof path, "%s/.cache", home);
        if (n > 0 && (size_t)n < sizeof path)
            mkdir(path, 0755);
        n = snprintf(path, sizeof path, "%s/.cache/shimblas", home);
    } else {
        *why = "neither SHIMBLAS_CACHE_DIR, XDG_CACHE_HOME nor HOME is set";
        return -1;
    }
    if (n < 0 || (size_t)n >= sizeof path) {
        *why = "the cache folder's path is longer than a path can be";
        return -1;
    }
    snprintf(last_dir, sizeof last_dir, "%s", path);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        *why = "the cache folder cannot be created";
        return -1;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *why = "the cache folder cannot be opened";
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        *why = st.st_uid != geteuid() ? "the cache folder belongs to another user"
                                      : "the cache folder is writable by others";
        close(fd);
        return -1;
    }
    return fd;
}

static void file_name(uint64_t key, char *out, size_t len)
{
    snprintf(out, len, "model-%016llx.txt", (unsigned long long)key);
}

int shim_cost_cache_load(int dir, uint64_t key, shim_cost_model *m, const char **why)
{
    char name[64];
    file_name(key, name, sizeof name);
    /* never through a link, never blocking on a FIFO */
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *why = errno == ENOENT ? "no cached model yet" : errno == ELOOP ? "the cache file is a link" : "the cache file cannot be opened";
        return -1;
    }
    struct stat st;
    char text[4096];
    size_t got = 0;
    int rc = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ? -1 : 0;
    if (rc)
        *why = "the cache file is not a regular file";
    while (!rc && got < sizeof text - 1) {
        ssize_t r = read(fd, text + got, sizeof text - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *why = "the cache file cannot be read";
            rc = -1;
        }
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (rc)
        return -1;
    text[got] = '\0';
    const char *bad;
    if (shim_cost_model_parse(text, m) != 0) {
        *why = "the cache file is not a complete model";
        return -1;
    }
    if (shim_cost_model_check(m, &bad) != 0) {
        static __thread char reason[96];
        snprintf(reason, sizeof reason, "the cached %s is not a plausible value", bad);
        *why = reason;
        return -1;
    }
    return 0;
}

int shim_cost_cache_store(int dir, uint64_t key, const shim_cost_model *m)
{
    char text[1024], name[64], tmp[128];
    if (shim_cost_model_format(m, text, sizeof text) < 0)
        return -1;
    file_name(key, name, sizeof name);
    snprintf(tmp, sizeof tmp, "%s.%ld.%lx", name, (long)getpid(), (unsigned long)pthread_self());
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int rc = close(fd) != 0 || done != len ? -1 : renameat(dir, tmp, dir, name);
    if (rc)
        unlinkat(dir, tmp, 0);
    return rc ? -1 : 0;
}
