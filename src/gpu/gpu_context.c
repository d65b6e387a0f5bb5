/* The device context: probed on first GPU use (never in a constructor), shimblas's own
 * stream-ordered memory pool, and the per-thread streams and pinned staging rings. */
#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "gpu.h"
#include "gpu_internal.h"
#include "kernel_load.h"
#include "log.h"
#include "sgemm_kernels.h"
#include "sgemv_kernels.h"
#include "vector_ops.h"

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int usable;
static atomic_int probed; /* shim_gpu_usable was asked (for the report) */
static char reason[200];
static cudaMemPool_t pools[SHIM_MAX_DEVICES]; /* one per device, created at the probe */
static int device_count;                      /* devices the process sees (at most SHIM_MAX_DEVICES) */
static int host_devices[SHIM_MAX_DEVICES], host_device_count; /* SHIMBLAS_DEVICES: for host data */
static unsigned peer_reads[SHIM_MAX_DEVICES]; /* bit e of [d]: device e may read device d's pool */
static atomic_size_t pool_in_use[SHIM_MAX_DEVICES];
static pthread_key_t thread_key;
/* set in a child forked after CUDA was initialised: the child must not touch the parent's context */
static volatile int forked_after_init;
/* a sticky error broke the context: the GPU is not used again */
static atomic_int broken;
static __thread char thread_why[256];
static __thread shim_gpu_thread *thread_states[SHIM_MAX_DEVICES]; /* per device */

/* A program may reset a device (cudaDeviceReset) between BLAS calls: its context is destroyed with
 * every stream, event, pool, pinned buffer and loaded module of the library's, and the next runtime
 * call makes a new one. The library tells by the context's unique id (the driver's cuCtxGetId,
 * looked up at the probe; without it a reset is not noticed) and then makes its device-level state
 * again: a new pool, kernels loaded anew, and a new epoch, which retires every thread's state made
 * before it (dropped without a CUDA call: its handles died with the old context). */
typedef CUresult (*ctx_current_fn)(CUcontext *);
typedef CUresult (*ctx_set_current_fn)(CUcontext);
typedef CUresult (*ctx_id_fn)(CUcontext, unsigned long long *);
typedef CUresult (*ctx_pop_fn)(CUcontext *);
typedef CUresult (*stream_sync_fn)(CUstream);
typedef CUresult (*event_create_fn)(CUevent *, unsigned);
typedef CUresult (*event_record_fn)(CUevent, CUstream);
typedef CUresult (*event_fn)(CUevent);
static ctx_current_fn ctx_current;
static ctx_set_current_fn ctx_set_current, ctx_push;
static ctx_id_fn ctx_id;
static ctx_pop_fn ctx_pop;
static stream_sync_fn stream_sync;
static event_create_fn event_create;
static event_record_fn event_record;
static event_fn event_sync, event_destroy;
static _Atomic unsigned long long device_context[SHIM_MAX_DEVICES]; /* the id the device's state is of */
static _Atomic(CUcontext) device_context_handle[SHIM_MAX_DEVICES];  /* and its handle (set under reset_lock) */
static atomic_uint device_epoch[SHIM_MAX_DEVICES];
static pthread_mutex_t reset_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned device_generation(int dev);

static void mark_child(void)
{
    forked_after_init = 1;
}

int shim_gpu_relax_capture(void)
{
    enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    if (cudaThreadExchangeStreamCaptureMode(&mode) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return (int)mode;
}

static void restore_capture(int mode)
{
    enum cudaStreamCaptureMode m = (enum cudaStreamCaptureMode)mode;
    if (mode >= 0)
        (void)cudaThreadExchangeStreamCaptureMode(&m);
}

int shim_gpu_legacy_usable(void)
{
    enum cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(cudaStreamLegacy, &capturing) == cudaSuccess)
        return 1;
    (void)cudaGetLastError(); /* (the refusal is the answer, not an error of the call) */
    return 0;
}

static void release_one(shim_gpu_thread *t)
{
    for (int i = 0; i < SHIM_RING_BUFFERS; i++) {
        if (t->ring[i].host)
            cudaFreeHost(t->ring[i].host);
        if (t->ring[i].done)
            cudaEventDestroy(t->ring[i].done);
    }
    if (t->work)
        shim_gpu_free(t->work, t->work_bytes, t->stream);
    if (t->program_queued)
        cudaEventDestroy(t->program_queued);
    cudaStream_t *streams[SHIM_THREAD_STREAMS];
    shim_thread_streams(t, streams);
    for (int i = 0; i < SHIM_THREAD_STREAMS; i++)
        if (*streams[i])
            cudaStreamDestroy(*streams[i]);
    free(t);
}

