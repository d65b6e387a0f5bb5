#!/usr/bin/env python3
"""Rewrites the FFMAs of a kernel's k loop in an sm_90 cubin: a new order within each stretch where
ptxas's order is not needed for correctness, the two factors of a FFMA swapped where that helps
(a*b+c and b*a+c are the same number), and the operand-reuse flags set for the new order. Every
instruction that is not a FFMA keeps its place, and every place keeps its control bits (stall,
yield, scoreboards, wait mask), so the code's synchronisation is ptxas's. The goal is the FFMA order
cuBLAS's FP32 kernels have and ptxas would not keep when written in the source (docs/notes/sgemm.md,
"cuBLAS's TN block"): more sources from the reuse caches, fewer FFMAs reading two or three uncached
sources from one register bank. The build runs it on the cubins of pipelined.cu, streamk.cu and
split_cluster.cu (tools/nvcc_reorder.py); bench/patched_loop times one kernel so rewritten against
ptxas's and checks it bitwise.

Usage: tools/sass_reorder.py IN.cubin OUT.cubin [REGEX] [--no-swap[=REGEX]] [--cycles[=REGEX]]
                             [--across[=REGEX]] [--flags-only] [--beam=N]
  REGEX: kernels whose name matches (default: all); --no-swap keeps each FFMA's factors in their
  slots (--no-swap=REGEX: in the kernels whose name matches that); --cycles prices an order by the
  dispatch cycles issue_cost() counts instead of by collisions (in the kernels matching its REGEX);
  --across places the whole loop's FFMAs at once (place_across, below; factors never swapped),
  each anywhere among the loop's FFMA places that its registers allow, across the loads, stores
  and arithmetic between them (in the kernels matching its REGEX; where no order is found, the runs
  as below); --flags-only keeps ptxas's order
  and sets the flags by the rule below (ptxas's own flags on every pipelined.cu kernel; ptxas also
  keeps a slot-1 flag across a MOV, which the rule does not, so elsewhere a flag may be missing).
  Needs cuobjdump and nvdisasm on PATH (to read the instructions' text). One line a kernel on stdout.

The caches (bench/sass_loop.py's model, widened as ptxas uses it): register Rn sits in bank n % 2; a
source read in slot s of a FFMA whose reuse flag is set stays in slot s's entry for its bank, and the
next FFMA reading that slot and bank takes it from there if it names the same register. A source is
flagged only where that next reader is the same register, with no write of it, no yield, wait or
barrier, and no other instruction reading slot s in between (memory accesses' addresses leave slots
0 and 1 alone), and only where the encoding allows a flag (yield bit 1, stall 1..11:
tools/sass_words.py).

What may move: FFMAs in the register form (0x223) without a guard predicate, among the places of
such FFMAs between two other instructions, never across a place with a wait mask (a wait is on the
place: what follows it may read what the wait was for). A FFMA naming a register that a nearby
instruction with no scoreboard (fixed latency) also names stays where it is. Every FFMA keeps its
order with every FFMA that writes a register it reads or writes, or reads a register it writes, at
no fewer cycles apart than min(ptxas's distance, 6), never under 4. A run for which no order keeps
these stays in ptxas's order, and so does any earlier run whose new order that would break (the
loop is then placed again). A rewritten loop is checked
before it is kept (verify: the same values in every register after two passes run in order, 4
cycles from a FFMA to any reader of its result, every flag read back as the same register); a kernel
whose loop fails keeps ptxas's code and its line says why.

--across: a FFMA's window is where its registers' other users allow it: after the wait for the load
that writes a source (a shared-memory load without a scoreboard completes with the next load that
has one: ptxas waits for that one's), after the wait for an access still reading or writing its
result's register, LATENCY cycles from fixed-latency producers and readers, never earlier in
cycles than ptxas had it where a memory access reads its result's register without a scoreboard
(the memory pipe reads registers after the access issues), and the first pass's the same against
the code before the loop. Dependencies between FFMAs as above (across the back edge too). The
search fills the places in order, keeping each FFMA's deadline (its window's end less what depends
on it) reachable. verify() checks every loop for the waits as well (check_waits)."""
import bisect
import collections
import multiprocessing
import os
import re
import subprocess
import sys

import sass_words as sw

FFMA_RRR = 0x223
WINDOW = 16    # instructions either side of a run whose fixed-latency register use pins a FFMA
MIN_GAP = 6    # cycles a dependent FFMA pair keeps at least (or ptxas's distance where it is less)


def texts(path):
    """{(kernel, address): text} from cuobjdump -sass (branch targets as addresses)."""
    out, kernel = {}, None
    sass = subprocess.run(['cuobjdump', '-sass', path], capture_output=True, text=True, check=True).stdout
    for line in sass.splitlines():
        m = re.match(r'\s*Function : (\S+)', line)
        if m:
            kernel = m.group(1)
            continue
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', line)
        if m and kernel:
            out[kernel, int(m.group(1), 16)] = m.group(2)
    return out


def regs_named(text):
    """registers an instruction's text names, a vector access's whole range (over-approximated)"""
    width = 4 if '.128' in text.split(' ')[0] else 2 if '.64' in text.split(' ')[0] else 1
    out = set()
    for m in re.finditer(r'\bR(\d+)(\.64)?', text):
        n = int(m.group(1))
        out.update(range(n, n + max(width, 2 if m.group(2) else 1)))
    return out


NO_DEST = ('ST', 'LDGSTS', 'RED', 'BAR', 'BRA', 'EXIT', 'DEPBAR', 'NOP', 'WARPSYNC', 'BSYNC', 'BSSY', 'CALL',
           'RET', 'LDGDEPBAR', 'MEMBAR', 'ERRBAR', 'CCTL', 'ARRIVES', 'SYNCS')
