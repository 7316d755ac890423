#!/usr/bin/env python3
"""Writes the warp-group tables (`; warps N`, `sdesc` inputs: tests/isa/warpgroup.rs):
wgmma.isa (wgmma.mma_async with fence/commit_group/wait_group), tcgen05.isa (tcgen05.alloc/
dealloc/relinquish_alloc_permit, ld/st, shift, cp, mma, commit) and mbarrier.isa (the mbarrier
forms memory.isa does not hold).

Every value is computed here from the PTX ISA text, independently of ptxjit:
- shared-memory matrices: the "Matrix Descriptor Format" (start address, leading- and
  stride-dimension byte offsets >> 4 at bits 0-13, 16-29, 32-45; swizzle mode at bits 62-63 for
  wgmma: 0 none, 1 128-byte, 2 64-byte, 3 32-byte) and the canonical layouts of "Shared Memory
  Matrix Layout" (K-major: ((8,m),(T,2k)):((1T,SBO),(1,LBO)) without swizzle,
  ((8,m),(T,2k)):((xT,SBO),(1,T)) with an x·16-byte swizzle; MN-major without swizzle
  ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)); T = 128 bits / element bits, in elements), the swizzle
  XORing address bits 4.. with bits 7.. (x = 2, 4, 8: one, two, three bits) — `canon_addr`;
- the wgmma register fragments ("Register Fragments and Shared Memory Matrix Layouts"): warp w
  of the warpgroup holds rows 16w..16w+15 of D; D element i of lane l: row 16w + l/4 + 8·(i/2 % 2),
  column 8·(i/4) + 2·(l % 4) + i % 2; A from registers (.f16): mma.sync m16n8k16's A fragment
  in each warp's 16 rows;
- arithmetic as gen_warp.py (products exact, the sum over k ascending from D with one rounding
  to nearest even in the accumulator type per step: docs/isa-notes.md "wgmma sum order");
  integer sums exact then wrapped or clamped (.satfinite); .b1: popc of the AND;
- tensor memory: the tcgen05.ld/st data-path layouts (PTX ISA "Matrix fragments for
  tcgen05.ld/st", Figures 32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2: lane l, register r →
  (row, column) as `ldst_pos`, transcribed from the figures as tabulated publicly by Apache
  TVM's tirx docs), the tcgen05.cp shapes' destination lanes (§9.7.16.2.3), the instruction
  descriptor of tcgen05.mma (Table "Instruction descriptor format"), the D layouts (M = 128:
  row i in lane i; M = 64: Layout F, row r in lane 32·(r/16) + r % 16);
- mbarrier: the phase state machine of §9.7.13.15 (pending arrivals, tx-count, phase parity).

Run from this directory: python3 gen_warpgroup.py (no numpy needed). Seeded, so stable.
"""
from fractions import Fraction as F

import gen_warp as gw
from gen_warp import Group, hx, f32s, value, mma_float, mma_int, pack, fmt_reg, M32
from ieee_ref import encode

R = gw.R


def write(name, head, groups, version=None, target=None):
    gw.write(name, head, groups, version, target)
    with open(name) as f:
        text = f.read().replace("Written by gen_warp.py", "Written by gen_warpgroup.py", 1)
    with open(name, "w") as f:
        f.write(text)

# ---------------------------------------------------------------- shared-memory matrices

SWZ_CODE = {1: 0, 8: 1, 4: 2, 2: 3}  # chunks per swizzle row -> wgmma's bits 62-63


