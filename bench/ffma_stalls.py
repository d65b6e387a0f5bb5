#!/usr/bin/env python3
"""Where a kernel's k loop loses issue slots, FFMA by FFMA: Nsight Compute's sampled warp stalls per
instruction (its source page), read beside the same kernel's machine code with its reuse flags
(cuobjdump -sass, which the source page leaves out), and summed by the register-bank class of each
FFMA d = a * b + c under bench/sass_loop.py's cache model (its ffma_reads):

  none    no two uncached sources in one register bank (c == d: "sum in place", else "renamed")
  ab      both factors uncached and in one bank
  c       one factor and the sum uncached and in one bank (in place, c == d, or renamed)
  three   all three uncached in one bank

Usage: bench/ffma_stalls.py SOURCE.csv SASS [REGEX]
  SOURCE.csv: `ncu -i REPORT --page source --csv --print-source sass` of a report taken with
  `--section SourceCounters` (one or more kernels; the one with the most samples is read);
  SASS: `cuobjdump -sass` of the object or library holding that kernel (for cuBLAS's kernels,
  `cuobjdump -sass -fun NAME libcublasLt.so`); REGEX: a part of the kernel's name in SASS where
  the names differ (the source page demangles). The two listings must have the same instructions in
  the same order (a line reports how many agree, addresses and operand order of LDGSTS aside).
Prints the stall reasons over the whole kernel, then for the k loop (the instructions executed as
often as its most executed FFMA) each class's FFMAs, their mean dispatch-stall and all-reason samples.
What it found (H200, 2026-11-27): docs/notes/sgemm.md, "Dispatch stalls FFMA by FFMA"."""
import collections
import csv
import re
import sys

from sass_loop import ffma_reads, kernels


def source_page(path):
    """(name, rows) of the kernel with the most samples: rows are dicts by the page's columns"""
    pages, cur, hdr = [], None, None
    with open(path) as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == 'Kernel Name':
                cur = (row[1], [])
                pages.append(cur)
            elif row[0] == 'Address':
                hdr = row
            elif cur is not None and hdr:
                cur[1].append(dict(zip(hdr, row)))
    return max(pages, key=lambda k: sum(num(r['# Samples']) for r in k[1]))


def num(x):
    try:
        return float(x)
    except ValueError:
        return 0.0


def sass_of(path, pattern):
    """the instructions' text of the first kernel whose name matches pattern"""
    with open(path) as f:
        for name, code in kernels(f.read()):
            if re.search(pattern, name):
                return [text for _, text in code]
    return []


def ffma_class(dest, reads):
    """the class of a FFMA reading reads (sass_loop.ffma_reads) into dest"""
    banks = collections.defaultdict(set)
    for slot, reg, cached, _ in reads:
        if not cached:
            banks[reg % 2].add(slot)
    shared = next((slots for slots in banks.values() if len(slots) >= 2), set())
    if len(shared) == 3:
        return 'three'
    if {0, 1} <= shared:
        return 'ab'
    place = 'in place' if any(slot == 2 and reg == dest for slot, reg, _, _ in reads) else 'renamed'
    return ('c, ' if 2 in shared else 'none, ') + place


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    name, rows = source_page(sys.argv[1])
    sass = sass_of(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else re.escape(name.split('(')[0].split()[-1]))
    if not sass:
        sys.exit('ffma_stalls: no kernel of SASS matches; give REGEX, a part of its mangled name')
    if len(sass) != len(rows):
        sys.exit(f'ffma_stalls: {len(sass)} instructions in SASS, {len(rows)} on the source page: not the same kernel')
    norm = lambda t: re.sub(r'\s+', ' ', t.replace('.reuse', '')).strip()
    same = sum(norm(a) == norm(r['Source']) for a, r in zip(sass, rows))
    total = sum(num(r['# Samples']) for r in rows)
    reasons = [h for h in rows[0] if h.startswith('stall_') and '(' not in h]
    by_reason = collections.Counter({h[6:]: sum(num(r[h]) for r in rows) / total for h in reasons})
    print(f'{name[:110]}\n  {same} of {len(rows)} instructions read alike; {int(total)} samples')
    print('  ' + ', '.join(f'{k} {v:.3f}' for k, v in by_reason.most_common(8)))
    most = max(num(r['Instructions Executed']) for s, r in zip(sass, rows) if s.startswith('FFMA'))
    loop = [i for i, r in enumerate(rows) if num(r['Instructions Executed']) == most]
    classes = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for i, dest, reads in ffma_reads(sass[loop[0]:loop[-1] + 1]):
        k = classes[ffma_class(dest, reads)]
        k[0] += 1
        k[1] += num(rows[loop[0] + i]['stall_dispatch'])
        k[2] += num(rows[loop[0] + i]['# Samples'])
    n = sum(v[0] for v in classes.values())
    print(f'  k loop: {loop[-1] - loop[0] + 1} instructions, {n} FFMAs, '
          f'{sum(v[1] for v in classes.values()) / n:.1f} dispatch-stall samples a FFMA')
    print('  class               FFMAs  dispatch a FFMA  samples a FFMA')
    for k in sorted(classes):
        c, disp, samples = classes[k]
        print(f'  {k:18s} {c:6d} {disp / c:16.1f} {samples / c:15.1f}')


if __name__ == '__main__':
    main()
