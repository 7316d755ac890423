#!/usr/bin/env python3
"""Writes the tcgen05.mma cases for D layouts other than M = 128's: tcgen05_layouts.ptx (the
kernels of ../tcgen05/gen.py with D's lane as a parameter, and their .ws forms) and, per case,
the shared-memory byte image of A and B, the tensor-memory contents before the multiply, and
the expected contents after it, from the PTX ISA's text and numpy:

- shapes (Table 39, section 9.7.16.2.1): .cta_group::1 without .ws takes M = 64 or 128 with N
  from 8 to 256 in steps of 8 (.kind::i8: 8, 16, 24, 32, then steps of 16); .ws takes M = 32,
  64 or 128 with N = 64, 128 or 256;
- where D is (section 9.7.16.10.5, Layouts D, E, F, G; CUTLASS's tmem_frg atoms say the same),
  row r and column j of D at address (lane l0, column c0):
    Layout F (M = 64, no .ws): lane 32 (r / 16) + l0 + r % 16, column c0 + j; l0 is 0 or 16,
      and an A in tensor memory uses the same alignment (its row r in D's row r's lane);
    Layout E (M = 64, .ws): lane r + 64 (j / (N/2)), column c0 + j % (N/2);
    Layout G (M = 32, .ws): lane r + 32 (j / (N/4)), column c0 + j % (N/4);
    Layout D (M = 128): lane r, column c0 + j;
- descriptors, the narrow formats and the value ranges as ../tcgen05/gen.py.

Each kernel fills all 128 lanes x 64 columns of tensor memory with `cin` (thread t its lane:
cin[t * 64 ..]), runs one tcgen05.mma by thread 0, and every thread stores its lane's 64
columns back (out[t * 64 ..]). The expected image is cin with D's cells replaced by numpy's
A.B (+ C, the D input read from the same cells), so a cell the layout does not name must keep
its value. Every product and sum is exact (small multiples of 1/4, integers for i8).

The z_* cases add tcgen05.mma.ws's zero-column-mask-desc operand (section 9.7.16.4.3,
Table 45 and its four examples): the N-bit mask is one sub-mask (M = 128), two of N/2 bits
(M = 64) or four of N/4 bits (M = 32); sub-mask i starts with a span of ones (first span fs_i
= 1: Skip Span + 1 columns of zeros) or of zeros (fs_i = 0: Use Span + 1 columns of B), the
two spans alternate, and its Start Count sc_i low bits are dropped; a 1 bit zeroes that
column of B for the multiply. (The table's descriptions of Skip Span and Use Span are the
other way round; the examples, which zeroed_columns() reproduces, follow the field names.)
Bit 39 (Non-Zero Mask) 0 means no column is zeroed. A Column Shift (bits 56-61) other than 0
faults in ptxjit (the ISA does not say how it combines with the mask): z_shift expects that.

Run (numpy only, no GPU): python3 gen.py
"""
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "wgmma"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)
tc = gc.load_generator(os.path.join(HERE, "..", "tcgen05", "gen.py"))  # the dense tcgen05 kernels, descriptors and value helpers
wg = tc.wg

COLS = 64  # tensor-memory columns the kernels fill and read back
A_BASE, B_BASE = tc.A_BASE, tc.B_BASE

# (case, dense kernel, .ws, A type, B type, D type, M, N, D lane, A in tensor memory,
#  B layout (mn_major, x, lbo, sbo) or None (K-major, no swizzle), enable-input-d)
CASES = [
    ("f_f16_n40", "tc_f16", False, "f16", "f16", "f32", 64, 40, 0, False, None, 1),
    ("f_bf16_lane16", "tc_f16", False, "bf16", "bf16", "f32", 64, 64, 16, False, (False, 8, 16, 1024), 1),
    ("f_tf32_n8", "tc_tf32", False, "tf32", "tf32", "f32", 64, 8, 16, False, None, 0),
    ("f_s8u8_n24", "tc_i8", False, "s8", "u8", "s32", 64, 24, 16, False, None, 1),
    ("f_e4m3_e2m1", "tc_f8f6f4", False, "e4m3", "e2m1", "f32", 64, 48, 0, False, None, 1),
    ("f_atmem_lane16", "tc_atmem", False, "f16", "f16", "f32", 64, 56, 16, True, None, 1),
    ("d_f16_n24", "tc_f16", False, "f16", "f16", "f32", 128, 24, 0, False, None, 1),
    ("e_ws_f16", "tc_f16", True, "f16", "f16", "f32", 64, 128, 0, False, None, 1),
    ("e_ws_s8u8", "tc_i8", True, "s8", "u8", "s32", 64, 64, 0, False, (False, 2, 16, 256), 1),
    ("g_ws_tf32_n256", "tc_tf32", True, "tf32", "tf32", "f32", 32, 256, 0, False, None, 1),
    ("g_ws_e5m2_n64", "tc_f8f6f4", True, "e5m2", "e3m2", "f32", 32, 64, 0, False, None, 0),
]


