#!/usr/bin/env python3
"""Writes the block-scaled tcgen05.mma cases (PTX ISA §9.7.16.10.7, §9.7.16.10.9.1):
tcgen05_bs.ptx (hand-written kernels for sm_100a, PTX ISA 8.8) and, per case, the shared-memory
byte image of A and B, the scale factors as tensor memory holds them, the D input and the
expected D, from the ISA's text and numpy:

- D = (A · scale_A) · (B · scale_B) + D (§9.7.16.10.7): each row of A is cut into `nv` chunks
  of K / nv elements along K, each multiplied by that row's factor; each column of B likewise
  (Table 54: .kind::mxf8f6f4 .scale_vec::1X, K = 32; .kind::mxf4 ::2X, K = 64;
  .kind::mxf4nvf4 ::2X or ::4X, K = 64);
- the instruction descriptor of the block-scaled kinds: sparsity at bit 2, the scale factor B
  ID at bits 4-5, A and B types at 7-9 and 10-12 (.kind::mxf8f6f4: E4M3 0, E5M2 1, E2M3 3,
  E3M2 4, E2M1 5; .kind::mxf4/::mxf4nvf4: E2M1 1), negate A/B at 13/14, transpose A/B at
  15/16, N >> 3 at 17-22, the scale type at bit 23 (1 ue8m0, 0 ue4m3), M >> 4 at 24-28, the
  scale factor A ID at bits 29-30;
- scale factors (§5.2.5): ue8m0 code e is 2^(e - 127); ue4m3 is e4m3 with the sign bit 0;
- the scale factors in tensor memory (§9.7.16.10.7.2-3, for M = 128 / the columns of B): the
  factors of row i of A (column i of B) are bytes ID .. ID + nv - 1 of the cell at lane i % 32,
  column (scale address) + i / 32, duplicated to all four 32-lane partitions ("Scale factors for
  A and B matrices need to be duplicated to all 32 lane partitions of tensor memory"); the ID
  is a byte offset for ::1X, a half-word offset (0 or 2) for ::2X, 0 for ::4X. The bytes the ID
  does not select are random here, so a wrong selection shows. This is the layout the ISA's
  figures 231-233 and 240-242 draw and tcgen05.cp.32x128b.warpx4 writes (CUTLASS's scale-factor
  atom: 32 rows of 16 bytes, row i % 32, word i / 32);
- shared memory: 8-bit elements as tcgen05's K-major canonical layouts (../tcgen05/gen.py);
  4-/6-bit elements of .kind::mxf8f6f4 padded 16 to a 16-byte group (§9.7.16.10.4.4);
  .kind::mxf4/::mxf4nvf4 e2m1 two to a byte, no padding (§9.7.16.10.4.6), element 2j in the
  low half of byte j;
- tensor memory D: row i of D is lane i (M = 128); thread t stores/loads row t (.32x32b).

All values are chosen so every product and partial sum is exact in f32 (checked below), so
numpy's float64 result is D in any order of summation.

Run (numpy only, no GPU): python3 gen.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# ../tcgen05/gen.py imports ../wgmma/gen.py as `gen`: load that first, then tcgen05's by path.
sys.path.insert(0, os.path.join(HERE, "..", "wgmma"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)
import gen as wg  # noqa: E402  (the canonical layouts)

tc = gc.load_generator(os.path.join(HERE, "..", "tcgen05", "gen.py"), "tcgen05_gen")  # layouts, narrow-float encodings, descriptors
M, N = tc.M, tc.N
A_BASE, B_BASE, IMAGE = tc.A_BASE, tc.B_BASE, tc.IMAGE
MBAR, TSLOT, SHARED = tc.MBAR, tc.TSLOT, tc.SHARED
TYPE_CODE = {"e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5}

# (case, kind, modifiers after .block_scale, factors per row nv, A type, B type, A layout, B
#  layout, scale type, SFA ID, SFB ID, enable-input-d, neg_a, neg_b)
CASES = [
    ("mxf8_e4m3_e2m1", "mxf8f6f4", ".scale_vec::1X", 1, "e4m3", "e2m1",
     (False, 1, 128, 256), (False, 2, 16, 256), "ue8m0", 1, 3, 1, 0, 1),
    ("mxf8_e2m3_e5m2", "mxf8f6f4", ".block32", 1, "e2m3", "e5m2",
     (False, 4, 16, 512), (True, 4, 1024, 512), "ue8m0", 2, 0, 0, 1, 0),
    ("mxf4_default", "mxf4", "", 2, "e2m1", "e2m1",
     (False, 2, 16, 256), (False, 1, 128, 256), "ue8m0", 2, 0, 1, 0, 0),
    ("nvf4_ue4m3", "mxf4nvf4", ".block16", 4, "e2m1", "e2m1",
     (False, 4, 16, 512), (False, 2, 16, 256), "ue4m3", 0, 0, 1, 1, 0),
    ("nvf4_ue8m0_2x", "mxf4nvf4", ".scale_vec::2X", 2, "e2m1", "e2m1",
     (False, 1, 128, 256), (False, 4, 16, 512), "ue8m0", 0, 2, 1, 0, 1),
]


def entry(name, kind, vec_mods):
    """One kernel: C and the scale factors into tensor memory, one block-scaled mma, D out."""
    L = [f".visible .entry {name}(.param .u64 img, .param .u64 out, .param .u64 cin,",
         "    .param .u64 adesc, .param .u64 bdesc, .param .u32 idesc, .param .u32 enable,",
         "    .param .u64 sf)", "{", "    .reg .b32 %r<32>;", "    .reg .b64 %rd<24>;",
         "    .reg .pred %p<8>;", "    .reg .b32 %c<64>;", "    .reg .b32 %s<8>;",
         "    mov.u32 %r1, %tid.x;", "    ld.param.u64 %rd1, [img];", "    mov.u32 %r5, smem;",
         "    shl.b32 %r3, %r1, 2;", "$copy:", f"    setp.ge.u32 %p1, %r3, {IMAGE};",
         "    @%p1 bra $copied;", "    cvt.u64.u32 %rd2, %r3;", "    add.u64 %rd3, %rd1, %rd2;",
         "    ld.global.u32 %r4, [%rd3];", "    add.u32 %r6, %r5, %r3;", "    st.shared.u32 [%r6], %r4;",
         "    add.u32 %r3, %r3, 512;", "    bra $copy;", "$copied:",
         "    // Warp 0 allocates 128 columns: D at 0..63, scale_A at 64..67, scale_B at 68..71.",
         f"    add.u32 %r10, %r5, {TSLOT};", f"    add.u32 %r11, %r5, {MBAR};",
         "    shr.u32 %r12, %r1, 5;", "    setp.ne.u32 %p2, %r12, 0;", "    @%p2 bra $allocated;",
         "    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r10], 128;",
         "    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", "$allocated:",
         "    setp.ne.u32 %p3, %r1, 0;", "    @!%p3 mbarrier.init.shared::cta.b64 [%r11], 1;",
         "    tcgen05.fence::before_thread_sync;", "    bar.sync 0;", "    tcgen05.fence::after_thread_sync;",
         "    ld.shared.u32 %r20, [%r10];", "    shl.b32 %r13, %r12, 21;", "    add.u32 %r14, %r20, %r13;",
         "    ld.param.u64 %rd7, [cin];", "    mul.wide.u32 %rd8, %r1, 256;", "    add.u64 %rd9, %rd7, %rd8;"]
    L += [f"    ld.global.b32 %c{i}, [%rd9+{4 * i}];" for i in range(64)]
    L += [f"    tcgen05.st.sync.aligned.32x32b.x64.b32 [%r14], {tc.regs('%c', 64)};",
          "    // Every 32-lane partition gets the same scale factors: sf[(t % 32) * 8 ..].",
          "    ld.param.u64 %rd10, [sf];", "    and.b32 %r17, %r1, 31;", "    mul.wide.u32 %rd11, %r17, 32;",
          "    add.u64 %rd12, %rd10, %rd11;"]
    L += [f"    ld.global.b32 %s{i}, [%rd12+{4 * i}];" for i in range(8)]
    L += [f"    tcgen05.st.sync.aligned.32x32b.x8.b32 [%r14+64], {tc.regs('%s', 8)};",
          "    tcgen05.wait::st.sync.aligned;", "    tcgen05.fence::before_thread_sync;", "    bar.sync 0;",
          "    tcgen05.fence::after_thread_sync;",
          "    shr.u32 %r7, %r5, 4;", "    cvt.u64.u32 %rd4, %r7;", "    ld.param.u64 %rd5, [adesc];",
          "    add.u64 %rd5, %rd5, %rd4;", "    ld.param.u64 %rd6, [bdesc];", "    add.u64 %rd6, %rd6, %rd4;",
          "    ld.param.u32 %r15, [idesc];", "    ld.param.u32 %r16, [enable];", "    setp.ne.u32 %p4, %r16, 0;",
          "    add.u32 %r22, %r20, 64;", "    add.u32 %r23, %r20, 68;", "    @%p3 bra $issued;",
          f"    tcgen05.mma.cta_group::1.kind::{kind}.block_scale{vec_mods} [%r20], %rd5, %rd6, %r15, "
          "[%r22], [%r23], %p4;",
          "    tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r11];",
          "$issued:", "$wait:", "    mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r11], 0;",
          "    @!%p5 bra $wait;", "    tcgen05.fence::after_thread_sync;",
          f"    tcgen05.ld.sync.aligned.32x32b.x64.b32 {tc.regs('%c', 64)}, [%r14];",
          "    tcgen05.wait::ld.sync.aligned;", "    ld.param.u64 %rd13, [out];", "    add.u64 %rd14, %rd13, %rd8;"]
    L += [f"    st.global.b32 [%rd14+{4 * i}], %c{i};" for i in range(64)]
    L += ["    tcgen05.fence::before_thread_sync;", "    bar.sync 0;", "    @%p2 bra $done;",
          "    tcgen05.fence::after_thread_sync;",
          "    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r20, 128;", "$done:", "    ret;", "}", ""]
    return "\n".join(L)


def entry_name(case):
    return "bs_" + case[0]


def write_ptx():
    head = ["// Written by gen.py (PTX ISA 9.7.16.10.7, block-scaled tcgen05.mma). A CTA of 128",
            "// threads copies the byte image `img` into shared memory, allocates tensor memory,",
            "// stores C (row t from thread t: cin[t * 64 ..]) and the scale factors (lane t of",
            "// every partition from sf[(t % 32) * 8 ..]: scale_A at column 64, scale_B at 68);",
            "// thread 0 issues one block-scaled tcgen05.mma and commits it to an mbarrier; every",
            "// thread then loads its row of D and stores it at out[t * 64 ..].",
            ".version 8.8", ".target sm_100a", ".address_size 64", "",
            ".extern .shared .align 1024 .b8 smem[];", ""]
    body = [entry(entry_name(c), c[1], c[2]) for c in CASES]
    gc.write_text(HERE, "tcgen05_bs.ptx", "\n".join(head) + "\n" + "\n".join(body))


def e4m3_value(code):
    e, m = code >> 3, code & 7
    return m * 2.0 ** -9 if e == 0 else (8 + m) * 2.0 ** (e - 10)


def scale_codes(rng, stype, shape):
    """(codes, values) of random scale factors: ue8m0 2^-2..2^1; ue4m3 values in [0.5, 2]."""
    if stype == "ue8m0":
        codes = rng.integers(125, 129, shape)
        return codes, 2.0 ** (codes - 127.0)
    pool = [c for c in range(0x7f) if 0.5 <= e4m3_value(c) <= 2.0]
    codes = rng.choice(pool, shape)
    return codes, np.vectorize(e4m3_value)(codes)


def element_bytes(rng, vals, t, kind):
    """The byte matrix of `vals` (mn × k) as shared memory holds elements of type t."""
    codes = tc.mini_codes(vals, t)
    if kind == "mxf8f6f4":
        return tc.packed_rows(codes, t, rng)
    return codes[:, 0::2] | (codes[:, 1::2] << 4)


def sf_words(rng, codes, sfid):
    """The 32 lanes × 4 words of one scale matrix (rows or columns × nv codes), as tensor memory
    holds it in each partition: factors of row i at bytes sfid.. of word i // 32 of lane i % 32;
    unselected bytes random."""
    words = rng.integers(0, 256, (32, 4, 4))
    for i in range(codes.shape[0]):
        for j in range(codes.shape[1]):
            words[i % 32, i // 32, sfid + j] = codes[i, j]
    return (words[:, :, 0] | words[:, :, 1] << 8 | words[:, :, 2] << 16 | words[:, :, 3] << 24).astype(np.uint32)


def write_case(rng, case):
    (name, kind, mods, nv, at, bt, alay, blay, stype, sfa, sfb, enable, neg_a, neg_b) = case
    k = 32 if kind == "mxf8f6f4" else 64
    a = tc.mini_values(rng, at, (M, k), 1.5 if at != "e2m1" else 6)
    b = tc.mini_values(rng, bt, (k, N), 1.5 if bt != "e2m1" else 6)
    c = rng.integers(-16, 17, (M, N)) / 4
    sa_codes, sa = scale_codes(rng, stype, (M, nv))
    sb_codes, sb = scale_codes(rng, stype, (N, nv))
    blk = k // nv
    a_s = (-a if neg_a else a) * np.repeat(sa, blk, axis=1)
    b_s = (-b if neg_b else b) * np.repeat(sb, blk, axis=1).T
    terms = np.abs(a_s)[:, :, None] * np.abs(b_s)[None, :, :]
    # Every product is a multiple of 2^-12 and at most 2^24 of those sum: exact in f32.
    assert (terms * 2 ** 12 == np.round(terms * 2 ** 12)).all()
    assert terms.sum(axis=1).max() + 4 < 2 ** 12
    d = a_s @ b_s + (c if enable else 0)
    image = np.zeros(IMAGE, dtype=np.uint8)
    wg.USED.clear()
    # 8-bit element positions: 4-bit .kind::mxf4 rows hold K / 2 bytes.
    adesc = tc.tc_desc(wg.place(image, element_bytes(rng, a, at, kind), A_BASE, *alay, 1), alay[1])
    bdesc = tc.tc_desc(wg.place(image, element_bytes(rng, b.T, bt, kind), B_BASE, *blay, 1), blay[1])
    codes = TYPE_CODE if kind == "mxf8f6f4" else {"e2m1": 1}
    idv = (sfb << 4 | codes[at] << 7 | codes[bt] << 10 | neg_a << 13 | neg_b << 14
           | int(alay[0]) << 15 | int(blay[0]) << 16 | (N >> 3) << 17 | (stype == "ue8m0") << 23
           | (M >> 4) << 24 | sfa << 29)
    sf = np.concatenate([sf_words(rng, sa_codes, sfa), sf_words(rng, sb_codes, sfb)], axis=1)
    cin = np.array([[tc.word(v, "f32") for v in row] for row in c], dtype=np.uint32)
    exp = np.array([[tc.word(v, "f32") for v in row] for row in d], dtype=np.uint32)
    gc.save_npy(HERE, f"{name}_img", image.view(np.uint32))
    gc.save_npy(HERE, f"{name}_cin", cin.reshape(-1))
    gc.save_npy(HERE, f"{name}_sf", sf.reshape(-1))
    gc.save_npy(HERE, f"{name}_expected", exp.reshape(-1))

    def describe(lay):
        mn_major, x, lbo, sbo = lay
        sw = "no swizzle" if x == 1 else f"{16 * x}-byte swizzle"
        return f"{'MN' if mn_major else 'K'}-major, {sw}, LBO {lbo}, SBO {sbo}"
    toml = f"""# tcgen05.mma.cta_group::1.kind::{kind}.block_scale{mods}: M {M}, N {N}, K {k}, .f32 += .{at} x .{bt},
