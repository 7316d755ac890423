#!/usr/bin/env python3
"""Writes the sparse wgmma cases: wgmma_sp.ptx (hand-written kernels, one
wgmma.mma_async.sp each) and, per case, the shared-memory byte image of the stored half of A
and of B, every thread's metadata register, the D input and the expected D registers, all
placed by the PTX ISA's text:

- sparse A (section 9.7.15.6.1): each row of the 64xK A is in chunks of 4 elements with 2
  non-zeros (2:4; .tf32: chunks of 2 with 1 non-zero, 1:2). A's operand is the stored 64xK/2
  matrix, the non-zeros of each row in column order, laid out in shared memory (or
  registers) as a dense A of K/2 columns (section 9.7.15.5.1, written out by ../wgmma/gen.py,
  which this script imports);
- metadata: a 4-bit field per chunk, the column of the first non-zero in its low 2 bits and
  of the second in its high 2 bits (.tf32: 0b0100 for column 0, 0b1110 for column 1); in
  each warp w of the warpgroup, the group of four lanes g = lane / 4 gives rows 16w + g and
  16w + g + 8 from T of its lanes, lanes 4g + T*sp-sel + j (T = 2 for 16-bit and .tf32
  inputs, 4 for 8-bit ones): lane j holds chunks 4j..4j+3 of row 16w + g in bits 0-15 (chunk
  4j + c in bits 4c..4c+3) and of row 16w + g + 8 in bits 16-31, as the ISA's sparse metadata
  figures place them. The other lanes' registers hold junk (0b0000 fields, invalid), which the
  multiply must not read;
- D: the register fragments of ../wgmma/gen.py.

The values are small multiples of 1/4 (integers for s8/u8), so every product and sum is exact
in the accumulator type and numpy's A.B + C is the result whatever the order.

Run (numpy only, no GPU): python3 gen.py
"""
import os
import sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "wgmma"))
import gen as dense  # noqa: E402  (the dense wgmma layouts)
gc = dense.gc  # the writers shared by ptx-tests generators (../../gen_common.py)

A_BASE, B_BASE, IMAGE = dense.A_BASE, dense.B_BASE, dense.IMAGE


