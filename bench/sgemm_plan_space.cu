/* Every FP32 plan of the pipelined kernels for a shape, timed, beside the cost model's estimate of
 * it, the selector's choice and cuBLAS pedantic FP32 (device operands, the same every call, as
 * bench/sgemm_plans). Where bench/sgemm_plans runs each named variant's own plan, this runs the
 * plans the variants choose among: each configuration's data-parallel tiles, every split count of
 * split-K (all tiles split, or only those past the last whole wave) and stream-K over 1, 2, ...
 * blocks an SM. What it answers: whether a shape's gap to cuBLAS is the cost model's (a plan we
 * have runs faster than the one chosen) or the kernels' (none does).
 * Usage: sgemm_plan_space SHAPES CSV   (SHAPES: lines "M N K TA TB", column-major)
 * CSV rows: m,n,k,case,method,cfg,dp_tiles,split_tiles,splits,sk_blocks,ms,model_ms,plan (ms: the median
 * of ROUNDS runs, one a round, every plan of the shape timed in each round)
 * (method: dp, split, splitc (the same split finished in thread-block clusters, split_cluster.cu, where
 * the device and the configuration allow it), tail, streamk, selector or cublas; and where the shape has K-contiguous
 * operands, for each set of them transpose_first could copy (A, B, AB), "A:copy" for the copies alone
 * and "A:dp", "A:split", ... for the copies followed by each plan of the copied form, model_ms then
 * the plan's estimate on the copied form plus the copies' price). stdout: per shape the fastest plan,
 * the model's favourite among these, the selector's choice and cuBLAS. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "bench_util.h"
}
#include "sgemm_shapes.h"
#include "sgemm_internal.h"

using namespace sgemm;

namespace {

cublasHandle_t handle;
cudaStream_t stream;

struct job {
    const plan *pl; /* NULL: cuBLAS, the selector when v is set, or the copies alone */
    const shim_sgemm_variant *v;
    shim_sgemm_args p;
    int copies; /* transpose_first's copies (COPY_A | COPY_B) first, then pl on the copied form */
};

void run_job(int, void *ctx, cudaStream_t)
{
    job *j = static_cast<job *>(ctx);
    if (j->copies) {
        shim_sgemm_args q;
        BENCH_CUDA(transpose_first_copy(&j->p, j->copies, &q));
        if (j->pl)
            BENCH_CUDA(launch_plan(&q, *j->pl));
        return;
    }
    if (j->pl) {
        BENCH_CUDA(launch_plan(&j->p, *j->pl));
        return;
    }
    if (j->v) {
        BENCH_CUDA(shim_sgemm_run(j->v, &j->p));
        return;
    }
    bench_cublas_sgemm(handle, &j->p, "sgemm_plan_space");
}

constexpr int ROUNDS = 7;

/* one timed run of j, enqueued behind an untimed one so that what the host spends launching it
 * (cuBLAS's heuristics, our planning) is hidden as it is in a stream of calls */
double time_job(job j, size_t work_bytes)
{
    j.p.work_bytes = work_bytes;
    j.p.work = work_bytes ? bench_scratch(work_bytes) : nullptr;
    static cudaEvent_t start, end;
    if (!start) {
        BENCH_CUDA(cudaEventCreate(&start));
        BENCH_CUDA(cudaEventCreate(&end));
    }
    run_job(0, &j, stream);
    BENCH_CUDA(cudaEventRecord(start, stream));
    run_job(1, &j, stream);
    BENCH_CUDA(cudaEventRecord(end, stream));
    BENCH_CUDA(cudaEventSynchronize(end));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, start, end));
    return ms;
}

int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

struct candidate {
    const char *method;
    plan pl;
};

