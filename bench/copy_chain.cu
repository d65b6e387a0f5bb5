/* What transpose_first's copy costs in place: per square n and per set of copies (A: TT, A and B:
 * TN), the copy followed by the inner plan as its programmatic dependent, the inner plan alone on
 * the same workspace, an empty kernel followed by the inner plan (the chain's own cost), and a
 * plain 16-byte copy of the same bytes, untransposed, followed by the inner plan (what a transpose
 * as fast as a copy would cost), each timed between events behind an untimed identical run (min of
 * 30, µs). "exposed" is the chain less the inner plan alone: what the copy adds to a call;
 * "plain_exposed" the same for the plain copy; "serial" the copy, then the inner plan launched
 * only once it is done (not a dependent); "beside" the inner plan on its copied operands with the same
 * copy launched just after it on a second stream into a workspace of its own (both done: what a copy
 * overlapped with the product would cost at best, the two sharing the SMs), "copy" that copy alone;
 * with COPY_CHAIN_IDLE_SMS=n, "idle_beside" the inner plan with a plain copy of the same bytes beside it
 * on n blocks that fit only SMs without a block of the inner plan (idle_copy), "idle_copy" that copy
 * alone (n: the SMs the inner plan leaves idle, e.g. 11 at 1400^3 on 121 tiles of one block an SM;
 * -1 without it); "copy_elsewhere" the copy into a workspace of its own, then the inner plan on copies
 * made before (its dependent, as in the chain: the copy's timing and traffic without its data
 * feeding the product), "through" a read of 64 MB of other memory then the inner plan as its
 * dependent, "through_alone" that read alone. Usage: copy_chain [N | MxNxK]... (default 1000 1100 1400
 * 1536; TT copies A, TN A and B; COPY_CHAIN_INNER=VARIANT: that variant as the inner plan) */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

extern "C" {
#include "bench_util.h"
}
#include "sgemm_internal.h"

using namespace sgemm;

__global__ void empty_allowing()
{
    asm volatile("griddepcontrol.launch_dependents;");
}

/* the four float4s of the span n0 (s0 -> d0) then n1 (s1 -> d1), total n0 + n1, that a thread copies
 * from index first on, blockDim.x apart: all loads in flight before the stores */
__device__ __forceinline__ void copy_four(size_t first, size_t total, const float4 *s0, float4 *d0, size_t n0,
                                          const float4 *s1, float4 *d1)
{
    float4 v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const size_t i = first + (size_t)e * blockDim.x;
        if (i < total)
            v[e] = i < n0 ? s0[i] : s1[i - n0];
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const size_t i = first + (size_t)e * blockDim.x;
        if (i < total) {
            if (i < n0)
                d0[i] = v[e];
            else
                d1[i - n0] = v[e];
        }
    }
}

/* n0 float4s from s0 to d0 and n1 from s1 to d1, four a thread in flight (the transposing copy's
 * 64 bytes a lane), a warp's load or store 512 contiguous bytes, allowing the dependent as each
 * block ends, as the transposing copy does */
