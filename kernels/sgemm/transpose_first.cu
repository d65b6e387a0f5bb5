/* K-contiguous operands copied R-contiguous first. The FP32 kernels are fastest when both operands
 * are R-contiguous (NT: A not transposed, B transposed): every tile then reaches shared memory by
 * 16-byte copies in the [l][r] layout the inner loops read, with no transposing stores. A
 * K-contiguous operand costs the kernels 5-23 % (H200, 8192^3: NT 50.3, NN 47.8, TT 43.5, TN 41.6
 * TFLOP/s), while copying it once costs two passes over its bytes at DRAM speed: 0.2-1.4 % of a
 * large square's time. So where the cost model says it pays, this variant transposes the
 * K-contiguous operands into the workspace and hands the resulting problem to the FP32 ladder.
 * The products are the same FMAs in the same k order as any FP32 plan: only where the operands'
 * bytes sit changes. */
#include <algorithm>
#include <cmath>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

constexpr int TILE = 32, ROWS_PER_PASS = 8;
/* the copied operand's leading dimension is a multiple of this (128-byte rows) */
constexpr int64_t LD_ALIGN = 32;
constexpr size_t WORK_ALIGN = 256;
/* a transposing copy: one launch and two passes over the operand's bytes (H200: 5 us for 4 MB) */
constexpr double COPY_LAUNCH_S = 2.0e-6;
constexpr double COPY_BYTES_PER_S = 3.0e12;
/* the copied form must beat the direct one by this factor (the model's case factors are
 * measured on squares) */
constexpr double COPY_MARGIN = 0.97;

/* dst(r, l) = src(r, l) for r < rows, l < k, where src is K-contiguous (element (r, l) at
 * src[r * lds + l]) and dst R-contiguous (at dst[l * ldd + r]): a 32 x 32 tile a block, read along
 * l and written along r through shared memory */
__global__ void __launch_bounds__(TILE *ROWS_PER_PASS)
    transpose_kernel(const float *__restrict__ src, int64_t lds, float *__restrict__ dst, int64_t ldd, int rows,
                     int k)
{
    __shared__ float tile[TILE][TILE + 1];
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    const int64_t l0 = (int64_t)blockIdx.x * TILE;
    const int64_t rtiles = ((int64_t)rows + TILE - 1) / TILE;
    for (int64_t rt = blockIdx.y; rt < rtiles; rt += gridDim.y) {
        const int64_t r0 = (int64_t)rt * TILE;
#pragma unroll
        for (int i = 0; i < TILE; i += ROWS_PER_PASS) {
            const int64_t r = r0 + ty + i, l = l0 + tx;
            if (r < rows && l < k)
                tile[ty + i][tx] = src[r * lds + l];
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < TILE; i += ROWS_PER_PASS) {
            const int64_t l = l0 + ty + i, r = r0 + tx;
            if (r < rows && l < k)
                dst[l * ldd + r] = tile[tx][ty + i];
        }
        __syncthreads();
    }
}

int64_t copied_ld(int rows)
{
    return (rows + LD_ALIGN - 1) / LD_ALIGN * LD_ALIGN;
}

size_t copied_bytes(int rows, int k)
{
    return sizeof(float) * (size_t)copied_ld(rows) * (size_t)k;
}

double copy_seconds(int rows, int k)
{
    return COPY_LAUNCH_S + 2.0 * sizeof(float) * (double)rows * (double)k / COPY_BYTES_PER_S;
}

/* the K-contiguous operands: bit 0 A (transa), bit 1 B (not transb) */
int k_contiguous(const shim_sgemm_args *p)
{
    return (p->transa ? COPY_A : 0) | (p->transb ? 0 : COPY_B);
}

/* the problem with the operands in `copies` flipped to R-contiguous (pointers still the caller's:
 * enough for planning, which looks at the 16-byte capability of K-contiguous operands only) */
shim_sgemm_args copied_form(const shim_sgemm_args *p, int copies)
{
    shim_sgemm_args q = *p;
    if (copies & COPY_A) {
        q.transa = 0;
        q.lda = copied_ld(p->m);
    }
    if (copies & COPY_B) {
        q.transb = 1;
        q.ldb = copied_ld(p->n);
    }
    return q;
}

double copies_seconds(const shim_sgemm_args *p, int copies)
{
    return ((copies & COPY_A) ? copy_seconds(p->m, p->k) : 0.0) +
           ((copies & COPY_B) ? copy_seconds(p->n, p->k) : 0.0);
}

