#!/usr/bin/env python3
"""Writes the wgmma layout cases: wgmma.ptx (hand-written kernels, one wgmma.mma_async each)
and, per case, the shared-memory byte image of A and B, the D input, and the expected D
registers of every thread, all placed by the PTX ISA's text (§9.7.15.5.1):

- shared memory: the "Canonical Layouts" table (§9.7.15.5.1.2.1.3), CuTe layouts evaluated
  here as written there, with T = 16 bytes / element size, then the swizzle
  Swizzle<log2(x), 4, 3> on the byte address (x = 2, 4, 8 for the 32/64/128-byte modes: bits
  4.. of the address XOR bits 7..), and the descriptor fields of §9.7.15.5.1.1 (start address,
  LBO and SBO >> 4 at bits 0, 16, 32; swizzle mode at bits 62-63: 1 = 128B, 2 = 64B, 3 = 32B);
- registers: the register fragment figures for A and D (§9.7.15.5.1.1): thread t of the
  warpgroup, w = t / 32, lane l, g = l / 4, q = l % 4; D element i (one per .f32/.s32
  register, two per .f16x2 register) is D[16w + g + 8((i >> 1) & 1), 8(i >> 2) + 2q + (i & 1)];
  A element e of a 16-bit A in registers (register e / 2, half e % 2) is
  A[16w + g + 8((e >> 1) & 1), 8(e >> 2) + 2q + (e & 1)].

The values are small multiples of 1/4 (integers for s8/u8), so every product and sum is exact
in the accumulator type and numpy's A·B + C is the result whatever the order.

Run (numpy only, no GPU): python3 gen.py
"""
import os
import sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)
A_BASE, B_BASE, IMAGE = 0, 8192, 16384
SWIZZLE_CODE = {1: 0, 8: 1, 4: 2, 2: 3}  # x (16-byte chunks per pattern row) → mode


def size(shape):
    return int(np.prod([size(s) for s in shape])) if isinstance(shape, tuple) else shape


def cute(shape, stride, idx):
    """CuTe: the offset of (colexicographic) index idx in layout shape:stride."""
    if not isinstance(shape, tuple):
        return idx * stride
    off = 0
    for i, (s, d) in enumerate(zip(shape, stride)):
        n = size(s)
        c = idx if i == len(shape) - 1 else idx % n
        idx //= n
        off += cute(s, d, c)
    return off


def canonical(mn_major, x, T, lbo, sbo):
    """The ISA's canonical layout ((mn modes), (k modes)) : strides in elements (lbo, sbo in
    elements), m and k repeating as far as the matrix needs (the last mode is unbounded)."""
    big = 1 << 20
    if not mn_major and x == 1:
        return ((8, big), (T, big)), ((T, sbo), (1, lbo))
    if not mn_major:
        return ((8, big), (T, big)), ((x * T, sbo), (1, T))
    if x == 1:
        return ((T, 1, big), (8, big)), ((1, T, sbo), (T, lbo))
    return ((T, x, big), (8, big)), ((1, T, lbo), (x * T, sbo))


USED = set()  # bytes of the current image already written: layouts must not overlap


