/* The cost model's cache against what a file system can hold: corrupt and implausible values, a
 * truncated or empty file, a directory, a FIFO or a symlink where the file should be, a folder of
 * another user or writable by others, a path too long, the umask, and many processes writing and
 * reading the same file at once. Whatever is there, a load either gives a valid model or says why. */
/* (the scratch paths are short; the compiler cannot know) */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cost_cache.h"

static int cases, failures;
static char scratch[] = "/tmp/shimblas-cache-XXXXXX";

static void expect(const char *what, int ok)
{
    cases++;
    printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
    failures += !ok;
}

static const shim_cost_model good = {55.2, 55.4, 51.7, 42600, 3280, 0.039, 1480, 0.0012, 252, 0.0004};

static void write_file(const char *folder, uint64_t key, const char *text)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/model-%016llx.txt", folder, (unsigned long long)key);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int open_folder(const char *folder, const char **why)
{
    setenv("SHIMBLAS_CACHE_DIR", folder, 1);
    return shim_cost_cache_open_dir(why);
}

static void text_cases(const char *folder)
{
    const char *why = NULL;
    int dir = open_folder(folder, &why);
    expect("a fresh folder is usable", dir >= 0);
    if (dir < 0)
        return;
    shim_cost_model m;
    expect("no file yet: not loaded, and said why", shim_cost_cache_load(dir, 1, &m, &why) != 0 && why);
    expect("a stored model loads back", shim_cost_cache_store(dir, 1, &good) == 0 &&
                                            shim_cost_cache_load(dir, 1, &m, &why) == 0 &&
                                            memcmp(&m, &good, sizeof m) == 0);
    /* the corrupt files of the report: NaN, zero, negative, absurd rates */
    static const char *const bad_values[] = {"nan", "0", "-5", "1e308", "inf"};
    static const char *const fields[] = {"gpu_sgemm_gflops", "h2d_gbps"};
    for (int f = 0; f < 2; f++)
        for (int v = 0; v < 5; v++) {
            char text[2048], label[160];
            shim_cost_model_format(&good, text, sizeof text);
            char *at = strstr(text, fields[f]), *eol = strchr(at, '\n'), rest[1024];
            snprintf(rest, sizeof rest, "%s", eol);
            sprintf(at + strlen(fields[f]) + 1, "%s%s", bad_values[v], rest);
            write_file(folder, 2, text);
            snprintf(label, sizeof label, "%s %s in the cache: refused as implausible", fields[f], bad_values[v]);
            expect(label, shim_cost_cache_load(dir, 2, &m, &why) != 0 && strstr(why, "plausible"));
        }
    write_file(folder, 3, "h2d_gbps 55\nd2h_gbps 5");
    expect("a truncated file is refused", shim_cost_cache_load(dir, 3, &m, &why) != 0);
    write_file(folder, 4, "");
    expect("an empty file is refused", shim_cost_cache_load(dir, 4, &m, &why) != 0);
    char text[1024];
    shim_cost_model_format(&good, text, sizeof text);
    strcat(text, "gpu_call_ms 0.5\n");
    write_file(folder, 5, text);
    expect("a field given twice is refused", shim_cost_cache_load(dir, 5, &m, &why) != 0);
    expect("and storing over it makes it good again",
           shim_cost_cache_store(dir, 5, &good) == 0 && shim_cost_cache_load(dir, 5, &m, &why) == 0);
    close(dir);
}