STOPS = ('BAR', 'BRA', 'EXIT', 'DEPBAR', 'WARPSYNC', 'BSYNC', 'BSSY', 'CALL', 'RET', 'MEMBAR', 'SYNCS')


def unguarded(x):
    """an instruction's text without its guard predicate"""
    return re.sub(r'^@!?U?P\w+\s+', '', x['text'])


def slots_of(x):
    """(reads, writes) of an instruction: reads as (slot, register) for each register source, the
    slot being the source's position among the sources; writes as registers. For text other than a
    FFMA's the reading is from cuobjdump's text, vector widths over-approximated."""
    if rrr(x):
        return [(0, x['ra']), (1, x['rb']), (2, x['rc'])], {x['rd']}
    text = unguarded(x)
    op, _, rest = text.partition(' ')
    ops = [o.strip() for o in rest.split(',')] if rest.strip() else []
    width = 4 if '.128' in op else 2 if '.64' in op else 1
    writes = set()
    if ops and not op.startswith(NO_DEST) and re.fullmatch(r'R\d+', ops[0]):
        n = int(ops[0][1:])
        writes = set(range(n, n + width))
        ops = ops[1:]
    ops = [o for o in ops if not re.fullmatch(r'!?U?P(T|\d+)', o)]  # predicates: not register slots
    reads = []
    if op.split('.')[0] == 'MOV':  # a MOV's source is encoded in the second source's field
        ops = ['RZ'] + ops
    for slot, o in enumerate(ops):
        for m in re.finditer(r'\bR(\d+|Z)(\.64)?', o):
            n = 255 if m.group(1) == 'Z' else int(m.group(1))
            for r in range(n, n + (2 if m.group(2) or (width > 1 and o.startswith('R')) else 1)):
                reads.append((slot, r))
    return reads, writes


MEMORY = ('LDS', 'LDG', 'LDGSTS', 'STS', 'STG', 'LDSM')


def crossable(y, s, reads):
    """may a source flagged in slot s stay cached across y (not a register-form FFMA)? Only as
    ptxas lets it: across an instruction without a wait or a barrier that reads no register in
    slot s, or, for slot 0, across a memory access (its address does not go through the slots)"""
    if rrr(y):
        return True
    op = unguarded(y).split(' ')[0]
    if y['wait'] or op.startswith(STOPS):
        return False
    if op.startswith(MEMORY):
        return s < 2 and not any(t == s and op.startswith(('STS', 'STG')) for t, _ in reads)
    return not any(t == s for t, _ in reads)


def loop_flags(seq, lo, hi):
    """reuse flags of every register-form FFMA of seq[lo..hi] for the order there: a source keeps
    its slot's cache entry for its bank until an instruction reads another register of that bank in
    that slot, writes the register, waits on a scoreboard, or is a barrier or branch; flagged where
    the next reader of that entry is the same register in the same slot (what ptxas does across
    other instructions that leave the slot alone)"""
    info = [slots_of(x) for x in seq[lo:hi + 1]]
    for p in range(lo, hi + 1):
        x = seq[p]
        if not rrr(x):
            continue
        bits = 0
        if flag_ok(x):
            for s, r in enumerate(srcs(x)):
                if r == 255 or r == x['rd']:
                    continue
                for q in range(p + 1, hi + 1):
                    y = seq[q]
                    reads, writes = info[q - lo]
                    ffma = rrr(y)
                    if ffma and (s, r) in reads:
                        bits |= 1 << s
                        break
                    if r in writes or y['yield'] == 0 or not crossable(y, s, reads):
                        break
                    if ffma and any(t == s and v % 2 == r % 2 for t, v in reads):
                        break
                    if not ffma and any(v == r for _, v in reads):
                        break
        x['reuse'] = (x['reuse'] & 8) | bits


def k_loop(ins):
    """(first, last) index of the shortest backward branch's body holding at least 256 FFMAs"""
    best = None
    for i, x in enumerate(ins):
        m = re.search(r'\bBRA\b.*?(0x[0-9a-f]+)', x['text'])
        if m and int(m.group(1), 16) < x['addr']:
            s = int(m.group(1), 16) // 16
            if sum(y['ffma'] for y in ins[s:i + 1]) >= 256 and (best is None or i - s < best[1] - best[0]):
                best = (s, i)
    return best


def rrr(x):
    """a FFMA in the register form (all three sources registers)"""
    return x['ffma'] and x['opcode'] == FFMA_RRR


def movable(x):
    return rrr(x) and x['pred'] == 7


def flag_ok(x):
    return x['yield'] == 1 and 1 <= x['stall'] <= 11


def srcs(x):
    return (x['ra'], x['rb'], x['rc'])


def model(seq, across=False):
    """(FFMAs, reuse flags, colliding FFMAs) of a list of decoded instructions by the model: with
    across, cache entries kept across other instructions as loop_flags keeps them; without, any other
    instruction empties the caches (bench/sass_loop.py's reading)"""
    cache, n, flags, coll = {}, 0, 0, 0
    for x in seq:
        if not x['ffma'] or (across and x['opcode'] != FFMA_RRR):
            if across:
                cache_after(cache, x, False)
            else:
                cache = {}
            continue
        n += 1
        uncached = []
        for s, r in enumerate(srcs(x)):
            if r is None or r == 255 or x['kinds'][s] != 'R':
                continue
            if cache.get((s, r % 2)) != r:
                uncached.append(r)
            reuse = x['reuse'] >> s & 1
            flags += reuse
            cache[(s, r % 2)] = r if reuse else None
        if across:
            for k, v in list(cache.items()):
                if v == x['rd']:
                    cache[k] = None
        banks = collections.Counter(r % 2 for r in uncached)
        coll += bool(banks) and max(banks.values()) >= 2
    return n, flags, coll


