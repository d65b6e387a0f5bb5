#!/bin/bash
# Times LAPACK's test programs (Debian's liblapack-test) without and with libshimblas preloaded,
# both over the same reference LAPACK and BLAS (LAPACK_DIR and BLAS_DIR first on LD_LIBRARY_PATH,
# as test/clients/run_lapack.sh runs them). Millions of tiny sgemm_/sgemv_ calls: this measures the
# shim's cost per call, not the GPU. Runs alternate without/with; each time is the median of RUNS.
# Usage: bench/lapack_client.sh [--csv OUT.csv] [--runs N] LIBSHIMBLAS LAPACK_DIR BLAS_DIR [PROGRAM INPUT]...
#   default programs: xlintsts stest.in, xeigtsts sep.in, xeigtsts sgd.in
#   The environment passes through (SHIMBLAS_MODE, ...); a failed run is reported and ends the script.
set -u
csv="" runs=3
while [ $# -gt 0 ]; do
    case $1 in
    --csv) csv=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) break ;;
    esac
done
if [ $# -lt 3 ]; then
    sed -n 's/^# Usage: //p' "$0"
    exit 2
fi
lib=$(realpath "$1") lapack_dir=$(realpath -m "$2") blas_dir=$(realpath -m "$3")
[ -n "$csv" ] && csv=$(realpath -m "$csv")
shift 3
[ $# -gt 0 ] || set -- xlintsts stest.in xeigtsts sep.in xeigtsts sgd.in
export LD_LIBRARY_PATH="$lapack_dir:$blas_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mode=${SHIMBLAS_MODE:-auto}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# one run: prints its wall time in seconds; PRELOAD empty for the run without the shim
run_once() {
    local preload=$1 prog=$2 input=$3 t0 t1
    t0=$(date +%s%N)
    if ! (cd "$work" && LD_PRELOAD=$preload exec "$prog" < "$input" > out.txt 2> err.txt); then
        echo "$(basename "$prog") < $(basename "$input") failed${preload:+ under the shim}:" >&2
        tail -n 5 "$work/out.txt" "$work/err.txt" >&2
        return 1
    fi
    t1=$(date +%s%N)
    echo "$t0 $t1" | awk '{printf "%.3f\n", ($2 - $1) / 1e9}'
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

[ -n "$csv" ] && echo "program,input,shimblas_mode,runs,seconds_without,seconds_with,ratio" > "$csv"
printf '%-10s %-10s %12s %12s %8s\n' program input "without (s)" "with (s)" ratio
while [ $# -ge 2 ]; do
    prog=$1 input=$2
    shift 2
    case $prog in */*) prog=$(realpath -m "$prog") ;; *) prog=$lapack_dir/$prog ;; esac
    case $input in */*) input=$(realpath -m "$input") ;; *) input=$lapack_dir/$input ;; esac
    if [ ! -x "$prog" ] || [ ! -r "$input" ]; then
        echo "$prog or $input missing (Debian package liblapack-test)" >&2
        exit 1
    fi
    : > "$work/without.txt"
    : > "$work/with.txt"
    for _ in $(seq "$runs"); do
        run_once "" "$prog" "$input" >> "$work/without.txt" || exit 1
        run_once "$lib" "$prog" "$input" >> "$work/with.txt" || exit 1
    done
    without=$(median < "$work/without.txt") with=$(median < "$work/with.txt")
    ratio=$(echo "$with $without" | awk '{printf "%.2f", $1 / $2}')
    name=$(basename "$prog") in=$(basename "$input")
    printf '%-10s %-10s %12.3f %12.3f %8s\n' "$name" "$in" "$without" "$with" "$ratio"
    [ -n "$csv" ] && echo "$name,$in,$mode,$runs,$without,$with,$ratio" >> "$csv"
done
exit 0
