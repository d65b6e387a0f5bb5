/* A program that loads the CUDA driver after its first BLAS call: shimblas must notice it, tell
 * the driver's device pointers from host ones from then on, and never hand a device pointer to the
 * CPU BLAS. Runs on any machine with a stand-in driver (fake_cuda_driver.c, its path in
 * SHIMBLAS_TEST_FAKE_DRIVER): its "device memory" is host memory the test marks, and since no GPU
 * can serve it, a call on it must stop the program with one line naming the call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shimblas.h"

extern char end[]; /* the end of the program's image, from the linker */

static int failures;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
    failures += !ok;
}

/* C := A B for 3 x 3 all-ones A and B: every entry 3 */
static int product_ok(float *a, float *b, float *c)
{
    for (int i = 0; i < 9; i++)
        a[i] = b[i] = 1.0f, c[i] = -1.0f;
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 3, 3, 3, 1.0f, a, 3, b, 3, 0.0f, c, 3);
    for (int i = 0; i < 9; i++)
        if (c[i] != 3.0f)
            return 0;
    return 1;
}

static unsigned long long cpu_calls(void)
{
    shimblas_stats st;
    shimblas_get_stats(&st);
    return st.sgemm.cpu;
}

int main(void)
{
    const char *fake = getenv("SHIMBLAS_TEST_FAKE_DRIVER");
    if (!fake) {
        printf("SKIP: SHIMBLAS_TEST_FAKE_DRIVER not set\n");
        return 77;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    /* memory no host range check can claim: only the driver can tell what it is */
    float *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    float *a = m, *b = m + 1024, *c = m + 2048;
    check(product_ok(a, b, c), "first call, no driver in the process: computed");

    /* something else loaded after the first call: the watch moves on */
    void *other = dlopen("libresolv.so.2", RTLD_NOW | RTLD_LOCAL);
    check(other != NULL && product_ok(a, b, c), "a library loaded after the first call: still computed");

    void *driver = dlopen(fake, RTLD_NOW | RTLD_LOCAL);
    if (!driver) {
        printf("FAIL: cannot load %s: %s\n", fake, dlerror());
        return 1;
    }
    void (*mark)(const void *, size_t) = (void (*)(const void *, size_t))dlsym(driver, "fake_cuda_mark_device");
    void (*initialise)(void) = (void (*)(void))dlsym(driver, "fake_cuda_initialise");
    unsigned long long (*queries)(void) = (unsigned long long (*)(void))dlsym(driver, "fake_cuda_queries");
    mark(m, 1 << 20);

    unsigned long long before = cpu_calls(), q0 = queries();
    check(product_ok(a, b, c) && cpu_calls() == before + 1,
          "driver loaded but not initialised: its answer (no device memory yet) keeps the call on the CPU");
    check(queries() > q0, "the driver loaded after the first call was asked about the pointers");

    initialise();
    float stack_a[9], stack_b[9], stack_c[9];
    q0 = queries();
    check(product_ok(stack_a, stack_b, stack_c), "driver initialised: stack operands computed on the CPU");
    check(queries() == q0, "stack operands recognised as host memory without asking the driver");
    float *heap = malloc(27 * sizeof(float));
    q0 = queries();
    check(product_ok(heap, heap + 9, heap + 18), "driver initialised: heap operands computed on the CPU");
    /* only memory in the brk heap (above the program's image, below the break) is known without
     * the driver; a sanitizer's malloc hands out memory it mapped itself */
    if ((uintptr_t)heap > (uintptr_t)end && (uintptr_t)heap < (uintptr_t)sbrk(0))
        check(queries() == q0, "brk heap operands recognised as host memory without asking the driver");
    else
        printf("SKIP: brk heap operands recognised without asking the driver: malloc returned %p, outside "
               "the brk heap (%p to %p; a sanitizer's allocator?)\n",
               (void *)heap, (void *)end, sbrk(0));
    static float data[27];
    q0 = queries();
    check(product_ok(data, data + 9, data + 18) && queries() == q0,
          "static operands computed on the CPU without asking the driver");
    free(heap);

    /* device memory that no GPU can serve: the call must not return as if it had run */
    fflush(stdout);
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        product_ok(a, b, c);
        _exit(0); /* reached only if the call returned */
    }
    close(pipefd[1]);
    char err[4096] = "";
    ssize_t got = 0, n;
    while ((n = read(pipefd[0], err + got, sizeof err - 1 - (size_t)got)) > 0)
        got += n;
    err[got] = 0;
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child's stderr: %s", err);
    check(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "a call on device memory no GPU can serve stops the program");
    check(strstr(err, "shimblas: fatal: sgemm") != NULL, "with one line naming the call");
    printf("test_late_driver: %d failures\n", failures);
    return failures != 0;
}
