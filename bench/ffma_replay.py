#!/usr/bin/env python3
"""Copies the FFMAs of a k loop into bench/register_banks.cu's replay kernel, so that their issue
rate can be timed alone (build/bench/register_banks OUT.cubin): each of the loop's 1024 FFMAs, in
order, with its registers renumbered bank for bank (even to even, odd to odd, distinct to distinct,
R2..R249) and its reuse flags; the other instructions of the loop are left out, the replay kernel's
stall counts kept (1). Prints the loop's dispatch cycles a FFMA by tools/sass_reorder.py's
issue_cost (the register file's rules as bench/register_banks measured them), to set beside the
time.

Usage: bench/ffma_replay.py REPLAY.cubin OUT.cubin SOURCE [REGEX | LO-HI]
  REPLAY.cubin: register_banks.cu compiled with -DKERNEL_ONLY=2; SOURCE: an sm_90 cubin (the k loop
  of its first kernel whose name matches REGEX) or a `cuobjdump -sass` listing of one kernel (the
  FFMAs between addresses LO and HI, hex: how cuBLAS's loops are read). cuobjdump on PATH."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
import sass_reorder as sr  # noqa: E402
import sass_words as sw  # noqa: E402


def from_listing(path, lo, hi):
    """the FFMAs of a cuobjdump -sass listing between two addresses, decoded from its words"""
    lines = open(path).read().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/', line)
        if not m or not lo <= int(m.group(1), 16) <= hi:
            continue
        high = re.search(r'/\* (0x[0-9a-f]{16}) \*/', lines[i + 1]).group(1)
        d = sw.decode((int(m.group(3), 16) | int(high, 16) << 64).to_bytes(16, 'little'))
        if d['ffma']:
            d['text'] = m.group(2)
            out.append(d)
    return out


def from_cubin(path, pattern):
    cubin = open(path, 'rb').read()
    text = sr.texts(path)
    for name, off, size in sw.sections(cubin):
        if not re.search(pattern, name):
            continue
        ins = []
        for a in range(0, size, 16):
            d = sw.decode(cubin[off + a:off + a + 16])
            d['addr'], d['text'] = a, text.get((name, a), '')
            ins.append(d)
        span = sr.k_loop(ins)
        if span:
            return [x for x in ins[span[0]:span[1] + 1] if x['ffma']]
    sys.exit(f'no kernel matching {pattern} with a k loop in {path}')


def replay(loop, path, out):
    cubin = bytearray(open(path, 'rb').read())
    (name, off, size), = [s for s in sw.sections(bytes(cubin)) if s[0] == 'replay']
    ins = [sw.decode(bytes(cubin[off + a:off + a + 16])) for a in range(0, size, 16)]
    for i, x in enumerate(ins):
        x['addr'], x['text'] = 16 * i, ''
    slots = [i for i, x in enumerate(ins) if x['ffma']]  # the kernel's only FFMAs are its loop's
    if len(slots) != 1024 or slots[-1] - slots[0] > 1040:
        sys.exit('the replay kernel\'s loop of 1024 FFMAs not found (compiled with -DKERNEL_ONLY=2?)')
    if len(loop) != 1024 or any(x['opcode'] != sr.FFMA_RRR for x in loop):
        sys.exit(f'the source loop has {len(loop)} FFMAs (1024 in the register form needed)')
    regs = sorted({r for x in loop for r in sr.srcs(x) + (x['rd'],) if r != 255})
    free = {b: [r for r in range(2, 250) if r % 2 == b] for b in (0, 1)}
    if any(sum(1 for r in regs if r % 2 == b) > len(free[b]) for b in (0, 1)):
        sys.exit('the source loop names more registers of a bank than the replay kernel has')
    new = {r: free[r % 2].pop(0) for r in regs}
    new[255] = 255
    for p, x in zip(slots, loop):
        w = int.from_bytes(bytes(cubin[off + 16 * p:off + 16 * p + 16]), 'little')
        for lo, r in ((16, x['rd']), (24, x['ra']), (32, x['rb']), (64, x['rc'])):
            w = (w & ~(0xff << lo)) | (new[r] << lo)
        cubin[off + 16 * p:off + 16 * p + 16] = sw.encode(w.to_bytes(16, 'little'), reuse=x['reuse'])
    open(out, 'wb').write(cubin)
    return len(regs)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    src, arg = sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else '.'
    if open(src, 'rb').read(4) == b'\x7fELF':
        loop = from_cubin(src, arg)
    else:
        lo, hi = (int(v, 16) for v in arg.split('-'))
        loop = from_listing(src, lo, hi)
    n = replay(loop, sys.argv[1], sys.argv[2])
    print(f'{sys.argv[2]}: {len(loop)} FFMAs, {n} registers; dispatch cycles a FFMA by issue_cost '
          f'{sr.issue_cycles(loop):.3f}')


if __name__ == '__main__':
    main()