# (case, dense kernel, A type, B type, D type, M, N, {sc}, {fs}, skip span, use span,
#  non-zero mask, column shift)
ZCASES = [
    ("z_ws_f16_m128", "tc_f16", "f16", "f16", "f32", 128, 64, [2], [1], 2, 4, 1, 0),
    ("z_ws_bf16_m64", "tc_f16", "bf16", "bf16", "f32", 64, 128, [3, 0], [0, 1], 0, 6, 1, 0),
    ("z_ws_tf32_m32", "tc_tf32", "tf32", "tf32", "f32", 32, 256, [0, 1, 2, 1], [1, 1, 0, 0], 2, 3, 1, 0),
    ("z_ws_f16_off", "tc_f16", "f16", "f16", "f32", 64, 64, [5, 7], [1, 1], 1, 1, 0, 0),
]


def zdesc(sc, fs, skip, use, nonzero, shift):
    d = 0
    for i, v in enumerate(sc):
        d |= v << (8 * i)
    for i, v in enumerate(fs):
        d |= v << (32 + i)
    return d | nonzero << 39 | skip << 40 | use << 48 | shift << 56


def zeroed_columns(desc, m, n):
    """The N-bit zero-column mask (section 9.7.16.4.3) as a list of bits, column 0 first."""
    if not desc >> 39 & 1:
        return [0] * n
    parts = {128: 1, 64: 2, 32: 4}[m]
    skip, use = (desc >> 40 & 255) + 1, (desc >> 48 & 255) + 1
    out = []
    for i in range(parts):
        sc, fs = desc >> (8 * i) & 255, desc >> (32 + i) & 1
        spans = [(1, skip), (0, use)] if fs else [(0, use), (1, skip)]
        bits = []
        while len(bits) < sc + n // parts:
            for v, count in spans:
                bits += [v] * count
        out += bits[sc:sc + n // parts]
    return out


def _check_isa_examples():
    """The ISA's examples 2-4 (low bit first; the shift of example 4 left out)."""
    def lsb_first(text):
        return [int(c) for c in reversed(text.replace(" ", ""))]
    got = zeroed_columns(zdesc([0], [0], 2, 3, 1, 0), 128, 14)
    assert got == lsb_first("111 0000 111 0000"), got
    got = zeroed_columns(zdesc([0, 0], [1, 0], 2, 3, 1, 0), 64, 36)
    m0 = lsb_first("111 0000 111 0000 111")
    m1 = lsb_first("0000 111 0000 111 0000")
    assert got[:len(m0)] == m0 and got[18:18 + len(m1)] == m1, got
    got = zeroed_columns(zdesc([0, 1, 2, 1], [1, 1, 0, 0], 2, 3, 1, 0), 32, 4 * 16)
    for i, text in enumerate(["0000 111 0000 111", "0000 111 0000 11",
                              "111 0000 111 00", "111 0000 111 000"]):
        want = lsb_first(text)
        assert got[16 * i:16 * i + len(want)] == want, (i, got[16 * i:16 * i + 16])


def zentry(dense):
    """The .ws kernel of `dense` with the zero-column-mask-desc operand from parameter zmask."""
    text = entry(zkernel_name(dense), dense, True)
    text = text.replace("    .param .u64 areg, .param .u32 dlane)",
                        "    .param .u64 areg, .param .u32 dlane, .param .u64 zmask)")
    text, n = re.subn(r"(    tcgen05\.mma\.ws\.cta_group::1\.kind::\w+ \[%r22\], %rd5, %rd6, %r15, %p4);",
                      "    ld.param.u64 %rd20, [zmask];\n\\1, %rd20;", text)
    assert n == 1
    return text


def zkernel_name(dense):
    return dense.replace("tc_", "lz_ws_")


def entry(name, dense, ws):
    """`dense` from ../tcgen05/gen.py renamed, D (and A in tensor memory) at lane `dlane`
    (bits 31-16) of the allocation, the mma optionally .ws."""
    text = tc.mma_entry(dense).replace(f".entry {dense}(", f".entry {name}(")
    text = text.replace("    .param .u64 areg)", "    .param .u64 areg, .param .u32 dlane)")
    text = text.replace("    add.u32 %r21, %r20, 64;",
                        "    ld.param.u32 %r23, [dlane];\n    add.u32 %r22, %r20, %r23;\n"
                        "    add.u32 %r21, %r22, 64;")
    text, n = re.subn(r"tcgen05\.mma\.cta_group::1(\.kind::\w+) \[%r20\]",
                      (r"tcgen05.mma.ws.cta_group::1\1 [%r22]" if ws else r"tcgen05.mma.cta_group::1\1 [%r22]"),
                      text)
    assert n == 1
    return text


def kernel_name(dense, ws):
    return dense.replace("tc_", "ly_ws_" if ws else "ly_")


def write_ptx():
    head = ["// Written by gen.py (PTX ISA 9.7.16.10.5: tcgen05.mma data path layouts D, E, F, G).",
            "// The kernels of ../tcgen05/tcgen05.ptx with D (and an A in tensor memory) at lane",
            "// `dlane` of the allocation; ly_ws_*: the same with tcgen05.mma.ws.",
            ".version 8.6", ".target sm_100a", ".address_size 64", "",
            ".extern .shared .align 1024 .b8 smem[];", ""]
    seen = []
    for case in CASES:
        key = (case[1], case[2])
        if key not in seen:
            seen.append(key)
    body = [entry(kernel_name(d, ws), d, ws) for (d, ws) in seen]
    zseen = []
    for case in ZCASES:
        if case[1] not in zseen:
            zseen.append(case[1])
    body += [zentry(d) for d in zseen]
    gc.write_text(HERE, "tcgen05_layouts.ptx", "\n".join(head) + "\n" + "\n".join(body))


def place(m, n, ws, l0, r, j):
    """(lane, column) of row r, column j of an m x n D (the module docstring's layouts)."""
    if m == 128:
        return r, j
    if m == 64 and not ws:
        return 32 * (r // 16) + l0 + r % 16, j
    if m == 64:
        return r + 64 * (j // (n // 2)), j % (n // 2)
    return r + 32 * (j // (n // 4)), j % (n // 4)


def idesc(at, bt, dt, m, n):
    dcode = {"f16": 0, "f32": 1, "s32": 2}[dt]
    return dcode << 4 | tc.TYPE_CODE[at] << 7 | tc.TYPE_CODE[bt] << 10 | (n >> 3) << 17 | (m >> 4) << 24


def write_case(rng, case, zmask=None):
    (name, dense, ws, at, bt, dt, m, n, l0, a_tmem, blay, enable) = case
    k = tc.K_OF[at]
    if at == "s8":
        a = rng.integers(-128, 128, (m, k))
        b = rng.integers(0, 256, (k, n))
        tm = rng.integers(-(1 << 20), 1 << 20, (128, COLS))
    else:
        a = tc.value_of(rng, at, (m, k), True)
        b = tc.value_of(rng, bt, (k, n), True)
        tm = rng.integers(-16, 17, (128, COLS)) / 4
    eb = {"f16": 2, "bf16": 2, "tf32": 4}.get(at, 1)
    image = np.zeros(tc.IMAGE, dtype=np.uint8)
    wg.USED.clear()
    areg = np.zeros((128, 8), dtype=np.uint32)
    if a_tmem:
        adesc = 0
        ab = wg.bits(a, at)
        for r in range(m):
            lane = place(m, n, ws, l0, r, 0)[0]
            for kk in range(k):
                areg[lane, kk // 2] |= np.uint32(int(ab[r, kk]) << (16 * (kk % 2)))
    else:
        alay = (False, 1, 16 * m, 128)  # K-major, no swizzle: 8-row groups of 16-byte rows
        adesc = tc.tc_desc(wg.place(image, tc.element_bytes(rng, a, at), A_BASE, *alay, eb), 1)
    blay = blay or (False, 1, 16 * n, 128)
    bdesc = tc.tc_desc(wg.place(image, tc.element_bytes(rng, b.T, bt), B_BASE, *blay, eb), blay[1])
    idv = idesc(at, bt, dt, m, n) | int(blay[0]) << 16
    # C: D's cells before the multiply; D = A.B + C there, every other cell unchanged.
    c = np.zeros((m, n))
    cells = {}
    for r in range(m):
        for j in range(n):
            cells[(r, j)] = place(m, n, ws, l0, r, j)
            c[r, j] = tm[cells[(r, j)]]
    bz = b
    if zmask is not None:
        bz = b * (1 - np.array(zeroed_columns(zmask, m, n)))[None, :]
    d = a @ bz + (c if enable else 0)
    out = tm.copy()
    for (r, j), lc in cells.items():
        out[lc] = d[r, j]
    assert len(set(cells.values())) == m * n
    tword = np.array([[tc.word(v, dt) for v in row] for row in tm], dtype=np.uint32)
    exp = np.array([[tc.word(v, dt) for v in row] for row in out], dtype=np.uint32)
    gc.save_npy(HERE, f"{name}_img", image.view(np.uint32))
    gc.save_npy(HERE, f"{name}_cin", tword.reshape(-1))
    gc.save_npy(HERE, f"{name}_expected", exp.reshape(-1))
    extra, areg_arg = "", "{ u64 = 0 }"
    if a_tmem:
        gc.save_npy(HERE, f"{name}_areg", areg.reshape(-1))
        extra = '\n[buffers.areg]\ntype = "u32"\ninit = { file = "%s_areg.npy" }\n' % name
        areg_arg = '{ buffer = "areg" }'
    layout = "D" if m == 128 else ("E" if m == 64 and ws else ("F" if m == 64 else "G"))
    where = "tensor memory (lane alignment as D's)" if a_tmem else "K-major, no swizzle"
    zarg, zline, kname = "", "", kernel_name(dense, ws)
    if zmask is not None:
        zarg, kname = f', {{ u64 = "{zmask:#x}" }}', zkernel_name(dense)
        zline = f"\n# zero-column-mask-desc {zmask:#x}: B columns {np.flatnonzero(zeroed_columns(zmask, m, n)).tolist()} read as zero."
    toml = f"""# tcgen05.mma{'.ws' if ws else ''}.cta_group::1.kind::{tc.KINDS[dense]}: M {m}, N {n}, K {k}, .{dt} += .{at} x .{bt};
# Layout {layout}, D at lane {l0}; A: {where}; enable-input-d {enable}.{zline}
# Written by gen.py (do not edit: change gen.py and run it); expected: the tensor memory image
# with D's cells (PTX ISA 9.7.16.10.5) replaced by numpy's A·B + C, exact.
ptx = "tcgen05_layouts.ptx"
kernel = "{kname}"
grid = [1]
block = [128]
shared_bytes = {tc.SHARED}
args = [{{ buffer = "img" }}, {{ buffer = "out" }}, {{ buffer = "cin" }}, {{ u64 = "{adesc:#x}" }},
        {{ u64 = "{bdesc:#x}" }}, {{ u32 = {idv} }}, {{ u32 = {enable} }}, {areg_arg}, {{ u32 = {l0 << 16} }}{zarg}]

{gc.buffer_from_file("img", f"{name}_img.npy")}
{gc.buffer_from_file("cin", f"{name}_cin.npy")}{extra}
[buffers.out]
type = "u32"
len = {128 * COLS}

{gc.expect_exact("out", f"{name}_expected.npy")}"""
    gc.write_text(HERE, f"{name}.toml", toml)
    print(name, hex(adesc), hex(bdesc), hex(idv))


def main():
    write_ptx()
    rng = np.random.default_rng(300)
    for case in CASES:
        write_case(rng, case)
    _check_isa_examples()
    zrng = np.random.default_rng(301)
    for (name, dense, at, bt, dt, m, n, sc, fs, skip, use, nonzero, shift) in ZCASES:
        z = zdesc(sc, fs, skip, use, nonzero, shift)
        write_case(zrng, (name, dense, True, at, bt, dt, m, n, 0, False, None, 1), z)
    # A column shift faults (ptxjit does not know how it combines with the mask).
    with open(os.path.join(HERE, "z_ws_f16_m128.toml")) as f:
        text = f.read()
    z = zdesc([2], [1], 2, 4, 1, 0)
    text = text.replace(f'{{ u64 = "{z:#x}" }}]', f'{{ u64 = "{z | 2 << 56:#x}" }}]')
    text = text.split("[expect.out]")[0] + '[expect_error]\nkind = "fault"\ncontains = "Column Shift"\n'
    text = text[text.index("ptx = "):]
    text = ("# tcgen05.mma.ws with a zero-column-mask-desc whose Column Shift (bits 56-61) is 2: the ISA\n"
            "# does not say how a shift combines with the mask, so ptxjit faults naming the field.\n"
            "# Written by gen.py (do not edit: change gen.py and run it).\n" + text)
    gc.write_text(HERE, "z_shift.toml", text)


if __name__ == "__main__":
    main()
