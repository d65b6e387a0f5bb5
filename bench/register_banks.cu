/* What a FFMA's register operands cost on this GPU. Two kernels, each a loop whose FFMAs are
 * rewritten in the cubin afterwards:
 *  - banks: 256 independent FFMAs; bench/register_banks.py writes one cubin a register pattern;
 *  - replay: 1024 FFMAs at up to 250 registers; bench/ffma_replay.py copies a k loop's FFMAs into it
 *    (registers renumbered bank for bank, reuse flags kept, every other instruction left out).
 * Each file is timed here on every SM (banks: 4, 8 and 16 warps a block; replay: one and two blocks
 * of four warps an SM). The loops' values do not matter (a rewritten loop computes garbage); their
 * issue rate does: one warp-FFMA a cycle a sub-partition is the FP32 pipe's rate, every cycle over
 * it is an operand read the register file could not serve in time.
 *
 * The cubins: nvcc -O3 -gencode=arch=compute_90,code=sm_90 -DKERNEL_ONLY=1 -cubin -o banks.cubin
 *             bench/register_banks.cu  (-DKERNEL_ONLY=2 -o replay.cubin: the replay kernel)
 * Patterns:   bench/register_banks.py banks.cubin DIR;  bench/ffma_replay.py replay.cubin ... (its usage)
 * Usage:     register_banks CUBIN...    (a line a file: best of 6 launches, ns a warp-FFMA a
 *            sub-partition; at 1.98 GHz one cycle is 0.505 ns) */
#include <cuda.h>

/* the sums are used, so the loop stays; nothing is written unless they come to 1234.5 */
template <int N> __device__ __forceinline__ void keep(const float *acc, float *out)
{
    float s = 0;
#pragma unroll
    for (int i = 0; i < N; i++)
        s += acc[i];
    if (s == 1234.5f)
        out[threadIdx.x] = s;
}

#if !defined(KERNEL_ONLY) || KERNEL_ONLY == 1
extern "C" __global__ void banks(float *out, int iters)
{
    float f[16], acc[16];
#pragma unroll
    for (int i = 0; i < 16; i++) {
        f[i] = out[i * 7 + threadIdx.x % 5];
        acc[i] = 0.f;
    }
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int r = 0; r < 16; r++)
#pragma unroll
            for (int j = 0; j < 16; j++)
                acc[j] = fmaf(f[(j + r) % 16], f[(j * 3 + r + 1) % 16], acc[j]);
    }
    keep<16>(acc, out);
}

#endif

#if !defined(KERNEL_ONLY) || KERNEL_ONLY == 2
/* 216 sums and 24 factors: 250 registers, nothing spilled (nvcc 13.0) */
extern "C" __global__ void __launch_bounds__(128, 1) replay(float *out, int iters)
{
    float f[24], acc[216];
#pragma unroll
    for (int i = 0; i < 24; i++)
        f[i] = out[i * 7 + threadIdx.x % 5];
#pragma unroll
    for (int i = 0; i < 216; i++)
        acc[i] = out[i + 200];
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int r = 0; r < 4; r++)
#pragma unroll
            for (int j = 0; j < 256; j++) {
                int a = (j + r * 37) % 216;
                acc[a] = fmaf(f[j % 24], f[(j * 7 + r + 1) % 24], acc[a]);
            }
    }
    keep<216>(acc, out);
}
#endif

#ifndef KERNEL_ONLY
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                                     \
    do {                                                                                                          \
        CUresult e_ = (x);                                                                                        \
        if (e_) {                                                                                                 \
            fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, (int)e_);                        \
            exit(2);                                                                                              \
        }                                                                                                         \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CUBIN...\n", argv[0]);
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    int sms, iters = 2000;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CUdeviceptr buf;
    CK(cuMemAlloc(&buf, 4096 * sizeof(float)));
    CK(cuMemsetD32(buf, 0x3f800000, 4096));
    CUevent e0, e1;
    CK(cuEventCreate(&e0, 0));
    CK(cuEventCreate(&e1, 0));
    for (int cfg = 0; cfg < 3; cfg++) {
        for (int a = 1; a < argc; a++) {
            CUmodule m;
            CUfunction fn;
            CK(cuModuleLoad(&m, argv[a]));
            bool replay = cuModuleGetFunction(&fn, m, "banks") != CUDA_SUCCESS;
            if (replay)
                CK(cuModuleGetFunction(&fn, m, "replay"));
            /* banks: blocks of 4, 8, 16 warps, one an SM; replay: blocks of 4 warps, 1 or 2 an SM */
            int warps = replay ? 4 : 4 << cfg, per_sm = replay ? cfg + 1 : 1, ffmas = replay ? 1024 : 256;
            if (replay && cfg == 2) {
                CK(cuModuleUnload(m));
                continue;
            }
            void *args[] = {&buf, &iters};
            float best = 1e30f;
            for (int rep = 0; rep < 7; rep++) { /* the first launch warms up */
                float ms;
                CK(cuEventRecord(e0, 0));
                CK(cuLaunchKernel(fn, sms * per_sm, 1, 1, 32 * warps, 1, 1, 0, 0, args, 0));
                CK(cuEventRecord(e1, 0));
                CK(cuEventSynchronize(e1));
                CK(cuEventElapsedTime(&ms, e0, e1));
                if (rep && ms < best)
                    best = ms;
            }
            /* warp-FFMAs each sub-partition issues */
            double per_sp = (double)warps * per_sm / 4 * iters * ffmas;
            printf("%-36s %3d x %2d warps %8.3f ms %8.4f ns a warp-FFMA a sub-partition\n", argv[a], sms * per_sm,
                   warps, best, best * 1e6 / per_sp);
            CK(cuModuleUnload(m));
        }
    }
    return 0;
}
#endif
