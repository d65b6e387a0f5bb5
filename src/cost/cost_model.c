#include "cost_model.h"

#include <pthread.h>
#include <stdint.h>
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

void shim_predict_sgemm(const shim_cost_model *m, const shim_gemm_problem *p, shim_staging s, int gpus,
                        double *cpu_ms, double *gpu_ms)
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
    int shared = gpus < plan.mt ? gpus : plan.mt;
    if (shared > 1 && (s.a || s.b || s.c) && (double)p->m * p->n * (double)p->k >= SHIM_SPREAD_MIN_MACS) {
        /* per device: its bands of A and C and its share of B from the host (the rest of B comes
         * from the other devices over their direct link: src/gpu/block_exchange.c, assumed there);
         * on the host: the copies of A, B and C once */
        double dev_in = (a + b + (reads_c ? c : 0)) / shared, dev_out = c / shared;
        double link = max3(ms(dev_in, m->h2d_gbps * 1e9), ms(dev_out, m->d2h_gbps * 1e9), 0.0);
        double host = ms(a + b + (reads_c ? c : 0) + c, m->pack_gbps * 1e9);
        *gpu_ms = m->gpu_call_ms + fill + max3(link, host, compute / shared) + drain;
        return;
    }
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

/* ---- learning from measured calls ------------------------------------------------------------------ */

#define FEEDBACK_SLOTS 1024
#define FEEDBACK_FADE 0.95

typedef struct feedback_entry {
    unsigned key; /* 0: empty */
    float factor[2];
    unsigned char seen[2];
} feedback_entry;

static feedback_entry feedback[FEEDBACK_SLOTS];
static pthread_mutex_t feedback_lock = PTHREAD_MUTEX_INITIALIZER;

/* floor(2 log2 v): octaves split at sqrt(2) */
static unsigned half_octave(int64_t v)
{
    if (v <= 1)
        return 0;
    unsigned b = 63u - (unsigned)__builtin_clzll((unsigned long long)v);
    /* v >= 2^b * sqrt(2), without squaring v (it may pass 2^32) */
    double r = (double)v / (double)(1ull << b);
    return (2 * b + (r * r >= 2.0)) & 0xff;
}

unsigned shim_feedback_key(int routine, int64_t m, int64_t n, int64_t k)
{
    return 1u + ((unsigned)routine << 24 | half_octave(m) << 16 | half_octave(n) << 8 | half_octave(k));
}

/* the entry for key, claimed if absent; NULL when the table is full (then nothing is learned) */
static feedback_entry *entry(unsigned key, int claim)
{
    for (unsigned i = 0; i < FEEDBACK_SLOTS; i++) {
        feedback_entry *e = &feedback[(key * 2654435761u + i) % FEEDBACK_SLOTS];
        if (e->key == key)
            return e;
        if (e->key == 0) {
            if (!claim)
                return NULL;
            *e = (feedback_entry){key, {1.0f, 1.0f}, {0, 0}};
            return e;
        }
    }
    return NULL;
}

void shim_feedback_apply(unsigned key, double *cpu_ms, double *gpu_ms)
{
    pthread_mutex_lock(&feedback_lock);
    feedback_entry *e = entry(key, 0);
    if (e) {
        *cpu_ms *= e->factor[0];
        *gpu_ms *= e->factor[1];
    }
    pthread_mutex_unlock(&feedback_lock);
}

void shim_feedback_record(unsigned key, int side, double predicted_ms, double measured_ms)
{
    if (!(predicted_ms > 0) || !(measured_ms > 0) || side < 0 || side > 1)
        return;
    double ratio = measured_ms / predicted_ms;
    ratio = ratio < 0.25 ? 0.25 : ratio > 8.0 ? 8.0 : ratio;
    pthread_mutex_lock(&feedback_lock);
    feedback_entry *e = entry(key, 1);
    if (e) {
        if (e->seen[side] == 0)
            e->seen[side] = 1; /* the first call carries one-time costs */
        else if (e->seen[side] == 1) {
            e->factor[side] = (float)ratio;
            e->seen[side] = 2;
        } else {
            e->factor[side] = (float)(0.5 * e->factor[side] + 0.5 * ratio);
        }
        /* What was learned about the side not taken fades back toward the model, 5 % a call: a
         * side judged slow once (a disturbed call, a one-time cost) is tried again after a few
         * dozen calls instead of never, and one retry costs little against that many calls. */
        const int other = !side;
        if (e->seen[other] == 2)
            e->factor[other] = (float)(1.0 + (e->factor[other] - 1.0) * FEEDBACK_FADE);
    }
    pthread_mutex_unlock(&feedback_lock);
}

void shim_feedback_reset(void)
{
    pthread_mutex_lock(&feedback_lock);
    for (int i = 0; i < FEEDBACK_SLOTS; i++)
        feedback[i] = (feedback_entry){0};
    pthread_mutex_unlock(&feedback_lock);
}
