#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"

static shim_config config;
static atomic_int mode = -1;
atomic_int shim_fast_path;

static void set_mode(int m)
{
    atomic_store(&mode, m);
    int fast = config.verbose ? SHIM_FAST_NONE
               : m == SHIMBLAS_MODE_CPU  ? SHIM_FAST_CPU
               : m == SHIMBLAS_MODE_AUTO ? SHIM_FAST_AUTO
                                         : SHIM_FAST_NONE;
    atomic_store(&shim_fast_path, fast);
}
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

typedef const char *(*getter)(const char *name);

static const char *value(getter get, const char *name)
{
    const char *v = get(name);
    return v && *v ? v : NULL;
}

int shim_config_flag_on(const char *v)
{
    return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "no") != 0 && strcasecmp(v, "off") != 0;
}

static int flag(getter get, const char *name)
{
    return shim_config_flag_on(value(get, name));
}

long long shim_parse_bytes(const char *s)
{
    if (!isdigit((unsigned char)*s))
        return -1; /* (strtoll would take spaces, a sign, "0x") */
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE)
        return -1;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'G': shift = 30; break;
    case 'M': shift = 20; break;
    case 'K': shift = 10; break;
    case '\0':
    case 'B': break;
    default: return -1;
    }
    if (shift) {
        if (v > (LLONG_MAX >> shift))
            return -1;
        v <<= shift;
        end++;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    return *end ? -1 : v;
}

void shim_config_read(shim_config *c, int *initial_mode, getter get)
{
    char shown[SHIM_SHOWN_VALUE];
    *c = (shim_config){0};
    c->verbose = flag(get, "SHIMBLAS_VERBOSE");
    c->stats = flag(get, "SHIMBLAS_STATS");
    c->timeline = flag(get, "SHIMBLAS_TIMELINE");
    c->cpu_blas = value(get, "SHIMBLAS_CPU_BLAS");
    c->sgemv_kernel = value(get, "SHIMBLAS_SGEMV_KERNEL");
    c->sgemm_kernel = value(get, "SHIMBLAS_SGEMM_KERNEL");
    const char *devices = value(get, "SHIMBLAS_DEVICES");
    if (devices && strcmp(devices, "all") != 0) {
        /* a list of device numbers, "0,2" */
        uint64_t mask = 0;
        const char *s = devices;
        int ok = 1;
        while (ok && *s) {
            char *end = NULL;
            long d = (*s >= '0' && *s <= '9') ? strtol(s, &end, 10) : -1;
            ok = d >= 0 && d < 64 && end && (*end == ',' || *end == '\0');
            if (ok) {
                mask |= (uint64_t)1 << d;
                s = *end ? end + 1 : end;
            }
        }
        if (!ok || !mask)
            shim_log("SHIMBLAS_DEVICES=%s is not \"all\" or a list of device numbers like 0,2; all are used",
                     shim_show_value(devices, shown));
        else
            c->devices = mask;
    }
    const char *math = value(get, "SHIMBLAS_SGEMM_MATH");
    if (math) {
        static const char *const names[] = {"fp32", "3xtf32", "tf32"}; /* enum shim_sgemm_math's order */
        int found = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(math, names[i]) == 0)
                found = i;
        if (found < 0)
            shim_log("SHIMBLAS_SGEMM_MATH=%s is not fp32, 3xtf32 or tf32; fp32 is used", shim_show_value(math, shown));
        else
            c->sgemm_math = found;
    }
    const char *mem = value(get, "SHIMBLAS_DEVICE_MEMORY");
    if (mem) {
        long long bytes = shim_parse_bytes(mem);
        if (bytes < 0)
            shim_log("SHIMBLAS_DEVICE_MEMORY=%s is not a byte count (like 512M or 2G); ignored",
                     shim_show_value(mem, shown));
        else
            c->device_memory = (size_t)bytes;
    }

    const char *fail = value(get, "SHIMBLAS_TEST_FAIL");
    if (fail) {
        char *end = NULL;
        if (strcmp(fail, "sticky") == 0) {
            c->test_fail = SHIM_TEST_FAIL_STICKY;
        } else if (strncmp(fail, "gpu", 3) == 0 && (fail[3] == 0 || fail[3] == ':' || fail[3] == '@')) {
            long at = fail[3] == ':' ? (isdigit((unsigned char)fail[4]) ? strtol(fail + 4, &end, 10) : 0) : 1;
            const char *rest = fail[3] == ':' ? end : fail + 3;
            c->test_fail_device = -1;
            if (rest && *rest == '@' && isdigit((unsigned char)rest[1])) { /* only on device D */
                long d = strtol(rest + 1, &end, 10);
                c->test_fail_device = d >= 0 && d < 64 ? (int)d : -1;
                rest = d >= 0 && d < 64 ? end : NULL;
            }
            if (!rest || *rest || at < 1 || at > 1000000)
                at = 0;
            c->test_fail = at ? SHIM_TEST_FAIL_GPU : SHIM_TEST_FAIL_NONE;
            c->test_fail_launch = (int)at;
        }
        if (c->test_fail == SHIM_TEST_FAIL_NONE)
            shim_log("SHIMBLAS_TEST_FAIL=%s is not one of gpu, gpu:N, gpu@D, gpu:N@D, sticky; ignored",
                     shim_show_value(fail, shown));
    }

    const char *m = value(get, "SHIMBLAS_MODE");
    *initial_mode = SHIMBLAS_MODE_AUTO;
    if (m) {
        if (strcasecmp(m, "gpu") == 0)
            *initial_mode = SHIMBLAS_MODE_GPU;
        else if (strcasecmp(m, "cpu") == 0)
            *initial_mode = SHIMBLAS_MODE_CPU;
        else if (strcasecmp(m, "auto") != 0)
            shim_log("SHIMBLAS_MODE=%s is not one of auto, gpu, cpu; using auto", shim_show_value(m, shown));
    }
}

static const char *process_env(const char *name)
{
    return getenv(name);
}

static void read_config(void)
{
    int initial;
    shim_config_read(&config, &initial, process_env);
    if (atomic_load(&mode) == -1)
        set_mode(initial);
}

const shim_config *shim_config_get(void)
{
    pthread_once(&config_once, read_config);
    return &config;
}

shimblas_mode shim_mode(void)
{
    shim_config_get();
    return (shimblas_mode)atomic_load(&mode);
}

__attribute__((visibility("default"))) shimblas_mode shimblas_get_mode(void)
{
    return shim_mode();
}

__attribute__((visibility("default"))) void shimblas_set_mode(shimblas_mode m)
{
    shim_config_get();
    if (m == SHIMBLAS_MODE_AUTO || m == SHIMBLAS_MODE_GPU || m == SHIMBLAS_MODE_CPU)
        set_mode((int)m);
    else
        shim_log("shimblas_set_mode(%d): not a mode; left unchanged", (int)m);
}

__attribute__((visibility("default"))) const char *shimblas_version(void)
{
    return SHIMBLAS_VERSION;
}