/* at thread exit: every device's state of the thread, each freed on its own device */
static void release_thread_state(void *unused)
{
    (void)unused;
    if (forked_after_init)
        return;
    const int mode = shim_gpu_relax_capture(); /* (a thread may end while the program captures a graph) */
    int saved = 0;
    cudaGetDevice(&saved);
    for (int d = 0; d < SHIM_MAX_DEVICES; d++)
        if (thread_states[d]) {
            cudaSetDevice(d);
            if (thread_states[d]->epoch == device_generation(d))
                release_one(thread_states[d]);
            else
                free(thread_states[d]); /* its streams and buffers went with a reset context */
            thread_states[d] = NULL;
        }
    cudaSetDevice(saved);
    restore_capture(mode);
}

/* the device the calling thread has current (0 when that cannot be read) */
static int current_device(void)
{
    int d = 0;
    if (cudaGetDevice(&d) != cudaSuccess || d < 0 || d >= device_count)
        d = 0;
    return d;
}

/* device d's pool: memory freed into it stays there, so the next call of the same size allocates
 * nothing */
static cudaError_t make_pool(int d)
{
    struct cudaMemPoolProps props = {0};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = d;
    cudaError_t err = cudaMemPoolCreate(&pools[d], &props);
    uint64_t keep = UINT64_MAX;
    if (err == cudaSuccess)
        err = cudaMemPoolSetAttribute(pools[d], cudaMemPoolAttrReleaseThreshold, &keep);
    return err;
}

/* a driver entry point of at least version, or NULL */
static void *driver_entry(const char *name, unsigned version)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
        fn = NULL;
    (void)cudaGetLastError(); /* a driver without it is not an error of the probe */
    return fn;
}

static void look_up_context_id(void)
{
    void *current = driver_entry("cuCtxGetCurrent", 4000), *set = driver_entry("cuCtxSetCurrent", 4000),
         *id = driver_entry("cuCtxGetId", 12000), *push = driver_entry("cuCtxPushCurrent", 4000),
         *pop = driver_entry("cuCtxPopCurrent", 4000), *sync = driver_entry("cuStreamSynchronize", 2000);
    if (current && set && id && push && pop && sync) {
        ctx_current = (ctx_current_fn)current;
        ctx_set_current = (ctx_set_current_fn)set;
        ctx_id = (ctx_id_fn)id;
        ctx_push = (ctx_set_current_fn)push;
        ctx_pop = (ctx_pop_fn)pop;
        stream_sync = (stream_sync_fn)sync;
        event_create = (event_create_fn)driver_entry("cuEventCreate", 2000);
        event_record = (event_record_fn)driver_entry("cuEventRecord", 2000);
        event_sync = (event_fn)driver_entry("cuEventSynchronize", 2000);
        event_destroy = (event_fn)driver_entry("cuEventDestroy", 4000);
    }
}

static void probe_devices(void);

/* (in relaxed capture mode: a program capturing a graph when the library first uses CUDA) */
static void probe(void)
{
    const int mode = shim_gpu_relax_capture();
    probe_devices();
    restore_capture(mode);
}

static void probe_devices(void)
{
    int count = 0, device = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count == 0)
        err = cudaErrorNoDevice;
    if (err == cudaSuccess)
        err = cudaGetDevice(&device);
    if (count > SHIM_MAX_DEVICES)
        count = SHIM_MAX_DEVICES;
    device_count = count;
    /* a pool on every device: device operands run where they live, whatever SHIMBLAS_DEVICES says */
    for (int d = 0; d < count && err == cudaSuccess; d++)
        err = make_pool(d);
    look_up_context_id();
    /* a device's copy engines may read another's pool where the two can reach each other directly
     * (NVLink or PCIe peer to peer): blocks staged once serve both (src/gpu/block_exchange.c) */
    for (int d = 0; d < count && err == cudaSuccess; d++)
        for (int e = 0; e < count; e++) {
            int can = 0;
            if (e == d || cudaDeviceCanAccessPeer(&can, e, d) != cudaSuccess || !can)
                continue;
            struct cudaMemAccessDesc access = {{cudaMemLocationTypeDevice, e}, cudaMemAccessFlagsProtReadWrite};
            if (cudaMemPoolSetAccess(pools[d], &access, 1) == cudaSuccess)
                peer_reads[d] |= 1u << e;
        }
    cudaGetLastError(); /* a refused peer mapping is not an error of the probe */
    /* the devices host data is spread over: SHIMBLAS_DEVICES's list (those that exist), else all */
    uint64_t chosen = shim_config_get()->devices;
    for (int d = 0; d < count; d++)
        if (!chosen || (chosen >> d & 1))
            host_devices[host_device_count++] = d;
    if (err == cudaSuccess && host_device_count == 0) {
        shim_log("SHIMBLAS_DEVICES names no device of the %d present; all are used", count);
        for (int d = 0; d < count; d++)
            host_devices[host_device_count++] = d;
    }
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

