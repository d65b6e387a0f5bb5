/* One 2048^3 sgemm on malloc'd memory in auto mode: large enough that the cost model is asked (and
 * so measured or read from its cache). Checks sampled entries against float64; prints where it ran.
 * Exit 0 when the product is right, 1 when not, 77 without a usable GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "shimblas.h"

int main(void)
{
    if (!shimblas_gpu_available()) {
        printf("SKIP: no usable GPU\n");
        return 77;
    }
    const int n = 2048;
    float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n), *c = malloc(sizeof(float) * n * n);
    unsigned s = 7;
    for (long i = 0; i < (long)n * n; i++) {
        s = s * 1103515245u + 12345u;
        a[i] = (float)((s >> 8) % 2001) / 1000.0f - 1.0f;
        s = s * 1103515245u + 12345u;
        b[i] = (float)((s >> 8) % 2001) / 1000.0f - 1.0f;
        c[i] = NAN;
    }
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    int bad = 0;
    for (int t = 0; t < 64; t++) {
        int i = (t * 997) % n, j = (t * 613) % n;
        double want = 0, scale = 0;
        for (int k = 0; k < n; k++) {
            want += (double)a[i + (long)k * n] * b[k + (long)j * n];
            scale += fabs((double)a[i + (long)k * n] * b[k + (long)j * n]);
        }
        bad += !(fabs(c[i + (long)j * n] - want) <= 1e-5 * scale + 1e-6);
    }
    shimblas_stats st;
    shimblas_get_stats(&st);
    printf("%s: 2048^3 sgemm in auto mode on the %s, %d of 64 sampled entries wrong\n", bad ? "FAIL" : "PASS",
           st.sgemm.gpu ? "GPU" : "CPU", bad);
    return bad != 0;
}
