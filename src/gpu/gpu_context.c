/* The device context: probed on first GPU use (never in a constructor), shimblas's own
 * stream-ordered memory pool, and the per-thread streams and pinned staging rings. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "gpu.h"
#include "gpu_internal.h"

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int usable;
static atomic_int probed; /* shim_gpu_usable was asked (for the report) */
static char reason[200];
static cudaMemPool_t pool;
static atomic_size_t pool_in_use;
static pthread_key_t thread_key;
/* set in a child forked after CUDA was initialised: the child must not touch the parent's context */
static volatile int forked_after_init;
/* a sticky error broke the context: the GPU is not used again */
static atomic_int broken;
static __thread char thread_why[256];
static __thread shim_gpu_thread *thread_state;

static void mark_child(void)
{
    forked_after_init = 1;
}

static void release_thread_state(void *p)
{
    shim_gpu_thread *t = p;
    if (forked_after_init)
        return;
    for (int i = 0; i < SHIM_RING_BUFFERS; i++) {
        if (t->ring[i].host)
            cudaFreeHost(t->ring[i].host);
        if (t->ring[i].done)
            cudaEventDestroy(t->ring[i].done);
    }
    if (t->work)
        shim_gpu_free(t->work, t->work_bytes, t->stream);
    cudaStream_t streams[] = {t->stream, t->in, t->out};
    for (int i = 0; i < 3; i++)
        if (streams[i])
            cudaStreamDestroy(streams[i]);
    free(t);
}

static void probe(void)
{
    int count = 0, device = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count == 0)
        err = cudaErrorNoDevice;
    if (err == cudaSuccess)
        err = cudaGetDevice(&device);
    struct cudaMemPoolProps props = {0};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    if (err == cudaSuccess)
        err = cudaMemPoolCreate(&pool, &props);
    /* keep freed memory in the pool: the next call of the same size allocates nothing */
    uint64_t keep = UINT64_MAX;
    if (err == cudaSuccess)
        err = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    if (err != cudaSuccess) {
        snprintf(reason, sizeof reason, "%s", cudaGetErrorString(err));
        return;
    }
    pthread_key_create(&thread_key, release_thread_state);
    pthread_atfork(NULL, NULL, mark_child);
    usable = 1;
}

int shim_gpu_usable(const char **why)
{
    pthread_once(&probe_once, probe);
    if (!atomic_load_explicit(&probed, memory_order_relaxed))
        atomic_store_explicit(&probed, 1, memory_order_relaxed);
    if (forked_after_init) {
        *why = "process forked after CUDA was initialised";
        return 0;
    }
    if (atomic_load_explicit(&broken, memory_order_relaxed)) {
        *why = "the CUDA context is broken by an earlier device fault";
        return 0;
    }
    *why = reason;
    return usable;
}

int shim_gpu_describe(char *out, size_t len, int probe)
{
    if (!probe && !atomic_load(&probed))
        return snprintf(out, len, "not probed (no call of this process needed it)");
    const char *why = NULL;
    if (!shim_gpu_usable(&why))
        return snprintf(out, len, "not usable: %s", why);
    int device = 0, count = 0, driver = 0, runtime = 0;
    struct cudaDeviceProp prop;
    cudaGetDeviceCount(&count);
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess)
        return snprintf(out, len, "usable, but its properties cannot be read");
    prop.name[sizeof prop.name - 1] = '\0';
    return snprintf(out, len, "usable: device %d of %d, %s (sm_%d%d, %.1f GiB), driver %d.%d, runtime %d.%d", device,
                    count, prop.name, prop.major, prop.minor, prop.totalGlobalMem / 1073741824.0, driver / 1000,
                    driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
}

int shim_gpu_fail(cudaError_t err, const char *what, const char **why)
{
    if (err == cudaSuccess)
        return 0;
    snprintf(thread_why, sizeof thread_why, "%s: %s", what, cudaGetErrorString(err));
    *why = thread_why;
    return -1;
}

shim_gpu_thread *shim_gpu_thread_state(const char **why)
{
    if (!shim_gpu_usable(why))
        return NULL;
    if (thread_state)
        return thread_state;
    shim_gpu_thread *t = calloc(1, sizeof *t);
    if (!t) {
        *why = "out of host memory";
        return NULL;
    }
    int rc = shim_gpu_fail(cudaStreamCreate(&t->stream), "cudaStreamCreate", why) ||
             shim_gpu_fail(cudaStreamCreate(&t->in), "cudaStreamCreate", why) ||
             shim_gpu_fail(cudaStreamCreate(&t->out), "cudaStreamCreate", why);
    for (int i = 0; i < SHIM_RING_BUFFERS && !rc; i++)
        rc = shim_gpu_fail(cudaEventCreateWithFlags(&t->ring[i].done, cudaEventDisableTiming),
                           "cudaEventCreate", why);
    if (rc) {
        release_thread_state(t);
        return NULL;
    }
    pthread_setspecific(thread_key, t);
    thread_state = t;
    return t;
}

int shim_gpu_alloc(void **p, size_t bytes, cudaStream_t stream, const char **why)
{
    size_t cap = shim_config_get()->device_memory;
    size_t before = atomic_fetch_add(&pool_in_use, bytes);
    if (cap && before + bytes > cap) {
        atomic_fetch_sub(&pool_in_use, bytes);
        snprintf(thread_why, sizeof thread_why,
                 "needs %zu more device bytes than SHIMBLAS_DEVICE_MEMORY allows", before + bytes - cap);
        *why = thread_why;
        return -1;
    }
    if (shim_gpu_fail(cudaMallocFromPoolAsync(p, bytes ? bytes : 16, pool, stream), "device allocation",
                      why)) {
        atomic_fetch_sub(&pool_in_use, bytes);
        return -1;
    }
    return 0;
}

size_t shim_gpu_pool_in_use(void)
{
    return atomic_load(&pool_in_use);
}

void shim_gpu_free(void *p, size_t bytes, cudaStream_t stream)
{
    if (!p)
        return;
    cudaFreeAsync(p, stream);
    atomic_fetch_sub(&pool_in_use, bytes);
}

/* A sticky error (a device fault) breaks the context for the whole process: every later CUDA
 * call fails. Our streams tell: after a failure they drain, or report that error. */
int shim_gpu_context_broken(void)
{
    if (atomic_load(&broken))
        return 1;
    shim_gpu_thread *t = thread_state;
    if (!t)
        return 0;
    cudaStream_t streams[] = {t->in, t->stream, t->out};
    int bad = 0;
    for (int i = 0; i < 3; i++)
        bad |= cudaStreamSynchronize(streams[i]) != cudaSuccess;
    (void)cudaGetLastError(); /* a non-sticky error is ours: do not leave it for the program */
    /* a sticky error stays: a fresh query on the stream sees it again */
    if (bad && cudaStreamQuery(t->stream) != cudaSuccess && cudaStreamSynchronize(t->stream) != cudaSuccess) {
        atomic_store(&broken, 1);
        return 1;
    }
    return 0;
}
