#include "config.h"

#include <ctype.h>
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

static const char *env_or_null(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static int env_flag(const char *name)
{
    const char *v = env_or_null(name);
    return v && strcmp(v, "0") != 0 && strcasecmp(v, "no") != 0 && strcasecmp(v, "off") != 0;
}

long long shim_parse_bytes(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 0)
        return -1;
    switch (toupper((unsigned char)*end)) {
    case 'G': v <<= 10; /* fall through */
    case 'M': v <<= 10; /* fall through */
    case 'K':
        v <<= 10;
        end++;
        break;
    case '\0': break;
    default: return -1;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    return *end ? -1 : v;
}

static void read_config(void)
{
    config.verbose = env_flag("SHIMBLAS_VERBOSE");
    config.stats = env_flag("SHIMBLAS_STATS");
    config.cpu_blas = env_or_null("SHIMBLAS_CPU_BLAS");
    config.sgemv_kernel = env_or_null("SHIMBLAS_SGEMV_KERNEL");
    config.sgemm_kernel = env_or_null("SHIMBLAS_SGEMM_KERNEL");
    const char *mem = env_or_null("SHIMBLAS_DEVICE_MEMORY");
    if (mem) {
        long long bytes = shim_parse_bytes(mem);
        if (bytes < 0)
            shim_log("SHIMBLAS_DEVICE_MEMORY=%s is not a byte count (like 512M or 2G); ignored", mem);
        else
            config.device_memory = (size_t)bytes;
    }

    const char *fail = env_or_null("SHIMBLAS_TEST_FAIL");
    if (fail) {
        char *end = NULL;
        if (strcmp(fail, "sticky") == 0) {
            config.test_fail = SHIM_TEST_FAIL_STICKY;
        } else if (strncmp(fail, "gpu", 3) == 0 && (fail[3] == 0 || fail[3] == ':')) {
            long at = fail[3] ? strtol(fail + 4, &end, 10) : 1;
            if (fail[3] && (*end || at < 1 || at > 1000000))
                at = 0;
            config.test_fail = at ? SHIM_TEST_FAIL_GPU : SHIM_TEST_FAIL_NONE;
            config.test_fail_launch = (int)at;
        }
        if (config.test_fail == SHIM_TEST_FAIL_NONE)
            shim_log("SHIMBLAS_TEST_FAIL=%s is not one of gpu, gpu:N, sticky; ignored", fail);
    }

    const char *m = env_or_null("SHIMBLAS_MODE");
    int initial = SHIMBLAS_MODE_AUTO;
    if (m) {
        if (strcasecmp(m, "gpu") == 0)
            initial = SHIMBLAS_MODE_GPU;
        else if (strcasecmp(m, "cpu") == 0)
            initial = SHIMBLAS_MODE_CPU;
        else if (strcasecmp(m, "auto") != 0)
            shim_log("SHIMBLAS_MODE=%s is not one of auto, gpu, cpu; using auto", m);
    }
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
