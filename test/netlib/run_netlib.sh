#!/bin/sh
# Runs one netlib BLAS test program (Debian's libblas-test) with libshimblas preloaded and checks
# that the routine shimblas implements passed its error-exit and computational tests, that no
# line reports a failure, and that shimblas itself served the calls (its SHIMBLAS_STATS summary).
# Usage: run_netlib.sh LIBSHIMBLAS PROGRAM INPUT ROUTINE
#   ROUTINE as the program prints it: SGEMV, SGEMM, cblas_sgemv, cblas_sgemm
# The environment passes through (SHIMBLAS_CPU_BLAS, SHIMBLAS_MODE). With SHIMBLAS_MODE=gpu the
# computing calls must all have run on the GPU; without a usable GPU the test is skipped (77).
# SHIMBLAS_TEST_PRELOAD: libraries to preload before libshimblas (space-separated): a sanitizer
# build's runtimes, which must come first in a program not built with them (test/meson.build).
set -u
lib=$1 prog=$2 input=$3 routine=$4
if [ ! -x "$prog" ] || [ ! -r "$input" ]; then
    echo "SKIP: $prog or $input missing (Debian package libblas-test)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
SHIMBLAS_STATS=1 LD_PRELOAD="${SHIMBLAS_TEST_PRELOAD:+$SHIMBLAS_TEST_PRELOAD }$lib" "$prog" < "$input" > out.txt 2> err.txt
rc=$?
# the Fortran testers write their summary to a file named in the input
for f in *.out; do [ -f "$f" ] && cat "$f" >> out.txt; done
cat out.txt err.txt

fail() { echo "FAIL: $*"; status=1; }
status=0
[ "$rc" -eq 0 ] || fail "$prog exited with $rc"
if grep -n 'FAIL' out.txt; then fail "the program reported failures"; fi
grep -Eq "^ *$routine +PASSED THE TESTS OF ERROR-EXITS" out.txt || fail "$routine error exits did not pass"
case $routine in
cblas_*)
    grep -Eq "^ *$routine +PASSED THE COLUMN-MAJOR +COMPUTATIONAL TESTS" out.txt || fail "$routine column-major tests did not pass"
    grep -Eq "^ *$routine +PASSED THE ROW-MAJOR +COMPUTATIONAL TESTS" out.txt || fail "$routine row-major tests did not pass"
    ;;
*)
    grep -Eq "^ *$routine +PASSED THE COMPUTATIONAL TESTS" out.txt || fail "$routine computational tests did not pass"
    ;;
esac

name=$(echo "$routine" | sed 's/^cblas_//' | tr 'A-Z' 'a-z')
line=$(grep "^shimblas: $name calls=" err.txt)
[ -n "$line" ] || { fail "no shimblas summary for $name: the shim was not loaded"; exit 1; }
num() { echo "$line" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
calls=$(num calls) gpu=$(num gpu) cpu=$(num cpu) errors=$(num errors) gpu_failed=$(num gpu_failed)
[ "$calls" -gt 0 ] || fail "shimblas served no $name calls"
[ "$errors" -gt 0 ] || fail "the error-exit calls did not reach shimblas"
[ $((gpu + cpu)) -gt 0 ] || fail "no $name call computed anything through shimblas"
# a GPU failure is a test failure unless the test injected it
if [ -z "${SHIMBLAS_TEST_FAIL:-}" ]; then
    [ "${gpu_failed:-0}" -eq 0 ] || fail "$gpu_failed $name calls failed on the GPU"
    if grep -q 'GPU call failed' err.txt; then fail "a GPU call failed"; fi
fi
if [ "${SHIMBLAS_MODE:-}" = gpu ]; then
    if grep -q 'no usable GPU' err.txt; then
        echo "SKIP: SHIMBLAS_MODE=gpu but no usable GPU"
        exit 77
    fi
    [ "$cpu" -eq 0 ] && [ "$gpu" -gt 0 ] || fail "in gpu mode $cpu $name calls ran on the CPU, $gpu on the GPU"
fi
[ $status -eq 0 ] && echo "PASS: $routine under shimblas ($line)"
exit $status
