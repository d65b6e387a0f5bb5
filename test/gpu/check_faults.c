/* GPU failures injected with SHIMBLAS_TEST_FAIL, each scenario in a child process of its own (this
 * program run again with --child NAME and the scenario's environment), watched from outside: its
 * exit status or signal, its stdout and its stderr.
 *
 *   gpu-host      SHIMBLAS_TEST_FAIL=gpu SHIMBLAS_MODE=gpu: every GPU call fails (a non-sticky error,
 *                 after staging). Host and pinned operands: each call recomputed on the CPU BLAS,
 *                 correct, counted as gpu_failed only. A small host call in auto mode, which never
 *                 goes near the GPU, is unaffected (counted cpu). Exit 0, and stderr says that GPU
 *                 calls failed (a "shimblas:" line), with no "shimblas: fatal:" line.
 *   gpu-device    SHIMBLAS_TEST_FAIL=gpu: device and managed operands: the library recovers each call
 *                 (operands copied down, computed on the CPU BLAS, result copied back): correct, counted
 *                 as gpu_failed only; stderr as for gpu-host.
 *   sticky-device-sgemm, sticky-device-sgemv, sticky-managed-sgemm
 *                 SHIMBLAS_TEST_FAIL=sticky: the first GPU call breaks the CUDA context with a device
 *                 fault. A call on device (managed) operands cannot be served: the process must stop
 *                 with SIGABRT and exactly one stderr line starting "shimblas: fatal:" that names the
 *                 routine, and the call must not return.
 *   sticky-host   SHIMBLAS_TEST_FAIL=sticky SHIMBLAS_MODE=gpu: a host call: recomputed on the CPU
 *                 (correct, counted gpu_failed), and later host calls still work, none on the GPU. Exit 0,
 *                 a "shimblas:" line on stderr, no fatal line.
 *
 *   check_faults [SCENARIO...]    runs the named scenarios (all without arguments)
 *   check_faults --child NAME     runs one scenario in this process (what the children do)
 * Exit 77 without a usable GPU. */
#include <ctype.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blas_cases.h"
#include "child_env.h"
#include "gpu_guard.h"
#include "gpu_memory.h"
#include "reference.h"
#include "shimblas.h"

#define CHILD_SECONDS 240 /* a child still running then is killed by SIGALRM */
#define RETURNED_MARK "RETURNED:"

/* ---- the children -------------------------------------------------------------------------------- */

static uint64_t rng;

enum expect_count { FAILED, ON_CPU, NOT_GPU }; /* gpu_failed only; cpu only; cpu or gpu_failed */

static const char *check_counts(const shimblas_counts *b, const shimblas_counts *a, int e,
                                char *why, size_t len)
{
    unsigned long long gpu = a->gpu - b->gpu, cpu = a->cpu - b->cpu, failed = a->gpu_failed - b->gpu_failed,
                       trivial = a->trivial - b->trivial, errors = a->errors - b->errors;
    int ok = gpu == 0 && trivial == 0 && errors == 0 &&
             (e == FAILED ? failed == 1 && cpu == 0 : e == ON_CPU ? cpu == 1 && failed == 0 : cpu + failed == 1);
    if (ok)
        return NULL;
    snprintf(why, len, "counted gpu %llu, cpu %llu, gpu_failed %llu, trivial %llu, errors %llu; want %s", gpu, cpu,
             failed, trivial, errors,
             e == FAILED ? "gpu_failed 1 and nothing else"
             : e == ON_CPU ? "cpu 1 and nothing else"
                           : "cpu or gpu_failed 1, nothing else");
    return why;
}

static tc_tally tally;

static void gemm(const tc_memory *mem, tc_gemm g, enum expect_count e)
{
    tc_gemm_counted(&tally, mem, g, &rng, check_counts, (int)e);
}

static void gemv(const tc_memory *mem, tc_gemv g, enum expect_count e)
{
    tc_gemv_counted(&tally, mem, g, &rng, check_counts, (int)e);
}

