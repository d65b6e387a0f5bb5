#!/usr/bin/env python3
"""Read and rewrite the 128-bit instruction words of an sm_90 cubin (stdlib only, no GPU).

For a later pass that reorders FFMAs and sets their operand-reuse flags. The layout below was found
on sm_90 code from nvcc 13.0 by comparing words with nvdisasm 13.5's text and by flipping single bits
of a word and disassembling it (nvdisasm -b SM90 on a raw 16-byte file):

  bits   0..11  opcode, with the operand form in bits 9..11 (FFMA: see FFMA_FORMS)
  bits  12..15  guard predicate: 12..14 the index (7 = PT), 15 negates; 0x7 = no guard
  bits  16..23  Rd;  24..31 Ra;  32..63 B (register in 32..39, or an immediate or c[bank][offset]);
  bits  64..71  the third register: C in forms whose B is not a register, B in forms whose C is not
  bit       91  set in the forms with a uniform register (UR) operand
  bits 105..108 stall cycles; 109 yield bit; 110..112 write scoreboard (7 = none);
  bits 113..115 read scoreboard (7 = none); 116..121 wait mask (bit i: wait on scoreboard i);
  bits 122..125 reuse flags: 122 first source, 123 second, 124 third (by the position in the text,
                not by the field the register sits in); 125 no visible effect on FFMA
nvdisasm prints no control fields; those were checked on the project's SGEMM cubin: a result waited on
(write scoreboard s) is first read after an instruction whose wait mask has bit s, and an FFMA's
result is first read at least 4 stall cycles later, as the FFMA latency requires.

nvdisasm reads an FFMA's bits 105..109 and 122..124 as one field. With the yield bit 1 the stall must
be 1..11 and bits 122..124 are the reuse flags (one on a source that is not a register is rejected).
With the yield bit 0 any stall 0..15 passes, but bits 122..124 are not reuse flags: nvdisasm shows no
.reuse, accepts 1..5 (meaning unknown; not with stall 0) and rejects 6 and 7. Compiled code never sets
them then. ffma_control_problem() encodes these rules, stricter in refusing any reuse bits with yield
0, and encode() refuses an FFMA word that breaks them. The meaning of the yield bit's two values
(which one lets the scheduler switch warps) is not something the disassembler shows.

Usage as a self-check: tools/sass_words.py CUBIN [CUBIN...]  (nvdisasm on PATH). It compares every
FFMA's registers, guard and reuse flags with nvdisasm's text and checks encode(decode(w)) == w.
"""
import re
import struct
import subprocess
import sys

CONTROL = {  # name: (first bit, width)
    'stall': (105, 4), 'yield': (109, 1), 'wbar': (110, 3), 'rbar': (113, 3),
    'wait': (116, 6), 'reuse': (122, 4)}

# FFMA opcode (bits 0..11) -> what the first, second and third source are
FFMA_FORMS = {
    0x223: ('R', 'R', 'R'), 0x423: ('R', 'R', 'imm'), 0x623: ('R', 'R', 'c'),
    0x823: ('R', 'imm', 'R'), 0xa23: ('R', 'c', 'R'), 0xc23: ('R', 'UR', 'R'),
    0xe23: ('R', 'R', 'UR')}


