/* The cluster capacities of an H200 (driver 580), as bench/sgemm_plan_space printed them, assumed
 * in place of the device's: for planning as that GPU would on a machine without it (bench/plan_regret,
 * the selector's unit tests). */
#pragma once

namespace sgemm {

/* every cluster-finished configuration at every cluster size; halves false: no 64x64w4 clusters (the
 * selector as before plan_split_halves) */
void assume_h200_cluster_capacities(bool halves);

} // namespace sgemm