static int child_gpu_host(void)
{
    const tc_memory *host = &tc_host_memory, *pinned = &tc_pinned_memory;
    gemm(host, (tc_gemm){0, 0, 0, 300, 200, 150, 1.0f, 0.0f, 3}, FAILED);
    gemm(host, (tc_gemm){1, 1, 0, 129, 257, 65, -0.5f, 0.75f, 1}, FAILED);
    gemm(host, (tc_gemm){0, 1, 1, 1, 300, 64, 1.0f, 1.0f, 0}, FAILED);
    gemv(host, (tc_gemv){0, 0, 1000, 300, 2, -1, 1.0f, 0.0f, 2}, FAILED);
    gemv(host, (tc_gemv){1, 0, 500, 700, -3, 1, 0.5f, 1.0f, 0}, FAILED);
    gemv(host, (tc_gemv){1, 1, 300, 200, 1, 1, 1.0f, -0.5f, 1}, FAILED);
    gemm(pinned, (tc_gemm){0, 0, 1, 200, 100, 300, 1.0f, 0.0f, 2}, FAILED);
    gemv(pinned, (tc_gemv){0, 1, 400, 200, -1, 2, 1.0f, 0.0f, 0}, FAILED);
    /* auto mode: a small host call stays on the CPU; no GPU call, nothing to fail */
    shimblas_set_mode(SHIMBLAS_MODE_AUTO);
    gemm(host, (tc_gemm){0, 0, 0, 20, 20, 20, 1.0f, 0.0f, 0}, ON_CPU);
    gemv(host, (tc_gemv){1, 0, 30, 20, 1, 1, 1.0f, 0.0f, 0}, ON_CPU);
    return 0;
}

static int child_gpu_device(void)
{
    const tc_memory *dev = &tc_device_memory, *man = &tc_managed_memory;
    gemm(dev, (tc_gemm){0, 0, 0, 300, 200, 150, 1.0f, 0.0f, 3}, FAILED);
    gemm(dev, (tc_gemm){1, 0, 1, 129, 257, 65, -0.5f, 0.75f, 1}, FAILED);
    gemm(dev, (tc_gemm){0, 1, 1, 257, 1, 100, 1.0f, 1.0f, 0}, FAILED);
    gemv(dev, (tc_gemv){0, 0, 1000, 300, 1, 1, 1.0f, 0.0f, 2}, FAILED);
    gemv(dev, (tc_gemv){1, 0, 500, 700, -2, 3, 0.75f, 0.5f, 0}, FAILED);
    gemv(dev, (tc_gemv){0, 1, 300, 200, 1, -1, 1.0f, 0.0f, 1}, FAILED);
    gemm(man, (tc_gemm){1, 1, 1, 100, 120, 140, 1.0f, 0.0f, 2}, FAILED);
    gemv(man, (tc_gemv){1, 1, 600, 90, -1, 1, -1.0f, 1.0f, 1}, FAILED);
    return 0;
}

/* the call must not come back: if it does, say so on stdout (the parent looks for the mark) */
static int sticky_device(const tc_memory *mem, int sgemm)
{
    const int m = 512, n = 384, k = 256;
    size_t asz = (size_t)m * k, bsz = (size_t)k * n, csz = (size_t)m * n;
    float *h = malloc(sizeof(float) * (asz > csz ? asz : csz));
    float *a = mem->alloc(asz), *b = mem->alloc(bsz), *c = mem->alloc(csz);
    test_fill(h, asz, &rng);
    mem->put(a, h, asz);
    test_fill(h, bsz, &rng);
    mem->put(b, h, bsz);
    test_fill(h, csz, &rng);
    mem->put(c, h, csz);
    printf("calling cblas_%s on %s operands\n", sgemm ? "sgemm" : "sgemv", mem->name);
    fflush(stdout);
    if (sgemm)
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m);
    else
        cblas_sgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0f, a, k, b, 1, 0.0f, c, 1);
    shimblas_stats st;
    shimblas_get_stats(&st);
    const shimblas_counts *r = sgemm ? &st.sgemm : &st.sgemv;
    printf(RETURNED_MARK " cblas_%s on %s operands returned after the context broke (counted gpu %llu, "
                         "gpu_failed %llu, errors %llu)\n",
           sgemm ? "sgemm" : "sgemv", mem->name, r->gpu, r->gpu_failed, r->errors);
    fflush(stdout);
    return 3;
}

static int child_sticky_device_sgemm(void)
{
    return sticky_device(&tc_device_memory, 1);
}

static int child_sticky_device_sgemv(void)
{
    return sticky_device(&tc_device_memory, 0);
}

static int child_sticky_managed_sgemm(void)
{
    return sticky_device(&tc_managed_memory, 1);
}

