/* The cost model against measured plans, without a GPU: reads a CSV of bench/sgemm_plan_space
 * (every plan of each shape, timed), asks this build's planner which direct plan the FP32 selector
 * would run for each shape (best data-parallel, split-K, tail split and stream-K plan, the split
 * plans taken where they beat the others by the selector's margin), and looks up that plan's
 * measured time. What it answers: how much a change of the model's constants would gain or lose on
 * shapes already measured, before any GPU time is spent (docs/notes/sgemm.md).
 * Usage: plan_regret SPACE_CSV [MAX_MS]   (shapes whose fastest plan took over MAX_MS, default 1.5,
 *        are left out: a long shape's many plans heat the card, and its later plans run slower)
 * The selector plans cluster-finished splits with the H200's cluster capacities (assumed_capacity.h,
 * as sgemm_plan_space printed them) unless PLAN_REGRET_CLUSTERS=device, which takes the capacities of
 * the device this runs on: none without a GPU, and then no cluster plans, a selector unlike the
 * library's (until the forty-ninth session that was the default, and the regrets it gave were a
 * cluster-less selector's: docs/notes/sgemm.md, "The cost model refitted, and held out").
 * stdout: one line a shape (the plan the model picks, its measured time over the fastest plan's,
 * cuBLAS's time over it), then the geometric mean regret and the shapes under 0.95x cuBLAS. Where
 * this build's selector copies operands first (transpose_first), its time is looked up among the
 * copied forms' plans where the space holds them (spaces measured since the twenty-seventh session),
 * else known only if the measured build's selector made the same choice (the CSV's selector row);
 * otherwise the shape is reported as not measured, as where it runs no pipelined plan (naive,
 * warptile). */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "assumed_capacity.h"
#include "sgemm_internal.h"
#include "sgemm_shapes.h"

using namespace sgemm;

