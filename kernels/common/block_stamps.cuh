/* Block timestamps for probes of a call's kernels (bench/sgemm_stamps): where a translation unit
 * is compiled with SHIM_BLOCK_STAMPS defined, BLOCK_STAMP(e) records the earliest and the latest
 * %globaltimer at which thread 0 of any block reached point e (0-7) of that unit;
 * BLOCK_STAMPS_READER(name) defines name(out), which copies the 16 stamps (2e: earliest, 2e + 1:
 * latest, ns) to out when out is not null and resets them, returning 0, or -1 where the unit was
 * built without stamps. Without SHIM_BLOCK_STAMPS the stamps compile to nothing: the library's
 * kernels carry none. */
#ifndef SHIM_BLOCK_STAMPS_CUH
#define SHIM_BLOCK_STAMPS_CUH

#include <cuda_runtime.h>

#ifdef SHIM_BLOCK_STAMPS
__device__ __forceinline__ unsigned long long block_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ unsigned block_smid()
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}
static __device__ unsigned long long block_stamps[16];
__device__ __forceinline__ void block_stamp(int e)
{
    if (threadIdx.x == 0) {
        const unsigned long long t = block_now();
        atomicMin(&block_stamps[2 * e], t);
        atomicMax(&block_stamps[2 * e + 1], t);
    }
}
/* BLOCK_RECORD(i, v): value i (0-7) of block blockIdx.x (those below 4096), by its thread 0;
 * BLOCK_RECORDS_READER(name) defines name(out), which copies the 4096 x 8 values to out when out is
 * not null and zeroes them, returning 0, or -1 where the unit was built without stamps */
static __device__ unsigned long long block_records[4096][8];
#define BLOCK_STAMP(e) block_stamp(e)
#define BLOCK_RECORD(i, v)                                                                                   \
    do {                                                                                                     \
        if (threadIdx.x == 0 && blockIdx.x < 4096)                                                           \
            block_records[blockIdx.x][i] = (unsigned long long)(v);                                          \
    } while (0)
#define BLOCK_STAMPS_READER(name)                                                                            \
    extern "C" int name(unsigned long long *out)                                                             \
    {                                                                                                        \
        if (out && cudaMemcpyFromSymbol(out, block_stamps, sizeof block_stamps) != cudaSuccess)              \
            return -1;                                                                                       \
        unsigned long long init[16];                                                                         \
        for (int i = 0; i < 16; ++i)                                                                         \
            init[i] = i % 2 ? 0ull : ~0ull;                                                                  \
        return cudaMemcpyToSymbol(block_stamps, init, sizeof init) == cudaSuccess ? 0 : -1;                  \
    }
#define BLOCK_RECORDS_READER(name)                                                                           \
    extern "C" int name(unsigned long long *out)                                                             \
    {                                                                                                        \
        if (out && cudaMemcpyFromSymbol(out, block_records, sizeof block_records) != cudaSuccess)            \
            return -1;                                                                                       \
        static unsigned long long zeros[4096 * 8];                                                           \
        return cudaMemcpyToSymbol(block_records, zeros, sizeof zeros) == cudaSuccess ? 0 : -1;               \
    }
#else
#define BLOCK_STAMP(e) ((void)0)
#define BLOCK_RECORD(i, v) ((void)0)
#define BLOCK_STAMPS_READER(name)                                                                            \
    extern "C" int name(unsigned long long *)                                                                \
    {                                                                                                        \
        return -1;                                                                                           \
    }
#define BLOCK_RECORDS_READER(name) BLOCK_STAMPS_READER(name)
#endif

#endif
