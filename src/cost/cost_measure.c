/* Fills the cost model by measuring this machine once: the pinned bus each way, the host thread
 * pool's copy rate, shimblas's kernels on device data, the fixed cost of a GPU call, and the CPU
 * BLAS on both routines. The result is cached in a small text file keyed by the device, driver,
 * library version and CPU BLAS settings, so later processes skip the ~0.2 s of measuring. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "cost_cache.h"
#include "cost_model.h"
#include "cpu_blas.h"
#include "gpu.h"
#include "gpu_internal.h"
#include "gpu_pipeline.h"
#include "log.h"
#include "sgemm_kernels.h"
#include "sgemv_kernels.h"
#include "stats.h"

static shim_cost_model model;
static int have_model;
static atomic_int asked; /* shim_cost_model_get was called */
static char origin[PATH_MAX + 200]; /* where the model came from, for the report */
static pthread_once_t model_once = PTHREAD_ONCE_INIT;

static void fill_random(float *p, size_t n)
{
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (float)((double)(s >> 40) / (double)(1ull << 24)) - 0.5f;
    }
}

/* best of reps: the machine at its steady speed, not its first-touch costs */
#define BEST_OF(reps, best_ms, body)                                                                         \
    do {                                                                                                     \
        best_ms = 1e30;                                                                                      \
        for (int rep_ = 0; rep_ < (reps); rep_++) {                                                          \
            double t0_ = shim_now_ms();                                                                      \
            body;                                                                                            \
            double t_ = shim_now_ms() - t0_;                                                                 \
            if (t_ < best_ms)                                                                                \
                best_ms = t_;                                                                                \
        }                                                                                                    \
    } while (0)

static int measure_gpu(shim_cost_model *m, const char **why)
{
    shim_gpu_thread *t = shim_gpu_thread_state(why);
    if (!t)
        return -1;
    const size_t floats = (size_t)16 << 20; /* 64 MB of host data */
    const size_t dev_floats = 3 * floats;   /* device data well beyond the 60 MB L2 */
    float *host = malloc(floats * sizeof(float)), *pinned = NULL, *dev = NULL;
    void *work = NULL;
    /* nothing here may touch the legacy default stream or synchronise the device: a program may be
     * capturing a graph on a blocking stream right now (the first call of a process can come then),
     * and such a call would spoil its capture. Device memory comes and goes on the library's
     * non-blocking stream, and every copy runs there. */
    int rc = !host ||
             shim_gpu_fail(cudaMallocHost((void **)&pinned, floats * sizeof(float)), "measure", why) ||
             shim_gpu_fail(cudaMallocAsync((void **)&dev, dev_floats * sizeof(float), t->stream), "measure", why);
    double best;
    if (!rc) {
        fill_random(host, floats);
        BEST_OF(3, best, shim_host_pack(host, (int64_t)floats, pinned, (int)floats, 1, 0));
        m->pack_gbps = floats * 4.0 / best * 1e-6;
        BEST_OF(3, best, {
            cudaMemcpyAsync(dev, pinned, floats * 4, cudaMemcpyHostToDevice, t->stream);
            cudaStreamSynchronize(t->stream);
        });
        m->h2d_gbps = floats * 4.0 / best * 1e-6;
        BEST_OF(3, best, {
            cudaMemcpyAsync(pinned, dev, floats * 4, cudaMemcpyDeviceToHost, t->stream);
            cudaStreamSynchronize(t->stream);
        });
        m->d2h_gbps = floats * 4.0 / best * 1e-6;
        for (size_t off = floats; off < dev_floats; off += floats) /* random data, never zeros */
            rc = rc || shim_gpu_fail(cudaMemcpyAsync(dev + off, pinned, floats * 4, cudaMemcpyHostToDevice, t->stream),
                                     "measure", why);

        /* kernels on device data: a 2048 square sgemm; sgemv over 128 MB in both forms */
        const int n = 2048;
        float *a = dev, *b = dev + (size_t)n * n, *c = dev + 2 * (size_t)n * n;
        shim_sgemm_args g = {.m = n,
                             .n = n,
                             .k = n,
                             .alpha = 1.0f,
                             .a = a,
                             .lda = n,
                             .b = b,
                             .ldb = n,
                             .c = c,
                             .ldc = n,
                             .stream = t->stream,
                             .math = shim_config_get()->sgemm_math};
        const shim_sgemm_variant *gv = shim_sgemm_select(&g);
        g.work_bytes = shim_sgemm_work_bytes(gv, &g);
        rc = rc || (g.work_bytes && shim_gpu_fail(cudaMallocAsync(&work, g.work_bytes, t->stream), "measure", why));
        g.work = work;
        BEST_OF(3, best, {
            shim_sgemm_run(gv, &g);
            cudaStreamSynchronize(t->stream);
        });
        m->gpu_sgemm_gflops = 2.0 * n * n * (double)n / best * 1e-6;
        const int rows = 4096, cols = 8192;
        double worst = 0;
        for (int trans = 0; trans < 2 && !rc; trans++) {
            shim_sgemv_args s = {trans,
                                 rows,
                                 cols,
                                 1.0f,
                                 0.0f,
                                 dev,
                                 rows,
                                 dev + (size_t)rows * cols,
                                 dev + (size_t)rows * cols + cols,
                                 NULL,
                                 0,
                                 t->stream};
            const shim_sgemv_variant *sv = shim_sgemv_select(&s);
            if (shim_sgemv_work_bytes(sv, &s))
                continue; /* these shapes need no workspace; skip rather than allocate */
            BEST_OF(3, best, {
                shim_sgemv_run(sv, &s);
                cudaStreamSynchronize(t->stream);
            });
            if (best > worst)
                worst = best;
        }
        m->gpu_sgemv_gbps = worst > 0 ? 4.0 * rows * (double)cols / worst * 1e-6 : 1000.0;
        rc = rc || shim_gpu_fail(cudaGetLastError(), "measuring kernels", why);
    }
    if (!rc) {
        /* the fixed cost of a small call on host data, all the way through the executor */
        shim_gemm_problem tiny = {0, 0, 16, 16, 16, 1.0f, host, 16, host + 256, 16, 0.0f, host + 512, 16, {0, 0}};
        const shim_operands host_operands = {SHIM_MEM_PAGEABLE, SHIM_MEM_PAGEABLE, SHIM_MEM_PAGEABLE};
        shim_written written;
        shim_written_init(&written);
        BEST_OF(5, best, rc |= shim_gpu_sgemm(&tiny, &host_operands, &written, why));
        shim_written_free(&written);
        m->gpu_call_ms = best;
    }
    free(host);
    if (dev)
        cudaFreeAsync(dev, t->stream);
    if (work)
        cudaFreeAsync(work, t->stream);
    cudaStreamSynchronize(t->stream); /* (the pinned buffer's last copies done) */
    if (pinned)
        cudaFreeHost(pinned);
    return rc ? -1 : 0;
}

