/* Error exits of all four entry points: every info number in both layouts, reported through the
 * program's own cblas_xerbla / xerbla_ (defined below, so they win over anything else), in
 * reference order, with no output touched. */
#include <stdio.h>
#include <string.h>

#include "shimblas.h"

extern int RowMajorStrg;

static int last_info;
static char last_rout[32];
static int reports;

/* reference CBLAS's cblas_xerbla maps argument numbers of a row-major call back from the swapped
 * Fortran call; the netlib testers do the same, and so does this test */
void cblas_xerbla(int info, const char *rout, const char *form, ...)
{
    (void)form;
    if (RowMajorStrg) {
        if (strstr(rout, "gemm")) {
            if (info == 5) info = 4; else if (info == 4) info = 5;
            else if (info == 11) info = 9; else if (info == 9) info = 11;
        } else if (strstr(rout, "gemv")) {
            if (info == 4) info = 3; else if (info == 3) info = 4;
        }
    }
    last_info = info;
    snprintf(last_rout, sizeof last_rout, "%s", rout);
    reports++;
}

void xerbla_(const char *srname, const int *info, size_t len)
{
    last_info = *info;
    snprintf(last_rout, sizeof last_rout, "%.*s", (int)len, srname);
    reports++;
}

static int failures, cases;
static float A[64], B[64], X[16], Y[16], C[64];

static void expect(const char *what, int info, const char *rout, int before_reports, const float *out,
                   const float *saved, size_t n)
{
    cases++;
    int ok = reports == before_reports + (info ? 1 : 0);
    if (info)
        ok = ok && last_info == info && strcmp(last_rout, rout) == 0;
    if (info && memcmp(out, saved, n * sizeof(float)) != 0) {
        printf("FAIL %s: output touched on an error exit\n", what);
        failures++;
        return;
    }
    if (!ok) {
        printf("FAIL %s: want info %d from %s, got %d from %s (%d reports)\n", what, info, rout,
               reports > before_reports ? last_info : 0, last_rout, reports - before_reports);
        failures++;
    }
}

#define CHECK_CBLAS_GEMV(info, lay, ta, m, n, lda, incx, incy)                                           \
    do {                                                                                             \
        float saved[16];                                                                             \
        memcpy(saved, Y, sizeof Y);                                                                  \
        int r = reports;                                                                             \
        cblas_sgemv(lay, ta, m, n, 1.0f, A, lda, X, incx, 0.5f, Y, incy);                            \
        expect("cblas_sgemv " #lay " " #ta " " #m " " #n " " #lda " " #incx " " #incy, info,         \
               "cblas_sgemv", r, Y, saved, 16);                                                      \
    } while (0)

#define CHECK_CBLAS_GEMM(info, lay, ta, tb, m, n, k, lda, ldb, ldc)                                      \
    do {                                                                                             \
        float saved[64];                                                                             \
        memcpy(saved, C, sizeof C);                                                                  \
        int r = reports;                                                                             \
        cblas_sgemm(lay, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.5f, C, ldc);                       \
        expect("cblas_sgemm " #lay " " #ta " " #tb " " #m " " #n " " #k " " #lda " " #ldb " " #ldc,  \
               info, "cblas_sgemm", r, C, saved, 64);                                                \
    } while (0)

#define CHECK_F77_GEMV(info, t, m, n, lda, incx, incy)                                                   \
    do {                                                                                             \
        float saved[16], al = 1.0f, be = 0.5f;                                                       \
        int m_ = m, n_ = n, lda_ = lda, incx_ = incx, incy_ = incy;                                  \
        memcpy(saved, Y, sizeof Y);                                                                  \
        int r = reports;                                                                             \
        sgemv_(t, &m_, &n_, &al, A, &lda_, X, &incx_, &be, Y, &incy_, 1);                            \
        expect("sgemv_ " t " " #m " " #n " " #lda " " #incx " " #incy, info, "SGEMV ", r, Y, saved,  \
               16);                                                                                  \
    } while (0)

#define CHECK_F77_GEMM(info, ta, tb, m, n, k, lda, ldb, ldc)                                             \
    do {                                                                                             \
        float saved[64], al = 1.0f, be = 0.5f;                                                       \
        int m_ = m, n_ = n, k_ = k, lda_ = lda, ldb_ = ldb, ldc_ = ldc;                              \
        memcpy(saved, C, sizeof C);                                                                  \
        int r = reports;                                                                             \
        sgemm_(ta, tb, &m_, &n_, &k_, &al, A, &lda_, B, &ldb_, &be, C, &ldc_, 1, 1);                 \
        expect("sgemm_ " ta " " tb " " #m " " #n " " #k " " #lda " " #ldb " " #ldc, info, "SGEMM ",  \
               r, C, saved, 64);                                                                     \
    } while (0)

