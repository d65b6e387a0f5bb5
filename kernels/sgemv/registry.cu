/* The SGEMV registry: the one table of variants, lookup by name, the shape-based selector, and the
 * run entry that applies the alpha == 0 rule. Also the launch-sizing helpers the variants share. */
#include <atomic>
#include <mutex>
#include <string.h>

#include "sgemv_device.cuh"

namespace shim_sgemv {

int sm_count()
{
    static const int count = [] {
        int device = 0, sms = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms < 1) {
            (void)cudaGetLastError(); /* ours: do not leave it for the caller's next check */
            sms = 132;
        }
        return sms;
    }();
    return count;
}

/* Cached per (kernel, shared memory): work_bytes and launch must size a split the same way, so the
 * first answer (even a fallback) is kept; not the answer for a kernel the device could not load. */
int resident_blocks(const void *kernel, size_t smem_bytes)
{
    struct entry {
        const void *kernel;
        size_t smem;
        int blocks;
    };
    static std::mutex lock;
    static entry cache[64];
    static int used;
    std::lock_guard<std::mutex> guard(lock);
    for (int i = 0; i < used; i++)
        if (cache[i].kernel == kernel && cache[i].smem == smem_bytes)
            return cache[i].blocks;
    /* the occupancy query needs the kernel on the device: refused (kernel_load.h), one block an SM,
     * not kept (the launch is refused too, and the fallback needs no size from here) */
    if (shim_kernel_ready(kernel) != cudaSuccess)
        return sm_count();
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, smem_bytes) != cudaSuccess ||
        per_sm < 1) {
        (void)cudaGetLastError();
        per_sm = 1;
    }
    const int blocks = per_sm * sm_count();
    if (used < (int)(sizeof cache / sizeof cache[0]))
        cache[used++] = entry{kernel, smem_bytes, blocks};
    return blocks;
}

static __global__ void __launch_bounds__(kBlock) scale_kernel(float *y, long long len, float beta)
{
    for (long long i = (long long)blockIdx.x * kBlock + threadIdx.x; i < len; i += (long long)gridDim.x * kBlock)
        y[i] = beta == 0.0f ? 0.0f : beta * y[i];
}

/* alpha == 0 reads neither A nor x: then A's pointer and leading dimension mean nothing */
static int valid_args(const shim_sgemv_args *p)
{
    return p && (p->trans == 0 || p->trans == 1) && p->m >= 1 && p->n >= 1 &&
           (p->alpha == 0.0f || p->lda >= p->m);
}

static int accepts_rows(const shim_sgemv_args *p)
{
    return valid_args(p) && p->trans == 1;
}

static int accepts_cols(const shim_sgemv_args *p)
{
    return valid_args(p) && p->trans == 0;
}

template <int V>
static int accepts_rows_short(const shim_sgemv_args *p)
{
    return accepts_rows(p) && rows_short_accepts<V>(p);
}

static size_t no_work(const shim_sgemv_args *p)
{
    (void)p;
    return 0;
}

enum {
    ROWS_WARP,
    ROWS_FLOAT4,
    ROWS_MULTI2,
    ROWS_MULTI4,
    ROWS_MULTI8,
    ROWS_MULTI16,
    ROWS_MULTI32,
    ROWS_SPLITK,
    ROWS_SPLITK_SMEM,
    ROWS_SHORT2,
    ROWS_SHORT4,
    COLS_THREAD,
    COLS_FLOAT4,
    COLS_SPLITN,
    VARIANT_COUNT
};

static const shim_sgemv_variant table[VARIANT_COUNT] = {
    {"rows_warp", "warp per output, 4-byte loads", SHIM_SGEMV_ROWS, accepts_rows, no_work, rows_warp_launch},
    {"rows_float4", "warp per output, 16-byte loads, x staged in shared memory", SHIM_SGEMV_ROWS, accepts_rows,
     no_work, rows_float4_launch},
    {"rows_multi2", "2 outputs per warp (16 lanes each), 16-byte loads", SHIM_SGEMV_ROWS, accepts_rows, no_work,
     rows_multi_launch<2>},
    {"rows_multi4", "4 outputs per warp (8 lanes each), 16-byte loads", SHIM_SGEMV_ROWS, accepts_rows, no_work,
     rows_multi_launch<4>},
    {"rows_multi8", "8 outputs per warp (4 lanes each), 16-byte loads", SHIM_SGEMV_ROWS, accepts_rows, no_work,
     rows_multi_launch<8>},
    {"rows_multi16", "16 outputs per warp (2 lanes each), 16-byte loads", SHIM_SGEMV_ROWS, accepts_rows, no_work,
     rows_multi_launch<16>},
    {"rows_multi32", "thread per output, 16-byte loads", SHIM_SGEMV_ROWS, accepts_rows, no_work,
     rows_multi_launch<32>},
    {"rows_splitk", "split-K, warp per piece, x via L1, deterministic second pass", SHIM_SGEMV_ROWS,
     accepts_rows, rows_splitk_work, rows_splitk_launch},
    {"rows_splitk_smem", "split-K, warp per piece, x staged in shared memory", SHIM_SGEMV_ROWS, accepts_rows,
     rows_splitk_smem_work, rows_splitk_smem_launch},
    {"rows_short2", "short columns: 2 blocks per lane, 8 loads per lane per tile at once, x in registers",
     SHIM_SGEMV_ROWS, accepts_rows_short<2>, no_work, rows_short_launch<2>},
    {"rows_short4", "short columns: 4 blocks per lane, 8 loads per lane per tile at once, x in registers",
     SHIM_SGEMV_ROWS, accepts_rows_short<4>, no_work, rows_short_launch<4>},
    {"cols_thread", "thread per row, 4-byte loads", SHIM_SGEMV_COLUMNS, accepts_cols, no_work,
     cols_thread_launch},
    {"cols_float4", "4 rows per thread, 16-byte loads when lda % 4 == 0", SHIM_SGEMV_COLUMNS, accepts_cols,
     no_work, cols_float4_launch},
    {"cols_splitn", "4 rows per thread, columns split over the grid, deterministic second pass",
     SHIM_SGEMV_COLUMNS, accepts_cols, cols_splitn_work, cols_splitn_launch},
};

