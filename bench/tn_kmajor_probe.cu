/* Does a TN product run faster computed straight from K-major shared memory? A probe, not a
 * library kernel (docs/notes/sgemm.md, "TN from K-major shared memory: a probe").
 *
 * In TN (column-major) both operands are K-contiguous. The library's kernels read their fragments
 * from [k][r] shared memory, so a K-contiguous operand is transposed on its way there: by 4-byte
 * copies (K4), or by 16-byte copies and a transpose in shared memory (K16), or by transpose_first's
 * copy of the whole operand before the product. Here each operand's k tile goes by 16-byte
 * cp.async into [r][k] rows of 32 k (128 bytes, no padding; row r's four-k chunk c at c ^ ((r / 4) %
 * 8), so the rows a warp reads at one c fall in distinct bank groups), and the fragments are read
 * along k: one float4 a row gives four k steps, 8 + 8 float4 (lane_place's 2 x 2 squares of lanes,
 * the library's placement) for 8 x 8 sums a thread over four steps: the same shared-memory reads
 * per FFMA as the [k][r] kernels, no transpose at all. The price is registers: the four-step
 * fragments are 64 a thread, double-buffered 128, so a block of 8 x 8 sums takes 254 registers.
 *
 * The tiles: 128x128 of 8 warps (64x32 a warp, one block an SM), and 128x64 of 4 warps (two an
 * SM), 3 or 4 stages; "col" rows place lanes in columns of 8 (lane % 8 down M) instead of 2 x 2
 * squares. Each is checked against cuBLAS on the same data, then timed against cuBLAS's pedantic
 * FP32 TN in the same process (7 rounds of 20 launches each, alternating, fastest round).
 * Usage: tn_kmajor_probe SHAPE...   (SHAPE: N for N^3, or MxNxK; col-major, lda = ldb = K, ldc = M) */
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include <cublas_v2.h>

__device__ __forceinline__ uint32_t saddr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp16(uint32_t d, const void *s, uint32_t bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(s), "r"(bytes));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void waitg() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

template <int BM, int BN, int WM, int WN, int STAGES, int MINB, bool LP = true>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)
    kdirect(int M, int N, int K, float alpha, const float *__restrict__ A, int lda, const float *__restrict__ B,
            int ldb, float beta, float *__restrict__ C, int ldc)
{
    constexpr int BK = 32, TM = 8, TN = 8;
    constexpr int WARPS_M = BM / WM, THREADS = (BM / WM) * (BN / WN) * 32;
    constexpr int LANES_M = WM / TM, LANES_N = WN / TN;
    static_assert(LANES_M * LANES_N == 32, "lanes");
    constexpr int SM_ = 4 * LANES_M, SN_ = 4 * LANES_N;
    constexpr int A_ST = BM * BK, B_ST = BN * BK;
    extern __shared__ float4 smem4[];
    float *As = reinterpret_cast<float *>(smem4), *Bs = As + STAGES * A_ST;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    /* raster: groups of 8 tile rows, as the library's tile_coords */
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    int tm, tn;
    {
        int t = blockIdx.x, per = 8 * tiles_n, g = t / per, f = g * 8, rows = min(tiles_m - f, 8), in = t - g * per;
        tm = f + in % rows;
        tn = in / rows;
    }
    const int m0 = tm * BM, n0 = tn * BN;
    /* loader: a thread copies chunk tid % 8 of rows tid / 8 + s THREADS / 8 (rows past the matrix read
     * its last row; k past K arrive as zeros) */
    constexpr int RSTEP = THREADS / 8, APT = BM / RSTEP, BPT = BN / RSTEP;
    const int lc = tid % 8, lr = tid / 8;
    const float *asrc[APT];
    const float *bsrc[BPT];
    uint32_t adst[APT], bdst[BPT];
#pragma unroll
    for (int s = 0; s < APT; ++s) {
        int r = lr + s * RSTEP;
        asrc[s] = A + (int64_t)min(m0 + r, M - 1) * lda + 4 * lc;
        adst[s] = 4u * (r * BK + 4 * (lc ^ ((r >> 2) & 7)));
    }
#pragma unroll
    for (int s = 0; s < BPT; ++s) {
        int r = lr + s * RSTEP;
        bsrc[s] = B + (int64_t)min(n0 + r, N - 1) * ldb + 4 * lc;
        bdst[s] = 4u * (r * BK + 4 * (lc ^ ((r >> 2) & 7)));
    }
    const uint32_t as0 = saddr(As), bs0 = saddr(Bs);
    const int ktiles = (K + BK - 1) / BK;
    auto issue = [&](int kt, int st) {
        const int k0 = kt * BK;
        const bool whole = k0 + BK <= K;
        const uint32_t kb = 4u * (uint32_t)min(max(K - k0 - 4 * lc, 0), 4);
#pragma unroll
        for (int s = 0; s < APT; ++s)
            cp16(as0 + 4u * st * A_ST + adst[s], asrc[s] + k0, whole ? 16u : kb);
#pragma unroll
        for (int s = 0; s < BPT; ++s)
            cp16(bs0 + 4u * st * B_ST + bdst[s], bsrc[s] + k0, whole ? 16u : kb);
    };
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        if (st < ktiles)
            issue(st, st);
        commit();
    }
    const int pm = LP ? 2 * ((lane >> 2) % (LANES_M / 2)) + (lane & 1) : lane % LANES_M;
    const int pn = LP ? 2 * ((lane >> 2) / (LANES_M / 2)) + ((lane >> 1) & 1) : lane / LANES_M;
    const int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN;
    const int ar = wm + 4 * pm, br = wn + 4 * pn;
    /* fragment rows within a stage, and their swizzle: chunk c of row r lies at c ^ sw */
    int aoff[TM], bsw[TN / 4];
    int asw[TM / 4], boff[TN];
