#!/bin/sh
# The CPU BLAS is found in order: SHIMBLAS_CPU_BLAS, the next BLAS in the process, the built-in
# default. A SHIMBLAS_CPU_BLAS that cannot be used is named in one line on stderr and the next
# candidate serves the call.
# Usage: cpu_blas_resolution.sh LINK_MODE_PROGRAM
set -u
prog=$1
status=0
out=$(SHIMBLAS_MODE=cpu SHIMBLAS_CPU_BLAS=/nonexistent/libblas.so "$prog" 2>&1)
echo "$out"
echo "$out" | grep -q 'shimblas: SHIMBLAS_CPU_BLAS=/nonexistent/libblas.so cannot be used' || { echo "FAIL: no line naming the unusable SHIMBLAS_CPU_BLAS"; status=1; }
echo "$out" | grep -q '0 failures' || { echo "FAIL: the call did not complete on the next CPU BLAS"; status=1; }
out=$(SHIMBLAS_MODE=cpu SHIMBLAS_CPU_BLAS=libm.so.6 "$prog" 2>&1)
echo "$out"
echo "$out" | grep -q 'libm.so.6 cannot be used' || { echo "FAIL: a library without sgemm_ was accepted"; status=1; }
[ $status -eq 0 ] && echo "PASS"
exit $status
