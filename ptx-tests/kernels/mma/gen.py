#!/usr/bin/env python3
"""Writes the mma.sync cases: one PTX file (mma.ptx) with one kernel per form, and per form
a case (NAME.toml) with its fragment inputs and the expected D fragments (NAME_*.npy).

Each kernel: lane l loads its A, B and C fragment registers from a[l*nA + r], b[..], c[..]
(32- or 64-bit words), runs one mma.sync, and stores its D registers to d[l*nD + r].

The expected values come from numpy, independently of ptxjit: random matrices A, B, C;
D = A·B + C computed on the host; fragments placed and read back with the layouts of the
PTX ISA's "Matrix Fragments for mma.mMnNkK" sections (written below per shape, as the ISA
states them). Arithmetic as docs/isa-notes.md says ptxjit does it (the ISA leaves the order
unspecified): products exact, the sum over k in ascending order starting from C, rounded to
the accumulator type at each step; .tf32 inputs use their upper 19 bits.

Run: python3 gen.py  (numpy; writes into this directory)
"""
import os
import sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)
rng = np.random.default_rng(20261201)

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8,
        "s4": 4, "u4": 4, "b1": 1, "s32": 32}


def per_reg(t):
    return 1 if BITS[t] == 64 else 32 // BITS[t]


# ---- Layouts, as the PTX ISA writes them (g = %laneid >> 2, t = %laneid % 4). ----

def a_coord(shape, ty, lane, i):
    m, n, k = shape
    g, t = lane >> 2, lane % 4
    if ty in ("f16", "bf16"):
        if k == 8:  # m16n8k8
            return (g if i < 2 else g + 8, t * 2 + (i & 1))
        return (g if (i < 2 or 4 <= i < 6) else g + 8, t * 2 + (i & 1) + (8 if i >= 4 else 0))
    if ty == "tf32":
        if k == 4:
            return (g if i == 0 else g + 8, t)
        return (g if i in (0, 2) else g + 8, t if i < 2 else t + 4)
    if ty == "f64":
        if m == 8:  # m8n8k4
            return (g, t)
        if k == 4:  # m16n8k4: a0 row g, a1 row g+8
            return (g if i == 0 else g + 8, t)
        if k == 8:  # m16n8k8: rows g (a0, a2), g+8 (a1, a3); columns t (a0, a1), t+4 (a2, a3)
            return (g if i in (0, 2) else g + 8, t if i < 2 else t + 4)
        # m16n8k16: row g for even i, g+8 for odd; column 2i + t (even), 2i - 2 + t (odd)
        return (g if i % 2 == 0 else g + 8, 2 * i + t if i % 2 == 0 else 2 * i - 2 + t)
    if ty in ("s8", "u8"):
        if m == 8:
            return (g, t * 4 + i)
        if k == 16:
            return (g if i < 4 else g + 8, t * 4 + (i & 3))
        return (g if (i < 4 or 8 <= i < 12) else g + 8, t * 4 + (i & 3) + (16 if i >= 8 else 0))
    if ty in ("s4", "u4"):
        if m == 8:
            return (g, t * 8 + i)
        if k == 32:
            return (g if i < 8 else g + 8, t * 8 + (i & 7))
        return (g if (i < 8 or 16 <= i < 24) else g + 8, t * 8 + (i & 7) + (32 if i >= 16 else 0))
    if ty == "b1":
        if m == 8:
            return (g, t * 32 + i)
        if k == 128:
            return (g if i < 32 else g + 8, t * 32 + (i & 31))
        return (g if (i < 32 or 64 <= i < 96) else g + 8, t * 32 + (i & 31) + (128 if i >= 64 else 0))
    raise ValueError(ty)


