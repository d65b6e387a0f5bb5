#!/bin/sh
# Runs the example twice: plainly on its own CPU BLAS, then with libshimblas preloaded and the
# per-call trace (SHIMBLAS_VERBOSE) and the exit summary (SHIMBLAS_STATS) on.
# Usage: run_demo.sh LIBSHIMBLAS PROGRAM [ARGS...]
set -eu
lib=$1
shift
echo "== $* (its own CPU BLAS)"
"$@"
echo
echo "== LD_PRELOAD=$lib SHIMBLAS_VERBOSE=1 SHIMBLAS_STATS=1 $*"
LD_PRELOAD=$lib SHIMBLAS_VERBOSE=1 SHIMBLAS_STATS=1 "$@" 2>&1 | awk '
  /^shimblas: sgem[mv] [NT]/ { n++; if (n > 12) { skipped++; next } }
  { print }
  END { if (skipped) printf("(%d more per-call lines not shown)\n", skipped) }'
