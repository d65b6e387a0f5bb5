#include "assumed_capacity.h"
#include "sgemm_internal.h"

namespace sgemm {

void assume_h200_cluster_capacities(bool halves)
{
    /* clusters held at once, by cluster size (2026-11-27; 64x64w4 2026-11-28) */
    static const int cap128x128[] = {0, 132, 132, 79, 62, 47, 39, 32, 30};
    static const int cap128x64[] = {0, 198, 198, 124, 92, 69, 62, 47, 45};
    static const int cap64x64[] = {0, 396, 396, 248, 186, 146, 124, 101, 92};
    static const int cap64x64w4[] = {0, 264, 264, 163, 124, 94, 79, 69, 62};
    for (int s = 2; s <= CLUSTER_MAX_SPLITS; ++s) {
        for (int cfg : {TILE_128x128, TILE_128x128_K8, TILE_128x128_W4})
            assume_cluster_capacity(cfg, s, cap128x128[s]);
        for (int cfg : {TILE_128x64, TILE_64x128})
            assume_cluster_capacity(cfg, s, cap128x64[s]);
        assume_cluster_capacity(TILE_64x64, s, cap64x64[s]);
        assume_cluster_capacity(TILE_64x64_W4, s, halves ? cap64x64w4[s] : 0);
    }
}

} // namespace sgemm