def b_coord(shape, ty, lane, i):
    m, n, k = shape
    g, t = lane >> 2, lane % 4
    if ty in ("f16", "bf16"):
        if k == 8:
            return (t * 2 + i, g)
        return (t * 2 + (i & 1) + (8 if i >= 2 else 0), g)
    if ty == "tf32":
        if k == 4:
            return (t, g)
        return (t if i == 0 else t + 4, g)
    if ty == "f64":
        return (t + 4 * i, g)  # b_i at row t + 4i (m8n8k4 and m16n8k4: i = 0 only)
    if ty in ("s8", "u8"):
        if k == 16:
            return (t * 4 + i, g)
        return (t * 4 + (i & 3) + (16 if i >= 4 else 0), g)
    if ty in ("s4", "u4"):
        if k == 32:
            return (t * 8 + i, g)
        return (t * 8 + (i & 7) + (32 if i >= 8 else 0), g)
    if ty == "b1":
        if k == 128:
            return (t * 32 + i, g)
        return (t * 32 + (i & 31) + (128 if i >= 32 else 0), g)
    raise ValueError(ty)


def c_coord(shape, lane, i):
    m = shape[0]
    g, t = lane >> 2, lane % 4
    if m == 16:
        return (g if i < 2 else g + 8, t * 2 + (i & 1))
    return (g, t * 2 + i)


# ---- Random matrices as element bit patterns, and their values. ----

def rand_bits(ty, shape):
    if ty == "f16":
        # Normal f16 values in [-4, 4] with every mantissa bit random.
        v = rng.uniform(-4, 4, shape).astype(np.float16)
        return v.view(np.uint16).astype(np.uint64)
    if ty == "bf16":
        v = rng.uniform(-4, 4, shape).astype(np.float32)
        return (v.view(np.uint32) >> 16).astype(np.uint64)
    if ty == "tf32":
        # Arbitrary f32 bits: the low 13 mantissa bits must be ignored.
        v = rng.uniform(-4, 4, shape).astype(np.float32)
        return v.view(np.uint32).astype(np.uint64)
    if ty == "f32":
        v = rng.uniform(-8, 8, shape).astype(np.float32)
        return v.view(np.uint32).astype(np.uint64)
    if ty == "f64":
        # Multiples of 1/8 below 8 in magnitude: every product and sum is exact.
        v = rng.integers(-63, 64, shape).astype(np.float64) / 8
        return v.view(np.uint64)
    if ty in ("s8", "u8", "s4", "u4", "b1"):
        return rng.integers(0, 1 << BITS[ty], shape, dtype=np.uint64)
    if ty == "s32":
        return rng.integers(-(1 << 20), 1 << 20, shape).astype(np.int64).astype(np.uint32).astype(np.uint64)
    raise ValueError(ty)


def value(ty, bits):
    """Exact values: float32/float64 arrays for floats, int64 for integers."""
    if ty == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float32)
    if ty == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32)
    if ty == "tf32":
        return (bits.astype(np.uint32) & 0xFFFFE000).view(np.float32)
    if ty == "f32":
        return bits.astype(np.uint32).view(np.float32)
    if ty == "f64":
        return bits.view(np.float64)
    if ty == "s8":
        return bits.astype(np.uint8).view(np.int8).astype(np.int64)
    if ty == "s4":
        b = bits.astype(np.int64)
        return np.where(b >= 8, b - 16, b)
    if ty == "s32":
        return bits.astype(np.uint32).view(np.int32).astype(np.int64)
    return bits.astype(np.int64)  # u8, u4, b1


def reference(shape, at, bt, ct, dt, A, B, C, sat=False, bop=None):
    """D = A·B + C on bit patterns, returned as D's element bit patterns."""
    m, n, k = shape
    if bop is not None:
        a, b = A.astype(np.int64), B.astype(np.int64)
        acc = value("s32", C)
        for kk in range(k):
            x = a[:, kk][:, None]
            y = b[kk, :][None, :]
            acc = acc + ((x ^ y) if bop == "xor" else (x & y))
        return (acc & 0xFFFFFFFF).astype(np.uint64)
    if dt == "s32":
        acc = value("s32", C) + value(at, A) @ value(bt, B)
        if sat:
            acc = np.clip(acc, -(1 << 31), (1 << 31) - 1)
        return (acc & 0xFFFFFFFF).astype(np.uint64)
    if dt == "f64":
        acc = value("f64", C) + value(at, A) @ value(bt, B)  # exact by construction
        return acc.view(np.uint64)
    a, b = value(at, A), value(bt, B)
    if dt == "f32":
        acc = value(ct, C).astype(np.float32)
        for kk in range(k):
            # a·b is exact in f32 for 16-bit and tf32 inputs; one f32 rounding per step.
            acc = (acc + (a[:, kk][:, None] * b[kk, :][None, :]).astype(np.float32)).astype(np.float32)
        return acc.view(np.uint32).astype(np.uint64)
    if dt == "f16":
        acc = value(ct, C).astype(np.float16)
        for kk in range(k):
            # fma.rn.f16: the exact a·b + acc (exact in f64 for these magnitudes), rounded once.
            exact = a[:, kk][:, None].astype(np.float64) * b[kk, :][None, :].astype(np.float64) + acc.astype(np.float64)
            acc = exact.astype(np.float16)
        return acc.view(np.uint16).astype(np.uint64)
    raise ValueError(dt)


