/* What a FFMA's register operands cost on this GPU: a loop of 256 independent FFMAs whose register
 * fields and reuse flags bench/register_banks.py rewrites in the cubin (one pattern a file), each
 * file timed here on every SM at 4, 8 and 16 warps a block. The kernel's own values do not matter
 * (a rewritten loop computes garbage); its issue rate does: one warp-FFMA a cycle a sub-partition
 * is the FP32 pipe's rate, every cycle over it is an operand read the register file could not serve.
 *
 * The cubin: nvcc -O3 -gencode=arch=compute_90,code=sm_90 -DKERNEL_ONLY -cubin -o banks.cubin
 *            bench/register_banks.cu
 * Patterns:  bench/register_banks.py banks.cubin DIR      (writes DIR/<pattern>.cubin)
 * Usage:     register_banks CUBIN...    (a line a file: best of 6 launches, ns a warp-FFMA a
 *            sub-partition; at 1.98 GHz one cycle is 0.505 ns) */
#include <cuda.h>

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
    float s = 0;
#pragma unroll
    for (int i = 0; i < 16; i++)
        s += acc[i];
    if (s == 1234.5f)
        out[threadIdx.x] = s;
}

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
    for (int warps = 4; warps <= 16; warps *= 2) {
        printf("# %d blocks of %d warps, %d iterations of 256 FFMAs\n", sms, warps, iters);
        for (int a = 1; a < argc; a++) {
            CUmodule m;
            CUfunction fn;
            CK(cuModuleLoad(&m, argv[a]));
            CK(cuModuleGetFunction(&fn, m, "banks"));
            void *args[] = {&buf, &iters};
            float best = 1e30f;
            for (int rep = 0; rep < 7; rep++) { /* the first launch warms up */
                float ms;
                CK(cuEventRecord(e0, 0));
                CK(cuLaunchKernel(fn, sms, 1, 1, 32 * warps, 1, 1, 0, 0, args, 0));
                CK(cuEventRecord(e1, 0));
                CK(cuEventSynchronize(e1));
                CK(cuEventElapsedTime(&ms, e0, e1));
                if (rep && ms < best)
                    best = ms;
            }
            double per_sp = (double)warps / 4 * iters * 256; /* warp-FFMAs each sub-partition issues */
            printf("%-36s %8.3f ms %8.4f ns a warp-FFMA a sub-partition\n", argv[a], best, best * 1e6 / per_sp);
            CK(cuModuleUnload(m));
        }
    }
    return 0;
}
#endif
