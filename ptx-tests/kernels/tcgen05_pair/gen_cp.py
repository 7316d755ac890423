#!/usr/bin/env python3
"""Writes the tcgen05.cp .cta_group::2 cases: cp2.ptx and, per case, each CTA's shared-memory
image, its tensor-memory pattern and the expected tensor memory after the copy, from the PTX
ISA's text and numpy, never from ptxjit:

- tcgen05.cp .cta_group::2 (section 9.7.16.9.2) copies "into the Tensor Memory of both the
  current and the peer CTAs"; each CTA of the pair copies from its own shared memory at the
  descriptor's offsets into its own tensor memory at taddr (ptxjit's reading, as the pair's
  tcgen05.mma reads each CTA's half at the descriptors' offsets of its own CTA, and as Apache
  TVM's tirx documentation of tcgen05.cp states it: "both CTAs copy from their own
  corresponding shared storage into their own TMEM"; docs/isa-notes.md);
- the copy itself is the .cta_group::1 copy (../tcgen05/gen_cp.py): the source rows in the
  descriptor's K-major canonical layout, word w of row r to column col0 + w of the lanes the
  shape sends row r to, decompression per 16-byte group.

Kernel (one per shape): a cluster of 2 CTAs of 128 threads; CTA rank r copies its own image
(img[r * IMAGE ..]) into shared memory, warp 0 allocates 32 columns with .cta_group::2,
thread t stores pattern row r * 128 + t into columns 0..15 of lane t, the cluster barrier
makes both ready, thread 0 of rank 0 alone issues the copy and commits it with a multicast
arrive on both CTAs' mbarriers, and thread t writes the 16 columns of its lane to
out[(r * 128 + t) * 16 ..]. The two CTAs' images differ, so a copy that read the issuing
CTA's shared memory for both, or copied into one CTA only, shows.

Run (numpy only, no GPU): python3 gen_cp.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tcgen05"))
import gen_cp as one  # noqa: E402  (the .cta_group::1 copy: shapes, layouts, decompression)

wg = one.wg
IMAGE = 16384
MBAR, TSLOT = IMAGE, IMAGE + 8
SHARED = IMAGE + 16
COLS = one.COLS

# (case, shape, unpack, layout (x, lbo, sbo), lane, column)
CASES = [
    ("cp2_128x256b_sw128", "128x256b", None, (8, 16, 1024), 0, 4),
    ("cp2_32x128b_warpx4", "32x128b_warpx4", None, (1, 16, 128), 0, 8),
    ("cp2_64x128b_02_13_b4", "64x128b_02_13", "b4x16_p64", (2, 16, 256), 0, 0),
]


def entry(name, shape, unpack):
    ptx = one.SHAPES[shape][0] + (f".b8x16.{unpack}" if unpack else "")
    L = [f".visible .entry {name}(.param .u64 img, .param .u64 pat, .param .u64 out, "
         ".param .u64 sdesc, .param .u32 toff)", "{",
         "    .reg .b32 %r<40>;", "    .reg .b64 %rd<24>;", "    .reg .pred %p<8>;",
         "    .reg .b16 %rs<2>;", "    .reg .b32 %c<20>;",
         "    mov.u32 %r1, %tid.x;", "    mov.u32 %r2, %cluster_ctarank;",
         "    mov.u32 %r5, smem;",
         # This CTA's image: img + rank * IMAGE.
         "    ld.param.u64 %rd1, [img];", f"    mul.wide.u32 %rd2, %r2, {IMAGE};",
         "    add.u64 %rd1, %rd1, %rd2;", "    shl.b32 %r3, %r1, 2;", "$copy:",
         f"    setp.ge.u32 %p1, %r3, {IMAGE};", "    @%p1 bra $copied;",
         "    cvt.u64.u32 %rd2, %r3;", "    add.u64 %rd3, %rd1, %rd2;",
         "    ld.global.u32 %r4, [%rd3];", "    add.u32 %r6, %r5, %r3;",
         "    st.shared.u32 [%r6], %r4;", "    add.u32 %r3, %r3, 512;", "    bra $copy;",
         "$copied:",
         f"    add.u32 %r10, %r5, {TSLOT};", f"    add.u32 %r11, %r5, {MBAR};",
         "    shr.u32 %r12, %r1, 5;", "    setp.ne.u32 %p2, %r12, 0;", "    @%p2 bra $allocated;",
         "    tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r10], 32;",
         "    tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;", "$allocated:",
         "    setp.ne.u32 %p3, %r1, 0;", "    @!%p3 mbarrier.init.shared::cta.b64 [%r11], 1;",
         "    tcgen05.fence::before_thread_sync;", "    bar.sync 0;",
         "    tcgen05.fence::after_thread_sync;", "    ld.shared.u32 %r20, [%r10];",
         "    shl.b32 %r13, %r12, 21;", "    add.u32 %r14, %r20, %r13;",
         # Pattern row rank * 128 + t into columns 0..15 of lane t.
         "    shl.b32 %r15, %r2, 7;", "    add.u32 %r16, %r15, %r1;",
         "    ld.param.u64 %rd7, [pat];", f"    mul.wide.u32 %rd10, %r16, {4 * COLS};",
         "    add.u64 %rd9, %rd7, %rd10;"]
    L += [f"    ld.global.b32 %c{i}, [%rd9+{4 * i}];" for i in range(COLS)]
    L += [f"    tcgen05.st.sync.aligned.32x32b.x{COLS}.b32 [%r14], {one.regs('%c', COLS)};",
          "    tcgen05.wait::st.sync.aligned;", "    tcgen05.fence::before_thread_sync;",
          "    barrier.cluster.arrive.release.aligned;", "    barrier.cluster.wait.acquire.aligned;",
          "    tcgen05.fence::after_thread_sync;",
          "    setp.ne.u32 %p4, %r2, 0;", "    or.pred %p4, %p4, %p3;", "    @%p4 bra $issued;",
          "    shr.u32 %r7, %r5, 4;", "    cvt.u64.u32 %rd4, %r7;", "    ld.param.u64 %rd5, [sdesc];",
          "    add.u64 %rd5, %rd5, %rd4;", "    ld.param.u32 %r17, [toff];",
          "    add.u32 %r21, %r20, %r17;",
          f"    tcgen05.cp.cta_group::2.{ptx} [%r21], %rd5;",
          "    mov.b16 %rs1, 3;",
          "    tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r11], %rs1;",
          "$issued:", "$wait:", "    mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r11], 0;",
          "    @!%p5 bra $wait;", "    tcgen05.fence::after_thread_sync;",
          f"    tcgen05.ld.sync.aligned.32x32b.x{COLS}.b32 {one.regs('%c', COLS)}, [%r14];",
          "    tcgen05.wait::ld.sync.aligned;", "    ld.param.u64 %rd13, [out];",
          "    add.u64 %rd14, %rd13, %rd10;"]
    L += [f"    st.global.b32 [%rd14+{4 * i}], %c{i};" for i in range(COLS)]
    L += ["    tcgen05.fence::before_thread_sync;", "    barrier.cluster.arrive.release.aligned;",
          "    barrier.cluster.wait.acquire.aligned;", "    @%p2 bra $done;",
          "    tcgen05.fence::after_thread_sync;",
          "    tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r20, 32;", "$done:", "    ret;", "}", ""]
    return "\n".join(L)


def main():
    head = ["// Written by gen_cp.py (PTX ISA 9.7.16.9.2: tcgen05.cp .cta_group::2).",
            "// See gen_cp.py for what each kernel does and where its expected values come from.",
            ".version 8.6", ".target sm_100a", ".address_size 64", "",
            ".extern .shared .align 1024 .b8 smem[];", ""]
    body = [entry(f"cp2_{name[4:]}", shape, u) for (name, shape, u, _, _, _) in CASES]
    with open(os.path.join(HERE, "cp2.ptx"), "w") as f:
        f.write("\n".join(head) + "\n" + "\n".join(body))
    rng = np.random.default_rng(3707)
    for (name, shape, unpack, (x, lbo, sbo), lane, col) in CASES:
        _, rows, words, lanes = one.SHAPES[shape]
        pat = rng.integers(0, 1 << 32, (2 * 128, COLS), dtype=np.uint64).astype(np.uint32)
        exp = pat.copy()
        images = []
        desc = None
        for rank in range(2):
            src = rng.integers(0, 1 << 32, (rows, words), dtype=np.uint64).astype(np.uint32)
            image = np.zeros(IMAGE, dtype=np.uint8)
            wg.USED.clear()
            d = one.tc_desc(wg.place(image, src.astype(np.int64), 0, False, x, lbo, sbo, 4), x)
            assert desc is None or desc == d
            desc = d
            images.append(image)
            for r in range(rows):
                row = src[r]
                if unpack:
                    rb = row.astype("<u4").view(np.uint8)
                    row = np.concatenate([one.expand(rb[16 * g:16 * g + 16], unpack)
                                          for g in range(len(rb) // 16)]).view("<u4")
                for ln in lanes(r):
                    exp[rank * 128 + lane + ln, col:col + words] = row
        np.save(os.path.join(HERE, f"{name}_img.npy"), np.concatenate(images).view(np.uint32))
        np.save(os.path.join(HERE, f"{name}_pat.npy"), pat.reshape(-1))
        np.save(os.path.join(HERE, f"{name}_expected.npy"), exp.reshape(-1))
        ptx = one.SHAPES[shape][0] + (f".b8x16.{unpack}" if unpack else "")
        sw = "no swizzle" if x == 1 else f"{16 * x}-byte swizzle"
        text = "".join(f"# {s}\n" for s in [
            f"tcgen05.cp.cta_group::2.{ptx} (PTX ISA 9.7.16.9.2) at lane {lane}, column {col},",
            f"issued by rank 0 of a 2-CTA cluster: source K-major, {sw}, LBO {lbo}, SBO {sbo},",
            "each CTA's own image at the descriptor's offsets into its own tensor memory;",
            "expected: each CTA's pattern with its copied rows where the shape sends them (numpy)."])
        text += "# Written by gen_cp.py (do not edit: change gen_cp.py and run it).\n"
        text += (f'ptx = "cp2.ptx"\nkernel = "cp2_{name[4:]}"\ngrid = [2]\nblock = [128]\n'
                 f"cluster = [2]\nshared_bytes = {SHARED}\n"
                 f'args = [{{ buffer = "img" }}, {{ buffer = "pat" }}, {{ buffer = "out" }}, '
                 f'{{ u64 = "{desc:#x}" }}, {{ u32 = {lane << 16 | col} }}]\n')
        for b in ["img", "pat"]:
            text += f'\n[buffers.{b}]\ntype = "u32"\ninit = {{ file = "{name}_{b}.npy" }}\n'
        text += f'\n[buffers.out]\ntype = "u32"\nlen = {2 * 128 * COLS}\n'
        text += f'\n[expect.out]\nfile = "{name}_expected.npy"\ntolerance = "exact"\n'
        with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
            f.write(text)
        print(name, hex(desc))


if __name__ == "__main__":
    main()
