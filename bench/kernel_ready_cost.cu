/* What every launch pays for shim_kernel_ready (kernels/common/kernel_load.h): ns per call on a
 * kernel already loaded, beside cudaGetDevice alone (part of it) and an empty kernel's launch, in
 * the same run. Usage: kernel_ready_cost [CALLS] */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "kernel_load.h"

__global__ void empty_kernel() {}

static double ns_per(long calls, std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / (double)calls;
}

int main(int argc, char **argv)
{
    const long calls = argc > 1 ? atol(argv[1]) : 1000000;
    if (cudaFree(0) != cudaSuccess) {
        printf("kernel_ready_cost: no usable GPU\n");
        return 77;
    }
    if (shim_kernel_ready((const void *)empty_kernel) != cudaSuccess) {
        printf("FAIL kernel_ready_cost: the kernel was refused with the device free\n");
        return 1;
    }
    double best_ready = 1e30, best_device = 1e30, best_launch = 1e30;
    for (int round = 0; round < 5; ++round) {
        auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < calls; ++i)
            if (shim_kernel_ready((const void *)empty_kernel) != cudaSuccess)
                return 1;
        best_ready = std::min(best_ready, ns_per(calls, t0));
        t0 = std::chrono::steady_clock::now();
        int device = 0;
        for (long i = 0; i < calls; ++i)
            if (cudaGetDevice(&device) != cudaSuccess)
                return 1;
        best_device = std::min(best_device, ns_per(calls, t0));
        const long launches = calls / 100;
        t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < launches; ++i)
            empty_kernel<<<1, 32>>>();
        if (cudaDeviceSynchronize() != cudaSuccess)
            return 1;
        best_launch = std::min(best_launch, ns_per(launches, t0));
    }
    printf("| per call | ns |\n| --- | ---: |\n");
    printf("| shim_kernel_ready, kernel loaded | %.1f |\n| cudaGetDevice alone | %.1f |\n", best_ready, best_device);
    printf("| empty kernel launch (enqueue, 1 of %ld, then one synchronize) | %.1f |\n", calls / 100, best_launch);
    printf("shim_kernel_ready adds %.1f %% to an empty kernel's launch (best of 5 rounds of %ld calls)\n",
           100.0 * best_ready / best_launch, calls);
    return 0;
}