__global__ void plain_copy(const float4 *s0, float4 *d0, size_t n0, const float4 *s1, float4 *d1, size_t n1)
{
    copy_four((size_t)blockIdx.x * blockDim.x * 4 + threadIdx.x, n0 + n1, s0, d0, n0, s1, d1);
    /* after the stores ("memory": the compiler may not move it above them) */
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

/* the same bytes as plain_copy, by a grid of a few blocks striding over them, each block holding
 * `dynamic` bytes of shared memory it does not use: enough that it cannot share an SM with a block
 * of the inner plan, so that it runs only on the SMs the inner plan leaves idle */
__global__ void __launch_bounds__(1024) idle_copy(const float4 *s0, float4 *d0, size_t n0, const float4 *s1, float4 *d1,
                                                  size_t n1)
{
    const size_t total = n0 + n1, step = (size_t)gridDim.x * blockDim.x * 4;
    for (size_t first = (size_t)blockIdx.x * blockDim.x * 4 + threadIdx.x; first < total; first += step)
        copy_four(first, total, s0, d0, n0, s1, d1);
}

/* reads n float4 (summed, one word written a block so the loads stay), allowing the dependent as
 * each block ends: traffic through L2 before the inner plan, touching none of its data */
__global__ void stream_through(const float4 *src, size_t n, float *sink)
{
    float acc = 0.0f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const float4 v = src[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 12345.0f)
        sink[blockIdx.x] = acc;
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

static cudaStream_t stream;

template <class F> static double timed_us(F f)
{
    cudaEvent_t a, b;
    BENCH_CUDA(cudaEventCreate(&a));
    BENCH_CUDA(cudaEventCreate(&b));
    double best = 1e30;
    for (int r = 0; r < 30; ++r) {
        f();
        BENCH_CUDA(cudaEventRecord(a, stream));
        f();
        BENCH_CUDA(cudaEventRecord(b, stream));
        BENCH_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        BENCH_CUDA(cudaEventElapsedTime(&ms, a, b));
        best = std::min(best, 1e3 * ms);
    }
    BENCH_CUDA(cudaEventDestroy(a));
    BENCH_CUDA(cudaEventDestroy(b));
    return best;
}

int main(int argc, char **argv)
{
    struct mnk {
        int m, n, k;
    };
    std::vector<mnk> sizes;
    for (int i = 1; i < argc; ++i) {
        mnk s;
        const int got = sscanf(argv[i], "%dx%dx%d", &s.m, &s.n, &s.k);
        if (got == 1)
            s.n = s.k = s.m;
        if ((got != 1 && got != 3) || s.m < 1 || s.n < 1 || s.k < 1) {
            fprintf(stderr, "copy_chain: %s: expected N or MxNxK\n", argv[i]);
            return 2;
        }
        sizes.push_back(s);
    }
    if (sizes.empty())
        sizes = {{1000, 1000, 1000}, {1100, 1100, 1100}, {1400, 1400, 1400}, {1536, 1536, 1536}};
    if (cudaFree(0) != cudaSuccess) {
        printf("copy_chain: no usable GPU\n");
        return 77;
    }
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaStream_t side;
    cudaEvent_t fork, join;
    BENCH_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    BENCH_CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    BENCH_CUDA(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    size_t floats = 1;
    for (const mnk &s : sizes)
        floats = std::max(floats, (size_t)std::max(s.m, s.n) * s.k);
    const size_t work_bytes = 4 * floats * sizeof(float) + (64u << 20);
    float *a, *b, *c;
    void *work, *work2;
    BENCH_CUDA(cudaMalloc(&a, floats * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&b, floats * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&c, floats * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&work, work_bytes));
    BENCH_CUDA(cudaMalloc(&work2, work_bytes));
    bench_fill_device(a, floats, 1);
    bench_fill_device(b, floats, 2);
    printf("m,n,k,copies,chain_us,inner_us,empty_then_inner_us,exposed_us,plain_chain_us,plain_exposed_us,"
           "serial_us,beside_us,copy_us,idle_beside_us,idle_copy_us,copy_elsewhere_us,through_us,through_alone_us,inner_plan\n");
    const size_t through_n = (64u << 20) / sizeof(float4);
    float4 *through_src;
    float *sink;
    BENCH_CUDA(cudaMalloc(&through_src, through_n * sizeof(float4)));
    BENCH_CUDA(cudaMemset(through_src, 0, through_n * sizeof(float4)));
    BENCH_CUDA(cudaMalloc(&sink, 4096 * sizeof(float)));
    const int idle_sms = getenv("COPY_CHAIN_IDLE_SMS") ? atoi(getenv("COPY_CHAIN_IDLE_SMS")) : 0;
    int dev = 0, smem_sm = 0, smem_block = 0;
    BENCH_CUDA(cudaGetDevice(&dev));
    BENCH_CUDA(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    BENCH_CUDA(cudaDeviceGetAttribute(&smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    /* more than an SM holding a block of 66 KB (128x128 tiles, four stages) has left */
    const int idle_smem = std::min(smem_block, smem_sm - (60 << 10));
    BENCH_CUDA(cudaFuncSetAttribute(idle_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, idle_smem));
    for (const mnk &s : sizes) {
        for (int copies : {(int)COPY_A, (int)(COPY_A | COPY_B)}) {
            shim_sgemm_args p;
            memset(&p, 0, sizeof p);
            p.transa = 1;
            p.transb = copies == COPY_A ? 1 : 0; /* TT copies A, TN both */
            p.m = s.m, p.n = s.n, p.k = s.k;
            p.alpha = 1.0f;
            p.beta = 0.5f;
            p.a = a, p.lda = s.k, p.b = b, p.ldb = p.transb ? s.n : s.k, p.c = c, p.ldc = s.m;
            p.work = work, p.work_bytes = work_bytes, p.stream = stream, p.math = SHIM_SGEMM_FP32;
            shim_sgemm_args q;
            const shim_sgemm_variant *inner = copied_form_variant(&p, copies, &q);
            if (const char *name = getenv("COPY_CHAIN_INNER")) { /* a variant by name in place of the selector's */
                inner = shim_sgemm_find(name);
                if (!inner || !inner->accepts(&q)) {
                    fprintf(stderr, "copy_chain: %s does not take the copied form of %dx%dx%d\n", name, s.m, s.n, s.k);
                    return 2;
                }
            }
            BENCH_CUDA(transpose_first_copy(&p, copies, &q)); /* q: the copies in the workspace, the rest after */
            shim_sgemm_args alone = q;
            alone.dependent = 0;
            const double chain = timed_us([&] {
                shim_sgemm_args r;
                BENCH_CUDA(transpose_first_copy(&p, copies, &r));
                BENCH_CUDA(inner->launch(&r));
            });
            const double by_itself = timed_us([&] { BENCH_CUDA(inner->launch(&alone)); });
            const double after_empty = timed_us([&] {
                empty_allowing<<<1, 32, 0, stream>>>();
                BENCH_CUDA(inner->launch(&q));
            });
            /* the same bytes, untransposed, into where the copies go (the inner plan then reads
             * them as its operands: finite values, the same time) */
            const size_t n0 = (size_t)s.m * s.k / 4, n1 = copies == COPY_A ? 0 : (size_t)s.n * s.k / 4;
            const unsigned plain_blocks = (unsigned)((n0 + n1 + 1023) / 1024);
            const double plain = timed_us([&] {
                plain_copy<<<plain_blocks, 256, 0, stream>>>(
                    reinterpret_cast<const float4 *>(a), reinterpret_cast<float4 *>(const_cast<float *>(q.a)), n0,
                    reinterpret_cast<const float4 *>(b), reinterpret_cast<float4 *>(const_cast<float *>(q.b)), n1);
                BENCH_CUDA(inner->launch(&q));
            });
            /* the copy, then the inner plan not a dependent: launched only once the copy is done */
            const double serial = timed_us([&] {
                shim_sgemm_args r;
                BENCH_CUDA(transpose_first_copy(&p, copies, &r));
                r.dependent = 0;
                BENCH_CUDA(inner->launch(&r));
            });
            /* the inner plan, and the copy into a workspace of its own on a second stream, launched
             * after it: both are in flight together; the time until both are done */
            auto inner_beside = [&](auto copy_on_side) {
                return timed_us([&] {
                    BENCH_CUDA(cudaEventRecord(fork, stream));
                    BENCH_CUDA(cudaStreamWaitEvent(side, fork, 0));
                    BENCH_CUDA(inner->launch(&alone));
                    copy_on_side();
                    BENCH_CUDA(cudaEventRecord(join, side));
                    BENCH_CUDA(cudaStreamWaitEvent(stream, join, 0));
                });
            };
            shim_sgemm_args p2 = p;
            p2.work = work2, p2.stream = side;
            const double beside = inner_beside([&] {
                shim_sgemm_args r2;
                BENCH_CUDA(transpose_first_copy(&p2, copies, &r2));
            });
            const double copy_only = timed_us([&] {
                shim_sgemm_args r;
                BENCH_CUDA(transpose_first_copy(&p, copies, &r));
            });
            double idle_beside = -1, idle_alone = -1;
            if (idle_sms > 0) {
                auto idle = [&](cudaStream_t on) {
                    idle_copy<<<idle_sms, 1024, idle_smem, on>>>(
                        reinterpret_cast<const float4 *>(a), reinterpret_cast<float4 *>(static_cast<float *>(work2)), n0,
                        reinterpret_cast<const float4 *>(b),
                        reinterpret_cast<float4 *>(static_cast<float *>(work2) + floats), n1);
                };
                idle_beside = inner_beside([&] { idle(side); });
                idle_alone = timed_us([&] { idle(stream); });
            }
            shim_sgemm_args p3 = p;
            p3.work = work2;
            const double elsewhere = timed_us([&] {
                shim_sgemm_args r3;
                BENCH_CUDA(transpose_first_copy(&p3, copies, &r3));
                BENCH_CUDA(inner->launch(&q));
            });
            const double through = timed_us([&] {
                stream_through<<<1056, 256, 0, stream>>>(through_src, through_n, sink);
                BENCH_CUDA(inner->launch(&q));
            });
            const double through_alone =
                timed_us([&] { stream_through<<<1056, 256, 0, stream>>>(through_src, through_n, sink); });
            char how[256];
            shim_sgemm_describe(inner, &q, how, sizeof how);
            printf("%d,%d,%d,%s,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,\"%s\"\n", s.m,
                   s.n, s.k, copies == COPY_A ? "A" : "AB", chain, by_itself, after_empty, chain - by_itself, plain,
                   plain - by_itself, serial, beside, copy_only, idle_beside, idle_alone, elsewhere, through,
                   through_alone, how);
        }
    }
    return 0;
}
