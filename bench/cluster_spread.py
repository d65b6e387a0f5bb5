#!/usr/bin/env python3
"""Where the device spreads a cluster-finished split's blocks as it would spread lone blocks: every
pair of plans in sgemm_plan_space CSVs that split every tile the same way (same shape, copies,
configuration and slices), one finished in clusters of all of a tile's slices ("splitc"), one by the
reduction kernel ("split"), grouped by what plan.cu's admission looks at, with the geometric mean of
the cluster plan's time over the reduction's and the share of pairs where it took over 1.05 of it.

Groups: waves of blocks (one, more), how the last wave fills the SMs ("full": every SM as many blocks
as it holds, what cluster_placement_ok admits; "lo": blocks / SMs at most LO past a whole number;
"hi": the rest, a whole number included), and the cluster size. Pairs whose clusters the device
cannot hold in as many waves as the blocks are left out.

Usage: bench/cluster_spread.py SPACE_CSV [SPACE_CSV...] [--sms 132] [--lo 0.8]
The blocks an SM of each configuration and the clusters the device holds at once are the H200's, as
sgemm_plan_space printed them (2026-11-29)."""
import csv
import math
import sys
from collections import defaultdict

BLOCKS_PER_SM = {'128x128': 2, '128x64': 3, '64x64': 6, '128x128x8': 2, '64x128': 3, '128x128w4': 2, '64x64w4': 4}
TWO_AN_SM = {2: 132, 3: 79, 4: 62, 5: 47, 6: 39, 7: 32, 8: 30}
THREE_AN_SM = {2: 198, 3: 124, 4: 92, 5: 69, 6: 62, 7: 47, 8: 45}
CLUSTERS = {'128x128': TWO_AN_SM, '128x128x8': TWO_AN_SM, '128x128w4': TWO_AN_SM, '128x64': THREE_AN_SM,
            '64x128': THREE_AN_SM, '64x64': {2: 396, 3: 248, 4: 186, 5: 146, 6: 124, 7: 101, 8: 92},
            '64x64w4': {2: 264, 3: 163, 4: 124, 5: 94, 6: 79, 7: 69, 8: 62}}


def cdiv(a, b):
    return -(-a // b)


def pairs(paths):
    for path in paths:
        plans = defaultdict(dict)
        for r in csv.DictReader(open(path)):
            method = r['method'].split(':')
            base, copies = method[-1], method[0] if len(method) > 1 else ''
            if base not in ('split', 'splitc') or r['dp_tiles'] != '0':
                continue
            key = (r['m'], r['n'], r['k'], r['case'], copies, r['cfg'], int(r['splits']))
            plans[key][base] = (float(r['ms']), int(r['split_tiles']))
        for key, v in plans.items():
            if 'split' in v and 'splitc' in v:
                yield key, v['splitc'][1], v['splitc'][0] / v['split'][0]


def main():
    args, sms, lo = sys.argv[1:], 132, 0.8
    for flag in ('--sms', '--lo'):
        if flag in args:
            i = args.index(flag)
            value = float(args[i + 1])
            sms, lo = (int(value), lo) if flag == '--sms' else (sms, value)
            del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    groups = defaultdict(list)
    for key, tiles, ratio in pairs(args):
        cfg, splits = key[5], key[6]
        if cfg not in CLUSTERS or splits not in CLUSTERS[cfg]:
            continue
        blocks, slots = tiles * splits, BLOCKS_PER_SM[cfg] * sms
        waves = cdiv(blocks, slots)
        if cdiv(blocks, CLUSTERS[cfg][splits] * splits) != waves:
            continue
        last = blocks - (waves - 1) * slots
        past = last - last // sms * sms
        fill = 'full' if cdiv(last, sms) == BLOCKS_PER_SM[cfg] else 'lo' if 0 < past <= lo * sms else 'hi'
        groups[('one' if waves == 1 else 'more', fill, splits)].append(ratio)
    print('waves fill cluster pairs geomean over1.05')
    for g in sorted(groups):
        v = groups[g]
        gm = math.exp(sum(map(math.log, v)) / len(v))
        print(f'{g[0]:5} {g[1]:4} {g[2]:7} {len(v):5} {gm:7.3f} {sum(x > 1.05 for x in v) / len(v):7.2f}')


if __name__ == '__main__':
    main()