/* the workspace the copies take, before the inner plan's */
size_t copies_bytes(const shim_sgemm_args *p, int copies)
{
    return ((copies & COPY_A) ? copied_bytes(p->m, p->k) : 0) + ((copies & COPY_B) ? copied_bytes(p->n, p->k) : 0);
}

/* which operands this variant copies: the model's choice, or every K-contiguous one when the model
 * would copy none (the variant named by SHIMBLAS_SGEMM_KERNEL) */
int copies_for(const shim_sgemm_args *p)
{
    double direct;
    select_fp32_direct(p, &direct);
    const int chosen = copies_that_pay(p, direct);
    return chosen ? chosen : k_contiguous(p);
}

cudaError_t copy_operand(const float *src, int64_t lds, float *dst, int rows, int k, cudaStream_t stream)
{
    const dim3 grid((unsigned)((k + TILE - 1) / TILE), (unsigned)std::min<int64_t>(((int64_t)rows + TILE - 1) / TILE, 65535));
    transpose_kernel<<<grid, TILE * ROWS_PER_PASS, 0, stream>>>(src, lds, dst, copied_ld(rows), rows, k);
    return cudaGetLastError();
}

char *aligned_up(void *p)
{
    return (char *)(((uintptr_t)p + WORK_ALIGN - 1) / WORK_ALIGN * WORK_ALIGN);
}

} // namespace

int copies_that_pay(const shim_sgemm_args *p, double direct)
{
    const int kc = k_contiguous(p);
    if (!kc || p->math != SHIM_SGEMM_FP32 || p->k <= 0 || p->alpha == 0.0f)
        return 0;
    if (direct <= 0.0) /* the tiny products: launch latency is all there is */
        return 0;
    int best = 0;
    double best_seconds = COPY_MARGIN * direct;
    for (int copies = 1; copies <= (COPY_A | COPY_B); ++copies) {
        if ((copies & kc) != copies)
            continue;
        const double seconds = transpose_first_seconds(p, copies);
        if (seconds < best_seconds) {
            best_seconds = seconds;
            best = copies;
        }
    }
    return best;
}

double transpose_first_seconds(const shim_sgemm_args *p, int copies)
{
    const shim_sgemm_args q = copied_form(p, copies);
    double seconds;
    select_fp32_direct(&q, &seconds);
    /* a tiny copied form (naive, no estimate): a copy's launch costs more than it could save */
    if (seconds <= 0.0)
        return INFINITY;
    return seconds + copies_seconds(p, copies);
}

const shim_sgemm_variant *transpose_first_inner(const shim_sgemm_args *p, int *copies, shim_sgemm_args *q)
{
    *copies = copies_for(p);
    *q = copied_form(p, *copies);
    double seconds;
    return select_fp32_direct(q, &seconds);
}

size_t transpose_first_work(const shim_sgemm_args *p)
{
    int copies;
    shim_sgemm_args q;
    const shim_sgemm_variant *inner = transpose_first_inner(p, &copies, &q);
    return WORK_ALIGN + copies_bytes(p, copies) + shim_sgemm_work_bytes(inner, &q);
}

cudaError_t transpose_first_launch(const shim_sgemm_args *p)
{
    int copies;
    shim_sgemm_args q;
    const shim_sgemm_variant *inner = transpose_first_inner(p, &copies, &q);
    char *work = aligned_up(p->work);
    const char *end = (const char *)p->work + p->work_bytes;
    if (work + copies_bytes(p, copies) > end)
        return cudaErrorInvalidValue;
    /* each operand to copy: its source, and where the copied form's pointer goes */
    const struct {
        int bit;
        const float *src;
        int64_t ld;
        int rows;
        const float **dst;
    } operands[] = {{COPY_A, p->a, p->lda, p->m, &q.a}, {COPY_B, p->b, p->ldb, p->n, &q.b}};
    for (const auto &o : operands) {
        if (!(copies & o.bit))
            continue;
        float *dst = reinterpret_cast<float *>(work);
        const cudaError_t err = copy_operand(o.src, o.ld, dst, o.rows, p->k, p->stream);
        if (err != cudaSuccess)
            return err;
        *o.dst = dst;
        work += copied_bytes(o.rows, p->k);
    }
    q.work = work;
    q.work_bytes = (size_t)(end - work);
    if (shim_sgemm_work_bytes(inner, &q) > q.work_bytes)
        return cudaErrorInvalidValue;
    return inner->launch(&q);
}

} // namespace sgemm