#pragma unroll
    for (int s = 0; s < TM / 4; ++s) {
        asw[s] = ((ar + s * SM_) >> 2) & 7;
#pragma unroll
        for (int i = 0; i < 4; ++i)
            aoff[4 * s + i] = (ar + s * SM_ + i) * BK;
    }
#pragma unroll
    for (int s = 0; s < TN / 4; ++s) {
        bsw[s] = ((br + s * SN_) >> 2) & 7;
#pragma unroll
        for (int j = 0; j < 4; ++j)
            boff[4 * s + j] = (br + s * SN_ + j) * BK;
    }
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.f;
    int rs = 0, ws = STAGES - 1;
    float4 a[2][TM], b[2][TN];
    auto frags = [&](int buf, const float *as, const float *bs, int c) {
#pragma unroll
        for (int i = 0; i < TM; ++i)
            a[buf][i] = *reinterpret_cast<const float4 *>(as + aoff[i] + 4 * (c ^ asw[i / 4]));
#pragma unroll
        for (int j = 0; j < TN; ++j)
            b[buf][j] = *reinterpret_cast<const float4 *>(bs + boff[j] + 4 * (c ^ bsw[j / 4]));
    };
    waitg<STAGES - 2>();
    __syncthreads();
    const float *as = As, *bs = Bs;
    frags(0, as, bs, 0);
    for (int kt = 0; kt < ktiles; ++kt) {
#pragma unroll
        for (int c = 0; c < BK / 4; ++c) {
            if (c == BK / 4 - 1) {
                waitg<STAGES - 2>();
                __syncthreads();
                rs = rs + 1 == STAGES ? 0 : rs + 1;
                as = As + rs * A_ST;
                bs = Bs + rs * B_ST;
            }
            frags((c + 1) % 2, as, bs, (c + 1) % (BK / 4));
            if (c == 0) {
                if (kt + STAGES - 1 < ktiles)
                    issue(kt + STAGES - 1, ws);
                commit();
                ws = ws + 1 == STAGES ? 0 : ws + 1;
            }
            const float4 *ca = a[c % 2], *cb = b[c % 2];
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                float fa[TM], fb[TN];
#pragma unroll
                for (int i = 0; i < TM; ++i)
                    fa[i] = q == 0 ? ca[i].x : q == 1 ? ca[i].y : q == 2 ? ca[i].z : ca[i].w;
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    fb[j] = q == 0 ? cb[j].x : q == 1 ? cb[j].y : q == 2 ? cb[j].z : cb[j].w;
#pragma unroll
                for (int ib = 0; ib < TM / 2; ++ib)
#pragma unroll
                    for (int jj = 0; jj < TN / 2; ++jj) {
                        const int i = 2 * ib, j = 2 * (ib % 2 ? TN / 2 - 1 - jj : jj);
                        acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
                        acc[i][j + 1] = fmaf(fa[i], fb[j + 1], acc[i][j + 1]);
                        acc[i + 1][j] = fmaf(fa[i + 1], fb[j], acc[i + 1][j]);
                        acc[i + 1][j + 1] = fmaf(fa[i + 1], fb[j + 1], acc[i + 1][j + 1]);
                    }
            }
        }
    }
    waitg<0>();
#pragma unroll
    for (int sn = 0; sn < TN / 4; ++sn)
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
            const int j = n0 + br + sn * SN_ + jj;
            if (j >= N)
                continue;
#pragma unroll
            for (int sm = 0; sm < TM / 4; ++sm)
#pragma unroll
                for (int ii = 0; ii < 4; ++ii) {
                    const int i = m0 + ar + sm * SM_ + ii;
                    if (i < M) {
                        float *d = C + (int64_t)j * ldc + i;
                        float v = alpha * acc[4 * sm + ii][4 * sn + jj];
                        *d = beta == 0.f ? v : v + beta * *d;
                    }
                }
        }
}