namespace {

struct measured {
    int copies; /* the copied form's plans (spaces measured with copied forms): COPY_A | COPY_B */
    std::string cfg;
    int dp, split, splits, sk;
    double ms;
    int cluster; /* blocks a cluster: method "splitc" (all of a tile's slices), "splitgN" (N) */
};

struct shape_data {
    int m, n, k, ta, tb;
    std::vector<measured> plans;
    double cublas = 0, selector = 0;
    std::string selector_plan; /* how the selector of the measured build described its choice */
    bool copied_forms = false; /* the space holds the copied forms' plans */
};

/* the fields of one CSV line, quotes removed */
std::vector<std::string> fields(const char *line)
{
    std::vector<std::string> out(1);
    bool quoted = false;
    for (const char *c = line; *c && *c != '\n'; ++c) {
        if (*c == '"')
            quoted = !quoted;
        else if (*c == ',' && !quoted)
            out.emplace_back();
        else
            out.back() += *c;
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: plan_regret SPACE_CSV [MAX_MS]\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror("plan_regret");
        return 1;
    }
    const double max_ms = argc > 2 ? atof(argv[2]) : 1.5;
    /* PLAN_REGRET_HALVES=0: no 64x64w4 clusters, so the selector plans as before plan_split_halves */
    const char *cl = getenv("PLAN_REGRET_CLUSTERS");
    const bool device_capacities = cl && strcmp(cl, "device") == 0;
    if (!device_capacities) {
        const char *halves = getenv("PLAN_REGRET_HALVES");
        assume_h200_cluster_capacities(!(halves && strcmp(halves, "0") == 0));
    }
    fprintf(stderr, "plan_regret: cluster capacities %s\n",
            device_capacities ? "of this device"
                              : "of the H200 (PLAN_REGRET_CLUSTERS=device: this device's)");
    std::map<std::string, shape_data> shapes;
    std::vector<std::string> order;
    char line[1024];
    if (!fgets(line, sizeof line, in)) /* header */
        return 1;
    while (fgets(line, sizeof line, in)) {
        const std::vector<std::string> f = fields(line);
        if (f.size() < 12)
            continue;
        const std::string key = f[0] + "x" + f[1] + "x" + f[2] + " " + f[3];
        auto it = shapes.find(key);
        if (it == shapes.end()) {
            shape_data d;
            d.m = atoi(f[0].c_str()), d.n = atoi(f[1].c_str()), d.k = atoi(f[2].c_str());
            d.ta = f[3][0] == 'T', d.tb = f[3][1] == 'T';
            it = shapes.emplace(key, d).first;
            order.push_back(key);
        }
        shape_data &d = it->second;
        const double ms = atof(f[10].c_str());
        if (f[4] == "cublas")
            d.cublas = d.cublas ? d.cublas : ms;
        else if (f[4] == "selector" && !d.selector)
            d.selector = ms, d.selector_plan = f[12];
        else {
            /* "A:dp", "AB:streamk", ...: the copies, then a plan of the copied form; "A:copy": the
             * copies alone */
            const size_t colon = f[4].find(':');
            const std::string copied = colon == std::string::npos ? "" : f[4].substr(0, colon);
            if (colon != std::string::npos && f[4].substr(colon + 1) == "copy")
                continue;
            const int copies = (copied.find('A') != std::string::npos ? COPY_A : 0) |
                               (copied.find('B') != std::string::npos ? COPY_B : 0);
            const std::string method = colon == std::string::npos ? f[4] : f[4].substr(colon + 1);
            d.plans.push_back({copies, f[5], atoi(f[6].c_str()), atoi(f[7].c_str()), atoi(f[8].c_str()),
                               atoi(f[9].c_str()), ms,
                               method == "splitc"                    ? atoi(f[8].c_str())
                               : method.compare(0, 6, "splitg") == 0 ? atoi(method.c_str() + 6)
                                                                     : 0});
            d.copied_forms |= copies != 0;
        }
    }
    fclose(in);

    double log_regret = 0;
    int counted = 0, under = 0, missing = 0;
    for (const std::string &key : order) {
        const shape_data &d = shapes[key];
        double best = INFINITY;
        for (const measured &x : d.plans)
            best = std::min(best, x.ms);
        if (!(best <= max_ms) || d.cublas <= 0)
            continue;
        /* the measured operands were cudaMalloc'd: aligned */
        const shim_sgemm_args p =
            bench_shape_args({d.m, d.n, d.k, d.ta, d.tb, 0, 0.0f}, reinterpret_cast<const float *>(4096),
                             reinterpret_cast<const float *>(4096), reinterpret_cast<float *>(8192), nullptr);
        auto not_measured = [&](const char *what, const char *how) {
            printf("%-22s %s %-40s not measured\n", key.c_str(), what, how);
            ++missing;
        };
        auto measured_at = [&](const char *what, const char *how, double ms) {
            const double regret = ms / std::min(best, d.selector > 0 ? d.selector : best), vs = d.cublas / ms;
            printf("%-22s %s %-40s %.4f ms, %.3f of the fastest, %.3fx cuBLAS%s\n", key.c_str(), what, how,
                   ms, regret, vs, vs < 0.95 ? "  <0.95" : "");
            log_regret += std::log(regret);
            ++counted;
            under += vs < 0.95;
        };
        /* where this build copies operands first, its choice is known where the space holds the
         * copied forms' plans, else only if the measured build made the same one */
        const shim_sgemm_variant *sel = shim_sgemm_select(&p);
        const shim_sgemm_variant *runs = sel;
        shim_sgemm_args q = p;
        int copies = 0;
        if (strcmp(sel->name, "transpose_first") == 0) {
            char how[256];
            shim_sgemm_describe(sel, &p, how, sizeof how);
            if (!d.copied_forms) {
                if (d.selector_plan == how)
                    measured_at("copy", how, d.selector);
                else
                    not_measured("copy", how);
                continue;
            }
            runs = transpose_first_inner(&p, &copies, &q);
        }
        plan pl;
        if (!fp32_variant_plan(runs, &q, &pl)) {
            not_measured("runs", runs->name);
            continue;
        }
        const std::string cfg = config(pl.cfg).name;
        double ms = 0;
        for (const measured &x : d.plans) {
            if (x.copies != copies)
                continue;
            /* the space records a whole-tile plan's splits as 1 */
            const bool same = x.cfg == cfg && x.dp == pl.dp_tiles && x.split == pl.split_tiles &&
                              x.sk == pl.sk_blocks && (pl.split_tiles == 0 || x.splits == pl.splits) &&
                              x.cluster == pl.cluster;
            if (same && (ms == 0 || x.ms < ms))
                ms = x.ms;
        }
        char desc[128];
        snprintf(desc, sizeof desc, "%s%s dp %d split %d x%d sk %d%s",
                 copies == (COPY_A | COPY_B) ? "AB:"
                 : copies == COPY_A          ? "A:"
                 : copies                    ? "B:"
                                             : "",
                 cfg.c_str(), pl.dp_tiles, pl.split_tiles, pl.splits, pl.sk_blocks,
                 pl.cluster == pl.splits ? " cluster"
                 : pl.cluster            ? " groups"
                                         : "");
        if (ms > 0)
            measured_at("pick", desc, ms);
        else
            not_measured("pick", desc);
    }
    printf("%d shapes (fastest plan <= %.2f ms): the model's pick over the fastest plan, geometric mean "
           "%.4f; %d under 0.95x cuBLAS; %d picks not measured\n",
           counted, max_ms, counted ? std::exp(log_regret / counted) : 1.0, under, missing);
    return 0;
}
