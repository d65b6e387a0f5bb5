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
#include <atomic>
#include <cmath>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"

namespace sgemm {
namespace {

/* a block copies a TILE x TILE tile (TILE rows of TILE k each) per step, its threads moving 16
 * bytes at a time: 16 threads a row of the source, then 16 threads a column of the copy */
constexpr int TILE = 64, COPY_THREADS = 256, CHUNKS = TILE / 4, LINES_PER_PASS = COPY_THREADS / CHUNKS,
              PASSES = TILE / LINES_PER_PASS;
/* the copied operand's leading dimension is a multiple of this (128-byte rows) */
constexpr int64_t LD_ALIGN = 32;
constexpr size_t WORK_ALIGN = 256;
/* the transposing copies of a call: one launch for all of them, then two passes over each
 * operand's bytes (docs/notes/sgemm.md, "transpose_first's copies in one launch": on the H200 the
 * copies of two 4 MB operands add about 4 µs to a call, two of 256 MB 318 µs) */
constexpr double COPY_LAUNCH_S = 2.0e-6;
constexpr double COPY_BYTES_PER_S = 3.0e12;
/* the copied form must beat the direct one by this factor (the model's case factors are
 * measured on squares) */
constexpr double COPY_MARGIN = 0.97;

/* one operand to copy: src K-contiguous (element (r, l) at src[r * lds + l]) to dst R-contiguous
 * (at dst[l * ldd + r]), rows x k, in tiles_l x tiles_r tiles */
struct copy_job {
    const float *src;
    int64_t lds;
    float *dst;
    int64_t ldd;
    int rows, k;
    int vec; /* src 16-byte aligned and lds % 4 == 0 */
    int64_t tiles_l, tiles;
};

struct copy_jobs {
    copy_job op[2];
    int count;
    int64_t tiles; /* of all jobs */
};

/* Each step reads U tiles along l (16-byte loads where the row has four elements left and the
 * operand is 16-byte capable, else element by element) into shared memory as [r][l], and writes
 * them along r by 16-byte stores: the copy's ldd is a multiple of 32 and its base 256-byte aligned.
 * Rows r in [rows, ldd) of the copy get zeros; rows past ldd are not written. Every load of a step
 * is issued before its first store (one after another, the tiles' loads waited out their latencies
 * in a row: 4.5 % of a large copy), so a block with two tiles (U = 2, where the tiles are more than
 * one wave of blocks) waits one round of latency for both, where a second wave of blocks waited a
 * second (docs/notes/sgemm.md, "the copy's tiles two to a block"). The inner plan's kernel is
 * launched as a programmatic dependent of the copy, allowed as each block ends (not at its start:
 * placed among running copy blocks, a one-wave plan's blocks were packed two to an SM on half the
 * SMs and ran 1.8x slower, docs/notes/sgemm.md); it waits for the copy at its top. */
template <int U>
__global__ void __launch_bounds__(COPY_THREADS, U == 1 ? 6 : 5) transpose_kernel(const copy_jobs jobs)
{
    __shared__ float tile[U][TILE][TILE + 1];
    const int chunk = (int)threadIdx.x % CHUNKS, line = (int)threadIdx.x / CHUNKS;
    for (int64_t t0 = (int64_t)blockIdx.x * U; t0 < jobs.tiles; t0 += (int64_t)gridDim.x * U) {
        copy_job j[U];
        int64_t l0[U], r0[U];
        float v[U][PASSES][4];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t t = min(t0 + u, jobs.tiles - 1); /* a missing second tile repeats the first */
            const bool second = jobs.count > 1 && t >= jobs.op[0].tiles;
            j[u] = second ? jobs.op[1] : jobs.op[0];
            const int64_t w = second ? t - jobs.op[0].tiles : t;
            l0[u] = w % j[u].tiles_l * TILE;
            r0[u] = w / j[u].tiles_l * TILE;
#pragma unroll
            for (int i = 0; i < PASSES; ++i) {
                const int64_t r = r0[u] + line + i * LINES_PER_PASS, l = l0[u] + 4 * chunk;
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    v[u][i][e] = 0.0f;
                if (r < j[u].rows) {
                    const float *row = j[u].src + r * j[u].lds;
                    if (j[u].vec && l + 4 <= j[u].k) {
                        const float4 f = __ldg(reinterpret_cast<const float4 *>(row + l));
                        v[u][i][0] = f.x, v[u][i][1] = f.y, v[u][i][2] = f.z, v[u][i][3] = f.w;
                    } else {
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                            if (l + e < j[u].k)
                                v[u][i][e] = __ldg(row + l + e);
                    }
                }
            }
        }
        __syncthreads(); /* the last step's reads of the tiles are done */
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
            for (int i = 0; i < PASSES; ++i)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    tile[u][line + i * LINES_PER_PASS][4 * chunk + e] = v[u][i][e];
        __syncthreads();
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (u > 0 && t0 + u >= jobs.tiles)
                break;
#pragma unroll
            for (int i = 0; i < TILE; i += LINES_PER_PASS) {
                const int64_t l = l0[u] + line + i, r = r0[u] + 4 * chunk;
                if (l < j[u].k && r < j[u].ldd) {
                    const int c = line + i;
                    const float4 f = make_float4(tile[u][4 * chunk][c], tile[u][4 * chunk + 1][c],
                                                 tile[u][4 * chunk + 2][c], tile[u][4 * chunk + 3][c]);
                    *reinterpret_cast<float4 *>(j[u].dst + l * j[u].ldd + r) = f;
                }
            }
        }
    }
    allow_dependents();
}