int shim_gpu_fail_run(cudaError_t err, const char *variant, unsigned long long refusals, const char **why)
{
    if (err != cudaErrorMemoryAllocation || shim_kernel_refusals() == refusals)
        return shim_gpu_fail(err, variant, why);
    snprintf(thread_why, sizeof thread_why, "%s: less than %zu MiB of device memory free to load its kernels",
             variant, SHIM_KERNEL_LOAD_HEADROOM >> 20);
    *why = thread_why;
    return -1;
}

int shim_gpu_peer_readable(int reader, int owner)
{
    return owner >= 0 && owner < SHIM_MAX_DEVICES && reader >= 0 && reader < SHIM_MAX_DEVICES &&
           (peer_reads[owner] >> reader & 1u);
}

int shim_gpu_host_device_count(void)
{
    return host_device_count > 0 ? host_device_count : 1;
}

int shim_gpu_host_devices(const int **list)
{
    *list = host_devices;
    return host_device_count;
}

int shim_gpu_pointer_device(const void *p)
{
    struct cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? attr.device : -1;
}

/* the kernels every sgemm and sgemv can fall back to, and the strided vectors' gather and scatter,
 * loaded at a thread's first use of a device, while the program may still leave the device memory
 * to load them (kernels/common/kernel_load.h); where they were refused (a program that filled its
 * device before its first BLAS call), at each of the thread's later GPU calls until they load */
static void load_fallbacks(shim_gpu_thread *t)
{
    t->fallbacks_loaded = shim_sgemm_preload() == cudaSuccess && shim_sgemv_preload() == cudaSuccess &&
                          shim_vector_ops_preload() == cudaSuccess;
}

/* the unique id of the context the runtime uses on this thread now, its handle in *handle (0: not
 * known); where the thread's context was destroyed by a reset, the runtime makes and binds the new
 * one first */
static unsigned long long context_id(CUcontext *handle)
{
    if (!ctx_current || !ctx_id)
        return 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        CUcontext ctx = NULL;
        unsigned long long id = 0;
        if (ctx_current(&ctx) == CUDA_SUCCESS && ctx && ctx_id(ctx, &id) == CUDA_SUCCESS) {
            *handle = ctx;
            return id;
        }
        if (ctx)
            (void)ctx_set_current(NULL); /* a destroyed context, still this thread's: let it go */
        (void)cudaFree(NULL);            /* (no operation but the runtime's binding of its context) */
        (void)cudaGetLastError();
    }
    return 0;
}

/* the program reset device dev: what the library had there is gone with the old context */
static void device_was_reset(int dev)
{
    const char *why = NULL;
    if (shim_gpu_fail(make_pool(dev), "a new pool", &why))
        shim_log("device %d was reset by the program and its memory pool could not be made again (%s)", dev,
                 why);
    atomic_store(&pool_in_use[dev], 0);
    peer_reads[dev] = 0; /* the other devices' access to this one's pool, and its to theirs, are gone */
    for (int d = 0; d < SHIM_MAX_DEVICES; d++)
        peer_reads[d] &= ~(1u << dev);
    shim_kernel_forget_device(dev);
    atomic_fetch_add(&device_epoch[dev], 1);
    if (shim_config_get()->verbose)
        shim_log("device %d: the context the library worked in is gone (the program reset the device or destroyed "
                 "its context); its streams, memory and kernels are made again in the current one",
                 dev);
}

/* device dev's epoch, a new one where the context the library's state there is of was destroyed
 * and the runtime now uses another. (A program running its own second context on the device, the
 * first still alive, is not a reset: the state stays, as it always did.) */