def desc(off, lbo, sbo, x=1):
    """A wgmma matrix descriptor: image offset (start-address field), LBO, SBO, swizzle."""
    return (off >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (SWZ_CODE[x] << 62)


def swizzle(addr, x):
    b = {1: 0, 2: 1, 4: 2, 8: 3}[x]
    return addr ^ (((addr >> 7) & ((1 << b) - 1)) << 4)


def canon_addr(mn, kk, ebits, lbo, sbo, x=1, mn_major=False):
    """Bit address (relative to the start) of element (mn, kk) in a canonical layout."""
    t = 128 // ebits
    if not mn_major and x == 1:
        byte = (mn % 8) * 16 + (mn // 8) * sbo + (kk // t) * lbo
        bit = (kk % t) * ebits
    elif not mn_major:
        byte = (mn % 8) * 16 * x + (mn // 8) * sbo
        bit = kk * ebits
    else:
        assert x == 1
        byte = (mn // t) * sbo + (kk % 8) * 16 + (kk // 8) * lbo
        bit = (mn % t) * ebits
    byte += bit // 8
    return swizzle(byte, x) * 8 + bit % 8


def place(img, base, mat, ebits, lbo, sbo, x=1, mn_major=False, transpose=False):
    """Write matrix `mat` (rows = MN index, cols = K index; `transpose`: mat is K x MN)."""
    rows, cols = len(mat), len(mat[0])
    for r in range(rows):
        for c in range(cols):
            mn, kk = (c, r) if transpose else (r, c)
            a = base * 8 + canon_addr(mn, kk, ebits, lbo, sbo, x, mn_major)
            v = mat[r][c] & ((1 << ebits) - 1)
            if ebits < 8:
                img[a // 8] |= v << (a % 8)
            else:
                for k in range(ebits // 8):
                    img[a // 8 + k] = (v >> (8 * k)) & 0xFF


def image_words(img):
    """init lines: 32 words each, all-zero lines left out."""
    out = {}
    for o in range(0, len(img), 128):
        ws = [int.from_bytes(bytes(img[p:p + 4]), "little") for p in range(o, o + 128, 4)]
        if any(ws):
            out[o] = ws
    return out


# ---------------------------------------------------------------- element values

def rand_elem(ty):
    if ty in ("f16", "bf16", "tf32", "e4m3", "e5m2"):
        return gw.rand_float(ty)
    return gw.rand_int(ty) & ((1 << gw.WIDTH[ty]) - 1)


def elem_val(ty, bits):
    if ty in ("s8",):
        return bits - 256 if bits >> 7 else bits
    if ty in ("u8", "b1"):
        return bits
    if bits == 0:  # a sparse A's zeros (+0 in every float format)
        return F(0)
    return value(ty, bits)


# ---------------------------------------------------------------- wgmma

def d_pos(lane, i):
    w, l = lane // 32, lane % 32
    return 16 * w + l // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (l % 4) + i % 2


def a_reg_pos(lane, e):  # .f16/.bf16 A from registers, k16
    w, l = lane // 32, lane % 32
    return 16 * w + l // 4 + 8 * ((e // 2) % 2), 2 * (l % 4) + e % 2 + 8 * (e // 4)


def sparse_a(at, k, m=64):
    """An m x k A (64 by default) with 2:4 sparsity (1:2 for .tf32; PTX ISA §9.7.15.6.1): (the stored 64 x k/2
    half, the dense A with its zeros, the 4-bit metadata fields of each row's chunks). A
    chunk's field holds its two non-zero columns (the first in the low 2 bits); .tf32's 1:2
    pairs are 0b0100 (column 0) or 0b1110 (column 1), as mma.sp's."""
    csize = 2 if at == "tf32" else 4
    chunks = k // csize
    stored = [[rand_elem(at) for _ in range(k // 2)] for _ in range(m)]
    dense = [[0] * k for _ in range(m)]
    meta = [[0] * chunks for _ in range(m)]
    for i in range(m):
        for c in range(chunks):
            if csize == 2:
                col = R.randrange(2)
                meta[i][c] = 0b1110 if col else 0b0100
                dense[i][2 * c + col] = stored[i][c]
                continue
            i0, i1 = sorted(R.sample(range(4), 2))
            meta[i][c] = i0 | i1 << 2
            dense[i][4 * c + i0], dense[i][4 * c + i1] = stored[i][2 * c], stored[i][2 * c + 1]
    return stored, dense, meta


def sp_meta(meta, lane, sel, rnd):
    """Lane `lane`'s sp-meta register (docs/isa-notes.md "wgmma.mma_async.sp metadata", from
    §9.7.15.6.1's reference to mma.sp's storage): warp w's rows 16w..16w+15 as mma.sp's m16
    A (gen_warp.sp_meta_word); other lanes: random."""
    w, l = lane // 32, lane % 32
    e = gw.sp_meta_word(meta[16 * w:16 * w + 16], l // 4, l % 4, sel)
    return rnd.randrange(1 << 32) if e is None else e


def wgmma_group(at, bt, acc, k, *, n=8, scale_d=(1, 0), neg_a=False, a_regs=False, x=1,
                b_mn_major=False, sat=False, op=None, cases=1, sp=None):
    m = 64
    ebits = gw.WIDTH[at]
    integer = acc == "s32"
    # B's 16-byte chunks of K (2 for the dense shapes, 4 for the sparse ones).
    kchunks = k * ebits // 128
    # A at 0, B at 0x1000 (K-major; LBO/SBO as below); images 1024-aligned for the swizzles.
    if x == 1:
        a_lbo, a_sbo = 1024, 128   # K halves 1024 apart, 8-row groups contiguous
        b_lbo, b_sbo = 128, 128 * kchunks
    else:
        a_lbo, a_sbo = 16, 128 * x  # LBO unused by swizzled K-major layouts
        b_lbo, b_sbo = 16, 128 * x
    if b_mn_major:
        b_lbo, b_sbo = 256, 1024  # K groups of 8 rows 256 apart; N groups of T 1024 apart
    a_off = 0
    b_off = max(0x1000, 8 * 128 * x)  # past A's eight 8-row groups
    size = b_off + max(0x400, (n // 8) * b_sbo)
    dt = acc
    shape = f"m64n{n}k{k}"
    nd = n // 2 if acc != "f16" else n // 4
    dk = {"f32": "f32", "f16": "f16x2", "s32": "s32"}[acc]
    ds = names_("d", nd)
    sat_s = ".satfinite" if sat else ""
    op_s = f".{op}.popc" if op else ""
    typ = f"{dt}.{at}.{bt}"
    if integer:
        tail = "p"
    elif at in ("f16", "bf16"):
        tail = "p, %d, 1%s" % (-1 if neg_a else 1, "" if a_regs else ", 0") + \
            (", 1" if b_mn_major else ", 0")
    else:
        tail = "p, %d, 1" % (-1 if neg_a else 1)
    a_op = "{a0,a1,a2,a3}" if a_regs else "da"
    if sp is not None:
        tail = f"e, {sp}, {tail}"
    sp_s = ".sp" if sp is not None else ""
    ptx = (f"wgmma.fence.sync.aligned; wgmma.mma_async{sp_s}.sync.aligned.{shape}.{typ}{sat_s}{op_s} "
           f"{{{','.join(ds)}}}, {a_op}, db, {tail}; wgmma.commit_group.sync.aligned; "
           f"wgmma.wait_group.sync.aligned 0")
    ins = ([f"{a}:f16x2" if at == "f16" else f"{a}:bf16x2" for a in names_("a", 4)]
           if a_regs else ["da:sdesc"]) + ["db:sdesc", "p:pred"] + [f"{d}:{dk}" for d in ds]
    if sp is not None:
        ins.append("e:b32")
    head = f"{ptx} :: {' '.join(f'{d}:{dk}' for d in ds)} <- {' '.join(ins)} ; shared {size} ; warps 4"
    what = (f"wgmma{sp_s} {shape} .{typ}{sat_s}{op_s}: A "
            + (f"2:4 sparse (1:2 for .tf32), sp-sel {sp}, its stored half " if sp is not None else "")
            + ("from registers" if a_regs else "from shared")
            + (", imm-scale-a -1" if neg_a else "") + ({1: "", 2: ", 32-byte swizzle",
                                                         4: ", 64-byte swizzle",
                                                         8: ", 128-byte swizzle"}[x])
            + (", B MN-major (imm-trans-b 1)" if b_mn_major else ""))
    g = Group(what, head)
    for sd in scale_d:
        for _ in range(cases):
            if sp is None:
                A = [[rand_elem(at) for _ in range(k)] for _ in range(m)]
                A_stored = A
            else:
                A_stored, A, meta = sparse_a(at, k)
            B = [[rand_elem(bt) for _ in range(n)] for _ in range(k)]  # K x N
            if integer:
                C = [[R.randrange(-(1 << 20), 1 << 20) & M32 for _ in range(n)] for _ in range(m)]
                if sat:  # push some sums past the 32-bit range
                    C[0][0], C[1][1] = 0x7FFFFFF0, 0x80000010
                Cv = [[(c - (1 << 32) if c >> 31 else c) if sd else 0 for c in row] for row in C]
                Av = [[elem_val(at, v) for v in row] for row in A]
                Bv = [[elem_val(bt, v) for v in row] for row in B]
                D = mma_int(Av, Bv, Cv, sat, op)
            else:
                C = [[gw.rand_float(acc if acc != "f32" else "f32", -1, 4) for _ in range(n)]
                     for _ in range(m)]
                Av = [[(-1 if neg_a else 1) * elem_val(at, v) for v in row] for row in A]
                Bv = [[elem_val(bt, v) for v in row] for row in B]
                C0 = C if sd else [[0] * n for _ in range(m)]
                D = mma_float(Av, Bv, C0, acc)
            img = bytearray(size)
            if not a_regs:
                place(img, a_off, A_stored, ebits, a_lbo, a_sbo, x)
            place(img, b_off, B, ebits, b_lbo, b_sbo, x if not b_mn_major else 1,
                  mn_major=b_mn_major, transpose=True)
            da = desc(a_off, a_lbo, a_sbo, x)
            db = desc(b_off, b_lbo, b_sbo, 1 if b_mn_major else x)
            lanes = {}
            for lane in range(128):
                ew = 32 if acc != "f16" else 16
                per = 32 // ew
                cin = [C[r][c] for r, c in (d_pos(lane, i) for i in range(n // 2))]
                dout = [D[r][c] for r, c in (d_pos(lane, i) for i in range(n // 2))]
                cin = [pack(cin[j:j + per], ew) for j in range(0, len(cin), per)]
                dout = [pack(dout[j:j + per], ew) for j in range(0, len(dout), per)]
                ins_s = []
                if a_regs:
                    el = [A_stored[r][c] for r, c in (a_reg_pos(lane, e) for e in range(8))]
                    ins_s += [fmt_reg(at + "x2", pack(el[j:j + 2], 16)) for j in range(0, 8, 2)]
                else:
                    ins_s.append(hx(da, 16))
                ins_s += [hx(db, 16), str(sd)] + [fmt_reg(dk, v) for v in cin]
                if sp is not None:
                    ins_s.append(hx(sp_meta(meta, lane, sp, R)))
                lanes[lane] = (ins_s, [fmt_reg(dk, v) for v in dout])
            g.case(f"scale-d {sd}" + ("" if sd else " (D = A·B, the d inputs not read)"), lanes,
                   init=image_words(img))
    return g


def names_(p, n):
    return [f"{p}{k}" for k in range(n)]


def gen_wgmma():
    R.seed(3401)
    gs = [
        wgmma_group("f16", "f16", "f32", 16),
        wgmma_group("f16", "f16", "f32", 16, scale_d=(1,), neg_a=True),
        wgmma_group("f16", "f16", "f32", 16, scale_d=(1,), a_regs=True),
        wgmma_group("f16", "f16", "f16", 16),
        wgmma_group("f16", "f16", "f32", 16, scale_d=(1,), b_mn_major=True),
        wgmma_group("bf16", "bf16", "f32", 16, scale_d=(1,)),
        wgmma_group("tf32", "tf32", "f32", 8, scale_d=(1,)),
        wgmma_group("e4m3", "e5m2", "f32", 32, scale_d=(1,)),
        wgmma_group("s8", "u8", "s32", 32, scale_d=(1, 0)),
        wgmma_group("s8", "s8", "s32", 32, scale_d=(1,), sat=True),
        wgmma_group("b1", "b1", "s32", 256, scale_d=(1,), op="and"),
        wgmma_group("f16", "f16", "f32", 16, scale_d=(1,), x=2),
        wgmma_group("f16", "f16", "f32", 16, scale_d=(1,), x=4),
        wgmma_group("f16", "f16", "f32", 16, scale_d=(1,), x=8),
        wgmma_group("f16", "f16", "f32", 16, n=16, scale_d=(1,)),
        wgmma_group("f16", "f16", "f16", 16, n=16, scale_d=(1,)),
        # N > 16 (m64nNk: N = 8..256 by 8; 8-bit integers 8, 16, 24, then by 16).
        wgmma_group("f16", "f16", "f32", 16, n=24, scale_d=(1,)),
        wgmma_group("f16", "f16", "f32", 16, n=64, scale_d=(1, 0)),
        wgmma_group("f16", "f16", "f32", 16, n=256, scale_d=(1,)),
        wgmma_group("f16", "f16", "f16", 16, n=64, scale_d=(1,)),
        wgmma_group("f16", "f16", "f32", 16, n=40, scale_d=(1,), a_regs=True),
        wgmma_group("bf16", "bf16", "f32", 16, n=48, scale_d=(1,)),
        wgmma_group("tf32", "tf32", "f32", 8, n=64, scale_d=(1,)),
        wgmma_group("e4m3", "e4m3", "f32", 32, n=128, scale_d=(1,)),
        wgmma_group("s8", "s8", "s32", 32, n=64, scale_d=(1,), sat=True),
        wgmma_group("u8", "s8", "s32", 32, n=176, scale_d=(1,)),
        wgmma_group("f16", "f16", "f32", 16, n=72, scale_d=(1,), x=8),
        # .sp: A 2:4 sparse (1:2 for .tf32), K doubled.
        wgmma_group("f16", "f16", "f32", 32, n=16, scale_d=(1, 0), sp=0),
        wgmma_group("f16", "f16", "f32", 32, n=8, scale_d=(1,), sp=1),
        wgmma_group("f16", "f16", "f16", 32, n=64, scale_d=(1,), sp=1),
        wgmma_group("f16", "f16", "f32", 32, n=16, scale_d=(1,), sp=0, a_regs=True),
        wgmma_group("bf16", "bf16", "f32", 32, n=64, scale_d=(1,), sp=1),
        wgmma_group("tf32", "tf32", "f32", 16, n=8, scale_d=(1,), sp=0),
        wgmma_group("tf32", "tf32", "f32", 16, n=32, scale_d=(1,), sp=1),
        wgmma_group("e4m3", "e5m2", "f32", 64, n=16, scale_d=(1,), sp=0),
        wgmma_group("s8", "u8", "s32", 64, n=32, scale_d=(1, 0), sp=0),
        wgmma_group("s8", "s8", "s32", 64, n=16, scale_d=(1,), sp=0, sat=True),
        wgmma_group("f16", "f16", "f32", 32, n=256, scale_d=(1,), sp=0),
    ]
    write("wgmma.isa", """
wgmma.mma_async m64nNkK, N = 8 to 256, and wgmma.mma_async.sp (PTX ISA §9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-
Accumulate": "Register Fragments and Shared Memory Matrix Layouts" (D fragment, A-in-registers
fragment, canonical K-/MN-major layouts, swizzle modes), "Matrix Descriptor Format",
wgmma.mma_async, wgmma.fence/commit_group/wait_group).
One CTA of 4 warps (a warpgroup) per case; A and B are written into the .shared image by
gen_warpgroup.py's canon_addr (the ISA's canonical layouts and swizzles), the descriptors'
start addresses are image offsets (`sdesc`). D = A·B + C on the host: products exact, the
floating-point sum from C over k = 0, 1, ... with one rounding to nearest even in the
accumulator type per step (docs/isa-notes.md, "wgmma sum order"; the ISA leaves the order
unspecified); integer sums exact, wrapped to 32 bits or clamped (.satfinite); .b1 .and.popc.
.sp: A 2:4 sparse (1:2 for .tf32, §9.7.15.6.1), its stored 64 x K/2 half in the image (or
registers) as a dense A, the sp-meta registers per warp as mma.sp's (sparse_a, sp_meta;
docs/isa-notes.md "wgmma.mma_async.sp metadata"); the lanes outside sp-sel's pair hold random
metadata that must not matter.""",
          gs, version="8.7", target="sm_90a")


# ---------------------------------------------------------------- tcgen05.ld / tcgen05.st

def ldst_pos(shape, l, r, half=0):
    """(row, column) of register r of lane l for one .x1 atom, relative to the address."""
    g, t = l // 4, l % 4
    if shape == "32x32b":
        return l, r
    if shape == "16x64b":
        return g + 8 * (l % 2), (l // 2) % 2 + 2 * r
    if shape == "16x128b":
        return g + 8 * (r % 2), t + 4 * (r // 2)
    if shape == "16x256b":
        return g + 8 * ((r // 2) % 2), r % 2 + 2 * t + 8 * (r // 4)
    if shape == "16x32bx2":
        return l % 16, r + half * (l // 16)
    raise ValueError(shape)


# registers and columns of one .x1 atom
ATOM = {"32x32b": (1, 1), "16x64b": (1, 2), "16x128b": (2, 4), "16x256b": (4, 8),
        "16x32bx2": (1, 1)}


def ldst_cells(shape, num, half):
    """lane -> [(row, column)] of the lane's registers for shape.num (atoms side by side)."""
    regs, cols = ATOM[shape]
    out = {}
    for l in range(32):
        cells = []
        for a in range(num):
            for r in range(regs):
                row, col = ldst_pos(shape, l, r, half)
                cells.append((row, col + a * cols))
        out[l] = cells
    return out


ALLOC = ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [s], 32; "
         "tcgen05.fence::before_thread_sync; bar.warp.sync 0xffffffff; "
         "tcgen05.fence::after_thread_sync; ld.shared.b32 ta, [s]")
FREE = ("tcgen05.dealloc.cta_group::1.sync.aligned.b32 ta, 32; "
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned")
BG = 16  # background columns written and read back with .32x32b.x16


def regs_list(p, n):
    return "{" + ",".join(f"{p}{k}" for k in range(n)) + "}"


def ldst_group(shape, num, store, lane0, col0, pack=False, half=8):
    """store: st of `shape` between a .32x32b store of the background and a .32x32b load;
    else: a .32x32b store of random words, then ld of `shape`. pack: .pack::16b on the load
    (.unpack::16b on the store): two 16-bit halves per register, from adjacent columns."""
    regs, _ = ATOM[shape]
    n = regs * num
    cells = ldst_cells(shape, num, half)
    off = (lane0 << 16) | col0
    imm = f", {half}" if shape == "16x32bx2" else ""
    pk = (".unpack::16b" if store else ".pack::16b") if pack else ""
    form = f"{shape}.x{num}{pk}.b32"
    if store:
        body = (f"tcgen05.st.sync.aligned.32x32b.x{BG}.b32 [ta], {regs_list('b', BG)}; "
                f"tcgen05.wait::st.sync.aligned; add.u32 tb, ta, {off:#x}; "
                f"tcgen05.st.sync.aligned.{form} [tb]{imm}, {regs_list('x', n)}; "
                f"tcgen05.wait::st.sync.aligned; "
                f"tcgen05.ld.sync.aligned.32x32b.x{BG}.b32 {regs_list('o', BG)}, [ta]; "
                f"tcgen05.wait::ld.sync.aligned")
        outs = [f"o{k}:b32" for k in range(BG)]
        ins = ["s:sptr"] + [f"b{k}:b32" for k in range(BG)] + [f"x{k}:b32" for k in range(n)]
    else:
        body = (f"tcgen05.st.sync.aligned.32x32b.x{BG}.b32 [ta], {regs_list('b', BG)}; "
                f"tcgen05.wait::st.sync.aligned; add.u32 tb, ta, {off:#x}; "
                f"tcgen05.ld.sync.aligned.{form} {regs_list('o', n)}, [tb]{imm}; "
                f"tcgen05.wait::ld.sync.aligned")
        outs = [f"o{k}:b32" for k in range(n)]
        ins = ["s:sptr"] + [f"b{k}:b32" for k in range(BG)]
    head = (f"{ALLOC}; {body}; {FREE} :: {' '.join(outs)} <- {' '.join(ins)} ; shared 16 "
            f"; regs ta:b32 tb:b32")
    what = ((f"tcgen05.st .{form} at lane {lane0}, column {col0}" + (f" (second half at +{half})"
             if shape == "16x32bx2" else "") + ": the cells it writes, read back with .32x32b")
            if store else
            (f"tcgen05.ld .{form} at lane {lane0}, column {col0}" + (f" (second half at +{half})"
             if shape == "16x32bx2" else "") + ": cells written with .32x32b"))
    g = Group(what, head)
    bg = [[R.randrange(1 << 32) for _ in range(BG)] for _ in range(32)]
    tm = [row[:] for row in bg]
    lanes = {}
    if store:
        xs = [[R.randrange(1 << 32) for _ in range(n)] for _ in range(32)]
        for l in range(32):
            for r, (row, col) in enumerate(cells[l]):
                v = xs[l][r]
                if pack:  # unpack: the low half to column 2c, the high half to 2c + 1
                    tm[lane0 + row][col0 + 2 * col] = v & 0xFFFF
                    tm[lane0 + row][col0 + 2 * col + 1] = v >> 16
                else:
                    tm[lane0 + row][col0 + col] = v
        for l in range(32):
            lanes[l] = (["0x0"] + [hx(v) for v in bg[l]] + [hx(v) for v in xs[l]],
                        [hx(v) if not pack or tm[l][c] == bg[l][c] else "*"
                         for c, v in enumerate(tm[l])])
    else:
        for l in range(32):
            outs_v = []
            for row, col in cells[l]:
                if pack:
                    lo = tm[lane0 + row][col0 + 2 * col] & 0xFFFF
                    hi = tm[lane0 + row][col0 + 2 * col + 1] & 0xFFFF
                    outs_v.append(lo | hi << 16)
                else:
                    outs_v.append(tm[lane0 + row][col0 + col])
            lanes[l] = (["0x0"] + [hx(v) for v in bg[l]], [hx(v) for v in outs_v])
    g.case("random words", lanes, expect={0: ["*"]})
    return g


def shift_group():
    """tcgen05.shift.down by lane 0: in the 32 lanes of the address, 8 columns from its column,
    lane i + 1 takes lane i's words (i = 0..30); lane 0's words are unspecified ('*')."""
    col0 = 8
    head = (f"{ALLOC}; tcgen05.st.sync.aligned.32x32b.x{BG}.b32 [ta], {regs_list('b', BG)}; "
            f"tcgen05.wait::st.sync.aligned; add.u32 tb, ta, {col0}; "
            f"@q tcgen05.shift.cta_group::1.down [tb]; "
            f"tcgen05.ld.sync.aligned.32x32b.x{BG}.b32 {regs_list('o', BG)}, [ta]; "
            f"tcgen05.wait::ld.sync.aligned; {FREE} :: "
            + " ".join(f"o{k}:b32" for k in range(BG)) + " <- s:sptr q:pred "
            + " ".join(f"b{k}:b32" for k in range(BG)) + " ; shared 16 ; regs ta:b32 tb:b32")
    g = Group("tcgen05.shift.cta_group::1.down (issued by lane 0) at column 8: columns 8-15 move "
              "down one lane", head)
    bg = [[R.randrange(1 << 32) for _ in range(BG)] for _ in range(32)]
    lanes = {}
    for l in range(32):
        outs = [hx(bg[l][c]) if not col0 <= c < col0 + 8 else
                ("*" if l == 0 else hx(bg[l - 1][c])) for c in range(BG)]
        lanes[l] = (["0x0", str(int(l == 0))] + [hx(v) for v in bg[l]], outs)
    g.case("random words", lanes, expect={0: ["*"]})
    return g


# A CTA of 4 warps around tensor memory: warp 0 allocates (its lanes' input w0 = 1), every
# warp writes a background into its own 32 lanes with .32x32b (input lw = its lane base << 16),
# thread 0 (input q) initializes the mbarrier at shared 8, issues the operation and
# tcgen05.commit, every thread waits for phase 0 and reads its lanes back.
def cta_snippet(op, ncols, nbg):
    return (f"@w0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [s], {ncols}; "
            f"@q mbarrier.init.shared::cta.b64 [mb], 1; "
            f"tcgen05.fence::before_thread_sync; bar.sync 0; tcgen05.fence::after_thread_sync; "
            f"ld.shared.b32 ta, [s]; add.u32 tb, ta, lw; "
            f"tcgen05.st.sync.aligned.32x32b.x{nbg}.b32 [tb], {regs_list('b', nbg)}; "
            f"tcgen05.wait::st.sync.aligned; "
            f"tcgen05.fence::before_thread_sync; bar.sync 0; tcgen05.fence::after_thread_sync; "
            f"{op}; "
            f"@q tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mb]; "
            f"ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 pw, [mb], 0; @!pw bra ISA_WAIT; "
            f"tcgen05.fence::after_thread_sync; "
            f"tcgen05.ld.sync.aligned.32x32b.x{nbg}.b32 {regs_list('o', nbg)}, [tb]; "
            f"tcgen05.wait::ld.sync.aligned; "
            f"tcgen05.fence::before_thread_sync; bar.sync 0; tcgen05.fence::after_thread_sync; "
            f"@w0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 ta, {ncols}; "
            f"@w0 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned")


def cta_head(op, ncols, nbg, extra_ins, size, regs=""):
    return (cta_snippet(op, ncols, nbg) + " :: " + " ".join(f"o{k}:b32" for k in range(nbg))
            + " <- s:sptr mb:sptr w0:pred q:pred lw:u32 " + " ".join(extra_ins) + " "
            + " ".join(f"b{k}:b32" for k in range(nbg))
            + f" ; shared {size} ; warps 4 ; regs ta:b32 tb:b32 pw:pred{regs}")


def cta_lane_ins(lane):
    w = lane // 32
    return ["0x0", "0x8", str(int(w == 0)), str(int(lane == 0)), hx((32 * w) << 16)]


def cta_case(g, bg, C, D, ins, init):
    """Group g's one case for a single CTA's multiply: D's rows in lanes 0..M, columns 0..N
    (C in, D out) over the background bg (128 lanes); each lane's row the snippet's inputs,
    `ins`, then its background."""
    tm = [row[:] for row in bg]
    for r, (c_row, d_row) in enumerate(zip(C, D)):
        bg[r][:len(c_row)] = c_row
        tm[r] = bg[r][:]
        tm[r][:len(d_row)] = d_row
    lanes = {l: (cta_lane_ins(l) + ins + [hx(v) for v in bg[l]], [hx(v) for v in tm[l]])
             for l in range(128)}
    g.case("random inputs", lanes, init=init, expect={0: ["*"] * 4})
    return g


def accumulate(A, B, at, bt, acc, enable_d=1, sat=False, neg_a=False, sat_cell=(1, 1)):
    """A random C in the accumulator's format (s32: 21-bit signed values, with `sat` two near
    the limits at (0, 0) and `sat_cell`; else f32 in [-1, 4)) and D = A·B + C (C read only with
    enable-input-d; `neg_a`: A negated, idesc bit 13) as gen_warp's mma_int/mma_float: exact
    products, the sum over k ascending, one rounding (or wrap/clamp) per step. Returns (C, D)
    as bit patterns."""
    m, n = len(A), len(B[0])
    if acc == "s32":
        C = [[R.randrange(-(1 << 20), 1 << 20) & M32 for _ in range(n)] for _ in range(m)]
        if sat:
            C[0][0], C[sat_cell[0]][sat_cell[1]] = 0x7FFFFFF0, 0x80000010
        Cv = [[(c - (1 << 32) if c >> 31 else c) if enable_d else 0 for c in row] for row in C]
        D = mma_int([[elem_val(at, v) for v in row] for row in A],
                    [[elem_val(bt, v) for v in row] for row in B], Cv, sat)
    else:
        C = [[gw.rand_float("f32", -1, 4) for _ in range(n)] for _ in range(m)]
        Av = [[(-1 if neg_a else 1) * elem_val(at, v) for v in row] for row in A]
        D = mma_float(Av, [[elem_val(bt, v) for v in row] for row in B],
                      C if enable_d else [[0] * n for _ in range(m)], acc)
    return C, D


def put_factors(bg, col, factors, ident, keep=True):
    """Scale factors in tensor memory (docs/isa-notes.md "block scaling": the layout public
    sm_100 code writes, the ISA's figures unread): row i of A's (column i of B's) factors
    `factors[i]`, one a byte from byte `ident` (the instruction descriptor's scale factor ID),
    at lane i % 32 of every 32-lane partition, column col + i / 32. `keep`: the word's other
    bytes keep the background bg, else they are 0."""
    for i, fs in enumerate(factors):
        for lane in range(i % 32, 128, 32):
            w = bg[lane][col + i // 32] if keep else 0
            for b, f in enumerate(fs):
                w = (w & ~(0xFF << 8 * (ident + b))) | f << 8 * (ident + b)
            bg[lane][col + i // 32] = w


CP_DEST = {  # shape -> (rows, bytes per row, row -> destination lanes)
    "128x256b": (128, 32, lambda r: [r]),
    "4x256b": (4, 32, lambda r: [32 * r]),
    "128x128b": (128, 16, lambda r: [r]),
    "64x128b.warpx2::02_13": (64, 16, lambda r: [r, 64 + r]),
    "64x128b.warpx2::01_23": (64, 16, lambda r: [64 * (r // 32) + r % 32, 64 * (r // 32) + r % 32 + 32]),
    "32x128b.warpx4": (32, 16, lambda r: [r, 32 + r, 64 + r, 96 + r]),
}


def tc_desc(off, lbo, sbo):
    """A tcgen05 shared-memory descriptor without swizzle (bits 46-48: the fixed 0b001)."""
    return (off >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1 << 46)


def cp_group(shape):
    rows, rb, dest = CP_DEST[shape]
    nbg = 8
    lbo, sbo = 0x800, 0x80  # second 16 bytes of a row 0x800 on; 8-row groups 128 bytes apart
    base = 0x400
    size = 0x1400
    op = f"@q tcgen05.cp.cta_group::1.{shape} [ta], sd"
    g = Group(f"tcgen05.cp.cta_group::1.{shape} (thread 0) from a K-major canonical layout "
              f"(LBO {lbo:#x}, SBO {sbo:#x}; row r's word w to column w of the row's lanes)",
              cta_head(op, 32, nbg, ["sd:sdesc"], size))
    img = bytearray(size)
    src = [[R.randrange(256) for _ in range(rb)] for _ in range(rows)]
    place(img, base, src, 8, lbo, sbo)
    bg = [[R.randrange(1 << 32) for _ in range(nbg)] for _ in range(128)]
    tm = [row[:] for row in bg]
    for r in range(rows):
        words = [int.from_bytes(bytes(src[r][4 * k:4 * k + 4]), "little") for k in range(rb // 4)]
        for ln in dest(r):
            tm[ln][:rb // 4] = words
    d = tc_desc(base, lbo, sbo)
    lanes = {l: (cta_lane_ins(l) + [hx(d, 16)] + [hx(v) for v in bg[l]], [hx(v) for v in tm[l]])
             for l in range(128)}
    g.case("random bytes", lanes, init=image_words(img), expect={0: ["*"] * 4})
    return g


# tcgen05.mma kinds: (A/B format codes of the instruction descriptor, D format code, K)
IDESC_FMT = {"f16": 0, "bf16": 1, "tf32": 2, "e4m3": 0, "e5m2": 1, "u8": 0, "s8": 1}


def idesc(dfmt, at, bt, m, n, sat=False, neg_a=False):
    """The instruction descriptor of .kind::f16/tf32/f8f6f4/i8 (PTX ISA Table "Instruction
    descriptor format"): bit 3 saturate, 4-5 D format (0 f16, 1 f32, 2 s32), 7-9 A format,
    10-12 B format, 13 negate A, 15/16 transpose A/B (0: K-major), 17-22 N >> 3, 24-28 M >> 4."""
    return (int(sat) << 3 | dfmt << 4 | IDESC_FMT[at] << 7 | IDESC_FMT[bt] << 10
            | int(neg_a) << 13 | (n >> 3) << 17 | (m >> 4) << 24)


def mma_group(kind, at, bt, acc, m, n, k, enable_d=1, sat=False, ws=False, neg_a=False):
    ebits = gw.WIDTH[at]
    a_lbo, a_sbo = 0x1000, 0x80  # A: K halves 0x1000 apart, 8-row groups 128 bytes apart
    b_lbo, b_sbo = max(0x200, (n // 8) * 0x80), 0x80
    a_off, b_off = 0x400, 0x2000 + 0x400
    size = 0x3000
    nbg = n  # D columns read back
    dfmt = {"f16": 0, "f32": 1, "s32": 2}[acc]
    idv = idesc(dfmt, at, bt, m, n, sat, neg_a)
    ws_s = ".ws" if ws else ""
    op = f"@q tcgen05.mma{ws_s}.cta_group::1.kind::{kind} [ta], da, db, id, pe"
    head = cta_head(op, 32 if n <= 32 else 64, nbg,
                    ["da:sdesc", "db:sdesc", "id:b32", "pe:pred"], size)
    g = Group(f"tcgen05.mma{ws_s}.cta_group::1.kind::{kind} M={m} N={n} K={k}, {at} x {bt} -> "
              f"{acc}" + (" .satfinite (idesc bit 3)" if sat else "")
              + (" negate A (idesc bit 13)" if neg_a else "")
              + f", enable-input-d {enable_d} (thread 0; commit; D read back with .32x32b)", head)
    A = [[rand_elem(at) for _ in range(k)] for _ in range(m)]
    B = [[rand_elem(bt) for _ in range(n)] for _ in range(k)]
    C, D = accumulate(A, B, at, bt, acc, enable_d, sat, neg_a)
    img = bytearray(size)
    place(img, a_off, A, ebits, a_lbo, a_sbo)
    place(img, b_off, B, ebits, b_lbo, b_sbo, transpose=True)
    # D's lanes: M = 128 (Layout D) row i in lane i; M = 64 (Layout F) row r in lane
    # 32·(r/16) + r % 16; other lanes keep their background.
    lane_of = (lambda r: r) if m == 128 else (lambda r: 32 * (r // 16) + r % 16)
    bg = [[R.randrange(1 << 32) for _ in range(nbg)] for _ in range(128)]
    tm = [row[:] for row in bg]
    for r in range(m):
        bg[lane_of(r)] = C[r][:]
        tm[lane_of(r)] = D[r][:]
    da, db = tc_desc(a_off, a_lbo, a_sbo), tc_desc(b_off, b_lbo, b_sbo)
    lanes = {l: (cta_lane_ins(l) + [hx(da, 16), hx(db, 16), hx(idv), str(enable_d)]
                 + [hx(v) for v in bg[l]], [hx(v) for v in tm[l]]) for l in range(128)}
    g.case("random inputs", lanes, init=image_words(img), expect={0: ["*"] * 4})
    return g


def tmem_meta(kind, meta, sel, m=128, align=None):
    """The .sp metadata's words in tensor memory (docs/isa-notes.md "tcgen05.mma.sp metadata
    layout": §9.7.16.10.8.4 gives it in figures only; this is the reading public sm_100 code
    writes): {(lane, column offset): word}. .kind::f16 (8 chunks of 4 a row) and .kind::tf32
    (8 pairs a row, 1:2): row r, field c at lane 16(r/16) + r%8 + 8(c/4), column `sel`, bits
    4(4((r%16)/8) + c%4); .kind::i8/::f8f6f4 (16 chunks): row r in lane r, chunk c at column
    c/8, bits 4(c%8). .ws with M = 64 or 32: rows 0..M so placed, the words repeated every M
    lanes (128/M copies). `align` (M = 64 without .ws, Layout F; ⚠ ptxjit's reading of Figures
    262/264/266, docs/isa-notes.md): each block of 16 rows in the lanes of D's rows, from lane
    32·(r/16) + align, the M = 128 places inside the block; one copy. The block-scaled kinds
    (mxf8f6f4, mxf4, mxf4nvf4) share the 8-bit kinds' figure (Figure 267)."""
    words = {}
    for r, row in enumerate(meta):
        base = 16 * (r // 16) if align is None else 32 * (r // 16) + align
        for c, f in enumerate(row):
            if kind in ("f16", "tf32"):
                key = (base + r % 8 + 8 * (c // 4), sel)
                bit = 4 * (4 * ((r % 16) // 8) + c % 4)
            else:
                key = (base + r % 16, c // 8)
                bit = 4 * (c % 8)
            for copy in range(128 // m if align is None else 1):
                k2 = (key[0] + copy * m, key[1])
                words[k2] = words.get(k2, 0) | f << bit
    return words


# .ws D layouts (§9.7.16.10.5): M = 128 Layout D (row r in lane r), M = 64 Layout E (N in two
# halves over lanes 0-63 and 64-127), M = 32 Layout G (N in four quarters over the four 32-lane
# partitions): {M: (lane, column) of row r, column j of an N-column D}.
WS_PLACE = {
    128: lambda n, r, j: (r, j),
    64: lambda n, r, j: (r + 64 * (j // (n // 2)), j % (n // 2)),
    32: lambda n, r, j: (r + 32 * (j // (n // 4)), j % (n // 4)),
}


def mma_sp_group(kind, at, bt, acc, n, k, sel=0, enable_d=1, sat=False, ws=False, m=128,
                 align=None):
    """tcgen05.mma.sp.cta_group::1, M = 128 (§9.7.16.10.9.2), or tcgen05.mma.ws.sp with M =
    128, 64 or 32 (§9.7.16.10.9.3; D in WS_PLACE's layout): A 2:4 sparse (1:2 for .tf32;
    gen_warpgroup's sparse_a), its stored M x K/2 half in shared memory as a dense A of K/2
    columns; the metadata in tensor memory at the column after D's (tmem_meta), the selector
    in idesc bits 0-1 and bit 2 set (sparsity). `align` (M = 64 without .ws): Layout F, D (row
    r in lane 32·(r/16) + align + r % 16) and the metadata at lane `align` (the ISA: "the same
    alignment across matrices A, D and the sparsity metadata matrix")."""
    ebits = gw.WIDTH[at]
    kchunks = k * ebits // 128  # B's 16-byte chunks of K
    a_lbo, a_sbo = 0x1000, 0x80
    b_lbo, b_sbo = max(0x200, (n // 8) * 0x80), 0x80
    a_off, b_off = 0x400, 0x2000 + 0x400
    size = b_off + kchunks * b_lbo
    dcols = n if align is not None else n * m // 128  # D's columns (Layouts D, E, F, G)
    nbg = 1 << (dcols + 2 - 1).bit_length()  # D's columns, the metadata's, a background
    dfmt = {"f16": 0, "f32": 1, "s32": 2}[acc]
    idv = idesc(dfmt, at, bt, m, n, sat) | 1 << 2 | sel
    ws_s = ".ws" if ws else ""
    op = (f"add.u32 tm, ta, {dcols}; "
          f"@q tcgen05.mma{ws_s}.sp.cta_group::1.kind::{kind} [ta], da, db, [tm], id, pe")
    regs = " tm:b32"
    if align is not None:
        op = (f"add.u32 td, ta, {align << 16:#x}; add.u32 tm, td, {dcols}; "
              f"@q tcgen05.mma.sp.cta_group::1.kind::{kind} [td], da, db, [tm], id, pe")
        regs = " tm:b32 td:b32"
    head = cta_head(op, max(32, nbg), nbg, ["da:sdesc", "db:sdesc", "id:b32", "pe:pred"], size,
                    regs=regs)
    g = Group(f"tcgen05.mma{ws_s}.sp.cta_group::1.kind::{kind} M={m} N={n} K={k}, {at} x {bt} -> "
              f"{acc}" + (" .satfinite" if sat else "") + f", selector {sel}, enable-input-d "
              f"{enable_d}: A {'1:2' if at == 'tf32' else '2:4'} sparse, its metadata in tensor "
              "memory after D's columns" + (f" (repeated every {m} lanes)" if m < 128 and ws
                                            else "")
              + (f", Layout F at lane {align} (⚠ the metadata's lanes: ptxjit's reading)"
                 if align is not None else "")
              + " (thread 0; commit; D and the metadata read back with .32x32b)", head)
    A_stored, A, meta = sparse_a(at, k, m)
    B = [[rand_elem(bt) for _ in range(n)] for _ in range(k)]
    C, D = accumulate(A, B, at, bt, acc, enable_d, sat)
    img = bytearray(size)
    place(img, a_off, A_stored, ebits, a_lbo, a_sbo)
    place(img, b_off, B, ebits, b_lbo, b_sbo, transpose=True)
    bg = [[R.randrange(1 << 32) for _ in range(nbg)] for _ in range(128)]
    for (lane, col), word in tmem_meta(kind, meta, sel, m, align).items():
        bg[lane][dcols + col] = word
    tm = [row[:] for row in bg]
    for r in range(m):
        for j in range(n):
            if align is None:
                lane, col = WS_PLACE[m](n, r, j)
            else:
                lane, col = 32 * (r // 16) + align + r % 16, j
            bg[lane][col] = C[r][j]
            tm[lane][col] = D[r][j]
    da, db = tc_desc(a_off, a_lbo, a_sbo), tc_desc(b_off, b_lbo, b_sbo)
    lanes = {l: (cta_lane_ins(l) + [hx(da, 16), hx(db, 16), hx(idv), str(enable_d)]
                 + [hx(v) for v in bg[l]], [hx(v) for v in tm[l]]) for l in range(128)}
    g.case("random inputs", lanes, init=image_words(img), expect={0: ["*"] * 4})
    return g


def pair_snippet(op, ncols, nbg):
    """A CTA pair (cluster of 2, 4 warps each) around tensor memory with .cta_group::2: warp 0
    of each CTA allocates (the same columns in both), every warp writes its lanes' background,
    rank 0's thread 0 (q) issues the operation and commits to rank 0's mbarrier, rank 0 (z)
    waits for it, cluster barriers order the rest; every thread reads its lanes back."""
    sync = ("tcgen05.fence::before_thread_sync; barrier.cluster.arrive; barrier.cluster.wait; "
            "tcgen05.fence::after_thread_sync")
    return (f"@w0 tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [s], {ncols}; "
            f"@q mbarrier.init.shared::cta.b64 [mb], 1; {sync}; "
            f"ld.shared.b32 ta, [s]; add.u32 tb, ta, lw; "
            f"tcgen05.st.sync.aligned.32x32b.x{nbg}.b32 [tb], {regs_list('b', nbg)}; "
            f"tcgen05.wait::st.sync.aligned; {sync}; "
            f"{op}; "
            f"@q tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [mb]; "
            f"@!z bra ISA_DONE; "
            f"ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 pw, [mb], 0; @!pw bra ISA_WAIT; "
            f"ISA_DONE: {sync}; "
            f"tcgen05.ld.sync.aligned.32x32b.x{nbg}.b32 {regs_list('o', nbg)}, [tb]; "
            f"tcgen05.wait::ld.sync.aligned; {sync}; "
            f"@w0 tcgen05.dealloc.cta_group::2.sync.aligned.b32 ta, {ncols}; "
            f"@w0 tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned")


def cta_image(size, a, b, bits):
    """One CTA's shared-memory image as {offset: words}: A's rows at a = (offset, rows, LBO,
    SBO) K-major (None: A is not in shared memory), B at b = (offset, K x N rows, LBO, SBO)
    K-major (stored transposed)."""
    img = bytearray(size)
    if a is not None:
        place(img, a[0], a[1], bits, a[2], a[3])
    place(img, b[0], b[1], bits, b[2], b[3], transpose=True)
    return image_words(img)


def pair_cta(h, init, size, a, b, bits, nbg):
    """Rank h of a CTA pair: its image (cta_image) as the init words of `rank h`, and a random
    background of nbg columns for its 128 lanes (returned)."""
    for off, ws in cta_image(size, a, b, bits).items():
        init[f"rank {h} {off:#x}"] = ws
    return [[R.randrange(1 << 32) for _ in range(nbg)] for _ in range(128)]


def pair_head(op, ncols, nbg, extra_ins, size, regs=""):
    """pair_snippet's head: outputs o0.. (the lanes read back), inputs (the CTA's slots and
    predicates, `extra_ins`, the background b0..), a cluster of two 4-warp CTAs."""
    return (pair_snippet(op, ncols, nbg) + " :: " + " ".join(f"o{j}:b32" for j in range(nbg))
            + " <- s:sptr mb:sptr w0:pred q:pred z:pred lw:u32 " + " ".join(extra_ins) + " "
            + " ".join(f"b{j}:b32" for j in range(nbg))
            + f" ; shared {size} ; warps 4 ; cluster 2 ; regs ta:b32 tb:b32 pw:pred{regs}")


def pair_rows(h, lanes, ins, bg, tm):
    """Rank h's 128 lane rows (pair_snippet's inputs, then `ins`, then the background bg in;
    tm out) into lanes."""
    for l in range(128):
        w = l // 32
        row_in = ["0x0", "0x8", str(int(w == 0)), str(int(h == 0 and l == 0)), str(int(h == 0)),
                  hx((32 * w) << 16)] + ins
        lanes[Lane2(128 * h + l)] = (row_in + [hx(v) for v in bg[l]], [hx(v) for v in tm[l]])


def pair_smem(at, m, n, k):
    """The shared-memory layout of each CTA's half of A and B in a .cta_group::2 multiply of
    .at elements (the canonical K-major layouts, no swizzle): (element bits, M/2, N/2, A's
    (LBO, SBO): K halves 0x1000 apart and 8-row groups 128 bytes apart, B's (LBO, SBO): its
    K chunks one after another past its N/2 columns, A's offset, B's offset, the image size)."""
    ebits = gw.WIDTH[at]
    nh = n // 2
    b_lbo, b_off = max(0x200, (nh // 8) * 0x80), 0x2000 + 0x400
    return (ebits, m // 2, nh, (0x1000, 0x80), (b_lbo, 0x80), 0x400, b_off,
            b_off + (k * ebits // 128) * b_lbo)


def mma_pair_group(kind, at, bt, acc, m, n, k, enable_d=1, sat=False):
    """tcgen05.mma.cta_group::2 over a CTA pair (docs/coverage.md's tcgen05.mma row and
    docs/isa-notes.md ".cta_group::2", the ISA's figures as read there): one M x K by K x N
    multiply; rank h holds rows h·M/2.. of A and D and columns h·N/2.. of B at the same
    descriptors' offsets of its own shared memory; its half of D in its own tensor memory, Layout
    A (M = 256: local row r in lane r) or Layout B (M = 128: local row r, column j in lane
    r + 64·(j / (N/2)), column j % (N/2))."""
    ebits, mh, nh, (a_lbo, a_sbo), (b_lbo, b_sbo), a_off, b_off, size = pair_smem(at, m, n, k)
    cols = n if m == 256 else nh  # D's columns in each CTA's tensor memory
    nbg = max(16, 1 << (cols - 1).bit_length())
    dfmt = {"f16": 0, "f32": 1, "s32": 2}[acc]
    idv = idesc(dfmt, at, bt, m, n, sat)
    op = f"@q tcgen05.mma.cta_group::2.kind::{kind} [ta], da, db, id, pe"
    head = pair_head(op, max(32, nbg), nbg, ["da:sdesc", "db:sdesc", "id:b32", "pe:pred"], size)
    g = Group(f"tcgen05.mma.cta_group::2.kind::{kind} M={m} N={n} K={k}, {at} x {bt} -> {acc}"
              + (" .satfinite" if sat else "") + f", enable-input-d {enable_d}: a CTA pair, "
              "each CTA's half of A, B and D (rank 0's thread 0 issues; D read back in both CTAs "
              "with .32x32b)", head)
    A = [[rand_elem(at) for _ in range(k)] for _ in range(m)]
    B = [[rand_elem(bt) for _ in range(n)] for _ in range(k)]
    C, D = accumulate(A, B, at, bt, acc, enable_d, sat, sat_cell=(m - 1, n - 1))
    da, db = tc_desc(a_off, a_lbo, a_sbo), tc_desc(b_off, b_lbo, b_sbo)
    lanes, init = {}, {}
    for h in range(2):
        bg = pair_cta(h, init, size, (a_off, A[h * mh:(h + 1) * mh], a_lbo, a_sbo),
                      (b_off, [row[h * nh:(h + 1) * nh] for row in B], b_lbo, b_sbo), ebits, nbg)
        tm = [row[:] for row in bg]
        for r in range(mh):
            for j in range(n):
                lane, col = (r, j) if m == 256 else (r + 64 * (j // nh), j % nh)
                bg[lane][col] = C[h * mh + r][j]
                tm[lane][col] = D[h * mh + r][j]
        pair_rows(h, lanes, [hx(da, 16), hx(db, 16), hx(idv), str(enable_d)], bg, tm)
    g.case("random inputs", lanes, init=init,
           expect={f"rank {h} 0x0": ["*"] * 4 for h in range(2)})
    return g


class Lane2(int):
    """A lane row's key in a cluster of CTAs of 128 threads: prints as `rank.lane`."""

    def __format__(self, spec):
        return f"{self // 128}.{self % 128}"


def mx_group():
    """.kind::mxf8f6f4.block_scale.scale_vec::1X, M = 128, N = 16, K = 32, e4m3 x e4m3, ue8m0
    scale factors (2^(e - 127)) in tensor memory: row i of A's factor at lane i % 32 of every
    32-lane partition, column 16 + i / 32, byte A-ID; column j of B's at lane j % 32, column 20,
    byte B-ID (the ISA: "duplicated to all 32 lane partitions"; docs/isa-notes.md gives the
    figures' reading). Instruction descriptor: bits 4-5 B's scale-factor ID, 7-9/10-12 the
    formats (e4m3 = 0), 17-22 N >> 3, 23 the scale type (1: ue8m0), 24-28 M >> 4, 29-30 A's ID.
    D = Σ (a·2^sa)(b·2^sb) + C: exact products, one rounding per k ascending."""
    m, n, k = 128, 16, 32
    a_id, b_id = 1, 2
    a_lbo, a_sbo = 0x1000, 0x80
    b_lbo, b_sbo = 0x200, 0x80
    a_off, b_off = 0x400, 0x2400
    size = 0x3000
    nbg = 32
    idv = b_id << 4 | (n >> 3) << 17 | 1 << 23 | (m >> 4) << 24 | a_id << 29
    op = ("add.u32 sa, ta, 16; add.u32 sb, ta, 20; @q tcgen05.mma.cta_group::1.kind::mxf8f6f4"
          ".block_scale.scale_vec::1X [ta], da, db, id, [sa], [sb], pe")
    g = Group("tcgen05.mma .kind::mxf8f6f4.block_scale.scale_vec::1X M=128 N=16 K=32, e4m3 x e4m3 "
              "-> f32, ue8m0 scale factors (A ID 1, B ID 2) in tensor memory",
              cta_head(op, 32, nbg, ["da:sdesc", "db:sdesc", "id:b32", "pe:pred"], size,
                       " sa:b32 sb:b32"))
    A = [[gw.rand_float("e4m3") for _ in range(k)] for _ in range(m)]
    B = [[gw.rand_float("e4m3") for _ in range(n)] for _ in range(k)]
    sa = [R.randint(124, 130) for _ in range(m)]
    sb = [R.randint(124, 130) for _ in range(n)]
    C = [[gw.rand_float("f32", -1, 4) for _ in range(n)] for _ in range(m)]
    Av = [[value("e4m3", A[i][kk]) * F(2) ** (sa[i] - 127) for kk in range(k)] for i in range(m)]
    Bv = [[value("e4m3", B[kk][j]) * F(2) ** (sb[j] - 127) for j in range(n)] for kk in range(k)]
    D = mma_float(Av, Bv, C, "f32")
    img = bytearray(size)
    place(img, a_off, A, 8, a_lbo, a_sbo)
    place(img, b_off, B, 8, b_lbo, b_sbo, transpose=True)
    bg = [[R.randrange(1 << 32) for _ in range(nbg)] for _ in range(128)]
    for p in range(4):  # scale columns: the same words in every partition
        for l in range(32):
            bg[32 * p + l][16:21] = bg[l][16:21]
    put_factors(bg, 16, [[f] for f in sa], a_id)
    put_factors(bg, 20, [[f] for f in sb], b_id)
    da, db = tc_desc(a_off, a_lbo, a_sbo), tc_desc(b_off, b_lbo, b_sbo)
    return cta_case(g, bg, C, D, [hx(da, 16), hx(db, 16), hx(idv), "1"], image_words(img))


def mx_pair_group(m, n, pair=True, sp=False):
    """.kind::mxf8f6f4.block_scale.scale_vec::1X, e4m3 x e4m3 -> f32, ue8m0 factors, over a CTA
    pair (`pair`: .cta_group::2, M = 256 or 128) and/or with a 2:4 sparse A (`sp`: .sp, K = 64,
    one factor per row over all 64 columns: "scale_vec::1X ... with K=32/K=64"). Each CTA
    keeps in its own tensor memory: its rows' scale_A (local row i at lane i % 32 of every
    32-lane partition, column 16 + i/32, byte A-ID), scale_B for all N columns at column 20
    (M = 256 or .cta_group::1: column j at lane j % 32 of every partition, byte B-ID; M = 128,
    Layout B: columns 0..N/2 in partitions 0-1 and N/2..N in 2-3, column j at lane 64·(j //
    (N/2)) + j % (N/2) and 32 further) — ⚠ the layouts public sm_100 code writes (CUTLASS's
    tmem_sf_frg 4x1 and 2x2 atoms, Apache TVM's tirx CTA-pair probe; docs/isa-notes.md) — and
    with .sp its rows' metadata from column 24 (the M = 128 layout of Figure 267: row r in lane
    r, chunk c at column c/8, bits 4(c%8); selector "assumed to be 0"). The pair's halves of A,
    B and D as mma_pair_group. D = Σ (a·2^sa)(b·2^sb) + C: exact products, one rounding per k
    ascending."""
    k = 64 if sp else 32
    ctas = 2 if pair else 1
    mh, nh = m // ctas, n // ctas
    a_id, b_id = 1, 2
    a_lbo, a_sbo = 0x1000, 0x80
    b_lbo, b_sbo = max(0x200, (nh // 8) * 0x80), 0x80
    a_off, b_off = 0x400, 0x2400
    size = b_off + (k // 16) * b_lbo
    nbg = 32
    idv = (b_id << 4 | (n >> 3) << 17 | 1 << 23 | (m >> 4) << 24 | a_id << 29
           | (1 << 2 if sp else 0))
    sp_s = ".sp" if sp else ""
    meta_op = " [tm]," if sp else ""
    op = (f"add.u32 sa, ta, 16; add.u32 sb, ta, 20; add.u32 tm, ta, 24; "
          f"@q tcgen05.mma{sp_s}.cta_group::{ctas}.kind::mxf8f6f4.block_scale.scale_vec::1X "
          f"[ta], da, db,{meta_op} id, [sa], [sb], pe")
    ins = ["da:sdesc", "db:sdesc", "id:b32", "pe:pred"]
    regs = " sa:b32 sb:b32 tm:b32"
    what = (f"tcgen05.mma{sp_s}.cta_group::{ctas}.kind::mxf8f6f4.block_scale.scale_vec::1X "
            f"M={m} N={n} K={k}, e4m3 x e4m3 -> f32, ue8m0 scale factors (A ID {a_id}, B ID "
            f"{b_id}) in tensor memory" + (", A 2:4 sparse, its metadata in tensor memory" if sp
                                           else "")
            + (", a CTA pair: each CTA's scale_A (its rows) and scale_B (all N"
               + (", 2x2 for Layout B" if m == 128 else "") + ") in its own tensor memory"
               if pair else ""))
    if pair:
        head = pair_head(op, 32, nbg, ins, size, regs)
    else:
        head = cta_head(op, 32, nbg, ins, size, regs)
    g = Group(what, head)
    if sp:
        A_stored, A, meta = sparse_a("e4m3", k, m)
    else:
        A = [[gw.rand_float("e4m3") for _ in range(k)] for _ in range(m)]
        A_stored, meta = A, None
    B = [[gw.rand_float("e4m3") for _ in range(n)] for _ in range(k)]
    sa = [R.randint(124, 130) for _ in range(m)]
    sb = [R.randint(124, 130) for _ in range(n)]
    C = [[gw.rand_float("f32", -1, 4) for _ in range(n)] for _ in range(m)]
    Av = [[elem_val("e4m3", A[i][kk]) * F(2) ** (sa[i] - 127) for kk in range(k)]
          for i in range(m)]
    Bv = [[value("e4m3", B[kk][j]) * F(2) ** (sb[j] - 127) for j in range(n)] for kk in range(k)]
    D = mma_float(Av, Bv, C, "f32")
    da, db = tc_desc(a_off, a_lbo, a_sbo), tc_desc(b_off, b_lbo, b_sbo)
    lanes, init = {}, {}
    for h in range(ctas):
        a_img = (a_off, A_stored[h * mh:(h + 1) * mh], a_lbo, a_sbo)
        b_img = (b_off, [row[h * nh:(h + 1) * nh] for row in B], b_lbo, b_sbo)
        if pair:
            bg = pair_cta(h, init, size, a_img, b_img, 8, nbg)
        else:
            init = cta_image(size, a_img, b_img, 8)
            bg = [[R.randrange(1 << 32) for _ in range(nbg)] for _ in range(128)]
        for p in range(4):  # scale columns: the same words in every partition
            for l in range(32):
                bg[32 * p + l][16:24] = bg[l][16:24]

        put_factors(bg, 16, [[f] for f in sa[h * mh:(h + 1) * mh]], a_id)
        if pair and m == 128:
            for j in range(n):  # 2x2: each half of N in its two partitions
                half, i = j // (n // 2), j % (n // 2)
                for lane in (64 * half + i % 32, 64 * half + 32 + i % 32):
                    w = bg[lane][20 + i // 32]
                    bg[lane][20 + i // 32] = (w & ~(0xFF << 8 * b_id)) | sb[j] << 8 * b_id
        else:
            put_factors(bg, 20, [[f] for f in sb], b_id)
        if sp:
            for (lane, col), word in tmem_meta("f8f6f4", meta[h * mh:(h + 1) * mh], 0).items():
                bg[lane][24 + col] = word
        tm = [row[:] for row in bg]
        for r in range(mh):
            for j in range(n):
                lane, col = (r, j) if not (pair and m == 128) else (r + 64 * (j // nh), j % nh)
                bg[lane][col] = C[h * mh + r][j]
                tm[lane][col] = D[h * mh + r][j]
        if pair:
            pair_rows(h, lanes, [hx(da, 16), hx(db, 16), hx(idv), "1"], bg, tm)
        else:
            for l in range(128):
                lanes[l] = (cta_lane_ins(l) + [hx(da, 16), hx(db, 16), hx(idv), "1"]
                            + [hx(v) for v in bg[l]], [hx(v) for v in tm[l]])
    expect = ({f"rank {h} 0x0": ["*"] * 4 for h in range(2)} if pair else {0: ["*"] * 4})
    g.case("random inputs", lanes, init=init, expect=expect)
    return g


def mma_sp_pair_group(kind, at, bt, acc, n, k, sel=0):
    """tcgen05.mma.sp.cta_group::2 with M = 256 (Layout A): each CTA keeps its 128 rows' stored
    half of A (shared memory) and their metadata in its own tensor memory, in the M = 128 layout
    (tmem_meta; the ISA's figures are titled "M = 128 / M = 256"), at the same address; B's and
    D's halves as mma_pair_group."""
    m = 256
    ebits, mh, nh, (a_lbo, a_sbo), (b_lbo, b_sbo), a_off, b_off, size = pair_smem(at, m, n, k)
    nbg = max(16, 1 << (n + 2 - 1).bit_length())
    dfmt = {"f16": 0, "f32": 1, "s32": 2}[acc]
    idv = idesc(dfmt, at, bt, m, n) | 1 << 2 | sel
    op = (f"add.u32 tm, ta, {n}; "
          f"@q tcgen05.mma.sp.cta_group::2.kind::{kind} [ta], da, db, [tm], id, pe")
    head = pair_head(op, max(32, nbg), nbg, ["da:sdesc", "db:sdesc", "id:b32", "pe:pred"], size, " tm:b32")
    g = Group(f"tcgen05.mma.sp.cta_group::2.kind::{kind} M={m} N={n} K={k}, {at} x {bt} -> {acc}"
              f", selector {sel}: a CTA pair, each CTA's rows of A {'1:2' if at == 'tf32' else '2:4'}"
              " sparse with their metadata in its own tensor memory after D's columns (rank 0's "
              "thread 0 issues; D read back in both CTAs)", head)
    A_stored, A, meta = sparse_a(at, k, m)
    B = [[rand_elem(bt) for _ in range(n)] for _ in range(k)]
    C, D = accumulate(A, B, at, bt, acc)
    da, db = tc_desc(a_off, a_lbo, a_sbo), tc_desc(b_off, b_lbo, b_sbo)
    lanes, init = {}, {}
    for h in range(2):
        bg = pair_cta(h, init, size, (a_off, A_stored[h * mh:(h + 1) * mh], a_lbo, a_sbo),
                      (b_off, [row[h * nh:(h + 1) * nh] for row in B], b_lbo, b_sbo), ebits, nbg)
        for (lane, col), word in tmem_meta(kind, meta[h * mh:(h + 1) * mh], sel).items():
            bg[lane][n + col] = word
        tm = [row[:] for row in bg]
        for r in range(mh):
            for j in range(n):
                bg[r][j] = C[h * mh + r][j]
                tm[r][j] = D[h * mh + r][j]
        pair_rows(h, lanes, [hx(da, 16), hx(db, 16), hx(idv), "1"], bg, tm)
    g.case("random inputs", lanes, init=init,
           expect={f"rank {h} 0x0": ["*"] * 4 for h in range(2)})
    return g


def mx4_sp_group(m=128, n=16):
    """tcgen05.mma.sp.cta_group::1.kind::mxf4nvf4.block_scale.block16 (.scale_vec::4X), M = 128,
    N = 16, K = 128: A "pair-wise structured sparse at a granularity of 4:8" (§9.7.16.10.8.3):
    each chunk of eight elements keeps two pairs, its 4-bit field the two pairs' places (0-3,
    the first in the low 2 bits), the stored M x 64 half packed two e2m1 to a byte (element 2j
    in the low nibble of byte j, the dense 4-bit K-major layout); the metadata as Figure 267's
    (tmem_meta's 8-bit kinds) from column 24, selector "assumed to be 0"; four ue8m0 factors per
    row of A (column of B), one per 32 of K, in bytes 0-3 of the cell (A/B ID 0) at column 16
    (scale_A) and 20 (scale_B) as mx_pair_group's. D = Σ (a·2^sa)(b·2^sb) + C in f32."""
    k = 128
    a_lbo, a_sbo = 0x1000, 0x80
    b_lbo, b_sbo = 0x200, 0x80
    a_off, b_off = 0x400, 0x2400
    size = b_off + (k // 32) * b_lbo
    nbg = 32
    idv = 1 << 2 | 1 << 7 | 1 << 10 | (n >> 3) << 17 | 1 << 23 | (m >> 4) << 24
    op = ("add.u32 sa, ta, 16; add.u32 sb, ta, 20; add.u32 tm, ta, 24; "
          "@q tcgen05.mma.sp.cta_group::1.kind::mxf4nvf4.block_scale.block16 "
          "[ta], da, db, [tm], id, [sa], [sb], pe")
    g = Group(f"tcgen05.mma.sp.cta_group::1.kind::mxf4nvf4.block_scale.block16 M={m} N={n} "
              f"K={k}, e2m1 x e2m1 -> f32, four ue8m0 factors per row/column (ID 0): A 4:8 sparse "
              "in pairs, two e2m1 to a byte, its metadata in tensor memory",
              cta_head(op, 32, nbg, ["da:sdesc", "db:sdesc", "id:b32", "pe:pred"], size,
                       " sa:b32 sb:b32 tm:b32"))

    def v4(c):
        return value("e2m1", c << 2) if c else F(0)
    stored = [[R.randrange(16) for _ in range(k // 2)] for _ in range(m)]
    A = [[0] * k for _ in range(m)]
    meta = [[0] * (k // 8) for _ in range(m)]
    for i in range(m):
        for c in range(k // 8):
            p0, p1 = sorted(R.sample(range(4), 2))
            meta[i][c] = p0 | p1 << 2
            for e, p in enumerate((p0, p1)):
                A[i][8 * c + 2 * p:8 * c + 2 * p + 2] = stored[i][4 * c + 2 * e:4 * c + 2 * e + 2]
    B = [[R.randrange(16) for _ in range(n)] for _ in range(k)]
    sa = [[R.randint(124, 130) for _ in range(4)] for _ in range(m)]
    sb = [[R.randint(124, 130) for _ in range(4)] for _ in range(n)]
    C = [[gw.rand_float("f32", -1, 4) for _ in range(n)] for _ in range(m)]
    Av = [[v4(A[i][kk]) * F(2) ** (sa[i][kk // 32] - 127) for kk in range(k)] for i in range(m)]
    Bv = [[v4(B[kk][j]) * F(2) ** (sb[j][kk // 32] - 127) for j in range(n)] for kk in range(k)]
    D = mma_float(Av, Bv, C, "f32")
    img = bytearray(size)
    place(img, a_off, stored, 4, a_lbo, a_sbo)
    place(img, b_off, B, 4, b_lbo, b_sbo, transpose=True)
    bg = [[R.randrange(1 << 32) for _ in range(nbg)] for _ in range(128)]
    put_factors(bg, 16, sa, 0, keep=False)
    put_factors(bg, 20, sb, 0, keep=False)
    for (lane, col), word in tmem_meta("f8f6f4", meta, 0).items():
        bg[lane][24 + col] = word
    da, db = tc_desc(a_off, a_lbo, a_sbo), tc_desc(b_off, b_lbo, b_sbo)
    return cta_case(g, bg, C, D, [hx(da, 16), hx(db, 16), hx(idv), "1"], image_words(img))


def mma_pair_tmem_group(m, n, a_tmem=False, mask=None):
    """tcgen05.mma.cta_group::2.kind::f16, f16 x f16 -> f32, K = 16, over a CTA pair as
    mma_pair_group, with A in tensor memory (`a_tmem`: each CTA's M/2 rows at the column after
    D's, two f16 to a 32-bit column, element k at bits 16·(k % 2), the lanes of D's rows: M =
    256 local row r in lane r; M = 128 (Layout B) ⚠ local row r in lanes r and 64 + r, the
    rows duplicated as CUTLASS's TmemAllocMode::Duplicated says) and/or a disable-output-lane
    mask (`mask`: eight words; ⚠ ptxjit's reading of "the least significant bit of the first
    element ... lane 0" with a vector of 8 for .cta_group::2: bit b of the pair's 256 bits,
    word b / 32, names lane b % 128 of rank b / 128; a set bit keeps that lane's cells of D)."""
    k, ebits = 16, 16
    mh, nh = m // 2, n // 2
    cols = n if m == 256 else nh  # D's columns in each CTA's tensor memory
    acols = k * ebits // 32
    a_lbo, a_sbo = 0x1000, 0x80
    b_lbo, b_sbo = max(0x200, (nh // 8) * 0x80), 0x80
    a_off, b_off = 0x400, 0x2000 + 0x400
    size = b_off + (k * ebits // 128) * b_lbo
    nbg = max(16, 1 << (cols + (acols if a_tmem else 0) - 1).bit_length())
    idv = idesc(1, "f16", "f16", m, n)
    pre, regs, mask_s = "", "", ""
    if a_tmem:
        pre, regs = f"add.u32 at, ta, {cols}; ", " at:b32"
    if mask is not None:
        pre += "".join(f"mov.b32 k{i}, {hx(w)}; " for i, w in enumerate(mask))
        mask_s = " {" + ", ".join(f"k{i}" for i in range(8)) + "},"
        regs += "".join(f" k{i}:b32" for i in range(8))
    op = (f"{pre}@q tcgen05.mma.cta_group::2.kind::f16 [ta], {'[at]' if a_tmem else 'da'}, db, "
          f"id,{mask_s} pe")
    ins = ([] if a_tmem else ["da:sdesc"]) + ["db:sdesc", "id:b32", "pe:pred"]
    head = pair_head(op, max(32, nbg), nbg, ins, size, regs)
    g = Group(f"tcgen05.mma.cta_group::2.kind::f16 M={m} N={n} K={k}, f16 x f16 -> f32: a CTA "
              "pair" + (", A in tensor memory after D's columns" + (
                  " (each CTA's 64 rows in lanes 0-63 and again in 64-127, ⚠ CUTLASS's reading)"
                  if m == 128 else "") if a_tmem else "")
              + (", disable-output-lane (8 words: words 0-3 rank 0's lanes, 4-7 rank 1's, ⚠ "
                 "ptxjit's reading; set bits keep their lanes)" if mask is not None else "")
              + " (rank 0's thread 0 issues; D read back in both CTAs)", head)
    A = [[rand_elem("f16") for _ in range(k)] for _ in range(m)]
    B = [[rand_elem("f16") for _ in range(n)] for _ in range(k)]
    C = [[gw.rand_float("f32", -1, 4) for _ in range(n)] for _ in range(m)]
    D = mma_float([[elem_val("f16", v) for v in row] for row in A],
                  [[elem_val("f16", v) for v in row] for row in B], C, "f32")
    da, db = tc_desc(a_off, a_lbo, a_sbo), tc_desc(b_off, b_lbo, b_sbo)
    lanes, init = {}, {}
    for h in range(2):
        a_img = None if a_tmem else (a_off, A[h * mh:(h + 1) * mh], a_lbo, a_sbo)
        bg = pair_cta(h, init, size, a_img, (b_off, [row[h * nh:(h + 1) * nh] for row in B],
                                             b_lbo, b_sbo), ebits, nbg)
        if a_tmem:
            for r in range(mh):
                row = A[h * mh + r]
                words = [row[2 * c] | row[2 * c + 1] << 16 for c in range(acols)]
                for lane in ((r, 64 + r) if m == 128 else (r,)):
                    bg[lane][cols:cols + acols] = words
        tm = [row[:] for row in bg]
        for r in range(mh):
            for j in range(n):
                lane, col = (r, j) if m == 256 else (r + 64 * (j // nh), j % nh)
                kept = mask is not None and (mask[4 * h + lane // 32] >> (lane % 32)) & 1
                bg[lane][col] = C[h * mh + r][j]
                tm[lane][col] = C[h * mh + r][j] if kept else D[h * mh + r][j]
        pair_rows(h, lanes, ([] if a_tmem else [hx(da, 16)]) + [hx(db, 16), hx(idv), "1"], bg,
                  tm)
    g.case("random inputs", lanes, init=init,
           expect={f"rank {h} 0x0": ["*"] * 4 for h in range(2)})
    return g


def mma_ws_tmem_group(m, n):
    """tcgen05.mma.ws.cta_group::1.kind::f16, f16 x f16 -> f32, M = 64 or 32, K = 16, A in
    tensor memory: D in WS_PLACE's layout (E: N in halves over lanes 0-63 and 64-127; G: in
    quarters over the four partitions); A's row r, two f16 to a 32-bit column (element k at
    bits 16·(k % 2)), at the column after D's in lane r of every lane group that computes a
    part of N (lanes r + M·q, q = 0..128/M): ⚠ the layout public sm_100 code run on hardware
    writes (docs/isa-notes.md: FlashMLA's .ws A-in-tensor-memory atoms, "A is always replicated
    across the tensor memory lanes"); the ISA's Layouts E and G place D only."""
    k, ebits = 16, 16
    dcols = n * m // 128
    acols = k * ebits // 32
    b_lbo, b_sbo = max(0x200, (n // 8) * 0x80), 0x80
    b_off = 0x400
    size = b_off + (k * ebits // 128) * b_lbo
    nbg = 1 << (dcols + acols - 1).bit_length()
    idv = idesc(1, "f16", "f16", m, n)
    op = (f"add.u32 at, ta, {dcols}; "
          "@q tcgen05.mma.ws.cta_group::1.kind::f16 [ta], [at], db, id, pe")
    g = Group(f"tcgen05.mma.ws.cta_group::1.kind::f16 M={m} N={n} K={k}, f16 x f16 -> f32, A "
              f"in tensor memory after D's columns, its rows repeated every {m} lanes (⚠ public "
              "sm_100 code's layout) (thread 0; commit; D read back with .32x32b)",
              cta_head(op, max(32, nbg), nbg, ["db:sdesc", "id:b32", "pe:pred"], size,
                       " at:b32"))
    A = [[rand_elem("f16") for _ in range(k)] for _ in range(m)]
    B = [[rand_elem("f16") for _ in range(n)] for _ in range(k)]
    C, D = accumulate(A, B, "f16", "f16", "f32")
    img = bytearray(size)
    place(img, b_off, B, ebits, b_lbo, b_sbo, transpose=True)
    bg = [[R.randrange(1 << 32) for _ in range(nbg)] for _ in range(128)]
    for r in range(m):
        words = [A[r][2 * c] | A[r][2 * c + 1] << 16 for c in range(acols)]
        for q in range(128 // m):
            bg[r + m * q][dcols:dcols + acols] = words
    tm = [row[:] for row in bg]
    for r in range(m):
        for j in range(n):
            lane, col = WS_PLACE[m](n, r, j)
            bg[lane][col] = C[r][j]
            tm[lane][col] = D[r][j]
    db = tc_desc(b_off, b_lbo, b_sbo)
    lanes = {l: (cta_lane_ins(l) + [hx(db, 16), hx(idv), "1"] + [hx(v) for v in bg[l]],
                 [hx(v) for v in tm[l]]) for l in range(128)}
    g.case("random inputs", lanes, init=image_words(img), expect={0: ["*"] * 4})
    return g


def mx4_tmem_group(kind, n=16):
    """tcgen05.mma.cta_group::1.kind::mxf4.block_scale (.scale_vec::2X, A ID 2, B ID 0) or
    .kind::mxf4nvf4.block_scale.block16 (.scale_vec::4X, IDs 0), M = 128, K = 64, e2m1 x e2m1
    -> f32, ue8m0 factors, A in tensor memory: ⚠ in the packed format these kinds take in
    shared memory (§9.7.16.10.4.6: two e2m1 to a byte, element 2j in the low half of byte j), so
    eight to a 32-bit column: row i in lane i, element kk at column 24 + kk / 8, bits
    4·(kk % 8) (docs/isa-notes.md); B packed so in shared memory; K/NX elements per factor, row
    i's factors at lane i % 32 of every partition, column 16 + i / 32, bytes ID..ID + NX, column
    j of B's at column 20 (as mx4_sp_group's). D = Σ (a·2^sa)(b·2^sb) + C in f32."""
    m, k = 128, 64
    nv, a_id, b_id = (2, 2, 0) if kind == "mxf4" else (4, 0, 0)
    qual = "mxf4.block_scale" if kind == "mxf4" else "mxf4nvf4.block_scale.block16"
    b_lbo, b_sbo = 0x200, 0x80
    b_off = 0x400
    size = b_off + (k // 32) * b_lbo
    nbg = 32
    idv = (b_id << 4 | 1 << 7 | 1 << 10 | (n >> 3) << 17 | 1 << 23 | (m >> 4) << 24
           | a_id << 29)
    op = ("add.u32 sa, ta, 16; add.u32 sb, ta, 20; add.u32 at, ta, 24; "
          f"@q tcgen05.mma.cta_group::1.kind::{qual} [ta], [at], db, id, [sa], [sb], pe")
    g = Group(f"tcgen05.mma.cta_group::1.kind::{qual} M={m} N={n} K={k}, e2m1 x e2m1 -> f32, "
              f"{nv} ue8m0 factors per row/column (A ID {a_id}, B ID {b_id}): A in tensor memory, "
              "eight e2m1 to a column (⚠ the packed shared-memory format kept)",
              cta_head(op, 32, nbg, ["db:sdesc", "id:b32", "pe:pred"], size,
                       " sa:b32 sb:b32 at:b32"))

    def v4(c):
        return value("e2m1", c << 2) if c else F(0)
    A = [[R.randrange(16) for _ in range(k)] for _ in range(m)]
    B = [[R.randrange(16) for _ in range(n)] for _ in range(k)]
    sa = [[R.randint(124, 130) for _ in range(nv)] for _ in range(m)]
    sb = [[R.randint(124, 130) for _ in range(nv)] for _ in range(n)]
    C = [[gw.rand_float("f32", -1, 4) for _ in range(n)] for _ in range(m)]
    blk = k // nv
    Av = [[v4(A[i][kk]) * F(2) ** (sa[i][kk // blk] - 127) for kk in range(k)] for i in range(m)]
    Bv = [[v4(B[kk][j]) * F(2) ** (sb[j][kk // blk] - 127) for j in range(n)] for kk in range(k)]
    D = mma_float(Av, Bv, C, "f32")
    img = bytearray(size)
    place(img, b_off, B, 4, b_lbo, b_sbo, transpose=True)
    bg = [[R.randrange(1 << 32) for _ in range(nbg)] for _ in range(128)]
    put_factors(bg, 16, sa, a_id, keep=False)
    put_factors(bg, 20, sb, b_id, keep=False)
    for i in range(m):
        bg[i][24:32] = [sum(A[i][8 * c + e] << 4 * e for e in range(8)) for c in range(k // 8)]
    db = tc_desc(b_off, b_lbo, b_sbo)
    return cta_case(g, bg, C, D, [hx(db, 16), hx(idv), "1"], image_words(img))


def gen_tcgen05():
    R.seed(3402)
    gs = []
    for shape, lane0, col0 in [("32x32b", 0, 4), ("16x64b", 16, 4), ("16x128b", 0, 4),
                               ("16x256b", 16, 0), ("16x32bx2", 16, 2)]:
        for num in (1, 2):
            for store in (False, True):
                gs.append(ldst_group(shape, num, store, lane0, col0))
    for shape in ("32x32b", "16x64b"):
        gs.append(ldst_group(shape, 2, False, 0, 4, pack=True))
        gs.append(ldst_group(shape, 2, True, 0, 4, pack=True))
    gs.append(shift_group())
    for shape in CP_DEST:
        gs.append(cp_group(shape))
    gs += [
        mma_group("f16", "f16", "f16", "f32", 128, 16, 16),
        mma_group("f16", "f16", "f16", "f32", 128, 16, 16, enable_d=0),
        mma_group("f16", "bf16", "bf16", "f32", 64, 8, 16),
        mma_group("f16", "f16", "f16", "f32", 128, 16, 16, neg_a=True),
        mma_group("tf32", "tf32", "tf32", "f32", 128, 16, 8),
        mma_group("i8", "s8", "u8", "s32", 128, 16, 32),
        mma_group("i8", "s8", "s8", "s32", 64, 16, 32, sat=True),
        mma_group("f8f6f4", "e4m3", "e5m2", "f32", 128, 16, 32),
        mma_group("f16", "f16", "f16", "f32", 128, 64, 16, ws=True),
        mx_group(),
        mma_sp_group("f16", "f16", "f16", "f32", 16, 32, sel=0),
        mma_sp_group("f16", "bf16", "bf16", "f32", 32, 32, sel=1),
        mma_sp_group("f16", "f16", "f16", "f32", 16, 32, sel=1, enable_d=0),
        mma_sp_group("i8", "s8", "u8", "s32", 16, 64),
        mma_sp_group("i8", "s8", "s8", "s32", 32, 64, sat=True),
        mma_sp_group("f8f6f4", "e4m3", "e5m2", "f32", 16, 64),
        mma_pair_group("f16", "f16", "f16", "f32", 256, 32, 16),
        mma_pair_group("f16", "bf16", "bf16", "f32", 256, 64, 16, enable_d=0),
        mma_pair_group("f16", "f16", "f16", "f32", 128, 32, 16),
        mma_pair_group("tf32", "tf32", "tf32", "f32", 256, 16, 8),
        mma_pair_group("i8", "s8", "u8", "s32", 256, 32, 32),
        mma_pair_group("i8", "s8", "s8", "s32", 128, 64, 32, sat=True),
        mma_pair_group("f8f6f4", "e4m3", "e5m2", "f32", 128, 64, 32),
    ]
    # The later groups draw from their own seeds, so that adding groups leaves the earlier
    # ones as they were.
    R.seed(3403)
    gs += [
        mma_sp_group("tf32", "tf32", "tf32", "f32", 16, 16, sel=1),
        mma_sp_group("f16", "f16", "f16", "f32", 64, 32, sel=1, ws=True, m=64),
        mma_sp_group("i8", "s8", "u8", "s32", 64, 64, ws=True, m=32),
        mma_sp_group("tf32", "tf32", "tf32", "f32", 64, 16, ws=True, m=32),
    ]
    # The forms of .sp with M = 64, block scaling over a CTA pair and with .sp, and .sp over a
    # CTA pair: their own seed again.
    R.seed(3404)
    gs += [
        mma_sp_group("f16", "f16", "f16", "f32", 16, 32, sel=1, m=64, align=0),
        mma_sp_group("i8", "s8", "u8", "s32", 16, 64, m=64, align=16),
        mma_sp_group("tf32", "tf32", "tf32", "f32", 8, 16, sel=0, m=64, align=16),
        mx_pair_group(256, 16),
        mx_pair_group(128, 16),
        mx_pair_group(128, 16, pair=False, sp=True),
        mx_pair_group(256, 16, sp=True),
        mma_sp_pair_group("f16", "f16", "f16", "f32", 16, 32, sel=1),
        mma_sp_pair_group("i8", "s8", "s8", "s32", 32, 64),
    ]
    R.seed(3406)
    gs.append(mx4_sp_group())
    # A 4-bit A in tensor memory, and the CTA pair's A in tensor memory with M = 128 and its
    # disable-output-lane: their own seed.
    R.seed(3407)
    gs += [
        mx4_tmem_group("mxf4"),
        mx4_tmem_group("mxf4nvf4"),
        mma_pair_tmem_group(128, 32, a_tmem=True),
        mma_pair_tmem_group(128, 32, mask=[R.randrange(1 << 32) for _ in range(8)]),
        mma_pair_tmem_group(256, 16, a_tmem=True, mask=[R.randrange(1 << 32) for _ in range(8)]),
    ]
    # .ws with A in tensor memory at M = 64 and 32: their own seed.
    R.seed(3408)
    gs += [mma_ws_tmem_group(64, 64), mma_ws_tmem_group(32, 64)]
    write("tcgen05.isa", """
tcgen05 (PTX ISA §9.7.16 "TensorCore 5th Generation Family Instructions": §9.7.16.7.1
tcgen05.alloc/dealloc/relinquish_alloc_permit, tcgen05.ld, tcgen05.st,
§9.7.16.2.3 "Matrix fragments for tcgen05.ld/st" (the data-path layouts of shapes 32x32b,
16x64b, 16x128b, 16x256b, 16x32bx2), .pack::16b/.unpack::16b). Each snippet allocates 32
columns (the address through the .shared word at 0, expected '*'), writes a background with
.32x32b.x16 (lane = the thread, column = the register: the reference layout), then stores or
loads one shape at a lane/column offset and reads the cells back with .32x32b.x16, and frees
the columns. The lane/register -> (row, column) maps are gen_warpgroup.py's ldst_pos, the ISA
figures transcribed (as Apache TVM's tirx docs tabulate them; 16x32bx2: lanes 0-15 rows 0-15 of
the first half, lanes 16-31 those of the half at the immediate offset). .unpack::16b writes the
register's halves to two adjacent columns (the other 16 bits of each column unspecified: '*').
§9.7.16.9.3 tcgen05.shift (.down: lane i + 1 takes lane i's 8 columns, the first lane '*');
§9.7.16.9.2 tcgen05.cp and §9.7.16.2.3's destination lanes per shape/multicast, the source a
K-major canonical layout of 1-byte elements (gen_warpgroup.py's canon_addr, tc_desc: the
tcgen05 descriptor with bits 46-48 = 0b001); §9.7.16.10 tcgen05.mma: the instruction
descriptor table (idesc), the D data-path layouts of §9.7.16.10.5 (M = 128 Layout D, M = 64
Layout F), block scaling §9.7.16.10.7 (scale factors' lanes/columns per docs/isa-notes.md);
§9.7.16.10.9.2 tcgen05.mma.sp, M = 128: a 2:4 sparse A (1:2 for .kind::tf32; sparse_a), its
metadata in tensor memory as docs/isa-notes.md reads the figures of §9.7.16.10.8.4 (tmem_meta:
the layout public sm_100 code writes; the ISA gives it in figures only), the selector in idesc
bits 0-1; tcgen05.mma.ws.sp (§9.7.16.10.9.3) with M = 64 and 32: D in Layouts E and G, the
metadata of rows 0..M repeated every M lanes;
.cta_group::2 (§9.7.16.5): a cluster of two 4-warp CTAs, one multiply whose A, B and D halves
each CTA holds (mma_pair_group; docs/isa-notes.md ".cta_group::2": Layouts A and B), with A in
tensor memory (M = 128: each CTA's rows in lanes 0-63 and again in 64-127) and the 8-word
disable-output-lane (words 0-3 rank 0's lanes, 4-7 rank 1's: ⚠ ptxjit's reading, isa-notes);
.kind::mxf4/::mxf4nvf4 with A in tensor memory packed eight e2m1 to a column (⚠ isa-notes);
tcgen05.mma.ws with A in tensor memory at M = 64 and 32 (A's rows repeated every M lanes, one
copy for each lane group of Layouts E and G: ⚠ public sm_100 code's layout, isa-notes);
tcgen05.commit arriving on an mbarrier that every thread waits on. 4-warp
groups: warp 0 allocates, thread 0 issues; D = A·B + C as in wgmma.isa (products exact, one
rounding per k ascending, docs/isa-notes.md).""",
          gs, version="8.8", target="sm_100a")


# ---------------------------------------------------------------- mbarrier
# §9.7.13.15: init(c) starts phase 0 with c pending arrivals and tx-count 0; arrive(a) lowers
# the pending count by a, expect-tx(n) raises the tx-count by n, complete-tx(n) lowers it; the
# phase completes when both are 0: the phase parity flips and the pending count is c again.
# A state token is the object's state before the arrive-on ("prior to the arrive-on
# operation"); pending_count reads its pending count. test_wait/try_wait with a token: true when
# the token's phase has completed; .parity P: true when the phase of parity P has completed
# (the current phase's parity differs from P).

class Mbar:
    def __init__(self, c):
        self.c, self.pending, self.tx, self.phase = c, c, 0, 0

    def _check(self):
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.c

    def arrive(self, a=1):
        token = (self.phase, self.pending)
        self.pending -= a
        self._check()
        return token

    def arrive_drop(self, a=1):
        # "the expected arrival count ... is decremented by count", then the arrive-on.
        self.c -= a
        return self.arrive(a)

    def expect_tx(self, n):
        self.tx += n

    def complete_tx(self, n):
        self.tx -= n
        self._check()

    def parity_done(self, p):
        return int(self.phase % 2 != p)

    def token_done(self, token):
        return int(self.phase > token[0])


MB = "mbarrier.{}.shared::cta.b64"


def gen_mbarrier():
    # Its own seed: what it draws does not depend on the groups written before it.
    R.seed(3405)
    gs = []
    g = Group("expect_tx then arrive: phase 0 completes only when complete_tx brings the "
              "tx-count back to 0 (lane 0 alone)",
              f"{MB.format('init')} [m], 1; {MB.format('expect_tx')} [m], n; "
              f"{MB.format('arrive')} t, [m]; {MB.format('test_wait.parity')} p0, [m], 0; "
              f"{MB.format('complete_tx')} [m], c; {MB.format('test_wait.parity')} p1, [m], 0"
              " :: p0:pred p1:pred <- m:sptr n:u32 c:u32 ; shared 16 ; regs t:b64")
    for n, c in [(16, 16), (32, 8), (0, 0), (1000, 1000)]:
        b = Mbar(1)
        b.expect_tx(n)
        b.arrive()
        p0 = b.parity_done(0)
        b.complete_tx(c)
        p1 = b.parity_done(0)
        g.case(f"expect {n}, complete {c}", {0: (["0x8", str(n), str(c)], [str(p0), str(p1)])},
               expect={0x8: ["*", "*"]})
    gs.append(g)
    g = Group("arrive.expect_tx (one operation: expect-tx, then the arrival), complete_tx in two "
              "parts",
              f"{MB.format('init')} [m], 1; {MB.format('arrive.expect_tx')} t, [m], n; "
              f"{MB.format('complete_tx')} [m], c; {MB.format('test_wait.parity')} p0, [m], 0; "
              f"{MB.format('complete_tx')} [m], d; {MB.format('test_wait.parity')} p1, [m], 0"
              " :: p0:pred p1:pred <- m:sptr n:u32 c:u32 d:u32 ; shared 16 ; regs t:b64")
    for n, c, d in [(64, 32, 32), (64, 64, 0), (48, 16, 16)]:
        b = Mbar(1)
        b.expect_tx(n)
        b.arrive()
        b.complete_tx(c)
        p0 = b.parity_done(0)
        b.complete_tx(d)
        p1 = b.parity_done(0)
        g.case(f"expect {n}, complete {c} + {d}",
               {0: (["0x0", str(n), str(c), str(d)], [str(p0), str(p1)])}, expect={0: ["*", "*"]})
    gs.append(g)
    g = Group("arrive with a count, pending_count of each token (the pending count before the "
              "arrival), test_wait.parity 0/1 afterwards (lane 0 alone)",
              f"{MB.format('init')} [m], c; {MB.format('arrive')} t1, [m], a; "
              f"mbarrier.pending_count.b64 n1, t1; {MB.format('arrive')} t2, [m], b; "
              f"mbarrier.pending_count.b64 n2, t2; {MB.format('test_wait.parity')} p0, [m], 0; "
              f"{MB.format('test_wait.parity')} p1, [m], 1"
              " :: n1:u32 n2:u32 p0:pred p1:pred <- m:sptr c:u32 a:u32 b:u32 ; shared 16"
              " ; regs t1:b64 t2:b64")
    for c, a, bb in [(5, 2, 1), (5, 2, 3), (4, 4, 1), (3, 3, 3), (1000, 1, 998)]:
        b = Mbar(c)
        t1 = b.arrive(a)
        t2 = b.arrive(bb)
        g.case(f"count {c}, arrivals {a} and {bb}",
               {0: (["0x0", str(c), str(a), str(bb)],
                    [str(t1[1]), str(t2[1]), str(b.parity_done(0)), str(b.parity_done(1))])},
               expect={0: ["*", "*"]})
    gs.append(g)
    g = Group("test_wait and try_wait with a state token: false while the token's phase is "
              "pending, true once it completed (count 2, lane 0 arrives twice)",
              f"{MB.format('init')} [m], 2; {MB.format('arrive')} t, [m]; "
              f"{MB.format('test_wait')} p0, [m], t; {MB.format('arrive')} u, [m]; "
              f"{MB.format('test_wait')} p1, [m], t; {MB.format('try_wait')} p2, [m], t; "
              f"{MB.format('try_wait.parity')} p3, [m], 0"
              " :: p0:pred p1:pred p2:pred p3:pred <- m:sptr ; shared 16 ; regs t:b64 u:b64")
    b = Mbar(2)
    t = b.arrive()
    p0 = b.token_done(t)
    b.arrive()
    g.case("", {0: (["0x8"], [str(p0), str(b.token_done(t)), str(b.token_done(t)),
                             str(b.parity_done(0))])}, expect={0x8: ["*", "*"]})
    gs.append(g)
    g = Group("inval, then init again: the object starts over (count 1, one arrival completes "
              "phase 0)",
              f"{MB.format('init')} [m], 3; {MB.format('arrive')} t, [m]; {MB.format('inval')} [m]; "
              f"{MB.format('init')} [m], 1; {MB.format('arrive')} t, [m]; "
              f"{MB.format('test_wait.parity')} p0, [m], 0"
              " :: p0:pred <- m:sptr ; shared 16 ; regs t:b64")
    b = Mbar(1)
    b.arrive()
    g.case("", {0: (["0x0"], [str(b.parity_done(0))])}, expect={0: ["*", "*"]})
    gs.append(g)
    g = Group("two warps: thread 0 initializes count c, every thread arrives once "
              "(bar.sync between), then every thread tests parity 0",
              f"@q {MB.format('init')} [m], c; bar.sync 0; {MB.format('arrive')} t, [m]; "
              f"bar.sync 0; {MB.format('test_wait.parity')} p0, [m], 0"
              " :: p0:pred <- m:sptr q:pred c:u32 ; shared 16 ; warps 2 ; regs t:b64")
    for c in (64, 65, 32):
        b = Mbar(c)
        for _ in range(64):
            b.arrive()
        g.case(f"count {c}", {l: (["0x8", str(int(l == 0)), str(c)], [str(b.parity_done(0))])
                              for l in range(64)}, expect={0x8: ["*", "*"]})
    gs.append(g)
    gs += mbarrier_sem_scope()
    gs += mbarrier_cluster()
    write("mbarrier.isa", """
mbarrier (PTX ISA §9.7.13.15 "Parallel Synchronization and Communication Instructions:
mbarrier": init, arrive (with a count), arrive.expect_tx, expect_tx, complete_tx, test_wait and
try_wait (state token and .parity), pending_count, inval), the forms memory.isa does not hold.
Results from the ISA's phase state machine (gen_warpgroup.py's Mbar: pending arrivals,
tx-count, phase; a token is the state before its arrive-on); the object's words are opaque
('*'). The .release/.relaxed and .acquire/.relaxed forms with .cta and .cluster scope (a
memory-ordering qualifier changes no count), and arrivals, expect-tx and complete-tx on another
CTA's object through .shared::cluster in clusters of 2 and 4.""", gs, version="8.6", target="sm_90")


def mbarrier_sem_scope():
    """The memory-ordering and scope qualifiers (PTX ISA 8.0 .release/.acquire with .cta and
    .cluster; 8.6 .relaxed): the same phase state machine, one thread."""
    gs = []
    combos = [(".release.cta", ".acquire.cta"), (".release.cluster", ".acquire.cluster"),
              (".relaxed.cta", ".relaxed.cluster"), (".relaxed.cluster", ".acquire.cta"),
              ("", ".relaxed.cta")]
    for arr, wait in combos:
        mb = "mbarrier.{}%s.shared::cta.b64"
        g = Group(f"arrive{arr}, arrive_drop{arr} (lowering the later phases' count), "
                  f"test_wait{wait} with the first token, try_wait.parity{wait} of phases 0 and "
                  "1 after a second round of arrivals (lane 0 alone)",
                  f"{MB.format('init')} [m], c; {(mb % arr).format('arrive')} t1, [m], a; "
                  f"mbarrier.pending_count.b64 n1, t1; {(mb % arr).format('arrive_drop')} t2, [m], b; "
                  f"mbarrier.pending_count.b64 n2, t2; {(mb % wait).format('test_wait')} p0, [m], t1; "
                  f"{(mb % arr).format('arrive')} t3, [m], e; mbarrier.pending_count.b64 n3, t3; "
                  f"{(mb % wait).format('try_wait.parity')} p1, [m], 0; "
                  f"{(mb % wait).format('try_wait.parity')} p2, [m], 1"
                  " :: n1:u32 n2:u32 n3:u32 p0:pred p1:pred p2:pred <- m:sptr c:u32 a:u32 b:u32 e:u32"
                  " ; shared 16 ; regs t1:b64 t2:b64 t3:b64")
        for c, a, b, e in [(5, 2, 3, 1), (5, 1, 1, 3), (6, 2, 2, 1), (4, 4, 1, 3), (9, 3, 6, 3)]:
            if a + b > c:
                continue
            m = Mbar(c)
            t1 = m.arrive(a)
            t2 = m.arrive_drop(b)
            p0 = m.token_done(t1)
            if e > m.pending:
                continue
            t3 = m.arrive(e)
            g.case(f"count {c}, arrive {a}, drop {b}, arrive {e}",
                   {0: (["0x8", str(c), str(a), str(b), str(e)],
                        [str(t1[1]), str(t2[1]), str(t3[1]), str(p0), str(m.parity_done(0)),
                         str(m.parity_done(1))])}, expect={0x8: ["*", "*"]})
        gs.append(g)
    for sem in (".relaxed.cta", ".relaxed.cluster"):
        g = Group(f"expect_tx{sem}, complete_tx{sem}, arrive.expect_tx.release"
                  f"{sem[8:]}: phase 0 completes when the arrival and the tx-count both reach 0",
                  f"{MB.format('init')} [m], 1; mbarrier.expect_tx{sem}.shared::cta.b64 [m], n; "
                  f"mbarrier.arrive.expect_tx.release{sem[8:]}.shared::cta.b64 t, [m], x; "
                  f"mbarrier.complete_tx{sem}.shared::cta.b64 [m], c; "
                  f"mbarrier.test_wait.parity.acquire{sem[8:]}.shared::cta.b64 p0, [m], 0; "
                  f"mbarrier.complete_tx{sem}.shared::cta.b64 [m], d; "
                  f"mbarrier.test_wait.parity{sem}.shared::cta.b64 p1, [m], 0"
                  " :: p0:pred p1:pred <- m:sptr n:u32 x:u32 c:u32 d:u32 ; shared 16 ; regs t:b64")
        for n, x, c, d in [(16, 16, 32, 0), (16, 16, 16, 16), (0, 64, 32, 32), (8, 0, 8, 0)]:
            m = Mbar(1)
            m.expect_tx(n)
            m.expect_tx(x)
            m.arrive()
            m.complete_tx(c)
            p0 = m.parity_done(0)
            m.complete_tx(d)
            g.case(f"expect {n} + {x}, complete {c} + {d}",
                   {0: (["0x0", str(n), str(x), str(c), str(d)], [str(p0), str(m.parity_done(0))])},
                   expect={0: ["*", "*"]})
        gs.append(g)
    return gs


class Lane(int):
    """A cluster lane row's key: sorts as 32·rank + lane, prints as `rank.lane`."""

    def __format__(self, spec):
        return f"{self // 32}.{self % 32}"


def mbarrier_cluster():
    """Remote arrive-on operations: a thread of any CTA of the cluster arrives on rank 0's
    object through its .shared::cluster address (mapa), with .release.cluster; then each rank's
    lane 0 arrives once on its own object (.relaxed.cluster), and every thread tests its own
    CTA's object with .acquire.cluster (rank 0's: the arrivals of the whole cluster and its lane
    0's; the others': their lane 0's alone)."""
    gs = []
    sync = "barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned"
    for n in (2, 4):
        for op, extra in [("arrive", ""), ("arrive_drop", ""), ("arrive", ", k"),
                          ("arrive_drop", ", k")]:
            head = (f"@z mbarrier.init.shared::cta.b64 [m], c; fence.mbarrier_init.release.cluster; "
                    f"{sync}; mapa.shared::cluster.u32 r, m, 0; "
                    f"@y mbarrier.{op}.release.cluster.shared::cluster.b64 _, [r]{extra}; {sync}; "
                    "@z mbarrier.arrive.relaxed.cluster.shared::cta.b64 t, [m]; "
                    f"{sync}; mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 p0, [m], 0; "
                    "mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p1, [m], 1"
                    " :: p0:pred p1:pred <- z:pred y:pred m:sptr c:u32"
                    + (" k:u32" if extra else "")
                    + f" ; shared 16 ; cluster {n} ; regs r:u32 t:b64")
            g = Group(f"{op}.release.cluster.shared::cluster{' with a count' if extra else ''} "
                      f"from lanes of every rank of a cluster of {n} on rank 0's mbarrier (count "
                      "c), then one arrival of each rank's lane 0 on its own; each rank tests "
                      "its object's phases 0 and 1", head)
            for dens in (0.25, 0.5, 1.0):
                ys = {(r, l): R.random() < dens for r in range(n) for l in range(32)}
                ks = {key: (R.randrange(1, 4) if extra else 1) for key in ys}
                total = sum(ks[key] for key in ys if ys[key])
                for c in (total + 1, total + 2):
                    objs = [Mbar(c) for _ in range(n)]
                    for key in sorted(ys):
                        if ys[key]:
                            if op == "arrive_drop":
                                objs[0].arrive_drop(ks[key])
                            else:
                                objs[0].arrive(ks[key])
                    for o in objs:
                        o.arrive()
                    rows = {}
                    for (r, l), y in ys.items():
                        ins = [str(int(l == 0)), str(int(y)), "0x8", str(c)]
                        if extra:
                            ins.append(str(ks[(r, l)]))
                        rows[Lane(32 * r + l)] = (ins, [str(objs[r].parity_done(0)),
                                                        str(objs[r].parity_done(1))])
                    g.case(f"{sum(ys.values())} arriving lanes, count {c}", rows,
                           expect={f"rank {r} 0x8": ["*", "*"] for r in range(n)})
            gs.append(g)
    g = Group("expect_tx.relaxed.cluster and complete_tx.relaxed.cluster on rank 0's object from "
              "rank 1 (.shared::cluster), each rank's lane 0 the one arrival on its own: phase 0 "
              "completes when the tx-count is back to 0",
              f"@z mbarrier.init.shared::cta.b64 [m], 1; fence.mbarrier_init.release.cluster; "
              f"{sync}; mapa.shared::cluster.u32 r, m, 0; "
              "@y mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [r], n; "
              f"{sync}; @y mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [r], x; "
              "@z mbarrier.arrive.release.cluster.shared::cta.b64 t, [m]; "
              f"{sync}; mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 p0, [m], 0"
              " :: p0:pred <- z:pred y:pred m:sptr n:u32 x:u32 ; shared 16 ; cluster 2"
              " ; regs r:u32 t:b64")
    for n, x in [(64, 64), (64, 32), (0, 0), (100, 100)]:
        objs = [Mbar(1), Mbar(1)]
        objs[0].expect_tx(n)
        objs[0].complete_tx(x)
        for o in objs:
            o.arrive()
        rows = {}
        for r in range(2):
            for l in range(32):
                y = r == 1 and l == 0
                rows[Lane(32 * r + l)] = ([str(int(l == 0)), str(int(y)), "0x8", str(n), str(x)],
                                          [str(objs[r].parity_done(0))])
        g.case(f"expect {n}, complete {x}", rows,
               expect={f"rank {r} 0x8": ["*", "*"] for r in range(2)})
    gs.append(g)
    return gs


if __name__ == "__main__":
    gen_wgmma()
    gen_tcgen05()
    gen_mbarrier()
