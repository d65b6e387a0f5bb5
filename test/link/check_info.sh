#!/bin/sh
# shimblas-info: the report of its own process, and the report at exit of a program run under it.
# usage: check_info.sh SHIMBLAS_INFO CALL_LOOP [PIP_PYTHON]
# call_loop 8 makes 4 sgemm and 4 sgemv calls; with a pip NumPy's python (skipped part when
# absent), the report must name the wheel's OpenBLAS as the CPU side of the scipy_ ILP64 names.
info=$1 loop=$2 python=${3:-}
# a sanitizer build's runtimes must come first in the programs run under shimblas-info
[ -n "${SHIMBLAS_TEST_PRELOAD:-}" ] && export LD_PRELOAD=$SHIMBLAS_TEST_PRELOAD
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { # has TEXT PATTERN WHAT
    printf '%s\n' "$1" | grep -Eq -- "$2" || fail "$3 (no line matching '$2')"
}

out=$(SHIMBLAS_MODE=cpu "$info") || fail "shimblas-info exited with $?"
printf '%s\n' "$out"
has "$out" '^shimblas [0-9]+\.[0-9]+\.[0-9]+ \(/.*libshimblas' "the version and the library's path"
has "$out" '^mode: cpu$' "the mode SHIMBLAS_MODE set"
has "$out" '^GPU: (usable: device [0-9]+ of [0-9]+|not usable: .+)' "the GPU or why not"
for iface in LP64 ILP64 SCIPY_LP64 SCIPY_ILP64; do
    has "$out" "^  $iface: " "the CPU side of $iface"
done
has "$out" '^  LP64: cblas_sgemm, sgemm_, \.\.\.: .*(libopenblas|libblas|SHIMBLAS_CPU_BLAS)' "the LP64 CPU BLAS, found"
has "$out" '^  ILP64: .*no library in this process defines them' "no ILP64 library in shimblas-info's process"
has "$out" '^cost model: ' "the cost model line"
has "$out" '^sgemm: calls 0, ' "no calls counted in shimblas-info itself"

echo "--- shimblas-info $loop 8"
out=$("$info" "$loop" 8 2>&1) || fail "shimblas-info $loop exited with $?"
out=$(printf '%s\n' "$out" | sed 's/^shimblas: //') # the report at exit: the library's lines
printf '%s\n' "$out"
has "$out" '^report at exit of process [0-9]+$' "the report at the program's exit"
has "$out" '^sgemm: calls 4, gpu 0, cpu 4, ' "the program's 4 sgemm calls, on the CPU"
has "$out" '^sgemv: calls 4, gpu 0, cpu 4, ' "the program's 4 sgemv calls, on the CPU"
has "$out" '^  LP64: cblas_sgemm, sgemm_, \.\.\.: [^n]' "the LP64 CPU BLAS the program used"

out=$("$info" /nonexistent/program 2>&1)
rc=$?
[ "$rc" -eq 127 ] || fail "a program that does not exist: exit $rc, not 127"
has "$out" '^shimblas-info: cannot run /nonexistent/program' "the error line for a program that does not exist"

if [ -n "$python" ] && "$python" -c 'import numpy' 2> /dev/null; then
    echo "--- shimblas-info $python (a pip NumPy)"
    out=$("$info" "$python" -c 'import numpy as np; a = np.ones((64, 64), np.float32); a @ a.copy()' 2>&1) ||
        fail "shimblas-info $python exited with $?"
    out=$(printf '%s\n' "$out" | sed 's/^shimblas: //')
    printf '%s\n' "$out"
    has "$out" '^  SCIPY_ILP64: scipy_cblas_sgemm64_, scipy_sgemm_64_, \.\.\.: their next definitions, in .*libscipy_openblas64_' \
        "NumPy's own OpenBLAS as the CPU side of its names"
    has "$out" '^sgemm: calls 1, ' "NumPy's one sgemm call"
else
    echo "(no pip NumPy's python: that part skipped)"
fi
echo "check_info: $fails failures"
[ "$fails" -eq 0 ]
