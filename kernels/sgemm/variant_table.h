/* The SGEMM variants' table (registry.cu) by index, for the selector (select.cu) */
#ifndef SGEMM_VARIANT_TABLE_H
#define SGEMM_VARIANT_TABLE_H

#include "sgemm_internal.h"

namespace sgemm {

enum variant_index {
    V_TF32X3_PRESPLIT,
    V_TF32_PRESPLIT,
    V_TF32X3_TMA,
    V_TF32_TMA,
    V_TF32X3_WGMMA,
    V_TF32_WGMMA,
    V_TF32X3_ASYNC,
    V_TF32_ASYNC,
    V_TF32X3_MMA,
    V_TF32_MMA,
    V_NAIVE,
    V_SMEM_TILED,
    V_COARSE_1D,
    V_COARSE_2D,
    V_VEC4,
    V_WARPTILE,
    V_WARPTILE_128x64,
    V_WARPTILE_128x64x16,
    V_SPLITK_CLUSTER,
    V_SPLITK_GROUPS,
    V_SPLITK_HALVES,
    V_PIPE_128x256_K8,
    V_PIPE_256x128_K8,
    V_PIPE_128x128,
    V_PIPE_128x128_W4,
    V_PIPE_128x128_K8,
    V_PIPE_128x256,
    V_PIPE_64x64,
    V_PIPE_64x64_W4,
    V_PIPE_64x128,
    V_PIPE_128x64,
    V_PIPE_128x64_KG2,
    V_SPLITK,
    V_SPLITK_TAIL,
    V_STREAMK,
    V_TRANSPOSE_FIRST,
    V_COUNT
};

/* the table, in variant_index's order */
extern const shim_sgemm_variant variants[V_COUNT];
/* the variant that runs configuration cfg's whole tiles */
int variant_for_config(int cfg);
/* the pipelined plan variant i runs for p, for the variants that run one */
bool variant_plan(int i, const shim_sgemm_args *p, plan *pl);

} // namespace sgemm

#endif