def sections(cubin):
    """[(kernel name, file offset, size)] of each .text.<name> section of an ELF64 cubin."""
    assert cubin[:4] == b'\x7fELF' and cubin[4] == 2, 'not an ELF64 file'
    shoff, = struct.unpack_from('<Q', cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', cubin, 0x3a)
    heads = [struct.unpack_from('<IIQQQQ', cubin, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx][4]
    out = []
    for name_off, _type, _flags, _addr, off, size in heads:
        name = cubin[names + name_off:cubin.index(b'\0', names + name_off)].decode()
        if name.startswith('.text.'):
            out.append((name[6:], off, size))
    return out


def _bits(w, lo, n):
    return (w >> lo) & ((1 << n) - 1)


def decode(word):
    """Fields of one 16-byte instruction word, as a dict (also holding the word itself as 'word').
    For an FFMA also rd, ra, rb, rc and 'kinds' (the three sources: 'R', 'UR', 'imm' or 'c'); a source
    that is not a register has None; 255 is RZ (63 is URZ for a UR)."""
    w = int.from_bytes(word, 'little')
    d = {'word': bytes(word), 'opcode': w & 0xfff, 'pred': _bits(w, 12, 4)}
    d.update({k: _bits(w, lo, n) for k, (lo, n) in CONTROL.items()})
    kinds = FFMA_FORMS.get(d['opcode'])
    d['ffma'] = kinds is not None
    if kinds:
        b_field = _bits(w, 32, 8)      # register B, or a UR, in forms with B in 32..39
        r3_field = _bits(w, 64, 8)     # the register in 64..71
        if kinds[2] == 'R':
            rb = b_field if kinds[1] in ('R', 'UR') else None
            rc = r3_field
        else:                          # C is imm / c[][] / UR: B's register moves to 64..71
            rb = r3_field
            rc = b_field if kinds[2] == 'UR' else None
        d.update(kinds=kinds, rd=_bits(w, 16, 8), ra=_bits(w, 24, 8), rb=rb, rc=rc)
    return d


def ffma_control_problem(kinds, c):
    """Why nvdisasm would reject these control fields on an FFMA of these source kinds, or None."""
    if c['yield'] and not 1 <= c['stall'] <= 11:
        return 'yield=1 needs stall 1..11'
    if c['reuse'] & 7:
        if not c['yield']:
            return 'bits 122..124 are not reuse flags when yield=0'
        for slot, kind in enumerate(kinds):
            if c['reuse'] >> slot & 1 and kind != 'R':
                return 'reuse flag on a source that is not a register'
    return None


def encode(word, check=True, **fields):
    """16 bytes: word (bytes, or a dict from decode(), whose control fields are taken) with the given
    control fields (stall, yield, wbar, rbar, wait, reuse; pass yield as **{'yield': 1}) replaced and
    every other bit kept. With check, an FFMA that nvdisasm would reject raises ValueError."""
    if isinstance(word, dict):
        fields = {**{k: word[k] for k in CONTROL}, **fields}
        word = word['word']
    w = int.from_bytes(word, 'little')
    for k, v in fields.items():
        lo, n = CONTROL[k]
        if not 0 <= v < 1 << n:
            raise ValueError(f'{k}={v} does not fit {n} bits')
        w = (w & ~(((1 << n) - 1) << lo)) | (v << lo)
    out = w.to_bytes(16, 'little')
    d = decode(out)
    if check and d['ffma']:
        problem = ffma_control_problem(d['kinds'], d)
        if problem:
            raise ValueError(problem)
    return out


def words(cubin):
    """(kernel, address, 16-byte word) of every instruction of every kernel."""
    for name, off, size in sections(cubin):
        for a in range(0, size, 16):
            yield name, a, cubin[off + a:off + a + 16]


def _text(path):
    """{(kernel, address): instruction text} from nvdisasm."""
    out, kernel = {}, None
    run = subprocess.run(['nvdisasm', '-c', path], capture_output=True, text=True, check=True)
    for line in run.stdout.splitlines():
        m = re.match(r'\s*\.section\s+\.text\.([^,\s]+)', line)
        if m:
            kernel = m.group(1)
            continue
        m = re.match(r'\s*/\*([0-9a-f]+)\*/\s*(.*?)\s*;', line)
        if m:
            out[kernel, int(m.group(1), 16)] = m.group(2)
    return out


def _from_text(text):
    """(pred, rd, [(kind, number, reuse)] * 3) of an FFMA's text, in decode()'s terms."""
    m = re.match(r'(?:@(!?)P(T|\d)\s+)?FFMA\S*\s+(.*)$', text)
    pred = 7 if m.group(2) is None else (7 if m.group(2) == 'T' else int(m.group(2))) | (8 if m.group(1) else 0)
    ops = [o.strip() for o in m.group(3).split(',')]
    srcs = []
    for o in ops[1:]:
        reuse = o.endswith('.reuse')
        core = o[:-6] if reuse else o
        core = core.strip('-|')
        r = re.fullmatch(r'(U?)R(Z|\d+)', core)
        if r:
            num = (63 if r.group(1) else 255) if r.group(2) == 'Z' else int(r.group(2))
            srcs.append(('UR' if r.group(1) else 'R', num, reuse))
        else:
            srcs.append(('c' if core.startswith('c[') else 'imm', None, reuse))
    rd = 255 if ops[0] == 'RZ' else int(ops[0][1:])
    return pred, rd, srcs


def self_check(path):
    cubin = open(path, 'rb').read()
    text = _text(path)
    n = ffma = bad = bad_rt = bad_ctl = 0
    opcodes = {}
    for kernel, addr, w in words(cubin):
        n += 1
        d = decode(w)
        if encode(d, check=False) != w or encode(w, False, **{k: d[k] for k in CONTROL}) != w:
            bad_rt += 1
        t = text.get((kernel, addr), '')
        if not d['ffma']:
            if re.match(r'(@!?P\S+\s+)?FFMA\b', t):
                print('FFMA in the text, not decoded as one:', kernel, hex(addr), t)
                bad += 1
            continue
        ffma += 1
        opcodes[d['opcode']] = opcodes.get(d['opcode'], 0) + 1
        pred, rd, srcs = _from_text(t)
        want = (pred, rd, tuple(s[0] for s in srcs), tuple(s[1] for s in srcs),
                sum(s[2] << i for i, s in enumerate(srcs)))
        got = (d['pred'], d['rd'], d['kinds'], (d['ra'], d['rb'], d['rc']), d['reuse'] & 7)
        if want != got:
            bad += 1
            if bad <= 10:
                print('mismatch', kernel, hex(addr), t, want, got)
        if ffma_control_problem(d['kinds'], d):
            bad_ctl += 1
    print(f'{path}: {len(sections(cubin))} kernels, {n} words, {ffma} FFMAs checked against nvdisasm '
          f'(opcodes {", ".join(f"{k:#x}: {v}" for k, v in sorted(opcodes.items()))}); '
          f'{bad} mismatches; {bad_rt} round-trip failures; {bad_ctl} FFMAs breaking the control rules')
    return bad == 0 and bad_rt == 0 and bad_ctl == 0


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(0 if all([self_check(p) for p in sys.argv[1:]]) else 1)
