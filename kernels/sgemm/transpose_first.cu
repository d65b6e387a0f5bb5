/* K-contiguous operands copied R-contiguous first. The FP32 kernels are fastest when both operands
 * are R-contiguous (NT: A not transposed, B transposed): every tile then reaches shared memory by
 * 16-byte copies in the [l][r] layout the inner loops read, with no transposing stores. A
 * K-contiguous operand costs the kernels 5-23 % (H200, 8192^3: NT 50.3, NN 47.8, TT 43.5, TN 41.6
 * TFLOP/s), while copying it once costs two passes over its bytes at DRAM speed: 0.2-1.4 % of a
 * large square's time. So where the cost model says it pays, this variant transposes the
 * K-contiguous operands into the workspace and hands the resulting problem to the FP32 ladder.
 * The products are the same FMAs in the same k order as any FP32 plan: only where the operands'
 * bytes sit changes. */
#include <cmath>

#include "sgemm_device.cuh"
#include "sgemm_internal.h"
#include "block_stamps.cuh"

namespace sgemm {
namespace {

/* a warp copies a 32 x 16 piece (32 rows of 16 k) of an operand: each lane loads 4 rows' 4 k by
 * 16-byte loads and stores them transposed, 4 k's 4 rows, by 16-byte stores; 8 warps a block */
constexpr int PIECE_R = 32, PIECE_L = 16, COPY_THREADS = 256, PIECE_WARPS = COPY_THREADS / 32;
/* eight blocks an SM (32 registers a thread, all 2048 threads an SM holds): 1056 blocks a wave on
 * the H200, so the copies of two 7.8 MB operands (1400^3 TN, 968 blocks) run in one; a first form at
 * 38-48 registers ran them in 1.2-1.5 and was no faster than the tiled copy it replaced */
constexpr int COPY_BLOCKS_PER_SM = 8;
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
 * (at dst[l * ldd + r]), rows x k, in pieces_l x (ldd / PIECE_R) pieces */
struct copy_job {
    const float *src;
    int64_t lds;
    float *dst;
    int64_t ldd;
    int rows, k;
    int vec; /* src 16-byte aligned and lds % 4 == 0 */
    uint32_t pieces_l;
    int64_t pieces;
};

struct copy_jobs {
    copy_job op[2];
    int count;
    int64_t pieces; /* of all jobs */
    /* zero_n ints the first block zeroes: the copied form's stream-K counters (streamk_counters_by_copy) */
    int *zero;
    int zero_n;
};

/* Lane (lr, lc) = (lane % 8, lane / 8) of a warp's piece loads rows 4 lr .. 4 lr + 3 at k 4 lc ..
 * 4 lc + 3 (a load instruction: 8 rows' 64 contiguous bytes; element by element where the operand
 * is not 16-byte capable or k ends inside the four), transposes the 4 x 4 in registers and stores
 * k 4 lc + e at rows 4 lr .. 4 lr + 3 (a store instruction: 4 rows of the copy, 128 contiguous
 * bytes each; the copy's ldd is a multiple of 32 and its base 256-byte aligned). Rows r in
 * [rows, ldd) of the copy get zeros; rows past ldd are not written. VEC: every operand of the
 * launch 16-byte capable. No shared memory and no barrier, and every thread of an SM busy: the
 * calls that copy ran 0.987 of the time of the 64 x 64 tiles through shared memory (109 shapes,
 * 1-2 % on the squares to 3072, 5-7 % on the small ones, H200; docs/notes/sgemm.md,
 * "transpose_first's copy in registers"). The inner plan's kernel
 * is launched as a programmatic dependent of the copy, allowed as each block ends (not at its
 * start: placed among running copy blocks, a one-wave plan's blocks were packed two to an SM on
 * half the SMs and ran 1.8x slower, docs/notes/sgemm.md); it waits for the copy at its top. */
template <bool VEC>
__global__ void __launch_bounds__(COPY_THREADS, COPY_BLOCKS_PER_SM) transpose_kernel(const copy_jobs jobs)
{
    BLOCK_STAMP(0);
    if (blockIdx.x == 0)
        for (int i = (int)threadIdx.x; i < jobs.zero_n; i += COPY_THREADS)
            jobs.zero[i] = 0;
    const int lane = (int)threadIdx.x % 32, lr = lane % 8, lc = lane / 8;
    const uint32_t w = blockIdx.x * PIECE_WARPS + threadIdx.x / 32; /* the host keeps pieces below 2^31 */
    if (w >= jobs.pieces)
        return;
    const bool second = jobs.count > 1 && w >= jobs.op[0].pieces;
    const copy_job &j0 = jobs.op[0], &j1 = jobs.op[1]; /* each field picked, not the job: no local copy */
    const uint32_t piece = second ? w - (uint32_t)j0.pieces : w, pieces_l = second ? j1.pieces_l : j0.pieces_l;
    const int r0 = (int)(piece / pieces_l) * PIECE_R + 4 * lr, l0 = (int)(piece % pieces_l) * PIECE_L + 4 * lc;
    const int rows_left = (second ? j1.rows : j0.rows) - r0, k_left = (second ? j1.k : j0.k) - l0; /* of this lane's 4 x 4 */
    const int64_t lds = second ? j1.lds : j0.lds;
    const float *src = (second ? j1.src : j0.src) + (int64_t)r0 * lds + l0;
    float4 v[4]; /* rows r0 .. r0 + 3 at k l0 .. l0 + 3 */
    if (VEC && rows_left >= 4 && k_left >= 4) {
#pragma unroll
        for (int i = 0; i < 4; ++i)
            v[i] = __ldg(reinterpret_cast<const float4 *>(src + i * lds));
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            float e4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
            for (int e = 0; e < 4; ++e)
                if (i < rows_left && e < k_left)
                    e4[e] = __ldg(src + i * lds + e);
            v[i] = make_float4(e4[0], e4[1], e4[2], e4[3]);
        }
    }
    const int64_t ldd = second ? j1.ldd : j0.ldd;
    if (r0 < ldd && k_left > 0) {
        float *dst = (second ? j1.dst : j0.dst) + (int64_t)l0 * ldd + r0;
        *reinterpret_cast<float4 *>(dst) = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
        if (k_left > 1)
            *reinterpret_cast<float4 *>(dst + ldd) = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
        if (k_left > 2)
            *reinterpret_cast<float4 *>(dst + 2 * ldd) = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
        if (k_left > 3)
            *reinterpret_cast<float4 *>(dst + 3 * ldd) = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
    }
    BLOCK_STAMP(1);
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
    j.pieces_l = (uint32_t)((k + PIECE_L - 1) / PIECE_L);
    j.pieces = (int64_t)j.pieces_l * (j.ldd / PIECE_R);
    return j;
}

/* a warp a piece; an operand in device memory has far fewer than 2^31 pieces of 512 floats */
cudaError_t copy_operands(const copy_jobs &jobs, cudaStream_t stream)
{
    if (jobs.pieces > INT32_MAX)
        return cudaErrorInvalidValue;
    const unsigned grid = (unsigned)((jobs.pieces + PIECE_WARPS - 1) / PIECE_WARPS);
    const bool vec = jobs.op[0].vec && (jobs.count < 2 || jobs.op[1].vec);
    SHIM_KERNEL_READY(vec ? transpose_kernel<true> : transpose_kernel<false>);
    if (vec)
        transpose_kernel<true><<<grid, COPY_THREADS, 0, stream>>>(jobs);
    else
        transpose_kernel<false><<<grid, COPY_THREADS, 0, stream>>>(jobs);
    return cudaGetLastError();
}

char *aligned_up(void *p)
{
    return (char *)(((uintptr_t)p + WORK_ALIGN - 1) / WORK_ALIGN * WORK_ALIGN);
}

} // namespace