def issue_cycles(seq):
    """dispatch cycles a FFMA of seq's FFMAs by issue_cost, the other instructions left out (the
    caches as the flags say, two passes, the second counted)"""
    ffmas = [x for x in seq if rrr(x)]
    cache, carry, cycles = [NONE] * 6, None, 0
    for it in range(2):
        for x in ffmas:
            hits, extra, carry = issue_cost(cache, x['ra'], x['rb'], x['rc'], carry)
            cycles += (1 + extra) * it
            for s, r in enumerate(srcs(x)):
                cache[2 * s + (r & 1)] = r if x['reuse'] >> s & 1 and r != 255 else NONE
            cache = [NONE if v == x['rd'] else v for v in cache]
    return cycles / max(1, len(ffmas))


def cache_after(cache, x, can_flag):
    """the reuse caches (slot, bank) -> register after x, every FFMA source kept where it may be
    flagged (the flags are set afterwards, for the sources read again)"""
    reads, writes = slots_of(x)
    if rrr(x):
        for s, r in reads:
            cache[(s, r % 2)] = r if can_flag and r != 255 else None
    else:
        for s in range(3):
            if x['yield'] == 0 or not crossable(x, s, reads):
                cache.pop((s, 0), None)
                cache.pop((s, 1), None)
        for k, v in list(cache.items()):
            if any(v == r for _, r in reads):
                cache[k] = None
    for k, v in list(cache.items()):
        if v in writes:
            cache[k] = None


def reorder(seq, lo, hi, swap, placed, cycle, last):
    """a new order of the FFMAs in seq[lo:hi] (a run of movable FFMAs and pinned ones), or None;
    placed: original index -> new place of every instruction placed so far (updated); last: the
    reuse caches before the run (updated to after it)"""
    # the places: a new group starts at a wait mask or a pinned FFMA
    groups, cur = [], []
    for p in range(lo, hi):
        if seq[p]['pinned'] or seq[p]['wait'] or seq[p]['yield'] == 0:
            if cur:
                groups.append(cur)
            cur = []
            if seq[p]['pinned']:
                groups.append([p])
                continue
        cur.append(p)
    if cur:
        groups.append(cur)
    mine, start = {}, dict(last)
    out = list(seq)
    for g in groups:
        best = order_group(g, seq, placed, mine, cycle, last, swap)
        if best is None:
            last.clear()
            last.update(start)
            return None
        for p, (x, sw_ab) in zip(g, best):
            y = dict(x)
            if sw_ab:
                y['ra'], y['rb'] = x['rb'], x['ra']
            for k in ('stall', 'yield', 'wait', 'wbar', 'rbar'):
                y[k] = seq[p][k]
            out[p] = y
            mine[x['index']] = p
            cache_after(last, y, flag_ok(seq[p]))
    placed.update(mine)
    return out


BEAM = 24       # orders kept at each place of a group
COLLISION = 2.0  # a bank collision (with CYCLES: a cycle of dispatch lost) weighs as many cache hits
CYCLES = False   # price an order by issue_cost's cycles instead of counting collisions


def issue_cost(cache, a, b, c, carry):
    """(cache hits, dispatch cycles lost, bank of a sum read left to the next cycle or None) of
    FFMA a * b + c after the caches `cache` (indexed 2 * slot + bank) and a sum read left over from
    the FFMA before in bank `carry`. The register file as measured (bench/register_banks,
    docs/notes/sgemm.md): each bank gives one register a cycle; the factors are read in the cycle
    the FFMA dispatches (two of one bank hold it a cycle, a bank busy with a left-over sum read as
    well); the sum is read in the first cycle from the factors' last on that its bank is free,
    without holding the dispatch (so into the next FFMA's first cycle where that one is busy)"""
    hits = 0
    busy = {(carry, 0)} if carry is not None else set()
    done, ab = 0, []
    for k, r in ((a & 1, a), (2 + (b & 1), b)):
        if cache[k] == r:
            hits += 1
        elif r != 255 and r not in ab:
            ab.append(r)
    for r in ab:
        cyc = 0
        while (r & 1, cyc) in busy:
            cyc += 1
        busy.add((r & 1, cyc))
        done = max(done, cyc)
    left = None
    if cache[4 + (c & 1)] == c:
        hits += 1
    elif c != 255 and c not in ab:
        cyc = done
        while (c & 1, cyc) in busy:
            cyc += 1
        if cyc > done:
            left = c & 1
    return hits, done, left


