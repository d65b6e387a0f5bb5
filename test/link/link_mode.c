/* A program linked with -lshimblas alone (no other BLAS on its link line) that also calls
 * routines shimblas does not implement: they must link and come from the CPU BLAS. */
#include <math.h>
#include <stdio.h>

#include "shimblas.h"

float cblas_sdot(const int n, const float *x, const int incx, const float *y, const int incy);
void ssyrk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *beta, float *c, const int *ldc, size_t, size_t);

int main(void)
{
    enum { N = 5, K = 3 };
    float a[N * K], c[N * N], x[N], y[N];
    for (int i = 0; i < N * K; i++)
        a[i] = (float)((i * 7) % 5) - 2.0f;
    for (int i = 0; i < N; i++) {
        x[i] = (float)i + 0.5f;
        y[i] = 2.0f - (float)i;
    }
    int failures = 0;

    double want = 0;
    for (int i = 0; i < N; i++)
        want += (double)x[i] * y[i];
    float dot = cblas_sdot(N, x, 1, y, 1);
    if (fabs(dot - want) > 1e-4) {
        printf("FAIL cblas_sdot: %g, want %g\n", dot, want);
        failures++;
    }

    /* C := A A^T (upper triangle), A is N x K column-major */
    int n = N, k = K;
    float one = 1.0f, zero = 0.0f;
    ssyrk_("U", "N", &n, &k, &one, a, &n, &zero, c, &n, 1, 1);
    for (int j = 0; j < N; j++)
        for (int i = 0; i <= j; i++) {
            double s = 0;
            for (int l = 0; l < K; l++)
                s += (double)a[l * N + i] * a[l * N + j];
            if (fabs(c[j * N + i] - s) > 1e-4) {
                printf("FAIL ssyrk_ (%d,%d): %g, want %g\n", i, j, c[j * N + i], s);
                failures++;
            }
        }

    float g[N * N];
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, N, N, K, 1.0f, a, N, a, N, 0.0f, g, N);
    for (int j = 0; j < N; j++)
        for (int i = 0; i <= j; i++)
            if (fabs(g[j * N + i] - c[j * N + i]) > 1e-4) {
                printf("FAIL cblas_sgemm (%d,%d): %g, ssyrk gave %g\n", i, j, g[j * N + i], c[j * N + i]);
                failures++;
            }
    shimblas_stats st;
    shimblas_get_stats(&st);
    if (st.sgemm.calls != 1 || st.sgemm.gpu + st.sgemm.cpu != 1) {
        printf("FAIL: shimblas did not serve the sgemm call (calls=%llu)\n", st.sgemm.calls);
        failures++;
    }
    printf("link_mode (shimblas %s): %d failures\n", shimblas_version(), failures);
    return failures != 0;
}