static void gemv_checks(void)
{
    const enum CBLAS_ORDER col = CblasColMajor, row = CblasRowMajor;
    const enum CBLAS_TRANSPOSE bad = (enum CBLAS_TRANSPOSE)0;
    CHECK_CBLAS_GEMV(1, (enum CBLAS_ORDER)0, CblasNoTrans, 2, 2, 2, 1, 1);
    CHECK_CBLAS_GEMV(1, (enum CBLAS_ORDER)103, CblasNoTrans, -1, 2, 0, 0, 0);
    for (int l = 0; l < 2; l++) {
        enum CBLAS_ORDER lay = l ? row : col;
        CHECK_CBLAS_GEMV(2, lay, bad, 2, 2, 2, 1, 1);
        CHECK_CBLAS_GEMV(2, lay, bad, -1, -1, 0, 0, 0);
        CHECK_CBLAS_GEMV(3, lay, CblasNoTrans, -1, 2, 2, 1, 1);
        /* both M and N bad: row-major checks the swapped Fortran call, so N is reported first */
        CHECK_CBLAS_GEMV(l ? 4 : 3, lay, CblasTrans, -1, -1, 0, 0, 0);
        CHECK_CBLAS_GEMV(4, lay, CblasConjTrans, 2, -1, 2, 1, 1);
        CHECK_CBLAS_GEMV(4, lay, CblasNoTrans, 0, -1, 0, 0, 0);
        CHECK_CBLAS_GEMV(9, lay, CblasTrans, 2, 2, 2, 0, 1);
        CHECK_CBLAS_GEMV(9, lay, CblasTrans, 2, 2, 2, 0, 0);
        CHECK_CBLAS_GEMV(12, lay, CblasNoTrans, 2, 2, 2, 1, 0);
        CHECK_CBLAS_GEMV(0, lay, CblasNoTrans, 0, 0, 1, 1, 1);
    }
    /* lda bounds: column-major max(1,M), row-major max(1,N) */
    CHECK_CBLAS_GEMV(7, col, CblasNoTrans, 3, 2, 2, 1, 1);
    CHECK_CBLAS_GEMV(0, col, CblasNoTrans, 3, 2, 3, 1, 1);
    CHECK_CBLAS_GEMV(7, col, CblasTrans, 0, 2, 0, 1, 1);
    CHECK_CBLAS_GEMV(7, row, CblasNoTrans, 2, 3, 2, 1, 1);
    CHECK_CBLAS_GEMV(0, row, CblasNoTrans, 3, 2, 2, 1, 1);
    CHECK_CBLAS_GEMV(7, row, CblasTrans, 2, 0, 0, 1, 1);

    CHECK_F77_GEMV(1, "X", 2, 2, 2, 1, 1);
    CHECK_F77_GEMV(1, "/", -1, -1, 0, 0, 0);
    CHECK_F77_GEMV(2, "n", -1, 2, 2, 1, 1);
    CHECK_F77_GEMV(3, "t", 2, -1, 2, 1, 1);
    CHECK_F77_GEMV(6, "C", 3, 2, 2, 1, 1);
    CHECK_F77_GEMV(6, "N", 0, 2, 0, 1, 1);
    CHECK_F77_GEMV(8, "T", 2, 2, 2, 0, 1);
    CHECK_F77_GEMV(11, "N", 2, 2, 2, -1, 0);
    CHECK_F77_GEMV(0, "N", 2, 2, 2, -1, -3);
}

