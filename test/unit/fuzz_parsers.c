/* Fuzzing the parsers of what comes from outside: the cost model's cache text, the SHIMBLAS_*
 * variables, byte counts, the cache key's parts and folder variables. Deterministic (a seed, so a
 * failure repeats: SHIMBLAS_FUZZ_SEED, SHIMBLAS_FUZZ_ROUNDS), built with the sanitizers in CI.
 * Properties: nothing crashes or reads out of bounds; a cache text is accepted only when complete,
 * and what the checks accept formats and parses back to itself; settings stay in their ranges. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cost_cache.h"

static int failures;
static uint64_t state;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void fail(const char *what, const char *input)
{
    if (failures++ < 20)
        printf("FAIL: %s (input %.80s)\n", what, input);
}

/* pieces the inputs are made of: the real grammar, its neighbours, and junk */
static const char *const pieces[] = {
    "h2d_gbps", "d2h_gbps", "pack_gbps", "gpu_sgemm_gflops", "gpu_sgemv_gbps", "gpu_call_ms", "cpu_sgemm_gflops",
    "cpu_sgemm_call_ms", "cpu_sgemv_gbps", "cpu_sgemv_call_ms", "h2d_gbp", "gpu_call_ms_", " ", "  ", "\n", "\n\n",
    "\r\n", "\t", "55.2", "0", "-5", "nan", "NaN", "inf", "-inf", "1e308", "1e-320", "0x1p3", "4.2e1", "12", "7",
    "%s", "%n", "99999999999999999999999", ".", "-", "+", "e", "1e", "G", "K", "M", "B", "gpu", "cpu", "auto",
    "sticky", "gpu:", "gpu:8", "gpu:0", "gpu:-1", ":", "9223372036854775807", "9223372036854775808", "\xff\xfe",
    "\x01", "/", "..", "/tmp", "", "yes", "no", "off", "0.000001", "1000", "10000.5",
};
enum { PIECES = sizeof pieces / sizeof pieces[0] };

static void random_text(char *out, size_t cap)
{
    size_t used = 0;
    int count = (int)(next() % 40);
    for (int i = 0; i < count && used + 1 < cap; i++) {
        const char *p;
        char junk[8];
        if (next() % 8 == 0) {
            int n = (int)(next() % 7);
            for (int j = 0; j < n; j++)
                junk[j] = (char)(1 + next() % 255);
            junk[n] = '\0';
            p = junk;
        } else {
            p = pieces[next() % PIECES];
        }
        size_t n = strlen(p);
        if (used + n + 1 > cap)
            break;
        memcpy(out + used, p, n);
        used += n;
    }
    out[used] = '\0';
}

/* a valid text with one mutation: a byte changed, a line dropped, doubled or cut */
static void mutated_model(char *out, size_t cap)
{
    shim_cost_model m = {55.2, 55.4, 51.7, 42600, 3280, 0.039, 1480, 0.0012, 252, 0.0004};
    char text[1024];
    shim_cost_model_format(&m, text, sizeof text);
    size_t n = strlen(text);
    switch (next() % 5) {
    case 0: text[next() % n] = (char)(next() % 256 ?: 1); break;
    case 1: text[next() % n] = '\0'; break;
    case 2: { /* a line doubled */
        char *line = strchr(text + next() % n, '\n');
        if (line && strlen(text) + 40 < sizeof text) {
            char copy[64];
            snprintf(copy, sizeof copy, "gpu_call_ms %d\n", (int)(next() % 100));
            strcat(text, copy);
        }
        break;
    }
    case 3: { /* a value replaced */
        char *sp = strchr(text + next() % n, ' ');
        if (sp)
            memcpy(sp + 1, pieces[next() % PIECES], 1);
        break;
    }
    default: break;
    }
    snprintf(out, cap, "%s", text);
}

