#!/usr/bin/env python3
"""Host reference for bulk_half.toml: cp.reduce.async.bulk .min.f16 and .max.bf16, element-wise
d = min(d, s) / max(d, s) with the rules of min/max on halves (PTX ISA §9.7.4.7-8): a NaN input
gives the other input, two NaNs the canonical NaN 0x7fff, -0 < +0; subnormals are kept (the bulk
reductions have no .ftz). Values are raw 16-bit patterns, compared bit for bit."""
import struct


def f16(b):
    return struct.unpack("<e", struct.pack("<H", b))[0]


def bf16(b):
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


def is_nan(b):
    return (b & 0x7FFF) > 0x7C00 if FMT == "f16" else (b & 0x7FFF) > 0x7F80


def pick(a, b, value, want_max):
    if is_nan(a) and is_nan(b):
        return 0x7FFF
    if is_nan(a):
        return b
    if is_nan(b):
        return a
    va, vb = value(a), value(b)
    if va == 0 and vb == 0:  # -0 < +0
        neg = [x for x in (a, b) if x & 0x8000]
        pos = [x for x in (a, b) if not x & 0x8000]
        if want_max:
            return pos[0] if pos else a
        return neg[0] if neg else a
    if want_max:
        return a if va > vb else b
    return a if va < vb else b


# (destination, source) pairs.
H = [(0x3C00, 0x4000), (0xC200, 0x3800), (0x7E00, 0x3E00), (0x4000, 0x7FFF),
     (0x7E00, 0xFE00), (0x8000, 0x0000), (0x0000, 0x8000), (0x0001, 0x0002),
     (0x8003, 0x0000), (0x7C00, 0x7BFF), (0xFC00, 0xFBFF), (0x5140, 0x5140),
     (0xB800, 0xB801), (0x0400, 0x03FF), (0x7BFF, 0x7C00), (0x1234, 0x9234)]
B = [(0x3F80, 0x4000), (0xC040, 0x3F00), (0x7FC0, 0x3FC0), (0x4000, 0x7FFF),
     (0x7FC0, 0xFFC0), (0x8000, 0x0000), (0x0000, 0x8000), (0x0001, 0x0002),
     (0x8003, 0x0000), (0x7F80, 0x7F7F), (0xFF80, 0xFF7F), (0x4248, 0x4248),
     (0xBF00, 0xBF01), (0x0080, 0x007F), (0x7F7F, 0x7F80), (0x1234, 0x9234)]
FMT = "f16"
out_h = [pick(d, s, f16, False) for d, s in H]
FMT = "bf16"
out_b = [pick(d, s, bf16, True) for d, s in B]


def ints(vals):
    return "[" + ", ".join(f"0x{v:04x}" for v in vals) + "]"


with open("bulk_half.toml", "w") as f:
    f.write(f"""# cp.reduce.async.bulk .min.f16 and .max.bf16 into .global (bulk_half.ptx): dst_h = min(dst_h,
# src_h), dst_b = max(dst_b, src_b) element-wise; NaN, ±0, subnormal and infinity cases, raw
# bits (gen_expected.py).
ptx = "bulk_half.ptx"
kernel = "bulk_half"
grid = [1]
block = [1]
args = [{{ buffer = "dst_h" }}, {{ buffer = "src_h" }}, {{ buffer = "dst_b" }}, {{ buffer = "src_b" }}]

[buffers.dst_h]
type = "u16"
init = {{ values = {ints(d for d, _ in H)} }}

[buffers.src_h]
type = "u16"
init = {{ values = {ints(s for _, s in H)} }}

[buffers.dst_b]
type = "u16"
init = {{ values = {ints(d for d, _ in B)} }}

[buffers.src_b]
type = "u16"
init = {{ values = {ints(s for _, s in B)} }}

[expect.dst_h]
values = {ints(out_h)}

[expect.dst_b]
values = {ints(out_b)}
""")
