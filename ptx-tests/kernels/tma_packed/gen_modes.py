#!/usr/bin/env python3
"""Writes modes.ptx, modes_gather4.toml and modes_im2col.toml: the packed sub-byte types in
the four-row (.tile::gather4) and im2col load modes, through maps the case builds as
cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col build them with the packed
CUtensorMapDataType values, with expected values from the PTX ISA's text and numpy, never
from ptxjit:

- §5.5.1.1.1: elements packed contiguously in global memory (element i of a row at bit 4i or
  6i, lower elements in lower bits); a .b4x16_p64 / .b6x16_p32 load puts each 16 elements'
  8 or 12 bytes at the start of 16 shared bytes, the padding "un-initialized" (the kernel
  fills shared memory with 0xA5 first; ptxjit leaves it as it was).
- §5.5 "Tile::scatter4 and Tile::gather4 modes": four box rows, row k the tensor row of the
  k-th row index, from the column coordinate, one after another in shared memory as a box
  of four rows would be (then the swizzle: §5.5.7's 128B table, 16-byte chunk c of 128-byte
  row r at chunk c ^ r % 8); out-of-bound rows read as zero.
- §5.5.4 im2col mode (as ../tma_im2col/gen_expected.py): the pixels of the bounding box from
  the instruction's W, channels c0 .. c0 + channelsPerPixel each, pixel p's channels one row
  (here 128 elements: 8 groups of 16), zero outside the tensor.
- complete-tx: the shared-memory bytes the elements take, padding included.

Run: python3 gen_modes.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from gen_common import run_pos  # noqa: E402

SMEM = 2048
rng = np.random.default_rng(3708)


def put(mem, bit, w, val):
    """Element `val` of `w` bits at bit `bit` of the byte array `mem`."""
    a, n = bit // 8, 2 if (bit % 8 + w) > 8 else 1
    v = int.from_bytes(bytes(mem[a:a + n]), "little")
    m = ((1 << w) - 1) << (bit % 8)
    v = (v & ~m) | ((val << (bit % 8)) & m)
    mem[a:a + n] = v.to_bytes(n, "little")


def pack(vals, w):
    """A row of w-bit elements packed contiguously (global memory)."""
    out = bytearray((len(vals) * w + 7) // 8)
    for i, v in enumerate(vals):
        put(out, i * w, w, int(v))
    return out


def shared(elems, w, swz128):
    """Shared memory after a padded load of `elems` (in order): element lin at bit
    (lin // 16) * 128 + (lin % 16) * w, the 128B swizzle applied to its 16-byte chunk."""
    mem = bytearray(b"\xa5" * SMEM)
    for lin, v in enumerate(elems):
        bit = (lin // 16) * 128 + (lin % 16) * w
        chunk = bit // 128 * 16
        if swz128:
            chunk ^= ((chunk >> 7) & 7) << 4
        put(mem, chunk * 8 + bit % 128, w, int(v))
    return mem


def kernel(name, params, coords, copy):
    L = [f".visible .entry {name}(.param .align 64 .b8 tm[128], "
         + ", ".join(f".param .s32 {p}" for p in params)
         + (", .param .u16 o0" if "im2col" in copy else "")
         + ", .param .u32 bytes, .param .u64 out_p)", "{",
         "\t.reg .b32 %r<24>;", "\t.reg .b64 %rd<8>;", "\t.reg .b16 %rs<2>;", "\t.reg .pred %p<3>;",
         f"\t.shared .align 1024 .b8 data[{SMEM}];", "\t.shared .align 8 .b64 bar;",
         "\tmov.u32 %r1, data;", "\tmov.u32 %r2, 0;", "\tmov.u32 %r3, 0xA5A5A5A5;", "FILL:",
         "\tadd.u32 %r4, %r1, %r2;", "\tst.shared.u32 [%r4], %r3;", "\tadd.u32 %r2, %r2, 4;",
         f"\tsetp.lt.u32 %p1, %r2, {SMEM};", "\t@%p1 bra FILL;"]
    L += [f"\tld.param.s32 %r{10 + i}, [{p}];" for i, p in enumerate(params)]
    if "im2col" in copy:
        L += ["\tld.param.u16 %rs1, [o0];"]
    L += ["\tld.param.u32 %r5, [bytes];", "\tmov.b64 %rd1, tm;", "\tcvta.param.u64 %rd1, %rd1;",
          "\tmov.u32 %r6, bar;", "\tmbarrier.init.shared::cta.b64 [%r6], 1;",
          "\tfence.proxy.async.shared::cta;",
          "\tmbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r6], %r5;",
          f"\t{copy} [%r1], [%rd1, {{{', '.join(f'%r{10 + i}' for i in range(coords))}}}], [%r6]"
          + (", {%rs1};" if "im2col" in copy else ";"),
          "WAIT:", "\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;", "\t@!%p2 bra WAIT;",
          "\tld.param.u64 %rd3, [out_p];", "\tcvta.to.global.u64 %rd3, %rd3;", "\tmov.u32 %r2, 0;",
          "DUMP:", "\tadd.u32 %r4, %r1, %r2;", "\tld.shared.u32 %r7, [%r4];",
          "\tcvt.u64.u32 %rd4, %r2;", "\tadd.s64 %rd5, %rd3, %rd4;", "\tst.global.u32 [%rd5], %r7;",
          "\tadd.u32 %r2, %r2, 4;", f"\tsetp.lt.u32 %p1, %r2, {SMEM};", "\t@%p1 bra DUMP;",
          "\tret;", "}", ""]
    return "\n".join(L)


def toml(name, comment, kernel_name, args, g, tmap, expected):
    text = "".join(f"# {c}\n" for c in comment)
    text += "# Written by gen_modes.py (do not edit: change it and run it).\n"
    text += f'ptx = "modes.ptx"\nkernel = "{kernel_name}"\ngrid = [1]\nblock = [1]\n'
    text += "args = [{ tensor_map = \"t\" }, " + ", ".join(args) + ", { buffer = \"out\" }]\n"
    text += "\n[buffers.g]\ntype = \"u8\"\ninit = { values = [" + ", ".join(map(str, g)) + "] }\n"
    text += f"\n[buffers.out]\ntype = \"u8\"\nlen = {SMEM}\n"
    text += "\n[tensor_maps.t]\nbuffer = \"g\"\n" + tmap
    text += "\n[expect.out]\nvalues = [" + ", ".join(map(str, expected)) + "]\n"
    with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
        f.write(text)


def main():
    head = ["// Written by gen_modes.py (PTX ISA 5.5.1.1.1, 5.5.4, 5.5 four-row modes): the packed",
            "// sub-byte types in .tile::gather4 and .im2col loads.", ".version 8.6",
            ".target sm_100a", ".address_size 64", ""]
    body = [kernel("gather4_packed", ["col", "r0", "r1", "r2", "r3"], 5,
                   "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"),
            kernel("im2col_packed", ["c0", "c1", "c2"], 3,
                   "cp.async.bulk.tensor.3d.shared::cta.global.im2col.mbarrier::complete_tx::bytes")]
    with open(os.path.join(HERE, "modes.ptx"), "w") as f:
        f.write("\n".join(head) + "\n" + "\n".join(body))

    # .b4x16_p64 gather4: a 256 x 8 tensor (rows of 128 bytes), box 128 x 1, 128B swizzle;
    # column 128, rows 5, 0, 9 (past the end) and 3.
    t = rng.integers(0, 16, (8, 256))
    g = b"".join(pack(row, 4) for row in t)
    col, rows = 128, [5, 0, 9, 3]
    elems = [t[r, col + i] if r < 8 else 0 for r in rows for i in range(128)]
    toml("modes_gather4",
         ["cp.async.bulk.tensor.2d .tile::gather4 of .b4x16_p64 (a b4x16_p64 map, 16U4_ALIGN16B): a",
          "256 x 8 tensor, box 128 x 1, 128B swizzle; column 128, rows 5, 0, 9 (out of bounds: zeros)",
          "and 3; shared memory dumped (0xA5 in the padding). Expected: gen_modes.py (numpy)."],
         "gather4_packed", [f"{{ s32 = {v} }}" for v in [col] + rows] + ["{ u32 = 512 }"],
         list(g), 'type = "b4x16_p64"\ndims = [256, 8]\nstrides = [128]\nbox = [128, 1]\n'
         'swizzle = "128B"\n', list(shared(elems, 4, True)))

    # .b6x16_p32 im2col, 3d N W C: C = 128 (96 bytes a pixel), W = 6, N = 2; corners -2 | 0,
    # 128 channels, 5 pixels from W = -2 (N 0), offset 1, no swizzle.
    dims = [128, 6, 2]
    x = rng.integers(0, 64, (2, 6, 128))
    g = b"".join(pack(x[n, w], 6) for n in range(2) for w in range(6))
    lower, upper, pixels, c1, off = -2, 0, 5, -2, 1
    elems = []
    for p in range(pixels):
        pos, carry = run_pos(c1, lower, dims[1] - 1 + upper, 1, p)
        w, n = pos + off, carry
        for ch in range(128):
            elems.append(x[n, w, ch] if 0 <= w < dims[1] and n < dims[2] else 0)
    toml("modes_im2col",
         ["cp.async.bulk.tensor.3d .im2col of .b6x16_p32 (a b6x16_p32 im2col map, 16U6_ALIGN16B):",
          "N W C = 2 x 6 x 128 (96 bytes a pixel), corners -2 | 0, 128 channels, 5 pixels from",
          "W = -2, N = 0, offset 1 (pixels outside W: zeros); shared memory dumped (0xA5 in the",
          "padding). Expected: gen_modes.py (numpy, the ISA's im2col traversal)."],
         "im2col_packed", ["{ s32 = 0 }", f"{{ s32 = {c1} }}", "{ s32 = 0 }", f"{{ u16 = {off} }}",
                           f"{{ u32 = {pixels * 128} }}"],
         list(g), 'type = "b6x16_p32"\ndims = [128, 6, 2]\nstrides = [96, 576]\n'
         f'im2col = {{ lower = [{lower}], upper = [{upper}], channels = 128, pixels = {pixels} }}\n',
         list(shared(elems, 6, False)))


if __name__ == "__main__":
    main()