static void fuzz_cache_text(int rounds)
{
    char text[2048];
    for (int i = 0; i < rounds; i++) {
        if (i % 2)
            random_text(text, sizeof text);
        else
            mutated_model(text, sizeof text);
        shim_cost_model m;
        memset(&m, 0x7f, sizeof m);
        if (shim_cost_model_parse(text, &m) != 0)
            continue;
        const char *bad;
        if (shim_cost_model_check(&m, &bad) != 0)
            continue;
        /* accepted: it must format and read back to the same model */
        char again[1024];
        shim_cost_model back;
        if (shim_cost_model_format(&m, again, sizeof again) < 0 || shim_cost_model_parse(again, &back) != 0 ||
            memcmp(&back, &m, sizeof m) != 0)
            fail("an accepted cache text does not read back to itself", text);
        const double *v = (const double *)&m;
        for (size_t f = 0; f < sizeof m / sizeof(double); f++)
            if (!isfinite(v[f]) || v[f] <= 0)
                fail("the checks accepted a value that is not finite and positive", text);
    }
}

/* the variables come from here during one shim_config_read */
static const char *names[16];
static char values[16][4096];
static int nvalues;

static const char *fake_env(const char *name)
{
    for (int i = 0; i < nvalues; i++)
        if (strcmp(names[i], name) == 0)
            return values[i];
    return NULL;
}

static void fuzz_settings(int rounds)
{
    static const char *const variables[] = {"SHIMBLAS_MODE",         "SHIMBLAS_CPU_BLAS",      "SHIMBLAS_VERBOSE",
                                            "SHIMBLAS_STATS",        "SHIMBLAS_SGEMV_KERNEL",  "SHIMBLAS_SGEMM_KERNEL",
                                            "SHIMBLAS_DEVICE_MEMORY", "SHIMBLAS_TEST_FAIL"};
    enum { VARIABLES = sizeof variables / sizeof variables[0] };
    for (int i = 0; i < rounds; i++) {
        nvalues = 0;
        for (int v = 0; v < VARIABLES; v++) {
            if (next() % 2)
                continue;
            names[nvalues] = variables[v];
            if (next() % 16 == 0) { /* long */
                size_t n = 1 + next() % (sizeof values[0] - 1);
                memset(values[nvalues], "1GAgpu:9"[next() % 8], n);
                values[nvalues][n] = '\0';
            } else {
                random_text(values[nvalues], 64);
            }
            nvalues++;
        }
        shim_config c;
        int mode = -1;
        shim_config_read(&c, &mode, fake_env);
        if (mode != SHIMBLAS_MODE_AUTO && mode != SHIMBLAS_MODE_GPU && mode != SHIMBLAS_MODE_CPU)
            fail("a mode outside auto, gpu, cpu", values[0]);
        if (c.test_fail < SHIM_TEST_FAIL_NONE || c.test_fail > SHIM_TEST_FAIL_STICKY ||
            (c.test_fail == SHIM_TEST_FAIL_GPU && (c.test_fail_launch < 1 || c.test_fail_launch > 1000000)))
            fail("SHIMBLAS_TEST_FAIL out of its range", fake_env("SHIMBLAS_TEST_FAIL") ?: "");
        if (c.device_memory > (size_t)LLONG_MAX)
            fail("a device memory cap beyond a byte count", fake_env("SHIMBLAS_DEVICE_MEMORY") ?: "");
    }
}

