/* Where an operand lives, answered on every call at the cost of a few loads.
 *
 * Device (and managed) memory can exist only once a CUDA driver (libcuda.so.1) is loaded in the
 * process and initialised. So the question has two halves:
 *
 * 1. Is the driver loaded? Asking the dynamic linker (dlopen with RTLD_NOLOAD) searches the library
 *    path with dozens of system calls, and a program may load CUDA at any time, after its first
 *    BLAS call too. Instead shimblas watches the dynamic linker's list of loaded objects (the
 *    public struct link_map of <link.h>): new objects are appended at its tail, so while the tail
 *    object shimblas last saw has no successor, nothing was loaded since and the driver is still
 *    absent. That is one load per call. When something was appended, the list is scanned under
 *    the dynamic linker's own lock (dl_iterate_phdr), and either the driver is found (then this
 *    half is settled for good) or the new tail is watched. The watched object is held open
 *    (dlopen RTLD_NOLOAD adds a reference) so it cannot be freed while a call reads its link;
 *    the previous one is released a generation later. The only visible effect: a library the
 *    program dlclose()s while it is the most recently loaded one stays mapped until the next
 *    library is loaded and a BLAS call notices it.
 *
 * 2. With the driver loaded, which pointers are device memory? The driver answers
 *    (cuPointerGetAttributes, the driver API: no runtime initialised, nothing created): in about
 *    10 ns while nobody initialised CUDA ("not initialised": no device memory can exist), but in
 *    100-650 ns for a host pointer once CUDA is up (H200 host, driver 580). So memory that is
 *    provably host memory is recognised first, without the driver: the calling thread's live
 *    stack, the brk heap (between its start and the current break), and the image of a loaded
 *    object (_dl_find_object, lock-free). Only other memory (mmap'd buffers, other threads'
 *    arenas) costs a driver query.
 *
 * Pinned (cudaHostRegister'ed or cudaMallocHost'ed) memory is host memory for the CPU BLAS; only
 * the GPU executor cares, and it asks shim_memory_kind_exact. */
#include "memory_kind.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"

/* The few CUDA driver API values used here (cuda.h; part of its stable ABI), declared locally so
 * the answer is the same in a library built without CUDA: a device pointer is then recognised and
 * refused with a message instead of crashing the CPU BLAS. */
enum {
    CU_SUCCESS = 0,
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_MEMORYTYPE_HOST = 1,
    CU_MEMORYTYPE_DEVICE = 2,
    CU_MEMORYTYPE_UNIFIED = 4
};
typedef int (*pointer_attributes_fn)(unsigned count, int *attributes, void **data, unsigned long long ptr);

struct dl_find_object;
typedef int (*find_object_fn)(void *address, struct dl_find_object *result);
/* room for glibc's struct dl_find_object (its size is fixed by the ABI at well under this) */
typedef union find_object_result {
    char bytes[256];
    void *align;
} find_object_result;

struct link_map *_Atomic shim_watched_object;

static struct {
    atomic_int driver_loaded;               /* settled: libcuda is in the process */
    pthread_mutex_t lock;                   /* the slow path */
    void *pin, *retired;                    /* references that keep watched (and its predecessor) alive */
    void *driver;                           /* our reference to libcuda, never released */
    _Atomic(pointer_attributes_fn) query;   /* the driver's cuPointerGetAttributes */
    find_object_fn find_object;             /* glibc's _dl_find_object, when it has one */
    uintptr_t heap_start;                   /* the start of the brk heap, 0 when unknown */
    uintptr_t main_low, main_high;          /* the main program's image (never unloaded) */
    atomic_int host_ranges_ready;
} watch = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* the calling thread's stack: [low, top); low == top when unknown */
static __thread uintptr_t stack_low, stack_top;
static __thread int stack_known;

/* ---- half 1: is the driver loaded? ----------------------------------------------------------- */

typedef struct scan {
    struct link_map *tail;
    char tail_name[4096];
    char driver_name[4096];
    int first;
} scan;

static int is_driver(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libcuda.so", 10) == 0;
}

/* runs under the dynamic linker's lock: the list cannot change while we walk it */
static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    scan *s = data;
    if (s->first) {
        s->first = 0;
        struct link_map *l = _r_debug.r_map;
        while (l && l->l_next)
            l = l->l_next;
        s->tail = l;
        snprintf(s->tail_name, sizeof s->tail_name, "%s", l && l->l_name ? l->l_name : "");
    }
    if (info->dlpi_name && is_driver(info->dlpi_name) && !s->driver_name[0])
        snprintf(s->driver_name, sizeof s->driver_name, "%s", info->dlpi_name);
    return 0;
}

static void adopt_driver(const char *path)
{
    watch.driver = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    pointer_attributes_fn q = watch.driver ? (pointer_attributes_fn)dlsym(watch.driver, "cuPointerGetAttributes") : NULL;
    if (!q)
        shim_log("the CUDA driver %s has no cuPointerGetAttributes: device pointers cannot be recognised", path);
    watch.find_object = (find_object_fn)dlsym(RTLD_DEFAULT, "_dl_find_object");
    atomic_store_explicit(&watch.query, q, memory_order_release);
    atomic_store_explicit(&watch.driver_loaded, 1, memory_order_release);
    atomic_store_explicit(&shim_watched_object, NULL, memory_order_release);
    if (shim_config_get()->verbose)
        shim_log("CUDA driver in the process: %s", path);
}

