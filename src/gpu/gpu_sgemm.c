/* The GPU executor for sgemm. Operands in host memory go through the staging pipeline in tiles
 * (src/gpu/tile_plan.c): while one tile of C computes, the blocks of A and B the next ones need are
 * on the bus and finished tiles are on their way back; device-resident operands are used in
 * place. The k chunks of one tile accumulate in a fixed order, so results are reproducible. */
#include "config.h"
#include "gpu.h"
#include "gpu_internal.h"
#include "gpu_kernel_choice.h"
#include "gpu_pipeline.h"
#include "sgemm_kernels.h"
#include "tile_plan.h"

SHIM_DEFINE_RUN_KERNEL(sgemm, sgemm_kernel, "SHIMBLAS_SGEMM_KERNEL")

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

int shim_gpu_sgemm(const shim_gemm_problem *p, const shim_operands *where, shim_written *written,
                   const char **why)
{
    shim_gpu_thread *t = shim_gpu_thread_state(why);
    if (!t)
        return -1;
    int reads_ab = p->alpha != 0.0f && p->k > 0;
    shim_matrix_ref a = shim_matrix(p->a, p->lda, reads_ab ? shim_staging_kind(where->a, p->a) : SHIM_MEM_UNUSED);
    shim_matrix_ref b = shim_matrix(p->b, p->ldb, reads_ab ? shim_staging_kind(where->b, p->b) : SHIM_MEM_UNUSED);
    shim_matrix_ref c = shim_matrix(p->c, p->ldc, shim_staging_kind(where->c, p->c));
    int k = reads_ab ? p->k : 0;
    int staged = !a.in_place || !b.in_place || !c.in_place;
    /* everything on the device: one launch, no plan to fit, no device memory query */
    size_t budget = staged ? shim_pipeline_budget() : 0;
    shim_tile_plan plan;
    int rc = shim_plan_tiles(p->m, p->n, k, p->transa, p->transb, !a.in_place, !b.in_place, !c.in_place, budget,
                             &plan);
    /* C in device memory that several launches would write in place goes through device buffers
     * instead, so the caller's C only ever receives finished tiles: a failure midway leaves the
     * rest of it as it was, for the CPU to compute */
    if (!rc && c.in_place && (int64_t)plan.mt * plan.nt * plan.kt > 1) {
        c.in_place = 0;
        rc = shim_plan_tiles(p->m, p->n, k, p->transa, p->transb, !a.in_place, !b.in_place, 1, budget, &plan);
    }
    if (rc) {
        *why = "not enough device memory for even the smallest tiles";
        return -1;
    }
    shim_pipeline *pl = shim_pipeline_begin(t, written);
    shim_block_cache ca, cb, cc; /* (large: only what a failed init leaves behind is cleared) */
    ca.slots = cb.slots = cc.slots = 0;
    int ar = p->transa ? plan.kc : plan.tm, ac = p->transa ? plan.tm : plan.kc;
    int br = p->transb ? plan.tn : plan.kc, bc = p->transb ? plan.kc : plan.tn;
    rc = shim_cache_init(pl, &ca, a, plan.slots_a, ar, ac, why);
    rc = rc || shim_cache_init(pl, &cb, b, plan.slots_b, br, bc, why);
    rc = rc || shim_cache_init(pl, &cc, c, plan.slots_c, plan.tm, plan.tn, why);

    for (int i = 0; i < plan.mt && !rc; i++) {
        int i0 = i * plan.tm, tm = min_int(plan.tm, p->m - i0);
        for (int j = 0; j < plan.nt && !rc; j++) {
            int j0 = j * plan.tn, tn = min_int(plan.tn, p->n - j0);
            shim_dev_block cblk;
            rc = shim_cache_get(pl, &cc, (long)i * plan.nt + j, i0, j0, tm, tn, p->beta != 0.0f, &cblk, why);
            for (int l = 0; l < plan.kt && !rc; l++) {
                int l0 = l * plan.kc, kc = min_int(plan.kc, k - l0);
                shim_dev_block ablk = {NULL, 1, -1}, bblk = {NULL, 1, -1};
                if (k > 0) {
                    /* blocks of the stored matrices: op(A) rows i0.., columns l0.. */
                    rc = shim_cache_get(pl, &ca, (long)i * plan.kt + l, p->transa ? l0 : i0,
                                        p->transa ? i0 : l0, p->transa ? kc : tm, p->transa ? tm : kc, 1,
                                        &ablk, why) ||
                         shim_cache_get(pl, &cb, (long)l * plan.nt + j, p->transb ? j0 : l0,
                                        p->transb ? l0 : j0, p->transb ? tn : kc, p->transb ? kc : tn, 1,
                                        &bblk, why);
                }
                shim_sgemm_args args = {p->transa,
                                        p->transb,
                                        tm,
                                        tn,
                                        k > 0 ? kc : 0,
                                        p->alpha,
                                        l == 0 ? p->beta : 1.0f,
                                        ablk.ptr,
                                        ablk.ld,
                                        bblk.ptr,
                                        bblk.ld,
                                        cblk.ptr,
                                        cblk.ld,
                                        NULL,
                                        0,
                                        shim_pipeline_compute_stream(pl),
                                        shim_config_get()->sgemm_math};
                rc = rc || run_kernel(pl, &args, why) || shim_cache_release(pl, &ca, &ablk, why) ||
                     shim_cache_release(pl, &cb, &bblk, why);
            }
            rc = rc || shim_cache_put(pl, &cc, &cblk, i0, j0, tm, tn, why);
        }
    }
    rc = shim_pipeline_end(pl, rc, why);
    shim_cache_free(pl, &ca);
    shim_cache_free(pl, &cb);
    shim_cache_free(pl, &cc);
    return rc ? -1 : 0;
}