def order_group(g, seq, placed, mine, cycle, last, swap):
    """the FFMAs of places g (one group: no wait mask or pinned FFMA inside) in a new order, as
    [(instruction, factors swapped)], by a beam search for the most cache hits less COLLISION a
    bank collision, ties to the order nearest ptxas's; None if no order keeps the dependencies.
    The caches are a tuple indexed 2 * slot + bank, an entry NONE (emptied) or ABSENT (never set:
    kept apart from NONE so that two orders count as the same only where their caches are)"""
    pool = [seq[p] for p in g]
    need = dependencies(pool, seq, placed, mine, cycle, swap)
    start = cache_tuple(last)
    beam = [(0.0, 0.0, [], start, {}, frozenset(), None)]
    for p in g:
        cands = []
        at = cycle[p]
        for si, (score, dist, _, cache, here, used, carry) in enumerate(beam):
            for x, (idx, ra, rb, rc, least, inside, both) in zip(pool, need):
                if idx in used or at < least:
                    continue
                if inside and not all(d in here and at - cycle[here[d]] >= gap for d, gap in inside):
                    continue
                base = dist - abs(idx - p)
                for sw_ab in both:
                    a, b = (rb, ra) if sw_ab else (ra, rb)
                    if CYCLES:
                        hits, extra, carry2 = issue_cost(cache, a, b, rc, carry)
                        cands.append(((score + hits - COLLISION * extra, base - 0.01 * sw_ab), si, x, sw_ab, carry2))
                        continue
                    hits, b0, b1 = 0, 0, 0
                    for k, r in ((a & 1, a), (2 + (b & 1), b), (4 + (rc & 1), rc)):
                        if cache[k] == r:
                            hits += 1
                        elif r & 1:
                            b1 += 1
                        else:
                            b0 += 1
                    coll = b0 >= 2 or b1 >= 2
                    cands.append(((score + hits - COLLISION * coll, base - 0.01 * sw_ab), si, x, sw_ab, None))
        if not cands:
            return None
        cands.sort(key=lambda c: c[0], reverse=True)
        nxt, seen = [], set()
        can_flag = flag_ok(seq[p])
        for key, si, x, sw_ab, carry2 in cands:
            _, _, chosen, cache, here, used, _ = beam[si]
            a, b = (x['rb'], x['ra']) if sw_ab else (x['ra'], x['rb'])
            c2 = ffma_caches(cache, a, b, x, can_flag)
            u2 = used | {x['index']}
            ident = (u2, c2, carry2)
            if ident in seen:
                continue
            seen.add(ident)
            nxt.append((key[0], key[1], chosen + [(x, sw_ab)], c2, {**here, x['index']: p}, u2, carry2))
            if len(nxt) == BEAM:
                break
        beam = nxt
    return beam[0][2]


NONE, ABSENT = -2, -1  # a cache entry emptied, and one never set (registers are 0..255)


def cache_tuple(d):
    """the caches {(slot, bank): register or None} as the searches' tuple"""
    return tuple(ABSENT if (s, b) not in d else NONE if d[(s, b)] is None else d[(s, b)]
                 for s in range(3) for b in range(2))


def ffma_caches(cache, a, b, x, can_flag):
    """the caches' tuple after FFMA x reads a, b and its sum (flagged if it can be)"""
    c = list(cache)
    for k, r in ((a & 1, a), (2 + (b & 1), b), (4 + (x['rc'] & 1), x['rc'])):
        c[k] = r if can_flag and r != 255 else NONE
    return tuple(NONE if v == x['rd'] else v for v in c)


def dependencies(pool, seq, placed, mine, cycle, swap):
    """for each FFMA of the group (pool): (index, factors, sum, the earliest cycle its placed
    dependencies allow, [(dependency in the group, cycles)], the factor orders to try); a FFMA that
    depends on one of its run not yet placed and not in the group can take no place here (its
    earliest cycle infinite)"""
    ids = {x['index'] for x in pool}
    out = []
    for x in pool:
        least, inside = float('-inf'), []
        for d, gap in x['after']:
            if d in ids:
                inside.append((d, gap))
                continue
            q = mine[d] if d in mine else placed.get(d)
            if q is None:
                if seq[d]['run'] == x['run']:
                    least = float('inf')
                continue
            least = max(least, cycle[q] + gap)
        out.append((x['index'], x['ra'], x['rb'], x['rc'], least, inside,
                    (False, True) if swap and not x['pinned'] else (False,)))
    return out


def rewrite(ins, swap=True, flags_only=False, across=False):
    """ins (decoded, in order, with 'text') rewritten in place where its k loop is; statistics.
    With across, the loop's FFMAs placed by place_across (a wider beam where the first finds no
    order), by runs where neither does"""
    span = k_loop(ins)
    if not span:
        return None
    lo, hi = span
    for i, x in enumerate(ins):
        x['index'], x['pinned'], x['after'], x['run'] = i, False, [], None
    before = model(ins[lo:hi + 1]) + model(ins[lo:hi + 1], True) + (issue_cycles(ins[lo:hi + 1]),)
    for width in (BEAM, 8 * BEAM) if across else ():
        try:
            out, pinned = place_across(ins, lo, hi, width)
        except SystemExit as e:
            why = str(e)
            continue
        return before, adopt(ins, out, lo, hi), pinned, f'placed across the loop (beam {width})', 0
    note = f' (across the loop: {why})' if across else ''
    # runs of movable FFMAs
    runs, i = [], lo
    while i <= hi:
        if movable(ins[i]):
            j = i
            while j + 1 <= hi and movable(ins[j + 1]):
                j += 1
            runs.append((i, j + 1))
            i = j + 1
        else:
            i += 1
    for r, (a, b) in enumerate(runs):
        # fixed-latency instructions before the run that name a FFMA's register, and any other
        # instruction after it that names a FFMA's result, keep that FFMA in its place
        near_before, near_after = set(), set()
        for k in range(max(0, a - WINDOW), a):
            if not movable(ins[k]) and ins[k]['wbar'] == 7 and ins[k]['rbar'] == 7:
                near_before |= regs_named(ins[k]['text'])
        for k in range(b, min(len(ins), b + WINDOW)):
            if not movable(ins[k]):
                near_after |= regs_named(ins[k]['text'])
        for p in range(a, b):
            x = ins[p]
            x['run'] = r
            if near_before & {x['rd'], x['ra'], x['rb'], x['rc']} or x['rd'] in near_after:
                x['pinned'] = True
    # dependencies between FFMAs (a writer before a reader or writer of its register), with the
    # cycles ptxas left between them
    cyc = [0]
    for x in ins:
        cyc.append(cyc[-1] + x['stall'])
    writer = {}
    for i in range(lo, hi + 1):
        x = ins[i]
        if not rrr(x):
            continue
        for r in set(srcs(x)) | {x['rd']}:
            w = writer.get(r)
            if w is not None:
                x['after'].append((w, max(4, min(cyc[i] - cyc[w], MIN_GAP))))
        writer[x['rd']] = i
    # readers before a writer (write after read): the reader stays first
    for i in range(lo, hi + 1):
        x = ins[i]
        if movable(x):
            for r in {x['ra'], x['rb'], x['rc']}:  # ptxas reuses a spent factor's register for a sum
                for j in range(i + 1, hi + 1):
                    y = ins[j]
                    if y['ffma'] and y['rd'] == r:
                        if y['run'] == x['run']:
                            y['after'].append((i, 1))
                        break
    # a run no order fits is kept as ptxas wrote it; if that breaks a distance an earlier run's new
    # order relied on, the earlier run is kept too, and the loop placed again
    frozen = set()
    while True:
        out, placed, kept = place_runs(ins, runs, lo, swap, cyc, frozen if not flags_only else set(range(len(runs))))
        bad = check(out, placed, cyc, lo, hi)
        more = {ins[d]['run'] for _, d, _, _ in bad} - frozen - {None}
        if not bad or not more:
            break
        frozen |= more
    if bad:
        raise SystemExit(f'dependency distances broken: {bad[:5]}')
    return before, adopt(ins, out, lo, hi), sum(x['pinned'] for x in ins), f'in {len(runs)} runs{note}', kept


