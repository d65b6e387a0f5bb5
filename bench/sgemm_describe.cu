/* The FP32 selector's choice for every shape of one or more shape files, without a GPU: the plans it
 * would run on an H200 (its cluster capacities assumed, as bench/plan_regret's), operands aligned as
 * bench/sgemm_plans allocates them. What it answers: which shapes a change of the selector moves, and
 * to what, before any GPU time is spent (diff two builds' outputs, then time only the lines that
 * differ; docs/notes/sgemm.md, "64x64w4's splits priced").
 * Usage: sgemm_describe SHAPES...   (lines "M N K TA TB", as bench/sgemm_plans reads them)
 * stdout: one line a shape: "M N K TA TB<tab>variant<tab>plan" */
#include <cstdio>
#include <cstdlib>

#include "assumed_capacity.h"
#include "sgemm_internal.h"
#include "sgemm_shapes.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sgemm_describe SHAPES...\n");
        return 2;
    }
    sgemm::assume_h200_cluster_capacities(true);
    for (int f = 1; f < argc; ++f) {
        int count = 0;
        size_t max[3];
        bench_shape *shapes = bench_read_shapes(argv[f], "sgemm_describe", &count, max);
        if (!shapes)
            return 1;
        for (int i = 0; i < count; ++i) {
            const bench_shape s = shapes[i];
            const shim_sgemm_args p = bench_shape_args(s, reinterpret_cast<const float *>(4096),
                                                       reinterpret_cast<const float *>(4096),
                                                       reinterpret_cast<float *>(8192), nullptr);
            const shim_sgemm_variant *sel = shim_sgemm_select(&p);
            char how[256];
            shim_sgemm_describe(sel, &p, how, sizeof how);
            printf("%d %d %d %c %c\t%s\t%s\n", s.m, s.n, s.k, s.ta ? 'T' : 'N', s.tb ? 'T' : 'N', sel->name,
                   how);
        }
        free(shapes);
    }
    return 0;
}