def fragments(coord, ty, mat, nelems):
    """Per-lane registers (32-bit words, or 64-bit for f64) holding a fragment of mat."""
    p, w = per_reg(ty), BITS[ty]
    nregs = nelems // p
    out = np.zeros((32, nregs), dtype=np.uint64)
    for lane in range(32):
        for i in range(nelems):
            r, c = coord(lane, i)
            out[lane, i // p] |= np.uint64(int(mat[r, c]) << ((i % p) * w if p > 1 else 0))
    return out


def write_case(name, form, wname, nd, what):
    toml = f"""# mma.sync.aligned.{form}: fragments in, D fragments out.
# Inputs and expected values written by gen.py (numpy; {what}).
ptx = "mma.ptx"
kernel = "{name}"
grid = [1]
block = [32]
args = [{{ buffer = "a" }}, {{ buffer = "b" }}, {{ buffer = "c" }}, {{ buffer = "d" }}]

{gc.buffer_from_file("a", f"{name}_a.npy", wname)}
{gc.buffer_from_file("b", f"{name}_b.npy", wname)}
{gc.buffer_from_file("c", f"{name}_c.npy", wname)}
[buffers.d]
type = "{wname}"
len = {32 * nd}

{gc.expect_exact("d", f"{name}_d.npy")}"""
    gc.write_text(HERE, f"{name}.toml", toml)


FORMS = [
    # name, shape, d, a, b, c, modifiers between shape and types, trailing modifiers
    ("m16n8k16_f32_f16", (16, 8, 16), "f32", "f16", "f16", "f32", "", ""),
    ("m16n8k16_f16_f16", (16, 8, 16), "f16", "f16", "f16", "f16", "", ""),
    ("m16n8k8_f32_f16", (16, 8, 8), "f32", "f16", "f16", "f32", "", ""),
    ("m16n8k16_f32_bf16", (16, 8, 16), "f32", "bf16", "bf16", "f32", "", ""),
    ("m16n8k8_f32_bf16", (16, 8, 8), "f32", "bf16", "bf16", "f32", "", ""),
    ("m16n8k8_tf32", (16, 8, 8), "f32", "tf32", "tf32", "f32", "", ""),
    ("m16n8k4_tf32", (16, 8, 4), "f32", "tf32", "tf32", "f32", "", ""),
    ("m8n8k4_f64", (8, 8, 4), "f64", "f64", "f64", "f64", "", ""),
    ("m16n8k4_f64", (16, 8, 4), "f64", "f64", "f64", "f64", "", ""),
    ("m16n8k8_f64", (16, 8, 8), "f64", "f64", "f64", "f64", "", ""),
    ("m16n8k16_f64", (16, 8, 16), "f64", "f64", "f64", "f64", "", ""),
    ("m16n8k32_s8_u8_satfinite", (16, 8, 32), "s32", "s8", "u8", "s32", ".satfinite", ""),
    ("m16n8k16_u8", (16, 8, 16), "s32", "u8", "u8", "s32", "", ""),
    ("m8n8k16_s8", (8, 8, 16), "s32", "s8", "s8", "s32", "", ""),
    ("m16n8k64_s4", (16, 8, 64), "s32", "s4", "s4", "s32", "", ""),
    ("m8n8k32_u4_s4", (8, 8, 32), "s32", "u4", "s4", "s32", "", ""),
    ("m16n8k32_u4", (16, 8, 32), "s32", "u4", "u4", "s32", "", ""),
    ("m8n8k128_b1_xor", (8, 8, 128), "s32", "b1", "b1", "s32", "", ".xor.popc"),
    ("m16n8k256_b1_and", (16, 8, 256), "s32", "b1", "b1", "s32", "", ".and.popc"),
    ("m16n8k128_b1_xor", (16, 8, 128), "s32", "b1", "b1", "s32", "", ".xor.popc"),
]


def reg_decl(ty, is_acc):
    if ty == "f64":
        return ".f64", "fd", 8
    if ty == "f32" and is_acc:
        return ".f32", "f", 4
    return ".b32", "r", 4


def kernel(name, shape, dt, at, bt, ct, mid, tail, layout=".row.col", counts=None):
    m, n, k = shape
    na = m * k // 32 // per_reg(at)
    nb = k * n // 32 // per_reg(bt)
    nc = m * n // 32 // per_reg(ct)
    nd = m * n // 32 // per_reg(dt)
    if counts:
        na, nb, nc, nd = counts
    lines = [f".visible .entry {name}(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)", "{"]
    lines.append("    .reg .b32 %t;")
    lines.append("    .reg .b64 %rd<12>;")
    regs = {}
    for tag, ty, cnt, acc in (("a", at, na, False), ("b", bt, nb, False), ("c", ct, nc, True), ("d", dt, nd, True)):
        decl, _, size = reg_decl(ty, acc)
        lines.append(f"    .reg {decl} %{tag}<{cnt}>;")
        regs[tag] = (decl, size, cnt)
    lines.append("    mov.u32 %t, %tid.x;")
    for j, tag in enumerate("abcd"):
        decl, size, cnt = regs[tag]
        lines.append(f"    ld.param.u64 %rd{j}, [p{tag}];")
        lines.append(f"    cvta.to.global.u64 %rd{j}, %rd{j};")
        lines.append(f"    mul.wide.u32 %rd{j + 4}, %t, {size * cnt};")
        lines.append(f"    add.s64 %rd{j}, %rd{j}, %rd{j + 4};")
    for j, tag in enumerate("abc"):
        decl, size, cnt = regs[tag]
        for r in range(cnt):
            lines.append(f"    ld.global{decl} %{tag}{r}, [%rd{j}+{r * size}];")
    vec = lambda tag: "{" + ", ".join(f"%{tag}{r}" for r in range(regs[tag][2])) + "}"
    lines.append(f"    mma.sync.aligned.m{m}n{n}k{k}{layout}{mid}.{dt}.{at}.{bt}.{ct}{tail} "
                 f"{vec('d')}, {vec('a')}, {vec('b')}, {vec('c')};")
    decl, size, cnt = regs["d"]
    for r in range(cnt):
        lines.append(f"    st.global{decl} [%rd3+{r * size}], %d{r};")
    lines.append("    ret;")
    lines.append("}")
    return "\n".join(lines), (na, nb, nc, nd)


# ---- mma.m8n8k4 with .f16: four 8x8x4 products, one per quad pair (PTX ISA 9.7.14.5.1). ----

def qp_a(lane, i, a_col):
    hi = 0 if lane < 16 else 4
    return (i % 4 + hi, lane % 4) if a_col else (lane % 4 + hi, i)


def qp_b(lane, i, b_row):
    hi = 0 if lane < 16 else 4
    return (lane % 4, i + hi) if b_row else (i, lane % 4 + hi)


def qp_c(lane, i, ty):
    hi = 0 if lane < 16 else 4
    if ty == "f16":
        return (lane % 4 + hi, i)
    x = (lane & 0b1) + (i & 0b10)
    return (x + hi, (i & 0b100) + (lane & 0b10) + (i & 0b1))


QUAD_FORMS = [
    ("m8n8k4_f32_f16_row_col", ".row.col", "f32", "f32"),
    ("m8n8k4_f32_f16_col_row", ".col.row", "f32", "f32"),
    ("m8n8k4_f16_f16_row_row", ".row.row", "f16", "f16"),
    ("m8n8k4_f32_f16_c16_col_col", ".col.col", "f32", "f16"),
]


def quad_pair_case(name, layout, dt, ct, ptx):
    a_col, b_row = layout.split(".")[1] == "col", layout.split(".")[2] == "row"
    nd = 8 // per_reg(dt)
    nc = 8 // per_reg(ct)
    text, _ = kernel(name, (8, 8, 4), dt, "f16", "f16", ct, "", "", layout=layout,
                     counts=(2, 2, nc, nd))
    ptx += [text, ""]
    fa = np.zeros((32, 2), dtype=np.uint64)
    fb = np.zeros((32, 2), dtype=np.uint64)
    fc = np.zeros((32, nc), dtype=np.uint64)
    fd = np.zeros((32, nd), dtype=np.uint64)
    for q in range(4):
        A = rand_bits("f16", (8, 4))
        B = rand_bits("f16", (4, 8))
        C = rand_bits(ct, (8, 8))
        D = reference((8, 8, 4), "f16", "f16", ct, dt, A, B, C)
        lanes = [4 * q + j for j in range(4)] + [16 + 4 * q + j for j in range(4)]
        for lane in lanes:
            for out, coord, mat, ty, cnt in (
                (fa, lambda l, i: qp_a(l, i, a_col), A, "f16", 4),
                (fb, lambda l, i: qp_b(l, i, b_row), B, "f16", 4),
                (fc, lambda l, i: qp_c(l, i, ct), C, ct, 8),
                (fd, lambda l, i: qp_c(l, i, dt), D, dt, 8),
            ):
                p, w = per_reg(ty), BITS[ty]
                for i in range(cnt):
                    r, c = coord(lane, i)
                    shift = (i % p) * w if p > 1 else 0
                    out[lane, i // p] |= np.uint64(int(mat[r, c]) << shift)
    for tag, f in (("a", fa), ("b", fb), ("c", fc), ("d", fd)):
        gc.save_npy(HERE, f"{name}_{tag}", f.astype(np.uint32).reshape(-1))
    return nd


def main():
    ptx = ["// mma.sync.aligned in every form ptxjit supports; written by gen.py.",
           ".version 8.0", ".target sm_90", ".address_size 64", ""]
    for name, shape, dt, at, bt, ct, mid, tail in FORMS:
        m, n, k = shape
        text, (na, nb, nc, nd) = kernel(name, shape, dt, at, bt, ct, mid, tail)
        ptx += [text, ""]
        A = rand_bits(at, (m, k))
        B = rand_bits(bt, (k, n))
        C = rand_bits(ct, (m, n))
        if name.endswith("satfinite"):
            # Drive some sums past the s32 range both ways.
            C[0, :] = 0x7FFFFF00
            C[1, :] = 0x80000100
        bop = tail[1:4] if tail else None
        D = reference(shape, at, bt, ct, dt, A, B, C, sat="satfinite" in mid, bop=bop)
        fa = fragments(lambda l, i: a_coord(shape, at, l, i), at, A, m * k // 32)
        fb = fragments(lambda l, i: b_coord(shape, bt, l, i), bt, B, k * n // 32)
        fc = fragments(lambda l, i: c_coord(shape, l, i), ct, C, m * n // 32)
        fd = fragments(lambda l, i: c_coord(shape, l, i), dt, D, m * n // 32)
        word = np.uint64 if at == "f64" else np.uint32
        wname = "u64" if at == "f64" else "u32"
        for tag, f in (("a", fa), ("b", fb), ("c", fc), ("d", fd)):
            gc.save_npy(HERE, f"{name}_{tag}", f.astype(word).reshape(-1))
        write_case(name, f"m{m}n{n}k{k}.row.col{mid}.{dt}.{at}.{bt}.{ct}{tail}", wname, nd,
                   "layouts from the PTX ISA's fragment tables")
    for name, layout, dt, ct in QUAD_FORMS:
        nd = quad_pair_case(name, layout, dt, ct, ptx)
        write_case(name, f"m8n8k4{layout}.{dt}.f16.f16.{ct}", "u32", nd,
                   "four quad-pair products; layouts from the PTX ISA's m8n8k4 .f16 tables")
    gc.write_text(HERE, "mma.ptx", "\n".join(ptx))


if __name__ == "__main__":
    main()