def adopt(ins, out, lo, hi):
    """out's loop, its reuse flags set, checked against ins's and copied into ins; its statistics"""
    loop_flags(out, lo, hi)
    problem = verify(ins, out, lo, hi)
    if problem:
        raise SystemExit(f'refused: {problem}')
    ins[:] = out
    return model(ins[lo:hi + 1]) + model(ins[lo:hi + 1], True) + (issue_cycles(ins[lo:hi + 1]),)


def place_runs(ins, runs, lo, swap, cyc, frozen):
    """(new order, original index -> new place, runs kept in ptxas's order) with each run of
    movable FFMAs reordered in turn, the frozen ones (indices into runs) kept"""
    out = list(ins)
    placed = {i: i for i in range(len(ins)) if not movable(ins[i])}
    kept, last, at = 0, {}, lo
    for r, (a, b) in enumerate(runs):
        for p in range(at, a):
            cache_after(last, out[p], flag_ok(out[p]))
        new = None if r in frozen else reorder(out, a, b, swap, placed, cyc, last)
        if new is None:
            kept += 1
            placed.update({p: p for p in range(a, b)})
            for p in range(a, b):
                cache_after(last, out[p], flag_ok(out[p]))
        else:
            out = new
        at = b
    return out, placed, kept


def check(out, placed, cyc, lo, hi):
    """(reader, writer, cycles, needed) of every dependency the new order breaks"""
    bad = []
    for p in range(lo, hi + 1):
        x = out[p]
        for d, gap in x.get('after', []):
            q = placed[d]
            if cyc[p] - cyc[q] < gap:
                bad.append((x['index'], d, cyc[p] - cyc[q], gap))
    return bad


def dataflow(ins, lo, hi, iters=2):
    """what every register holds after iters passes of the loop, run in order (a FFMA's value from
    its factors as an unordered pair and its sum; any other instruction's result new)"""
    val = {}
    for it in range(iters):
        for p in range(lo, hi + 1):
            x = ins[p]
            reads, writes = slots_of(x)
            if rrr(x):
                a, b, c = (val.get(r, ('in', r)) for r in srcs(x))
                val[x['rd']] = hash(('fma', tuple(sorted((hash(a), hash(b)))), hash(c)))
            else:
                for r in writes:
                    val[r] = ('op', p, it)
    return val


def verify(old, new, lo, hi):
    """why new's loop is not old's, or None: the same values in every register after two passes,
    at least 4 cycles from a FFMA to any reader of its result (across the back edge too), and every
    flagged source next read in its slot and bank as the same register, holding the same value"""
    if dataflow(old, lo, hi) != dataflow(new, lo, hi):
        return 'the loop computes something else'
    waits = check_waits(new, lo, hi)
    if waits:
        return waits
    body = new[lo:hi + 1] * 2
    cyc, wrote, cache, val = 0, {}, {}, {}
    for i, x in enumerate(body):
        reads, writes = slots_of(x)
        ffma = rrr(x)
        for s, r in reads:
            w = wrote.get(r)
            if w is not None and cyc - w < 4:
                return f'a FFMA result read {cyc - w} cycles after it was written ({x["text"]})'
        if ffma:
            for s, r in reads:
                hit = cache.get((s, r % 2))
                if hit is not None and hit[0] == r and hit[1] != val.get(r):
                    return f'a stale value from the reuse cache ({x["text"]})'
                if hit is not None and hit[0] != r:
                    return f'a flagged source next read in its slot and bank as another register ({x["text"]})'
            for s, r in reads:
                cache[(s, r % 2)] = (r, val.get(r)) if x['reuse'] >> s & 1 else None
        else:
            for s in range(3):
                if x['yield'] == 0 or not crossable(x, s, reads):
                    cache.pop((s, 0), None)
                    cache.pop((s, 1), None)
        for r in writes:
            val[r] = (i, r)
            if ffma:
                wrote[r] = cyc
            else:
                wrote.pop(r, None)
        cyc += x['stall']
    return None


# ---- the whole loop at once (--across): FFMAs placed across the loop's other instructions ----

LATENCY = 6     # cycles kept between a fixed-latency instruction and a FFMA that depends on it
LOOK = 96       # unplaced FFMAs (in ptxas's order) a place considers, beyond those whose deadline is near
URGENCY = 0.1   # what a place of slack under 8 costs a FFMA in the search's score


