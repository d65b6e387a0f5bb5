/* What the shim adds to a call that stays on the CPU BLAS: tiny sgemm/sgemv calls timed through
 * the shim's entry points (this program links libshimblas) against the same calls made on the CPU
 * BLAS directly, in the same process and run, on the same buffers.
 *
 *   call_overhead [--situation none|installed|cuda] [--csv FILE] [--blocks N] [--block-calls N]
 *                 [--beta B] [CPU_BLAS]
 *
 *   CPU_BLAS      path or soname of the CPU BLAS (default: $SHIMBLAS_CPU_BLAS, else libopenblas.so.0).
 *                 The program opens it itself for the direct calls (RTLD_LOCAL, bound to its own
 *                 symbols) and sets SHIMBLAS_CPU_BLAS to it before the shim's first call, so both
 *                 sides run the same loaded library.
 *   --situation   none:      no CUDA driver on the machine (checked after the timing);
 *                 installed: a driver is installed but the program never touches CUDA (checked after
 *                            the timing: libcuda.so.1 must not have been loaded meanwhile);
 *                 cuda:      the program initialised CUDA before the shim's first call (it opens
 *                            libcuda.so.1 itself, makes the primary context current and allocates
 *                            device memory), as a CUDA program that also calls BLAS would have.
 *   --csv FILE    appends one line per case (a header first when the file is empty).
 *   --blocks N    timed block pairs per case (default 200); --block-calls N calls per block (default
 *                 1000, fewer where a block would take over 2 ms); --beta B (default 0).
 *
 * Cases: sgemm NN 4^3, 8^3, 16^3, 32^3 and sgemv N and T 8^2, 32^2, 128^2, through sgemm_/sgemv_ and
 * (when the CPU BLAS has its own CBLAS) row-major cblas_sgemm/cblas_sgemv; alpha 1.
 * Each case warms both sides up, then times blocks of calls, direct and shim in turn (alternating
 * which goes first, so drifts and cache effects reach both alike), and reports per call: the median,
 * min and p90 of each side over the blocks, and of the per-pair difference shim - direct, the
 * overhead, held against a budget of 50 ns. A multithreaded CPU BLAS adds noise to both sides
 * (OPENBLAS_NUM_THREADS=1 removes it for shapes it would spread over threads).
 * The shim's counters must show that every timed shim call was served by the CPU BLAS.
 * Exit status: 0 for a valid measurement, within the budget or not; 1 when the measurement does not
 * describe what was asked (CPU BLAS unusable, situation not met, calls not served on the CPU); 2 for
 * a usage error. Examples (meson builds it with or without CUDA, unless -Dbenchmarks=disabled):
 *   build/bench/call_overhead --situation none                 no driver here, OpenBLAS
 *   build/bench/call_overhead --situation installed --csv o.csv /usr/lib/x86_64-linux-gnu/blas/libblas.so.3
 *   build/bench/call_overhead --situation cuda                 a GPU host, CUDA set up first
 * The shim runs in the mode its environment gives it (SHIMBLAS_MODE=cpu measures that path). */
#include <dlfcn.h>
#include <getopt.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shimblas.h"

enum {
    BUDGET_NS = 50,
    DEFAULT_BLOCKS = 200,
    DEFAULT_BLOCK_CALLS = 1000,
    MIN_BLOCK_CALLS = 10,
};
#define BLOCK_CAP_NS 2e6 /* a block longer than this only makes a slow side's run longer */
#define WARMUP_NS 10e6   /* each side, twice, per case */
#define MACHINE_WARMUP_NS 300e6
#define LIBCUDA "libcuda.so.1"

typedef void (*sgemm_fn)(const char *, const char *, const int *, const int *, const int *, const float *,
                         const float *, const int *, const float *, const int *, const float *, float *, const int *,
                         size_t, size_t);
typedef void (*sgemv_fn)(const char *, const int *, const int *, const float *, const float *, const int *,
                         const float *, const int *, const float *, float *, const int *, size_t);