static void byte_counts(void)
{
    static const struct {
        const char *text;
        long long want;
    } cases[] = {{"0", 0},           {"512M", 512LL << 20},    {"2G", 2LL << 30},         {"1k", 1024},
                 {"7b", 7},           {"3KB", 3072},           {"8589934591G", 8589934591LL << 30},
                 {"8589934592G", -1}, {"9223372036854775807", 9223372036854775807LL},
                 {"9223372036854775808", -1}, {"99999999999999999999999G", -1}, {"-1", -1}, {" 1", -1},
                 {"+1", -1},          {"0x10", -1},            {"1e9", -1},               {"", -1},
                 {"G", -1},           {"1GG", -1},             {"1 G", -1},               {"1Gb", 1LL << 30}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (shim_parse_bytes(cases[i].text) != cases[i].want) {
            char line[96];
            snprintf(line, sizeof line, "%s -> %lld, want %lld", cases[i].text, shim_parse_bytes(cases[i].text),
                     cases[i].want);
            fail("a byte count", line);
        }
}

static void cache_keys(int rounds)
{
    static char part[9][8192];
    for (int i = 0; i < rounds; i++) {
        const char *parts[9];
        for (int p = 0; p < 9; p++) {
            size_t n = next() % 4 ? next() % 64 : next() % sizeof part[p];
            for (size_t j = 0; j < n; j++)
                part[p][j] = (char)(1 + next() % 255);
            part[p][n] = '\0';
            parts[p] = next() % 8 ? part[p] : NULL;
        }
        uint64_t a = shim_cost_cache_key(parts, 9), b = shim_cost_cache_key(parts, 9);
        if (a != b)
            fail("the same setup hashed to two keys", "");
    }
    const char *ab_c[] = {"ab", "c"}, *a_bc[] = {"a", "bc"};
    if (shim_cost_cache_key(ab_c, 2) == shim_cost_cache_key(a_bc, 2))
        fail("moving a character between parts does not change the key", "ab|c");
}

/* the folder variables, pointed under a scratch folder (or made too long for a path) */
static void cache_folders(int rounds)
{
    char scratch[] = "/tmp/shimblas-fuzz-XXXXXX";
    if (!mkdtemp(scratch)) {
        fail("no scratch folder", scratch);
        return;
    }
    static char value[PATH_MAX * 2];
    for (int i = 0; i < rounds; i++) {
        static const char *const variables[] = {"SHIMBLAS_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
        for (int v = 0; v < 3; v++) {
            int kind = (int)(next() % 4);
            if (kind == 0) {
                unsetenv(variables[v]);
                continue;
            }
            size_t n = (size_t)snprintf(value, sizeof value, "%s/%d", scratch, (int)(next() % 4));
            if (kind == 3) { /* longer than a path can be */
                while (n + 2 < sizeof value)
                    value[n++] = next() % 2 ? 'x' : '/';
                value[n] = '\0';
            }
            setenv(variables[v], value, 1);
        }
        const char *why = NULL;
        int fd = shim_cost_cache_open_dir(&why);
        if (fd >= 0) {
            shim_cost_model m = {55.2, 55.4, 51.7, 42600, 3280, 0.039, 1480, 0.0012, 252, 0.0004};
            if (shim_cost_cache_store(fd, next() % 4, &m) != 0)
                fail("a model could not be stored in a folder the user owns", scratch);
            close(fd);
        } else if (!why) {
            fail("a refused cache folder without a reason", scratch);
        }
    }
    char command[128];
    snprintf(command, sizeof command, "rm -rf %s", scratch);
    if (system(command) != 0)
        fail("the scratch folder could not be removed", scratch);
}

int main(void)
{
    const char *seed = getenv("SHIMBLAS_FUZZ_SEED"), *rounds_text = getenv("SHIMBLAS_FUZZ_ROUNDS");
    state = seed ? strtoull(seed, NULL, 10) : 0x5eed5eedull;
    int rounds = rounds_text ? atoi(rounds_text) : 20000;
    if (!state)
        state = 1;
    printf("seed %llu, %d rounds\n", (unsigned long long)state, rounds);
    fflush(stdout);
    /* the parsers' one-line complaints about the junk they are fed would drown the output */
    if (!freopen("/dev/null", "w", stderr))
        return 1;
    byte_counts();
    fuzz_cache_text(rounds);
    fuzz_settings(rounds);
    cache_keys(rounds / 10);
    cache_folders(rounds / 100);
    printf("fuzz_parsers: %d failures\n", failures);
    return failures != 0;
}