/* watches s->tail: holds a reference to it so it cannot be freed while calls read its link */
static int watch_tail(const scan *s)
{
    void *h = s->tail_name[0] ? dlopen(s->tail_name, RTLD_NOW | RTLD_NOLOAD) : NULL;
    struct link_map *l = NULL;
    if (!h || dlinfo(h, RTLD_DI_LINKMAP, &l) != 0 || l != s->tail) {
        /* closed or replaced between the scan and now: scan again */
        if (h)
            dlclose(h);
        return 0;
    }
    if (watch.retired)
        dlclose(watch.retired);
    watch.retired = watch.pin;
    watch.pin = h;
    atomic_store_explicit(&shim_watched_object, l, memory_order_release);
    return 1;
}

/* a child forked while another thread of the parent held the lock must not wait for it forever */
static void reset_in_child(void)
{
    pthread_mutex_init(&watch.lock, NULL);
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, reset_in_child);
}

static int look_again(void)
{
    static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&watch.lock);
    for (int attempt = 0; attempt < 8 && !atomic_load(&watch.driver_loaded); attempt++) {
        if (shim_no_cuda_driver())
            break; /* another thread looked meanwhile */
        static scan s;
        s.tail = NULL;
        s.tail_name[0] = s.driver_name[0] = 0;
        s.first = 1;
        dl_iterate_phdr(scan_object, &s);
        if (s.driver_name[0]) {
            adopt_driver(s.driver_name);
            break;
        }
        if (watch_tail(&s))
            break;
    }
    /* (after eight attempts in a process that loads objects without pause, the next call looks again) */
    pthread_mutex_unlock(&watch.lock);
    return atomic_load(&watch.driver_loaded);
}

static inline int driver_loaded(void)
{
    if (atomic_load_explicit(&watch.driver_loaded, memory_order_acquire))
        return 1;
    if (__builtin_expect(shim_no_cuda_driver(), 1))
        return 0;
    return look_again();
}

/* ---- half 2: host memory recognised without the driver ---------------------------------------- */

/* the start of the brk heap: field 47 (start_brk) of /proc/self/stat, read once */
static uintptr_t read_heap_start(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return 0;
    char buf[2048];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* the command name (field 2) may hold spaces and parentheses: count fields after its last ')' */
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    unsigned long long v = 0;
    int field = 2;
    for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " ")) {
        if (++field == 47) {
            v = strtoull(tok, NULL, 10);
            break;
        }
    }
    return (uintptr_t)v;
}

/* the first object dl_iterate_phdr reports is the main program: its loaded segments' extent */
static int main_image(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    uintptr_t low = UINTPTR_MAX, high = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
        low = start < low ? start : low;
        high = end > high ? end : high;
    }
    if (high > low) {
        watch.main_low = low;
        watch.main_high = high;
    }
    return 1;
}

static void prepare_host_ranges(void)
{
    pthread_mutex_lock(&watch.lock);
    if (!atomic_load(&watch.host_ranges_ready)) {
        dl_iterate_phdr(main_image, NULL);
        watch.heap_start = read_heap_start();
        atomic_store(&watch.host_ranges_ready, 1);
    }
    pthread_mutex_unlock(&watch.lock);
}

static void learn_stack(void)
{
    stack_known = 1;
    pthread_attr_t attr;
    void *addr;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        stack_low = (uintptr_t)addr;
        stack_top = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&attr);
}

/* 1 when p is provably host memory: the main program's image, the brk heap, the live part of this
 * thread's stack, or the image of another loaded object. None of these can be device memory.
 * Cheapest first: two compares, the current break, the thread's stack, a lookup in the loader. */
static int provably_host(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (__builtin_expect(!atomic_load_explicit(&watch.host_ranges_ready, memory_order_acquire), 0))
        prepare_host_ranges();
    if (a >= watch.main_low && a < watch.main_high)
        return 1;
    if (watch.heap_start && a >= watch.heap_start && a < (uintptr_t)sbrk(0))
        return 1;
    if (__builtin_expect(!stack_known, 0))
        learn_stack();
    /* between this frame and the top of the stack it runs on: the callers' frames */
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (here >= stack_low && here < stack_top && a >= here && a < stack_top)
        return 1;
    find_object_result r;
    return watch.find_object && watch.find_object((void *)p, (struct dl_find_object *)&r) == 0;
}

static enum shim_memory_kind ask_driver(const void *p)
{
    pointer_attributes_fn q = atomic_load_explicit(&watch.query, memory_order_acquire);
    if (!q)
        return SHIM_MEM_PAGEABLE;
    int attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    unsigned type = 0;
    void *data = &type;
    /* fails with "not initialised" while nobody initialised CUDA: then no device memory exists */
    if (q(1, &attribute, &data, (unsigned long long)(uintptr_t)p) != CU_SUCCESS)
        return SHIM_MEM_PAGEABLE;
    switch (type) {
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: return SHIM_MEM_DEVICE; /* managed memory reports DEVICE too */
    case CU_MEMORYTYPE_HOST: return SHIM_MEM_PINNED;
    default: return SHIM_MEM_PAGEABLE;
    }
}

enum shim_memory_kind shim_memory_kind(const void *p)
{
    if (!p || !driver_loaded() || provably_host(p))
        return SHIM_MEM_PAGEABLE;
    return ask_driver(p);
}

enum shim_memory_kind shim_memory_kind_exact(const void *p)
{
    if (!p || !driver_loaded())
        return SHIM_MEM_PAGEABLE;
    return ask_driver(p);
}

int shim_cuda_driver_loaded(void)
{
    return driver_loaded();
}