typedef void (*cblas_sgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int, int, float,
                               const float *, int, const float *, int, float, float *, int);
typedef void (*cblas_sgemv_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, int, int, float, const float *, int,
                               const float *, int, float, float *, int);

/* one side's four entry points: the CPU BLAS's own (cblas ones may be missing), or the shim's */
typedef struct blas_entry {
    sgemm_fn sgemm;
    sgemv_fn sgemv;
    cblas_sgemm_fn cblas_sgemm;
    cblas_sgemv_fn cblas_sgemv;
} blas_entry;

enum situation { SIT_NONE, SIT_INSTALLED, SIT_CUDA };
static const char *const situation_names[] = {"none", "installed", "cuda"};

typedef struct options {
    enum situation situation;
    const char *csv;
    const char *cpu_blas;
    long blocks, block_calls;
    float beta;
} options;

/* One timed case. cblas calls are row-major, as C programs make them; Fortran ones column-major. */
typedef struct bench_case {
    int gemm, cblas, trans, dim; /* square problems: m = n (= k) = dim */
    const float *a, *b;
    float *c;
    float beta;
} bench_case;

typedef struct summary {
    double med, min, p90;
} summary;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void fill(float *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (float)((double)(seed >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
    }
}

/* ---- the timed calls ------------------------------------------------------------------------- */

static void call_once(const bench_case *bc, const blas_entry *e)
{
    const int d = bc->dim, inc = 1;
    const float one = 1.0f;
    const char *t = bc->trans ? "T" : "N";
    if (bc->gemm && bc->cblas)
        e->cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d, d, d, 1.0f, bc->a, d, bc->b, d, bc->beta, bc->c,
                       d);
    else if (bc->gemm)
        e->sgemm("N", "N", &d, &d, &d, &one, bc->a, &d, bc->b, &d, &bc->beta, bc->c, &d, 1, 1);
    else if (bc->cblas)
        e->cblas_sgemv(CblasRowMajor, bc->trans ? CblasTrans : CblasNoTrans, d, d, 1.0f, bc->a, d, bc->b, 1, bc->beta,
                       bc->c, 1);
    else
        e->sgemv(t, &d, &d, &one, bc->a, &d, bc->b, &inc, &bc->beta, bc->c, &inc, 1);
}

/* nanoseconds for calls calls in a row: one clock read per block, so its cost vanishes per call */
static double time_block(const bench_case *bc, const blas_entry *e, long calls)
{
    double t0 = now_ns();
    for (long i = 0; i < calls; i++)
        call_once(bc, e);
    return now_ns() - t0;
}

/* runs the side until a doubling block takes WARMUP_NS (caches, branch predictors, the shim's
 * first-use work and the CPU BLAS's are behind it); returns the last block's ns per call */
static double warm_up(const bench_case *bc, const blas_entry *e)
{
    for (long calls = 16;; calls *= 2) {
        double ns = time_block(bc, e, calls);
        if (ns >= WARMUP_NS)
            return ns / (double)calls;
    }
}

/* before the first case: clocks, the CPU BLAS's threads and both sides' first-use work settle
 * here rather than in the first case's warm-up, which would then start from another state */
static void warm_machine(const bench_case *bc, const blas_entry *direct, const blas_entry *shim)
{
    double t0 = now_ns();
    while (now_ns() - t0 < MACHINE_WARMUP_NS) {
        time_block(bc, direct, 100);
        time_block(bc, shim, 100);
    }
}

/* ---- statistics -------------------------------------------------------------------------------- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* median, min and p90 (nearest rank) of n values; sorts v */
static summary summarize(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    long p90 = (9 * n + 9) / 10 - 1;
    summary s = {n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v[0], v[p90 < 0 ? 0 : p90]};
    return s;
}

/* ---- the CPU BLAS, the shim, the situation ----------------------------------------------------- */

