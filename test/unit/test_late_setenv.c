#define _POSIX_C_SOURCE 200112L
/* A program may set SHIMBLAS_* variables itself before its first BLAS call (bench/call_overhead
 * sets SHIMBLAS_CPU_BLAS so that both of its sides run the same library): the library must read
 * its configuration at that first call, not when it is loaded. */
#include <stdio.h>
#include <stdlib.h>

#include "shimblas.h"

int main(void)
{
    if (setenv("SHIMBLAS_MODE", "cpu", 1) != 0)
        return 2;
    const int n = 4, one_i = 1;
    const float one = 1.0f, zero = 0.0f;
    float a[16] = {0}, x[4] = {1, 1, 1, 1}, y[4];
    sgemv_("N", &n, &n, &one, a, &n, x, &one_i, &zero, y, &one_i, 1);
    int ok = shimblas_get_mode() == SHIMBLAS_MODE_CPU;
    printf("%s: SHIMBLAS_MODE set by the program before its first call %s\n", ok ? "PASS" : "FAIL",
           ok ? "took effect" : "was ignored (the configuration was read at load)");
    return !ok;
}
