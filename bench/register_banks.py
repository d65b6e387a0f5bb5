#!/usr/bin/env python3
"""Writes the register-operand patterns bench/register_banks times: each a copy of the kernel's cubin
with the register fields and reuse flags of its loop's 256 FFMAs rewritten (tools/sass_words.py's
encoding; nothing else in the word changes, every stall stays 1). What each pattern asks:

  ptxas, noflags       the loop as compiled, and with every reuse flag cleared
  aa                   a == b (one register), the sum in the other bank: one read a bank
  ab2, ab4             the two factors in one bank (n % 2), in different / the same n % 4
  ac, bc, ac4          a factor and the sum in one bank
  abc                  all three sources in one bank
  ac_dother, ac_dsame  as ac, the result written to another register of the other / same bank
  ab_dother, ab_dsame  as ab2, likewise (the sum not accumulated in place)
  r_same, r_alt2       slot 0 flagged: always R4 / R4 and R5 in turns (two banks); the uncached
                       factor in R4's bank, the sum in R5's
  r_alt2_noflag        r_alt2 without the flags
  r_alt_even           slot 0 flagged, R4 and R8 in turns (one bank)
  r_b_alt2             r_alt2 in slot 1
  r_c_alt2             the sum flagged, accumulated in place
  war_dD_cC_wW         pairs D FFMAs apart: the first reads factor X, the second (W=1) writes X, the
                       spent factor's register reused for a sum as ptxas does (W=0: writes its sum);
                       C=1: both FFMAs' factors in one bank, C=0: a == b
  altN_M               a FFMA reading N (2: its factors, 3: and its sum) registers of the even bank,
                       then M FFMAs reading none of it (the same factors from the caches, odd sums)

Usage: bench/register_banks.py KERNEL.cubin DIR"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
import sass_words as sw  # noqa: E402

# the compiled loop keeps its factors in R2..R17 and its sums in R18..R33 (checked below)
E0, E2, O1, O3 = [4, 8, 12, 16], [2, 6, 10, 14], [5, 9, 13, 17], [3, 7, 11, 15]
EV, OD = E0 + E2, O1 + O3
SUM_E, SUM_O = list(range(18, 34, 2)), list(range(19, 34, 2))


def at(regs, k):
    return regs[k % len(regs)]


# pattern: FFMA k -> (a, b, c, d, reuse bits)
PATTERNS = {
    'aa': lambda k: (at(EV, k), at(EV, k), at(SUM_O, k), at(SUM_O, k), 0),
    'ab2': lambda k: (at(E0, k), at(E2, k + 1), at(SUM_O, k), at(SUM_O, k), 0),
    'ab4': lambda k: (at(E0, k), at(E0, k + 1), at(SUM_O, k), at(SUM_O, k), 0),
    'ac': lambda k: (at(EV, k), at(OD, k), at(SUM_E, k), at(SUM_E, k), 0),
    'bc': lambda k: (at(OD, k), at(EV, k), at(SUM_E, k), at(SUM_E, k), 0),
    'ac4': lambda k: (at(E0, k), at(OD, k), at([20, 24, 28, 32], k), at([20, 24, 28, 32], k), 0),
    'abc': lambda k: (at(E0, k), at(E2, k), at(SUM_E, k), at(SUM_E, k), 0),
    'ac_dother': lambda k: (at(EV, k), at(OD, k), at(SUM_E, k), at(SUM_O, k), 0),
    'ac_dsame': lambda k: (at(EV, k), at(OD, k), at(SUM_E, k), at(SUM_E, k + 1), 0),
    'ab_dother': lambda k: (at(E0, k), at(E2, k + 1), at(SUM_O, k), at(SUM_E, k), 0),
    'ab_dsame': lambda k: (at(E0, k), at(E2, k + 1), at(SUM_O, k), at(SUM_O, k + 1), 0),
    'r_same': lambda k: (4, at(E2, k), at(SUM_O, k), at(SUM_O, k), 1),
    'r_alt2': lambda k: (4 + k % 2, at(E2, k), at(SUM_O, k), at(SUM_O, k), 1),
    'r_alt2_noflag': lambda k: (4 + k % 2, at(E2, k), at(SUM_O, k), at(SUM_O, k), 0),
    'r_alt_even': lambda k: (4 + 4 * (k % 2), at(E2, k), at(SUM_O, k), at(SUM_O, k), 1),
    'r_b_alt2': lambda k: (at(E2, k), 4 + k % 2, at(SUM_O, k), at(SUM_O, k), 2),
    'r_c_alt2': lambda k: (at(E2, k), at(SUM_O, k), 18 + k % 2, 18 + k % 2, 4),
}


def war(dist, coll, write):
    """a FFMA reads factor X, the one dist later writes X (write) or its own sum"""
    def pattern(k):
        j, pos = k // (2 * dist), k % (2 * dist)
        x = at(E0, j)
        if pos == 0:
            return (x, at(E2, j) if coll else x, at(SUM_O, k), at(SUM_O, k), 0)
        a = at(E2, j + 1)
        b = at(E0, j + 2) if coll else a
        return (a, b, at(SUM_O, k), x if write and pos == dist else at(SUM_O, k), 0)
    return pattern


def alt(n, free):
    """one FFMA reading n registers of the even bank, then `free` reading none of it"""
    def pattern(k):
        j, pos = k // (free + 1), k % (free + 1)
        a, b = at(E0, j), at(E2, j)
        if pos == 0:
            return (a, b, at(SUM_E if n == 3 else SUM_O, k), at(SUM_E if n == 3 else SUM_O, k), 3)
        return (a, b, at(SUM_O, k), at(SUM_O, k), 3 if pos < free else 0)
    return pattern


PATTERNS.update({f'alt{n}_{m}': alt(n, m) for n, m in ((2, 1), (2, 2), (3, 1), (3, 2), (3, 3))})
PATTERNS.update({f'war_d{d}_c{c}_w{w}': war(d, c, w) for d in (1, 2, 4) for c in (0, 1) for w in (0, 1)})


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cubin = open(sys.argv[1], 'rb').read()
    os.makedirs(sys.argv[2], exist_ok=True)
    (_, off, size), = [s for s in sw.sections(cubin) if s[0] == 'banks']
    places = [p for p in range(size // 16) if sw.decode(cubin[off + 16 * p:off + 16 * p + 16])['ffma']]
    loop = places[-256:]
    assert len(places) >= 256 and loop[-1] - loop[0] < 270, 'the loop of 256 FFMAs not found'
    regs = set()
    for p in loop:
        d = sw.decode(cubin[off + 16 * p:off + 16 * p + 16])
        assert d['opcode'] == 0x223 and d['stall'] == 1, 'a FFMA not in the register form, or not at stall 1'
        regs |= {d['ra'], d['rb'], d['rc'], d['rd']}
    assert regs == set(range(2, 34)), f'the compiled loop uses other registers: {sorted(regs)}'
    for name, f in [('ptxas', None), ('noflags', 'clear')] + list(PATTERNS.items()):
        out = bytearray(cubin)
        for k, p in enumerate(loop):
            word = bytes(out[off + 16 * p:off + 16 * p + 16])
            if f is None:
                continue
            reuse = 0
            if f != 'clear':
                a, b, c, d, reuse = f(k)
                w = int.from_bytes(word, 'little')
                for lo, v in ((16, d), (24, a), (32, b), (64, c)):
                    w = (w & ~(0xff << lo)) | (v << lo)
                word = w.to_bytes(16, 'little')
            out[off + 16 * p:off + 16 * p + 16] = sw.encode(word, reuse=reuse)
        open(os.path.join(sys.argv[2], name + '.cubin'), 'wb').write(out)
    print(f'{2 + len(PATTERNS)} patterns written to {sys.argv[2]}')


if __name__ == '__main__':
    main()