template <int BM, int BN, int WM, int WN, int STAGES, int MINB, bool LP = true>
static void launch(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc)
{
    auto k = kdirect<BM, BN, WM, WN, STAGES, MINB, LP>;
    size_t smem = sizeof(float) * STAGES * (BM + BN) * 32;
    static bool set = false;
    if (!set) {
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        set = true;
    }
    int blocks = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    k<<<blocks, (BM / WM) * (BN / WN) * 32, smem>>>(M, N, K, 1.f, A, lda, B, ldb, 0.f, C, ldc);
}

typedef void (*launch_fn)(int, int, int, const float *, int, const float *, int, float *, int);
struct variant { const char *name; launch_fn f; };
static variant variants[] = {
    {"128x128s4", launch<128, 128, 64, 32, 4, 1>},
    {"128x128s3", launch<128, 128, 64, 32, 3, 1>},
    {"128x128s4col", launch<128, 128, 64, 32, 4, 1, false>},
    {"128x64s4", launch<128, 64, 64, 32, 4, 2>},
    {"128x64s3", launch<128, 64, 64, 32, 3, 2>},
    {"128x64s4col", launch<128, 64, 64, 32, 4, 2, false>},
};

int main(int argc, char **argv)
{
    cublasHandle_t h;
    cublasCreate(&h);
    cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
    int failed = 0;
    for (int ai = 1; ai < argc; ++ai) {
        int M, N, K;
        if (sscanf(argv[ai], "%dx%dx%d", &M, &N, &K) != 3) { M = N = K = atoi(argv[ai]); }
        int lda = K, ldb = K, ldc = M;
        size_t na = (size_t)lda * M, nb = (size_t)ldb * N, nc = (size_t)ldc * N;
        std::vector<float> ha(na), hb(nb);
        srand(ai);
        for (auto &x : ha) x = rand() / (float)RAND_MAX - 0.5f;
        for (auto &x : hb) x = rand() / (float)RAND_MAX - 0.5f;
        float *A, *B, *C, *R;
        cudaMalloc(&A, na * 4); cudaMalloc(&B, nb * 4); cudaMalloc(&C, nc * 4); cudaMalloc(&R, nc * 4);
        cudaMemcpy(A, ha.data(), na * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(B, hb.data(), nb * 4, cudaMemcpyHostToDevice);
        float one = 1, zero = 0;
        cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, A, lda, B, ldb, &zero, R, ldc);
        std::vector<float> hr(nc), hc(nc);
        cudaMemcpy(hr.data(), R, nc * 4, cudaMemcpyDeviceToHost);
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0); cudaEventCreate(&e1);
        const int nv = sizeof variants / sizeof *variants;
        std::vector<float> best(nv + 1, 1e30f);
        for (int v = 0; v < nv; ++v) {
            cudaMemset(C, 0xff, nc * 4);
            variants[v].f(M, N, K, A, lda, B, ldb, C, ldc);
            cudaError_t e = cudaDeviceSynchronize();
            cudaMemcpy(hc.data(), C, nc * 4, cudaMemcpyDeviceToHost);
            double md = 0;
            for (size_t i = 0; i < nc; ++i) md = std::max(md, (double)fabsf(hc[i] - hr[i]));
            /* the sums of K products of values in [-0.5, 0.5]: both sides' rounding stays far below this */
            if (e != cudaSuccess || !(md < 1e-6 * K + 1e-4)) {
                printf("%s %dx%dx%d: ERROR %s, max |ours - cuBLAS| %g\n", variants[v].name, M, N, K, cudaGetErrorString(e), md);
                failed = 1;
            }
        }
        for (int round = 0; round < 7; ++round)
            for (int v = 0; v <= nv; ++v) {
                const int reps = 20;
                cudaEventRecord(e0);
                for (int r = 0; r < reps; ++r)
                    if (v == nv) cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, A, lda, B, ldb, &zero, R, ldc);
                    else variants[v].f(M, N, K, A, lda, B, ldb, C, ldc);
                cudaEventRecord(e1);
                cudaEventSynchronize(e1);
                float ms;
                cudaEventElapsedTime(&ms, e0, e1);
                best[v] = std::min(best[v], ms / reps);
            }
        printf("%dx%dx%d TN cublas %.4f ms", M, N, K, best[nv]);
        for (int v = 0; v < nv; ++v) printf("  %s %.4f (%.3fx)", variants[v].name, best[v], best[nv] / best[v]);
        printf("\n");
        fflush(stdout);
        cudaFree(A); cudaFree(B); cudaFree(C); cudaFree(R);
    }
    return failed;
}