# {nv} {stype} scale factor(s) per row of A / column of B (SFA ID {sfa}, SFB ID {sfb}).
# A: {describe(alay)}; B: {describe(blay)}; enable-input-d {enable}, negate A {neg_a}, negate B {neg_b}.
# Written by gen.py (do not edit: change gen.py and run it); expected: numpy's (A·sA)·(B·sB) + C, exact.
ptx = "tcgen05_bs.ptx"
kernel = "{entry_name(case)}"
grid = [1]
block = [128]
shared_bytes = {SHARED}
args = [{{ buffer = "img" }}, {{ buffer = "out" }}, {{ buffer = "cin" }}, {{ u64 = "{adesc:#x}" }},
        {{ u64 = "{bdesc:#x}" }}, {{ u32 = {idv} }}, {{ u32 = {enable} }}, {{ buffer = "sf" }}]

{gc.buffer_from_file("img", f"{name}_img.npy")}
{gc.buffer_from_file("cin", f"{name}_cin.npy")}
{gc.buffer_from_file("sf", f"{name}_sf.npy")}
[buffers.out]
type = "u32"
len = {M * N}

{gc.expect_exact("out", f"{name}_expected.npy")}"""
    gc.write_text(HERE, f"{name}.toml", toml)
    print(name, hex(adesc), hex(bdesc), hex(idv))


def main():
    write_ptx()
    rng = np.random.default_rng(300)
    for case in CASES:
        write_case(rng, case)


if __name__ == "__main__":
    main()