/* the plans of shape p: as plan.cu builds them, over every count it could choose */
std::vector<candidate> plans_of(const shim_sgemm_args *p)
{
    std::vector<candidate> out;
    const int sms = sm_count();
    static const int splits[] = {2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32};
    for (int cfg = 0; cfg < TILE_CONFIGS; ++cfg) {
        const tile_config &c = config(cfg);
        const plan dp = plan_dp(p, cfg);
        if (dp.dp_tiles < 1)
            continue;
        const bool one_wave_ok = !c.one_wave || dp.dp_tiles <= sms;
        if (one_wave_ok)
            out.push_back({"dp", dp});
        if (c.split && !c.one_wave) {
            const int slots = c.blocks_per_sm * sms;
            const int tail_dp = dp.dp_tiles > slots && dp.dp_tiles % slots ? dp.dp_tiles / slots * slots : -1;
            for (int s : splits) {
                if ((int64_t)s * c.bk * 2 > p->k)
                    break;
                for (int dpt : {0, tail_dp}) {
                    if (dpt < 0)
                        continue;
                    plan pl = dp;
                    pl.kslice = (int)(cdiv(cdiv(p->k, s), c.bk) * c.bk);
                    pl.split_tiles = dp.dp_tiles - dpt;
                    pl.dp_tiles = dpt;
                    pl.splits = (int)cdiv(p->k, pl.kslice);
                    if (pl.splits < 2)
                        continue;
                    out.push_back({dpt ? "tail" : "split", pl});
                    /* the same split finished in clusters, where it can be: one a tile (splitc), or
                     * groups of clusters of 2 or 4 blocks (splitg2, splitg4) */
                    if (!dpt && pl.splits <= CLUSTER_MAX_SPLITS && cluster_split_usable(cfg)) {
                        pl.cluster = pl.splits;
                        out.push_back({"splitc", pl});
                        static const char *const grouped[] = {"", "splitg2", "", "splitg4"};
                        for (int size : {2, 4})
                            if (size < pl.splits && pl.splits % size == 0) {
                                pl.cluster = size;
                                out.push_back({grouped[size - 1], pl});
                            }
                    }
                }
            }
        }
        if (c.streamk) {
            const int64_t units = (int64_t)dp.dp_tiles * cdiv(std::max(p->k, 1), c.bk);
            for (int per = 1; per <= c.streamk; ++per) {
                const int64_t blocks = std::min<int64_t>((int64_t)per * sms, units / 4);
                if (blocks < 1 || units > INT32_MAX)
                    continue;
                plan pl = dp;
                pl.dp_tiles = 0;
                pl.sk_blocks = (int)blocks;
                out.push_back({"streamk", pl});
            }
        }
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sgemm_plan_space SHAPES CSV\n");
        return 2;
    }
    int count = 0;
    size_t max[3];
    bench_shape *shapes = bench_read_shapes(argv[1], "sgemm_plan_space", &count, max);
    FILE *csv = shapes ? fopen(argv[2], "w") : nullptr;
    if (!csv) {
        if (shapes)
            perror("sgemm_plan_space");
        return 1;
    }
    bench_sgemm_rig rig = bench_sgemm_rig_start(max, "sgemm_plan_space");
    stream = rig.stream;
    handle = rig.handle;
    float *const a = rig.a, *const b = rig.b, *const c = rig.c;

    /* what the cluster-finished splits can place at once, against the blocks an SM allows */
    for (int cfg = 0; cfg < TILE_CONFIGS; ++cfg) {
        if (!cluster_split_usable(cfg))
            continue;
        printf("clusters of %s (%d blocks an SM, %d slots):", config(cfg).name, config(cfg).blocks_per_sm,
               config(cfg).blocks_per_sm * sm_count());
        for (int s = 2; s <= CLUSTER_MAX_SPLITS; ++s)
            printf(" %d:%d", s, cluster_split_max_active(cfg, s));
        printf("\n");
    }
    fprintf(csv, "m,n,k,case,method,cfg,dp_tiles,split_tiles,splits,sk_blocks,ms,model_ms,plan\n");
    for (int s = 0; s < count; ++s) {
        const bench_shape sh = shapes[s];
        const shim_sgemm_args p = bench_shape_args(sh, a, b, c, stream);
        const char cs[3] = {sh.ta ? 'T' : 'N', sh.tb ? 'T' : 'N', 0};
        /* every plan, then the selector's choice and cuBLAS, timed once a round, ROUNDS rounds: a
         * long shape's plans heat the card (an H100 ran 10 % slower by the end of one shape's
         * plans timed one after another), so each plan's median draws on every stage of that */
        /* the direct plans (copies 0), then each copied form's: the copies alone (no plan), then
         * the copies followed by each of the copied form's plans */
        std::vector<candidate> cands;
        std::vector<int> cand_copies;
        std::vector<shim_sgemm_args> forms;
        const int kc = (sh.ta ? COPY_A : 0) | (sh.tb ? 0 : COPY_B);
        for (int copies = 0; copies <= kc; ++copies) {
            if ((copies & kc) != copies)
                continue;
            shim_sgemm_args q = p;
            if (copies) {
                copied_form_variant(&p, copies, &q);
                cands.push_back({"copy", plan{}});
                cand_copies.push_back(copies);
                forms.push_back(q);
            }
            for (const candidate &cand : plans_of(&q)) {
                cands.push_back(cand);
                cand_copies.push_back(copies);
                forms.push_back(q);
            }
        }
        const shim_sgemm_variant *sel = shim_sgemm_select(&p);
        std::vector<job> jobs;
        std::vector<size_t> works;
        for (size_t i = 0; i < cands.size(); ++i) {
            const candidate &cand = cands[i];
            const int copies = cand_copies[i];
            const bool copy_only = copies && strcmp(cand.method, "copy") == 0;
            jobs.push_back({copy_only ? nullptr : &cand.pl, nullptr, p, copies});
            works.push_back((copies ? transpose_first_copy_bytes(&p, copies) : 0) +
                            (!copy_only && (cand.pl.split_tiles > 0 || cand.pl.sk_blocks > 0)
                                 ? plan_work_bytes(cand.pl) + 256
                                 : 0));
        }
        jobs.push_back({nullptr, sel, p, 0});
        works.push_back(shim_sgemm_work_bytes(sel, &p));
        jobs.push_back({nullptr, nullptr, p, 0});
        works.push_back(0);
        std::vector<std::vector<double>> samples(jobs.size());
        for (int round = 0; round < ROUNDS; ++round)
            for (size_t i = 0; i < jobs.size(); ++i)
                if (works[i] <= ((size_t)1 << 31))
                    samples[i].push_back(time_job(jobs[i], works[i]));
        std::vector<double> med(jobs.size(), INFINITY);
        for (size_t i = 0; i < jobs.size(); ++i)
            if (!samples[i].empty()) {
                std::sort(samples[i].begin(), samples[i].end());
                med[i] = samples[i][samples[i].size() / 2];
            }
        double best = INFINITY, best_model = INFINITY, model_pick_ms = 0;
        char best_desc[160] = "", model_desc[160] = "";
        for (size_t i = 0; i < cands.size(); ++i) {
            const candidate &cand = cands[i];
            if (!std::isfinite(med[i]))
                continue;
            const int copies = cand_copies[i];
            const bool copy_only = copies && strcmp(cand.method, "copy") == 0;
            const char *copied = copies == (COPY_A | COPY_B) ? "AB:" : copies == COPY_A ? "A:" : copies ? "B:" : "";
            const double copy_s = copies ? transpose_first_copy_seconds(&p, copies) : 0.0;
            const double ms = med[i], model = 1e3 * (copy_s + (copy_only ? 0.0 : plan_cost(&forms[i], cand.pl)));
            char method[16], desc[160];
            snprintf(method, sizeof method, "%s%s", copied, cand.method);
            if (copy_only) {
                fprintf(csv, "%d,%d,%d,%s,%s,,,,,,%.4f,%.4f,\"%scopies\"\n", sh.m, sh.n, sh.k, cs, method, ms, model,
                        copied);
                continue;
            }
            snprintf(desc, sizeof desc, "%s%s %s dp %d split %d x%d sk %d", copied, config(cand.pl.cfg).name,
                     cand.method, cand.pl.dp_tiles, cand.pl.split_tiles, cand.pl.splits, cand.pl.sk_blocks);
            fprintf(csv, "%d,%d,%d,%s,%s,%s,%d,%d,%d,%d,%.4f,%.4f,\"%s\"\n", sh.m, sh.n, sh.k, cs, method,
                    config(cand.pl.cfg).name, cand.pl.dp_tiles, cand.pl.split_tiles, cand.pl.splits, cand.pl.sk_blocks,
                    ms, model, desc);
            if (ms < best)
                best = ms, snprintf(best_desc, sizeof best_desc, "%s", desc);
            if (model < best_model)
                best_model = model, model_pick_ms = ms, snprintf(model_desc, sizeof model_desc, "%s", desc);
        }
        const double sel_ms = med[cands.size()], cublas_ms = med[cands.size() + 1];
        char how[256];
        shim_sgemm_describe(sel, &p, how, sizeof how);
        fprintf(csv, "%d,%d,%d,%s,selector,,,,,,%.4f,,\"%s\"\n", sh.m, sh.n, sh.k, cs, sel_ms, how);
        fprintf(csv, "%d,%d,%d,%s,cublas,,,,,,%.4f,,\n", sh.m, sh.n, sh.k, cs, cublas_ms);
        printf("%dx%dx%d %s: cuBLAS %.4f | fastest plan %.4f (%.3fx cuBLAS) %s | model's pick %.4f %s | selector "
               "%.4f (%.3fx) %s\n",
               sh.m, sh.n, sh.k, cs, cublas_ms, best, cublas_ms / best, best_desc, model_pick_ms, model_desc, sel_ms,
               cublas_ms / sel_ms, how);
        fflush(csv);
        fflush(stdout);
    }
    fclose(csv);
    free(shapes);
    bench_sgemm_rig_stop(&rig);
    return 0;
}
