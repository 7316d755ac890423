#!/usr/bin/env python3
"""Writes the tcgen05.cp, tcgen05.shift and tcgen05.mma.ws cases: cp_shift.ptx (hand-written
kernels for sm_100a) and, per case, its inputs and expected outputs, from the PTX ISA's text
(§9.7.16) and numpy, never from ptxjit:

- tcgen05.cp (§9.7.16.9.2, shapes §9.7.16.2.3): the source matrix has the shape's rows of 16
  or 32 bytes, in the K-major canonical layout of its shared-memory descriptor (wgmma's
  layouts, ../wgmma/gen.py `place`, with 4-byte elements: 32-bit word w of row r is K bytes
  4w..4w+3); word w of row r lands in column col0 + w of the lanes the shape sends row r to:
  .128x256b/.128x128b lane r; .4x256b lane 32r; .64x128b.warpx2::02_13 lanes r and 64 + r;
  .64x128b.warpx2::01_23 lanes 64(r / 32) + r % 32 and 32 further; .32x128b.warpx4 lanes r,
  32 + r, 64 + r, 96 + r (all relative to the address's lane). Cells the copy does not reach
  keep the pattern each thread stored first.
- tcgen05.cp with decompression (§9.7.16.9.1, .b8x16.b4x16_p64 / .b8x16.b6x16_p32): the same
  copy, each 16-byte group of a source row first expanded: its first 8 bytes hold sixteen 4-bit
  elements (element j: bits 4(j % 2) of byte j / 2) or its first 12 bytes sixteen 6-bit ones
  (element j: bits 6j.. of the 12 bytes, little-endian), the rest padding; byte j of the result
  is element j in its 8-bit container: a 4-bit element shifted left by 2 (bits 2-5), a 6-bit
  one at bits 0-5, the other bits zero (sources: docs/isa-notes.md, CUTLASS's sm120 f8f6f4 note
  on the container and public hardware probes of the copy).
- tcgen05.shift.down (§9.7.16.9.3, shape .31x256b): in the 32 lanes from the address's lane
  (a multiple of 32) and 8 columns from its column, lane i + 1 takes lane i's old value for
  i in 0..31; the first lane keeps its value (the ISA leaves it open; docs/isa-notes.md).
- tcgen05.mma.ws (§9.7.16.10.9.3): M = 128 keeps D as the dense tcgen05.mma does (row i in lane
  i); .collector::b1::fill keeps B, and a later ::use/::lastuse multiplies by the kept B, not
  by what its b-desc names (the case gives a different B there, so reading it would show);
  ::discard reads B.
- tcgen05.mma .collector::a (§9.7.16.10.9.1): ::fill keeps the A it reads; ::use and ::lastuse
  multiply by the kept A, not by what their a-desc names (the case gives another A there, so
  reading it would show); the default (::discard) reads A. .ashift (A in tensor memory): once
  the multiply has read A, A's rows in tensor memory move one row down (row r + 1 takes row r,
  row 0 keeps its own: ptxjit's reading, docs/isa-notes.md), so each later multiply from
  tensor memory sees A shifted once more; ::lastuse with .ashift multiplies by the kept A and
  still shifts tensor memory.

Every kernel: a CTA of 128 threads; thread t stores pattern row t (pat[t * 16 ..]) into
columns 0..15 of lane t (tcgen05.st .32x32b.x16, warp w reaching lanes 32w..), thread 0 issues
the instruction(s) and commits them to an mbarrier the CTA waits on, and thread t writes the
16 columns of lane t back to out[t * 16 ..] (the mma.ws kernels: N columns of D).

Run (numpy only, no GPU): python3 gen_cp.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "wgmma"))
import gen as wg  # noqa: E402  (the canonical layouts, evaluated as the ISA writes them)

IMAGE = 16384
MBAR, TSLOT = IMAGE, IMAGE + 8
SHARED = IMAGE + 16
TC_SWIZZLE = {1: 0, 8: 2, 4: 4, 2: 6}
COLS = 16  # pattern columns per lane


def tc_desc(wg_desc, x):
    """wgmma's descriptor (fields at bits 0, 16, 32, swizzle at 62) as tcgen05's (§9.7.16.4.1)."""
    return (wg_desc & ((1 << 46) - 1)) | (1 << 46) | (TC_SWIZZLE[x] << 61)


def regs(prefix, n):
    return "{" + ", ".join(f"{prefix}{i}" for i in range(n)) + "}"


def prologue(name, params, ncols):
    """Copy the image to shared memory (when the kernel has one), allocate `ncols` columns,
    set up the mbarrier; %r20 = the allocation, %r14 = this warp's lanes of it, %r5 = the
    shared image, %p3 = not thread 0, %r11 = the mbarrier, %rd8 = t * 64."""
    L = [f".visible .entry {name}({', '.join(f'.param .{t} {n}' for t, n in params)})", "{",
         "    .reg .b32 %r<40>;", "    .reg .b64 %rd<24>;", "    .reg .pred %p<8>;",
         "    .reg .b32 %c<130>;", "    mov.u32 %r1, %tid.x;", "    mov.u32 %r5, smem;"]
    if any(n == "img" for _, n in params):
        L += ["    ld.param.u64 %rd1, [img];", "    shl.b32 %r3, %r1, 2;", "$copy:",
              f"    setp.ge.u32 %p1, %r3, {IMAGE};", "    @%p1 bra $copied;",
              "    cvt.u64.u32 %rd2, %r3;", "    add.u64 %rd3, %rd1, %rd2;",
              "    ld.global.u32 %r4, [%rd3];", "    add.u32 %r6, %r5, %r3;",
              "    st.shared.u32 [%r6], %r4;", "    add.u32 %r3, %r3, 512;", "    bra $copy;",
              "$copied:"]
    L += [f"    add.u32 %r10, %r5, {TSLOT};", f"    add.u32 %r11, %r5, {MBAR};",
          "    shr.u32 %r12, %r1, 5;", "    setp.ne.u32 %p2, %r12, 0;", "    @%p2 bra $allocated;",
          f"    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r10], {ncols};",
          "    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", "$allocated:",
          "    setp.ne.u32 %p3, %r1, 0;", "    @!%p3 mbarrier.init.shared::cta.b64 [%r11], 1;",
          "    tcgen05.fence::before_thread_sync;", "    bar.sync 0;",
          "    tcgen05.fence::after_thread_sync;", "    ld.shared.u32 %r20, [%r10];",
          "    shl.b32 %r13, %r12, 21;", "    add.u32 %r14, %r20, %r13;",
          "    mul.wide.u32 %rd8, %r1, 64;"]
    return L


def store_rows(param, n, col=0):
    """Thread t stores row t of `param` (n words from param[t * n]) at columns col.. of lane t."""
    L = [f"    ld.param.u64 %rd7, [{param}];", f"    mul.wide.u32 %rd10, %r1, {4 * n};",
         "    add.u64 %rd9, %rd7, %rd10;"]
    L += [f"    ld.global.b32 %c{i}, [%rd9+{4 * i}];" for i in range(n)]
    L += [f"    tcgen05.st.sync.aligned.32x32b.x{n}.b32 [%r14+{col}], {regs('%c', n)};",
          "    tcgen05.wait::st.sync.aligned;", "    tcgen05.fence::before_thread_sync;",
          "    bar.sync 0;", "    tcgen05.fence::after_thread_sync;"]
    return L


def issue(insts):
    """Thread 0 issues `insts` and commits them; everyone waits for the commit."""
    return (["    @%p3 bra $issued;"] + [f"    {i}" for i in insts]
            + ["    tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r11];",
               "$issued:", "$wait:", "    mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r11], 0;",
               "    @!%p5 bra $wait;", "    tcgen05.fence::after_thread_sync;"])


def epilogue(n, ncols):
    """Thread t writes n columns of lane t to out[t * n ..] and warp 0 frees the columns."""
    L = [f"    tcgen05.ld.sync.aligned.32x32b.x{n}.b32 {regs('%c', n)}, [%r14];",
         "    tcgen05.wait::ld.sync.aligned;", "    ld.param.u64 %rd13, [out];",
         f"    mul.wide.u32 %rd15, %r1, {4 * n};", "    add.u64 %rd14, %rd13, %rd15;"]
    L += [f"    st.global.b32 [%rd14+{4 * i}], %c{i};" for i in range(n)]
    L += ["    tcgen05.fence::before_thread_sync;", "    bar.sync 0;", "    @%p2 bra $done;",
          "    tcgen05.fence::after_thread_sync;",
          f"    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r20, {ncols};", "$done:", "    ret;",
          "}", ""]
    return L


SHAPES = {  # name: (PTX shape, rows, words per row, lanes of row r)
    "128x256b": ("128x256b", 128, 8, lambda r: [r]),
    "4x256b": ("4x256b", 4, 8, lambda r: [32 * r]),
    "128x128b": ("128x128b", 128, 4, lambda r: [r]),
    "64x128b_02_13": ("64x128b.warpx2::02_13", 64, 4, lambda r: [r, 64 + r]),
    "64x128b_01_23": ("64x128b.warpx2::01_23", 64, 4,
                      lambda r: [64 * (r // 32) + r % 32, 64 * (r // 32) + r % 32 + 32]),
    "32x128b_warpx4": ("32x128b.warpx4", 32, 4, lambda r: [r, 32 + r, 64 + r, 96 + r]),
}

# (case, shape, layout (x, lbo, sbo), lane, column)
CP_CASES = [
    ("cp_128x256b", "128x256b", (1, 128, 256), 0, 4),
    ("cp_4x256b", "4x256b", (2, 16, 256), 1, 4),
    ("cp_128x128b", "128x128b", (2, 16, 256), 0, 8),
    ("cp_64x128b_02_13", "64x128b_02_13", (1, 16, 128), 0, 4),
    ("cp_64x128b_01_23", "64x128b_01_23", (8, 16, 1024), 0, 12),
    ("cp_32x128b_warpx4", "32x128b_warpx4", (4, 16, 512), 0, 0),
]


# (case, shape, unpack, layout (x, lbo, sbo), lane, column)
UNPACK_CASES = [
    ("cp_128x256b_b6", "128x256b", "b6x16_p32", (8, 16, 1024), 0, 4),
    ("cp_32x128b_warpx4_b4", "32x128b_warpx4", "b4x16_p64", (1, 16, 128), 0, 8),
    ("cp_4x256b_b4", "4x256b", "b4x16_p64", (4, 16, 512), 0, 0),
]


def expand(group, unpack):
    """One 16-byte source group as its sixteen 8-bit containers."""
    if unpack == "b4x16_p64":
        nib = [(int(group[j // 2]) >> (4 * (j % 2))) & 0xF for j in range(16)]
        return np.array([v << 2 for v in nib], dtype=np.uint8)
    v = int.from_bytes(bytes(group[:12]), "little")
    return np.array([(v >> (6 * j)) & 0x3F for j in range(16)], dtype=np.uint8)


def cp_entry(shape, unpack=None):
    ptx = SHAPES[shape][0] + (f".b8x16.{unpack}" if unpack else "")
    kname = f"tc_cp_{shape}" + (f"_{unpack[:2]}" if unpack else "")
    L = prologue(kname, [("u64", "img"), ("u64", "pat"), ("u64", "out"),
                                    ("u64", "sdesc"), ("u32", "toff")], 32)
    L += store_rows("pat", COLS)
    L += ["    shr.u32 %r7, %r5, 4;", "    cvt.u64.u32 %rd4, %r7;", "    ld.param.u64 %rd5, [sdesc];",
          "    add.u64 %rd5, %rd5, %rd4;", "    ld.param.u32 %r15, [toff];", "    add.u32 %r21, %r20, %r15;"]
    L += issue([f"tcgen05.cp.cta_group::1.{ptx} [%r21], %rd5;"])
    return "\n".join(L + epilogue(COLS, 32))


def shift_entry():
    """Two shifts: lanes 32..63 columns 4..11, and lanes 96..127 columns 0..7 (written
    .down.cta_group::1, the order of the ISA's examples)."""
    L = prologue("tc_shift", [("u64", "pat"), ("u64", "out")], 32)
    L += store_rows("pat", COLS)
    L += ["    add.u32 %r21, %r20, 2097156;", "    add.u32 %r22, %r20, 6291456;"]
    L += issue(["tcgen05.shift.cta_group::1.down [%r21];",
                "tcgen05.shift.down.cta_group::1 [%r22];"])
    return "\n".join(L + epilogue(COLS, 32))


WS_KINDS = {"f16": "f16", "tf32": "tf32", "s8": "i8", "e4m3": "f8f6f4"}


def ws_entry(name, kind, n, insts):
    L = prologue(name, [("u64", "img"), ("u64", "out"), ("u64", "cin"), ("u64", "adesc"),
                        ("u64", "bdesc"), ("u64", "bdesc2"), ("u32", "idesc"), ("u32", "enable")], n)
    L += store_rows("cin", n)
    L += ["    shr.u32 %r7, %r5, 4;", "    cvt.u64.u32 %rd4, %r7;",
          "    ld.param.u64 %rd5, [adesc];", "    add.u64 %rd5, %rd5, %rd4;",
          "    ld.param.u64 %rd6, [bdesc];", "    add.u64 %rd6, %rd6, %rd4;",
          "    ld.param.u64 %rd16, [bdesc2];", "    add.u64 %rd16, %rd16, %rd4;",
          "    ld.param.u32 %r15, [idesc];", "    ld.param.u32 %r16, [enable];",
          "    setp.ne.u32 %p4, %r16, 0;"]
    L += issue(insts)
    return "\n".join(L + epilogue(n, n))


# (case, entry, A/B type, D type, N, instructions (B1 = bdesc, B2 = bdesc2), expected D as a
#  function of (A, B1, B2, C, enable))
WS_CASES = [
    ("ws_f16_collector", "tc_ws_fill_lastuse", "f16", "f32", 64,
     ["tcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::fill [%r20], %rd5, %rd6, %r15, %p4;",
      "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::use [%r20], %rd5, %rd16, %r15, 1;",
      "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::lastuse [%r20], %rd5, %rd16, %r15, 1;"],
     lambda a, b1, b2, c, en: 3 * (a @ b1) + (c if en else 0)),
    ("ws_s8_discard", "tc_ws_discard", "s8", "s32", 128,
     ["tcgen05.mma.ws.cta_group::1.kind::i8 [%r20], %rd5, %rd6, %r15, %p4;",
      "tcgen05.mma.ws.cta_group::1.kind::i8.collector::b0::discard [%r20], %rd5, %rd16, %r15, 1;"],
     lambda a, b1, b2, c, en: a @ b1 + a @ b2 + (c if en else 0)),
    ("ws_tf32", "tc_ws_tf32", "tf32", "f32", 64,
     ["tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b3::fill [%r20], %rd5, %rd6, %r15, %p4;",
      "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b2::discard [%r20], %rd5, %rd16, %r15, 1;",
      "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b3::lastuse [%r20], %rd5, %rd16, %r15, 1;"],
     lambda a, b1, b2, c, en: 2 * (a @ b1) + a @ b2 + (c if en else 0)),
    # .kind::f8f6f4 (e4m3 A and B, the type codes of the dense form, K = 32).
    ("ws_e4m3", "tc_ws_e4m3", "e4m3", "f32", 128,
     ["tcgen05.mma.ws.cta_group::1.kind::f8f6f4.collector::b2::fill [%r20], %rd5, %rd6, %r15, %p4;",
      "tcgen05.mma.ws.cta_group::1.kind::f8f6f4.collector::b2::use [%r20], %rd5, %rd16, %r15, 1;",
      "tcgen05.mma.ws.cta_group::1.kind::f8f6f4 [%r20], %rd5, %rd16, %r15, 1;"],
     lambda a, b1, b2, c, en: 2 * (a @ b1) + a @ b2 + (c if en else 0)),
]


def ca_entry(name, n, insts, ncols):
    """A kernel for the .collector::a / .ashift cases: D (N columns at column 0) starts as
    cin; A rows from areg go to columns 64.. (%r21); %rd5/%rd17 = adesc/adesc2, %rd6 = bdesc."""
    L = prologue(name, [("u64", "img"), ("u64", "out"), ("u64", "cin"), ("u64", "areg"),
                        ("u64", "adesc"), ("u64", "adesc2"), ("u64", "bdesc"), ("u32", "idesc"),
                        ("u32", "enable")], ncols)
    L += store_rows("cin", n)
    L += store_rows("areg", 8, 64)
    L += ["    shr.u32 %r7, %r5, 4;", "    cvt.u64.u32 %rd4, %r7;",
          "    ld.param.u64 %rd5, [adesc];", "    add.u64 %rd5, %rd5, %rd4;",
          "    ld.param.u64 %rd17, [adesc2];", "    add.u64 %rd17, %rd17, %rd4;",
          "    ld.param.u64 %rd6, [bdesc];", "    add.u64 %rd6, %rd6, %rd4;",
          "    add.u32 %r21, %r20, 64;",
          "    ld.param.u32 %r15, [idesc];", "    ld.param.u32 %r16, [enable];",
          "    setp.ne.u32 %p4, %r16, 0;"]
    L += issue(insts)
    return "\n".join(L + epilogue(n, ncols))


def shifted(x):
    """A after one .ashift: row r + 1 takes row r; row 0 keeps its own."""
    y = x.copy()
    y[1:] = x[:-1]
    return y


# (case, entry, instructions (A1 = adesc, A2 = adesc2, T = A in tensor memory, read from
#  areg), expected D as a function of (A1, A2, T, B, C, enable)): .kind::f16, M 128, N 64.
CA_CASES = [
    ("collector_a", "tc_collector_a",
     ["tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%r20], %rd5, %rd6, %r15, %p4;",
      "tcgen05.mma.cta_group::1.kind::f16.collector::a::use [%r20], %rd17, %rd6, %r15, 1;",
      "tcgen05.mma.cta_group::1.kind::f16.collector::a::lastuse [%r20], %rd17, %rd6, %r15, 1;",
      "tcgen05.mma.cta_group::1.kind::f16 [%r20], %rd17, %rd6, %r15, 1;"],
     lambda a1, a2, t, b, c, en: 3 * (a1 @ b) + a2 @ b + (c if en else 0)),
    ("ashift", "tc_ashift",
     ["tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%r20], [%r21], %rd6, %r15, %p4;",
      "tcgen05.mma.cta_group::1.kind::f16.collector::a::lastuse.ashift [%r20], [%r21], %rd6, %r15, 1;",
      "tcgen05.mma.cta_group::1.kind::f16.ashift [%r20], [%r21], %rd6, %r15, 1;",
      "tcgen05.mma.cta_group::1.kind::f16 [%r20], [%r21], %rd6, %r15, 1;"],
     lambda a1, a2, t, b, c, en: 2 * (t @ b) + shifted(t) @ b + shifted(shifted(t)) @ b
     + (c if en else 0)),
]


def write_ptx():
    head = ["// Written by gen_cp.py (PTX ISA 9.7.16: tcgen05.cp, tcgen05.shift, tcgen05.mma.ws).",
            "// See gen_cp.py for what each kernel does and where its expected values come from.",
            ".version 8.6", ".target sm_100a", ".address_size 64", "",
            ".extern .shared .align 1024 .b8 smem[];", ""]
    body = [cp_entry(s) for s in SHAPES] + [shift_entry()]
    body += [cp_entry(shape, u) for (_, shape, u, _, _, _) in UNPACK_CASES]
    body += [ws_entry(ent, WS_KINDS[t], n, insts) for (_, ent, t, _, n, insts, _) in WS_CASES]
    body += [ca_entry(ent, 64, insts, 128) for (_, ent, insts, _) in CA_CASES]
    with open(os.path.join(HERE, "cp_shift.ptx"), "w") as f:
        f.write("\n".join(head) + "\n" + "\n".join(body))


def save(name, arr):
    np.save(os.path.join(HERE, name), np.ascontiguousarray(arr, dtype=np.uint32).reshape(-1))


def toml(name, comment, kernel, args, bufs, out_len, shared=SHARED):
    text = "".join(f"# {line}\n" for line in comment)
    text += "# Written by gen_cp.py (do not edit: change gen_cp.py and run it).\n"
    text += f'ptx = "cp_shift.ptx"\nkernel = "{kernel}"\ngrid = [1]\nblock = [128]\n'
    text += f"shared_bytes = {shared}\nargs = [{', '.join(args)}]\n"
    for b in bufs:
        text += f'\n[buffers.{b}]\ntype = "u32"\ninit = {{ file = "{name}_{b}.npy" }}\n'
    text += f'\n[buffers.out]\ntype = "u32"\nlen = {out_len}\n'
    text += f'\n[expect.out]\nfile = "{name}_expected.npy"\ntolerance = "exact"\n'
    with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
        f.write(text)


def swizzle_name(x):
    """The swizzle of a descriptor's layout code `x` in words."""
    return "no swizzle" if x == 1 else f"{16 * x}-byte swizzle"


def cp_case(rng, name, shape, unpack, x, lbo, sbo, lane, col, heading, entry):
    """Writes a tcgen05.cp case: random source rows placed in the image K-major (layout code
    `x`, LBO, SBO), a random tensor-memory pattern, and the pattern with the copied rows (each
    16-byte group expanded to 8-bit containers where `unpack` names a packed type) at `lane`,
    `col` where the shape sends them."""
    ptx, rows, words, lanes = SHAPES[shape]
    src = rng.integers(0, 1 << 32, (rows, words), dtype=np.uint64).astype(np.uint32)
    pat = rng.integers(0, 1 << 32, (128, COLS), dtype=np.uint64).astype(np.uint32)
    image = np.zeros(IMAGE, dtype=np.uint8)
    wg.USED.clear()
    desc = tc_desc(wg.place(image, src.astype(np.int64), 0, False, x, lbo, sbo, 4), x)
    exp = pat.copy()
    for r in range(rows):
        row = src[r]
        if unpack is not None:
            rb = row.astype("<u4").view(np.uint8)
            out = np.concatenate([expand(rb[16 * g:16 * g + 16], unpack) for g in range(len(rb) // 16)])
            row = out.view("<u4")
        for ln in lanes(r):
            exp[lane + ln, col:col + words] = row
    save(f"{name}_img.npy", image.view(np.uint32))
    save(f"{name}_pat.npy", pat)
    save(f"{name}_expected.npy", exp)
    toml(name, heading, entry, ['{ buffer = "img" }', '{ buffer = "pat" }', '{ buffer = "out" }',
                                f'{{ u64 = "{desc:#x}" }}', f"{{ u32 = {lane << 16 | col} }}"],
         ["img", "pat"], 128 * COLS)


def main():
    write_ptx()
    rng = np.random.default_rng(505)
    for (name, shape, (x, lbo, sbo), lane, col) in CP_CASES:
        ptx = SHAPES[shape][0]
        cp_case(rng, name, shape, None, x, lbo, sbo, lane, col,
                [f"tcgen05.cp.cta_group::1.{ptx} (PTX ISA 9.7.16.9.2) at lane {lane}, column {col}:",
                 f"source K-major, {swizzle_name(x)}, LBO {lbo}, SBO {sbo}; expected: the pattern with the",
                 "copied rows where the shape sends them (gen_cp.py, numpy)."],
                f"tc_cp_{shape}")
    pat = rng.integers(0, 1 << 32, (128, COLS), dtype=np.uint64).astype(np.uint32)
    exp = pat.copy()
    for (l0, c0) in [(32, 4), (96, 0)]:
        for i in range(31):
            exp[l0 + i + 1, c0:c0 + 8] = pat[l0 + i, c0:c0 + 8]
    save("shift_pat.npy", pat)
    save("shift_expected.npy", exp)
    toml("shift", ["tcgen05.shift.cta_group::1.down (PTX ISA 9.7.16.9.3) at lane 32 column 4 and lane",
                   "96 column 0: each of the 32 lanes' 8 columns moves one lane down, the first stays."],
         "tc_shift", ['{ buffer = "pat" }', '{ buffer = "out" }'], ["pat"], 128 * COLS, 16 + IMAGE)
    for (name, ent, t, dt, n, insts, formula) in WS_CASES:
        k = {"f16": 16, "tf32": 8, "s8": 32, "e4m3": 32}[t]
        eb = {"f16": 2, "tf32": 4, "s8": 1, "e4m3": 1}[t]
        if t == "s8":
            a = rng.integers(-128, 128, (128, k))
            b1 = rng.integers(-128, 128, (k, n))
            b2 = rng.integers(-128, 128, (k, n))
            c = rng.integers(-(1 << 20), 1 << 20, (128, n))
        else:
            a = rng.integers(-8, 9, (128, k)) / 4
            b1 = rng.integers(-8, 9, (k, n)) / 4
            b2 = rng.integers(-8, 9, (k, n)) / 4
            c = rng.integers(-16, 17, (128, n)) / 4
        image = np.zeros(IMAGE, dtype=np.uint8)
        wg.USED.clear()
        # A: 128 rows of 32 bytes, K-major, no swizzle; B1, B2: N rows (of B^T) of 32 bytes.
        adesc = tc_desc(wg.place(image, wg.bits(a, t), 0, False, 1, 128, 256, eb), 1)
        bl = 16 * n  # LBO: the second 16-byte K chunk after all N rows' first
        bdesc = tc_desc(wg.place(image, wg.bits(b1, t).T, 8192, False, 1, bl, 128, eb), 1)
        bdesc2 = tc_desc(wg.place(image, wg.bits(b2, t).T, 8192 + 2 * bl, False, 1, bl, 128, eb), 1)
        enable = 1 if t != "tf32" else 0
        # The multiples of 1/4 up to 2 are exact in e4m3 (3 mantissa bits).
        tcode = {"f16": 0, "tf32": 2, "s8": 1, "e4m3": 0}[t]
        dcode = {"f32": 1, "s32": 2}[dt]
        idv = dcode << 4 | tcode << 7 | tcode << 10 | (n >> 3) << 17 | (128 >> 4) << 24
        d = formula(a, b1, b2, c, enable)

        def word(v):
            return int(np.float32(v).view(np.uint32)) if dt == "f32" else int(np.int64(v)) & 0xffffffff
        save(f"{name}_cin.npy", np.array([[word(v) for v in row] for row in c], dtype=np.uint32))
        save(f"{name}_expected.npy", np.array([[word(v) for v in row] for row in d], dtype=np.uint32))
        save(f"{name}_img.npy", image.view(np.uint32))
        toml(name, [f"tcgen05.mma.ws.cta_group::1.kind::{WS_KINDS[t]} (PTX ISA 9.7.16.10.9.3): M 128, N {n}, K {k},",
                    f".{dt} += .{t} x .{t}, enable-input-d {enable}; then: " + "; ".join(
                        i.split(" [")[0].split("kind::")[1] for i in insts),
                    "expected: numpy, with a kept B (::use, ::lastuse) the filled one, not b-desc's."],
             ent, ['{ buffer = "img" }', '{ buffer = "out" }', '{ buffer = "cin" }',
                   f'{{ u64 = "{adesc:#x}" }}', f'{{ u64 = "{bdesc:#x}" }}', f'{{ u64 = "{bdesc2:#x}" }}',
                   f"{{ u32 = {idv} }}", f"{{ u32 = {enable} }}"],
             ["img", "cin"], 128 * n)
        print(name, hex(adesc), hex(bdesc), hex(bdesc2), hex(idv))
    for (name, ent, insts, formula) in CA_CASES:
        n, k = 64, 16
        a1 = rng.integers(-8, 9, (128, k)) / 4
        a2 = rng.integers(-8, 9, (128, k)) / 4
        t = rng.integers(-8, 9, (128, k)) / 4
        b = rng.integers(-8, 9, (k, n)) / 4
        c = rng.integers(-16, 17, (128, n)) / 4
        image = np.zeros(IMAGE, dtype=np.uint8)
        wg.USED.clear()
        # A1, A2: 128 rows of 32 bytes, K-major, no swizzle; B: N rows (of B^T) of 32 bytes.
        adesc = tc_desc(wg.place(image, wg.bits(a1, "f16"), 0, False, 1, 128, 256, 2), 1)
        adesc2 = tc_desc(wg.place(image, wg.bits(a2, "f16"), 12288, False, 1, 128, 256, 2), 1)
        bdesc = tc_desc(wg.place(image, wg.bits(b, "f16").T, 8192, False, 1, 16 * n, 128, 2), 1)
        # A in tensor memory: row r in lane r, element k in bits 16 (k % 2) of column k / 2.
        tb = wg.bits(t, "f16")
        areg = tb[:, 0::2] | tb[:, 1::2] << 16
        enable = 1
        idv = 1 << 4 | (n >> 3) << 17 | (128 >> 4) << 24
        d = formula(a1, a2, t, b, c, enable)

        def f32(v):
            return int(np.float32(v).view(np.uint32))
        save(f"{name}_cin.npy", np.array([[f32(v) for v in row] for row in c], dtype=np.uint32))
        save(f"{name}_areg.npy", areg.astype(np.uint32))
        save(f"{name}_expected.npy", np.array([[f32(v) for v in row] for row in d], dtype=np.uint32))
        save(f"{name}_img.npy", image.view(np.uint32))
        toml(name, ["tcgen05.mma.cta_group::1.kind::f16 (PTX ISA 9.7.16.10.9.1): M 128, N 64, K 16,",
                    ".f32 += .f16 x .f16, enable-input-d 1; then: " + "; ".join(
                        i.split(" [")[0].split("kind::f16")[1] or "(plain)" for i in insts),
                    "expected: numpy, a kept A (::use, ::lastuse) the filled one, not a-desc's;",
                    ".ashift moving A's rows in tensor memory down once read (gen_cp.py)."],
             ent, ['{ buffer = "img" }', '{ buffer = "out" }', '{ buffer = "cin" }',
                   '{ buffer = "areg" }', f'{{ u64 = "{adesc:#x}" }}', f'{{ u64 = "{adesc2:#x}" }}',
                   f'{{ u64 = "{bdesc:#x}" }}', f"{{ u32 = {idv} }}", f"{{ u32 = {enable} }}"],
             ["img", "cin", "areg"], 128 * n)
        print(name, hex(adesc), hex(adesc2), hex(bdesc), hex(idv))

    # The decompressing copies (their own generator, so the cases above keep their values).
    rng = np.random.default_rng(506)
    for (name, shape, unpack, (x, lbo, sbo), lane, col) in UNPACK_CASES:
        ptx = SHAPES[shape][0]
        cp_case(rng, name, shape, unpack, x, lbo, sbo, lane, col,
                [f"tcgen05.cp.cta_group::1.{ptx}.b8x16.{unpack} (PTX ISA 9.7.16.9.1-2) at lane {lane},",
                 f"column {col}: source K-major, {swizzle_name(x)}, LBO {lbo}, SBO {sbo}; expected: each 16-byte",
                 "group expanded to 8-bit containers (gen_cp.py `expand`), rows where the shape sends them."],
                f"tc_cp_{shape}_{unpack[:2]}")

if __name__ == "__main__":
    main()
