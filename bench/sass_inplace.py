#!/usr/bin/env python3
"""A probe of the k loop's register assignment (docs/notes/sgemm.md, "Sums in place"): ptxas moves
the sums of our SGEMM loops from register to register across the unrolled k steps (FFMA Rd != Rc),
where cuBLAS's loops accumulate every sum in place. This rewrites a loop's registers anew: each value
the loop defines (a FFMA's sum, a shared-memory load's four lanes, an address) is given a register
free over its live range (whole-kernel liveness at the loop's ends; a value read by an instruction
with a read scoreboard held until that scoreboard is waited on), values live at the loop's head or
after it keep theirs, and
  (default)      every sum in its chain's register at the loop's head (all FFMAs in place), the
                 other values moved out of those registers;
  --parity=1     a sum whose two factors share a register bank in the bank the factors are not
                 (in place where that is its register already, moved once where it is not);
  --parity=a|b   every sum out of the bank of its a (b) factor.
Registers above the highest the compiled kernel names are not used (R252 in a kernel of 253
registers faulted: illegal instruction). The rewrite is checked twice: the loop's values at its end
the same as before after two passes (symbolic, every instruction's result from all it reads), and
nvdisasm reading every rewritten instruction back as the old text with the new registers. Then run
tools/sass_reorder.py on the output for the FFMA order and reuse flags.

Usage: bench/sass_inplace.py IN.cubin OUT.cubin [REGEX] [--parity=1|a|b]  (cuobjdump, nvdisasm on PATH)"""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
import sass_reorder as sr
import sass_words as sw

FIELDS = (16, 24, 32, 64)


def opname(x):
    return re.sub(r'^@!?U?P\w+\s+', '', x['text']).split(' ')[0]


def operands(x):
    """[(role 'd'/'s', base register, width, field or None)] of an instruction's register operands"""
    w = int.from_bytes(x['word'], 'little')
    if sr.rrr(x):
        return [('d', x['rd'], 1, 16), ('s', x['ra'], 1, 24), ('s', x['rb'], 1, 32), ('s', x['rc'], 1, 64)]
    text = re.sub(r'^@!?U?P\w+\s+', '', x['text'])
    op, _, rest = text.partition(' ')
    ops = [o.strip() for o in rest.split(',')] if rest.strip() else []
    width = 4 if '.128' in op else 2 if '.64' in op else 1
    out, used = [], set()
    first = True
    for o in ops:
        for m in re.finditer(r'(?<![A-Z])R(\d+)(\.64)?', o):
            n = int(m.group(1))
            is_dest = first and not op.startswith(sr.NO_DEST) and o == m.group(0)
            wd = width if (is_dest or (o.startswith('R') and width > 1)) else (2 if m.group(2) else 1)
            if op.split('.')[0] in ('STS', 'STG') and not o.startswith('['):
                wd = width
            field = None
            if is_dest:
                field = 16 if (w >> 16) & 0xff == n else None
            else:
                for f in (FIELDS if op.startswith(sr.NO_DEST) else FIELDS[1:]):
                    if f not in used and (w >> f) & 0xff == n:
                        field = f
                        break
                if field is not None:
                    used.add(field)
            out.append(('d' if is_dest else 's', n, wd, field))
        first = False
    return out


