/* The plan every sgemm can fall back to where the device has no memory to load the kernels the
 * call chose (kernels/common/kernel_load.h): 128x64 tiles, data-parallel, C stored from registers,
 * not a programmatic dependent. Its 16 kernels (one for each pair of load modes) are the pipelined
 * kernel's own template instantiated here again, so that they form a module of their own: loading
 * them at a thread's first use of a device (shim_sgemm_preload) loads this small module only, not
 * the registered variants' large one (H200, 2026-11-27: 60-78 ms from pipelined.cu's module, against
 * 12 ms for a first call without it; docs/notes/lazy_loading.md). Same template, same code: the
 * fallback's results are pipelined_128x64's, bit for bit. */
#include "pipelined_kernel.cuh"

namespace sgemm {
namespace {

template <class CFG, int MA, int MB> struct fallback_entry {
    static constexpr bool built = true;
    static constexpr void (*kernel())(const problem, const sched, float *) { return pipelined_kernel<CFG, MA, MB>; }
};

} // namespace

cudaError_t preload_fallback()
{
    return preload_config<cfg_128x64, fallback_entry>();
}

cudaError_t launch_fallback(const shim_sgemm_args *p)
{
    shim_sgemm_args a = *p;
    a.dependent = 0;
    const plan pl = plan_dp(&a, TILE_128x64);
    if (pl.dp_tiles < 1 || pl.split_tiles != 0)
        return cudaErrorInvalidConfiguration;
    const problem q = make_problem(&a);
    const sched sc = {pl.tiles_m, pl.tiles_n, pl.dp_tiles, pl.splits, pl.kslice, 0, 0};
    int ma, mb;
    load_modes(&a, q, config(TILE_128x64), ma, mb);
    return launch_config<cfg_128x64, fallback_entry>(ma, mb, q, sc, nullptr, launch_at{pl.dp_tiles, a.stream, false});
}

} // namespace sgemm