def lds(x):
    return unguarded(x).startswith('LDS')


def pending_after(x, pend_w, pend_r, unbarred):
    """the accesses still in flight after x issues, updated in place: pend_w / pend_r, register ->
    scoreboard of a pending write / read; unbarred, the registers of shared-memory loads issued
    without a scoreboard, which complete in order: the next load with one covers them"""
    reads, writes = slots_of(x)
    for r in writes:
        pend_w.pop(r, None)
        unbarred.discard(r)
        if x['wbar'] != 7:
            pend_w[r] = x['wbar']
        elif lds(x):
            unbarred.add(r)
    if lds(x) and x['wbar'] != 7:
        pend_w.update((r, x['wbar']) for r in unbarred)
        unbarred.clear()
    if x['rbar'] != 7:
        pend_r.update((r, x['rbar']) for _, r in reads)


def waited(x, pend_w, pend_r):
    for s in range(6):
        if x['wait'] >> s & 1:
            for pend in (pend_w, pend_r):
                for r in [r for r, b in pend.items() if b == s]:
                    del pend[r]


def entry_state(ins, lo):
    """(pend_w, pend_r, register -> cycles since a fixed-latency write under LATENCY) at the loop's
    entry, the code before it read as one straight line"""
    pend_w, pend_r, fixed_at, unbarred = {}, {}, {}, set()
    for x in ins[:lo]:
        waited(x, pend_w, pend_r)
        fixed_at = {r: c + x['stall'] for r, c in fixed_at.items()}
        pending_after(x, pend_w, pend_r, unbarred)
        for r in slots_of(x)[1]:
            fixed_at.pop(r, None)
            if x['wbar'] == 7 and not lds(x):
                fixed_at[r] = x['stall']
    if unbarred:
        raise SystemExit('a shared-memory load before the loop that no scoreboard covers')
    return pend_w, pend_r, {r: c for r, c in fixed_at.items() if c < LATENCY}


def check_waits(seq, lo, hi):
    """why a FFMA of the loop (from the entry, three passes) reads a register before the wait on the
    load that writes it, or writes one before the wait on an access pending on it; None if none"""
    pend_w, pend_r, _ = entry_state(seq, lo)
    unbarred = set()
    for i, x in enumerate(seq[lo:hi + 1] * 3):
        waited(x, pend_w, pend_r)
        if rrr(x):
            if any(r in pend_w or r in unbarred for r in srcs(x)):
                return f'a source read before the wait on its load ({x["text"]})'
            if x['rd'] in pend_w or x['rd'] in pend_r or x['rd'] in unbarred:
                return f'a result written before the wait on an access to its register ({x["text"]})'
        pending_after(x, pend_w, pend_r, unbarred)
    return None


def windows(ins, lo, hi):
    """for the loop's movable FFMAs (positions k from lo): (cycle of each position, the loop's
    cycles, positions, {k: (first position, first cycle, last position, last cycle, pinned)},
    {k: [(earlier FFMA, cycles)]}, {k: [(earlier FFMA reading k's result of the pass before, cycles)]})"""
    n = hi - lo + 1
    cyc = [0] * (n + 1)
    for k in range(n):
        cyc[k + 1] = cyc[k] + ins[lo + k]['stall']
    total = cyc[n]
    rw = [({r for _, r in rs}, ws) for rs, ws in (slots_of(ins[lo + k]) for k in range(n))]
    mov = [k for k in range(n) if movable(ins[lo + k])]
    fixed = [k for k in range(n) if not movable(ins[lo + k])]

    def written(r, a, b):
        return any(r in rw[q][1] for q in range(a, b))

    def wait_after(j, k):
        """the first position after j (around the back edge, up to k) that waits for the scoreboard
        covering j's write or read (cover[j]), or None"""
        at, s = j
        q = (at + 1) % n
        while not ins[lo + q]['wait'] >> s & 1:
            if q == k:
                return None
            q = (q + 1) % n
        return q

    # the scoreboard that covers each instruction's register write: its own, or for a shared-memory
    # load without one, the next load's that has one
    cover = {}
    for j in fixed:
        y = ins[lo + j]
        if y['wbar'] != 7:
            cover[j] = (j, y['wbar'])
        elif lds(y) and rw[j][1]:
            q = next((q % n for q in range(j + 1, j + n) if lds(ins[lo + q % n]) and ins[lo + q % n]['wbar'] != 7), None)
            cover[j] = (q, ins[lo + q]['wbar']) if q is not None else None
        else:
            cover[j] = None
    pend_w, pend_r, fixed_at = entry_state(ins, lo)
    win = {}
    for k in mov:
        x = ins[lo + k]
        src, rd = {r for r in srcs(x) if r != 255}, x['rd']
        e_pos, e_cyc, l_pos, l_cyc, pin = 0, -10 ** 9, n - 1, total - LATENCY, False

        def after_wait(j, both=False):
            """x after the wait covering j (this pass's j if both, else the last pass's if it is there)"""
            nonlocal e_pos, pin
            w = wait_after(j, k)
            if w is None:
                pin = True
            elif both or w <= k:
                e_pos = max(e_pos, w)

        # the first pass: what the code before the loop left in flight or just wrote
        for r, bar in [(r, pend_w.get(r)) for r in src] + [(rd, pend_w.get(rd)), (rd, pend_r.get(rd))]:
            if bar is not None and not written(r, 0, k):
                w = next((q for q in range(k + 1) if ins[lo + q]['wait'] >> bar & 1), None)
                e_pos = max(e_pos, w or 0)
        for r in src | {rd}:
            if r in fixed_at and not written(r, 0, k):
                e_cyc = max(e_cyc, LATENCY - fixed_at[r])
        for j in fixed:
            (reads, writes), y = rw[j], ins[lo + j]
            if rd in reads and y['rbar'] == 7 and unguarded(y).startswith(MEMORY):
                # a memory access reads its registers when the memory pipe takes it, cycles after
                # it issues: x overwrites one no sooner than ptxas had it
                e_cyc = max(e_cyc, cyc[k])
            if j < k:
                if writes & (src | {rd}):
                    # RAW: the value x reads; WAW: y's value dead before x writes (after its wait)
                    e_pos = max(e_pos, j + 1)
                    if cover[j] is not None:
                        after_wait(cover[j], both=True)
                    else:
                        e_cyc = max(e_cyc, cyc[j] + LATENCY)
                if rd in reads:
                    e_pos = max(e_pos, j + 1)
                    pin |= y['rbar'] != 7
                if rd in reads and not written(rd, k + 1, n):
                    # y reads x's result of the pass before
                    l_cyc = min(l_cyc, total + cyc[j] - LATENCY)
            else:
                if writes & (src | {rd}):
                    l_pos = min(l_pos, j - 1)
                for r in writes & src:
                    if not written(r, 0, k):  # y's value of the pass before, read by x
                        if cover[j] is not None:
                            after_wait(cover[j])
                        else:
                            e_cyc = max(e_cyc, cyc[j] + LATENCY - total)
                if rd in reads:
                    l_pos, l_cyc = min(l_pos, j - 1), min(l_cyc, cyc[j] - LATENCY)
                # y of the pass before reading or writing rd asynchronously: x after the wait
                if rd in reads and y['rbar'] != 7:
                    after_wait((j, y['rbar']))
                if rd in writes and cover[j] is not None:
                    after_wait(cover[j])
        win[k] = [e_pos, e_cyc, l_pos, l_cyc, pin]
    after, carried = collections.defaultdict(list), collections.defaultdict(list)
    for i, k in enumerate(mov):
        x = ins[lo + k]
        for q in mov[:i]:
            y = ins[lo + q]
            if y['rd'] in srcs(x) or y['rd'] == x['rd']:
                after[k].append((q, max(4, min(cyc[k] - cyc[q], MIN_GAP))))
            elif x['rd'] in srcs(y):
                after[k].append((q, 1))
        if not written(x['rd'], k + 1, n):
            for z in mov[:i]:
                if x['rd'] in srcs(ins[lo + z]) and not written(x['rd'], 0, z):
                    carried[k].append((z, max(4, min(total - cyc[k] + cyc[z], MIN_GAP))))
    return cyc, total, mov, win, after, carried


