#!/usr/bin/env python3
"""Writes the warp-wide instruction tables (the `>>>` groups of tests/isa/harness.rs):
mma.isa (mma.sync), matrix_move.isa (ldmatrix, stmatrix, movmatrix), warp_ops.isa (shfl.sync,
vote.sync, match.sync, redux.sync, elect.sync, activemask), wmma.isa (wmma.load/mma/store) and
memory.isa (ld/ldu/st, atom, red, cp.async, cp.async.bulk, cp.reduce.async.bulk, mbarrier).

Every value is computed here from the PTX ISA text, independently of ptxjit:
- fragment layouts: the ISA's per-shape formulas giving the row and column of each element a
  lane holds (§9.7.14.5 "Matrix Fragments for mma.m*n*k*"; groupID = %laneid >> 2,
  threadID_in_group = %laneid % 4), transcribed below as a_pos/b_pos/c_pos;
- arithmetic: products exact (fractions.Fraction), the sum from C over k = 0, 1, ... with one
  rounding to nearest even in the accumulator type per step (ieee_ref.py): the order
  docs/isa-notes.md documents for ptxjit, since the ISA leaves the order unspecified; integer
  sums exact, then wrapped to 32 bits or clamped by .satfinite;
- the warp operations: the semantics pseudo-code of §9.7.9 (shfl.sync, vote.sync, match.sync,
  redux.sync, elect.sync, activemask) and §9.7.14.5.15-17 (ldmatrix, stmatrix, movmatrix).
- memory instructions: each one's semantics text over random memory images, with several lanes
  on one word only where the ISA makes the result independent of their order.

Run from this directory: python3 gen_warp.py (no numpy needed). Seeded, so the output is stable.
"""
import random
from fractions import Fraction as F

from ieee_ref import decode, encode

R = random.Random()  # seeded per table (gen_*)
M32 = 0xFFFFFFFF


def hx(v, w=8):
    return "0x%0*x" % (w, v)


# ---------------------------------------------------------------- table writing


def where(off):
    """An image offset: an int, or 'SPACE OFF' text for groups with two images."""
    return f"{off:#x}" if isinstance(off, int) else off


def image_order(off):
    """Sort key of image offsets: ints by value; 'SPACE OFF' by space, then offset."""
    if isinstance(off, int):
        return ("", off)
    parts = off.split()
    return ("", int(parts[0], 0)) if len(parts) == 1 else (parts[0], int(parts[1], 0))


def word(w):
    return w if w == "*" else hx(w)


class Group:
    """One `>>>` group: its header and cases. A case is (comment, lanes, init, expect): lanes
    maps a lane to (input strings, output strings); init/expect map a byte offset to a list of
    32-bit words."""

    def __init__(self, comment, header, target=None):
        self.comment = comment
        self.header = header
        self.cases = []
        self.target = target  # a `.target` line before the header (it holds for later groups)
        self.version = None  # a `.version` line before the header (it holds too)

    def case(self, comment, lanes, init=None, expect=None):
        self.cases.append((comment, lanes, init or {}, expect or {}))

    def text(self):
        out = "".join(f"# {c}\n" for c in self.comment.strip().split("\n")) if self.comment else ""
        out += f".version {self.version}\n" if self.version else ""
        out += f".target {self.target}\n" if self.target else ""
        out += f">>> {self.header}\n"
        for comment, lanes, init, expect in self.cases:
            out += f"case {comment}\n" if comment else "case\n"
            for off in sorted(init, key=image_order):
                out += f"init {where(off)}: " + " ".join(word(w) for w in init[off]) + "\n"
            for lane in sorted(lanes):
                ins, outs = lanes[lane]
                out += f"{lane}: {' '.join(ins)} -> {' '.join(outs)}\n"
            for off in sorted(expect, key=image_order):
                out += f"expect {where(off)}: " + " ".join(word(w) for w in expect[off]) + "\n"
        return out


def write(name, head, groups, version=None, target=None):
    text = "".join(f"# {l}\n" if l else "#\n" for l in head.strip().split("\n"))
    text += "# Written by gen_warp.py; do not edit by hand.\n\n"
    if version:
        text += f".version {version}\n"
    if target:
        text += f".target {target}\n"
    text += "\n".join(g.text() for g in groups)
    with open(name, "w") as f:
        f.write(text)


# ---------------------------------------------------------------- element types

def f32s(bits):
    v = decode(bits, "f32")
    return repr(float(v)) if not isinstance(v, str) else ("-0.0" if v == "-0" else v)


# 8-bit floats (PTX ISA §5.2.5.1): e4m3 (bias 7, 3 mantissa bits), e5m2 (bias 15, 2 bits);
# only normal values with small exponents are drawn (no NaN, no infinity).
FP8 = {"e4m3": (7, 3), "e5m2": (15, 2)}


# The 6- and 4-bit floats of mma .kind::f8f6f4 (PTX ISA §5.2.5.1: e2m3 bias 1, 3 mantissa
# bits; e3m2 bias 3, 2 bits; e2m1 bias 1, 1 bit; no infinity or NaN, subnormals at exponent
# field 0), each in an 8-bit container (§9.7.14.5.14): a 6-bit one at bits 0-5, e2m1 at bits
# 2-5 (docs/isa-notes.md), the other bits zero.
NARROW = {"e2m3": (1, 3, 6, 0), "e3m2": (3, 2, 6, 0), "e2m1": (1, 1, 4, 2)}


def narrow_value(fmt, byte):
    bias, mb, w, shift = NARROW[fmt]
    code = (byte >> shift) & ((1 << w) - 1)
    e, m = (code >> mb) & ((1 << (w - 1 - mb)) - 1), code & ((1 << mb) - 1)
    if e == 0:
        v = F(m, 1 << mb) * F(2) ** (1 - bias)
    else:
        v = F((1 << mb) + m, 1 << mb) * F(2) ** (e - bias)
    return -v if code >> (w - 1) else v


def rand_float(fmt, emin=-3, emax=3):
    """A nonzero value of `fmt` with a random mantissa: bits (for the 6- and 4-bit formats any
    encoding, zeros and subnormals included, in its 8-bit container)."""
    if fmt in NARROW:
        _, _, w, shift = NARROW[fmt]
        return R.randrange(1 << w) << shift
    if fmt in FP8:
        bias, mb = FP8[fmt]
        e = R.randint(emin, emax) + bias
        return R.randrange(2) << 7 | e << mb | R.randrange(1 << mb)
    p = {"f16": 11, "bf16": 8, "tf32": 11, "f32": 24, "f64": 53}[fmt]
    e = R.randint(emin, emax)
    m = R.randrange(1 << (p - 1), 1 << p)
    v = F(m, 1 << (p - 1)) * F(2) ** e * R.choice([1, -1])
    if fmt == "tf32":
        return encode(v, "f32")  # 11 significant bits: the low 13 bits are zero
    return encode(v, fmt)


def value(fmt, bits):
    if fmt in NARROW:
        return narrow_value(fmt, bits)
    if fmt in FP8:
        bias, mb = FP8[fmt]
        e, m = (bits >> mb) & ((1 << (7 - mb)) - 1), bits & ((1 << mb) - 1)
        assert 0 < e < (1 << (7 - mb)) - 1, (fmt, bits)
        v = F((1 << mb) + m, 1 << mb) * F(2) ** (e - bias)
        return -v if bits >> 7 else v
    v = decode(bits, "f32" if fmt == "tf32" else fmt)
    assert not isinstance(v, str), (fmt, bits)
    return F(v)


WIDTH = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4,
         "u4": 4, "b1": 1, "s32": 32, "e4m3": 8, "e5m2": 8, "e2m3": 8, "e3m2": 8, "e2m1": 8}


def rand_int(ty):
    w = WIDTH[ty]
    if ty.startswith("s"):
        return R.randrange(-(1 << (w - 1)), 1 << (w - 1))
    return R.randrange(0, 1 << w)


# ---------------------------------------------------------------- mma fragment layouts
# PTX ISA §9.7.14.5: (row, col) of element i of a lane's A, B and C/D fragments.