def sparse_a(rng, k, w, values):
    """A 64xk matrix with one (w = 2) or two (w = 4) non-zero places in each chunk of w
    columns, its stored 64xk/2 half, and each chunk's metadata field."""
    a = np.zeros((64, k))
    stored = np.zeros((64, k // 2))
    fields = np.zeros((64, k // w), dtype=np.int64)
    for r in range(64):
        for c in range(k // w):
            if w == 2:
                place = [int(rng.integers(0, 2))]
                fields[r, c] = 0b0100 if place[0] == 0 else 0b1110
            else:
                pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
                i0, i1 = pairs[int(rng.integers(0, len(pairs)))]
                place = [i0, i1]
                fields[r, c] = i0 | (i1 << 2)
            for e, p in enumerate(place):
                v = values()
                a[r, c * w + p] = v
                stored[r, c * (w // 2) + e] = v
    return a, stored, fields


def metadata(fields, selector, threads):
    """Every thread's sp-meta register (u32) from the per-chunk fields; junk elsewhere."""
    meta = np.full(128, 0, dtype=np.uint32)
    for t in range(128):
        w, l = t // 32, t % 32
        g, q = l // 4, l % 4
        j = q - threads * selector
        if not 0 <= j < threads:
            continue
        v = 0
        if threads == 4:  # 8-bit: lane 4g + 2h + r holds chunks 8h..8h+7 of row g + 8r (⚠)
            row = 16 * w + g + 8 * (j & 1)
            for c in range(8):
                v |= int(fields[row, 8 * (j >> 1) + c]) << (4 * c)
            meta[t] = v
            continue
        for half, row in enumerate((16 * w + g, 16 * w + g + 8)):
            for c in range(4):
                chunk = 4 * j + c
                if chunk < fields.shape[1]:
                    v |= int(fields[row, chunk]) << (16 * half + 4 * c)
        meta[t] = v
    return meta


# (case, entry, n, k, in type, d type, A layout (mn_major, x, lbo, sbo) or "regs", B layout,
#  sp-sel, scale_d). A K-major swizzled row holds 16x bytes of K: B's K of 32 bytes' worth of
#  elements times two takes the 64- or 128-byte swizzle (or none, or MN-major).
CASES = [
    ("f16_k64b", "sp_f16", 32, 32, "f16", "f32", (False, 4, 16, 512), (False, 4, 16, 512), 0, 1),
    ("f16_mn_sel1", "sp_f16_mn", 32, 32, "f16", "f32", (True, 1, 1024, 128), (True, 1, 1024, 128), 1, 1),
    ("bf16_rega", "sp_rega", 16, 32, "bf16", "f32", "regs", (False, 4, 16, 512), 1, 1),
    ("tf32_128b", "sp_tf32", 16, 16, "tf32", "f32", (False, 8, 16, 1024), (False, 8, 16, 1024), 1, 0),
    ("s8u8", "sp_s8", 16, 64, "s8", "s32", (False, 2, 16, 256), (False, 4, 16, 512), 0, 1),
    ("e4m3e5m2_f16", "sp_fp8", 16, 64, "e4m3", "f16", (False, 1, 128, 256), (False, 4, 16, 512), 0, 1),
]

# entry: (D register type, D registers, instruction with D, %rd5 = A descriptor, %rd6 = B
# descriptor, %r9 = sp-meta, %p2 = scale-d)
ENTRIES = {
    "sp_f16": (".f32", 16, "wgmma.mma_async.sp.sync.aligned.m64n32k32.f32.f16.f16 D, %rd5, %rd6, %r9, 0, %p2, 1, 1, 0, 0;"),
    "sp_f16_mn": (".f32", 16, "wgmma.mma_async.sp.sync.aligned.m64n32k32.f32.f16.f16 D, %rd5, %rd6, %r9, 1, %p2, 1, 1, 1, 1;"),
    "sp_rega": (".f32", 8, "wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.bf16.bf16 D, {%a0, %a1, %a2, %a3}, %rd6, %r9, 1, %p2, 1, 1, 0;"),
    "sp_tf32": (".f32", 8, "wgmma.mma_async.sp.sync.aligned.m64n16k16.f32.tf32.tf32 D, %rd5, %rd6, %r9, 1, %p2, 1, 1;"),
    "sp_s8": (".b32", 8, "wgmma.mma_async.sp.sync.aligned.m64n16k64.s32.s8.u8 D, %rd5, %rd6, %r9, 0, %p2;"),
    "sp_fp8": (".b32", 4, "wgmma.mma_async.sp.sync.aligned.m64n16k64.f16.e4m3.e5m2 D, %rd5, %rd6, %r9, 0, %p2, 1, 1;"),
}


def entry(name, dty, nregs, inst):
    """The dense generator's kernel with a `meta` parameter: thread t's sp-meta is meta[t]."""
    text = dense.entry(name, dty, nregs, inst)
    text = text.replace("    .param .u64 areg)", "    .param .u64 areg, .param .u64 meta)")
    load = ("    ld.param.u64 %rd15, [meta];\n    mul.wide.u32 %rd10, %r1, 4;\n"
            "    add.u64 %rd15, %rd15, %rd10;\n    ld.global.u32 %r9, [%rd15];\n"
            "    wgmma.fence.sync.aligned;")
    text = text.replace("    wgmma.fence.sync.aligned;", load)
    return text


def write_ptx():
    head = ["// Written by gen.py: one wgmma.mma_async.sp per entry (PTX ISA section 9.7.15.6), on",
            "// the kernel of ../wgmma/gen.py: each CTA of 128 threads (one warpgroup) copies the",
            "// byte image `img` into shared memory, adds the image's shared address to the",
            "// descriptors, loads D from `cin` and its sp-meta register from meta[tid], runs the",
            "// multiply and stores D at `out`.",
            ".version 8.4", ".target sm_90a", ".address_size 64", "",
            ".extern .shared .align 1024 .b8 smem[];", ""]
    body = [entry(n, *e) for n, e in ENTRIES.items()]
    gc.write_text(HERE, "wgmma_sp.ptx", "\n".join(head) + "\n" + "\n".join(body))


def main():
    write_ptx()
    rng = np.random.default_rng(906)
    for (name, ent, n, k, ty, dty, alay, blay, sel, scale_d) in CASES:
        w = 2 if ty == "tf32" else 4
        threads = 4 if ty in ("s8", "e4m3") else 2
        if ty == "s8":
            a, stored, fields = sparse_a(rng, k, w, lambda: int(rng.integers(-128, 128)))
            b = rng.integers(0, 256, (k, n))
            c = rng.integers(-(1 << 20), 1 << 20, (64, n))
        else:
            hi = 4 if dty == "f16" else 8
            a, stored, fields = sparse_a(rng, k, w, lambda: int(rng.integers(-hi, hi + 1)) / 4)
            b = rng.integers(-hi, hi + 1, (k, n)) / 4
            c = rng.integers(-16, 17, (64, n)) / 4
        eb = {"f16": 2, "bf16": 2, "tf32": 4, "s8": 1, "e4m3": 1}[ty]
        image = np.zeros(IMAGE, dtype=np.uint8)
        dense.USED.clear()
        areg = np.zeros((128, 4), dtype=np.uint32)
        if alay == "regs":
            adesc = 0
            ab = dense.bits(stored, ty)
            for t in range(128):
                for e in range(8):
                    r, col = dense.d_coord(t, e)  # A's 16-bit register layout is D's with N = 16
                    areg[t, e // 2] |= np.uint32(int(ab[r, col]) << (16 * (e % 2)))
        else:
            adesc = dense.place(image, dense.bits(stored, ty), A_BASE, *alay, eb)
        bty = {"s8": "u8", "e4m3": "e5m2"}.get(ty, ty)
        bdesc = dense.place(image, dense.bits(b, bty).T, B_BASE, *blay, eb)
        d = a @ b + (c if scale_d else 0)
        meta = metadata(fields, sel, threads)
        gc.save_npy(HERE, f"{name}_img", image.view(np.uint32))
        gc.save_npy(HERE, f"{name}_cin", dense.regs_of(c, n, dty).reshape(-1))
        gc.save_npy(HERE, f"{name}_meta", meta)
        gc.save_npy(HERE, f"{name}_expected", dense.regs_of(d, n, dty).reshape(-1))
        extra = ""
        if alay == "regs":
            gc.save_npy(HERE, f"{name}_areg", areg.reshape(-1))
            extra = "\n" + gc.buffer_from_file("areg", f"{name}_areg.npy")
        areg_arg = '{ buffer = "areg" }' if alay == "regs" else "{ u64 = 0 }"
        nregs = ENTRIES[ent][1]

        def describe(lay):
            if lay == "regs":
                return "registers"
            mn_major, x, lbo, sbo = lay
            sw = "no swizzle" if x == 1 else f"{16 * x}-byte swizzle"
            return f"{'MN' if mn_major else 'K'}-major, {sw}, LBO {lbo}, SBO {sbo}"
        toml = f"""# {ENTRIES[ent][2].split(' ')[0]}
# Stored A: {describe(alay)}; B: {describe(blay)}; sp-sel {sel}, scale-d {scale_d}. Written by
# gen.py (do not edit: change gen.py and run it); the expected registers are numpy's A.B + C
# with A expanded from its stored half by the ISA's sparse layout, exact.
ptx = "wgmma_sp.ptx"
kernel = "{ent}"
grid = [1]
block = [128]
shared_bytes = {IMAGE}
args = [{{ buffer = "img" }}, {{ buffer = "out" }}, {{ buffer = "cin" }}, {{ u64 = "{adesc:#x}" }},
        {{ u64 = "{bdesc:#x}" }}, {{ u32 = {IMAGE} }}, {{ u32 = {scale_d} }}, {areg_arg},
        {{ buffer = "meta" }}]

{gc.buffer_from_file("img", f"{name}_img.npy")}
{gc.buffer_from_file("cin", f"{name}_cin.npy")}
{gc.buffer_from_file("meta", f"{name}_meta.npy")}{extra}
[buffers.out]
type = "u32"
len = {128 * nregs}

{gc.expect_exact("out", f"{name}_expected.npy")}"""
        gc.write_text(HERE, f"{name}.toml", toml)
        print(name, hex(adesc), hex(bdesc))


if __name__ == "__main__":
    main()
