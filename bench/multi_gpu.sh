#!/bin/bash
# Host-data sgemm (malloc'd A, B, C; n x n x n) on 1, 2, ... GPUs: shimblas (preloaded over a plain
# sgemm_ program, SHIMBLAS_MODE=gpu, SHIMBLAS_DEVICES=0 / 0,1 / ...), cuBLAS-XT on the same GPU counts,
# NVBLAS with NVBLAS_GPU_LIST ALL with and without autopin, in one run on one host. Each measurement
# is its own process: one warm-up call, then the median of the timed ones.
# Usage: bench/multi_gpu.sh BUILD_DIR OUT_CSV [SIZES]   (SIZES default "4096 8192 16384 32768";
# MULTI_ONLY_SHIMBLAS=1: shimblas's rows only)
# Needs the CPU BLAS for NVBLAS's CPU side: NVBLAS_CPU_BLAS (default: the OpenBLAS the timer links).
set -u
build=$1
out=$2
sizes=${3:-"4096 8192 16384 32768"}
lib=$(realpath "$build/libshimblas.so")
timer=$build/bench/sgemm_timer
xt=$build/bench/cublasxt_timer
gpus=$(nvidia-smi -L | wc -l)
cpu_lib=${NVBLAS_CPU_BLAS:-$(ldd "$timer" | awk '/libopenblas|libblas/ { print $3; exit }')}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
reps_for() { case $1 in 4096 | 8192) echo 5 ;; 16384) echo 3 ;; *) echo 2 ;; esac; }
counts="1"
c=2
while [ $c -le "$gpus" ]; do counts="$counts $c"; c=$((c * 2)); done
[ "$gpus" -gt 1 ] && ! echo " $counts " | grep -q " $gpus " && counts="$counts $gpus"

nvblas=""
for d in "${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -e "$d/libnvblas.so" ] && nvblas=$d/libnvblas.so && break
done

echo "what,n,gpus,median_ms,min_ms" > "$out"
record() { # record WHAT N GPUS LINE
    local med min
    med=$(echo "$4" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
    min=$(echo "$4" | sed -n 's/.*min_ms=\([0-9.]*\).*/\1/p')
    echo "$1,$2,$3,${med:-},${min:-}" >> "$out"
    echo "$1 n=$2 gpus=$3: median ${med:-failed} ms (min ${min:-?})"
}
for n in $sizes; do
    reps=$(reps_for "$n")
    for g in $counts; do
        list=$(seq -s, 0 $((g - 1)))
        line=$(SHIMBLAS_MODE=gpu SHIMBLAS_DEVICES=$list SHIMBLAS_CACHE_DIR=$work LD_PRELOAD=$lib "$timer" "$n" "$reps" 2>&1 | tail -1)
        record shimblas "$n" "$g" "$line"
    done
    [ -n "${MULTI_ONLY_SHIMBLAS:-}" ] && continue # (the anchors measured in an earlier run)
    for g in $counts; do
        [ "$n" -ge 32768 ] && [ "$g" -eq 1 ] && reps_xt=1 || reps_xt=$reps
        line=$(timeout 200 "$xt" "$n" "$g" "$reps_xt" 2>&1 | tail -1)
        record cublasxt "$n" "$g" "$line"
    done
    if [ -n "$nvblas" ] && [ "$n" -le 16384 ]; then
        for pin in 0 1; do
            conf=$work/nvblas$pin.conf
            { echo "NVBLAS_LOGFILE $work/nvblas.log"; echo "NVBLAS_CPU_BLAS_LIB $cpu_lib"; echo "NVBLAS_GPU_LIST ALL"
              [ $pin = 1 ] && echo "NVBLAS_AUTOPIN_MEM_ENABLED"; } > "$conf"
            name=nvblas-all
            [ $pin = 1 ] && name=nvblas-all-autopin
            [ "$n" -ge 16384 ] && [ $pin = 0 ] && r=1 || r=$reps
            line=$(NVBLAS_CONFIG_FILE=$conf LD_PRELOAD=$nvblas timeout 200 "$timer" "$n" "$r" 2>&1 | tail -1)
            record "$name" "$n" "$gpus" "$line"
        done
    fi
done

python3 - "$out" "$gpus" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
gpus = int(sys.argv[2])
t = {(r["what"], int(r["n"]), int(r["gpus"])): float(r["median_ms"]) for r in rows if r["median_ms"]}
sizes = sorted({int(r["n"]) for r in rows})
counts = sorted({int(r["gpus"]) for r in rows if r["what"] == "shimblas"})
head = ["n"] + [f"shimblas {g} GPU" for g in counts] + [f"speedup {g}/1" for g in counts[1:]] + \
       [f"cuBLAS-XT {g} GPU" for g in counts] + [f"NVBLAS ALL", "NVBLAS ALL autopin"]
print("| " + " | ".join(head) + " |")
print("|" + " --- |" * len(head))
for n in sizes:
    one = t.get(("shimblas", n, 1))
    cells = [str(n)] + [f"{t[('shimblas', n, g)]:.1f} ms" if ("shimblas", n, g) in t else "-" for g in counts]
    cells += [f"{one / t[('shimblas', n, g)]:.2f}x" if one and ("shimblas", n, g) in t else "-" for g in counts[1:]]
    cells += [f"{t[('cublasxt', n, g)]:.1f} ms" if ("cublasxt", n, g) in t else "-" for g in counts]
    cells += [f"{t[(w, n, gpus)]:.1f} ms" if (w, n, gpus) in t else "-" for w in ("nvblas-all", "nvblas-all-autopin")]
    print("| " + " | ".join(cells) + " |")
PY