/* rows form, long columns: split-K (rows_splitk) when the outputs fill less than a quarter of a wave,
 * or when no split is planned at all (then it is rows_float4's long path with x through L1, which
 * run 3 measured equal or better than x staged in shared memory: 95.7 vs 93.9 % on 8192^2). A
 * planned split of 2-3 is left to rows_float4: the second pass costs more than the missing part of
 * the wave (2048^2: 9.6 us against 11.4). */
static const int kRowsMinSplits = 4;

/* rows_short4 covers up to this many floats per column (any phase) */
static const int kRowsShortMax = 4 * 128 - 8;

static const shim_sgemv_variant *select_rows(const shim_sgemv_args *p)
{
    /* short columns: a whole column per group of lanes, every load of a tile in flight at once.
     * Two blocks per lane while that keeps at least two lanes (one 32-byte sector) per column
     * (m <= 16 or so), four beyond: fewer outputs per tile and shorter butterflies. */
    if (p->m <= kRowsShortMax) {
        const int blocks = (p->m + quad_offset(p->a) + 3) / 4;
        return blocks <= 4 ? &table[ROWS_SHORT2] : &table[ROWS_SHORT4];
    }
    const int splits = rows_splitk_splits(p);
    if (splits == 1 || splits >= kRowsMinSplits)
        return &table[ROWS_SPLITK];
    return &table[ROWS_FLOAT4];
}

static const shim_sgemv_variant *select_cols(const shim_sgemv_args *p)
{
    if (cols_splitn_splits(p) >= 2)
        return &table[COLS_SPLITN];
    return &table[COLS_FLOAT4];
}

} // namespace shim_sgemv

using namespace shim_sgemv;

extern "C" const shim_sgemv_variant *shim_sgemv_variants(int *count)
{
    if (count)
        *count = VARIANT_COUNT;
    return table;
}

extern "C" const shim_sgemv_variant *shim_sgemv_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < VARIANT_COUNT; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

extern "C" const shim_sgemv_variant *shim_sgemv_select(const shim_sgemv_args *p)
{
    if (p && p->trans)
        return select_rows(p);
    return select_cols(p);
}

extern "C" size_t shim_sgemv_work_bytes(const shim_sgemv_variant *v, const shim_sgemv_args *p)
{
    /* alpha == 0 never reaches a variant */
    if (!v || !valid_args(p) || p->alpha == 0.0f || !v->accepts(p))
        return 0;
    return v->work_bytes(p);
}

extern "C" cudaError_t shim_sgemv_run(const shim_sgemv_variant *v, const shim_sgemv_args *p)
{
    if (!valid_args(p))
        return cudaErrorInvalidValue;
    if (p->alpha == 0.0f) {
        if (p->beta == 1.0f)
            return cudaSuccess;
        const long long len = p->trans ? p->n : p->m;
        const unsigned grid = balanced_grid(ceil_div(len, kBlock), 8LL * sm_count());
        SHIM_KERNEL_READY(scale_kernel);
        scale_kernel<<<grid, kBlock, 0, p->stream>>>(p->y, len, p->beta);
        return cudaGetLastError();
    }
    if (!v || !v->accepts(p))
        return cudaErrorInvalidValue;
    /* a kernel of v's refused (the device has no memory to load it): the baseline of its form (one
     * kernel, no workspace) */
    return kernel_launch_or_fallback([&] { return v->launch(p); },
                                     [&] { return p->trans ? rows_warp_launch(p) : cols_thread_launch(p); },
                                     p->beta == 0.0f);
}

extern "C" cudaError_t shim_sgemv_preload(void)
{
    cudaError_t err = rows_warp_preload();
    if (err == cudaSuccess)
        err = cols_thread_preload();
    return err != cudaSuccess ? err : shim_kernel_ready((const void *)scale_kernel);
}