/* no CUDA call of this program's own: the library's is the only context user */
static int child_sticky_host(void)
{
    const tc_memory *host = &tc_host_memory;
    gemm(host, (tc_gemm){0, 0, 0, 300, 200, 150, 1.0f, 0.0f, 3}, FAILED);
    gemm(host, (tc_gemm){1, 1, 0, 129, 257, 65, -0.5f, 0.75f, 1}, NOT_GPU);
    gemv(host, (tc_gemv){0, 0, 1000, 300, 2, -1, 1.0f, 0.0f, 2}, NOT_GPU);
    gemv(host, (tc_gemv){1, 1, 300, 200, 1, 1, 1.0f, -0.5f, 1}, NOT_GPU);
    gemm(host, (tc_gemm){0, 1, 1, 400, 300, 200, 1.0f, 1.0f, 0}, NOT_GPU);
    return 0;
}

/* ---- the scenarios and the parent --------------------------------------------------------------- */

typedef struct scenario {
    const char *name;
    const char *fail; /* SHIMBLAS_TEST_FAIL */
    const char *mode; /* SHIMBLAS_MODE, NULL: unset */
    int aborts;       /* 1: must stop with SIGABRT and a fatal line naming routine */
    const char *routine;
    int (*run)(void);
} scenario;

static const scenario scenarios[] = {
    {"gpu-host", "gpu", "gpu", 0, NULL, child_gpu_host},
    {"gpu-device", "gpu", "gpu", 0, NULL, child_gpu_device},
    {"sticky-device-sgemm", "sticky", NULL, 1, "sgemm", child_sticky_device_sgemm},
    {"sticky-device-sgemv", "sticky", NULL, 1, "sgemv", child_sticky_device_sgemv},
    {"sticky-managed-sgemm", "sticky", NULL, 1, "sgemm", child_sticky_managed_sgemm},
    {"sticky-host", "sticky", "gpu", 0, NULL, child_sticky_host},
};
#define SCENARIOS ((int)(sizeof scenarios / sizeof *scenarios))

static const scenario *find(const char *name)
{
    for (int i = 0; i < SCENARIOS; i++)
        if (strcmp(scenarios[i].name, name) == 0)
            return &scenarios[i];
    return NULL;
}

static char *slurp(FILE *f)
{
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)(len > 0 ? len : 0) + 1);
    size_t got = len > 0 ? fread(buf, 1, (size_t)len, f) : 0;
    buf[got] = '\0';
    return buf;
}

static void show(const char *what, const char *text)
{
    printf("  --- %s ---\n", what);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        printf("  | %.*s\n", (int)len, line);
        line += len + (end ? 1 : 0);
    }
}

static int contains_ci(const char *s, size_t len, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= len; i++) {
        size_t j = 0;
        while (j < w && tolower((unsigned char)s[i + j]) == word[j])
            j++;
        if (j == w)
            return 1;
    }
    return 0;
}

/* stderr lines: how many start "shimblas: fatal:" (and whether one names routine), and how many
 * other "shimblas:" lines mention a failure */
static void scan_stderr(const char *text, const char *routine, int *fatal, int *fatal_named, int *failure_lines)
{
    *fatal = *fatal_named = *failure_lines = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len >= 16 && strncmp(line, "shimblas: fatal:", 16) == 0) {
            (*fatal)++;
            if (routine && contains_ci(line, len, routine))
                (*fatal_named)++;
        } else if (len >= 9 && strncmp(line, "shimblas:", 9) == 0 &&
                   (contains_ci(line, len, "fail") || contains_ci(line, len, "error") ||
                    contains_ci(line, len, "recomput"))) {
            (*failure_lines)++;
        }
        line += len + (end ? 1 : 0);
    }
}