static void gemm_checks(void)
{
    const enum CBLAS_ORDER col = CblasColMajor, row = CblasRowMajor;
    const enum CBLAS_TRANSPOSE N = CblasNoTrans, T = CblasTrans, H = CblasConjTrans;
    const enum CBLAS_TRANSPOSE bad = (enum CBLAS_TRANSPOSE)114;
    CHECK_CBLAS_GEMM(1, (enum CBLAS_ORDER)100, N, N, 2, 2, 2, 2, 2, 2);
    for (int l = 0; l < 2; l++) {
        enum CBLAS_ORDER lay = l ? row : col;
        CHECK_CBLAS_GEMM(2, lay, bad, N, 2, 2, 2, 2, 2, 2);
        CHECK_CBLAS_GEMM(2, lay, bad, bad, -1, 2, 2, 2, 2, 2);
        CHECK_CBLAS_GEMM(3, lay, T, bad, 2, 2, 2, 2, 2, 2);
        CHECK_CBLAS_GEMM(3, lay, H, bad, -1, -1, -1, 0, 0, 0);
        CHECK_CBLAS_GEMM(4, lay, N, N, -1, 2, 2, 2, 2, 2);
        CHECK_CBLAS_GEMM(l ? 5 : 4, lay, T, H, -1, -1, -1, 0, 0, 0);
        CHECK_CBLAS_GEMM(5, lay, N, T, 2, -1, 2, 2, 2, 2);
        CHECK_CBLAS_GEMM(5, lay, N, T, 0, -1, -1, 0, 0, 0);
        CHECK_CBLAS_GEMM(6, lay, T, N, 2, 2, -1, 2, 2, 2);
        CHECK_CBLAS_GEMM(6, lay, T, N, 2, 2, -1, 0, 0, 0);
        CHECK_CBLAS_GEMM(0, lay, T, T, 0, 0, 0, 1, 1, 1);
    }
    /* leading-dimension bounds, column-major: lda >= max(1, N? M : K), ldb >= max(1, N? K : N),
     * ldc >= max(1, M); here M = 4, N = 3, K = 2 */
    CHECK_CBLAS_GEMM(9, col, N, N, 4, 3, 2, 3, 2, 4);
    CHECK_CBLAS_GEMM(0, col, N, N, 4, 3, 2, 4, 2, 4);
    CHECK_CBLAS_GEMM(9, col, T, N, 4, 3, 2, 1, 2, 4);
    CHECK_CBLAS_GEMM(0, col, T, N, 4, 3, 2, 2, 2, 4);
    CHECK_CBLAS_GEMM(11, col, N, N, 4, 3, 2, 4, 1, 4);
    CHECK_CBLAS_GEMM(11, col, N, T, 4, 3, 2, 4, 2, 4);
    CHECK_CBLAS_GEMM(0, col, N, T, 4, 3, 2, 4, 3, 4);
    CHECK_CBLAS_GEMM(14, col, N, N, 4, 3, 2, 4, 2, 3);
    /* row-major: lda >= max(1, N? K : M), ldb >= max(1, N? N : K), ldc >= max(1, N) */
    CHECK_CBLAS_GEMM(9, row, N, N, 4, 3, 2, 1, 3, 3);
    CHECK_CBLAS_GEMM(0, row, N, N, 4, 3, 2, 2, 3, 3);
    CHECK_CBLAS_GEMM(9, row, T, N, 4, 3, 2, 3, 3, 3);
    CHECK_CBLAS_GEMM(0, row, T, N, 4, 3, 2, 4, 3, 3);
    CHECK_CBLAS_GEMM(11, row, N, N, 4, 3, 2, 2, 2, 3);
    CHECK_CBLAS_GEMM(11, row, N, T, 4, 3, 2, 2, 1, 3);
    CHECK_CBLAS_GEMM(0, row, N, T, 4, 3, 2, 2, 2, 3);
    CHECK_CBLAS_GEMM(14, row, N, N, 4, 3, 2, 2, 3, 2);
    CHECK_CBLAS_GEMM(0, row, N, N, 4, 3, 2, 2, 3, 3);
    /* order: column-major checks lda before ldb; row-major hands B first to the Fortran order,
     * so ldb (11) is reported before lda (9), exactly as reference CBLAS does */
    CHECK_CBLAS_GEMM(9, col, N, N, 4, 3, 2, 1, 1, 1);
    CHECK_CBLAS_GEMM(11, row, N, N, 4, 3, 2, 1, 1, 1);
    CHECK_CBLAS_GEMM(5, row, N, N, -1, -1, 2, 1, 1, 1);
    CHECK_CBLAS_GEMM(4, col, N, N, -1, -1, 2, 1, 1, 1);

    CHECK_F77_GEMM(1, "x", "N", 2, 2, 2, 2, 2, 2);
    CHECK_F77_GEMM(2, "N", "/", 2, 2, 2, 2, 2, 2);
    CHECK_F77_GEMM(3, "n", "t", -1, 2, 2, 2, 2, 2);
    CHECK_F77_GEMM(4, "T", "c", 2, -1, 2, 2, 2, 2);
    CHECK_F77_GEMM(5, "C", "N", 2, 2, -1, 2, 2, 2);
    CHECK_F77_GEMM(8, "N", "N", 4, 3, 2, 3, 2, 4);
    CHECK_F77_GEMM(8, "T", "N", 4, 3, 2, 1, 2, 4);
    CHECK_F77_GEMM(10, "N", "N", 4, 3, 2, 4, 1, 4);
    CHECK_F77_GEMM(10, "N", "T", 4, 3, 2, 4, 2, 4);
    CHECK_F77_GEMM(13, "N", "N", 4, 3, 2, 4, 2, 3);
    CHECK_F77_GEMM(0, "T", "T", 4, 3, 2, 2, 3, 4);
}

int main(void)
{
    for (int i = 0; i < 64; i++) {
        A[i] = (float)(i % 7) - 3.0f;
        B[i] = (float)(i % 5) - 2.0f;
        C[i] = (float)(i % 3);
    }
    for (int i = 0; i < 16; i++) {
        X[i] = (float)(i % 4) - 1.5f;
        Y[i] = (float)i;
    }
    shimblas_reset_stats();
    gemv_checks();
    gemm_checks();
    shimblas_stats st;
    shimblas_get_stats(&st);
    int reported = reports;
    if ((int)(st.sgemv.errors + st.sgemm.errors) != reported) {
        printf("FAIL: counters show %llu errors, xerbla saw %d\n", st.sgemv.errors + st.sgemm.errors,
               reported);
        failures++;
    }
    if (RowMajorStrg != 0) {
        printf("FAIL: RowMajorStrg left set after a call\n");
        failures++;
    }
    printf("test_checks: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}