static void file_kinds(const char *folder)
{
    const char *why = NULL;
    int dir = open_folder(folder, &why);
    if (dir < 0)
        return;
    char path[PATH_MAX + 64], target[PATH_MAX];
    shim_cost_model m;
    snprintf(path, sizeof path, "%s/model-%016llx.txt", folder, 6ull);
    mkdir(path, 0755);
    expect("a directory in the file's place is refused", shim_cost_cache_load(dir, 6, &m, &why) != 0);
    expect("and storing fails without harm", shim_cost_cache_store(dir, 6, &good) != 0);
    snprintf(path, sizeof path, "%s/model-%016llx.txt", folder, 7ull);
    mkfifo(path, 0644);
    expect("a FIFO in the file's place is refused at once", shim_cost_cache_load(dir, 7, &m, &why) != 0);
    snprintf(target, sizeof target, "%s/elsewhere.txt", folder);
    FILE *f = fopen(target, "w");
    char text[1024];
    shim_cost_model_format(&good, text, sizeof text);
    fputs(text, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/model-%016llx.txt", folder, 8ull);
    if (symlink(target, path) != 0)
        perror("symlink");
    expect("a symlink in the file's place is not followed", shim_cost_cache_load(dir, 8, &m, &why) != 0);
    struct stat st;
    expect("storing replaces the link, not what it points at",
           shim_cost_cache_store(dir, 8, &good) == 0 && lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
               stat(target, &st) == 0 && st.st_size == (off_t)strlen(text));
    mode_t old = umask(0);
    shim_cost_cache_store(dir, 9, &good);
    umask(old);
    snprintf(path, sizeof path, "%s/model-%016llx.txt", folder, 9ull);
    expect("a file created under umask 0 is not writable by others",
           stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    old = umask(077);
    shim_cost_cache_store(dir, 10, &good);
    umask(old);
    snprintf(path, sizeof path, "%s/model-%016llx.txt", folder, 10ull);
    expect("a file created under umask 077 keeps it", stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    close(dir);
}

static void folders(void)
{
    const char *why = NULL;
    char folder[PATH_MAX + 64];
    snprintf(folder, sizeof folder, "%s/open", scratch);
    mkdir(folder, 0777);
    chmod(folder, 0777);
    expect("a folder writable by others is refused", open_folder(folder, &why) < 0 && why);
    snprintf(folder, sizeof folder, "%s/theirs", scratch);
    mkdir(folder, 0755);
    if (geteuid() == 0) {
        if (chown(folder, 65534, 65534) == 0)
            expect("a folder of another user is refused", open_folder(folder, &why) < 0 && why);
    } else {
        printf("(not root: the other user's folder is not tried)\n");
    }
    static char long_path[PATH_MAX + 100];
    memset(long_path, 'x', sizeof long_path - 1);
    long_path[0] = '/';
    expect("a folder path longer than a path is refused", open_folder(long_path, &why) < 0 && why);
    unsetenv("SHIMBLAS_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    char home[PATH_MAX];
    snprintf(home, sizeof home, "%s/home", scratch);
    mkdir(home, 0755);
    setenv("HOME", home, 1);
    int dir = shim_cost_cache_open_dir(&why);
    struct stat st;
    snprintf(folder, sizeof folder, "%s/.cache/shimblas", home);
    expect("under HOME, .cache/shimblas is made", dir >= 0 && stat(folder, &st) == 0 && S_ISDIR(st.st_mode));
    if (dir >= 0)
        close(dir);
    unsetenv("HOME");
    expect("no folder variable at all: refused with a reason", shim_cost_cache_open_dir(&why) < 0 && why);
}

/* writers and readers at once: a reader sees a whole model or none, never a part of one */
static void at_once(const char *folder)
{
    pid_t pids[12];
    for (int p = 0; p < 12; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            const char *why;
            int dir = open_folder(folder, &why), bad = 0;
            for (int i = 0; i < 300 && dir >= 0; i++) {
                shim_cost_model m = good;
                m.gpu_call_ms = 0.001 * (1 + p);
                if (p < 8) {
                    shim_cost_cache_store(dir, 11, &m);
                } else if (shim_cost_cache_load(dir, 11, &m, &why) != 0 && !strstr(why, "no cached")) {
                    bad++;
                } else if (m.h2d_gbps != good.h2d_gbps && m.h2d_gbps != 0) {
                    bad++;
                }
            }
            _exit(bad ? 1 : 0);
        }
    }
    int bad = 0;
    for (int p = 0; p < 12; p++) {
        int status;
        waitpid(pids[p], &status, 0);
        bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    expect("eight writers and four readers at once: every load whole", bad == 0);
}

int main(void)
{
    if (!mkdtemp(scratch)) {
        perror("mkdtemp");
        return 1;
    }
    char folder[PATH_MAX + 64];
    snprintf(folder, sizeof folder, "%s/cache", scratch);
    text_cases(folder);
    file_kinds(folder);
    at_once(folder);
    folders();
    char command[PATH_MAX + 16];
    snprintf(command, sizeof command, "rm -rf %s", scratch);
    if (system(command) != 0)
        printf("(scratch folder %s left behind)\n", scratch);
    printf("test_cost_cache: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