def live_at(ins, points):
    """registers live before each instruction index of points (whole-kernel liveness; a guarded write
    kills nothing; an indirect branch makes everything live)"""
    n = len(ins)
    info = []
    for x in ins:
        reads, writes = sr.slots_of(x)
        op = opname(x)
        if x['pred'] != 7 or op.startswith(('BRA', 'EXIT', 'CALL', 'RET', 'BRX', 'JMX', 'JMP')):
            writes = set()
        info.append(({r for _, r in reads if r != 255}, writes - {255}))
    succ = []
    for i, x in enumerate(ins):
        op = opname(x)
        m = re.search(r'\bBRA\b.*?(0x[0-9a-f]+)', x['text'])
        if op.startswith(('BRX', 'JMX', 'JMP', 'CALL', 'RET')):
            return None
        s = []
        if m:
            s.append(int(m.group(1), 16) // 16)
        if not ((op.startswith('BRA') or op.startswith('EXIT')) and x['pred'] == 7) and i + 1 < n:
            s.append(i + 1)
        succ.append(s)
    live = [set() for _ in range(n + 1)]
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            out = set()
            for j in succ[i]:
                out |= live[j]
            new = info[i][0] | (out - info[i][1])
            if new != live[i]:
                live[i] = new
                changed = True
    return [live[p] for p in points]


def rename(ins, lo, hi, maxreg, rule):
    """new register numbers for the loop ins[lo..hi]: {(index, operand position): new base} or a reason;
    rule: '0' (every sum in place), '1', 'a' or 'b' (--parity)"""
    body = ins[lo:hi + 1]
    n = len(body)
    opnds = [operands(x) for x in body]
    referenced = set()
    for ops in opnds:
        for _, r, wd, _ in ops:
            referenced.update(range(r, r + wd))
    referenced.discard(255)
    for x, ops in zip(body, opnds):
        if x['pred'] != 7 and not opname(x).startswith('BRA'):
            for role, r, wd, _ in ops:
                if role == 'd' and r != 255:
                    return f'a guarded write ({x["text"]})'
    # values: lanes; groups of lanes written together
    cur = {}
    lanes = []   # dict(reg, d, uses [(i, k)], group)
    groups = []  # dict(lanes, d, kind, width)

    def lane_of(r):
        if r not in cur:
            g = dict(lanes=[], d=-1, kind='in', width=1, reads=[])
            v = dict(reg=r, d=-1, uses=[], group=g)
            g['lanes'].append(v)
            groups.append(g)
            lanes.append(v)
            cur[r] = v
        return cur[r]

    refs = {}  # (i, k) -> [lane values] (the operand's lanes in order)
    for i, x in enumerate(body):
        for k, (role, r, wd, f) in enumerate(opnds[i]):
            if role == 's' and r != 255:
                refs[i, k] = [lane_of(q) for q in range(r, r + wd)]
                for v in refs[i, k]:
                    v['uses'].append(i)
                    v['group']['reads'].append((i, k))
        for k, (role, r, wd, f) in enumerate(opnds[i]):
            if role == 'd' and r != 255:
                g = dict(lanes=[], d=i, kind='ffma' if sr.rrr(x) else opname(x), width=wd, reads=[], dref=(i, k))
                groups.append(g)
                for q in range(r, r + wd):
                    v = dict(reg=q, d=i, uses=[], group=g)
                    g['lanes'].append(v)
                    lanes.append(v)
                    cur[q] = v
                refs[i, k] = g['lanes']
    at = live_at(ins, [lo, hi + 1])
    if at is None:
        return 'an indirect branch'
    for r, v in cur.items():
        v['out'] = r in at[0] | at[1]
    # sums: each FFMA's value in its chain's live-in register
    root = {}
    for i, x in enumerate(body):
        if sr.rrr(x):
            c = refs[i, 3][0]
            d = refs[i, 0][0]
            root[id(d)] = root.get(id(c), c['reg'] if c['d'] < 0 else None)
            if root[id(d)] is None:
                return f'a sum whose chain does not start at the loop head ({x["text"]})'
    E = {r for r in root.values()}
    for v in cur.values():
        if v.get('out') and v['group']['kind'] == 'ffma' and root[id(v)] != v['reg']:
            return f'a sum ends the loop in another register than it starts (R{v["reg"]} root R{root[id(v)]})'
    # ranges
    def wait_after(i, bar):
        for j in range(i + 1, n):
            if body[j]['wait'] >> bar & 1:
                return j
        return n
    for v in lanes:
        g = v['group']
        a = max(v['d'], 0)
        b = max(v['uses'], default=a)
        for u in v['uses']:
            if body[u]['rbar'] != 7:
                b = max(b, wait_after(u, body[u]['rbar']))
        if not v['uses'] and v['d'] >= 0 and body[v['d']]['wbar'] != 7:
            b = max(b, wait_after(v['d'], body[v['d']]['wbar']))
        if v.get('out'):
            b = n
        v['range'] = (a, b)
    # which groups move
    PARITY = rule != '0'
    occupied = collections.defaultdict(list)   # reg -> [(a, b)]
    free = []
    prev = {}
    for i, x in enumerate(body):
        if sr.rrr(x):
            d = refs[i, 0][0]
            prev[id(d)] = refs[i, 3][0]
            pa, pb = x['ra'] % 2, x['rb'] % 2
            d['parity'] = 1 - pa if pa == pb else {'a': 1 - pa, 'b': 1 - pb}.get(rule)
    for g in groups:
        if g['kind'] == 'ffma':
            v = g['lanes'][0]
            if not PARITY:
                v['new'] = root[id(v)]
            elif v.get('out'):
                v['new'] = v['reg']
                occupied[v['reg']].append(v['range'])
            else:
                free.append(g)
            continue
        movable = (g['d'] >= 0 and not any(v.get('out') for v in g['lanes'])
                   and opnds[g['dref'][0]][g['dref'][1]][3] is not None
                   and all(opnds[i][k][3] is not None for i, k in g['reads']))
        in_e = any(v['reg'] in E for v in g['lanes'])
        if movable and (g['kind'].startswith('LDS') or in_e):
            free.append(g)
        else:
            if in_e and g['kind'] != 'in' and not PARITY:
                return f'a value that cannot move sits in a sum\'s register ({body[g["d"]]["text"]})'
            for v in g['lanes']:
                v['new'] = v['reg']
                occupied[v['reg']].append(v['range'])
    if not PARITY:
        for r in E:
            occupied[r].append((0, n))
    spare = {r for r in range(maxreg + 1) if r not in referenced and r not in at[0] and r not in at[1]}
    pool = sorted(r for r in referenced | spare if r <= maxreg)
    inpool = set(pool)

    def fits(r, a, b):
        return all(b <= p or q <= a for p, q in occupied[r]) if r in inpool else False

    free.sort(key=lambda g: (g['kind'] == 'ffma', g['d']) if PARITY else g['d'])
    sumregs = sorted({x['rd'] for x in body if sr.rrr(x)})
    for g in free:
        a = min(v['range'][0] for v in g['lanes'])
        b = max(v['range'][1] for v in g['lanes'])
        wd = len(g['lanes'])
        want = g['lanes'][0]['reg']
        if g['kind'] == 'ffma':
            v = g['lanes'][0]
            here = prev[id(v)]['new']
            par = v['parity']
            cands = [r for r in [here, v['reg']] + sumregs + pool if par is None or r % 2 == par]
        else:
            cands = [want] + [r for r in pool if r % wd == 0 and r != want]
        for base in cands:
            if all(fits(base + k, a, b) for k in range(wd)):
                break
        else:
            return f'no room for a value ({body[g["d"]]["text"]})'
        for k, v in enumerate(g['lanes']):
            v['new'] = base + k
            occupied[base + k].append((a, b))
    out = {}
    for (i, k), vs in refs.items():
        out[i, k] = vs[0]['new'] - (vs[0]['reg'] - opnds[i][k][1])
    moved = sum(1 for g in free if g['lanes'][0]['new'] != g['lanes'][0]['reg'])
    keep = {v['reg'] for v in cur.values() if v['out']}
    return out, opnds, keep, moved, len(free)


def new_text(text, subs):
    """text with its k-th register token replaced by R{subs[k]}"""
    pieces = re.split(r'((?<![A-Z])R\d+)', text)
    for k, j in enumerate(range(1, len(pieces), 2)):
        if k in subs:
            pieces[j] = f'R{subs[k]}'
    return ''.join(pieces)


def apply(ins, lo, newregs, opnds):
    subs = collections.defaultdict(dict)
    for (i, k), r in newregs.items():
        subs[i][k] = r
    for i, s in subs.items():
        ins[lo + i]['text'] = new_text(ins[lo + i]['text'], s)
    for (i, k), r in newregs.items():
        role, old, wd, f = opnds[i][k]
        if r == old:
            continue
        x = ins[lo + i]
        w = int.from_bytes(x['word'], 'little')
        w = (w & ~(0xff << f)) | (r << f)
        x['word'] = w.to_bytes(16, 'little')
        d = sw.decode(x['word'])
        for key in ('rd', 'ra', 'rb', 'rc'):
            if key in d:
                x[key] = d[key]


def dataflow(ins, lo, hi, iters=2):
    """what every register holds after iters passes of the loop: a FFMA's value from its factors
    (unordered) and its sum, any other instruction's from its place and everything it reads"""
    val = {}
    for it in range(iters):
        for p in range(lo, hi + 1):
            x = ins[p]
            reads, writes = sr.slots_of(x)
            if sr.rrr(x):
                a, b, c = (val.get(r, ('in', r)) for r in sr.srcs(x))
                val[x['rd']] = hash(('fma', tuple(sorted((hash(a), hash(b)))), hash(c)))
            else:
                ins_ = tuple(hash(val.get(r, ('in', r))) for _, r in reads if r != 255)
                for k, r in enumerate(sorted(writes)):
                    val[r] = hash(('op', p, k, ins_))
    return val


def live_out_same(old, new, lo, hi, regs):
    a = dataflow(old, lo, hi)
    b = dataflow(new, lo, hi)
    bad = [r for r in regs if a.get(r) != b.get(r)]
    return not bad


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) < 2:
        sys.exit(__doc__)
    src, dst = args[0], args[1]
    pat = re.compile(args[2] if len(args) > 2 else '.')
    rule = next((a[9:] for a in sys.argv if a.startswith('--parity=')), '0')
    cubin = bytearray(open(src, 'rb').read())
    text = sr.texts(src)
    maxreg = 252
    res = subprocess.run(['cuobjdump', '-res-usage', src], capture_output=True, text=True).stdout
    regcount = {}
    name = None
    for line in res.splitlines():
        m = re.search(r'Function (\S+):', line)
        if m:
            name = m.group(1)
        m = re.search(r'REG:(\d+)', line)
        if m and name:
            regcount[name] = int(m.group(1))
    expect = {}
    for name, off, size in sw.sections(bytes(cubin)):
        if not pat.search(name):
            continue
        code = bytes(cubin[off:off + size])
        ins = []
        for a in range(0, size, 16):
            d = sw.decode(code[a:a + 16])
            d['addr'], d['text'] = a, text.get((name, a), '')
            ins.append(d)
        span = sr.k_loop(ins)
        if not span:
            continue
        lo, hi = span
        top = max(max(range(r, r + wd)) for x in ins if x['text'] for _, r, wd, _ in operands(x) if r != 255)
        got = rename(ins, lo, hi, min(top, regcount.get(name, 255) - 1), rule)
        if isinstance(got, str):
            print(name, 'kept:', got)
            continue
        newregs, opnds, live, moved, nfree = got  # live: the registers whose values the loop leaves
        old = [dict(x) for x in ins]
        apply(ins, lo, newregs, opnds)
        if not live_out_same(old, ins, lo, hi, live):
            print(name, 'kept: the loop leaves other values')
            continue
        inplace = sum(1 for x in ins[lo:hi + 1] if sr.rrr(x) and x['rd'] == x['rc'])
        print(f'{name}\n  {len(live)} values live at the end, sums in place ({inplace} of '
              f'{sum(sr.rrr(x) for x in ins[lo:hi + 1])} FFMAs), {moved} of {nfree} values moved')
        for p in range(lo, hi + 1):
            cubin[off + 16 * p:off + 16 * p + 16] = ins[p]['word']
            expect[name, 16 * p] = (old[p]['text'], newregs, opnds[p - lo], p - lo)
    open(dst, 'wb').write(cubin)
    # the disassembler reads every rewritten instruction as the old text with the new registers
    after = sr.texts(dst)
    bad = 0
    for (name, a), (t, newregs, ops, i) in expect.items():
        want = new_text(t, {k: newregs[i, k] for k in range(len(ops)) if (i, k) in newregs})
        if after.get((name, a)) != want:
            bad += 1
            if bad < 10:
                print('text differs:', hex(a), t, '|', want, '|', after.get((name, a)))
    print(f'{len(expect)} instructions read back, {bad} differ')
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
