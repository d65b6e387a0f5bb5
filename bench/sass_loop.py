#!/usr/bin/env python3
"""The k loop of each kernel in a CUDA object, read from its machine code (cuobjdump -sass; no GPU):
its length, its FFMAs, the operand-reuse flags a FFMA, and how many FFMAs read two or three of their
source registers from one register bank.

Usage: bench/sass_loop.py OBJECT [REGEX] [--against OTHER]   (REGEX: kernels whose mangled name
       matches; default all. OTHER: the same object built from other sources, e.g. main's: a last
       column says whether each kernel's k loop is the same machine code there, addresses aside)
e.g.   bench/sass_loop.py build/libshimblas_core.a.p/kernels_sgemm_streamk.cu.o 'pipe_configILi128ELi64E'

The statistics are not enough to say a change left a loop alone: in the nineteenth session a change
outside the stream-K kernel's k loop kept its length and colliding share (0.24 -> 0.25) but assigned
its registers differently throughout, and the kernel ran 5-6 % slower (docs/notes/sgemm.md). Compare
the loops' text with --against before measuring a change to a kernel's code outside its loop.

The k loop is the shortest backward branch holding at least 256 FFMAs. The bank model: register Rn
sits in bank n % 2; an operand flagged .reuse stays in that operand slot's cache (one entry per slot
and bank) for the next FFMA; any other instruction empties the caches. A FFMA whose uncached sources
fall two or three in one bank is counted as colliding. The model is a proxy, not the hardware's
documented rule: on the H100 the stream-K kernel's loop at 0.56 colliding against the data-parallel
kernel's 0.20 ran with 0.67 dispatch stalls an issue against 0.29 (Nsight Compute), 12-14 % slower on
the same tiles (docs/notes/sgemm.md, stream-K section). cuobjdump comes with the CUDA toolkit, or
from PyPI's nvidia-cuda-cuobjdump wheel, which needs nvdisasm beside it on PATH (the
nvidia-cuda-nvdisasm wheel: cuobjdump -sass stops with "Could not find executable file 'nvdisasm'")."""
import collections
import re
import subprocess
import sys


def kernels(sass):
    for body in re.split(r'\n\s*Function : ', sass)[1:]:
        name = body.split('\n', 1)[0].strip()
        code = []
        for line in body.split('\n'):
            m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);', line)
            if m:
                code.append((int(m.group(1), 16), m.group(2).strip()))
        yield name, code


def k_loop(code):
    best = None
    for addr, text in code:
        m = re.search(r'\bBRA\b.*?(0x[0-9a-f]+)', text)
        if m and int(m.group(1), 16) < addr:
            start = int(m.group(1), 16)
            body = [t for a, t in code if start <= a <= addr]
            if sum('FFMA' in t for t in body) >= 256 and (best is None or len(body) < len(best)):
                best = body
    return best


def ffma_reads(loop):
    """each FFMA of the loop by the bank model: (its place in loop, its destination register or None,
    [(slot, register, cached, flagged)] for its register sources)"""
    cache = {}
    for i, text in enumerate(loop):
        op = re.sub(r'^@!?U?P\w+\s+', '', text)
        if not op.startswith('FFMA'):
            cache = {}
            continue
        operands = [x.strip() for x in op[4:].split(',')]
        m = re.match(r'R(\d+)', operands[0])
        reads = []
        for slot, operand in enumerate(operands[1:4]):
            r = re.match(r'-?(R\d+)(\.reuse)?', operand)
            if not r:
                continue
            reg, reuse = int(r.group(1)[1:]), bool(r.group(2))
            key = (slot, reg % 2)
            reads.append((slot, reg, cache.get(key) == reg, reuse))
            cache[key] = reg if reuse else None
        yield i, int(m.group(1)) if m else None, reads


def bank_collisions(loop):
    """(FFMAs, reuse flags, FFMAs by the most uncached sources in one bank)"""
    hist, ffma, flags = collections.Counter(), 0, 0
    for _, _, reads in ffma_reads(loop):
        ffma += 1
        flags += sum(flagged for *_, flagged in reads)
        banks = collections.Counter(reg % 2 for _, reg, cached, _ in reads if not cached)
        hist[max(banks.values()) if banks else 0] += 1
    return ffma, flags, hist


def loop_text(loop):
    """the loop's instructions with branch targets and other addresses blanked"""
    return [re.sub(r'0x[0-9a-f]+', 'X', t) for t in loop]


def kernel_key(name):
    """a kernel's mangled name without the anonymous namespace's per-build tag"""
    return re.sub(r'_GLOBAL__N__[0-9a-f]+_\d+_\w+?_[0-9a-f]{8}(?=\d)', '', name)


def sass_of(obj):
    return subprocess.run(['cuobjdump', '-sass', obj], capture_output=True, text=True, check=True).stdout


def main():
    args = sys.argv[1:]
    other = None
    if '--against' in args:
        i = args.index('--against')
        if i + 1 >= len(args):
            sys.exit(__doc__)
        other = args[i + 1]
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    pattern = re.compile(args[1] if len(args) > 1 else '.')
    theirs = {}
    if other:
        for name, code in kernels(sass_of(other)):
            loop = k_loop(code) if pattern.search(name) else None
            if loop:
                theirs[kernel_key(name)] = loop_text(loop)
    print('| colliding | loop | FFMA % | reuse a FFMA | kernel |' + (' loop as in OTHER |' if other else ''))
    print('| ---: | ---: | ---: | ---: | --- |' + (' --- |' if other else ''))
    same = differ = 0
    for name, code in kernels(sass_of(args[0])):
        loop = k_loop(code) if pattern.search(name) else None
        if not loop:
            continue
        ffma, flags, hist = bank_collisions(loop)
        readable = subprocess.run(['c++filt'], input=name, capture_output=True, text=True).stdout.strip()
        readable = re.sub(r'sgemm::\(anonymous namespace\)::|\(sgemm::problem.*', '', readable)
        colliding = (hist[2] + hist[3]) / ffma
        row = f'| {colliding:.2f} | {len(loop)} | {100 * ffma / len(loop):.1f} | {flags / ffma:.2f} | {readable} |'
        if other:
            mine = theirs.get(kernel_key(name))
            verdict = 'absent' if mine is None else 'same' if mine == loop_text(loop) else 'DIFFERS'
            same += verdict == 'same'
            differ += verdict == 'DIFFERS'
            row += f' {verdict} |'
        print(row)
    if other:
        print(f'\n{same} loops the same as in {other}, {differ} different')


if __name__ == '__main__':
    main()
