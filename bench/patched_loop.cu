/* One pipelined kernel three ways: as built into this program, and loaded from cubin files (the same
 * kernel compiled with -cubin, then the same cubin with its k loop's machine code rewritten by
 * tools/sass_reorder.py). Each is checked bitwise against the built-in kernel on the same operands
 * and timed in turns with it and with cuBLAS pedantic FP32 on the same product, in one process. What
 * it answers: does an order of the FFMAs that ptxas would not choose (more operand reuse, fewer
 * register-bank collisions) make the kernel faster (docs/notes/sgemm.md)?
 *
 * Built by meson (build/bench/patched_loop) for 128x256x8 with both operands by 16-byte copies (the
 * NT form); another kernel with -DPROBE_CFG=cfg_128x128_w4 -DPROBE_MA=3 -DPROBE_MB=3 (K16, TN) etc.
 * The cubin, the same source with the same flags:
 *   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -Ikernels/sgemm -Ikernels/common -Isrc/util \
 *        -Icompat -Iinclude -Ibuild -cubin -o loop.cubin bench/patched_loop.cu
 *   tools/sass_reorder.py loop.cubin reordered.cubin
 * Usage: patched_loop M N K ROUNDS CUBIN...   (operands as the modes say: MA/MB 0 = LOAD_R16, 3 = LOAD_K16)
 * Output: a line per kernel: bitwise the same or not, median ms, ratio to the built-in kernel and to
 * cuBLAS; exit status 1 when any cubin's result differs. */
#include <cublas_v2.h>
#include <cuda.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pipelined_kernel.cuh"

#ifndef PROBE_CFG
#define PROBE_CFG cfg_128x256_k8
#endif
#ifndef PROBE_MA
#define PROBE_MA 0
#endif
#ifndef PROBE_MB
#define PROBE_MB 0
#endif

using namespace sgemm;
using CFG = PROBE_CFG;
static constexpr int MA = PROBE_MA, MB = PROBE_MB;
static constexpr size_t SMEM = smem_bytes<CFG, MA, MB>();

