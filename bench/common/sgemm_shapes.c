#include "sgemm_shapes.h"

#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>

bench_shape *bench_read_shapes(const char *path, const char *who, int *count, size_t max[3])
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "%s: %s: ", who, path);
        perror(NULL);
        return NULL;
    }
    int n_shapes = 0, cap = 64;
    bench_shape *shapes = malloc(sizeof *shapes * (size_t)cap);
    if (!shapes) {
        perror(who);
        fclose(in);
        return NULL;
    }
    max[0] = max[1] = max[2] = 1;
    const char *pad_env = getenv("BENCH_LD_PAD");
    const int pad = pad_env ? atoi(pad_env) : 0;
    if (pad < 0) {
        fprintf(stderr, "%s: BENCH_LD_PAD=%s: must be 0 or more\n", who, pad_env);
        free(shapes);
        fclose(in);
        return NULL;
    }
    const char *beta_env = getenv("BENCH_BETA");
    const float beta = beta_env ? strtof(beta_env, NULL) : 0.0f;
    int m, n, k;
    char ta, tb;
    while (fscanf(in, "%d %d %d %c %c", &m, &n, &k, &ta, &tb) == 5) {
        if (m < 1 || n < 1 || k < 1) {
            fprintf(stderr, "%s: shape %d %d %d: dimensions must be positive\n", who, m, n, k);
            free(shapes);
            fclose(in);
            return NULL;
        }
        if (n_shapes == cap) {
            bench_shape *more = realloc(shapes, sizeof *shapes * (size_t)(cap *= 2));
            if (!more) {
                perror(who);
                free(shapes);
                fclose(in);
                return NULL;
            }
            shapes = more;
        }
        shapes[n_shapes++] = (bench_shape){m, n, k, ta == 'T', tb == 'T', pad, beta};
        /* an operand of r rows (its leading dimension r + pad) and c columns */
        const size_t sizes[3] = {ta == 'T' ? (size_t)(k + pad) * m : (size_t)(m + pad) * k,
                                 tb == 'T' ? (size_t)(n + pad) * k : (size_t)(k + pad) * n, (size_t)(m + pad) * n};
        for (int i = 0; i < 3; i++)
            if (sizes[i] > max[i])
                max[i] = sizes[i];
    }
    fclose(in);
    *count = n_shapes;
    return shapes;
}

void bench_cublas_sgemm(cublasHandle_t handle, const shim_sgemm_args *p, const char *who)
{
    const float one = 1.0f;
    const cublasStatus_t st =
        cublasGemmEx(handle, p->transa ? CUBLAS_OP_T : CUBLAS_OP_N, p->transb ? CUBLAS_OP_T : CUBLAS_OP_N, p->m, p->n,
                     p->k, &one, p->a, CUDA_R_32F, (int)p->lda, p->b, CUDA_R_32F, (int)p->ldb, &p->beta, p->c, CUDA_R_32F,
                     (int)p->ldc, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s: cuBLAS status %d\n", who, (int)st);
        exit(1);
    }
}

bench_sgemm_rig bench_sgemm_rig_start(const size_t max[3], const char *who)
{
    bench_sgemm_rig r;
    BENCH_CUDA(cudaStreamCreate(&r.stream));
    if (cublasCreate(&r.handle) != CUBLAS_STATUS_SUCCESS || cublasSetStream(r.handle, r.stream) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s: cuBLAS could not start\n", who);
        exit(1);
    }
    BENCH_CUDA(cudaMalloc((void **)&r.a, sizeof(float) * max[0]));
    BENCH_CUDA(cudaMalloc((void **)&r.b, sizeof(float) * max[1]));
    BENCH_CUDA(cudaMalloc((void **)&r.c, sizeof(float) * max[2]));
    bench_fill_device(r.a, max[0], 1);
    bench_fill_device(r.b, max[1], 2);
    bench_fill_device(r.c, max[2], 3); /* read where BENCH_BETA is set */
    return r;
}

void bench_sgemm_rig_stop(bench_sgemm_rig *rig)
{
    BENCH_CUDA(cudaFree(rig->a));
    BENCH_CUDA(cudaFree(rig->b));
    BENCH_CUDA(cudaFree(rig->c));
}