int64_t copied_ld(int rows)
{
    return (rows + LD_ALIGN - 1) / LD_ALIGN * LD_ALIGN;
}

size_t copied_bytes(int rows, int k)
{
    return sizeof(float) * (size_t)copied_ld(rows) * (size_t)k;
}

/* the bytes a copy reads and writes */
double copy_traffic(int rows, int k)
{
    return 2.0 * sizeof(float) * (double)rows * (double)k;
}

/* the K-contiguous operands: bit 0 A (transa), bit 1 B (not transb) */
int k_contiguous(const shim_sgemm_args *p)
{
    return (p->transa ? COPY_A : 0) | (p->transb ? 0 : COPY_B);
}

/* x rounded down to WORK_ALIGN bytes: where a copied operand's pointer stands while its copy is only
 * planned, as aligned as the copy will be (never dereferenced: the launch points at the copy) */
const float *copy_stand_in(const float *x)
{
    return reinterpret_cast<const float *>((uintptr_t)x / WORK_ALIGN * WORK_ALIGN);
}

/* the problem with the operands in `copies` flipped to R-contiguous, for planning: the copied
 * operands' pointers are stand-ins as aligned as the copies (a configuration may be planned only
 * where its R-contiguous operands are 16-byte capable, config_planned), so the plan chosen here is
 * the plan launched on the copies */
shim_sgemm_args copied_form(const shim_sgemm_args *p, int copies)
{
    shim_sgemm_args q = *p;
    if (copies & COPY_A) {
        q.transa = 0;
        q.a = copy_stand_in(p->a);
        q.lda = copied_ld(p->m);
    }
    if (copies & COPY_B) {
        q.transb = 1;
        q.b = copy_stand_in(p->b);
        q.ldb = copied_ld(p->n);
    }
    return q;
}

double copies_seconds(const shim_sgemm_args *p, int copies)
{
    const double bytes = ((copies & COPY_A) ? copy_traffic(p->m, p->k) : 0.0) +
                         ((copies & COPY_B) ? copy_traffic(p->n, p->k) : 0.0);
    return COPY_LAUNCH_S + bytes / COPY_BYTES_PER_S;
}

/* the workspace the copies take, before the inner plan's */
size_t copies_bytes(const shim_sgemm_args *p, int copies)
{
    return ((copies & COPY_A) ? copied_bytes(p->m, p->k) : 0) +
           ((copies & COPY_B) ? copied_bytes(p->n, p->k) : 0);
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

copy_job make_job(const float *src, int64_t lds, float *dst, int rows, int k)
{
    copy_job j;
    j.src = src;
    j.lds = lds;
    j.dst = dst;
    j.ldd = copied_ld(rows);
    j.rows = rows;
    j.k = k;
    j.vec = aligned16(src) && lds % 4 == 0;
    j.tiles_l = ((int64_t)k + TILE - 1) / TILE;
    j.tiles = j.tiles_l * (((int64_t)rows + TILE - 1) / TILE);
    return j;
}

/* blocks of transpose_kernel<1> an SM can hold (asked once) */
int copy_blocks_per_sm()
{
    static std::atomic<int> known{0};
    int n = known.load(std::memory_order_relaxed);
    if (n == 0) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, transpose_kernel<1>, COPY_THREADS, 0) !=
                cudaSuccess ||
            n < 1)
            n = 1;
        known.store(n, std::memory_order_relaxed);
    }
    return n;
}

