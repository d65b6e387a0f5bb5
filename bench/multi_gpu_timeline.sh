#!/bin/bash
# Where a host-data sgemm spread over GPUs spends its time: sgemm_timer under the shim with
# SHIMBLAS_TIMELINE=1 (per device share: when each tile was issued by the host and done on the GPU)
# for each size and device list. Usage: bench/multi_gpu_timeline.sh BUILD_DIR OUT_DIR [SIZES] [DEVICE_LISTS]
set -u
build=$1
out=$2
sizes=${3:-"16384 32768"}
lists=${4:-"0 0,1"}
lib=$(realpath "$build/libshimblas.so")
mkdir -p "$out"
for n in $sizes; do
    for d in $lists; do
        f=$out/timeline_${n}_${d//,/_}.txt
        SHIMBLAS_MODE=gpu SHIMBLAS_DEVICES=$d SHIMBLAS_TIMELINE=1 SHIMBLAS_CACHE_DIR=$out LD_PRELOAD=$lib \
            "$build/bench/sgemm_timer" "$n" 2 > "$f" 2>&1
        echo "n=$n devices=$d: $(tail -1 "$f")"
    done
done
