/* Pieces of the GPU executor shared by its files: the device context, per-thread streams and
 * pinned staging rings, the device memory pool, and operand staging. CUDA runtime API only. */
#ifndef SHIM_GPU_INTERNAL_H
#define SHIM_GPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

/* pinned staging buffers per thread: while some are being filled or drained by the host threads,
 * the others are in flight on the bus. A call cycles through the first SHIM_RING_DEFAULT, or more
 * (up to SHIM_RING_BUFFERS) where one step of its pipeline moves more (shim_pipeline_ring) */
#define SHIM_RING_DEFAULT 8
#define SHIM_RING_BUFFERS 16
#define SHIM_RING_BYTES ((size_t)16 << 20)

typedef struct shim_ring_buffer {
    float *host;      /* pinned, SHIM_RING_BYTES, allocated on first use */
    cudaEvent_t done; /* recorded after the last copy from or into it */
    int pending;      /* a download landed here and still has to be unpacked */
    float *dst;       /* where it unpacks to: rows x cols, leading dimension ld */
    int64_t dst_ld;
    int rows, cols;
    int64_t r0, c0;   /* where that is in the caller's matrix (for shim_written) */
    int record;       /* it is the caller's output (not a private copy): list it as written */
} shim_ring_buffer;

typedef struct shim_gpu_thread {
    /* all non-blocking streams: ordered with the program's work only where a call asks
     * (shim_gpu_after_program), and never with other threads' calls */
    cudaStream_t stream; /* kernels */
    cudaStream_t in;     /* host-to-device copies */
    cudaStream_t out;    /* device-to-host copies */
    cudaStream_t peer;   /* copies from other devices' caches (apart from `in`, whose host copies
                            would otherwise queue behind a wait for another device's upload) */
    shim_ring_buffer ring[SHIM_RING_BUFFERS];
    int ring_next;
    void *work; /* the kernels' workspace, kept from call to call while small */
    size_t work_bytes;
    cudaEvent_t program_queued; /* recorded on the legacy default stream by shim_gpu_after_program */
    int fallbacks_loaded; /* the kernels every call can fall back to are loaded on this device */
    unsigned epoch;       /* the device's epoch it was made in: a reset of the device retires it */
} shim_gpu_thread;

/* the thread's streams, in the order they are waited for after a failure (copy-in and copies from
 * other devices before the kernels they feed, copy-out last): for creating, waiting on and
 * destroying them all alike */
#define SHIM_THREAD_STREAMS 4
static inline void shim_thread_streams(shim_gpu_thread *t, cudaStream_t *s[SHIM_THREAD_STREAMS])
{
    s[0] = &t->in;
    s[1] = &t->peer;
    s[2] = &t->stream;
    s[3] = &t->out;
}

#define SHIM_MAX_DEVICES 16

/* A call on memory the program may have written asynchronously (device, managed or pinned
 * operands: kinds, each an enum shim_memory_kind, after shim_staging_kind) starts after everything
 * the program queued before it on its blocking streams: the legacy default stream, per-thread
 * default streams, streams made by cudaStreamCreate (an event recorded on the legacy default stream
 * waits for all of them), as a cuBLAS call on the default stream would; the thread's streams wait
 * for that event. Work on the program's non-blocking streams is the program's to wait for, as with
 * cuBLAS. While the program captures a graph on a blocking stream, the legacy stream may not be
 * touched, and the call is ordered with nothing. 1 when t->program_queued was recorded (and t's
 * streams wait for it: the streams of the call's other devices are to wait for it too,
 * shim_gpu_wait_for), 0 when there was nothing to order, -1 with *why. */
int shim_gpu_after_program(shim_gpu_thread *t, int kind_a, int kind_b, int kind_c, const char **why);
/* every stream of t waits for event (which may be another device's): 0, or -1 with *why */
int shim_gpu_wait_for(shim_gpu_thread *t, cudaEvent_t event, const char **why);
/* 1 when the legacy default stream may be used now; 0 while the program captures a graph on a
 * blocking stream (in any thread), when using it would spoil that capture */
int shim_gpu_legacy_usable(void);
/* the calling thread's stream capture mode made relaxed (a program's graph capture in global mode
 * then neither refuses nor is spoilt by the library's CUDA calls); the mode it had, or -1 where it
 * could not be changed */
int shim_gpu_relax_capture(void);

/* the devices host-data calls are spread over (SHIMBLAS_DEVICES, else all), in order; the count */
int shim_gpu_host_devices(const int **list);
/* 1 when device reader's copies may read device owner's pool memory (peer access set up at the probe) */
int shim_gpu_peer_readable(int reader, int owner);
/* the device holding device or managed memory at p; -1 for other memory */
int shim_gpu_pointer_device(const void *p);

/* the calling thread's state on its current device, created on first use; NULL (with *why) when
 * the GPU is unusable */
shim_gpu_thread *shim_gpu_thread_state(const char **why);

/* turns a CUDA error into a failure with a message in thread-local storage: returns 0 on success */
int shim_gpu_fail(cudaError_t err, const char *what, const char **why);
/* shim_gpu_fail for a variant's run: where a kernel of it (and of its fallback) was refused for want of
 * memory to load it (shim_kernel_refusals() past refusals), says so rather than "out of memory" */
int shim_gpu_fail_run(cudaError_t err, const char *variant, unsigned long long refusals, const char **why);

/* device memory from shimblas's own stream-ordered pool (memory returns to the pool, not the
 * driver, so steady-state calls allocate nothing); honours SHIMBLAS_DEVICE_MEMORY */
int shim_gpu_alloc(void **p, size_t bytes, cudaStream_t stream, const char **why);
void shim_gpu_free(void *p, size_t bytes, cudaStream_t stream);
/* waits for stream, then hands the current device's pool memory that nothing holds back to the
 * driver (after a call whose workspace was too large to keep: the program may want those bytes) */
void shim_gpu_release_unused(cudaStream_t stream);
/* 1 when holding `bytes` more of the current device's memory between calls leaves the program
 * plenty: bytes at most 1/64 of the device and more than a quarter of it still free */
int shim_gpu_room_to_keep(size_t bytes);
/* bytes shimblas holds from its pool right now */
size_t shim_gpu_pool_in_use(void);

#endif
