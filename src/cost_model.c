#include "cost_model.h"

#include <stdio.h>
#include <string.h>

#include "tile_plan.h"

static double ms(double bytes_or_flops, double per_second)
{
    return per_second > 0 ? bytes_or_flops / per_second * 1e3 : 1e30;
}

static double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

/* the staged path runs at the slower of the bus and the host copies feeding it */
static double upload_rate(const shim_cost_model *m)
{
    return (m->h2d_gbps < m->pack_gbps ? m->h2d_gbps : m->pack_gbps) * 1e9;
}

static double download_rate(const shim_cost_model *m)
{
    return (m->d2h_gbps < m->pack_gbps ? m->d2h_gbps : m->pack_gbps) * 1e9;
}

/* fraction of the GPU a tile keeps busy: 128 x 128 blocks over 132 SMs, two per SM; a long k
 * lets the kernels split it and fill the machine anyway */
static double tile_efficiency(int m, int n, int k)
{
    double blocks = (double)((m + 127) / 128) * (double)((n + 127) / 128);
    double eff = blocks / 264.0;
    if (eff < 0.7 && k >= 4 * (m > n ? m : n))
        eff = 4 * eff < 0.7 ? 4 * eff : 0.7;
    return eff > 1.0 ? 1.0 : eff;
}

void shim_predict_sgemm(const shim_cost_model *m, const shim_gemm_problem *p, shim_staging s, double *cpu_ms,
                        double *gpu_ms)
{
    double flops = 2.0 * p->m * (double)p->n * p->k;
    *cpu_ms = m->cpu_sgemm_call_ms + ms(flops, m->cpu_sgemm_gflops * 1e9);

    shim_tile_plan plan;
    int reads_c = p->beta != 0.0f;
    if (shim_plan_tiles(p->m, p->n, p->k, p->transa, p->transb, s.a, s.b, s.c, (size_t)1 << 40, &plan)) {
        *gpu_ms = 1e30;
        return;
    }
    double a = s.a ? 4.0 * p->m * (double)p->k : 0, b = s.b ? 4.0 * p->k * (double)p->n : 0;
    double c = s.c ? 4.0 * p->m * (double)p->n : 0;
    double in = a + b + (reads_c ? c : 0), out = c;
    double compute = ms(flops, m->gpu_sgemm_gflops * 1e9 * tile_efficiency(plan.tm, plan.tn, p->k));
    /* the first tile's blocks arrive before anything computes; the last tile leaves after */
    double tiles = (double)plan.mt * plan.nt, chunks = (double)plan.kt;
    double fill =
        ms((s.a ? a / plan.mt : 0) / chunks + (s.b ? b / plan.nt : 0) / chunks + (reads_c ? c / tiles : 0),
           upload_rate(m));
    double drain = ms(out / tiles, download_rate(m));
    *gpu_ms =
        m->gpu_call_ms + fill + max3(ms(in, upload_rate(m)), compute, ms(out, download_rate(m))) + drain;
}

void shim_predict_sgemv(const shim_cost_model *m, const shim_gemv_problem *p, shim_staging s, double *cpu_ms,
                        double *gpu_ms)
{
    double a = 4.0 * p->m * (double)p->n, x = 4.0 * shim_gemv_lenx(p), y = 4.0 * shim_gemv_leny(p);
    *cpu_ms = m->cpu_sgemv_call_ms + ms(a + x + y, m->cpu_sgemv_gbps * 1e9);
    double in = (s.a ? a : 0) + (s.b ? x : 0) + (s.c && p->beta != 0.0f ? y : 0), out = s.c ? y : 0;
    *gpu_ms = m->gpu_call_ms + ms(out, download_rate(m)) +
              max3(ms(in, upload_rate(m)), ms(a, m->gpu_sgemv_gbps * 1e9), 0.0);
}

int shim_prefer_gpu(double cpu_ms, double gpu_ms)
{
    return gpu_ms < SHIM_GPU_MARGIN * cpu_ms;
}

int shim_sgemm_worth_modelling(const shim_gemm_problem *p)
{
    /* below about 2 * 128^3 flops a CPU core finishes before a GPU round trip */
    return 2.0 * p->m * (double)p->n * p->k >= 4.0e6;
}

int shim_sgemv_worth_modelling(const shim_gemv_problem *p)
{
    /* A of at least 4 MB: smaller ones sit in the CPU's caches */
    return 4.0 * p->m * (double)p->n >= 4.0 * (1 << 20);
}

/* ---- the cache file's text form ------------------------------------------------------------------ */

#define FIELDS(X)                                                                                            \
    X(h2d_gbps)                                                                                              \
    X(d2h_gbps)                                                                                              \
    X(pack_gbps)                                                                                             \
    X(gpu_sgemm_gflops)                                                                                      \
    X(gpu_sgemv_gbps)                                                                                        \
    X(gpu_call_ms) X(cpu_sgemm_gflops) X(cpu_sgemm_call_ms) X(cpu_sgemv_gbps) X(cpu_sgemv_call_ms)

int shim_cost_model_format(const shim_cost_model *m, char *out, int len)
{
    int used = 0;
#define FORMAT(name)                                                                                         \
    used += snprintf(out + used, used < len ? (size_t)(len - used) : 0, #name " %.6g\n", m->name);
    FIELDS(FORMAT)
#undef FORMAT
    return used;
}

int shim_cost_model_parse(const char *text, shim_cost_model *m)
{
    int missing = 0;
#define PARSE(name)                                                                                          \
    {                                                                                                        \
        const char *at = strstr(text, #name " ");                                                            \
        if (!at || sscanf(at + sizeof #name, "%lf", &m->name) != 1)                                          \
            missing++;                                                                                       \
    }
    FIELDS(PARSE)
#undef PARSE
    return missing ? -1 : 0;
}