static int in_shim(const void *sym)
{
    Dl_info mine, theirs;
    return dladdr((const void *)&sgemm_, &mine) && dladdr(sym, &theirs) && mine.dli_fbase == theirs.dli_fbase;
}

/* The CPU BLAS's own entry points, opened RTLD_LOCAL as the shim opens SHIMBLAS_CPU_BLAS (so both
 * get the same loaded library); 0 when it has no sgemm_/sgemv_ of its own. RTLD_DEEPBIND: a CBLAS
 * built over the Fortran routines (reference CBLAS) calls sgemm_ through the dynamic linker, which
 * in this process would find the shim's first and put the "direct" CBLAS calls through the shim;
 * bound to itself it runs as it does in a program without the shim. The shim calls the library's
 * Fortran routines by address, so the binding changes nothing on its side. */
static int open_cpu_blas(const char *path, blas_entry *direct)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
        fprintf(stderr, "call_overhead: cannot open the CPU BLAS: %s\n", dlerror());
        return 0;
    }
    direct->sgemm = (sgemm_fn)dlsym(h, "sgemm_");
    direct->sgemv = (sgemv_fn)dlsym(h, "sgemv_");
    direct->cblas_sgemm = (cblas_sgemm_fn)dlsym(h, "cblas_sgemm");
    direct->cblas_sgemv = (cblas_sgemv_fn)dlsym(h, "cblas_sgemv");
    if (!direct->sgemm || !direct->sgemv || in_shim((void *)direct->sgemm) || in_shim((void *)direct->sgemv)) {
        fprintf(stderr, "call_overhead: %s has no sgemm_/sgemv_ of its own\n", path);
        return 0;
    }
    if (!direct->cblas_sgemm || !direct->cblas_sgemv || in_shim((void *)direct->cblas_sgemm) ||
        in_shim((void *)direct->cblas_sgemv)) {
        printf("note: %s has no CBLAS of its own: only the Fortran entry points are compared\n", path);
        direct->cblas_sgemm = NULL;
        direct->cblas_sgemv = NULL;
    }
    return 1;
}

static int count_object(struct dl_phdr_info *info, size_t size, void *count)
{
    (void)info;
    (void)size;
    ++*(int *)count;
    return 0;
}

static int loaded_objects(void)
{
    int n = 0;
    dl_iterate_phdr(count_object, &n);
    return n;
}

/* The shim's first calls resolve its CPU BLAS (and probe it). When it takes the library this
 * program opened, nothing new is loaded; a new object means it fell back to another BLAS. */
static int shim_first_calls(const blas_entry *shim, const bench_case *gemm, const bench_case *gemv)
{
    int before = loaded_objects();
    call_once(gemm, shim);
    call_once(gemv, shim);
    int after = loaded_objects();
    if (after != before)
        fprintf(stderr, "call_overhead: the shim's first calls loaded %d more object(s): it is not using the CPU "
                        "BLAS given here\n", after - before);
    return after == before;
}

/* slow (a library search), so only ever outside the timing */
static int libcuda_loaded(void)
{
    void *h = dlopen(LIBCUDA, RTLD_NOW | RTLD_NOLOAD);
    if (h)
        dlclose(h);
    return h != NULL;
}

/* loads the driver when it exists: only after the last timed call */
static int libcuda_installed(void)
{
    void *h = dlopen(LIBCUDA, RTLD_LAZY | RTLD_LOCAL);
    return h != NULL;
}

/* The few driver API entry points a CUDA program's start-up goes through, declared here so that
 * this program needs no CUDA toolkit. */
typedef int cu_result;
typedef int cu_device;
typedef struct cu_ctx_st *cu_context;
typedef unsigned long long cu_deviceptr;

static void *cuda_symbol(void *h, const char *name)
{
    void *f = dlsym(h, name);
    if (!f)
        fprintf(stderr, "call_overhead: %s has no %s\n", LIBCUDA, name);
    return f;
}

