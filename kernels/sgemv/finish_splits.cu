/* The deterministic second pass of the split variants: no atomics, every output's partials added in
 * an order fixed by the split count alone. Launched as a programmatic dependent of the split kernel
 * (see kernels/common/dependent_launch.cuh). */
#include "sgemv_device.cuh"

namespace shim_sgemv {

/* G lanes per output (a power of two up to 256) each sum every G-th split in order, then a butterfly
 * inside the warp and, for G > 32, the group's warps in index order */
template <int G>
__global__ void __launch_bounds__(kBlock) finish_splits_kernel(const float *__restrict__ part, int splits,
                                                              long long count, float alpha, float beta,
                                                              float *__restrict__ y)
{
    constexpr int kLanes = G < 32 ? G : 32;
    constexpr int kOutsPerBlock = kBlock / G;
    __shared__ float warp_sums[kWarps];
    const int g = threadIdx.x % G;
    const long long out = (long long)blockIdx.x * kOutsPerBlock + threadIdx.x / G;
    wait_for_primary(); /* the split kernel's partials (and y, for beta) are complete from here on */
    float acc = 0.0f;
    if (out < count) {
        const float *p = part + out * splits;
        for (int s = g; s < splits; s += G)
            acc += p[s];
    }
    acc = group_sum<kLanes>(acc);
    if (G > 32) {
        if ((threadIdx.x & 31) == 0)
            warp_sums[threadIdx.x >> 5] = acc;
        __syncthreads();
        if (g == 0) {
            const int first = threadIdx.x >> 5;
            acc = warp_sums[first];
            for (int w = 1; w < G / 32; w++)
                acc += warp_sums[first + w];
        }
    }
    if (g == 0 && out < count)
        store_result(y + out, acc, alpha, beta);
}

template <int G>
static cudaError_t launch_finish(const float *part, int splits, long long count, float alpha, float beta, float *y,
                          cudaStream_t stream)
{
    const long long outs_per_block = kBlock / G;
    const unsigned grid = (unsigned)ceil_div(count, outs_per_block);
    /* a programmatic dependent launch: scheduled while the split kernel still runs (it signals at
     * its start), waiting in wait_for_primary for its completion, so the launch gap is hidden */
    return launch_dependent(finish_splits_kernel<G>, dim3(grid), dim3(kBlock), 0, stream, part, splits, count,
                            alpha, beta, y);
}

cudaError_t finish_splits(const float *part, int splits, long long count, float alpha, float beta, float *y,
                          cudaStream_t stream)
{
    /* about four partials per lane */
    int g = 1;
    while (g < 256 && 4 * g < splits)
        g *= 2;
    switch (g) {
    case 1: return launch_finish<1>(part, splits, count, alpha, beta, y, stream);
    case 2: return launch_finish<2>(part, splits, count, alpha, beta, y, stream);
    case 4: return launch_finish<4>(part, splits, count, alpha, beta, y, stream);
    case 8: return launch_finish<8>(part, splits, count, alpha, beta, y, stream);
    case 16: return launch_finish<16>(part, splits, count, alpha, beta, y, stream);
    case 32: return launch_finish<32>(part, splits, count, alpha, beta, y, stream);
    case 64: return launch_finish<64>(part, splits, count, alpha, beta, y, stream);
    case 128: return launch_finish<128>(part, splits, count, alpha, beta, y, stream);
    default: return launch_finish<256>(part, splits, count, alpha, beta, y, stream);
    }
}

} // namespace shim_sgemv