static shim_origin measured_origin; /* the interface whose CPU side the model measures */

static void measure_cpu(shim_cost_model *m)
{
    const shim_origin o = measured_origin;
    /* sgemm: t = call + flops / rate from two sizes */
    const int big = 1024, small = 128;
    const size_t floats = 3 * (size_t)big * big;
    float *a = malloc(sizeof(float) * floats);
    if (!a)
        return;
    fill_random(a, floats);
    double t_big, t_small;
    shim_gemm_problem pb = {0, 0, big, big, big, 1.0f, a, big, a + big * big, big, 0.0f, a + 2 * big * big, big, o};
    shim_gemm_problem ps = {0, 0, small, small, small, 1.0f, a, small, a + big * big, small, 0.0f, a + 2 * big * big,
                            small, o};
    shim_cpu_sgemm(&pb); /* wakes the CPU BLAS's threads */
    BEST_OF(3, t_big, shim_cpu_sgemm(&pb));
    BEST_OF(5, t_small, shim_cpu_sgemm(&ps));
    double f_big = 2.0 * big * big * (double)big, f_small = 2.0 * small * small * (double)small;
    m->cpu_sgemm_gflops = (f_big - f_small) / ((t_big - t_small > 1e-6 ? t_big - t_small : 1e-6) * 1e6);
    m->cpu_sgemm_call_ms = t_small - f_small / (m->cpu_sgemm_gflops * 1e6);
    if (m->cpu_sgemm_call_ms < 1e-6)
        m->cpu_sgemm_call_ms = 1e-6; /* (a fixed cost too small to see, but a cost) */
    /* sgemv: bytes of A per second from a 64 MB matrix (beyond the CPU's caches, as the calls that
     * could go to the GPU are) and the fixed cost from a tiny one */
    const int rows = 4096, cols = 4096;
    float *v = malloc(sizeof(float) * ((size_t)rows * cols + rows + cols));
    if (v) {
        for (size_t i = 0; i < (size_t)rows * cols + rows + cols; i++)
            v[i] = (float)(i % 1021) * 1e-3f - 0.5f;
        float *x = v + (size_t)rows * cols, *y = x + rows;
        shim_gemv_problem vb = {1, rows, cols, 1.0f, v, rows, x, 1, 0.0f, y, 1, o};
        shim_gemv_problem vs = {1, 64, 64, 1.0f, v, 64, x, 1, 0.0f, y, 1, o};
        double t_vb, t_vs;
        BEST_OF(3, t_vb, shim_cpu_sgemv(&vb));
        BEST_OF(5, t_vs, shim_cpu_sgemv(&vs));
        m->cpu_sgemv_gbps = 4.0 * rows * (double)cols / ((t_vb - t_vs > 1e-6 ? t_vb - t_vs : 1e-6) * 1e6);
        m->cpu_sgemv_call_ms = t_vs;
        free(v);
    }
    free(a);
}

/* the machine setup the model holds for: the device, its driver, this library, the CPU BLAS and
 * the variables that set its threads and kernels (any length: the key hashes them part by part) */