/* situation cuda: the driver loaded, initialised, a context current on this thread and memory
 * allocated, before the shim sees its first call */
static int init_cuda(void)
{
    void *h = dlopen(LIBCUDA, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "call_overhead: situation cuda needs a CUDA driver: %s\n", dlerror());
        return 0;
    }
    cu_result (*init)(unsigned) = (cu_result(*)(unsigned))cuda_symbol(h, "cuInit");
    cu_result (*device_get)(cu_device *, int) = (cu_result(*)(cu_device *, int))cuda_symbol(h, "cuDeviceGet");
    cu_result (*retain)(cu_context *, cu_device) =
        (cu_result(*)(cu_context *, cu_device))cuda_symbol(h, "cuDevicePrimaryCtxRetain");
    cu_result (*set_current)(cu_context) = (cu_result(*)(cu_context))cuda_symbol(h, "cuCtxSetCurrent");
    cu_result (*mem_alloc)(cu_deviceptr *, size_t) =
        (cu_result(*)(cu_deviceptr *, size_t))cuda_symbol(h, "cuMemAlloc_v2");
    if (!init || !device_get || !retain || !set_current || !mem_alloc)
        return 0;
    cu_device dev;
    cu_context ctx;
    cu_deviceptr mem; /* kept for the whole run, as a CUDA program keeps its buffers */
    cu_result r;
    const char *step = "cuInit";
    if ((r = init(0)) == 0 && (step = "cuDeviceGet", r = device_get(&dev, 0)) == 0 &&
        (step = "cuDevicePrimaryCtxRetain", r = retain(&ctx, dev)) == 0 &&
        (step = "cuCtxSetCurrent", r = set_current(ctx)) == 0 &&
        (step = "cuMemAlloc", r = mem_alloc(&mem, 1 << 20)) == 0)
        return 1;
    fprintf(stderr, "call_overhead: %s failed (CUresult %d)\n", step, r);
    return 0;
}

/* after the timing: did the process look as the situation says? */
static int situation_met(enum situation s)
{
    if (s == SIT_CUDA) {
        /* CUDA was set up before the first call (or the run ended); a shim that cannot use the
         * GPU skips its pointer checks, so its calls would not take the path this situation is for */
        if (shimblas_gpu_available())
            return 1;
        printf("SITUATION NOT MET: the shim finds no usable GPU, so it never asks CUDA about pointers\n");
        return 0;
    }
    if (libcuda_loaded()) {
        printf("SITUATION NOT MET: %s was loaded in the process during the timing\n", LIBCUDA);
        return 0;
    }
    int installed = libcuda_installed();
    if (s == SIT_NONE && installed)
        printf("SITUATION NOT MET: a CUDA driver (%s) is installed here: this is situation 'installed'\n", LIBCUDA);
    if (s == SIT_INSTALLED && !installed)
        printf("SITUATION NOT MET: no CUDA driver (%s) is installed here: this is situation 'none'\n", LIBCUDA);
    return installed == (s == SIT_INSTALLED);
}

/* ---- one case ---------------------------------------------------------------------------------- */

typedef struct result {
    long calls_per_block, blocks;
    summary direct, shim, overhead;
    unsigned long long not_on_cpu;  /* timed shim calls the counters did not see served by the CPU BLAS */
    unsigned long long extra_calls; /* calls the shim counted beyond its own timed ones: direct calls that
                                       reached it */
} result;

/* calls per block: the asked number, or fewer where the slower side would make blocks long */
static long block_size(long asked, double direct_ns, double shim_ns)
{
    double slower = direct_ns > shim_ns ? direct_ns : shim_ns;
    if (slower * (double)asked <= BLOCK_CAP_NS)
        return asked;
    long fit = (long)(BLOCK_CAP_NS / slower);
    return fit < MIN_BLOCK_CALLS ? MIN_BLOCK_CALLS : fit;
}

