#!/usr/bin/env python3
"""Writes the sparse mma.sp cases and the dense mma cases with 8-bit float inputs: one PTX
file (mma_sp.ptx) with one kernel per form, and per form a case (NAME.toml) with its fragment
inputs and the expected D fragments (NAME_*.npy).

Each kernel: lane l loads its A, B and C fragment registers (and for mma.sp its metadata
register) from a[l*nA + r], b[..], c[..], e[l], runs one mma, and stores its D registers to
d[l*nD + r].

Expected values come from numpy, independently of ptxjit. For mma.sp: a random dense A with
the ISA's structured sparsity (PTX ISA 9.7.14.6.1 "Sparse matrix storage": in each chunk of 4
columns two non-zero elements (2:4, 16-bit, 8-bit and e4m3/e5m2 inputs), of 2 columns one
(1:2, .tf32), of 8 columns two non-zero pairs (4:8 in pairs, 4-bit inputs)), random B and C,
D = A.B + C by the dense reference of ../mma/gen.py. The A operand holds the non-zero half of
each row in chunk order; its fragment layout is the ISA's sparse A table (section 9.7.14.6.2.x:
"row = groupID / groupID + 8, col = [firstcol..lastcol]"), which places the stored elements as
the dense A fragment of K/2 columns does. Metadata, per the ISA's metadata figures: each chunk
has a 4-bit field of two 2-bit indices (the first in the low bits; .tf32 uses 0b0100 for column 0
and 0b1110 for column 1, 4-bit types give the pair indices); a group of four lanes (g =
laneid >> 2) holds rows g and g+8 in T = (chunks per row) / 4 of its lanes, 4g + T*selector + j,
lane j holding chunks 4j..4j+3 of row g in bits 0-15 and of row g+8 in bits 16-31 (with T = 4,
16 chunks a row, lane 4g + 2h + r holds chunks 8h..8h+7 of row g + 8r instead). The lanes
that are not selected get random metadata, which must be ignored.

8-bit float values are decoded here from the bit layout of PTX ISA 5.2.5 (e4m3: bias 7, e5m2:
bias 15), without NaN or infinity, small enough that .f16 sums stay finite.

Run: python3 gen.py  (numpy; writes into this directory)
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "mma"))
import gen as dense  # noqa: E402  (layouts, random matrices and the dense reference)

rng = np.random.default_rng(20261202)
dense.rng = rng

FP8 = {"e4m3": (4, 7, 3), "e5m2": (5, 15, 2)}
BITS = dict(dense.BITS, e4m3=8, e5m2=8)


def per_reg(t):
    return 1 if BITS[t] == 64 else 32 // BITS[t]


def fp8_value(ty, bits):
    ebits, bias, mbits = FP8[ty]
    b = bits.astype(np.int64)
    sign = np.where(b >> 7 == 1, -1.0, 1.0)
    e = (b >> mbits) & ((1 << ebits) - 1)
    m = b & ((1 << mbits) - 1)
    mag = np.where(e == 0, m * 2.0 ** (1 - bias - mbits),
                   ((1 << mbits) + m) * 2.0 ** (e - bias - mbits))
    return (sign * mag).astype(np.float32)


def rand_bits(ty, shape):
    if ty in FP8:
        ebits, bias, mbits = FP8[ty]
        # Exponent fields 0 (subnormals) to bias + 3: magnitudes below 16.
        e = rng.integers(0, bias + 4, shape, dtype=np.uint64)
        m = rng.integers(0, 1 << mbits, shape, dtype=np.uint64)
        s = rng.integers(0, 2, shape, dtype=np.uint64)
        return (s << np.uint64(7)) | (e << np.uint64(mbits)) | m
    return dense.rand_bits(ty, shape)


def value(ty, bits):
    if ty in FP8:
        return fp8_value(ty, bits)
    return dense.value(ty, bits)


def reference(shape, at, bt, ct, dt, A, B, C, sat=False):
    """D = A.B + C on bit patterns (../mma/gen.py's arithmetic; 8-bit float inputs here)."""
    if at not in FP8:
        return dense.reference(shape, at, bt, ct, dt, A, B, C, sat=sat)
    m, n, k = shape
    a, b = value(at, A), value(bt, B)
    if dt == "f32":
        acc = value(ct, C).astype(np.float32)
        for kk in range(k):
            # Products of 8-bit floats are exact in f32; one f32 rounding per step.
            acc = (acc + (a[:, kk][:, None] * b[kk, :][None, :]).astype(np.float32)).astype(np.float32)
        return acc.view(np.uint32).astype(np.uint64)
    acc = value(ct, C).astype(np.float16)
    for kk in range(k):
        exact = a[:, kk][:, None].astype(np.float64) * b[kk, :][None, :].astype(np.float64) + acc.astype(np.float64)
        acc = exact.astype(np.float16)
    return acc.view(np.uint16).astype(np.uint64)


def layout_type(ty):
    """The type whose fragment layout an 8-bit float shares (the ISA's m16n8k16/k32 tables
    for .e4m3/.e5m2 are those of .s8/.u8)."""
    return "s8" if ty in FP8 else ty


def b_coord(shape, ty, lane, i):
    """B's layout: ../mma/gen.py's tables where the dense mma has the shape; the K that only
    mma.sp has (.f16/.bf16 k32, .tf32 k16, 8-bit k64, 4-bit k128) from the ISA's sparse B
    tables (9.7.14.6.2.x): row = threadID_in_group * p + (i % p) + 4p * (i // p), column =
    groupID, p elements per register."""
    m, n, k = shape
    extra = {"f16": 32, "bf16": 32, "tf32": 16, "s8": 64, "u8": 64, "s4": 128, "u4": 128}
    lt = layout_type(ty)
    if k != extra.get(lt):
        return dense.b_coord(shape, lt, lane, i)
    g, t, p = lane >> 2, lane % 4, per_reg(ty)
    return (t * p + (i % p) + 4 * p * (i // p), g)


def fragments(coord, ty, mat, nelems):
    p, w = per_reg(ty), BITS[ty]
    out = np.zeros((32, nelems // p), dtype=np.uint64)
    for lane in range(32):
        for i in range(nelems):
            r, c = coord(lane, i)
            out[lane, i // p] |= np.uint64(int(mat[r, c]) << ((i % p) * w if p > 1 else 0))
    return out


def chunk_width(ty):
    return {32: 2, 4: 8}.get(BITS[ty], 4)


def sparse_a(ty, m, k, ordered):
    """(dense A, stored A, metadata fields [row][chunk]) with the ISA's structured sparsity."""
    w = chunk_width(ty)
    vals = rand_bits(ty, (m, k // 2))
    A = np.zeros((m, k), dtype=np.uint64)
    fields = np.zeros((m, k // w), dtype=np.int64)
    for r in range(m):
        for c in range(k // w):
            if w == 2:
                pos = int(rng.integers(0, 2))
                A[r, c * 2 + pos] = vals[r, c]
                fields[r, c] = 0b0100 if pos == 0 else 0b1110
                continue
            i0, i1 = sorted(rng.choice(4, 2, replace=False))
            fields[r, c] = int(i0) | (int(i1) << 2)
            h = w // 2
            if w == 4:
                A[r, c * 4 + i0] = vals[r, c * h]
                A[r, c * 4 + i1] = vals[r, c * h + 1]
            else:  # 4:8 in pairs: stored pairs at pairs i0 and i1
                A[r, c * 8 + 2 * i0] = vals[r, c * h]
                A[r, c * 8 + 2 * i0 + 1] = vals[r, c * h + 1]
                A[r, c * 8 + 2 * i1] = vals[r, c * h + 2]
                A[r, c * 8 + 2 * i1 + 1] = vals[r, c * h + 3]
            # Non-zero elements may still be zero by chance: harmless, D is the same.
    return A, vals, fields


def metadata(fields, k, ty, selector):
    """Every lane's metadata register: the selected lanes per the ISA's figures, random
    bits elsewhere."""
    w = chunk_width(ty)
    chunks = k // w
    t = chunks // 4
    meta = rng.integers(0, 1 << 32, 32, dtype=np.uint64)
    chosen = set()
    for r in range(16):
        for c in range(chunks):
            if t == 4:  # 16 chunks a row: one row per register (docs/isa-notes.md, ⚠)
                lane, shift = 4 * (r % 8) + 2 * (c // 8) + r // 8, 4 * (c % 8)
            else:
                lane, shift = 4 * (r % 8) + t * selector + c // 4, 4 * (c % 4) + 16 * (r // 8)
            if lane not in chosen:
                meta[lane] = 0
                chosen.add(lane)
            meta[lane] |= np.uint64(int(fields[r, c]) << shift)
    return meta


def kernel(name, instr, na, nb, nc, nd, acc_f32, sparse):
    tags = "abcde" if sparse is not None else "abcd"
    lines = [f".visible .entry {name}(" + ", ".join(f".param .u64 p{t}" for t in tags) + ")", "{"]
    lines.append("    .reg .b32 %t;")
    lines.append("    .reg .b64 %rd<12>;")
    cnt = {"a": na, "b": nb, "c": nc, "d": nd, "e": 1}
    decl = {t: (".f32" if acc_f32 and t in "cd" else ".b32") for t in tags}
    for t in tags:
        lines.append(f"    .reg {decl[t]} %{t}<{cnt[t]}>;")
    lines.append("    mov.u32 %t, %tid.x;")
    base = {}
    for j, t in enumerate(tags):
        base[t] = j
        lines.append(f"    ld.param.u64 %rd{j}, [p{t}];")
        lines.append(f"    cvta.to.global.u64 %rd{j}, %rd{j};")
        lines.append(f"    mul.wide.u32 %rd{j + 5}, %t, {4 * cnt[t]};")
        lines.append(f"    add.s64 %rd{j}, %rd{j}, %rd{j + 5};")
    for t in tags:
        if t == "d":
            continue
        for r in range(cnt[t]):
            lines.append(f"    ld.global{decl[t]} %{t}{r}, [%rd{base[t]}+{4 * r}];")
    vec = lambda t: "{" + ", ".join(f"%{t}{r}" for r in range(cnt[t])) + "}"
    ops = f"{vec('d')}, {vec('a')}, {vec('b')}, {vec('c')}"
    if sparse is not None:
        ops += f", %e0, {sparse}"
    lines.append(f"    {instr} {ops};")
    for r in range(nd):
        lines.append(f"    st.global{decl['d']} [%rd{base['d']}+{4 * r}], %d{r};")
    lines.append("    ret;")
    lines.append("}")
    return "\n".join(lines)


def write_case(name, instr, bufs, nd, what):
    args = ", ".join(f'{{ buffer = "{t}" }}' for t in bufs)
    text = f"""# {instr}: fragments in, D fragments out.
# Inputs and expected values written by gen.py (numpy; {what}).
ptx = "mma_sp.ptx"
kernel = "{name}"
grid = [1]
block = [32]
args = [{args}]
"""
    for t in bufs:
        if t == "d":
            text += f'\n[buffers.d]\ntype = "u32"\nlen = {32 * nd}\n'
        else:
            text += f'\n[buffers.{t}]\ntype = "u32"\ninit = {{ file = "{name}_{t}.npy" }}\n'
    text += f'\n[expect.d]\nfile = "{name}_d.npy"\ntolerance = "exact"\n'
    with open(os.path.join(HERE, f"{name}.toml"), "w") as fh:
        fh.write(text)


SPARSE = [
    # name, shape, d, a, b, c, .sp or .sp::ordered_metadata, selector, .satfinite
    ("sp_m16n8k16_f32_f16_sel2", (16, 8, 16), "f32", "f16", "f16", "f32", "sp", 2, ""),
    ("sp_m16n8k16_f16_f16_sel0", (16, 8, 16), "f16", "f16", "f16", "f16", "sp::ordered_metadata", 0, ""),
    ("sp_m16n8k32_f32_bf16_sel1", (16, 8, 32), "f32", "bf16", "bf16", "f32", "sp::ordered_metadata", 1, ""),
    ("sp_m16n8k8_tf32_sel3", (16, 8, 8), "f32", "tf32", "tf32", "f32", "sp", 3, ""),
    ("sp_m16n8k16_tf32_sel0", (16, 8, 16), "f32", "tf32", "tf32", "f32", "sp::ordered_metadata", 0, ""),
    ("sp_m16n8k32_s8_sel1", (16, 8, 32), "s32", "s8", "s8", "s32", "sp", 1, ""),
    ("sp_m16n8k64_u8_s8_satfinite", (16, 8, 64), "s32", "u8", "s8", "s32", "sp::ordered_metadata", 0, ".satfinite"),
    ("sp_m16n8k64_s4_sel0", (16, 8, 64), "s32", "s4", "s4", "s32", "sp", 0, ""),
    ("sp_m16n8k128_u4", (16, 8, 128), "s32", "u4", "u4", "s32", "sp::ordered_metadata", 0, ""),
    ("sp_m16n8k64_f32_e4m3_e5m2", (16, 8, 64), "f32", "e4m3", "e5m2", "f32", "sp::ordered_metadata", 0, ""),
]

DENSE_FP8 = [
    ("m16n8k32_f32_e4m3", (16, 8, 32), "f32", "e4m3", "e4m3", "f32"),
    ("m16n8k32_f32_e5m2_e4m3", (16, 8, 32), "f32", "e5m2", "e4m3", "f32"),
    ("m16n8k16_f16_e4m3_e5m2", (16, 8, 16), "f16", "e4m3", "e5m2", "f16"),
    ("m16n8k32_f16_e5m2", (16, 8, 32), "f16", "e5m2", "e5m2", "f16"),
]


def save(name, tag, f):
    np.save(os.path.join(HERE, f"{name}_{tag}.npy"), f.astype(np.uint32).reshape(-1))


def main():
    ptx = ["// mma.sp (sparse A) and mma with 8-bit float inputs; written by gen.py.",
           ".version 8.7", ".target sm_90", ".address_size 64", ""]
    for name, shape, dt, at, bt, ct, sp, sel, sat in SPARSE:
        m, n, k = shape
        A, stored, fields = sparse_a(at, m, k, sp.endswith("ordered_metadata"))
        B = rand_bits(bt, (k, n))
        C = rand_bits(ct, (m, n))
        if sat:
            C[0, :] = 0x7FFFFF00
            C[1, :] = 0x80000100
        D = reference(shape, at, bt, ct, dt, A, B, C, sat=bool(sat))
        la = layout_type(at)
        half = (m, n, k // 2)
        fa = fragments(lambda l, i: dense.a_coord(half, la, l, i), at, stored, m * k // 2 // 32)
        fb = fragments(lambda l, i: b_coord(shape, bt, l, i), bt, B, k * n // 32)
        fc = fragments(lambda l, i: dense.c_coord(shape, l, i), ct, C, m * n // 32)
        fd = fragments(lambda l, i: dense.c_coord(shape, l, i), dt, D, m * n // 32)
        fe = metadata(fields, k, at, sel)
        instr = f"mma.{sp}.sync.aligned.m{m}n{n}k{k}.row.col{sat}.{dt}.{at}.{bt}.{ct}"
        ptx += [kernel(name, instr, fa.shape[1], fb.shape[1], fc.shape[1], fd.shape[1],
                       dt == "f32", sel), ""]
        for tag, f in (("a", fa), ("b", fb), ("c", fc), ("d", fd), ("e", fe)):
            save(name, tag, f)
        write_case(name, instr, "abcde", fd.shape[1],
                   "dense D from a structured-sparse A; layouts and metadata from the PTX ISA")
    for name, shape, dt, at, bt, ct in DENSE_FP8:
        m, n, k = shape
        A, B, C = rand_bits(at, (m, k)), rand_bits(bt, (k, n)), rand_bits(ct, (m, n))
        D = reference(shape, at, bt, ct, dt, A, B, C)
        fa = fragments(lambda l, i: dense.a_coord(shape, "s8", l, i), at, A, m * k // 32)
        fb = fragments(lambda l, i: dense.b_coord(shape, "s8", l, i), bt, B, k * n // 32)
        fc = fragments(lambda l, i: dense.c_coord(shape, l, i), ct, C, m * n // 32)
        fd = fragments(lambda l, i: dense.c_coord(shape, l, i), dt, D, m * n // 32)
        instr = f"mma.sync.aligned.m{m}n{n}k{k}.row.col.{dt}.{at}.{bt}.{ct}"
        ptx += [kernel(name, instr, fa.shape[1], fb.shape[1], fc.shape[1], fd.shape[1],
                       dt == "f32", None), ""]
        for tag, f in (("a", fa), ("b", fb), ("c", fc), ("d", fd)):
            save(name, tag, f)
        write_case(name, instr, "abcd", fd.shape[1],
                   "layouts from the PTX ISA's .e4m3/.e5m2 fragment tables, those of .s8")
    with open(os.path.join(HERE, "mma_sp.ptx"), "w") as fh:
        fh.write("\n".join(ptx))


if __name__ == "__main__":
    main()