def place_across(ins, lo, hi, beam_width):
    """the loop with its movable FFMAs placed anywhere their windows and dependencies allow, by a
    beam search over the whole loop for the fewest dispatch cycles (issue_cost), a FFMA whose
    deadline nears preferred; SystemExit where no order is found"""
    cyc, total, mov, win, after, carried = windows(ins, lo, hi)
    pinned = {k for k in mov if win[k][4]}
    for k in mov:  # a pinned FFMA bounds the windows of those it depends on and that depend on it
        for d, gap in after[k]:
            if d in pinned and k not in pinned:
                win[k][0], win[k][1] = max(win[k][0], d + 1), max(win[k][1], cyc[d] + gap)
            if k in pinned and d not in pinned:
                win[d][2], win[d][3] = min(win[d][2], k - 1), min(win[d][3], cyc[k] - gap)
    places = [k for k in mov if k not in pinned]
    index = {p: q for q, p in enumerate(places)}
    first, last = {}, {}
    for k in places:
        e_pos, e_cyc, l_pos, l_cyc, _ = win[k]
        ok = [q for q, p in enumerate(places) if e_pos <= p <= l_pos and e_cyc <= cyc[p] <= l_cyc]
        if not ok or not ok[0] <= index[k] <= ok[-1]:
            raise SystemExit(f'a window without ptxas\'s place ({ins[lo + k]["text"]})')
        first[k], last[k] = ok[0], ok[-1]
    # deadlines: a FFMA's last place, less what those depending on it need after it
    pcyc = [cyc[p] for p in places]
    needed_by = collections.defaultdict(list)
    for z in places:
        for d, gap in after[z]:
            needed_by[d].append((z, gap))
    deadline = dict(last)
    for k in reversed(places):
        for z, gap in needed_by[k]:
            deadline[k] = min(deadline[k], bisect.bisect_right(pcyc, pcyc[deadline[z]] - gap) - 1)
    by_deadline = sorted(places, key=lambda k: (deadline[k], k))
    beam = [(0.0, 0.0, (), (ABSENT,) * 6, {}, frozenset(), None)]
    for q, p in enumerate(places):
        cands, at = [], cyc[p]
        for si, (score, dist, chosen, cache, here, used, carry) in enumerate(beam):
            # a FFMA placed now may not come after one whose deadline leaves no slack
            limit, i = None, 0
            for k in by_deadline:
                if k in used:
                    continue
                if deadline[k] <= q + i:
                    limit = deadline[k] if deadline[k] == q + i else -1
                    break
                i += 1
            if limit == -1:
                continue
            seen = 0
            for k in places:
                if k in used:
                    continue
                seen += 1
                if seen > LOOK and (limit is None or deadline[k] > limit):
                    break
                if limit is not None and deadline[k] > limit or not first[k] <= q <= last[k]:
                    continue
                if not all(d in here and at - cyc[here[d]] >= gap for d, gap in after[k] if d not in pinned):
                    continue
                if not all(z in here and total - at + cyc[here[z]] >= gap for z, gap in carried[k] if z not in pinned):
                    continue
                x = ins[lo + k]
                hits, extra, carry2 = issue_cost(cache, x['ra'], x['rb'], x['rc'], carry)
                urgent = URGENCY * max(0, 8 - (deadline[k] - q))
                cands.append(((score + hits - COLLISION * extra - urgent, dist - abs(k - p)), si, k, carry2))
        if not cands:
            raise SystemExit(f'no order found at the loop\'s FFMA place {q}')
        cands.sort(key=lambda c: c[0], reverse=True)
        nxt, seen_states = [], set()
        can_flag = flag_ok(ins[lo + p])
        end = places[q + 1] if q + 1 < len(places) else hi - lo + 1
        for key, si, k, carry2 in cands:
            _, _, chosen, cache, here, used, _ = beam[si]
            x = ins[lo + k]
            c = ffma_caches(cache, x['ra'], x['rb'], x, can_flag)
            if end > p + 1:  # the other instructions up to the next place
                d = {(s, b): None if v == NONE else v for s in range(3) for b in range(2)
                     for v in [c[2 * s + b]] if v != ABSENT}
                for j in range(p + 1, end):
                    cache_after(d, ins[lo + j], flag_ok(ins[lo + j]))
                c = cache_tuple(d)
            state = (used | {k}, c, carry2 if end == p + 1 else None)
            if state in seen_states:
                continue
            seen_states.add(state)
            nxt.append((key[0], key[1], chosen + (k,), c, {**here, k: p}, state[0], state[2]))
            if len(nxt) == beam_width:
                break
        beam = nxt
    out = list(ins)
    for p, k in zip(places, beam[0][2]):
        y = dict(ins[lo + k])
        for f in ('stall', 'yield', 'wait', 'wbar', 'rbar'):
            y[f] = ins[lo + p][f]
        out[lo + p] = y
    return out, len(pinned)