/* what the shim's counters say about the timed blocks: of the timed shim calls, how many it did
 * not serve on the CPU BLAS, and how many calls it saw beyond them (the direct side reaching it) */
static void check_counts(const bench_case *bc, unsigned long long timed, result *r)
{
    shimblas_stats s;
    shimblas_get_stats(&s);
    const shimblas_counts *c = bc->gemm ? &s.sgemm : &s.sgemv;
    r->extra_calls = c->calls > timed ? c->calls - timed : 0;
    r->not_on_cpu = c->calls - c->cpu;  /* served elsewhere (gpu, trivial, ...), whoever made them */
    if (c->calls < timed)               /* calls that never reached it count as not served either */
        r->not_on_cpu += timed - c->calls;
}

static result measure(const bench_case *bc, const blas_entry *direct, const blas_entry *shim, const options *o)
{
    result r = {.blocks = o->blocks};
    /* twice each, in turn: the second round starts from the state the timed blocks will see */
    double d_ns = 0, s_ns = 0;
    for (int round = 0; round < 2; round++) {
        d_ns = warm_up(bc, direct);
        s_ns = warm_up(bc, shim);
    }
    r.calls_per_block = block_size(o->block_calls, d_ns, s_ns);

    double *d = malloc(sizeof(double) * (size_t)r.blocks), *s = malloc(sizeof(double) * (size_t)r.blocks);
    double *diff = malloc(sizeof(double) * (size_t)r.blocks);
    shimblas_reset_stats();
    for (long i = 0; i < r.blocks; i++) {
        double per = (double)r.calls_per_block;
        if (i % 2) {
            s[i] = time_block(bc, shim, r.calls_per_block) / per;
            d[i] = time_block(bc, direct, r.calls_per_block) / per;
        } else {
            d[i] = time_block(bc, direct, r.calls_per_block) / per;
            s[i] = time_block(bc, shim, r.calls_per_block) / per;
        }
        diff[i] = s[i] - d[i];
    }
    check_counts(bc, (unsigned long long)(r.blocks * r.calls_per_block), &r);

    r.direct = summarize(d, r.blocks);
    r.shim = summarize(s, r.blocks);
    r.overhead = summarize(diff, r.blocks);
    free(d);
    free(s);
    free(diff);
    return r;
}

/* ---- output ------------------------------------------------------------------------------------ */

static void case_name(const bench_case *bc, char *out, size_t size)
{
    const char *routine = bc->gemm ? (bc->cblas ? "cblas_sgemm" : "sgemm_") : (bc->cblas ? "cblas_sgemv" : "sgemv_");
    const char *layout = bc->cblas ? " row-major" : "";
    if (bc->gemm)
        snprintf(out, size, "%s%s NN %dx%dx%d", routine, layout, bc->dim, bc->dim, bc->dim);
    else
        snprintf(out, size, "%s%s %s %dx%d", routine, layout, bc->trans ? "T" : "N", bc->dim, bc->dim);
}

static int is_valid(const result *r)
{
    return !r->not_on_cpu && !r->extra_calls;
}

static const char *verdict(const result *r)
{
    if (!is_valid(r))
        return "invalid";
    return r->overhead.med <= BUDGET_NS ? "ok" : "missed";
}

static void print_row(const bench_case *bc, const result *r)
{
    char name[64], v[96];
    case_name(bc, name, sizeof name);
    if (r->not_on_cpu)
        snprintf(v, sizeof v, "INVALID: %llu calls not on the CPU", r->not_on_cpu);
    else if (r->extra_calls)
        snprintf(v, sizeof v, "INVALID: %llu direct calls went through the shim", r->extra_calls);
    else if (r->overhead.med <= BUDGET_NS)
        snprintf(v, sizeof v, "ok");
    else
        snprintf(v, sizeof v, "MISSED by %.0f ns", r->overhead.med - BUDGET_NS);
    printf("| %-31s | %5ld | %8.1f [%.1f, %.1f] | %8.1f [%.1f, %.1f] | %8.1f [%.1f, %.1f] | %s |\n", name,
           r->calls_per_block, r->direct.med, r->direct.min, r->direct.p90, r->shim.med, r->shim.min, r->shim.p90,
           r->overhead.med, r->overhead.min, r->overhead.p90, v);
    fflush(stdout);
}

