#!/bin/sh
# A call that stays on the CPU BLAS makes no system call: whatever the shim does before it decides
# (mode, pointer kinds, the size rule) must be answered from memory. Runs CALL_LOOP under
# `strace -f -c` with few and with many calls, in cpu mode and in the default auto mode, and fails
# when the total system call count grows with the number of calls. A small constant difference is
# allowed for one-time work that only a longer run may reach (a brk, a lazily resolved symbol).
# Exit 77 (skipped) when strace is missing or cannot trace here (ptrace refused in a container).
# Usage: no_syscalls.sh CALL_LOOP_PROGRAM
set -u
prog=$1
few=10
many=10000
slack=20

if ! command -v strace >/dev/null 2>&1; then
    echo "SKIP: strace is not installed"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! strace -f -o "$tmp/probe" true >/dev/null 2>&1; then
    echo "SKIP: strace cannot trace here (ptrace not permitted?)"
    exit 77
fi

# count MODE N: runs the loop under strace, prints the summary, sets $total to its syscall count
count() {
    summary="$tmp/$1-$2"
    if [ "$1" = auto ]; then
        env -u SHIMBLAS_MODE strace -f -c -o "$summary" "$prog" "$2" || return 1
    else
        SHIMBLAS_MODE=$1 strace -f -c -o "$summary" "$prog" "$2" || return 1
    fi
    echo "--- SHIMBLAS_MODE=$1, $2 calls: strace -f -c"
    cat "$summary"
    # the last line: "100.00 SECONDS USECS/CALL CALLS [ERRORS] total"
    total=$(awk '$NF == "total" { print $4 }' "$summary")
    [ -n "$total" ] || { echo "FAIL: no total line in the strace summary"; return 1; }
}

status=0
for mode in cpu auto; do
    count "$mode" $few || { echo "FAIL: $prog $few failed in $mode mode"; status=1; continue; }
    t_few=$total
    count "$mode" $many || { echo "FAIL: $prog $many failed in $mode mode"; status=1; continue; }
    t_many=$total
    grown=$((t_many - t_few))
    echo "SHIMBLAS_MODE=$mode: $t_few system calls for $few calls, $t_many for $many calls (+$grown)"
    if [ "$grown" -gt "$slack" ]; then
        per_call=$(awk -v g="$grown" -v n=$((many - few)) 'BEGIN { printf "%.1f", g / n }')
        echo "FAIL: in $mode mode the system call count grows with the number of calls" \
            "($per_call per call): the path to the CPU BLAS makes system calls"
        status=1
    fi
done
[ $status -eq 0 ] && echo "PASS"
exit $status