static int cache_key(uint64_t *key)
{
    struct cudaDeviceProp prop;
    int device = 0, driver = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess)
        return -1;
    cudaDriverGetVersion(&driver);
    char driver_text[32], cores[32];
    snprintf(driver_text, sizeof driver_text, "%d", driver);
    snprintf(cores, sizeof cores, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    char cpu_side[1024]; /* the CPU library the model measures (that interface's line of the report) */
    char math[16];       /* the GPU kernels' arithmetic it measures (SHIMBLAS_SGEMM_MATH) */
    snprintf(math, sizeof math, "sgemm math %d", shim_config_get()->sgemm_math);
    shim_cpu_describe(measured_origin.iface, cpu_side, sizeof cpu_side, 1);
    prop.name[sizeof prop.name - 1] = '\0';
    const char *parts[] = {prop.name,
                           driver_text,
                           SHIMBLAS_VERSION,
                           cpu_side,
                           math,
                           cores,
                           getenv("OPENBLAS_CORETYPE"),
                           getenv("OPENBLAS_NUM_THREADS"),
                           getenv("OMP_NUM_THREADS"),
                           getenv("MKL_NUM_THREADS")};
    *key = shim_cost_cache_key(parts, (int)(sizeof parts / sizeof parts[0]));
    return 0;
}

static void load_or_measure(void)
{
    char shown_dir[SHIM_SHOWN_VALUE];
    const char *why = NULL;
    if (!shim_gpu_usable(&why)) {
        snprintf(origin, sizeof origin, "none: the GPU is not usable (%s); auto mode keeps calls on the CPU", why);
        return;
    }
    int verbose = shim_config_get()->verbose;
    uint64_t key = 0;
    int dir = cache_key(&key) == 0 ? shim_cost_cache_open_dir(&why) : -1;
    if (dir < 0 && verbose)
        shim_log("the cost model is not cached (%s)", why ? why : "no device identity");
    if (dir >= 0) {
        if (shim_cost_cache_load(dir, key, &model, &why) == 0) {
            have_model = 1;
            snprintf(origin, sizeof origin, "read from %s/model-%016llx.txt", shim_show_value(shim_cost_cache_last_dir(), shown_dir),
                     (unsigned long long)key);
            close(dir);
            return;
        }
        if (verbose)
            shim_log("cost model: %s; measuring", why);
    }
    const char *not_cached = dir < 0 ? why : NULL;
    double t0 = shim_now_ms();
    measure_cpu(&model);
    shim_gpu_scope scope;
    shim_gpu_enter(&scope);
    const int gpu_failed = measure_gpu(&model, &why);
    shim_gpu_leave(&scope);
    if (gpu_failed) {
        shim_log("could not measure the GPU for the cost model (%s); auto mode keeps calls on the CPU", why);
        snprintf(origin, sizeof origin, "none: the GPU could not be measured (%s); auto mode keeps calls on the CPU",
                 why);
    } else {
        const char *bad;
        if (shim_cost_model_check(&model, &bad) != 0) {
            shim_log("the measured cost model has an implausible %s; auto mode keeps calls on the CPU", bad);
            snprintf(origin, sizeof origin, "none: the measured model has an implausible %s", bad);
        } else {
            have_model = 1;
            if (verbose) {
                char text[1024];
                shim_cost_model_format(&model, text, sizeof text);
                shim_log("cost model measured in %.0f ms: %s", shim_now_ms() - t0, text);
            }
            int stored = dir >= 0 && shim_cost_cache_store(dir, key, &model) == 0;
            if (dir >= 0 && !stored && verbose)
                shim_log("the cost model could not be written to its cache");
            if (stored)
                snprintf(origin, sizeof origin, "measured in %.0f ms, written to %s/model-%016llx.txt",
                         shim_now_ms() - t0, shim_show_value(shim_cost_cache_last_dir(), shown_dir), (unsigned long long)key);
            else
                snprintf(origin, sizeof origin, "measured in %.0f ms, not cached (%s)", shim_now_ms() - t0,
                         not_cached ? not_cached : dir < 0 ? "no device identity" : "the file could not be written");
        }
    }
    if (dir >= 0)
        close(dir);
}

int shim_cost_model_describe(char *out, size_t len, int probe)
{
    if (!probe && !atomic_load(&asked))
        return snprintf(out, len, "not needed yet (no call of this process in auto mode asked for it)");
    shim_cost_model_get((shim_origin){SHIM_IFACE_LP64, 0});
    return snprintf(out, len, "%s", origin);
}

const shim_cost_model *shim_cost_model_get(shim_origin o)
{
    static atomic_int chosen;
    if (!atomic_load_explicit(&chosen, memory_order_acquire)) {
        static pthread_mutex_t choosing = PTHREAD_MUTEX_INITIALIZER;
        pthread_mutex_lock(&choosing);
        if (!atomic_load(&chosen)) {
            measured_origin = o; /* the first caller's interface: read by load_or_measure below */
            atomic_store_explicit(&chosen, 1, memory_order_release);
        }
        pthread_mutex_unlock(&choosing);
    }
    if (!atomic_load_explicit(&asked, memory_order_relaxed))
        atomic_store_explicit(&asked, 1, memory_order_relaxed);
    pthread_once(&model_once, load_or_measure);
    return have_model ? &model : NULL;
}