/* one tile a block while the tiles fit one wave of blocks, two a block beyond it */
cudaError_t copy_operands(const copy_jobs &jobs, cudaStream_t stream)
{
    const bool pairs = jobs.tiles > (int64_t)copy_blocks_per_sm() * sm_count();
    const unsigned grid = (unsigned)std::min<int64_t>(pairs ? (jobs.tiles + 1) / 2 : jobs.tiles, INT32_MAX);
    SHIM_KERNEL_READY(pairs ? transpose_kernel<2> : transpose_kernel<1>);
    if (pairs)
        transpose_kernel<2><<<grid, COPY_THREADS, 0, stream>>>(jobs);
    else
        transpose_kernel<1><<<grid, COPY_THREADS, 0, stream>>>(jobs);
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
    double best_seconds = COPY_MARGIN * direct, seconds[(COPY_A | COPY_B) + 1] = {};
    for (int copies = 1; copies <= (COPY_A | COPY_B); ++copies) {
        if ((copies & kc) != copies)
            continue;
        seconds[copies] = transpose_first_seconds(p, copies);
        if (seconds[copies] < best_seconds) {
            best_seconds = seconds[copies];
            best = copies;
        }
    }
    /* Both operands K-contiguous (TN), and both the copied NT form and the form with A alone copied
     * run one wave of blocks, each at most one tile's work: A alone, B going by the kernel's 4-byte
     * transposing copies. The model prices those at 5-11 % in such launches (K4_COST, fitted at
     * 8192^3, times the exposure of a launch of few warps) where 1000^3 NN ran 2.4 % behind NT (H200,
     * 2026-11-26); TN with A alone copied ran 0.5-3.4 % faster than with both at 1000^3, 1024^3 and
     * 1280^3, and slower where the plans run many waves. A stream-K launch with more tiles than
     * blocks is a longer k loop a block, as many waves are: there both copies ran 0.8-3.5 % faster
     * (1440^3-1536^3, 1529x3581x926; docs/notes/sgemm.md, "TN copying A alone" and "TN's copies by
     * tiles a block"). Changing the K4 price for every one-wave launch instead made NN shapes that
     * copy B slower. */
    if (best == (COPY_A | COPY_B)) {
        const shim_sgemm_args nt = copied_form(p, COPY_A | COPY_B), nn = copied_form(p, COPY_A);
        if (std::isfinite(seconds[COPY_A]) && fp32_one_wave(&nt) && fp32_one_wave(&nn))
            best = COPY_A;
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

const shim_sgemm_variant *copied_form_variant(const shim_sgemm_args *p, int copies, shim_sgemm_args *q)
{
    *q = copied_form(p, copies);
    double seconds;
    return select_fp32_direct(q, &seconds);
}

const shim_sgemm_variant *transpose_first_inner(const shim_sgemm_args *p, int *copies, shim_sgemm_args *q)
{
    *copies = copies_for(p);
    return copied_form_variant(p, *copies, q);
}

size_t transpose_first_work(const shim_sgemm_args *p)
{
    int copies;
    shim_sgemm_args q;
    const shim_sgemm_variant *inner = transpose_first_inner(p, &copies, &q);
    return transpose_first_copy_bytes(p, copies) + shim_sgemm_work_bytes(inner, &q);
}

cudaError_t transpose_first_copy(const shim_sgemm_args *p, int copies, shim_sgemm_args *q)
{
    *q = copied_form(p, copies);
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
    } operands[] = {{COPY_A, p->a, p->lda, p->m, &q->a}, {COPY_B, p->b, p->ldb, p->n, &q->b}};
    copy_jobs jobs = {};
    for (const auto &o : operands) {
        if (!(copies & o.bit))
            continue;
        float *dst = reinterpret_cast<float *>(work);
        jobs.op[jobs.count] = make_job(o.src, o.ld, dst, o.rows, p->k);
        jobs.tiles += jobs.op[jobs.count++].tiles;
        *o.dst = dst;
        work += copied_bytes(o.rows, p->k);
    }
    if (jobs.tiles > 0) {
        const cudaError_t err = copy_operands(jobs, p->stream);
        if (err != cudaSuccess)
            return err;
        q->dependent = 1;
    }
    q->work = work;
    q->work_bytes = (size_t)(end - work);
    return cudaSuccess;
}

double transpose_first_copy_seconds(const shim_sgemm_args *p, int copies)
{
    return copies_seconds(p, copies);
}

size_t transpose_first_copy_bytes(const shim_sgemm_args *p, int copies)
{
    return WORK_ALIGN + copies_bytes(p, copies);
}

cudaError_t transpose_first_launch(const shim_sgemm_args *p)
{
    int copies;
    shim_sgemm_args q;
    const shim_sgemm_variant *inner = transpose_first_inner(p, &copies, &q);
    const cudaError_t err = transpose_first_copy(p, copies, &q);
    if (err != cudaSuccess)
        return err;
    if (shim_sgemm_work_bytes(inner, &q) > q.work_bytes)
        return cudaErrorInvalidValue;
    return inner->launch(&q);
}

} // namespace sgemm
