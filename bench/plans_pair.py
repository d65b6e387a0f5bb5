#!/usr/bin/env python3
"""Two builds' sgemm_plans runs (method "none": the selector's plan and cuBLAS) compared shape by
shape: each build's fastest selector time over its runs, cuBLAS the fastest of all runs of both
builds (the same card, the same process kind), the ratio cuBLAS / ours for each build, and the
shapes under a threshold.

Usage: bench/plans_pair.py OLD_CSV[,OLD_CSV...] NEW_CSV[,NEW_CSV...] [THRESHOLD=0.95]
stdout: a header line (geometric mean of new/old time, count under the threshold for each), the
under-threshold lists, then one line a shape whose plan time moved by more than 1 %."""
import csv
import math
import sys
from collections import defaultdict


def load(paths):
    best = defaultdict(dict)
    for path in paths.split(','):
        for r in csv.DictReader(open(path)):
            key = (int(r['m']), int(r['n']), int(r['k']), r['case'])
            ms = float(r['ms'])
            old = best[key].get(r['method'])
            if old is None or ms < old[0]:
                best[key][r['method']] = (ms, r['plan'])
    return best


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    old, new = load(sys.argv[1]), load(sys.argv[2])
    limit = float(sys.argv[3]) if len(sys.argv) > 3 else 0.95
    keys = sorted(k for k in old if k in new and 'selector' in old[k] and 'selector' in new[k])
    logs, under, moved = [], {'old': [], 'new': []}, []
    for k in keys:
        cub = min(x[k]['cublas'][0] for x in (old, new) if 'cublas' in x[k])
        o, n = old[k]['selector'][0], new[k]['selector'][0]
        logs.append(math.log(n / o))
        name = f'{k[0]}x{k[1]}x{k[2]} {k[3]}' if len(set(k[:3])) > 1 else f'{k[0]}^3 {k[3]}'
        for side, t in (('old', o), ('new', n)):
            if cub / t < limit:
                under[side].append(f'{name}:{cub / t:.3f}')
        if abs(n / o - 1) > 0.01:
            moved.append(f'{name}: {o:.4f} -> {n:.4f} ms ({n / o:.3f}), cuBLAS {cub:.4f}; {new[k]["selector"][1]}')
    print(f'{len(keys)} shapes; new/old geometric mean {math.exp(sum(logs) / len(logs)):.4f}; under {limit}x: '
          f'old {len(under["old"])}, new {len(under["new"])}')
    for side in ('old', 'new'):
        print(side, ' '.join(under[side]))
    print('moved by more than 1 %:')
    for line in moved:
        print('  ' + line)


if __name__ == '__main__':
    main()
