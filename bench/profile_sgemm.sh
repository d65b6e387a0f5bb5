#!/bin/bash
# Nsight Compute on SGEMM calls, ours beside cuBLAS's: for each case, the profiled call of
# `sgemm_math CSV profile NAME M N K TA TB` (cudaProfilerStart/Stop around one call), every kernel
# of it, with the sections that say why a kernel is where it is (speed of light, launch and
# occupancy, warp states, scheduler, instruction mix, memory tables: shared-memory bank conflicts).
# Clocks are left as they are (--clock-control none). Raw metrics go to OUT/ncu_raw.csv, one
# summary table per kernel to stdout (bench/profile_summary.py).
# Usage: bench/profile_sgemm.sh BUILD OUT "NAME M N K TA TB" ...
set -u
build=${1:?build folder}
out=${2:?output folder}
shift 2
mkdir -p "$out"
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
[ -x "$ncu" ] || { echo "profile_sgemm: no ncu on this machine"; exit 1; }
sections="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats
  --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis
  --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables"
raw=$out/ncu_raw.csv
: > "$raw"
for case in "$@"; do
    set -- $case
    log=$out/ncu_$1_$2x$3x$4_$5$6.csv
    # shellcheck disable=SC2086
    timeout 300 "$ncu" --clock-control none --profile-from-start off --csv --page raw $sections \
        "$build/bench/sgemm_math" /dev/null profile "$@" > "$log" 2> "$log.err" || {
        echo "profile_sgemm: ncu failed on $case:"
        tail -5 "$log.err"
        continue
    }
    grep -E ' runs |TFLOP/s' "$log" | sed "s/^/# /"
    # keep the CSV lines (the program's own lines and ncu's notes are not CSV)
    grep -E '^"' "$log" | sed "s/^/\"$case\",/" >> "$raw"
done
python3 "$(dirname "$0")/profile_summary.py" "$raw"
