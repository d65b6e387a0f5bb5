#!/bin/bash
# Every environment variable the library reads, and those the CPU BLAS and the cost model's cache
# key read, set to long and strange values: the clients must still run to the end with their own
# checks passed, and what the library writes on stderr must stay a few short, well-formed lines.
# Usage: run_env.sh VARIABLE CLIENT...
#        run_env.sh all CLIENT...
#   VARIABLE: one run of each client per value below, that variable set to it.
#   all: every variable at once with its 3000-character value, then with its 100,000-character
#   value; then OMP_NUM_THREADS and MKL_NUM_THREADS alone with 3000 characters each (they go into
#   the cost model's cache key).
#   CLIENT: a program that checks its own results and ends with a line "... 0 failures"
#   (test_semantics: results against float64; link_mode: forwarded routines).
# Checks per run: exit status 0; the client's last line says 0 failures; every stderr line is the
# library's ("shimblas: " first), under 300 bytes, without control characters, valid UTF-8; at most
# 2 such lines (10 with every variable set) besides the trace SHIMBLAS_VERBOSE asks for and the
# summary SHIMBLAS_STATS asks for and the report SHIMBLAS_REPORT asks for (12 lines at exit), which
# must be there exactly when asked for and well-formed.
# The library's other SHIMBLAS_* variables are unset in every run.
set -u
variable=$1
shift
[ $# -gt 0 ] || { echo "usage: $0 VARIABLE|all CLIENT..."; exit 2; }
export LC_ALL=C
variables="SHIMBLAS_MODE SHIMBLAS_CPU_BLAS SHIMBLAS_VERBOSE SHIMBLAS_STATS SHIMBLAS_REPORT SHIMBLAS_SGEMV_KERNEL
SHIMBLAS_SGEMM_KERNEL SHIMBLAS_SGEMM_MATH SHIMBLAS_DEVICES SHIMBLAS_DEVICE_MEMORY SHIMBLAS_CACHE_DIR SHIMBLAS_TEST_FAIL OPENBLAS_CORETYPE
OPENBLAS_NUM_THREADS OMP_NUM_THREADS MKL_NUM_THREADS HOME XDG_CACHE_HOME"
max_line=300

clients=()
for c in "$@"; do
    case $c in /*) clients+=("$c") ;; *) clients+=("$PWD/$c") ;; esac
done
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# relative paths in the values resolve here, and whatever the library creates stays here
cd "$work" || exit 1
mkdir dir

repeat() { head -c "$2" /dev/zero | tr '\0' "$1"; }
long=$(repeat x 100000)
medium=$(repeat y 3000)
component="$(repeat d 250)/"
long_path=$work/
while [ ${#long_path} -lt 3000 ]; do long_path=$long_path$component; done
values=("" "$long" "$medium" "a value with spaces" '%s%n%x%s%n%x%p%%' $'first line\nsecond line\n'
    $'\xff\xfe\xc0\x80 latin-1 \xe9t\xe9' "-h --help" 99999999999999999999999 9223372036854775807G -1 0x10 1e9
    "$work/dir" /dev/null relative/path "$long_path")
labels=("empty" "100,000 characters" "3000 characters" "spaces" "format characters" "newlines"
    "non-UTF-8 bytes" "a leading -" 99999999999999999999999 9223372036854775807G -1 0x10 1e9
    "a directory" /dev/null "a relative path" "a 3000-character path")

# a SHIMBLAS_VERBOSE / SHIMBLAS_STATS value that turns it on (as src/util/config.c reads it)
flag_on() {
    case $1 in "" | 0 | [Nn][Oo] | [Oo][Ff][Ff]) return 1 ;; esac
    return 0
}

# one_run LABEL MAX_MESSAGES NAME=VALUE...: each client once with those variables set
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
count() { grep -c "^$1 " lines.txt; }
failures=0
runs=0
one_run() {
    local label=$1 max_messages=$2 verbose=0 stats=0 report=0 a
    shift 2
    local args=()
    for a in $variables; do
        case $a in SHIMBLAS_*) args+=(-u "$a") ;; esac
    done
    for a in "$@"; do
        case $a in
        SHIMBLAS_VERBOSE=*) flag_on "${a#*=}" && verbose=1 ;;
        SHIMBLAS_STATS=*) flag_on "${a#*=}" && stats=1 ;;
        SHIMBLAS_REPORT=*) flag_on "${a#*=}" && report=1 ;;
        esac
    done
    local client name rc before
    for client in "${clients[@]}"; do
        name=$(basename "$client")
        runs=$((runs + 1))
        before=$failures
        env "${args[@]}" "$@" "$client" > out.txt 2> err.txt
        rc=$?
        [ "$rc" -eq 0 ] || fail "$label: $name exited with status $rc"
        tail -n 1 out.txt | grep -q ' 0 failures$' || fail "$label: $name did not report 0 failures"
        # the library's lines: count messages, trace and summary lines; anything malformed
        awk -v max="$max_line" '
            !/^shimblas: / { print "foreign " NR; next }
            length($0) >= max { print "long " NR " " length($0) }
            /[\001-\010\013-\037\177]/ { print "control " NR }
            /^shimblas: report at exit of process [0-9]+$/ { inreport = 1 }
            inreport { print "report " NR; if ($0 ~ /^shimblas: sgemm: calls [0-9]+, /) inreport = 0; next }
            /^shimblas: s(gemv|gemm) .* -> (trivial|cpu|gpu|error|gpu failed, recomputed on the CPU);.* took [0-9.]+ ms/ ||
            /^shimblas: CPU BLAS: / { print "trace " NR; next }
            /^shimblas: s(gemv|gemm) calls=[0-9]+ gpu=[0-9]+ cpu=[0-9]+ trivial=[0-9]+ errors=[0-9]+ gpu_failed=[0-9]+$/ {
                print "summary " NR; next }
            { print "message " NR }' err.txt > lines.txt
        [ "$(count foreign)" -eq 0 ] || fail "$label: $name: $(count foreign) lines on stderr not starting with 'shimblas: '"
        [ "$(count long)" -eq 0 ] || fail "$label: $name: $(count long) lines on stderr of $max_line bytes or more (the longest $(awk '{ if (length($0) > m) m = length($0) } END { print m }' err.txt))"
        [ "$(count control)" -eq 0 ] || fail "$label: $name: $(count control) lines on stderr with control characters"
        if command -v iconv > /dev/null && ! iconv -f UTF-8 -t UTF-8 err.txt > /dev/null 2>&1; then
            fail "$label: $name: stderr is not valid UTF-8"
        fi
        [ "$(count message)" -le "$max_messages" ] ||
            fail "$label: $name: $(count message) lines from the library on stderr (at most $max_messages)"
        if [ $verbose -eq 1 ]; then
            [ "$(count trace)" -gt 0 ] || fail "$label: $name: SHIMBLAS_VERBOSE is on but there is no trace line"
        else
            [ "$(count trace)" -eq 0 ] || fail "$label: $name: $(count trace) trace lines, SHIMBLAS_VERBOSE is off"
        fi
        if [ $report -eq 1 ]; then
            [ "$(count report)" -eq 12 ] || fail "$label: $name: SHIMBLAS_REPORT is on: $(count report) report lines, not 12"
        else
            [ "$(count report)" -eq 0 ] || fail "$label: $name: $(count report) report lines, SHIMBLAS_REPORT is off"
        fi
        if [ $stats -eq 1 ]; then
            [ "$(count summary)" -eq 2 ] || fail "$label: $name: SHIMBLAS_STATS is on: $(count summary) summary lines, not 2"
        else
            [ "$(count summary)" -eq 0 ] || fail "$label: $name: $(count summary) summary lines, SHIMBLAS_STATS is off"
        fi
        if [ $failures -ne $before ]; then
            echo "--- $label: $name's FAIL lines and last line (at most 6), stderr (at most 10; 200 bytes each, cat -v)"
            { grep -a '^FAIL' out.txt | head -n 5; tail -n 1 out.txt; } | cut -c 1-200 | cat -v
            head -n 10 err.txt | cut -c 1-200 | cat -v
        else
            echo "ok   $label: $(tail -n 1 out.txt | cut -c 1-100); stderr: $(wc -l < err.txt) lines," \
                "$(count message) messages, $(count trace) trace, $(count summary) summary"
        fi
    done
}

if [ "$variable" = all ]; then
    for size in 3000 100000; do
        set --
        for v in $variables; do
            set -- "$@" "$v=$(repeat z "$size")"
        done
        one_run "every variable at once, $size characters each" 10 "$@"
    done
    one_run "OMP_NUM_THREADS and MKL_NUM_THREADS, 3000 characters each" 2 \
        "OMP_NUM_THREADS=$medium" "MKL_NUM_THREADS=$medium"
else
    case " $(echo $variables) " in
    *" $variable "*) ;;
    *) echo "FAIL: $variable is not one of: $(echo $variables)"; exit 1 ;;
    esac
    for i in "${!values[@]}"; do
        one_run "$variable=<${labels[$i]}>" 2 "$variable=${values[$i]}"
    done
fi
if [ $failures -ne 0 ]; then
    echo "$failures failed checks in $runs runs"
    exit 1
fi
echo "PASS: $runs runs"

