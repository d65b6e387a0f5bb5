#!/bin/sh
# The shared library exports exactly the names of its tables (src/util/interfaces.inc,
# compat/exports.inc, compat/forward_symbols.inc: nothing of the CUDA runtime it carries), and needs
# no CUDA library at load time.
# Usage: check_exports.sh LIBSHIMBLAS SOURCE_ROOT
set -u
lib=$1 root=$2
status=0
want=$(python3 "$root/compat/gen_version_script.py" --list "$root/src/util/interfaces.inc" "$root/compat/exports.inc" \
    "$root/compat/forward_symbols.inc" | sort)
have=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)
extra=$(printf '%s\n' "$have" | grep -vxF "$want")
missing=$(printf '%s\n' "$want" | grep -vxF "$have")
[ -z "$extra" ] || { echo "FAIL: exported but not listed:"; echo "$extra" | head -20; status=1; }
[ -z "$missing" ] || { echo "FAIL: listed but not exported:"; echo "$missing" | head -20; status=1; }
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "needs: $(echo $needed)"
if echo "$needed" | grep -Eiq 'cuda|cublas|nvidia|openblas|blas'; then
    echo "FAIL: libshimblas must not need a CUDA or BLAS library at load time"
    status=1
fi
[ $status -eq 0 ] && echo "PASS: $(echo "$have" | wc -l) exported symbols, all listed"
exit $status
