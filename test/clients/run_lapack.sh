#!/bin/sh
# Runs one of LAPACK's test programs (Debian's liblapack-test: xlintsts, xeigtsts) on one input
# file with libshimblas preloaded, over the reference LAPACK and a BLAS chosen by folder, and checks
# that every test passed (exit status, no failure of any kind in the output, the summary complete)
# and that shimblas served the program's sgemm_/sgemv_ calls (its SHIMBLAS_STATS summary).
# Usage: run_lapack.sh LIBSHIMBLAS LAPACK_DIR BLAS_DIR PROGRAM INPUT
#   LAPACK_DIR holds PROGRAM, INPUT and the reference liblapack.so.3; BLAS_DIR holds the
#   libblas.so.3 to run over. Both go first on LD_LIBRARY_PATH: LAPACK then calls sgemm_/sgemv_
#   through the dynamic linker and reaches the shim (Debian's default liblapack.so.3, OpenBLAS's,
#   runs its own getrf, potrf, ... on its internal gemm, out of the shim's sight).
#   PROGRAM and INPUT are names in LAPACK_DIR, or paths.
# The environment passes through (SHIMBLAS_CPU_BLAS, SHIMBLAS_MODE). With SHIMBLAS_MODE=gpu the
# computing calls must all have run on the GPU; without a usable GPU the test is skipped (77).
# SHIMBLAS_TEST_PRELOAD: libraries to preload before libshimblas (space-separated): a sanitizer
# build's runtimes, which must come first in a program not built with them (test/meson.build).
set -u
lib=$1 lapack_dir=$2 blas_dir=$3 prog=$4 input=$5
# absolute paths: the program runs in a folder of its own
case $lib in /*) ;; *) lib=$PWD/$lib ;; esac
case $lapack_dir in /*) ;; *) lapack_dir=$PWD/$lapack_dir ;; esac
case $blas_dir in /*) ;; *) blas_dir=$PWD/$blas_dir ;; esac
case $prog in /*) ;; */*) prog=$PWD/$prog ;; *) prog=$lapack_dir/$prog ;; esac
case $input in /*) ;; */*) input=$PWD/$input ;; *) input=$lapack_dir/$input ;; esac
if [ ! -x "$prog" ] || [ ! -r "$input" ]; then
    echo "SKIP: $prog or $input missing (Debian package liblapack-test)"
    exit 77
fi
for f in "$lapack_dir/liblapack.so.3" "$blas_dir/libblas.so.3"; do
    [ -e "$f" ] || { echo "SKIP: $f missing (Debian packages liblapack3, libblas3)"; exit 77; }
done
export LD_LIBRARY_PATH="$lapack_dir:$blas_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

fail() { echo "FAIL: $*"; status=1; }
status=0
# the premise: the program's LAPACK and BLAS are the ones named, not the system's (OpenBLAS)
resolved_from() {
    found=$(sed -n "s/^[[:space:]]*$1 => \([^ ]*\) .*/\1/p" ldd.txt)
    [ -n "$found" ] && [ "$(readlink -f "$found")" = "$(readlink -f "$2/$1")" ] ||
        fail "$1 is ${found:-not found}, not the one in $2"
}
if command -v ldd > /dev/null; then
    ldd "$prog" > ldd.txt 2>&1
    resolved_from liblapack.so.3 "$lapack_dir"
    resolved_from libblas.so.3 "$blas_dir"
fi

start=$(date +%s.%N)
SHIMBLAS_STATS=1 LD_PRELOAD="${SHIMBLAS_TEST_PRELOAD:+$SHIMBLAS_TEST_PRELOAD }$lib" "$prog" < "$input" > out.txt 2> err.txt
rc=$?
seconds=$(echo "$(date +%s.%N) $start" | awk '{printf "%.2f", $1 - $2}')

if [ "${SHIMBLAS_MODE:-}" = gpu ] && grep -q 'no usable GPU' err.txt; then
    grep '^shimblas' err.txt
    echo "SKIP: SHIMBLAS_MODE=gpu but no usable GPU"
    exit 77
fi

[ "$rc" -eq 0 ] || fail "$(basename "$prog") exited with $rc"
# Anything the testers print only when something went wrong: tests over the threshold ("N out of
# M tests failed"), failed error exits, illegal values, error codes and INFO returns ("***"),
# failure lines of single tests, bad or unread input. A blank path "routines were not tested" is
# the input file's last empty line.
{
    grep -nE -i 'fail|illegal' out.txt
    grep -nE '\*\*\*|INFO|Error|out of .* tests|error messages|test\( *[0-9]+\) *=|result +[0-9]+ is|NaN' out.txt
    grep -nE 'Invalid|Unrecognized|not attempted|[A-Z0-9] +(driver )?routines were not tested' out.txt
} | sort -n -u > bad.txt
[ -s bad.txt ] && fail "the program reported $(wc -l < bad.txt) lines of failures or errors"
grep -q 'passed the threshold' out.txt || fail "no test group reported passing the threshold"
grep -q 'End of tests' out.txt || fail "no 'End of tests': the program did not finish its input"
grep -q 'Total time used' out.txt || fail "no 'Total time used' summary"
tests=$(sed -n 's/.*passed the threshold ( *\([0-9]*\) tests run).*/\1/p' out.txt | awk '{n += $1} END {print n + 0}')
groups=$(grep -c 'passed the threshold' out.txt)

lines=""
for name in sgemm sgemv; do
    grep "^shimblas: $name calls=" err.txt > stats.txt
    if [ ! -s stats.txt ]; then
        fail "no shimblas summary for $name: the shim was not loaded"
        continue
    fi
    lines="$lines
$(cat stats.txt)"
    # summed over the lines, one per process that had the shim loaded
    num() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" stats.txt | awk '{n += $1} END {print n + 0}'; }
    calls=$(num calls) gpu=$(num gpu) cpu=$(num cpu) gpu_failed=$(num gpu_failed)
    [ "$calls" -gt 0 ] || fail "shimblas served no $name calls"
    # a GPU failure is a test failure unless the test injected it
    if [ -z "${SHIMBLAS_TEST_FAIL:-}" ]; then
        [ "$gpu_failed" -eq 0 ] || fail "$gpu_failed $name calls failed on the GPU"
    fi
    if [ "${SHIMBLAS_MODE:-}" = gpu ]; then
        [ "$cpu" -eq 0 ] && [ "$gpu" -gt 0 ] || fail "in gpu mode $cpu $name calls ran on the CPU, $gpu on the GPU"
    fi
done
if [ -z "${SHIMBLAS_TEST_FAIL:-}" ] && grep 'GPU call failed' err.txt | head -5 | grep .; then
    fail "a GPU call failed"
fi

run="$(basename "$prog") < $(basename "$input")"
if [ $status -eq 0 ]; then
    echo "PASS: $run under shimblas: $groups test groups, $tests tests passed the threshold, ${seconds} s$lines"
else
    echo "--- $run: exit status $rc, ${seconds} s; summary:"
    grep -E 'threshold|error exits|not tested|Invalid|Unrecognized|not attempted|End of tests|Total time' out.txt
    if [ -s bad.txt ]; then
        echo "--- lines reporting failures or errors ($(wc -l < bad.txt), the first 60):"
        head -60 bad.txt
    fi
    echo "--- stderr: shimblas's lines and the first 40 others"
    grep '^shimblas' err.txt
    grep -v '^shimblas' err.txt | head -40
fi
exit $status
