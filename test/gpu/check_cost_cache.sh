#!/bin/sh
# The cost model's cache on a GPU host, the two reports it was written for:
# 1. BLAS thread variables of 3000 characters each (the cache key once overflowed a stack buffer
#    with them): the call computes, the model is measured and cached.
# 2. The cached model edited to NaN, 0 and -5: it is refused, measured again and rewritten, and
#    SHIMBLAS_VERBOSE says so in one line.
# Usage: check_cost_cache.sh AUTO_SGEMM (the test program; 77 without a usable GPU)
set -u
prog=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
long=$(head -c 3000 /dev/zero | tr '\0' '4')
export SHIMBLAS_CACHE_DIR="$dir/cache" OMP_NUM_THREADS="$long" MKL_NUM_THREADS="$long"

SHIMBLAS_VERBOSE=1 "$prog" > "$dir/out1" 2> "$dir/err1"
rc=$?
cat "$dir/out1"
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "long BLAS thread variables: exit $rc"
grep -q "cost model measured" "$dir/err1" || fail "no cost model was measured"
file=$(ls "$dir"/cache/model-*.txt 2>/dev/null | head -1)
[ -n "$file" ] || { fail "no cache file was written"; grep shimblas "$dir/err1" | head -5; exit 1; }
echo "PASS: long BLAS thread variables: computed, model measured and cached"

for edit in "gpu_sgemm_gflops nan" "h2d_gbps 0" "gpu_sgemm_gflops -5" "h2d_gbps 1e308"; do
    field=${edit% *}
    sed -i "s/^$field .*/$edit/" "$file"
    SHIMBLAS_VERBOSE=1 "$prog" > "$dir/out2" 2> "$dir/err2" || fail "cache with $edit: the program failed"
    if grep -q "cached $field is not a plausible value; measuring" "$dir/err2" &&
        grep -q "cost model measured" "$dir/err2" &&
        ! grep -q "^$edit\$" "$file"; then
        echo "PASS: cache with $edit: refused, measured again and rewritten"
    else
        fail "cache with $edit was not replaced"
        grep shimblas "$dir/err2" | grep -iv "sgemm NN" | head -5
    fi
done
exit $status
