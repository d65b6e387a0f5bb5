/* A small, ordinary CBLAS program: fit a ridge regression to synthetic data.
 *   G = X^T X + lambda I      (cblas_sgemm)
 *   r = X^T y                 (cblas_sgemv, transposed)
 *   solve G w = r by conjugate gradients: G p (cblas_sgemv), dots and updates (cblas_sdot,
 *   cblas_saxpy, cblas_sscal)
 * It knows nothing of shimblas: run it under LD_PRELOAD=libshimblas.so with SHIMBLAS_VERBOSE=1
 * to see which calls the shim served and where. Prints the fit's error against the true weights. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static float uniform(unsigned long long *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(*s >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

int main(int argc, char **argv)
{
    int samples = argc > 1 ? atoi(argv[1]) : 4096, features = argc > 2 ? atoi(argv[2]) : 512;
    const float lambda = 1e-2f;
    unsigned long long seed = 42;
    float *X = malloc(sizeof(float) * (size_t)samples * features); /* row-major samples x features */
    float *y = malloc(sizeof(float) * (size_t)samples);
    float *w_true = malloc(sizeof(float) * (size_t)features);
    float *G = malloc(sizeof(float) * (size_t)features * features);
    float *r = malloc(sizeof(float) * features), *w = calloc((size_t)features, sizeof(float));
    float *p = malloc(sizeof(float) * features), *q = malloc(sizeof(float) * features);
    for (size_t i = 0; i < (size_t)samples * features; i++)
        X[i] = uniform(&seed);
    for (int j = 0; j < features; j++)
        w_true[j] = uniform(&seed);
    /* y = X w_true + noise */
    cblas_sgemv(CblasRowMajor, CblasNoTrans, samples, features, 1.0f, X, features, w_true, 1, 0.0f, y, 1);
    for (int i = 0; i < samples; i++)
        y[i] += 0.01f * uniform(&seed);

    /* normal equations */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, features, features, samples, 1.0f, X, features, X,
                features, 0.0f, G, features);
    for (int j = 0; j < features; j++)
        G[(size_t)j * features + j] += lambda * samples;
    cblas_sgemv(CblasRowMajor, CblasTrans, samples, features, 1.0f, X, features, y, 1, 0.0f, r, 1);

    /* conjugate gradients from w = 0: residual r, direction p */
    cblas_scopy(features, r, 1, p, 1);
    float rr = cblas_sdot(features, r, 1, r, 1), rr0 = rr;
    int iter = 0;
    while (iter < 200 && rr > 1e-10f * rr0) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, features, features, 1.0f, G, features, p, 1, 0.0f, q, 1);
        float step = rr / cblas_sdot(features, p, 1, q, 1);
        cblas_saxpy(features, step, p, 1, w, 1);
        cblas_saxpy(features, -step, q, 1, r, 1);
        float rr_next = cblas_sdot(features, r, 1, r, 1);
        cblas_sscal(features, rr_next / rr, p, 1);
        cblas_saxpy(features, 1.0f, r, 1, p, 1);
        rr = rr_next;
        iter++;
    }
    double err = 0, norm = 0;
    for (int j = 0; j < features; j++) {
        err += ((double)w[j] - w_true[j]) * ((double)w[j] - w_true[j]);
        norm += (double)w_true[j] * w_true[j];
    }
    printf("ridge regression: %d samples x %d features, %d CG iterations, "
           "relative residual %.2e, |w - w_true| / |w_true| = %.3e\n",
           samples, features, iter, sqrt(rr / rr0), sqrt(err / norm));
    int ok = sqrt(err / norm) < 0.05;
    printf("%s\n", ok ? "fit recovered the true weights" : "fit FAILED to recover the true weights");
    free(X); free(y); free(w_true); free(G); free(r); free(w); free(p); free(q);
    return !ok;
}