static int run_scenario(const scenario *s)
{
    char fail_var[64], mode_var[64];
    snprintf(fail_var, sizeof fail_var, "SHIMBLAS_TEST_FAIL=%s", s->fail);
    snprintf(mode_var, sizeof mode_var, "SHIMBLAS_MODE=%s", s->mode ? s->mode : "");
    printf("== %s (%s%s%s)\n", s->name, fail_var, s->mode ? " " : "", s->mode ? mode_var : "");
    fflush(stdout);
    /* (built before fork: a child of a threaded process should only exec) */
    const char *vars[] = {fail_var, s->mode ? mode_var : "SHIMBLAS_MODE", NULL};
    char **env = test_child_env(vars);
    FILE *out = tmpfile(), *err = tmpfile();
    if (!out || !err) {
        printf("FAIL: %s: cannot create temporary files (%s)\n", s->name, strerror(errno));
        return 1;
    }
    char *child_argv[] = {"check_faults", "--child", (char *)s->name, NULL};
    int out_fd = fileno(out), err_fd = fileno(err);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        struct rlimit no_core = {0, 0}; /* an expected abort leaves no core file behind */
        setrlimit(RLIMIT_CORE, &no_core);
        execve("/proc/self/exe", child_argv, env);
        _exit(127);
    }
    free(env);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        printf("FAIL: %s: could not run the child (%s)\n", s->name, strerror(errno));
        return 1;
    }
    char *stdout_text = slurp(out), *stderr_text = slurp(err);
    fclose(out);
    fclose(err);
    show("child stdout", stdout_text);
    show("child stderr", stderr_text);

    int fatal, fatal_named, failure_lines;
    scan_stderr(stderr_text, s->routine, &fatal, &fatal_named, &failure_lines);
    int returned = strstr(stdout_text, RETURNED_MARK) != NULL;
    char status_text[96];
    if (WIFEXITED(status))
        snprintf(status_text, sizeof status_text, "exit status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(status_text, sizeof status_text, "killed by signal %d (%s)%s", WTERMSIG(status),
                 strsignal(WTERMSIG(status)), WTERMSIG(status) == SIGALRM ? ": timed out" : "");
    else
        snprintf(status_text, sizeof status_text, "wait status %#x", status);

    int bad = 0;
    if (s->aborts) {
        if (returned) {
            printf("FAIL: %s: the call returned as if it had run (%s)\n", s->name, status_text);
            bad++;
        }
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT) {
            printf("FAIL: %s: the process must stop with SIGABRT, got %s\n", s->name, status_text);
            bad++;
        }
        if (fatal != 1 || fatal_named != 1) {
            printf("FAIL: %s: stderr must have exactly one line starting \"shimblas: fatal:\" that names %s; "
                   "found %d such lines, %d naming it\n",
                   s->name, s->routine, fatal, fatal_named);
            bad++;
        }
        if (!bad)
            printf("PASS: %s: stopped by SIGABRT with one \"shimblas: fatal:\" line naming %s\n", s->name,
                   s->routine);
    } else {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("FAIL: %s: the child must exit 0 (every case correct and counted as expected), got %s\n",
                   s->name, status_text);
            /* its own FAIL lines, where a summary of FAIL lines finds them */
            for (const char *line = stdout_text; (line = strstr(line, "FAIL: ")) != NULL; line++)
                if (line == stdout_text || line[-1] == '\n')
                    printf("FAIL: %s: %.*s\n", s->name, (int)strcspn(line + 6, "\n"), line + 6);
            bad++;
        }
        if (fatal) {
            printf("FAIL: %s: %d \"shimblas: fatal:\" lines on stderr; nothing here is fatal\n", s->name, fatal);
            bad++;
        }
        if (failure_lines == 0) {
            printf("FAIL: %s: stderr must say (a line starting \"shimblas:\") that GPU calls failed\n", s->name);
            bad++;
        }
        if (!bad)
            printf("PASS: %s: every case correct and counted, failure reported on stderr (%d line%s)\n", s->name,
                   failure_lines, failure_lines == 1 ? "" : "s");
    }
    free(stdout_text);
    free(stderr_text);
    return bad != 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0) {
        const scenario *s = find(argv[2]);
        if (!s) {
            printf("FAIL: no scenario %s\n", argv[2]);
            return 2;
        }
        alarm(CHILD_SECONDS);
        setvbuf(stdout, NULL, _IOLBF, 0); /* what was printed survives an abort */
        rng = test_seed();
        const char *fail = getenv("SHIMBLAS_TEST_FAIL");
        printf("scenario %s, SHIMBLAS_TEST_FAIL=%s, mode %s\n", s->name, fail ? fail : "(unset)",
               shimblas_get_mode() == SHIMBLAS_MODE_GPU ? "gpu" : shimblas_get_mode() == SHIMBLAS_MODE_CPU ? "cpu" : "auto");
        int rc = s->run();
        printf("%s: %d cases, %d failures\n", s->name, tally.cases, tally.failures);
        return rc ? rc : tally.failures != 0;
    }

    for (int i = 1; i < argc; i++)
        if (!find(argv[i])) {
            printf("FAIL: no scenario %s; the scenarios are:", argv[i]);
            for (int j = 0; j < SCENARIOS; j++)
                printf(" %s", scenarios[j].name);
            printf("\n");
            return 2;
        }
    test_require_gpu();
    int total = 0, failed = 0;
    for (int i = 0; i < (argc > 1 ? argc - 1 : SCENARIOS); i++) {
        const scenario *s = argc > 1 ? find(argv[i + 1]) : &scenarios[i];
        total++;
        failed += run_scenario(s);
    }
    printf("check_faults: %d scenarios, %d failures\n", total, failed);
    return failed != 0;
}
