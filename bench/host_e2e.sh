#!/bin/bash
# Runs bench/host_e2e under every engine in one go and writes one CSV:
#   cpu-blas        the CPU BLAS alone (OpenBLAS with its best kernels for the host: OPENBLAS_CORETYPE)
#   naive-cublas    cudaMemcpy from pageable memory + cuBLAS
#   shimblas-auto   libshimblas preloaded, SHIMBLAS_MODE=auto
#   shimblas-gpu    libshimblas preloaded, SHIMBLAS_MODE=gpu
#   nvblas          libnvblas preloaded over the CPU BLAS
#   nvblas-autopin  the same with NVBLAS_AUTOPIN_MEM_ENABLED
# Usage: bench/host_e2e.sh BUILD_DIR OUT.csv CPU_BLAS_LIB [quick]
set -u
build=$1 out=$2 cpu_lib=$3 quick=${4:-}
bin=$build/bench/host_e2e
lib=$(readlink -f "$build/libshimblas.so")
: > "$out"
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT

"$bin" blas cpu-blas "$out" $quick
"$bin" cublas naive-cublas "$out" $quick
SHIMBLAS_CACHE_DIR=$cache SHIMBLAS_MODE=auto LD_PRELOAD=$lib "$bin" blas+baseline shimblas-auto "$out" $quick
# a second auto run, not timed (the trace's own writes cost microseconds a call), keeps the per-call
# trace (side chosen, predicted times, measured time) next to the CSV
SHIMBLAS_CACHE_DIR=$cache SHIMBLAS_MODE=auto SHIMBLAS_VERBOSE=1 LD_PRELOAD=$lib "$bin" blas shimblas-auto \
    "$cache/untimed.csv" $quick > /dev/null 2> "${out%.csv}_auto_trace.txt"
SHIMBLAS_CACHE_DIR=$cache SHIMBLAS_MODE=gpu LD_PRELOAD=$lib "$bin" blas shimblas-gpu "$out" $quick
echo "cost model measured by the auto run:"
cat "$cache"/model-*.txt

nvblas=""
for d in "${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
    [ -e "$d/libnvblas.so" ] && nvblas=$d/libnvblas.so && break
done
if [ -n "$nvblas" ]; then
    for pin in 0 1; do
        conf=$cache/nvblas$pin.conf
        {
            echo "NVBLAS_LOGFILE $cache/nvblas.log"
            echo "NVBLAS_CPU_BLAS_LIB $cpu_lib"
            echo "NVBLAS_GPU_LIST ALL"
            [ $pin = 1 ] && echo "NVBLAS_AUTOPIN_MEM_ENABLED"
        } > "$conf"
        name=nvblas
        [ $pin = 1 ] && name=nvblas-autopin
        NVBLAS_CONFIG_FILE=$conf LD_PRELOAD=$nvblas "$bin" blas $name "$out" $quick
    done
else
    echo "libnvblas.so not found: NVBLAS rows skipped"
fi
