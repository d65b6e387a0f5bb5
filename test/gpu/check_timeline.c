/* SHIMBLAS_TIMELINE on a host-data sgemm (4200 x 2200 x 4500 in gpu mode: three row bands of tiles
 * and three k chunks, spread over the devices of SHIMBLAS_DEVICES when there are several), run
 * twice in child processes, without and with the timeline:
 *   1. both calls on the GPU, the same bits, within the float64 bound: the timeline changes nothing;
 *   2. its lines on stderr: a block per device share, whose tiles add up to the plan's three; each
 *      share's host-thread line (packed more than nothing, no negative times); its first uploads,
 *      each packed before it lands on the device.
 * Usage: check_timeline            (the parent)
 *        check_timeline --child OUT (one run, C written to OUT) */
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child_env.h"
#include "gpu_guard.h"
#include "reference.h"
#include "shimblas.h"

enum { M = 4200, N = 2200, K = 4500, TILES = 3 };

static int failures;

static void verdict(const char *what, int bad)
{
    failures += bad != 0;
    printf("%s %s\n", bad ? "FAIL" : "ok  ", what);
}

static void operands(float **a, float **b)
{
    uint64_t rng = 12345;
    *a = malloc(sizeof(float) * (size_t)M * K);
    *b = malloc(sizeof(float) * (size_t)K * N);
    test_fill(*a, (size_t)M * K, &rng);
    test_fill(*b, (size_t)K * N, &rng);
}

static int child(const char *out)
{
    float *a, *b, *c = malloc(sizeof(float) * (size_t)M * N);
    operands(&a, &b);
    test_fill_poison(c, (size_t)M * N);
    shimblas_set_mode(SHIMBLAS_MODE_GPU);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, M, b, K, 0.0f, c, M);
    shimblas_stats st;
    shimblas_get_stats(&st);
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(c, sizeof(float), (size_t)M * N, f) != (size_t)M * N)
        return 1;
    fclose(f);
    return st.sgemm.gpu == 1 && st.sgemm.gpu_failed == 0 ? 2 : 3;
}

/* runs this program as a child, SHIMBLAS_TIMELINE set or not, its stderr into err; exit status */
static int spawn_child(const char *self, const char *out, int timeline, const char *err)
{
    const char *vars[] = {timeline ? "SHIMBLAS_TIMELINE=1" : "SHIMBLAS_TIMELINE", NULL};
    char **env = test_child_env(vars);
    char *argv[] = {(char *)self, "--child", (char *)out, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int status = -1;
    fflush(stdout);
    if (posix_spawn(&pid, self, &fa, NULL, argv, env) == 0)
        waitpid(pid, &status, 0);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static float *load(const char *path)
{
    float *c = malloc(sizeof(float) * (size_t)M * N);
    FILE *f = fopen(path, "rb");
    if (!f || fread(c, sizeof(float), (size_t)M * N, f) != (size_t)M * N) {
        printf("FAIL: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    return c;
}

/* |c - A B| within 4 (k + 2) eps sum |a b| on a sample of the outputs */
static int within_bound(const float *a, const float *b, const float *c)
{
    int bad = 0;
    for (int j = 0; j < N; j += 41)
        for (int i = 0; i < M; i += 37) {
            double s = 0, g = 0;
            for (int l = 0; l < K; l++) {
                double t = (double)a[i + (int64_t)l * M] * b[l + (int64_t)j * K];
                s += t;
                g += fabs(t);
            }
            if (!(fabs(c[i + (int64_t)j * M] - s) <= 4.0 * (K + 2) * FLT_EPSILON * g) && bad++ < 3)
                printf("  c(%d,%d) = %.9g, float64 %.9g\n", i, j, c[i + (int64_t)j * M], s);
        }
    return bad;
}

/* reads the timeline lines of err: problems found are printed and counted */
static int timeline_problems(const char *err)
{
    FILE *f = fopen(err, "r");
    if (!f) {
        printf("  cannot read %s\n", err);
        return 1;
    }
    char line[4096];
    int bad = 0, shares = 0, tiles = 0, hosts = 0, uploads = 0, in_uploads = 0;
    while (fgets(line, sizeof line, f)) {
        int t;
        double mb, ms;
        if (sscanf(line, "shimblas: timeline device %*d share %*d: %d tiles", &t) == 1) {
            shares++;
            tiles += t;
            in_uploads = 0;
        } else if (strstr(line, "shimblas: timeline  host thread: packed ")) {
            hosts++;
            in_uploads = 1;
            if (sscanf(strstr(line, "packed "), "packed %lf MB in %lf ms", &mb, &ms) != 2 || !(mb > 0) || !(ms >= 0)) {
                printf("  host thread line: %s", line);
                bad++;
            }
        } else if (in_uploads && strncmp(line, "shimblas: timeline  ", 20) == 0) {
            /* entries "from-to/landed", eight a line */
            const char *p = line + 20;
            double from, to, landed;
            int used;
            while (sscanf(p, "%lf-%lf/%lf%n", &from, &to, &landed, &used) == 3) {
                uploads++;
                if (!(from >= 0 && to >= from && landed >= from - 0.5)) {
                    if (bad++ < 3)
                        printf("  upload packed %.2f-%.2f ms, landed %.2f ms\n", from, to, landed);
                }
                p += used;
                while (*p == ' ')
                    p++;
            }
        }
    }
    fclose(f);
    if (shares < 1 || tiles != TILES || hosts != shares || uploads < shares) {
        printf("  %d share blocks, %d tiles (want %d), %d host-thread lines, %d uploads\n", shares, tiles, TILES, hosts,
               uploads);
        bad++;
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child(argv[2]);
    test_require_gpu();
    char plain[64], timed[64], plain_err[64], timed_err[64];
    snprintf(plain, sizeof plain, "/tmp/check_timeline.%ld.plain", (long)getpid());
    snprintf(timed, sizeof timed, "/tmp/check_timeline.%ld.timed", (long)getpid());
    snprintf(plain_err, sizeof plain_err, "/tmp/check_timeline.%ld.plain.err", (long)getpid());
    snprintf(timed_err, sizeof timed_err, "/tmp/check_timeline.%ld.timed.err", (long)getpid());
    int s1 = spawn_child(argv[0], plain, 0, plain_err), s2 = spawn_child(argv[0], timed, 1, timed_err);
    float *a, *b;
    operands(&a, &b);
    float *c1 = load(plain), *c2 = load(timed);
    verdict("both calls on the GPU, none failed there", s1 != 2 || s2 != 2);
    verdict("with the timeline: the same bits", memcmp(c1, c2, sizeof(float) * (size_t)M * N) != 0);
    verdict("within the float64 bound", within_bound(a, b, c2));
    verdict("the timeline: a block per share, the plan's tiles, host-thread times, uploads packed before they land",
            timeline_problems(timed_err));
    FILE *f = fopen(plain_err, "r");
    char line[4096];
    int quiet = f != NULL;
    while (f && fgets(line, sizeof line, f))
        quiet &= strstr(line, "timeline") == NULL;
    if (f)
        fclose(f);
    verdict("without the timeline: no timeline lines", !quiet);
    unlink(plain), unlink(timed), unlink(plain_err), unlink(timed_err);
    printf("check_timeline: %d failures\n", failures);
    return failures != 0;
}