def encode_ffma(x):
    w = int.from_bytes(x['word'], 'little')
    w &= ~((0xff << 24) | (0xff << 32))
    w |= (x['ra'] << 24) | (x['rb'] << 32)
    return sw.encode(w.to_bytes(16, 'little'), **{k: x[k] for k in sw.CONTROL})


def one_kernel(job):
    """(file offset, new section bytes or None, report line) for one kernel's section"""
    name, off, code, text, swap, flags_only, options = job
    global BEAM, COLLISION, CYCLES
    BEAM, COLLISION, by_cycles, by_across = options
    CYCLES = bool(by_cycles.search(name))
    ins = []
    for a in range(0, len(code), 16):
        d = sw.decode(code[a:a + 16])
        d['addr'], d['text'] = a, text.get(a, '')
        ins.append(d)
    try:
        stats = rewrite(ins, swap, flags_only, bool(by_across.search(name)))
    except SystemExit as e:
        return off, None, f'{name}\n  kept as ptxas wrote it: {e}'
    if not stats:
        return off, None, None
    (n0, f0, c0, _, g0, d0, i0), (n1, f1, c1, _, g1, d1, i1), pinned, runs, kept = stats
    out = bytearray(code)
    for p, x in enumerate(ins):
        if rrr(x):
            out[16 * p:16 * p + 16] = encode_ffma(x)
    return off, bytes(out), (f'{name}\n  k loop: {n0} FFMAs {runs} ({kept} kept as they were), {pinned} '
                             f'pinned; reuse flags a FFMA {f0 / n0:.2f} -> {f1 / n1:.2f}, colliding {c0 / n0:.2f} -> '
                             f'{c1 / n1:.2f}; kept across other instructions: flags {g0 / n0:.2f} -> {g1 / n1:.2f}, '
                             f'colliding {d0 / n0:.2f} -> {d1 / n1:.2f}; issue cycles a FFMA {i0:.3f} -> {i1:.3f}')


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) < 2:
        sys.exit(__doc__)
    flags_only = '--flags-only' in sys.argv
    keep_factors = re.compile('.' if '--no-swap' in sys.argv else '(?!)')
    global BEAM, COLLISION
    by_cycles = re.compile('(?!)')  # the kernels whose orders --cycles prices
    by_across = re.compile('(?!)')  # the kernels whose loops --across places whole
    for a in sys.argv:
        if a.startswith('--no-swap='):
            keep_factors = re.compile(a[10:])
        if a.startswith('--beam='):
            BEAM = int(a[7:])
        if a.startswith('--collision='):
            COLLISION = float(a[12:])
        if a == '--cycles' or a.startswith('--cycles='):
            by_cycles = re.compile(a[9:] or '.')
        if a == '--across' or a.startswith('--across='):
            by_across = re.compile(a[9:] or '.')
    pattern = re.compile(args[2] if len(args) > 2 else '.')
    cubin = bytearray(open(args[0], 'rb').read())
    text = texts(args[0])
    by_kernel = collections.defaultdict(dict)
    for (name, a), t in text.items():
        by_kernel[name][a] = t
    jobs = [(name, off, bytes(cubin[off:off + size]), by_kernel[name], not keep_factors.search(name), flags_only,
             (BEAM, COLLISION, by_cycles, by_across))
            for name, off, size in sw.sections(bytes(cubin)) if pattern.search(name)]
    with multiprocessing.Pool(min(len(jobs), os.cpu_count() or 1) or 1) as pool:
        results = pool.map(one_kernel, jobs)
    rewritten = 0
    for off, code, line in results:
        if code is not None:
            cubin[off:off + len(code)] = code
            rewritten += 1
        if line:
            print(line)
    print(f'{rewritten} of {len(jobs)} kernels rewritten')
    open(args[1], 'wb').write(cubin)


if __name__ == '__main__':
    main()