#define CK(x)                                                                                                     \
    do {                                                                                                          \
        long long e_ = (long long)(x);                                                                            \
        if (e_) {                                                                                                 \
            fprintf(stderr, "%s:%d: %s failed (%lld)\n", __FILE__, __LINE__, #x, e_);                           \
            exit(2);                                                                                              \
        }                                                                                                         \
    } while (0)

struct runner {
    const char *name;
    CUfunction fn; /* nullptr: the built-in kernel; cuBLAS: name "cublas" */
};

static problem q;
static sched sc;
static int blocks;
static cublasHandle_t handle;
static float *dA, *dB, *dC;
static int M, N, K;

static void launch(const runner &r, cudaStream_t s)
{
    if (!strcmp(r.name, "cublas")) {
        const float one = 1.0f, zero = 0.0f;
        CK(cublasSgemm(handle, MA == LOAD_K16 || MA == LOAD_K4 ? CUBLAS_OP_T : CUBLAS_OP_N,
                       MB == LOAD_K16 || MB == LOAD_K4 ? CUBLAS_OP_N : CUBLAS_OP_T, M, N, K, &one, q.a.ptr,
                       (int)q.a.ld, q.b.ptr, (int)q.b.ld, &zero, dC, M));
        return;
    }
    if (!r.fn) {
        pipelined_kernel<CFG, MA, MB><<<blocks, CFG::THREADS, SMEM, s>>>(q, sc, nullptr);
        CK(cudaGetLastError());
        return;
    }
    float *ws = nullptr;
    void *args[] = {(void *)&q, (void *)&sc, (void *)&ws};
    CK(cuLaunchKernel(r.fn, blocks, 1, 1, CFG::THREADS, 1, 1, (unsigned)SMEM, (CUstream)s, args, nullptr));
}

static CUfunction load(const char *path)
{
    CUmodule mod;
    CK(cuModuleLoad(&mod, path));
    unsigned count = 0;
    CK(cuModuleGetFunctionCount(&count, mod));
    std::vector<CUfunction> fns(count);
    CK(cuModuleEnumerateFunctions(fns.data(), count, mod));
    CUfunction f = nullptr;
    for (CUfunction g : fns) {
        const char *name = nullptr;
        CK(cuFuncGetName(&name, g));
        if (strstr(name, "pipelined_kernel"))
            f = g;
    }
    if (!f) {
        fprintf(stderr, "%s: no pipelined_kernel\n", path);
        exit(2);
    }
    CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)SMEM));
    return f;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: patched_loop M N K ROUNDS CUBIN...\n");
        return 2;
    }
    M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
    const int rounds = atoi(argv[4]);
    const bool a_k = MA == LOAD_K16 || MA == LOAD_K4, b_k = MB == LOAD_K16 || MB == LOAD_K4;
    const int lda = a_k ? K : M, ldb = b_k ? K : N;
    const size_t na = (size_t)lda * (a_k ? M : K), nb = (size_t)ldb * (b_k ? N : K), nc = (size_t)M * N;
    CK(cudaMalloc(&dA, na * 4));
    CK(cudaMalloc(&dB, nb * 4));
    CK(cudaMalloc(&dC, nc * 4));
    {
        std::vector<float> h(std::max(na, nb));
        unsigned s = 12345;
        for (auto &x : h)
            x = ((s = s * 1664525u + 1013904223u) >> 8) * (2.0f / 16777216.0f) - 1.0f;
        CK(cudaMemcpy(dA, h.data(), na * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dB, h.data() + 7, (nb - 7) * 4, cudaMemcpyHostToDevice));
    }
    q.m = M, q.n = N, q.k = K, q.alpha = 1.0f, q.beta = 0.0f;
    q.a = {dA, lda, M, lda % 4 == 0};
    q.b = {dB, ldb, N, ldb % 4 == 0};
    q.c = dC, q.ldc = M, q.c_vec = M % 4 == 0;
    const int tm = (M + CFG::BM - 1) / CFG::BM, tn = (N + CFG::BN - 1) / CFG::BN;
    sc = {tm, tn, tm * tn, 1, K, 0, 0};
    blocks = tm * tn;
    CK(cudaFuncSetAttribute(pipelined_kernel<CFG, MA, MB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    CK(cublasCreate(&handle));
    CK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    CK(cublasSetStream(handle, stream));

    std::vector<runner> rs = {{"built-in", nullptr}, {"cublas", nullptr}};
    for (int i = 5; i < argc; ++i)
        rs.push_back({argv[i], load(argv[i])});

    /* bitwise: every kernel against the built-in one, C poisoned before each */
    std::vector<float> ref(nc), got(nc);
    int bad = 0;
    for (size_t i = 0; i < rs.size(); ++i) {
        if (i == 1)
            continue;
        CK(cudaMemset(dC, 0xff, nc * 4));
        launch(rs[i], stream);
        CK(cudaStreamSynchronize(stream));
        CK(cudaMemcpy(i == 0 ? ref.data() : got.data(), dC, nc * 4, cudaMemcpyDeviceToHost));
        if (i > 0) {
            const bool same = !memcmp(ref.data(), got.data(), nc * 4);
            printf("%s: %s\n", rs[i].name, same ? "bitwise the same as the built-in kernel" : "DIFFERS");
            bad += !same;
        }
    }

    /* timing: rounds of every runner in turn, 10 launches a sample */
    std::vector<std::vector<double>> ms(rs.size());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int r = -2; r < rounds; ++r)
        for (size_t i = 0; i < rs.size(); ++i) {
            CK(cudaEventRecord(e0, stream));
            for (int l = 0; l < 10; ++l)
                launch(rs[i], stream);
            CK(cudaEventRecord(e1, stream));
            CK(cudaEventSynchronize(e1));
            float t;
            CK(cudaEventElapsedTime(&t, e0, e1));
            if (r >= 0)
                ms[i].push_back(t / 10);
        }
    std::vector<double> med(rs.size());
    for (size_t i = 0; i < rs.size(); ++i) {
        std::sort(ms[i].begin(), ms[i].end());
        med[i] = ms[i][ms[i].size() / 2];
    }
    printf("%d x %d x %d, modes %d %d, %d blocks of %d threads, %zu bytes of shared memory, %d rounds\n", M, N, K, MA,
           MB, blocks, CFG::THREADS, SMEM, rounds);
    printf("%-40s %10s %8s %8s %8s\n", "kernel", "ms", "fastest", "/built", "cuBLAS/");
    for (size_t i = 0; i < rs.size(); ++i)
        printf("%-40s %10.4f %8.4f %8.4f %8.4f\n", rs[i].name, med[i], ms[i][0], med[i] / med[0], med[1] / med[i]);
    return bad ? 1 : 0;
}
