/* shimblas-info: what shimblas sees, for people setting it up.
 *
 *   shimblas-info                 the report for this process: the version, the mode, the GPU (or
 *                                 why none is usable), each interface's CPU BLAS, the cost model
 *                                 (found, measured and cached if needed)
 *   shimblas-info PROGRAM [ARG]   runs PROGRAM with the library preloaded and SHIMBLAS_REPORT=1:
 *                                 the same report at its exit, with the calls that went where
 *
 * The environment applies as to any program (SHIMBLAS_MODE, SHIMBLAS_CPU_BLAS, ...). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shimblas.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: shimblas-info               what shimblas sees in this process\n"
                "       shimblas-info PROGRAM [ARG...]  run PROGRAM under shimblas, report at its exit\n");
}

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    int first = argc > 1 && !strcmp(argv[1], "--") ? 2 : 1;
    if (first >= argc) {
        size_t n = shimblas_report(NULL, 0, 1);
        char *text = malloc(n + 1);
        if (!text)
            return 1;
        shimblas_report(text, n + 1, 1);
        fputs(text, stdout);
        free(text);
        return 0;
    }

    /* the library this program runs with, preloaded after what LD_PRELOAD already holds (what the
     * user preloads comes first, as a sanitizer's runtime must) and so before the program's BLAS */
    Dl_info info;
    if (!dladdr((void *)shimblas_report, &info) || !info.dli_fname || !*info.dli_fname) {
        fprintf(stderr, "shimblas-info: cannot tell where libshimblas is\n");
        return 1;
    }
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(info.dli_fname) + (old ? strlen(old) + 1 : 0) + 1;
    char *preload = malloc(len);
    if (!preload)
        return 1;
    snprintf(preload, len, "%s%s%s", old ? old : "", old && *old ? " " : "", info.dli_fname);
    if (setenv("LD_PRELOAD", preload, 1) != 0 || setenv("SHIMBLAS_REPORT", "1", 1) != 0) {
        perror("shimblas-info: setenv");
        return 1;
    }
    execvp(argv[first], argv + first);
    fprintf(stderr, "shimblas-info: cannot run %s: ", argv[first]);
    perror(NULL);
    return 127;
}
