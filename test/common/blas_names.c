#include "blas_names.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int test_load_provider(void)
{
    const char *path = getenv("SHIMBLAS_TEST_PROVIDER");
    if (!path || !*path || access(path, R_OK) != 0) {
        if (strcmp(TEST_INTERFACE, "LP64") == 0)
            return 0; /* the LP64 names' CPU BLAS is found without help */
        printf("SKIP: no library holding the %s names (SHIMBLAS_TEST_PROVIDER=%s)\n", TEST_INTERFACE,
               path ? path : "");
        exit(77);
    }
    if (!dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
        printf("cannot load SHIMBLAS_TEST_PROVIDER=%s: %s\n", path, dlerror());
        return -1;
    }
    return 0;
}