def a_pos(shape, ty, lane, i):
    g, t = lane >> 2, lane % 4
    if ty == "f64" and shape in ("m16n8k4", "m16n8k8", "m16n8k16"):
        return g + 8 * (i % 2), t + 4 * (i // 2)
    if shape == "m16n8k64" and ty in ("s4", "u4"):
        return g + 8 * ((i // 8) % 2), t * 8 + (i & 7) + 32 * (i >= 16)
    if shape == "m16n8k128" and ty == "b1":
        return g + 8 * (i >= 32), t * 32 + (i & 31)
    if shape == "m16n8k256" and ty == "b1":
        return g + 8 * ((i // 32) % 2), t * 32 + (i & 31) + 128 * (i >= 64)
    if shape == "m16n8k32" and ty in ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1"):
        return a_pos(shape, "s8", lane, i)
    if shape == "m16n8k8" and ty in ("f16", "bf16"):
        return g + 8 * (i >= 2), t * 2 + (i & 1)
    if shape == "m16n8k16" and ty in ("f16", "bf16"):
        return g + 8 * (i in (2, 3, 6, 7)), t * 2 + (i & 1) + 8 * (i >= 4)
    if shape == "m16n8k4" and ty == "tf32":
        return g + 8 * i, t
    if shape == "m16n8k8" and ty == "tf32":
        return g + 8 * (i % 2), t + 4 * (i >= 2)
    if shape == "m16n8k16" and ty in ("s8", "u8"):
        return g + 8 * (i >= 4), t * 4 + (i & 3)
    if shape == "m16n8k32" and ty in ("s8", "u8"):
        return g + 8 * (i in (4, 5, 6, 7, 12, 13, 14, 15)), t * 4 + (i & 3) + 16 * (i >= 8)
    if shape == "m16n8k32" and ty in ("s4", "u4"):
        return g + 8 * (i >= 8), t * 8 + (i & 7)
    if shape == "m8n8k16":
        return g, t * 4 + i
    if shape == "m8n8k32":
        return g, t * 8 + i
    if shape == "m8n8k128":
        return g, t * 32 + i
    if shape == "m8n8k4" and ty == "f64":
        return g, t
    raise ValueError((shape, ty))


def b_pos(shape, ty, lane, i):
    g, t = lane >> 2, lane % 4
    if ty == "f64" and shape in ("m16n8k4", "m16n8k8", "m16n8k16"):
        return t + 4 * i, g
    if shape == "m16n8k64" and ty in ("s4", "u4"):
        return t * 8 + (i & 7) + 32 * (i >= 8), g
    if shape == "m16n8k128" and ty == "b1":
        return t * 32 + i, g
    if shape == "m16n8k128" and ty in ("s4", "u4"):  # mma.sp's dense B (.e2m1 packed too)
        return t * 8 + (i & 7) + 32 * (i >> 3), g
    if shape == "m16n8k256" and ty == "b1":
        return t * 32 + (i & 31) + 128 * (i >= 32), g
    if shape == "m16n8k32" and ty in ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1"):
        return b_pos(shape, "s8", lane, i)
    if shape == "m16n8k8" and ty in ("f16", "bf16"):
        return t * 2 + i, g
    if shape == "m16n8k16" and ty in ("f16", "bf16"):
        return t * 2 + (i & 1) + 8 * (i >= 2), g
    if shape == "m16n8k32" and ty in ("f16", "bf16"):  # mma.sp's dense B
        return t * 2 + (i & 1) + 8 * (i >> 1), g
    if shape == "m16n8k4" and ty == "tf32":
        return t, g
    if shape in ("m16n8k8", "m16n8k16") and ty == "tf32":  # k16: mma.sp's dense B
        return t + 4 * i, g
    if shape == "m16n8k64" and ty in ("s8", "u8", "e4m3", "e5m2"):  # mma.sp's dense B
        return t * 4 + (i & 3) + 16 * (i >> 2), g
    if shape == "m16n8k16" and ty in ("s8", "u8"):
        return t * 4 + i, g
    if shape == "m16n8k32" and ty in ("s8", "u8"):
        return t * 4 + (i & 3) + 16 * (i >= 4), g
    if shape == "m16n8k32" and ty in ("s4", "u4"):
        return t * 8 + i, g
    if shape == "m8n8k16":
        return t * 4 + i, g
    if shape == "m8n8k32":
        return t * 8 + i, g
    if shape == "m8n8k128":
        return t * 32 + i, g
    if shape == "m8n8k4" and ty == "f64":
        return t, g
    raise ValueError((shape, ty))


def c_pos(shape, lane, i):
    g, t = lane >> 2, lane % 4
    if shape.startswith("m16n8"):
        return g + 8 * (i >= 2), t * 2 + (i & 1)
    return g, t * 2 + i  # m8n8k16, m8n8k32, m8n8k128, m8n8k4 .f64


def dims(shape):
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def count(rows, cols):
    return rows * cols // 32


# ---------------------------------------------------------------- mma arithmetic

def mma_float(A, B, C, acc):
    """D = C + A·B: products exact, one rounding to `acc` per k step in increasing k."""
    m, k, n = len(A), len(B), len(B[0])
    D = [[0] * n for _ in range(m)]
    for i in range(m):
        for j in range(n):
            d = value(acc, C[i][j])
            for kk in range(k):
                bits = encode(d + A[i][kk] * B[kk][j], acc)
                d = value(acc, bits)
            D[i][j] = bits
    return D


def mma_int(A, B, C, sat, op=None):
    m, k, n = len(A), len(B), len(B[0])
    D = [[0] * n for _ in range(m)]
    for i in range(m):
        for j in range(n):
            if op is None:
                s = C[i][j] + sum(A[i][kk] * B[kk][j] for kk in range(k))
            else:
                s = C[i][j] + sum((A[i][kk] & B[kk][j]) if op == "and" else (A[i][kk] ^ B[kk][j])
                                  for kk in range(k))
            if sat:
                s = max(-(1 << 31), min((1 << 31) - 1, s))
            D[i][j] = s & M32
    return D


def pack(vals, width):
    """Elements (raw bits or small ints) packed from the least significant end."""
    w = 0
    for k, v in enumerate(vals):
        w |= (v & ((1 << width) - 1)) << (k * width)
    return w


def fmt_reg(kind, bits):
    """A register's table text: kind f16x2/bf16x2 (two halves, decimal), f32, f64, s32, b32."""
    if kind in ("f16x2", "bf16x2"):
        one = kind[:-2]
        return ",".join(repr(float(value(one, (bits >> s) & 0xFFFF))) for s in (0, 16))
    if kind == "f32":
        return f32s(bits)
    if kind == "f64":
        v = decode(bits, "f64")
        return repr(float(v))
    if kind == "s32":
        return str(bits - (1 << 32) if bits >> 31 else bits)
    return hx(bits)


def regs_of(pos, lane, n_elems, mat, width):
    """A lane's registers of a fragment: the elements at pos(lane, i), packed by `width`."""
    per = max(1, 32 // width)
    elems = [mat[r][c] for r, c in (pos(lane, i) for i in range(n_elems))]
    return [pack(elems[k:k + per], width) for k in range(0, n_elems, per)]


def reg_kind(ty):
    """The table type of a register holding elements of `ty`."""
    return {"f16": "f16x2", "bf16": "bf16x2", "tf32": "b32", "f32": "f32", "f64": "f64",
            "s32": "s32"}.get(ty, "b32")


def names(p, n):
    return [f"{p}{k}" for k in range(n)]


def mma_group(shape, layout, dt, at, bt, ct, cases=2, sat=False, op=None, special=None,
              kind=None):
    """One mma.sync form: random A, B, C per case, D by the ISA's arithmetic, fragments by
    the layout formulas."""
    m, n, k = dims(shape)
    wa, wb = WIDTH[at], WIDTH[bt]
    na, nb, nc = count(m, k), count(k, n), count(m, n)
    acc_w = 16 if ct == "f16" else WIDTH[ct]
    ra, rb = -(-na * wa // 32) if wa < 64 else na, -(-nb * wb // 32) if wb < 64 else nb
    rc = nc * acc_w // 32 if acc_w < 64 else nc
    rd = rc
    kind_a, kind_b, kind_c, kind_d = map(reg_kind, (at, bt, ct, dt))
    sig_t = {k: k for k in ("f16x2", "bf16x2", "f32", "f64", "s32", "b32")}
    D, A_, B_, C_ = names("d", rd), names("a", ra), names("b", rb), names("c", rc)
    words = ["mma.sync.aligned", shape, layout] + ([kind] if kind else [])
    if sat:
        words.append("satfinite")
    words += [dt, at, bt, ct]
    opname = ".".join(words)
    if op:
        opname += f".{op}.popc"
    ptx = (f"{opname} {{{','.join(D)}}}, {{{','.join(A_)}}}, {{{','.join(B_)}}}, "
           f"{{{','.join(C_)}}}")
    sig = (" ".join(f"{x}:{sig_t[kind_d]}" for x in D) + " <- " +
           " ".join(f"{x}:{sig_t[kind_a]}" for x in A_) + " " +
           " ".join(f"{x}:{sig_t[kind_b]}" for x in B_) + " " +
           " ".join(f"{x}:{sig_t[kind_c]}" for x in C_))
    g = Group(None, f"{ptx} :: {sig}")
    for case in range(cases):
        if at in ("f16", "bf16", "tf32", "f64", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1"):
            Ab = [[rand_float(at) for _ in range(k)] for _ in range(m)]
            Bb = [[rand_float(bt) for _ in range(n)] for _ in range(k)]
            Cb = [[rand_float(ct, -1, 4) for _ in range(n)] for _ in range(m)]
            A = [[value(at, x) for x in r] for r in Ab]
            B = [[value(bt, x) for x in r] for r in Bb]
            if dt != ct:
                Cb = [[encode(value(ct, x), dt) for x in r] for r in Cb]
            Db = mma_float(A, B, Cb, dt)
            comment = "random inputs"
        else:
            if special == "overflow" and case == 0:
                # Every product at the positive extreme, C near the top: the sum leaves s32.
                Ai = [[127 if at == "s8" else 255] * k for _ in range(m)]
                Bi = [[127 if bt == "s8" else 255] * n for _ in range(k)]
                Ci = [[(1 << 31) - 1 - R.randrange(1000)] * n for _ in range(m)]
                comment = "sums past 2^31 - 1" + (" clamp" if sat else " wrap")
            elif special == "overflow" and case == 1:
                Ai = [[-128] * k for _ in range(m)]
                Bi = [[127] * n for _ in range(k)]
                Ci = [[-(1 << 31) + R.randrange(1000)] * n for _ in range(m)]
                comment = "sums below -2^31" + (" clamp" if sat else " wrap")
            else:
                Ai = [[rand_int(at) for _ in range(k)] for _ in range(m)]
                Bi = [[rand_int(bt) for _ in range(n)] for _ in range(k)]
                Ci = [[rand_int("s32") for _ in range(n)] for _ in range(m)]
                comment = "random inputs"
            Db = mma_int(Ai, Bi, Ci, sat, op)
            Ab, Bb, Cb = Ai, Bi, [[x & M32 for x in r] for r in Ci]
        lanes = {}
        for lane in range(32):
            ar = regs_of(lambda l, i: a_pos(shape, at, l, i), lane, na, Ab, wa)
            br = regs_of(lambda l, i: b_pos(shape, bt, l, i), lane, nb, Bb, wb)
            cr = regs_of(lambda l, i: c_pos(shape, l, i), lane, nc, Cb, acc_w)
            dr = regs_of(lambda l, i: c_pos(shape, l, i), lane, nc, Db, acc_w)
            ins = ([fmt_reg(kind_a, x) for x in ar] + [fmt_reg(kind_b, x) for x in br] +
                   [fmt_reg(kind_c, x) for x in cr])
            lanes[lane] = (ins, [fmt_reg(kind_d, x) for x in dr])
        g.case(comment, lanes)
    return g


# m8n8k4 with .f16: four independent 8x8x4 products, one per quad pair (lanes 4q..4q+3 and
# 16+4q..16+4q+3), PTX ISA §9.7.14.5.1. hi: 4 for lanes 16-31.

def qp_a(lane, i, col):
    hi = 4 * (lane >= 16)
    return (i + hi, lane % 4) if col else (lane % 4 + hi, i)


def qp_b(lane, i, row):
    hi = 4 * (lane >= 16)
    return (lane % 4, i + hi) if row else (i, lane % 4 + hi)


def qp_c(lane, i, ty):
    hi = 4 * (lane >= 16)
    t = lane % 4
    if ty == "f16":
        return t + hi, i
    return (t & 1) + (i & 2) + hi, (i & 4) + (t & 2) + (i & 1)


def mma_m8n8k4_group(layout, dt, ct):
    a_col, b_row = layout.startswith(".col"), layout.endswith(".row")
    nc = nd = 8  # an 8x8 D per quad pair of 8 lanes
    rc, rd = (4 if ct == "f16" else 8), (4 if dt == "f16" else 8)
    D, A_, B_, C_ = names("d", rd), names("a", 2), names("b", 2), names("c", rc)
    kd = "f16x2" if dt == "f16" else "f32"
    kc = "f16x2" if ct == "f16" else "f32"
    ptx = (f"mma.sync.aligned.m8n8k4{layout}.{dt}.f16.f16.{ct} {{{','.join(D)}}}, "
           f"{{{','.join(A_)}}}, {{{','.join(B_)}}}, {{{','.join(C_)}}}")
    sig = (" ".join(f"{x}:{kd}" for x in D) + " <- " + " ".join(f"{x}:f16x2" for x in A_ + B_)
           + " " + " ".join(f"{x}:{kc}" for x in C_))
    g = Group(None, f"{ptx} :: {sig}")
    # The C/D layouts for f16 and f32 are different: a lane's fragment covers the same 8x8
    # matrix D either way (quad pair q's).
    per_qp = []
    for q in range(4):
        Ab = [[rand_float("f16") for _ in range(4)] for _ in range(8)]
        Bb = [[rand_float("f16") for _ in range(8)] for _ in range(4)]
        Cb = [[rand_float(ct, -1, 4) for _ in range(8)] for _ in range(8)]
        A = [[value("f16", x) for x in r] for r in Ab]
        B = [[value("f16", x) for x in r] for r in Bb]
        if dt == ct:
            Db = mma_float(A, B, Cb, dt)
        else:
            # D and C of different types: the sum starts from C converted to D's type (exact:
            # f16 C values are f32 values).
            Cd = [[encode(value(ct, x), dt) for x in r] for r in Cb]
            Db = mma_float(A, B, Cd, dt)
        per_qp.append((Ab, Bb, Cb, Db))
    lanes = {}
    for lane in range(32):
        Ab, Bb, Cb, Db = per_qp[(lane % 16) // 4]
        ar = regs_of(lambda l, i: qp_a(l, i, a_col), lane, 4, Ab, 16)
        br = regs_of(lambda l, i: qp_b(l, i, b_row), lane, 4, Bb, 16)
        cr = regs_of(lambda l, i: qp_c(l, i, ct), lane, nc, Cb, 16 if ct == "f16" else 32)
        dr = regs_of(lambda l, i: qp_c(l, i, dt), lane, nd, Db, 16 if dt == "f16" else 32)
        lanes[lane] = ([fmt_reg("f16x2", x) for x in ar + br] + [fmt_reg(kc, x) for x in cr],
                       [fmt_reg(kd, x) for x in dr])
    g.case("one random product per quad pair", lanes)
    return g


def sp_meta_word(meta, gid, t, sel):
    """The mma.sp metadata register of lane 4*gid + t, or None for a lane whose metadata is
    not read (PTX ISA §9.7.14.6.2 figures as docs/isa-notes.md reads them). meta[row][chunk]
    are the 4-bit fields of rows 0..16; T = (chunks per row) / 4 lanes of the group hold them.
    T = 1 or 2: lanes 4g + T*sel + j, lane j holding chunks 4j..4j+3 of row g in bits 0-15 and
    of row g + 8 in bits 16-31. T = 4 (16 chunks a row, selector 0): lane 4g + 2h + r holds
    chunks 8h..8h+7 of row g + 8r (the layout of public sm_90/sm_120 code, marked for a GPU
    check)."""
    T = len(meta[0]) // 4
    if not T * sel <= t < T * (sel + 1):
        return None
    j = t - T * sel
    if T == 4:
        return pack(meta[gid + 8 * (j & 1)][8 * (j >> 1):8 * (j >> 1) + 8], 4)
    return pack(meta[gid][4 * j:4 * j + 4], 4) | pack(meta[gid + 8][4 * j:4 * j + 4], 4) << 16


def mma_sp_group(shape, dt, at, ct, sel):
    """mma.sp with 2:4 sparsity (16- and 8-bit inputs; PTX ISA §9.7.14.6): the dense A has two
    non-zero elements in each chunk of 4 columns; the A operand holds them (chunk order, then
    column order) as a dense A of K/2 columns (its fragment layout, §9.7.14.6.2); each chunk's
    4-bit metadata field holds their two column indices (the first in the low 2 bits). Metadata
    as sp_meta_word places it; the other lanes' metadata is random and must not matter."""
    m, n, k = dims(shape)
    half = f"m16n8k{k // 2}"
    w = WIDTH[at]
    na, nb, nc = m * k // 2 // 32, count(k, n), count(m, n)
    acc_w = 16 if ct == "f16" else WIDTH[ct]
    ra, rb, rc = na * w // 32, nb * w // 32, nc * acc_w // 32
    kind_a, kind_c, kind_d = reg_kind(at), reg_kind(ct), reg_kind(dt)
    D, A_, B_, C_ = names("d", rc), names("a", ra), names("b", rb), names("c", rc)
    ptx = (f"mma.sp.sync.aligned.{shape}.row.col.{dt}.{at}.{at}.{ct} {{{','.join(D)}}}, "
           f"{{{','.join(A_)}}}, {{{','.join(B_)}}}, {{{','.join(C_)}}}, e, {sel}")
    sig = (" ".join(f"{x}:{kind_d}" for x in D) + " <- " +
           " ".join(f"{x}:{kind_a}" for x in A_ + B_) + " " +
           " ".join(f"{x}:{kind_c}" for x in C_) + " e:b32")
    g = Group(None, f"{ptx} :: {sig}")
    # Chunk of columns a 4-bit field describes: 4 (2:4), 2 for .tf32 (1:2), 8 for 4-bit types
    # (two non-zero pairs of 8).
    csize = {"tf32": 2, "s4": 8, "u4": 8}.get(at, 4)
    chunks = k // csize
    T = chunks // 4
    for _ in range(2):
        floats = at in ("f16", "bf16", "tf32", "e4m3", "e5m2")
        rnd = (lambda: rand_float(at)) if floats else (lambda: rand_int(at))
        stored = [[rnd() for _ in range(k // 2)] for _ in range(m)]
        meta = [[0] * chunks for _ in range(m)]
        Ad = [[0] * k for _ in range(m)]
        for i in range(m):
            for c in range(chunks):
                base, half_c = csize * c, csize // 2
                if csize == 2:  # .tf32: 0b0100 keeps column 0, 0b1110 column 1
                    col = R.randrange(2)
                    meta[i][c] = 0b1110 if col else 0b0100
                    Ad[i][base + col] = stored[i][c]
                    continue
                i0, i1 = sorted(R.sample(range(4), 2))
                meta[i][c] = i0 | i1 << 2
                if csize == 4:
                    cols = [base + i0, base + i1]
                else:  # pairs: index p covers columns 2p, 2p + 1 of the chunk
                    cols = [base + 2 * i0, base + 2 * i0 + 1, base + 2 * i1, base + 2 * i1 + 1]
                for x, col in enumerate(cols):
                    Ad[i][col] = stored[i][half_c * c + x]
        if floats:
            Bb = [[rand_float(at) for _ in range(n)] for _ in range(k)]
            Cb = [[rand_float(ct, -1, 4) for _ in range(n)] for _ in range(m)]
            A = [[value(at, x) if x else F(0) for x in r] for r in Ad]
            B = [[value(at, x) for x in r] for r in Bb]
            Db = mma_float(A, B, Cb, ct)
        else:
            Bb = [[rand_int(at) for _ in range(n)] for _ in range(k)]
            Ci = [[rand_int("s32") for _ in range(n)] for _ in range(m)]
            Db = mma_int(Ad, Bb, Ci, False)
            Cb = [[x & M32 for x in r] for r in Ci]
        lanes = {}
        for lane in range(32):
            gid, t = lane >> 2, lane % 4
            ar = regs_of(lambda l, i: a_pos(half, at, l, i), lane, na, stored, w)
            br = regs_of(lambda l, i: b_pos(shape, at, l, i), lane, nb, Bb, w)
            cr = regs_of(lambda l, i: c_pos(shape, l, i), lane, nc, Cb, acc_w)
            dr = regs_of(lambda l, i: c_pos(shape, l, i), lane, nc, Db, acc_w)
            e = sp_meta_word(meta, gid, t, sel)
            if e is None:
                e = R.randrange(1 << 32)
            lanes[lane] = ([fmt_reg(kind_a, x) for x in ar + br] + [fmt_reg(kind_c, x) for x in cr]
                           + [hx(e)], [fmt_reg(kind_d, x) for x in dr])
        g.case(f"random 2:4 sparse A, selector {sel}", lanes)
    return g


# Block scaling (PTX ISA §9.7.14.3 "Block Scaling for mma.sync", §9.7.14.5.14): D = C +
# (A·scale_A)·(B·scale_B), each row of A (column of B) cut along K into `vec` blocks, block j
# scaled by its own factor: .ue8m0 code e is 2^(e - 127), .ue4m3 an e4m3 without sign bit.
# Where the factors sit in scale-a-data / scale-b-data (the ISA's figures; docs/isa-notes.md,
# to be checked on a GPU): row i of A in lane 4*(i % 8) + 2*thread-id-a + i // 8, column j of
# B in lane 4*j + thread-id-b, block b's factor in byte byte-id + b of that lane's register;
# every other lane and byte is random and must not matter. Elements: .kind::mxf8f6f4 in
# 8-bit containers (the .e4m3 layout), .kind::mxf4/::mxf4nvf4 .e2m1 packed eight to a
# register (the .s4 m16n8k64 layout). Scaled elements are exact f32 values; the sum as
# mma_float (one f32 rounding per k).

def ue8m0_value(code):
    return F(2) ** (code - 127)


def scale_code(ue4m3):
    if ue4m3:
        return R.randrange(0x18, 0x58)  # 2^-4 .. 2^3.9, normal
    return 127 + R.randint(-6, 6)


def scale_val(code, ue4m3):
    if ue4m3:
        e, m = code >> 3, code & 7
        return F(8 + m, 8) * F(2) ** (e - 7)
    return ue8m0_value(code)


def mma_block_scale_group(kind, at, bt, vec, stype, sel_a, sel_b, sparse=False, regs=False,
                          cases=2):
    """One block-scaled mma (or mma.sp::ordered_metadata) form; sel_a/sel_b are the
    (byte-id, thread-id) pairs, as immediates or (regs) b16 registers."""
    packed = kind != "kind::mxf8f6f4"  # .e2m1 two to a byte, eight to a register
    k = (64 if packed else 32) * (2 if sparse else 1)
    m, n = 16, 8
    shape = f"m16n8k{k}"
    w = 4 if packed else 8
    ue4m3 = stype == "ue4m3"
    kstored = k // 2 if sparse else k
    na, nb, nc = m * kstored // 32, count(k, n), count(m, n)
    ra, rb = na * w // 32, nb * w // 32
    D, A_, B_, C_ = names("d", 4), names("a", ra), names("b", rb), names("c", 4)
    words = ["mma.sp::ordered_metadata" if sparse else "mma", "sync.aligned", shape, "row.col",
             kind, "block_scale", f"scale_vec::{vec}X", "f32", at, bt, "f32", stype]
    if regs:
        sels = "sa, {ba, ta}, sb, {bb, tb}"
    else:
        sels = f"sa, {{{sel_a[0]}, {sel_a[1]}}}, sb, {{{sel_b[0]}, {sel_b[1]}}}"
    ptx = (f"{'.'.join(words)} {{{','.join(D)}}}, {{{','.join(A_)}}}, {{{','.join(B_)}}}, "
           f"{{{','.join(C_)}}}, " + ("e, 0, " if sparse else "") + sels)
    sig = (" ".join(f"{x}:f32" for x in D) + " <- " + " ".join(f"{x}:b32" for x in A_ + B_) +
           " " + " ".join(f"{x}:f32" for x in C_) + (" e:b32" if sparse else "") + " sa:b32" +
           (" ba:b16 ta:b16" if regs else "") + " sb:b32" + (" bb:b16 tb:b16" if regs else ""))
    g = Group(None, f"{ptx} :: {sig}")

    def rnd_elem(fmt):
        if packed:
            return R.randrange(16)  # any .e2m1 code, zeros and subnormals included
        return rand_float(fmt)

    def val(fmt, x):
        return narrow_value("e2m1", x << 2) if packed else value(fmt, x)

    pos_a = (lambda l, i: a_pos(f"m16n8k{kstored}", "s4" if packed else "s8", l, i))
    pos_b = (lambda l, i: b_pos(shape, "s4" if packed else "s8", l, i))
    for _ in range(cases):
        stored = [[rnd_elem(at) for _ in range(kstored)] for _ in range(m)]
        Bb = [[rnd_elem(bt) for _ in range(n)] for _ in range(k)]
        Cb = [[rand_float("f32", -1, 4) for _ in range(n)] for _ in range(m)]
        if sparse:  # ordered indices, as mma_sp_group: 2:4, or 4:8 in pairs for packed .e2m1
            csize = 8 if packed else 4
            chunks = k // csize
            meta = [[0] * chunks for _ in range(m)]
            Av = [[F(0)] * k for _ in range(m)]
            for i in range(m):
                for c in range(chunks):
                    i0, i1 = sorted(R.sample(range(4), 2))
                    meta[i][c] = i0 | i1 << 2
                    if packed:
                        cols = [2 * i0, 2 * i0 + 1, 2 * i1, 2 * i1 + 1]
                    else:
                        cols = [i0, i1]
                    for x, col in enumerate(cols):
                        Av[i][csize * c + col] = val(at, stored[i][csize // 2 * c + x])
        else:
            Av = [[val(at, x) for x in r] for r in stored]
        sfa = [[scale_code(ue4m3) for _ in range(vec)] for _ in range(m)]
        sfb = [[scale_code(ue4m3) for _ in range(vec)] for _ in range(n)]
        blk = k // vec
        A = [[Av[i][kk] * scale_val(sfa[i][kk // blk], ue4m3) for kk in range(k)]
             for i in range(m)]
        B = [[val(bt, Bb[kk][j]) * scale_val(sfb[j][kk // blk], ue4m3) for j in range(n)]
             for kk in range(k)]
        Db = mma_float(A, B, Cb, "f32")
        sa = [R.randrange(1 << 32) for _ in range(32)]
        sb = [R.randrange(1 << 32) for _ in range(32)]
        for i in range(m):
            lane = 4 * (i % 8) + 2 * sel_a[1] + i // 8
            for j in range(vec):
                sh = 8 * (sel_a[0] + j)
                sa[lane] = sa[lane] & ~(0xFF << sh) | sfa[i][j] << sh
        for c in range(n):
            lane = 4 * c + sel_b[1]
            for j in range(vec):
                sh = 8 * (sel_b[0] + j)
                sb[lane] = sb[lane] & ~(0xFF << sh) | sfb[c][j] << sh
        lanes = {}
        for lane in range(32):
            gid, t = lane >> 2, lane % 4
            ar = regs_of(pos_a, lane, na, stored, w)
            br = regs_of(pos_b, lane, nb, Bb, w)
            cr = regs_of(lambda l, i: c_pos(shape, l, i), lane, nc, Cb, 32)
            dr = regs_of(lambda l, i: c_pos(shape, l, i), lane, nc, Db, 32)
            ins = [hx(x) for x in ar + br] + [f32s(x) for x in cr]
            if sparse:
                ins.append(hx(sp_meta_word(meta, gid, t, 0)))
            ins.append(hx(sa[lane]))
            if regs:
                ins += [hx(sel_a[0], 4), hx(sel_a[1], 4)]
            ins.append(hx(sb[lane]))
            if regs:
                ins += [hx(sel_b[0], 4), hx(sel_b[1], 4)]
            lanes[lane] = (ins, [f32s(x) for x in dr])
        g.case("random inputs and scale factors" + (", 2:4 sparse A" if sparse else ""), lanes)
    return g


def mma_sp_f8f6f4_group(dt, at, bt, cases=2):
    """mma.sp::ordered_metadata .kind::f8f6f4 .m16n8k64: as the .e4m3 mma.sp rows (2:4 of
    8-bit containers, stored half in the dense .m16n8k32 A layout, selector 0), the 6- and
    4-bit elements in their containers."""
    m, n, k = 16, 8, 64
    na, nb, nc = m * 32 // 32, count(k, n), count(m, n)
    acc_w = 16 if dt == "f16" else 32
    rc = nc * acc_w // 32
    kind_c = reg_kind(dt)
    D, A_, B_, C_ = names("d", rc), names("a", na // 4), names("b", nb // 4), names("c", rc)
    ptx = (f"mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.{dt}.{at}.{bt}."
           f"{dt} {{{','.join(D)}}}, {{{','.join(A_)}}}, {{{','.join(B_)}}}, {{{','.join(C_)}}}, "
           "e, 0")
    sig = (" ".join(f"{x}:{kind_c}" for x in D) + " <- " + " ".join(f"{x}:b32" for x in A_ + B_)
           + " " + " ".join(f"{x}:{kind_c}" for x in C_) + " e:b32")
    g = Group(None, f"{ptx} :: {sig}")
    for _ in range(cases):
        stored = [[rand_float(at) for _ in range(32)] for _ in range(m)]
        Bb = [[rand_float(bt) for _ in range(n)] for _ in range(k)]
        Cb = [[rand_float(dt, -1, 4) for _ in range(n)] for _ in range(m)]
        meta = [[0] * 16 for _ in range(m)]
        A = [[F(0)] * k for _ in range(m)]
        for i in range(m):
            for c in range(16):
                i0, i1 = sorted(R.sample(range(4), 2))
                meta[i][c] = i0 | i1 << 2
                A[i][4 * c + i0] = value(at, stored[i][2 * c])
                A[i][4 * c + i1] = value(at, stored[i][2 * c + 1])
        B = [[value(bt, x) for x in r] for r in Bb]
        Db = mma_float(A, B, Cb, dt)
        lanes = {}
        for lane in range(32):
            gid, t = lane >> 2, lane % 4
            ar = regs_of(lambda l, i: a_pos("m16n8k32", "s8", l, i), lane, na, stored, 8)
            br = regs_of(lambda l, i: b_pos("m16n8k64", "s8", l, i), lane, nb, Bb, 8)
            cr = regs_of(lambda l, i: c_pos("m16n8k64", l, i), lane, nc, Cb, acc_w)
            dr = regs_of(lambda l, i: c_pos("m16n8k64", l, i), lane, nc, Db, acc_w)
            e = sp_meta_word(meta, gid, t, 0)
            lanes[lane] = ([hx(x) for x in ar + br] + [fmt_reg(kind_c, x) for x in cr] + [hx(e)],
                           [fmt_reg(kind_c, x) for x in dr])
        g.case("random 2:4 sparse A (ordered), selector 0", lanes)
    return g


def gen_mma():
    R.seed("mma")  # each table its own stream: adding rows elsewhere leaves it
    groups = []
    G = mma_group
    forms = [
        ("m16n8k8 .f16 inputs, f32 accumulator", G("m16n8k8", "row.col", "f32", "f16", "f16", "f32")),
        ("m16n8k8 .bf16", G("m16n8k8", "row.col", "f32", "bf16", "bf16", "f32")),
        ("m16n8k8 .tf32 (inputs with zero low 13 bits: the value the ISA defines)",
         G("m16n8k8", "row.col", "f32", "tf32", "tf32", "f32")),
        ("m16n8k4 .tf32", G("m16n8k4", "row.col", "f32", "tf32", "tf32", "f32")),
        ("m16n8k16 .f16, f32 accumulator", G("m16n8k16", "row.col", "f32", "f16", "f16", "f32")),
        ("m16n8k16 .f16 with an f16 accumulator: one fma.rn.f16 rounding per k step",
         G("m16n8k16", "row.col", "f16", "f16", "f16", "f16")),
        ("m16n8k16 .bf16", G("m16n8k16", "row.col", "f32", "bf16", "bf16", "f32")),
        ("m16n8k16 .s8", G("m16n8k16", "row.col", "s32", "s8", "s8", "s32")),
        ("m16n8k16 .u8", G("m16n8k16", "row.col", "s32", "u8", "u8", "s32")),
        ("m16n8k32 .s8", G("m16n8k32", "row.col", "s32", "s8", "s8", "s32")),
        ("m16n8k32 .s8 .satfinite: sums outside s32 clamp",
         G("m16n8k32", "row.col", "s32", "s8", "s8", "s32", sat=True, special="overflow")),
        ("m16n8k32 .u8 without .satfinite: sums outside s32 wrap",
         G("m16n8k32", "row.col", "s32", "u8", "u8", "s32", special="overflow", cases=1)),
        ("m16n8k32 .s4", G("m16n8k32", "row.col", "s32", "s4", "s4", "s32")),
        ("m8n8k16 .s8", G("m8n8k16", "row.col", "s32", "s8", "s8", "s32")),
        ("m8n8k32 .s4", G("m8n8k32", "row.col", "s32", "s4", "s4", "s32")),
        ("m8n8k32 .u4", G("m8n8k32", "row.col", "s32", "u4", "u4", "s32")),
        ("m8n8k4 .f64", G("m8n8k4", "row.col", "f64", "f64", "f64", "f64")),
        ("m8n8k128 .b1 .xor.popc: C + popc(row XOR column)",
         G("m8n8k128", "row.col", "s32", "b1", "b1", "s32", op="xor")),
        ("m8n8k128 .b1 .and.popc: C + popc(row AND column)",
         G("m8n8k128", "row.col", "s32", "b1", "b1", "s32", op="and")),
    ]
    forms += [
        ("m16n8k4 .f64", G("m16n8k4", "row.col", "f64", "f64", "f64", "f64")),
        ("m16n8k8 .f64", G("m16n8k8", "row.col", "f64", "f64", "f64", "f64")),
        ("m16n8k16 .f64", G("m16n8k16", "row.col", "f64", "f64", "f64", "f64")),
        ("m16n8k64 .s4", G("m16n8k64", "row.col", "s32", "s4", "s4", "s32")),
        ("m16n8k64 .u4 x .s4 .satfinite",
         G("m16n8k64", "row.col", "s32", "u4", "s4", "s32", sat=True)),
        ("m16n8k32 .u8 x .s8", G("m16n8k32", "row.col", "s32", "u8", "s8", "s32")),
        ("m16n8k128 .b1 .xor.popc", G("m16n8k128", "row.col", "s32", "b1", "b1", "s32", op="xor")),
        ("m16n8k256 .b1 .and.popc", G("m16n8k256", "row.col", "s32", "b1", "b1", "s32", op="and")),
        ("m16n8k32 .e4m3, f32 accumulator (8-bit float products exact in f32)",
         G("m16n8k32", "row.col", "f32", "e4m3", "e4m3", "f32")),
        ("m16n8k32 .e5m2 x .e4m3, f32 accumulator",
         G("m16n8k32", "row.col", "f32", "e5m2", "e4m3", "f32")),
        ("m16n8k32 .e4m3 x .e5m2 with an f16 accumulator",
         G("m16n8k32", "row.col", "f16", "e4m3", "e5m2", "f16")),
    ]
    for comment, g in forms:
        g.comment = comment
        groups.append(g)
    for comment, g in [
        ("mma.sp m16n8k16 .f16, f32 accumulator, selector 0",
         mma_sp_group("m16n8k16", "f32", "f16", "f32", 0)),
        ("mma.sp m16n8k16 .f16, f32 accumulator, selector 2",
         mma_sp_group("m16n8k16", "f32", "f16", "f32", 2)),
        ("mma.sp m16n8k16 .f16, f16 accumulator, selector 3",
         mma_sp_group("m16n8k16", "f16", "f16", "f16", 3)),
        ("mma.sp m16n8k32 .bf16, selector 1", mma_sp_group("m16n8k32", "f32", "bf16", "f32", 1)),
        ("mma.sp m16n8k32 .s8, selector 0", mma_sp_group("m16n8k32", "s32", "s8", "s32", 0)),
        ("mma.sp m16n8k8 .tf32 (1:2: metadata 0b0100 keeps column 0 of a pair, 0b1110 column 1), "
         "selector 3", mma_sp_group("m16n8k8", "f32", "tf32", "f32", 3)),
        ("mma.sp m16n8k16 .tf32, selector 1", mma_sp_group("m16n8k16", "f32", "tf32", "f32", 1)),
        ("mma.sp m16n8k64 .s4 (two non-zero pairs in each 8 columns), selector 1",
         mma_sp_group("m16n8k64", "s32", "s4", "s32", 1)),
        ("mma.sp m16n8k64 .s8, selector 0", mma_sp_group("m16n8k64", "s32", "s8", "s32", 0)),
        ("mma.sp m16n8k64 .e4m3, selector 0", mma_sp_group("m16n8k64", "f32", "e4m3", "f32", 0)),
    ]:
        g.comment = comment
        groups.append(g)
    for layout, dt, ct in [(".row.col", "f32", "f32"), (".col.row", "f32", "f32"),
                           (".row.row", "f16", "f16"), (".col.col", "f32", "f16")]:
        g = mma_m8n8k4_group(layout, dt, ct)
        g.comment = (f"m8n8k4{layout} .{dt} D, .{ct} C: the quad-pair layouts of §9.7.14.5.1 "
                     "(A and B by their .row/.col, C/D by type)")
        groups.append(g)
    R.seed("mma_f8f6f4")  # after the rows above, which keep their values
    first = True
    for dt, at, bt in [("f32", "e2m1", "e2m1"), ("f32", "e2m3", "e3m2"), ("f32", "e3m2", "e2m1"),
                       ("f16", "e2m1", "e2m3"), ("f32", "e4m3", "e2m1"), ("f16", "e5m2", "e3m2"),
                       ("f32", "e4m3", "e5m2")]:
        g = G("m16n8k32", "row.col", dt, at, bt, dt, kind="kind::f8f6f4")
        g.comment = (f"m16n8k32 .kind::f8f6f4 .{at} x .{bt}, {dt} accumulator: the .e4m3 "
                     "fragment layout, each element in an 8-bit container (6-bit at bits 0-5, "
                     "e2m1 at bits 2-5); every encoding drawn, zeros and subnormals included")
        if first:
            g.target = "sm_120a"
            first = False
        groups.append(g)
    R.seed("mma_block_scale")  # after the rows above, which keep their values
    B = mma_block_scale_group
    for comment, g in [
        (".kind::mxf8f6f4 .e4m3 x .e4m3, .scale_vec::1X .ue8m0, byte-id 0, thread-id 0",
         B("kind::mxf8f6f4", "e4m3", "e4m3", 1, "ue8m0", (0, 0), (0, 0))),
        (".kind::mxf8f6f4 .e2m1 x .e3m2, byte-ids 3 and 1, thread-id-a 1, thread-id-b 3",
         B("kind::mxf8f6f4", "e2m1", "e3m2", 1, "ue8m0", (3, 1), (1, 3))),
        (".kind::mxf8f6f4 .e5m2 x .e2m3, byte-ids 2 and 0, thread-ids 1 and 2, in .b16 registers",
         B("kind::mxf8f6f4", "e5m2", "e2m3", 1, "ue8m0", (2, 1), (0, 2), regs=True)),
        (".kind::mxf4 .e2m1 (packed), .scale_vec::2X .ue8m0 (a factor per 32 columns of K), "
         "byte-ids 2 and 0, thread-ids 0 and 1",
         B("kind::mxf4", "e2m1", "e2m1", 2, "ue8m0", (2, 0), (0, 1))),
        (".kind::mxf4nvf4 .scale_vec::2X .ue8m0, byte-ids 0 and 2, thread-ids 1 and 3",
         B("kind::mxf4nvf4", "e2m1", "e2m1", 2, "ue8m0", (0, 1), (2, 3))),
        (".kind::mxf4nvf4 .scale_vec::4X .ue4m3 (a factor per 16 columns of K), thread-ids 1 "
         "and 2", B("kind::mxf4nvf4", "e2m1", "e2m1", 4, "ue4m3", (0, 1), (0, 2))),
        ("mma.sp::ordered_metadata .kind::mxf8f6f4 .m16n8k64 .e4m3 x .e2m1: one factor per row "
         "of A over all 64 columns of K (.scale_vec::1X)",
         B("kind::mxf8f6f4", "e4m3", "e2m1", 1, "ue8m0", (1, 1), (2, 2), sparse=True)),
    ]:
        g.comment = comment
        groups.append(g)
    for comment, g in [
        ("mma.sp::ordered_metadata .kind::f8f6f4 .m16n8k64 .e2m1 x .e3m2, f32 accumulator",
         mma_sp_f8f6f4_group("f32", "e2m1", "e3m2")),
        ("mma.sp::ordered_metadata .kind::f8f6f4 .m16n8k64 .e4m3 x .e2m3, f16 accumulator",
         mma_sp_f8f6f4_group("f16", "e4m3", "e2m3")),
    ]:
        g.comment = comment
        groups.append(g)
    g = B("kind::mxf4nvf4", "e2m1", "e2m1", 4, "ue8m0", (0, 0), (0, 1))
    g.comment = ".kind::mxf4nvf4 .scale_vec::4X .ue8m0 (PTX ISA 9.1)"
    g.version = "9.1"
    groups.append(g)
    # 4:8-in-pairs sparsity with four metadata lanes per group (16 chunks a row): the 4-bit
    # integer form and the sparse block-scaled .e2m1 forms of the .m16n8k128 shape.
    R.seed("mma_sp_m16n8k128")
    g = mma_sp_group("m16n8k128", "s32", "u4", "s32", 0)
    g.comment = "mma.sp m16n8k128 .u4 (4:8 in pairs), selector 0"
    groups.append(g)
    for comment, g in [
        ("mma.sp::ordered_metadata .kind::mxf4 .m16n8k128 .e2m1 (packed, 4:8 in pairs), "
         ".scale_vec::2X .ue8m0 (a factor per 64 columns of the dense K), byte-ids 2 and 0, "
         "thread-ids 1 and 2", B("kind::mxf4", "e2m1", "e2m1", 2, "ue8m0", (2, 1), (0, 2),
                                 sparse=True)),
        ("mma.sp::ordered_metadata .kind::mxf4nvf4 .m16n8k128 .scale_vec::4X .ue4m3 (a factor "
         "per 32 columns of the dense K), thread-ids 0 and 3",
         B("kind::mxf4nvf4", "e2m1", "e2m1", 4, "ue4m3", (0, 0), (0, 3), sparse=True)),
        ("mma.sp::ordered_metadata .kind::mxf4nvf4 .m16n8k128 .scale_vec::2X .ue8m0, selectors "
         "in .b16 registers", B("kind::mxf4nvf4", "e2m1", "e2m1", 2, "ue8m0", (0, 1), (2, 1),
                                sparse=True, regs=True)),
    ]:
        g.comment = comment
        groups.append(g)
    write("mma.isa", """
mma.sync (PTX ISA §9.7.14.5: "Matrix Fragments for mma.m*n*k*" (the per-shape fragment
layouts), §9.7.14.5.14 "mma"). Inputs are random, seeded; fragments placed by the ISA's layout
formulas (gen_warp.py a_pos/b_pos/c_pos, qp_* for m8n8k4 .f16) and D = A·B + C computed on the
host: products exact; the floating-point sum from C over k = 0, 1, ... with one rounding to
nearest even in the accumulator type per step (docs/isa-notes.md, "Order and precision of the
floating-point sum in mma/wmma.mma": the ISA leaves the order unspecified, this is ptxjit's);
integer sums exact, wrapped to 32 bits, or clamped with .satfinite; .b1: C + popc of the XOR or
AND of a row of A and a column of B. The .kind::f8f6f4 rows (sm_120a) follow the others, then
the block-scaled ones (§9.7.14.3: D = C + (A·scale_A)·(B·scale_B), the scale factors' places
in scale-a-data/scale-b-data as gen_warp.py's mma_block_scale_group and docs/isa-notes.md give
them) and mma.sp::ordered_metadata with .kind::f8f6f4.""",
          groups)


# ---------------------------------------------------------------- warp operations

def shfl_ref(mode, lane, a, b, c, active):
    """§9.7.9.6 shfl.sync: (value or None (undefined source), predicate)."""
    seg = (c >> 8) & 0x1F
    clamp = c & 0x1F
    min_lane = lane & seg
    max_lane = min_lane | (clamp & ~seg & 0x1F)
    if mode == "up":
        j = lane - b
        p = j >= max_lane
    elif mode == "down":
        j = lane + b
        p = j <= max_lane
    elif mode == "bfly":
        j = lane ^ b
        p = j <= max_lane
    else:
        j = min_lane | (b & ~seg & 0x1F)
        p = j <= max_lane
    if not p:
        j = lane
    return (a[j] if j in active else None), p


def mask_lanes(mask):
    return [l for l in range(32) if mask >> l & 1]


def f32_bits(x):
    import struct
    return struct.unpack("<I", struct.pack("<f", x))[0]


def redux_f32_groups(masks):
    """redux.sync.min/max{.abs}{.NaN}.f32 (sm_100a): +0.0 > -0.0; .abs reduces the absolute
    values; with .NaN any NaN input gives the canonical NaN, without it NaN inputs are left out
    (all NaN: the canonical NaN)."""
    groups = []
    first = True
    for op in ("min", "max"):
        for abs_, nan in ((False, False), (True, False), (False, True), (True, True)):
            mods = (".abs" if abs_ else "") + (".NaN" if nan else "")
            g = Group(f"redux.sync.{op}{mods}.f32 over the members",
                      f"redux.sync.{op}{mods}.f32 d, a, m :: d:f32 <- a:b32 m:b32",
                      target="sm_100a" if first else None)
            first = False
            for mask in masks:
                act = mask_lanes(mask)
                for kind in ("plain", "zeros", "nan", "allnan"):
                    a = {}
                    for l in act:
                        if kind == "allnan" or (kind == "nan" and R.random() < 0.15):
                            a[l] = R.choice([0x7FC00000, 0xFFC00001, 0x7F800001 | R.randrange(1 << 22)])
                        elif kind == "zeros" and R.random() < 0.5:
                            a[l] = R.choice([0, 0x80000000])
                        else:
                            a[l] = rand_float("f32", -4, 4)
                    vals = []
                    for v in a.values():
                        if (v >> 23) & 0xFF == 0xFF and v & 0x7FFFFF:
                            vals.append(None)
                        else:
                            vals.append(v & 0x7FFFFFFF if abs_ else v)
                    if any(v is None for v in vals) and (nan or all(v is None for v in vals)):
                        r = 0x7FFFFFFF
                    else:
                        keyed = [(float(value("f32", v)) if v & 0x7FFFFFFF else 0.0,
                                  0 if v >> 31 else 1, v) for v in vals if v is not None]
                        r = (min if op == "min" else max)(keyed)[2]
                    out = "nan" if r == 0x7FFFFFFF else f32s(r)
                    g.case(f"members {mask:#010x}, {kind}",
                           {l: ([hx(a[l]), hx(mask)], [out]) for l in act})
            groups.append(g)
    return groups


def gen_warp_ops():
    R.seed("warp_ops")  # each table its own stream: adding rows elsewhere leaves it
    groups = []
    masks = [M32, 0x0000FFFF, 0xF0F0F0F0, 0x80000001, 0x00000004, 0x5555AAAA]
    for mode, cs in [("up", [0x0, 0x1800, 0x1C00]), ("down", [0x1F, 0x181F, 0x1F03]),
                     ("bfly", [0x1F, 0x181F, 0x0007]), ("idx", [0x1F, 0x181F, 0x1C1F, 0x0F])]:
        for c in cs:
            g = Group(f"shfl.sync.{mode}, c = {c:#x} (clamp {c & 0x1f}, segment mask "
                      f"{(c >> 8) & 0x1f:#x})",
                      f"shfl.sync.{mode}.b32 d|p, a, b, {c:#x}, m :: d:b32 p:pred <- a:b32 b:u32 m:b32")
            for mask in masks[: 3 if c else 6]:
                act = mask_lanes(mask)
                a = [R.randrange(1 << 32) for _ in range(32)]
                bs = [R.randrange(0, 32) for _ in range(32)]
                if R.random() < 0.5:
                    bs = [R.choice([1, 2, 3, 5, 8, 16])] * 32
                lanes = {}
                for l in act:
                    v, p = shfl_ref(mode, l, a, bs[l], c, act)
                    lanes[l] = ([hx(a[l]), str(bs[l]), hx(mask)],
                                [hx(v) if v is not None else "*", "1" if p else "0"])
                g.case(f"member mask {mask:#010x}: lanes outside it do not execute"
                       " (d '*': the source lane is not a member)", lanes)
            groups.append(g)
    # vote.sync
    for mode in ["all", "any", "uni", "ballot"]:
        if mode == "ballot":
            g = Group("vote.sync.ballot: bit l of d is lane l's predicate (members only)",
                      "vote.sync.ballot.b32 d, q, m :: d:b32 <- q:pred m:b32")
        else:
            g = Group(f"vote.sync.{mode} over the members' predicates",
                      f"vote.sync.{mode}.pred d, q, m :: d:pred <- q:pred m:b32")
        for mask in masks:
            act = mask_lanes(mask)
            for pattern in ("random", "all", "none"):
                q = {l: (R.random() < 0.5 if pattern == "random" else pattern == "all")
                     for l in act}
                vals = [q[l] for l in act]
                r = {"all": all(vals), "any": any(vals), "uni": all(vals) or not any(vals),
                     "ballot": sum(1 << l for l in act if q[l])}[mode]
                out = hx(r) if mode == "ballot" else str(int(r))
                g.case(f"members {mask:#010x}, {pattern} predicates",
                       {l: ([str(int(q[l])), hx(mask)], [out]) for l in act})
        groups.append(g)
    g = Group("vote.sync.ballot with a negated source predicate: the ballot of !q",
              "vote.sync.ballot.b32 d, !q, m :: d:b32 <- q:pred m:b32")
    for mask in masks[:3]:
        act = mask_lanes(mask)
        q = {l: R.random() < 0.5 for l in act}
        r = sum(1 << l for l in act if not q[l])
        g.case(f"members {mask:#010x}", {l: ([str(int(q[l])), hx(mask)], [hx(r)]) for l in act})
    groups.append(g)
    # match.sync
    g = Group("match.any.sync: d is the mask of the members whose a equals this lane's",
              "match.any.sync.b32 d, a, m :: d:b32 <- a:b32 m:b32")
    g64 = Group("match.any.sync.b64", "match.any.sync.b64 d, a, m :: d:b32 <- a:b64 m:b32")
    ga = Group("match.all.sync: d = the member mask and p = 1 when every member's a is equal, "
               "else d = 0 and p = 0", "match.all.sync.b32 d|p, a, m :: d:b32 p:pred <- a:b32 m:b32")
    for mask in masks:
        act = mask_lanes(mask)
        for grp, width in ((g, 32), (g64, 64)):
            pool = [R.randrange(1 << width) for _ in range(3)]
            a = {l: R.choice(pool) for l in act}
            grp.case(f"members {mask:#010x}, three distinct values",
                     {l: ([hx(a[l], width // 4), hx(mask)],
                          [hx(sum(1 << j for j in act if a[j] == a[l]))]) for l in act})
        for same in (True, False):
            v = R.randrange(1 << 32)
            a = {l: v for l in act}
            if not same and len(act) > 1:
                a[R.choice(act)] ^= 1 << R.randrange(32)
            eq = len(set(a.values())) == 1
            ga.case(f"members {mask:#010x}, {'equal' if eq else 'one differs'}",
                    {l: ([hx(a[l]), hx(mask)], [hx(mask if eq else 0), str(int(eq))])
                     for l in act})
    groups += [g, g64, ga]
    # redux.sync
    for op, ty in [("add", "u32"), ("add", "s32"), ("min", "u32"), ("min", "s32"), ("max", "u32"),
                   ("max", "s32"), ("and", "b32"), ("or", "b32"), ("xor", "b32")]:
        g = Group(f"redux.sync.{op}.{ty} over the members (add wraps modulo 2^32)",
                  f"redux.sync.{op}.{ty} d, a, m :: d:{ty} <- a:{ty} m:b32")
        for mask in masks:
            act = mask_lanes(mask)
            a = {l: R.randrange(1 << 32) for l in act}
            if R.random() < 0.3:
                a = {l: R.choice([0, 1, 0x7FFFFFFF, 0x80000000, M32]) for l in act}
            sv = {l: (v - (1 << 32) if v >> 31 else v) for l, v in a.items()}
            src = sv if ty == "s32" else a
            r = {"add": sum(a.values()), "min": min(src.values()), "max": max(src.values())}.get(op)
            if op in ("and", "or", "xor"):
                r = M32 if op == "and" else 0
                for v in a.values():
                    r = (r & v) if op == "and" else (r | v) if op == "or" else (r ^ v)
            r &= M32
            g.case(f"members {mask:#010x}", {l: ([hx(a[l]), hx(mask)], [hx(r)]) for l in act})
        groups.append(g)
    groups += redux_f32_groups(masks)
    # elect.sync: the ISA elects one member, deterministically, and does not say which. With one
    # member it is that lane; with more, the rows check what the ISA does say: every lane gets
    # the same d, d is a member, p is set in lane d only (one leader).
    g = Group("elect.sync with one member: that lane is the leader",
              "elect.sync d|p, m :: d:u32 p:pred <- m:b32")
    for lane in (0, 5, 31):
        g.case(f"member {lane}", {lane: ([hx(1 << lane)], [str(lane), "1"])})
    groups.append(g)
    g = Group("elect.sync with several members: ok = d is a member and p == (d == %laneid); "
              "n = the number of leaders (a ballot of p), same = the members all got the same d",
              "elect.sync d|p, m; mov.u32 l, %laneid; setp.eq.u32 q, d, l; "
              "xor.pred q, q, p; not.pred q, q; mov.b32 t, 1; shl.b32 t, t, d; and.b32 t, t, m; "
              "setp.ne.and.u32 ok, t, 0, q; vote.sync.ballot.b32 t, p, m; popc.b32 n, t; "
              "match.all.sync.b32 t|same, d, m"
              " :: ok:pred n:u32 same:pred <- m:b32 ; regs d:u32 p:pred q:pred l:u32 t:b32")
    for mask in masks:
        g.case(f"members {mask:#010x}", {l: ([hx(mask)], ["1", "1", "1"]) for l in mask_lanes(mask)})
    groups.append(g)
    g = Group("activemask: the lanes executing it (those with a row; the others branched around)",
              "activemask.b32 d :: d:b32 <-")
    for mask in masks:
        g.case(f"active {mask:#010x}", {l: ([], [hx(mask)]) for l in mask_lanes(mask)})
    groups.append(g)
    write("warp_ops.isa", """
Warp-wide operations (PTX ISA §9.7.9: shfl.sync, vote.sync, match.sync, redux.sync, elect.sync,
activemask). Values from each instruction's semantics text (shfl.sync's pseudo-code for the
source lane, clamp and segment mask; vote/match/redux over the lanes of membermask), computed in
gen_warp.py with random seeded inputs. Lanes without a row are not in membermask and branch
around the instruction; a shfl.sync result read from a lane that is not a member is undefined
('*'), its predicate is still given.""", groups, target="sm_90")


# ---------------------------------------------------------------- ldmatrix, stmatrix, movmatrix

def frag_of(mat, lane, trans):
    """§9.7.14.5.15: a lane's b32 of an 8x8 b16 matrix: row lane/4, columns 2(lane%4) and
    +1; with .trans the same elements of the transpose."""
    r, c = lane // 4, 2 * (lane % 4)
    if trans:
        return mat[c][r] | mat[c + 1][r] << 16
    return mat[r][c] | mat[r][c + 1] << 16


def gen_matrix_move():
    R.seed("matrix_move")  # each table its own stream: adding rows elsewhere leaves it
    groups = []
    SH = 1024
    variants = [(num, trans, ".shared") for num in (1, 2, 4) for trans in (False, True)]
    variants += [(4, False, ".shared::cta"), (2, True, "")]
    for num, trans, space in variants:
        D = names("d", num)
        tr = ".trans" if trans else ""
        if space:
            ptx = (f"ldmatrix.sync.aligned.m8n8.x{num}{tr}{space}.b16 {{{','.join(D)}}}, [p]"
                   f" :: {' '.join(x + ':b32' for x in D)} <- p:sptr ; shared {SH}")
        else:  # a generic address of the shared image
            ptx = (f"cvt.u64.u32 q, p; cvta.shared.u64 q, q; "
                   f"ldmatrix.sync.aligned.m8n8.x{num}{tr}.b16 {{{','.join(D)}}}, [q]"
                   f" :: {' '.join(x + ':b32' for x in D)} <- p:sptr ; shared {SH} ; "
                   "regs q:u64")
        where = {"": " (generic address)", ".shared::cta": " (.shared::cta)"}.get(space, "")
        g = Group(f"ldmatrix .x{num}{tr}{where}: lanes 8i..8i+7 give the row addresses of "
                  "matrix i", ptx)
        for _ in range(2):
            words = [R.randrange(1 << 32) for _ in range(SH // 4)]
            h16 = lambda off: (words[off // 4] >> (16 * ((off // 2) % 2))) & 0xFFFF
            rows = R.sample(range(SH // 16), 8 * num)  # 16-byte aligned rows
            addr = [16 * r for r in rows]
            mats = [[[h16(addr[8 * m + r] + 2 * c) for c in range(8)] for r in range(8)]
                    for m in range(num)]
            lanes = {}
            for l in range(32):
                p = addr[l] if l < 8 * num else R.randrange(SH // 16) * 16
                lanes[l] = ([hx(p, 1)], [hx(frag_of(mats[m], l, trans)) for m in range(num)])
            g.case("rows at random 16-byte aligned offsets (memory unchanged)", lanes,
                   init={0: words})
        groups.append(g)
    variants = [(num, trans, ".shared") for num in (1, 2, 4) for trans in (False, True)]
    variants += [(2, False, ".shared::cta"), (4, True, "")]
    for num, trans, space in variants:
        S = names("r", num)
        tr = ".trans" if trans else ""
        regs = " ".join(x + ":b32" for x in S)
        if space:
            ptx = (f"stmatrix.sync.aligned.m8n8.x{num}{tr}{space}.b16 [p], {{{','.join(S)}}}"
                   f" :: <- p:sptr {regs} ; shared {SH}")
        else:  # a generic address of the shared image
            ptx = (f"cvt.u64.u32 q, p; cvta.shared.u64 q, q; "
                   f"stmatrix.sync.aligned.m8n8.x{num}{tr}.b16 [q], {{{','.join(S)}}}"
                   f" :: <- p:sptr {regs} ; shared {SH} ; regs q:u64")
        where = {"": " (generic address)", ".shared::cta": " (.shared::cta)"}.get(space, "")
        g = Group(f"stmatrix .x{num}{tr}{where}: lanes 8i..8i+7 give the row addresses of "
                  "matrix i; the rest of the image keeps its bytes", ptx)
        for _ in range(2):
            init = [R.randrange(1 << 32) for _ in range(SH // 4)]
            rows = R.sample(range(SH // 16), 8 * num)
            addr = [16 * r for r in rows]
            mats = [[[R.randrange(1 << 16) for _ in range(8)] for _ in range(8)]
                    for _ in range(num)]
            lanes = {}
            for l in range(32):
                p = addr[l] if l < 8 * num else R.randrange(SH // 16) * 16
                lanes[l] = ([hx(p, 1)] + [hx(frag_of(mats[m], l, trans)) for m in range(num)],
                            [])
            expect = {}
            for m in range(num):
                for r in range(8):
                    row = mats[m][r]
                    expect[addr[8 * m + r]] = [row[2 * w] | row[2 * w + 1] << 16
                                               for w in range(4)]
            g.case("rows at random 16-byte aligned offsets", lanes, init={0: init},
                   expect=expect)
        groups.append(g)
    g = Group("movmatrix .trans: d is the fragment of the transpose of the matrix in a",
              "movmatrix.sync.aligned.m8n8.trans.b16 d, a :: d:b32 <- a:b32")
    for _ in range(3):
        mat = [[R.randrange(1 << 16) for _ in range(8)] for _ in range(8)]
        g.case("random matrix", {l: ([hx(frag_of(mat, l, False))], [hx(frag_of(mat, l, True))])
                                 for l in range(32)})
    groups.append(g)
    groups += matrix_move_b8()
    write("matrix_move.isa", """
Matrix moves (PTX ISA §9.7.14.5.15 ldmatrix, §9.7.14.5.16 stmatrix, §9.7.14.5.17 movmatrix):
each 8x8 matrix of .b16 elements has its rows at the addresses lanes 8i..8i+7 give (matrix i);
lane l's register i holds row l/4, columns 2(l%4) and 2(l%4)+1 of matrix i (lower half first),
with .trans the same positions of the transposed matrix. Values computed in gen_warp.py from a
random seeded shared-memory image; stmatrix rows give the bytes expected afterwards (all other
bytes keep their values). The 8-bit forms of PTX ISA 8.6 (ldmatrix .m16n16/.m8n16 with .b8 and
the packed .b8x16.b6x16_p32/.b8x16.b4x16_p64 rows, stmatrix .m16n8 .b8) follow under sm_100a,
each group's layout in its comment (docs/isa-notes.md).""", groups, target="sm_90")


def unpack_row(row, fmt):
    """§9.7.14.5.15: a 16-byte shared-memory row as its 16 elements: the bytes (.b8), or
    .b8x16.b4x16_p64 / .b8x16.b6x16_p32's sixteen packed 4-/6-bit elements (element j at bits
    w*j of the row, little-endian, then the padding), each in the low bits of its byte."""
    if fmt == "b8":
        return list(row)
    w = {"b8x16.b4x16_p64": 4, "b8x16.b6x16_p32": 6}[fmt]
    v = int.from_bytes(bytes(row), "little")
    return [(v >> (w * j)) & ((1 << w) - 1) for j in range(16)]


def ld_m16n16_trans(mat, lane, h):
    """Register h of a lane for one 16x16 matrix of bytes (rows as the lanes 0..15 address
    them) under ldmatrix .m16n16 .trans: byte v + 2u is (row 4(lane%4) + 2h + v, column
    lane/4 + 8u) (ptxjit's reading of the ISA's figure, docs/isa-notes.md)."""
    a, b = lane % 4, lane // 4
    return sum(mat[4 * a + 2 * h + (k & 1)][b + 8 * (k >> 1)] << (8 * k) for k in range(4))


def st_m16n8_trans(lane, k):
    """stmatrix .m16n8 .trans .b8: byte k = v + 2u of a lane's register goes to (row
    2(lane%4) + v, column lane/4 + 8u) of its 8x16 matrix of bytes."""
    a, b = lane % 4, lane // 4
    return 2 * a + (k & 1), b + 8 * (k >> 1)


def matrix_move_b8():
    """The 8-bit and packed 6-/4-bit forms of ldmatrix and stmatrix (PTX ISA 8.6, sm_100a)."""
    R.seed("matrix_move_b8")
    groups = []
    SH = 1024
    first = True
    variants = [("m16n16", num, fmt, ".shared") for fmt in ("b8", "b8x16.b6x16_p32",
                                                            "b8x16.b4x16_p64")
                for num in (1, 2)]
    variants += [("m8n16", num, fmt, ".shared") for fmt in ("b8x16.b6x16_p32",
                                                           "b8x16.b4x16_p64")
                 for num in (1, 2, 4)]
    variants += [("m16n16", 2, "b8", ""), ("m8n16", 4, "b8x16.b6x16_p32", ".shared::cta")]
    for shape, num, fmt, space in variants:
        tall = shape == "m16n16"
        rows_per = 16 if tall else 8
        nregs = 2 * num if tall else num
        D = names("d", nregs)
        tr = ".trans" if tall else ""
        if space:
            ptx = (f"ldmatrix.sync.aligned.{shape}.x{num}{tr}{space}.{fmt} {{{','.join(D)}}}, [p]"
                   f" :: {' '.join(x + ':b32' for x in D)} <- p:sptr ; shared {SH}")
        else:
            ptx = (f"cvt.u64.u32 q, p; cvta.shared.u64 q, q; "
                   f"ldmatrix.sync.aligned.{shape}.x{num}{tr}.{fmt} {{{','.join(D)}}}, [q]"
                   f" :: {' '.join(x + ':b32' for x in D)} <- p:sptr ; shared {SH} ; "
                   "regs q:u64")
        where = {"": " (generic address)", ".shared::cta": " (.shared::cta)"}.get(space, "")
        if tall:
            what = ("lanes 16i..16i+15 give the row addresses of matrix i; register 2i+h, byte "
                    "v+2u holds (row 4(l%4)+2h+v, column l/4+8u)")
        else:
            what = ("lanes 8i..8i+7 give the row addresses of matrix i; register i holds "
                    "elements 4(l%4)..4(l%4)+3 of row l/4")
        unpack = {"b8": "", "b8x16.b6x16_p32": "; rows of sixteen packed 6-bit elements, each "
                  "unpacked into the low bits of its byte",
                  "b8x16.b4x16_p64": "; rows of sixteen packed 4-bit elements, each unpacked "
                  "into the low bits of its byte"}[fmt]
        g = Group(f"ldmatrix .{shape}.x{num}{tr}.{fmt}{where}: {what}{unpack}", ptx,
                  target="sm_100a" if first else None)
        first = False
        for _ in range(2):
            words = [R.randrange(1 << 32) for _ in range(SH // 4)]
            byte = lambda off: (words[off // 4] >> (8 * (off % 4))) & 0xFF
            rows = R.sample(range(SH // 16), rows_per * num)
            addr = [16 * r for r in rows]
            mats = [[unpack_row([byte(addr[rows_per * m + i] + c) for c in range(16)], fmt)
                     for i in range(rows_per)] for m in range(num)]
            lanes = {}
            for l in range(32):
                p = addr[l] if l < rows_per * num else R.randrange(SH // 16) * 16
                if tall:
                    out = [ld_m16n16_trans(mats[m], l, h) for m in range(num) for h in (0, 1)]
                else:
                    out = [sum(mats[m][l // 4][4 * (l % 4) + e] << (8 * e) for e in range(4))
                           for m in range(num)]
                lanes[l] = ([hx(p, 1)], [hx(v) for v in out])
            g.case("rows at random 16-byte aligned offsets (memory unchanged)", lanes,
                   init={0: words})
        groups.append(g)
    for num, space in [(1, ".shared"), (2, ".shared"), (4, ".shared"), (2, ".shared::cta"),
                       (4, "")]:
        S = names("r", num)
        regs = " ".join(x + ":b32" for x in S)
        if space:
            ptx = (f"stmatrix.sync.aligned.m16n8.x{num}.trans{space}.b8 [p], {{{','.join(S)}}}"
                   f" :: <- p:sptr {regs} ; shared {SH}")
        else:
            ptx = (f"cvt.u64.u32 q, p; cvta.shared.u64 q, q; "
                   f"stmatrix.sync.aligned.m16n8.x{num}.trans.b8 [q], {{{','.join(S)}}}"
                   f" :: <- p:sptr {regs} ; shared {SH} ; regs q:u64")
        where = {"": " (generic address)", ".shared::cta": " (.shared::cta)"}.get(space, "")
        g = Group(f"stmatrix .m16n8.x{num}.trans.b8{where}: lanes 8i..8i+7 give the row "
                  "addresses of matrix i (8 rows of 16 bytes); byte v+2u of register i goes "
                  "to (row 2(l%4)+v, column l/4+8u); the rest of the image keeps its bytes", ptx)
        for _ in range(2):
            init = [R.randrange(1 << 32) for _ in range(SH // 4)]
            rows = R.sample(range(SH // 16), 8 * num)
            addr = [16 * r for r in rows]
            vals = {l: [R.randrange(1 << 32) for _ in range(num)] for l in range(32)}
            mats = [[[None] * 16 for _ in range(8)] for _ in range(num)]
            for l in range(32):
                for m in range(num):
                    for k in range(4):
                        r, c = st_m16n8_trans(l, k)
                        assert mats[m][r][c] is None
                        mats[m][r][c] = (vals[l][m] >> (8 * k)) & 0xFF
            lanes = {}
            for l in range(32):
                p = addr[l] if l < 8 * num else R.randrange(SH // 16) * 16
                lanes[l] = ([hx(p, 1)] + [hx(v) for v in vals[l]], [])
            expect = {}
            for m in range(num):
                for r in range(8):
                    row = mats[m][r]
                    expect[addr[8 * m + r]] = [sum(row[4 * w + i] << (8 * i) for i in range(4))
                                               for w in range(4)]
            g.case("rows at random 16-byte aligned offsets", lanes, init={0: init},
                   expect=expect)
        groups.append(g)
    return groups


# ---------------------------------------------------------------- wmma
# The WMMA fragment layout is implementation-defined (PTX ISA §9.7.14.4.1): only load -> mma ->
# store is defined, so each group loads A, B and C from a global image, multiplies and stores D,
# and the rows check the D bytes in memory (and that nothing else changed).

def to_words(elems, width):
    """Elements of `width` bits packed from the least significant bit of a little-endian byte
    stream, as 32-bit words."""
    acc, nbits = 0, 0
    for k, v in enumerate(elems):
        acc |= (v & ((1 << width) - 1)) << (k * width)
        nbits += width
    nwords = -(-nbits // 32)
    return [(acc >> (32 * w)) & M32 for w in range(nwords)]


def wmma_group(shape, at, ct, layout_a="row", layout_b="col", op=None, frags=None, pad=0):
    """`pad`: elements past each stored line of A (its stride is the line plus `pad`; the padding
    holds random values that must not be read)."""
    m, n, k = dims(shape)
    wa, wc = WIDTH[at], WIDTH[ct]
    ra, rb, rc = frags
    fa = "f64" if at == "f64" else "b32"
    fc = {"f32": "f32", "f16": "b32", "s32": "s32", "f64": "f64"}[ct]
    lda = (k if layout_a == "row" else m) + pad
    ea = ((m if layout_a == "row" else k) * lda * wa) // 8
    eb = (k * n * wa) // 8
    ec = m * n * wc // 8
    offs = [0, ea, ea + eb, ea + eb + ec]
    total = ea + eb + 2 * ec
    ldt = {"f32": "f32", "f16": "f16", "s32": "s32", "f64": "f64"}[ct]
    ld_a = f"wmma.load.a.sync.aligned.{layout_a}.{shape}.global.{at}"
    ld_b = f"wmma.load.b.sync.aligned.{layout_b}.{shape}.global.{at}"
    ld_c = f"wmma.load.c.sync.aligned.row.{shape}.global.{ldt}"
    st_d = f"wmma.store.d.sync.aligned.row.{shape}.global.{ldt}"
    if at == "f16":
        mma = f"wmma.mma.sync.aligned.{layout_a}.{layout_b}.{shape}.{ct}.{ct}"
    elif op:
        mma = f"wmma.mma.{op}.popc.sync.aligned.row.col.{shape}.s32.b1.b1.s32"
    else:
        mma = f"wmma.mma.sync.aligned.{layout_a}.{layout_b}.{shape}.{ct}.{at}.{at}.{ct}"
    A_, B_, C_, D_ = names("fa", ra), names("fb", rb), names("fc", rc), names("fd", rc)
    ldb = k if layout_b == "col" else n
    ptx = (f"{ld_a} {{{','.join(A_)}}}, [pa], {lda}; {ld_b} {{{','.join(B_)}}}, [pb], {ldb}; "
           f"{ld_c} {{{','.join(C_)}}}, [pc], {n}; "
           f"{mma} {{{','.join(D_)}}}, {{{','.join(A_)}}}, {{{','.join(B_)}}}, {{{','.join(C_)}}}; "
           f"{st_d} [pd], {{{','.join(D_)}}}, {n}")
    header = (f"{ptx} :: <- pa:gptr pb:gptr pc:gptr pd:gptr ; global {total} ; "
              f"regs fa[{ra}]:{fa} fb[{rb}]:{fa} fc[{rc}]:{fc} fd[{rc}]:{fc}")
    g = Group(None, header)
    for _ in range(2):
        if at in ("f16", "bf16", "tf32", "f64"):
            Ab = [[rand_float(at) for _ in range(k)] for _ in range(m)]
            Bb = [[rand_float(at) for _ in range(n)] for _ in range(k)]
            Cb = [[rand_float(ct, -1, 4) for _ in range(n)] for _ in range(m)]
            A = [[value(at, x) for x in r] for r in Ab]
            B = [[value(at, x) for x in r] for r in Bb]
            Db = mma_float(A, B, Cb, ct)
        else:
            Ab = [[rand_int(at) for _ in range(k)] for _ in range(m)]
            Bb = [[rand_int(at) for _ in range(n)] for _ in range(k)]
            Ci = [[rand_int("s32") for _ in range(n)] for _ in range(m)]
            Db = mma_int(Ab, Bb, Ci, False, op)
            Cb = [[x & M32 for x in r] for r in Ci]
        junk = [rand_float(at) if at in FP8 or at in ("f16", "bf16", "tf32", "f64")
                else rand_int(at) for _ in range(pad)]
        a_mem = ([x for i in range(m) for x in [Ab[i][kk] for kk in range(k)] + junk]
                 if layout_a == "row" else
                 [x for kk in range(k) for x in [Ab[i][kk] for i in range(m)] + junk])
        b_mem = ([Bb[kk][j] for j in range(n) for kk in range(k)] if layout_b == "col" else
                 [Bb[kk][j] for kk in range(k) for j in range(n)])
        c_mem = [Cb[i][j] for i in range(m) for j in range(n)]
        d_mem = [Db[i][j] for i in range(m) for j in range(n)]
        init = {offs[0]: to_words(a_mem, wa), offs[1]: to_words(b_mem, wa),
                offs[2]: to_words(c_mem, wc)}
        lanes = {l: ([hx(o, 1) for o in offs], []) for l in range(32)}
        g.case(f"random A ({layout_a}), B ({layout_b}), C; D stored row-major", lanes, init=init,
               expect={offs[3]: to_words(d_mem, wc)})
    return g


def gen_wmma():
    R.seed("wmma")  # each table its own stream: adding rows elsewhere leaves it
    forms = [
        ("m16n16k16 .f16, f32 accumulator", wmma_group("m16n16k16", "f16", "f32", frags=(8, 8, 8))),
        ("m16n16k16 .f16, f32 accumulator, A column-major and B row-major in memory",
         wmma_group("m16n16k16", "f16", "f32", "col", "row", frags=(8, 8, 8))),
        ("m16n16k16 .f16 with an f16 accumulator (one fma.rn.f16 rounding per k step)",
         wmma_group("m16n16k16", "f16", "f16", frags=(8, 8, 4))),
        ("m16n16k16 .bf16", wmma_group("m16n16k16", "bf16", "f32", frags=(4, 4, 8))),
        ("m16n16k8 .tf32", wmma_group("m16n16k8", "tf32", "f32", frags=(4, 4, 8))),
        ("m16n16k16 .s8", wmma_group("m16n16k16", "s8", "s32", frags=(2, 2, 8))),
        ("m8n8k4 .f64", wmma_group("m8n8k4", "f64", "f64", frags=(1, 1, 2))),
        ("m16n16k16 .f16, A row-major with a stride of 24 elements (8 of padding per row)",
         wmma_group("m16n16k16", "f16", "f32", frags=(8, 8, 8), pad=8)),
        ("m16n16k16 .s8, A column-major with a stride of 20",
         wmma_group("m16n16k16", "s8", "s32", "col", "col", frags=(2, 2, 8), pad=4)),
        ("m32n8k16 .f16, f32 accumulator", wmma_group("m32n8k16", "f16", "f32", frags=(8, 8, 8))),
        ("m8n32k16 .f16, f16 accumulator", wmma_group("m8n32k16", "f16", "f16", frags=(8, 8, 4))),
        ("m32n8k16 .bf16", wmma_group("m32n8k16", "bf16", "f32", frags=(8, 2, 8))),
        ("m8n32k16 .bf16", wmma_group("m8n32k16", "bf16", "f32", frags=(2, 8, 8))),
        ("m32n8k16 .u8", wmma_group("m32n8k16", "u8", "s32", frags=(4, 1, 8))),
        ("m8n32k16 .s8", wmma_group("m8n32k16", "s8", "s32", frags=(1, 4, 8))),
        ("m8n8k32 .s4", wmma_group("m8n8k32", "s4", "s32", frags=(1, 1, 2))),
        ("m8n8k32 .u4", wmma_group("m8n8k32", "u4", "s32", frags=(1, 1, 2))),
        ("m8n8k128 .b1 .xor.popc", wmma_group("m8n8k128", "b1", "s32", op="xor", frags=(1, 1, 2))),
        ("m8n8k128 .b1 .and.popc", wmma_group("m8n8k128", "b1", "s32", op="and", frags=(1, 1, 2))),
    ]
    groups = []
    for comment, g in forms:
        g.comment = comment
        groups.append(g)
    write("wmma.isa", """
wmma.load / wmma.mma / wmma.store (PTX ISA §9.7.14.4). The fragment layout is
implementation-defined (§9.7.14.4.1), so each group is the defined sequence: load A, B, C from a
global image (A row- or column-major, B column- or row-major, C row-major, strides in elements),
multiply, store D row-major, and the rows give D's bytes (every other byte must keep its value).
D = A·B + C from gen_warp.py: products exact, the floating-point sum from C over k = 0, 1, ...
rounded to nearest even in the accumulator type per step (docs/isa-notes.md: the ISA leaves the
order unspecified, this is ptxjit's); integer sums exact, wrapped to 32 bits; .b1: C + popc of the
XOR or AND of a row of A and a column of B (bits packed from the least significant bit).""",
          groups)


# ---------------------------------------------------------------- memory: atom, red, cp.async,
# cp.async.bulk, cp.reduce.async.bulk, mbarrier


def loads_stores():
    """ld/ldu/ld.global.nc/st of every size at one random aligned place a lane (§9.7.9.8-11):
    little-endian bytes; .s8/.s16 sign-extend into the register, .u8/.u16 zero-extend."""
    groups = []
    for space, ptr in (("global", "gptr"), ("shared", "sptr")):
        for ty, size, reg in [("u8", 1, "u32"), ("s8", 1, "s32"), ("u16", 2, "u32"),
                              ("s16", 2, "s32"), ("b32", 4, "b32"), ("b64", 8, "b64"),
                              ("v2.b32", 8, None), ("v4.b32", 16, None)]:
            vec = ty.startswith("v")
            n = int(ty[1]) if vec else 1
            dst = "{" + ",".join(f"d{k}" for k in range(n)) + "}" if vec else "d"
            outs = " ".join(f"d{k}:b32" for k in range(n)) if vec else f"d:{reg}"
            for op in (["ld", "ldu", "ld.nc"] if space == "global" and ty in ("b32", "v4.b32")
                       else ["ld"]):
                opn = {"ld": f"ld.{space}", "ldu": f"ldu.{space}", "ld.nc": "ld.global.nc"}[op]
                g = Group(f"{opn}.{ty}: one load a lane",
                          f"{opn}.{ty} {dst}, [p] :: {outs} <- p:{ptr} ; {space} 256")
                img = bytes(R.randrange(256) for _ in range(256))
                words = [int.from_bytes(img[i:i + 4], "little") for i in range(0, 256, 4)]
                lanes = {}
                for l in range(32):
                    at = size * R.randrange(256 // size)
                    v = int.from_bytes(img[at:at + size], "little")
                    if vec:
                        vals = [hx(int.from_bytes(img[at + 4 * k:at + 4 * k + 4], "little"))
                                for k in range(n)]
                    else:
                        if ty[0] == "s" and v >> (8 * size - 1):
                            v -= 1 << (8 * size)
                        vals = [hx(v & ((1 << (8 * max(size, 4))) - 1), 2 * max(size, 4))]
                    lanes[l] = ([hx(at, 1)], vals)
                g.case("random image and places", lanes, init={0: words})
                groups.append(g)
        for ty, size in [("b8", 1), ("b16", 2), ("b32", 4), ("b64", 8), ("v2.b32", 8),
                         ("v4.b32", 16)]:
            vec = ty.startswith("v")
            n = int(ty[1]) if vec else 1
            src = "{" + ",".join(f"a{k}" for k in range(n)) + "}" if vec else "a"
            ins = " ".join(f"a{k}:b32" for k in range(n)) if vec else \
                f"a:{'b64' if size == 8 else 'b32'}"
            g = Group(f"st.{space}.{ty}: one store a lane to its own place (the register's low "
                      "bytes for .b8/.b16)",
                      f"st.{space}.{ty} [p], {src} :: <- p:{ptr} {ins} ; {space} 512")
            img = bytearray(R.randrange(256) for _ in range(512))
            words = [int.from_bytes(img[i:i + 4], "little") for i in range(0, 512, 4)]
            lanes = {}
            for l, slot in enumerate(R.sample(range(512 // size), 32)):
                at = slot * size
                if vec:
                    vals = [R.randrange(1 << 32) for _ in range(n)]
                    data = b"".join(v.to_bytes(4, "little") for v in vals)
                    lanes[l] = ([hx(at, 1)] + [hx(v) for v in vals], [])
                else:
                    v = R.randrange(1 << (32 if size < 8 else 64))
                    data = (v & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
                    lanes[l] = ([hx(at, 1), hx(v, 16 if size == 8 else 8)], [])
                img[at:at + size] = data
            after = [int.from_bytes(img[i:i + 4], "little") for i in range(0, 512, 4)]
            g.case("random image, distinct places", lanes, init={0: words},
                   expect={4 * i: [after[i]] for i in range(128) if after[i] != words[i]})
            groups.append(g)
    return groups


def gen_memory():
    R.seed("memory")
    groups = []
    GB = 512
    # atom with a distinct word per lane: old = the word, the word becomes op(old, b).
    ops = {
        "add.u32": lambda a, b: (a + b) & M32,
        "exch.b32": lambda a, b: b,
        "and.b32": lambda a, b: a & b,
        "or.b32": lambda a, b: a | b,
        "xor.b32": lambda a, b: a ^ b,
        "min.u32": min,
        "max.u32": max,
        "min.s32": lambda a, b: min(a, b, key=lambda x: x - (1 << 32) if x >> 31 else x),
        "max.s32": lambda a, b: max(a, b, key=lambda x: x - (1 << 32) if x >> 31 else x),
        "inc.u32": lambda a, b: 0 if a >= b else a + 1,
        "dec.u32": lambda a, b: b if a == 0 or a > b else a - 1,
    }
    for name, f in ops.items():
        g = Group(f"atom.global.{name}, one word a lane: d = the old word, the word becomes "
                  "op(old, b) (§9.7.13.5's semantics)",
                  f"atom.global.{name} d, [p], b :: d:b32 <- p:gptr b:b32 ; global {GB}")
        for mask in (M32, 0x0F0F00FF):
            words = [R.randrange(1 << 32) for _ in range(GB // 4)]
            if name.startswith(("inc", "dec")):
                words = [R.choice([0, 1, 5, 9, 10, R.randrange(1 << 32)]) for _ in range(GB // 4)]
            slots = R.sample(range(GB // 4), 32)
            lanes, expect = {}, {}
            for l in mask_lanes(mask):
                b = R.choice([0, 1, 9, 10, R.randrange(1 << 32)]) if name[:3] in ("inc", "dec") \
                    else R.randrange(1 << 32)
                old = words[slots[l]]
                lanes[l] = ([hx(4 * slots[l], 1), hx(b)], [hx(old)])
                expect[4 * slots[l]] = [f(old, b)]
            g.case(f"lanes {mask:#010x}, random words", lanes, init={0: words}, expect=expect)
        groups.append(g)
    g = Group("atom.global.cas.b32: the word becomes c when it equals b; d = the old word",
              "atom.global.cas.b32 d, [p], b, c :: d:b32 <- p:gptr b:b32 c:b32 ; global 128")
    words = [R.randrange(1 << 32) for _ in range(32)]
    lanes, expect = {}, {}
    for l in range(32):
        b = words[l] if l % 2 else words[l] ^ 1
        c = R.randrange(1 << 32)
        lanes[l] = ([hx(4 * l, 1), hx(b), hx(c)], [hx(words[l])])
        expect[4 * l] = [c if b == words[l] else words[l]]
    g.case("odd lanes compare equal", lanes, init={0: words}, expect=expect)
    groups.append(g)
    # Every lane on one word: the final value is order-independent for these operations (the
    # old values are not: '*').
    for name in ("add.u32", "xor.b32", "max.u32", "min.s32"):
        for space in ("global", "shared"):
            ptr = "gptr" if space == "global" else "sptr"
            g = Group(f"red.{space}.{name} by every active lane on one word",
                      f"red.{space}.{name} [p], b :: <- p:{ptr} b:b32 ; {space} 16")
            for mask in (M32, 0x80000001, 0x00FF0000):
                init = R.randrange(1 << 32)
                act = mask_lanes(mask)
                bs = {l: R.randrange(1 << 32) for l in act}
                v = init
                for l in act:
                    v = ops[name](v, bs[l])
                g.case(f"lanes {mask:#010x}", {l: (["0x8", hx(bs[l])], []) for l in act},
                       init={8: [init]}, expect={8: [v]})
            groups.append(g)
    # atom.add.f32 with values whose sums are exact in any order (small integers).
    g = Group("atom.global.add.f32 by every lane on one word (integer values: every order of the "
              "sum is exact); the old values depend on the order ('*')",
              "atom.global.add.f32 d, [p], b :: d:f32 <- p:gptr b:f32 ; global 16")
    for _ in range(2):
        init = R.randrange(-1000, 1000)
        bs = [R.randrange(-1000, 1000) for _ in range(32)]
        g.case("small integers", {l: (["0x4", f"{bs[l]}.0"], ["*"]) for l in range(32)},
               init={4: [f32_bits(float(init))]},
               expect={4: [f32_bits(float(init + sum(bs)))]})
    groups.append(g)

    # cp.async (§9.7.9.25.3): cp-size bytes from global to shared, the bytes past src-size (or
    # all of them with ignore-src) written as zeros; done once cp.async.wait_all returns.
    SH, GL = 1024, 1024
    for form, size, src in [("ca", 4, None), ("ca", 8, None), ("ca", 16, None), ("cg", 16, None),
                            ("ca", 16, 8), ("cg", 16, 5), ("ca", 8, 0)]:
        tail = f", {src}" if src is not None else ""
        g = Group(f"cp.async.{form} of {size} bytes" + (f", src-size {src}: the rest zero-filled"
                                                         if src is not None else "")
                  + ", one chunk a lane; cp.async.commit_group / wait_group 0",
                  f"cp.async.{form}.shared.global [s], [g], {size}{tail}; cp.async.commit_group; "
                  f"cp.async.wait_group 0 :: <- s:sptr g:gptr ; shared {SH} ; global {GL}")
        for mask in (M32, 0x0000FFFF):
            gw = [R.randrange(1 << 32) for _ in range(GL // 4)]
            sw = [R.randrange(1 << 32) for _ in range(SH // 4)]
            gbytes = b"".join(x.to_bytes(4, "little") for x in gw)
            sbytes = bytearray(b"".join(x.to_bytes(4, "little") for x in sw))
            dst = R.sample(range(SH // size), 32)
            srcs = R.sample(range(GL // size), 32)
            lanes = {}
            for l in mask_lanes(mask):
                d, so = dst[l] * size, srcs[l] * size
                n = size if src is None else src
                sbytes[d:d + size] = gbytes[so:so + n] + bytes(size - n)
                lanes[l] = ([hx(d, 1), hx(so, 1)], [])
            words = [int.from_bytes(sbytes[i:i + 4], "little") for i in range(0, SH, 4)]
            changed = {4 * i: [words[i]] for i in range(SH // 4) if words[i] != sw[i]}
            g.case(f"lanes {mask:#010x}", lanes, init={"shared 0": sw, "global 0": gw},
                   expect={f"shared {o:#x}": v for o, v in changed.items()})
        groups.append(g)
    g = Group("cp.async.ca 16 bytes with ignore-src: lanes whose predicate is set write zeros; "
              "cp.async.wait_all",
              "cp.async.ca.shared.global [s], [g], 16, q; cp.async.wait_all"
              f" :: <- s:sptr g:gptr q:pred ; shared {SH} ; global {GL}")
    gw = [R.randrange(1 << 32) for _ in range(GL // 4)]
    sw = [R.randrange(1 << 32) for _ in range(SH // 4)]
    lanes, expect = {}, {}
    for l in range(32):
        q = l % 3 == 0
        lanes[l] = ([hx(32 * l, 1), hx(16 * (31 - l), 1), str(int(q))], [])
        expect[f"shared {32 * l:#x}"] = [0] * 4 if q else gw[4 * (31 - l):4 * (31 - l) + 4]
    g.case("every third lane ignores its source", lanes, init={"shared 0": sw, "global 0": gw},
           expect=expect)
    groups.append(g)

    # cp.async.bulk global -> shared, completing transactions on an mbarrier; one lane issues.
    for n in (16, 48, 256):
        g = Group(f"cp.async.bulk of {n} bytes global -> shared::cta with an mbarrier "
                  "(init 1, arrive.expect_tx, complete_tx by the copy, try_wait.parity 0 loop); "
                  "the mbarrier's words are its opaque state ('*')",
                  f"mbarrier.init.shared::cta.b64 [m], 1; "
                  f"mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], {n}; "
                  f"cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [s], [g], {n}, [m]; "
                  f"ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT"
                  f" :: p:pred <- s:sptr g:gptr m:sptr ; shared 512 ; global 512 ; regs t:b64")
        gw = [R.randrange(1 << 32) for _ in range(128)]
        sw = [R.randrange(1 << 32) for _ in range(128)]
        so, do = 16 * R.randrange((512 - n) // 16), 16 * R.randrange(1, (512 - n) // 16)
        expect = {f"shared {do:#x}": gw[so // 4:(so + n) // 4], "shared 0x0": ["*", "*"]}
        g.case("lane 0 alone", {0: ([hx(do, 1), hx(so, 1), "0x0"], ["1"])},
               init={"shared 0": sw, "global 0": gw}, expect=expect)
        groups.append(g)
    # shared -> global with a bulk group, and the reduction form.
    g = Group("cp.async.bulk shared::cta -> global (.bulk_group), commit_group, wait_group 0",
              "cp.async.bulk.global.shared::cta.bulk_group [g], [s], 64; "
              "cp.async.bulk.commit_group; cp.async.bulk.wait_group 0"
              " :: <- g:gptr s:sptr ; shared 256 ; global 256")
    gw = [R.randrange(1 << 32) for _ in range(64)]
    sw = [R.randrange(1 << 32) for _ in range(64)]
    g.case("lane 0 alone", {0: (["0x80", "0x20"], [])}, init={"shared 0": sw, "global 0": gw},
           expect={"global 0x80": sw[8:24]})
    groups.append(g)
    for op, f in [("add.u32", lambda a, b: (a + b) & M32), ("min.u32", min), ("xor.b32",
                                                                             lambda a, b: a ^ b)]:
        g = Group(f"cp.reduce.async.bulk .{op} shared::cta -> global, element-wise",
                  f"cp.reduce.async.bulk.global.shared::cta.bulk_group.{op} [g], [s], 32; "
                  "cp.async.bulk.commit_group; cp.async.bulk.wait_group 0"
                  " :: <- g:gptr s:sptr ; shared 128 ; global 128")
        gw = [R.randrange(1 << 32) for _ in range(32)]
        sw = [R.randrange(1 << 32) for _ in range(32)]
        g.case("lane 0 alone", {0: (["0x10", "0x40"], [])}, init={"shared 0": sw, "global 0": gw},
               expect={"global 0x10": [f(gw[4 + i], sw[16 + i]) for i in range(8)]})
        groups.append(g)

    # mbarrier phases (§9.7.13.15): the lowest active lane initializes it with count c, every
    # active lane arrives once, then each lane tests the phase parities.
    g = Group("mbarrier: init (count c, by the elected lane), one arrive a lane; test_wait.parity P "
              "is true when the phase of parity P is the completed one before the current phase: "
              "all c arrived, phase 0 complete (P = 0 true, P = 1 false: phase 1 is current); "
              "one missing, phase 0 current (P = 0 false, P = 1 true: the phase before it)",
              "activemask.b32 am; elect.sync e|q, am; @q mbarrier.init.shared::cta.b64 [m], c; "
              "bar.warp.sync am; mbarrier.arrive.shared::cta.b64 t, [m]; bar.warp.sync am; "
              "mbarrier.test_wait.parity.shared::cta.b64 p0, [m], 0; "
              "mbarrier.test_wait.parity.shared::cta.b64 p1, [m], 1"
              " :: p0:pred p1:pred <- m:sptr c:u32 ; shared 64 ; regs am:b32 e:b32 q:pred t:b64")
    for mask in (M32, 0x00000001, 0xA5A5A5A5):
        act = mask_lanes(mask)
        for extra in (0, 1):
            c = len(act) + extra
            done = extra == 0
            g.case(f"lanes {mask:#010x}, count {c}" + (" (one arrival missing)" if extra else ""),
                   {l: (["0x10", str(c)], [str(int(done)), str(int(not done))]) for l in act},
                   expect={"0x10": ["*", "*"]})
    groups.append(g)
    g = Group("mbarrier.arrive_drop: an arrival in the current phase (that also lowers the "
              "expected count of the later ones): with c = the active lanes phase 0 completes, "
              "with two more it does not",
              "activemask.b32 am; elect.sync e|q, am; @q mbarrier.init.shared::cta.b64 [m], c; "
              "bar.warp.sync am; mbarrier.arrive_drop.shared::cta.b64 t, [m]; bar.warp.sync am; "
              "mbarrier.test_wait.parity.shared::cta.b64 p0, [m], 0"
              " :: p0:pred <- m:sptr c:u32 ; shared 64 ; regs am:b32 e:b32 q:pred t:b64")
    for mask in (M32, 0x0000F00F):
        act = mask_lanes(mask)
        for extra in (0, 2):
            c = len(act) + extra
            g.case(f"lanes {mask:#010x}, count {c}",
                   {l: (["0x8", str(c)], [str(int(extra == 0))]) for l in act},
                   expect={"0x8": ["*", "*"]})
    groups.append(g)
    groups += loads_stores()
    write("memory.isa", """
Memory instructions a scalar row cannot hold (PTX ISA §9.7.13.5 atom, §9.7.13.6 red, §9.7.9.25.3
cp.async, §9.7.9.25.4 cp.async.bulk and cp.reduce.async.bulk, §9.7.13.15 mbarrier): memory images
before and the words expected after, computed in gen_warp.py from each instruction's semantics
text with random seeded data. Several lanes on one word only where the result does not depend on
their order (old values then '*'); an mbarrier's words are its opaque state ('*'), observed only
through test_wait/try_wait.""", groups, target="sm_90")


if __name__ == "__main__":
    gen_memory()
    gen_mma()
    gen_warp_ops()
    gen_matrix_move()
    gen_wmma()
