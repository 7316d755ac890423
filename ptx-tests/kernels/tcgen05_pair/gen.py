#!/usr/bin/env python3
"""Writes the tcgen05 .cta_group::2 cases: tcgen05_pair.ptx and, per case, the byte images
of each CTA's shared memory, its tensor memory before the multiply and the expected contents
after it, from the PTX ISA's text and numpy:

- a CTA pair is two CTAs of a cluster whose %cluster_ctarank differ in bit 0 (section
  9.7.16.5); tcgen05.alloc/dealloc/relinquish_alloc_permit .cta_group::2 are issued by one
  warp of each CTA of the pair (the first "could block" until the peer's comes: 9.7.16.7.1),
  and allocate the same columns in both; tcgen05.mma .cta_group::2 and tcgen05.commit
  .cta_group::2 are issued by one thread of the pair;
- the multiply's M x N D and M x K A are split by rows between the pair, the even rank
  holding rows 0..M/2, and the K x N B by columns, the even rank holding columns 0..N/2,
  each half at the same shared-memory offsets (the descriptors) and tensor-memory address
  in both CTAs (the ISA's figures as NVIDIA's tilus documents them: A = [a0; a1],
  B = [b0, b1], D = [d0; d1], CTA0 the rank with bit 0 clear);
- each CTA's half of D is data path Layout A (M = 256: local row r in lane r, column c0 + j)
  or Layout B (M = 128: local row r in lane r + 64 (j / (N/2)), column c0 + j % (N/2)),
  section 9.7.16.10.5;
- shapes: M = 128 or 256, N from 16 to 256 in steps of 16 (.kind::i8: steps of 32), the
  ranges CUTLASS's 2x1SM atoms assert;
- descriptors, element formats and value ranges as ../tcgen05/gen.py.

Kernel pair_mma: each CTA (128 threads) copies its own image (img[ctaid * IMAGE ..]) into
shared memory, warp 0 allocates 128 columns with .cta_group::2, every thread stores its
lane's 64 columns of C (cin[(ctaid * 128 + t) * 64 ..]), the cluster barrier makes the pair's
data ready, and thread 0 of the even CTA issues the .cta_group::2 multiply and commits it with
a multicast arrive on the mbarrier of both CTAs (ctaMask 0b11 << rank). Every thread then
loads its lane's 64 columns back (out[(ctaid * 128 + t) * 64 ..]) and warp 0 deallocates with
.cta_group::2. The expected output is cin with each CTA's cells of D replaced by numpy's
A.B (+ C read from the same cells), every product and sum exact.

Run (numpy only, no GPU): python3 gen.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "wgmma"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)
tc = gc.load_generator(os.path.join(HERE, "..", "tcgen05", "gen.py"))  # descriptors and value helpers of the .cta_group::1 cases
wg = tc.wg

COLS = 64  # tensor-memory columns each thread stores and loads back
A_BASE, B_BASE, IMAGE = tc.A_BASE, tc.B_BASE, tc.IMAGE
MBAR, TSLOT, SHARED = tc.MBAR, tc.TSLOT, tc.SHARED
KIND = {"f16": "f16", "bf16": "f16", "tf32": "tf32", "s8": "i8"}

# (case, A type, B type, D type, M, N, B layout (mn_major, x, lbo, sbo) or None, enable-input-d,
#  cluster size, grid size)
CASES = [
    ("p256_f16", "f16", "f16", "f32", 256, 64, None, 1, 2, 2),
    ("p128_bf16_sw128", "bf16", "bf16", "f32", 128, 128, (False, 8, 16, 1024), 1, 4, 4),
    ("p256_s8u8", "s8", "u8", "s32", 256, 32, None, 0, 2, 4),
    ("p256_tf32_c4", "tf32", "tf32", "f32", 256, 48, None, 1, 4, 4),
]


def regs(prefix, n):
    return "{" + ", ".join(f"{prefix}{i}" for i in range(n)) + "}"


def write_ptx():
    L = ["// Written by gen.py (PTX ISA 9.7.16: tcgen05 .cta_group::2 on a CTA pair; see gen.py).",
         ".version 8.6", ".target sm_100a", ".address_size 64", "",
         ".extern .shared .align 1024 .b8 smem[];", ""]
    for kind in ["f16", "tf32", "i8"]:
        L += [f".visible .entry pair_{kind}(.param .u64 img, .param .u64 out, .param .u64 cin,",
              "    .param .u64 adesc, .param .u64 bdesc, .param .u32 idesc, .param .u32 enable)", "{",
              "    .reg .b32 %r<32>;", "    .reg .b64 %rd<24>;", "    .reg .pred %p<8>;",
              "    .reg .b16 %rs<2>;", "    .reg .b32 %c<64>;",
              "    mov.u32 %r1, %tid.x;", "    mov.u32 %r2, %ctaid.x;", "    ld.param.u64 %rd1, [img];",
              f"    mul.wide.u32 %rd15, %r2, {IMAGE};", "    add.u64 %rd1, %rd1, %rd15;",
              "    mov.u32 %r5, smem;", "    shl.b32 %r3, %r1, 2;", "$copy:",
              f"    setp.ge.u32 %p1, %r3, {IMAGE};", "    @%p1 bra $copied;", "    cvt.u64.u32 %rd2, %r3;",
              "    add.u64 %rd3, %rd1, %rd2;", "    ld.global.u32 %r4, [%rd3];", "    add.u32 %r6, %r5, %r3;",
              "    st.shared.u32 [%r6], %r4;", "    add.u32 %r3, %r3, 512;", "    bra $copy;", "$copied:",
              "    // Warp 0 of each CTA of the pair allocates 128 columns in both.",
              f"    add.u32 %r10, %r5, {TSLOT};", f"    add.u32 %r11, %r5, {MBAR};",
              "    shr.u32 %r12, %r1, 5;", "    setp.ne.u32 %p2, %r12, 0;", "    @%p2 bra $allocated;",
              "    tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r10], 128;",
              "    tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;", "$allocated:",
              "    setp.ne.u32 %p3, %r1, 0;", "    @!%p3 mbarrier.init.shared::cta.b64 [%r11], 1;",
              "    tcgen05.fence::before_thread_sync;", "    bar.sync 0;", "    tcgen05.fence::after_thread_sync;",
              "    ld.shared.u32 %r20, [%r10];", "    shl.b32 %r13, %r12, 21;", "    add.u32 %r14, %r20, %r13;",
              "    ld.param.u64 %rd7, [cin];", f"    mul.wide.u32 %rd16, %r2, {128 * COLS * 4};",
              "    add.u64 %rd7, %rd7, %rd16;", f"    mul.wide.u32 %rd8, %r1, {COLS * 4};",
              "    add.u64 %rd9, %rd7, %rd8;"]
        L += [f"    ld.global.b32 %c{i}, [%rd9+{4 * i}];" for i in range(COLS)]
        L += [f"    tcgen05.st.sync.aligned.32x32b.x64.b32 [%r14], {regs('%c', COLS)};",
              "    tcgen05.wait::st.sync.aligned;", "    tcgen05.fence::before_thread_sync;",
              "    // Both CTAs of the pair have their image, C and mbarrier in place.",
              "    barrier.cluster.arrive.release.aligned;", "    barrier.cluster.wait.acquire.aligned;",
              "    tcgen05.fence::after_thread_sync;",
              "    shr.u32 %r7, %r5, 4;", "    cvt.u64.u32 %rd4, %r7;", "    ld.param.u64 %rd5, [adesc];",
              "    add.u64 %rd5, %rd5, %rd4;", "    ld.param.u64 %rd6, [bdesc];", "    add.u64 %rd6, %rd6, %rd4;",
              "    ld.param.u32 %r15, [idesc];", "    ld.param.u32 %r16, [enable];", "    setp.ne.u32 %p4, %r16, 0;",
              "    mov.u32 %r17, %cluster_ctarank;", "    and.b32 %r18, %r17, 1;", "    setp.ne.u32 %p6, %r18, 0;",
              "    or.pred %p7, %p3, %p6;", "    @%p7 bra $issued;",
              f"    tcgen05.mma.cta_group::2.kind::{kind} [%r20], %rd5, %rd6, %r15, %p4;",
              "    mov.b32 %r19, 3;", "    shl.b32 %r19, %r19, %r17;", "    cvt.u16.u32 %rs1, %r19;",
              "    tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r11], %rs1;",
              "$issued:", "$wait:", "    mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r11], 0;",
              "    @!%p5 bra $wait;", "    tcgen05.fence::after_thread_sync;",
              f"    tcgen05.ld.sync.aligned.32x32b.x64.b32 {regs('%c', COLS)}, [%r14];",
              "    tcgen05.wait::ld.sync.aligned;", "    ld.param.u64 %rd13, [out];",
              "    add.u64 %rd13, %rd13, %rd16;", "    add.u64 %rd14, %rd13, %rd8;"]
        L += [f"    st.global.b32 [%rd14+{4 * i}], %c{i};" for i in range(COLS)]
        L += ["    tcgen05.fence::before_thread_sync;", "    bar.sync 0;", "    @%p2 bra $done;",
              "    tcgen05.fence::after_thread_sync;",
              "    tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r20, 128;", "$done:", "    ret;", "}", ""]
    gc.write_text(HERE, "tcgen05_pair.ptx", "\n".join(L))


def place(m, n, r, j):
    """(lane, column) of a CTA's local row r, column j of D (Layout A for M = 256, B for 128)."""
    if m == 256:
        return r, j
    return r + 64 * (j // (n // 2)), j % (n // 2)


def idesc(at, bt, dt, m, n, trans_b):
    dcode = {"f16": 0, "f32": 1, "s32": 2}[dt]
    return (dcode << 4 | tc.TYPE_CODE[at] << 7 | tc.TYPE_CODE[bt] << 10 | trans_b << 16
            | (n >> 3) << 17 | (m >> 4) << 24)


def write_case(rng, case):
    (name, at, bt, dt, m, n, blay, enable, csize, grid) = case
    k = tc.K_OF[at]
    eb = {"f16": 2, "bf16": 2, "tf32": 4}.get(at, 1)
    hm, hn = m // 2, n // 2
    alay = (False, 1, 16 * hm, 128)  # K-major, no swizzle: 8-row groups of 16-byte rows
    blay = blay or (False, 1, 16 * hn, 128)
    images = np.zeros((grid, IMAGE), dtype=np.uint8)
    cin = np.zeros((grid, 128, COLS))
    out = np.zeros((grid, 128, COLS))
    adesc = bdesc = None
    for pair in range(grid // 2):
        # The pair's CTAs (ranks 2q and 2q + 1 of their cluster) are ctaid 2 pair, 2 pair + 1.
        if at == "s8":
            a = rng.integers(-128, 128, (m, k))
            b = rng.integers(0, 256, (k, n))
            tm = rng.integers(-(1 << 20), 1 << 20, (2, 128, COLS))
        else:
            a = tc.value_of(rng, at, (m, k), True)
            b = tc.value_of(rng, bt, (k, n), True)
            tm = rng.integers(-16, 17, (2, 128, COLS)) / 4
        c = np.zeros((m, n))
        for half in range(2):
            cta = 2 * pair + half
            wg.USED.clear()
            ad = tc.tc_desc(wg.place(images[cta], tc.element_bytes(rng, a[half * hm:(half + 1) * hm], at),
                                     A_BASE, *alay, eb), 1)
            bd = tc.tc_desc(wg.place(images[cta], tc.element_bytes(rng, b[:, half * hn:(half + 1) * hn].T, bt),
                                     B_BASE, *blay, eb), blay[1])
            assert adesc in (None, ad) and bdesc in (None, bd)
            adesc, bdesc = ad, bd
            cin[cta] = tm[half]
            for r in range(hm):
                for j in range(n):
                    c[half * hm + r, j] = tm[half][place(m, n, r, j)]
        d = a @ b + (c if enable else 0)
        for half in range(2):
            cta = 2 * pair + half
            o = tm[half].copy()
            cells = set()
            for r in range(hm):
                for j in range(n):
                    lc = place(m, n, r, j)
                    cells.add(lc)
                    o[lc] = d[half * hm + r, j]
            assert len(cells) == hm * n
            out[cta] = o
    idv = idesc(at, bt, dt, m, n, int(blay[0]))
    tword = np.array([[[tc.word(v, dt) for v in row] for row in t] for t in cin], dtype=np.uint32)
    exp = np.array([[[tc.word(v, dt) for v in row] for row in t] for t in out], dtype=np.uint32)
    gc.save_npy(HERE, f"{name}_img", images.reshape(-1).view(np.uint32))
    gc.save_npy(HERE, f"{name}_cin", tword.reshape(-1))
    gc.save_npy(HERE, f"{name}_expected", exp.reshape(-1))
    sw = "no swizzle" if blay[1] == 1 else f"{16 * blay[1]}-byte swizzle"
    toml = f"""# tcgen05.mma.cta_group::2.kind::{KIND[at]}: M {m}, N {n}, K {k}, .{dt} += .{at} x .{bt} over
# each CTA pair of clusters of {csize} ({grid} CTAs): the even rank holds rows 0..{hm} of A and D and
# columns 0..{hn} of B; Layout {'A' if m == 256 else 'B'}; B K-major, {sw}; enable-input-d {enable};
# alloc/dealloc/relinquish_alloc_permit and commit (multicast to both) .cta_group::2.
# Written by gen.py (do not edit: change gen.py and run it); expected: each CTA's tensor memory
# image with its cells of D (PTX ISA 9.7.16.10.5) replaced by numpy's A·B + C, exact.
ptx = "tcgen05_pair.ptx"
kernel = "pair_{KIND[at]}"
grid = [{grid}]
block = [128]
cluster = [{csize}]
shared_bytes = {SHARED}
args = [{{ buffer = "img" }}, {{ buffer = "out" }}, {{ buffer = "cin" }}, {{ u64 = "{adesc:#x}" }},
        {{ u64 = "{bdesc:#x}" }}, {{ u32 = {idv} }}, {{ u32 = {enable} }}]

{gc.buffer_from_file("img", f"{name}_img.npy")}
{gc.buffer_from_file("cin", f"{name}_cin.npy")}
[buffers.out]
type = "u32"
len = {grid * 128 * COLS}

{gc.expect_exact("out", f"{name}_expected.npy")}"""
    gc.write_text(HERE, f"{name}.toml", toml)
    print(name, hex(adesc), hex(bdesc), hex(idv))


def write_faults():
    """A .cta_group::2 alloc in a launch without clusters: no peer CTA, a fault."""
    with open(os.path.join(HERE, "p256_f16.toml")) as f:
        text = f.read()
    text = text[text.index("ptx = "):].replace("cluster = [2]\n", "")
    text = text.split("[expect.out]")[0] + '[expect_error]\nkind = "fault"\ncontains = "pairs the CTAs of ranks 0 and 1"\n'
    gc.write_text(HERE, "no_peer.toml",
                  "# tcgen05.alloc.cta_group::2 in a launch without clusters: the CTA has no peer, a fault.\n"
                  "# Written by gen.py (do not edit: change gen.py and run it).\n" + text)


def main():
    write_ptx()
    rng = np.random.default_rng(170)
    for case in CASES:
        write_case(rng, case)
    write_faults()


if __name__ == "__main__":
    main()