static FILE *open_csv(const char *path)
{
    FILE *f = fopen(path, "a");
    if (!f) {
        perror(path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    if (ftell(f) == 0)
        fprintf(f, "situation,cpu_blas,routine,interface,trans,m,n,k,beta,calls_per_block,blocks,"
                   "direct_median_ns,direct_min_ns,direct_p90_ns,shim_median_ns,shim_min_ns,shim_p90_ns,"
                   "overhead_median_ns,overhead_min_ns,overhead_p90_ns,budget_ns,verdict\n");
    return f;
}

static void csv_row(FILE *f, const options *o, const bench_case *bc, const result *r)
{
    fprintf(f, "%s,%s,%s,%s,%s,%d,%d,%d,%g,%ld,%ld,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%d,%s\n",
            situation_names[o->situation], o->cpu_blas, bc->gemm ? "sgemm" : "sgemv", bc->cblas ? "cblas" : "fortran",
            bc->gemm ? "NN" : bc->trans ? "T" : "N", bc->dim, bc->dim, bc->gemm ? bc->dim : 0, bc->beta,
            r->calls_per_block, r->blocks, r->direct.med, r->direct.min, r->direct.p90, r->shim.med, r->shim.min,
            r->shim.p90, r->overhead.med, r->overhead.min, r->overhead.p90, BUDGET_NS, verdict(r));
}

/* ---- main -------------------------------------------------------------------------------------- */

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--situation none|installed|cuda] [--csv FILE] [--blocks N] [--block-calls N] [--beta B] "
            "[CPU_BLAS]\n",
            prog);
    exit(2);
}

static long positive(const char *s, const char *prog)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v <= 0)
        usage(prog);
    return v;
}

static options parse_options(int argc, char **argv)
{
    static const struct option longopts[] = {{"situation", required_argument, NULL, 's'},
                                             {"csv", required_argument, NULL, 'c'},
                                             {"blocks", required_argument, NULL, 'b'},
                                             {"block-calls", required_argument, NULL, 'n'},
                                             {"beta", required_argument, NULL, 'B'},
                                             {NULL, 0, NULL, 0}};
    options o = {SIT_NONE, NULL, NULL, DEFAULT_BLOCKS, DEFAULT_BLOCK_CALLS, 0.0f};
    int ch;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 's':
            if (strcmp(optarg, "none") == 0)
                o.situation = SIT_NONE;
            else if (strcmp(optarg, "installed") == 0)
                o.situation = SIT_INSTALLED;
            else if (strcmp(optarg, "cuda") == 0)
                o.situation = SIT_CUDA;
            else
                usage(argv[0]);
            break;
        case 'c': o.csv = optarg; break;
        case 'b': o.blocks = positive(optarg, argv[0]); break;
        case 'n': o.block_calls = positive(optarg, argv[0]); break;
        case 'B': {
            char *end;
            o.beta = strtof(optarg, &end);
            if (end == optarg || *end)
                usage(argv[0]);
            break;
        }
        default: usage(argv[0]);
        }
    }
    if (optind < argc - 1)
        usage(argv[0]);
    const char *env = getenv("SHIMBLAS_CPU_BLAS");
    o.cpu_blas = optind < argc ? argv[optind] : env && *env ? env : "libopenblas.so.0";
    return o;
}

enum { MAX_DIM = 128, MAX_CASES = 32 };

/* sgemm 4^3 to 32^3, sgemv 8^2 to 128^2 in both transposes; each through the Fortran entry point
 * and, when the CPU BLAS has its own CBLAS to compare with, through CBLAS */