BLOCK_STAMPS_READER(shim_block_stamps_copy)

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

namespace {

/* transpose_first_copy, and where inner's plan on the copies is stream-K run one block an SM, its
 * arrival counters zeroed by the copy (q->counters_zeroed) */
cudaError_t copy_for(const shim_sgemm_args *p, int copies, shim_sgemm_args *q,
                     const shim_sgemm_variant *inner)
{
    *q = copied_form(p, copies);
    q->counters_zeroed = 0;
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
        jobs.pieces += jobs.op[jobs.count++].pieces;
        *o.dst = dst;
        work += copied_bytes(o.rows, p->k);
    }
    q->work = work;
    q->work_bytes = (size_t)(end - work);
    if (jobs.pieces > 0) {
        plan pl;
        if (inner && fp32_variant_plan(inner, q, &pl) && q->work_bytes >= plan_work_bytes(pl) &&
            (jobs.zero_n = streamk_counters_by_copy(q, pl)) > 0)
            jobs.zero = streamk_counters(q, pl);
        const cudaError_t err = copy_operands(jobs, p->stream);
        if (err != cudaSuccess)
            return err;
        q->dependent = 1;
        q->counters_zeroed = jobs.zero_n > 0;
    }
    return cudaSuccess;
}

} // namespace

cudaError_t transpose_first_copy(const shim_sgemm_args *p, int copies, shim_sgemm_args *q)
{
    return copy_for(p, copies, q, nullptr);
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
    const cudaError_t err = copy_for(p, copies, &q, inner);
    if (err != cudaSuccess)
        return err;
    if (shim_sgemm_work_bytes(inner, &q) > q.work_bytes)
        return cudaErrorInvalidValue;
    return inner->launch(&q);
}

} // namespace sgemm