static unsigned device_generation(int dev)
{
    CUcontext handle = NULL;
    const unsigned long long id = context_id(&handle);
    if (id == 0 || id == atomic_load_explicit(&device_context[dev], memory_order_acquire))
        return atomic_load(&device_epoch[dev]);
    pthread_mutex_lock(&reset_lock);
    const unsigned long long known = atomic_load(&device_context[dev]);
    unsigned long long still = 0;
    if (known == 0) {
        atomic_store(&device_context[dev], id);
        device_context_handle[dev] = handle;
    } else if (known != id &&
               !(ctx_id(device_context_handle[dev], &still) == CUDA_SUCCESS && still == known)) {
        device_was_reset(dev);
        atomic_store(&device_context[dev], id);
        device_context_handle[dev] = handle;
    }
    pthread_mutex_unlock(&reset_lock);
    return atomic_load(&device_epoch[dev]);
}

/* Before a call leaves the program's own context for the library's: what the program queued on its
 * context's blocking streams (legacy, per-thread default, cudaStreamCreate'd) is finished, by an event
 * recorded on its legacy stream (which waits for all of them) and waited for on the host. Not while
 * the program captures a blocking stream there (the legacy stream may not be touched then). */
static void wait_for_program_context(void)
{
    if (!shim_gpu_legacy_usable())
        return;
    CUevent done = NULL;
    if (!event_create || !event_record || !event_sync || !event_destroy ||
        event_create(&done, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
        (void)stream_sync(CU_STREAM_LEGACY);
        return;
    }
    if (event_record(done, CU_STREAM_LEGACY) == CUDA_SUCCESS)
        (void)event_sync(done);
    (void)event_destroy(done);
}

void shim_gpu_enter(shim_gpu_scope *scope)
{
    scope->pushed = scope->mode_set = scope->mode = 0;
    const char *why = NULL;
    CUcontext now = NULL;
    if (!shim_gpu_usable(&why))
        return;
    scope->mode = shim_gpu_relax_capture();
    scope->mode_set = scope->mode >= 0;
    if (!ctx_push || ctx_current(&now) != CUDA_SUCCESS || !now)
        return; /* (no context current: the runtime binds the device's primary one) */
    const int dev = current_device();
    CUcontext mine = atomic_load(&device_context_handle[dev]);
    unsigned long long id = 0;
    if (!mine || mine == now || ctx_id(mine, &id) != CUDA_SUCCESS || id != atomic_load(&device_context[dev]))
        return; /* the library's own context, its first use of the device, or a reset (device_generation) */
    wait_for_program_context();
    scope->pushed = ctx_push(mine) == CUDA_SUCCESS;
}

void shim_gpu_leave(const shim_gpu_scope *scope)
{
    CUcontext popped = NULL;
    if (scope->pushed)
        (void)ctx_pop(&popped);
    if (scope->mode_set)
        restore_capture(scope->mode);
}

shim_gpu_thread *shim_gpu_thread_state(const char **why)
{
    if (!shim_gpu_usable(why))
        return NULL;
    const int dev = current_device();
    const unsigned epoch = device_generation(dev);
    if (thread_states[dev] && thread_states[dev]->epoch != epoch) {
        free(thread_states[dev]); /* made before a reset: its streams and buffers are gone */
        thread_states[dev] = NULL;
    }
    if (thread_states[dev]) {
        if (!thread_states[dev]->fallbacks_loaded)
            load_fallbacks(thread_states[dev]);
        return thread_states[dev];
    }
    shim_gpu_thread *t = calloc(1, sizeof *t);
    if (!t) {
        *why = "out of host memory";
        return NULL;
    }
    cudaStream_t *streams[SHIM_THREAD_STREAMS];
    shim_thread_streams(t, streams);
    int rc = 0;
    for (int i = 0; i < SHIM_THREAD_STREAMS && !rc; i++)
        rc = shim_gpu_fail(cudaStreamCreateWithFlags(streams[i], cudaStreamNonBlocking), "cudaStreamCreate", why);
    if (!rc)
        rc = shim_gpu_fail(cudaEventCreateWithFlags(&t->program_queued, cudaEventDisableTiming), "cudaEventCreate",
                           why);
    for (int i = 0; i < SHIM_RING_BUFFERS && !rc; i++)
        rc = shim_gpu_fail(cudaEventCreateWithFlags(&t->ring[i].done, cudaEventDisableTiming),
                           "cudaEventCreate", why);
    if (rc) {
        release_one(t);
        return NULL;
    }
    pthread_setspecific(thread_key, t); /* (any non-NULL value: the destructor frees them all) */
    t->epoch = epoch;
    thread_states[dev] = t;
    load_fallbacks(t);
    return t;
}

static int program_writable(int kind)
{
    return kind == SHIM_MEM_DEVICE || kind == SHIM_MEM_PINNED;
}

int shim_gpu_after_program(shim_gpu_thread *t, int kind_a, int kind_b, int kind_c, const char **why)
{
    if (!program_writable(kind_a) && !program_writable(kind_b) && !program_writable(kind_c))
        return 0;
    /* while the program captures a blocking stream the legacy stream may not be touched (its use
     * would invalidate the capture): the call is then ordered with nothing of the program's */
    if (!shim_gpu_legacy_usable())
        return 0;
    if (shim_gpu_fail(cudaEventRecord(t->program_queued, cudaStreamLegacy), "waiting for the program's work", why) ||
        shim_gpu_wait_for(t, t->program_queued, why))
        return -1;
    return 1;
}

int shim_gpu_wait_for(shim_gpu_thread *t, cudaEvent_t event, const char **why)
{
    cudaStream_t *streams[SHIM_THREAD_STREAMS];
    shim_thread_streams(t, streams);
    for (int i = 0; i < SHIM_THREAD_STREAMS; i++)
        if (shim_gpu_fail(cudaStreamWaitEvent(*streams[i], event, 0), "waiting for the program's work", why))
            return -1;
    return 0;
}

int shim_gpu_alloc(void **p, size_t bytes, cudaStream_t stream, const char **why)
{
    size_t cap = shim_config_get()->device_memory; /* per device */
    const int dev = current_device();
    size_t before = atomic_fetch_add(&pool_in_use[dev], bytes);
    if (cap && before + bytes > cap) {
        atomic_fetch_sub(&pool_in_use[dev], bytes);
        snprintf(thread_why, sizeof thread_why,
                 "needs %zu more device bytes than SHIMBLAS_DEVICE_MEMORY allows", before + bytes - cap);
        *why = thread_why;
        return -1;
    }
    if (shim_gpu_fail(cudaMallocFromPoolAsync(p, bytes ? bytes : 16, pools[dev], stream), "device allocation",
                      why)) {
        /* out of memory is not sticky, but the runtime keeps it as the thread's last error: the
         * next launch's cudaGetLastError would report it as that launch's failure */
        (void)cudaGetLastError();
        atomic_fetch_sub(&pool_in_use[dev], bytes);
        return -1;
    }
    return 0;
}

size_t shim_gpu_pool_in_use(void)
{
    return atomic_load(&pool_in_use[current_device()]);
}

void shim_gpu_free(void *p, size_t bytes, cudaStream_t stream)
{
    if (!p)
        return;
    cudaFreeAsync(p, stream);
    atomic_fetch_sub(&pool_in_use[current_device()], bytes);
}

void shim_gpu_release_unused(cudaStream_t stream)
{
    (void)cudaStreamSynchronize(stream);
    (void)cudaMemPoolTrimTo(pools[current_device()], 0);
}

int shim_gpu_room_to_keep(size_t bytes)
{
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return bytes <= total / 64 && free_bytes >= total / 4;
}

/* A sticky error (a device fault) breaks the context for the whole process: every later CUDA
 * call fails. Our streams tell: after a failure they drain, or report that error. */
int shim_gpu_context_broken(void)
{
    if (atomic_load(&broken))
        return 1;
    shim_gpu_thread *t = thread_states[current_device()];
    if (!t)
        return 0;
    cudaStream_t *streams[SHIM_THREAD_STREAMS];
    shim_thread_streams(t, streams);
    int bad = 0;
    for (int i = 0; i < SHIM_THREAD_STREAMS; i++)
        bad |= cudaStreamSynchronize(*streams[i]) != cudaSuccess;
    (void)cudaGetLastError(); /* a non-sticky error is ours: do not leave it for the program */
    /* a sticky error stays: a fresh query on the stream sees it again */
    if (bad && cudaStreamQuery(t->stream) != cudaSuccess && cudaStreamSynchronize(t->stream) != cudaSuccess) {
        atomic_store(&broken, 1);
        return 1;
    }
    return 0;
}