static int build_cases(bench_case *out, int with_cblas, const float *a, const float *b, float *c, float beta)
{
    static const int gemm_dims[] = {4, 8, 16, 32}, gemv_dims[] = {8, 32, 128};
    int n = 0;
    for (int cblas = 0; cblas <= with_cblas; cblas++) {
        for (size_t i = 0; i < sizeof gemm_dims / sizeof *gemm_dims; i++)
            out[n++] = (bench_case){1, cblas, 0, gemm_dims[i], a, b, c, beta};
        for (size_t i = 0; i < sizeof gemv_dims / sizeof *gemv_dims; i++)
            for (int trans = 0; trans < 2; trans++)
                out[n++] = (bench_case){0, cblas, trans, gemv_dims[i], a, b, c, beta};
    }
    return n;
}

int main(int argc, char **argv)
{
    options o = parse_options(argc, argv);
    /* before the shim's first call: it reads its environment once */
    setenv("SHIMBLAS_CPU_BLAS", o.cpu_blas, 1);
    if (o.situation == SIT_CUDA && !init_cuda())
        return 1;
    blas_entry direct, shim = {sgemm_, sgemv_, cblas_sgemm, cblas_sgemv};
    if (!open_cpu_blas(o.cpu_blas, &direct))
        return 1;
    FILE *csv = o.csv ? open_csv(o.csv) : NULL;
    if (o.csv && !csv)
        return 1;

    static float a[MAX_DIM * MAX_DIM], b[MAX_DIM * MAX_DIM], c[MAX_DIM * MAX_DIM];
    fill(a, MAX_DIM * MAX_DIM, 1);
    fill(b, MAX_DIM * MAX_DIM, 2);
    fill(c, MAX_DIM * MAX_DIM, 3);
    bench_case first_gemm = {1, 0, 0, 8, a, b, c, o.beta}, first_gemv = {0, 0, 0, 8, a, b, c, o.beta};
    int valid = shim_first_calls(&shim, &first_gemm, &first_gemv);
    warm_machine(&first_gemm, &direct, &shim);

    static const char *const mode_names[] = {"auto", "gpu", "cpu"};
    printf("shimblas %s, mode %s, situation %s, CPU BLAS %s, beta %g, budget %d ns per call (median)\n\n",
           shimblas_version(), mode_names[shimblas_get_mode()], situation_names[o.situation], o.cpu_blas, o.beta,
           BUDGET_NS);
    printf("ns per call: median [min, p90] over %ld block pairs; overhead = shim - direct, per pair\n\n", o.blocks);
    printf("| %-31s | calls/block | direct ns | shim ns | overhead ns | verdict |\n", "case");
    printf("| --- | ---: | ---: | ---: | ---: | --- |\n");

    bench_case cases[MAX_CASES];
    int ncases = build_cases(cases, direct.cblas_sgemm != NULL, a, b, c, o.beta), missed = 0, invalid = 0;
    for (int i = 0; i < ncases; i++) {
        result r = measure(&cases[i], &direct, &shim, &o);
        print_row(&cases[i], &r);
        if (csv)
            csv_row(csv, &o, &cases[i], &r);
        missed += is_valid(&r) && r.overhead.med > BUDGET_NS;
        invalid += !is_valid(&r);
    }
    if (csv)
        fclose(csv);

    printf("\n");
    valid = situation_met(o.situation) && valid && !invalid;
    if (invalid)
        printf("INVALID: in %d of %d cases the shim's counters show calls not served by the CPU BLAS, or direct "
               "calls that went through the shim\n",
               invalid, ncases);
    if (missed)
        printf("BUDGET MISSED: %d of %d cases add more than %d ns per call\n", missed, ncases, BUDGET_NS);
    else if (!invalid)
        printf("within budget: every case adds at most %d ns per call (median)\n", BUDGET_NS);
    return valid ? 0 : 1;
}