def place(image, mat, base, mn_major, x, lbo, sbo, ebytes):
    """Write matrix mat[mn, kk] (raw element bits) into the byte image; return its descriptor."""
    T = 16 // ebytes
    (smn, sk), (dmn, dk) = canonical(mn_major, x, T, lbo // ebytes, sbo // ebytes)
    for mn in range(mat.shape[0]):
        for kk in range(mat.shape[1]):
            a = base + ebytes * (cute(smn, dmn, mn) + cute(sk, dk, kk))
            if x > 1:
                a ^= ((a >> 7) & (x - 1)) << 4
            v = int(mat[mn, kk])
            for byte in range(ebytes):
                assert a + byte not in USED, f"layout overlaps itself at byte {a + byte}"
                USED.add(a + byte)
                image[a + byte] = (v >> (8 * byte)) & 0xff
    return (base >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (SWIZZLE_CODE[x] << 62)


def d_coord(t, i):
    w, l = t // 32, t % 32
    g, q = l // 4, l % 4
    return 16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * q + (i & 1)


def fp8_bits(x, ebits, bias, mbits):
    """The encodings of values exact in an 8-bit float (PTX ISA §5.2.5: sign, ebits exponent
    bits with bias, mbits mantissa bits; subnormals at exponent field 0)."""
    table = {}
    for code in range(128):
        e, m = code >> mbits, code & ((1 << mbits) - 1)
        v = m * 2.0 ** (1 - bias - mbits) if e == 0 else ((1 << mbits) + m) * 2.0 ** (e - bias - mbits)
        table.setdefault(v, code)
    out = np.zeros(x.shape, dtype=np.int64)
    for idx, v in np.ndenumerate(x):
        out[idx] = table[abs(float(v))] | (0x80 if v < 0 else 0)
    return out


def bits(x, dtype):
    """Raw bits of values as the element type (f16, bf16, tf32 = f32, s8, u8, e4m3, e5m2) in
    int64."""
    if dtype == "e4m3":
        return fp8_bits(x, 4, 7, 3)
    if dtype == "e5m2":
        return fp8_bits(x, 5, 15, 2)
    if dtype == "f16":
        return x.astype(np.float16).view(np.uint16).astype(np.int64)
    if dtype == "bf16":
        return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.int64)
    if dtype == "tf32":
        return x.astype(np.float32).view(np.uint32).astype(np.int64)
    return x.astype(np.int64) & 0xff


def regs_of(mat, n, dtype):
    """Every thread's D registers (u32 bits), from the 64×n matrix."""
    per = 2 if dtype == "f16" else 1
    out = np.zeros((128, n // 2 // per), dtype=np.uint32)
    for t in range(128):
        for i in range(n // 2):
            r, c = d_coord(t, i)
            v = mat[r, c]
            if dtype == "f16":
                b = int(np.float16(v).view(np.uint16))
            elif dtype == "f32":
                b = int(np.float32(v).view(np.uint32))
            else:
                b = int(np.int64(v)) & 0xffffffff
            out[t, i // per] |= np.uint32(b << (16 * (i % per)))
    return out


# (case, entry, n, k, in type(s), d type, A layout (mn_major, x, lbo, sbo) or "regs",
#  B layout, scale_d, neg_a, neg_b)
CASES = [
    ("k_none", "wg_k", 64, 16, "f16", "f32", (False, 1, 128, 256), (False, 1, 1024, 128), 1, 0, 0),
    ("k_32b", "wg_k", 64, 16, "f16", "f32", (False, 2, 16, 256), (False, 2, 16, 256), 1, 0, 0),
    ("k_64b", "wg_k", 64, 16, "f16", "f32", (False, 4, 16, 512), (False, 4, 16, 512), 1, 0, 0),
    ("k_128b", "wg_k", 64, 16, "f16", "f32", (False, 8, 16, 1024), (False, 8, 16, 1024), 1, 0, 0),
    ("mn_none", "wg_mn", 64, 16, "f16", "f32", (True, 1, 1024, 128), (True, 1, 1024, 128), 1, 0, 0),
    ("mn_32b", "wg_mn", 64, 16, "f16", "f32", (True, 2, 512, 256), (True, 2, 512, 256), 1, 0, 0),
    ("mn_64b", "wg_mn", 64, 16, "f16", "f32", (True, 4, 1024, 512), (True, 4, 1024, 512), 1, 0, 0),
    ("mn_128b", "wg_mn", 64, 16, "f16", "f32", (True, 8, 0, 1024), (True, 8, 0, 1024), 0, 0, 0),
    ("tf32_128b", "wg_tf32", 64, 8, "tf32", "f32", (False, 8, 16, 1024), (False, 8, 16, 1024), 1, 0, 0),
    ("rega_bf16", "wg_rega", 64, 16, "bf16", "f32", "regs", (False, 4, 16, 512), 1, 1, 0),
    ("f16acc", "wg_f16acc", 32, 16, "f16", "f16", (False, 1, 128, 256), (True, 4, 0, 512), 1, 0, 1),
    ("s8u8", "wg_s8", 32, 32, "s8", "s32", (False, 2, 16, 256), (False, 2, 16, 256), 1, 0, 0),
    ("e4m3e5m2", "wg_fp8", 32, 32, "e4m3", "f32", (False, 2, 16, 256), (False, 2, 16, 256), 1, 0, 1),
    ("b1_and", "wg_b1", 32, 256, "b1", "s32", (False, 1, 128, 256), (False, 2, 16, 256), 1, 0, 0),
]

ENTRIES = {
    "wg_k": (".f32", 32, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 D, %rd5, %rd6, %p2, 1, 1, 0, 0;"),
    "wg_mn": (".f32", 32, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 D, %rd5, %rd6, %p2, 1, 1, 1, 1;"),
    "wg_tf32": (".f32", 32, "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 D, %rd5, %rd6, %p2, 1, 1;"),
    "wg_rega": (".f32", 32, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 D, {%a0, %a1, %a2, %a3}, %rd6, %p2, -1, 1, 0;"),
    "wg_f16acc": (".b32", 8, "wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 D, %rd5, %rd6, %p2, 1, -1, 0, 1;"),
    "wg_s8": (".b32", 16, "wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.u8 D, %rd5, %rd6, %p2;"),
    "wg_fp8": (".f32", 16, "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e5m2 D, %rd5, %rd6, %p2, 1, -1;"),
    "wg_b1": (".b32", 16, "wgmma.mma_async.sync.aligned.m64n32k256.s32.b1.b1.and.popc D, %rd5, %rd6, %p2;"),
}


def pack_b1(m):
    """Single-bit elements m[mn, kk] (0/1) as bytes m8[mn, kk / 8], element kk at bit kk % 8
    (a .b1 matrix is 128 elements per 16-byte core-matrix row: the byte layout of a u8
    matrix of K / 8 columns; bits in little-endian order, as in a .b32 register)."""
    return np.packbits(m.astype(np.uint8), axis=1, bitorder="little").astype(np.int64)


def entry(name, dty, nregs, inst):
    L = [f".visible .entry {name}(.param .u64 img, .param .u64 out, .param .u64 cin,",
         "    .param .u64 adesc, .param .u64 bdesc, .param .u32 nbytes, .param .u32 scale_d,",
         "    .param .u64 areg)", "{", "    .reg .b32 %r<16>;", "    .reg .b64 %rd<16>;",
         "    .reg .pred %p<4>;", f"    .reg {dty} %d<{nregs}>;", "    .reg .b32 %a<4>;",
         "    mov.u32 %r1, %tid.x;", "    ld.param.u64 %rd1, [img];", "    ld.param.u32 %r2, [nbytes];",
         "    mov.u32 %r5, smem;", "    shl.b32 %r3, %r1, 2;", "$copy:",
         "    setp.ge.u32 %p1, %r3, %r2;", "    @%p1 bra $copied;", "    cvt.u64.u32 %rd2, %r3;",
         "    add.u64 %rd3, %rd1, %rd2;", "    ld.global.u32 %r4, [%rd3];", "    add.u32 %r6, %r5, %r3;",
         "    st.shared.u32 [%r6], %r4;", "    add.u32 %r3, %r3, 512;", "    bra $copy;", "$copied:",
         "    bar.sync 0;", "    // The image's shared address >> 4 goes into each descriptor's start address.",
         "    shr.u32 %r7, %r5, 4;", "    cvt.u64.u32 %rd4, %r7;", "    ld.param.u64 %rd5, [adesc];",
         "    add.u64 %rd5, %rd5, %rd4;", "    ld.param.u64 %rd6, [bdesc];", "    add.u64 %rd6, %rd6, %rd4;",
         "    ld.param.u32 %r8, [scale_d];", "    setp.ne.u32 %p2, %r8, 0;", "    ld.param.u64 %rd7, [cin];",
         f"    mul.wide.u32 %rd8, %r1, {4 * nregs};", "    add.u64 %rd9, %rd7, %rd8;"]
    L += [f"    ld.global.b32 %d{i}, [%rd9+{4 * i}];" for i in range(nregs)]
    if "%a0" in inst:
        L += ["    ld.param.u64 %rd10, [areg];", "    mul.wide.u32 %rd11, %r1, 16;",
              "    add.u64 %rd12, %rd10, %rd11;", "    ld.global.v4.b32 {%a0, %a1, %a2, %a3}, [%rd12];"]
    regs = "{" + ", ".join(f"%d{i}" for i in range(nregs)) + "}"
    L += ["    wgmma.fence.sync.aligned;", "    " + inst.replace("D,", regs + ","),
          "    wgmma.commit_group.sync.aligned;", "    wgmma.wait_group.sync.aligned 0;",
          "    ld.param.u64 %rd13, [out];", "    add.u64 %rd14, %rd13, %rd8;"]
    L += [f"    st.global.b32 [%rd14+{4 * i}], %d{i};" for i in range(nregs)]
    return "\n".join(L + ["    ret;", "}", ""])


def write_ptx():
    head = ["// Written by gen.py: one wgmma.mma_async per entry (PTX ISA section 9.7.15). Each CTA of",
            "// 128 threads (one warpgroup) copies the byte image `img` into shared memory, adds",
            "// the image's shared address to the descriptors it is given, loads D from `cin`",
            "// (thread t's registers at cin[t * NREGS ..]), runs the multiply (scale-d from",
            "// `scale_d`; A from `areg` in wg_rega) and stores D the same way at `out`.",
            ".version 8.4", ".target sm_90a", ".address_size 64", "",
            ".extern .shared .align 1024 .b8 smem[];", ""]
    body = [entry(n, *e) for n, e in ENTRIES.items()]
    gc.write_text(HERE, "wgmma.ptx", "\n".join(head) + "\n" + "\n".join(body))


def main():
    write_ptx()
    rng = np.random.default_rng(90)
    for (name, ent, n, k, ty, dty, alay, blay, scale_d, neg_a, neg_b) in CASES:
        if ty == "b1":
            a = rng.integers(0, 2, (64, k))
            b = rng.integers(0, 2, (k, n))
            c = rng.integers(-(1 << 20), 1 << 20, (64, n))
        elif ty in ("s8",):
            a = rng.integers(-128, 128, (64, k))
            b = rng.integers(0, 256, (k, n))
            c = rng.integers(-(1 << 20), 1 << 20, (64, n))
        else:
            hi = 4 if dty == "f16" else 8
            a = rng.integers(-hi, hi + 1, (64, k)) / 4
            b = rng.integers(-hi, hi + 1, (k, n)) / 4
            c = rng.integers(-16, 17, (64, n)) / 4
        eb = {"f16": 2, "bf16": 2, "tf32": 4, "s8": 1, "e4m3": 1, "b1": 1}[ty]
        image = np.zeros(IMAGE, dtype=np.uint8)
        USED.clear()
        areg = np.zeros((128, 4), dtype=np.uint32)
        if alay == "regs":
            adesc = 0
            ab = bits(a, ty)
            for t in range(128):
                for e in range(8):
                    r, col = d_coord(t, e)  # A's 16-bit register layout is D's with N = 16
                    areg[t, e // 2] |= np.uint32(int(ab[r, col]) << (16 * (e % 2)))
        elif ty == "b1":
            adesc = place(image, pack_b1(a), A_BASE, *alay, eb)
        else:
            adesc = place(image, bits(a, ty), A_BASE, *alay, eb)
        # B is K×N; its descriptor layout indexes (n, k).
        bty = {"s8": "u8", "e4m3": "e5m2"}.get(ty, ty)
        if ty == "b1":
            # .and.popc: D = popc(A[i, :] & B[:, j]) + C, the 0/1 matrix product.
            bdesc = place(image, pack_b1(b.T), B_BASE, *blay, eb)
        else:
            bdesc = place(image, bits(b, bty).T, B_BASE, *blay, eb)
        d = (-a if neg_a else a) @ (-b if neg_b else b) + (c if scale_d else 0)
        gc.save_npy(HERE, f"{name}_img", image.view(np.uint32))
        gc.save_npy(HERE, f"{name}_cin", regs_of(c, n, dty).reshape(-1))
        gc.save_npy(HERE, f"{name}_expected", regs_of(d, n, dty).reshape(-1))
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
# A: {describe(alay)}; B: {describe(blay)}; scale-d {scale_d}, imm-scale-a {-1 if neg_a else 1},
# imm-scale-b {-1 if neg_b else 1}. Written by gen.py (do not edit: change gen.py and run it); the
# expected registers are numpy's A·B + C placed by the ISA's D fragment layout, exact.
ptx = "wgmma.ptx"
kernel = "{ent}"
grid = [1]
block = [128]
shared_bytes = {IMAGE}
args = [{{ buffer = "img" }}, {{ buffer = "out" }}, {{ buffer = "cin" }}, {{ u64 = "{adesc:#x}" }},
        {{ u64 = "{bdesc:#x}" }}, {{ u32 = {IMAGE} }}, {{ u32 = {scale_d} }}, {areg_arg}]

{gc.buffer_from_file("img", f"{name}_img.npy")}
{gc.buffer_from_file("cin", f"{name}_cin.npy")}{extra}
[buffers.out]
type = "u32"
len = {128 * nregs}

{gc.expect_exact("out", f"{name}_expected.npy")}"""
        gc.write_text(HERE, f"{name}.toml", toml)
        print(name, hex(adesc), hex(bdesc))


if __name__ == "__main__":
    main()
