#!/usr/bin/env python3
"""Writes the case files of memops.ptx with their expected values, computed here from the
PTX ISA's definitions (sections 9.7.9.13, 9.7.9.14, 9.7.9.16, 9.7.9.17) and ptxjit's documented
one-device reading of multimem (docs/isa-notes.md), never from ptxjit's output.

Run: python3 gen_expected.py  (writes *.toml beside it)."""
import random
import struct

rng = random.Random(20261202)


def u32(x):
    return x & 0xFFFFFFFF


def s32(x):
    x = u32(x)
    return x - (1 << 32) if x >> 31 else x


def arr(vals):
    return "[" + ", ".join(str(v) for v in vals) + "]"


def write(name, text):
    with open(name, "w") as f:
        f.write(text)


# ---- st.bulk: two CTAs of 64 threads; words 4..20 (bytes 16..80) and, with size 24, words
# 32..38 (bytes 128..152) become 0; every other word w keeps 7w + 1.
size = 24
out = []
for cta in range(2):
    for w in range(64):
        zero = 4 <= w < 20 or 32 <= w < 32 + size // 8 * 2
        out.append(0 if zero else 7 * w + 1)
write("bulk_zero.toml", f"""# st.bulk (PTX ISA 9.7.9.13): st.bulk.weak.shared::cta of 64 bytes at byte 16 (constant size)
# and st.bulk through a generic address of {size} bytes at byte 128 (run-time size) zero those
# bytes of a CTA's shared words w = 7w + 1 (gen_expected.py).
ptx = "memops.ptx"
kernel = "bulk_zero"
grid = [2]
block = [64]
args = [{{ buffer = "out" }}, {{ u64 = {size} }}]

[buffers.out]
type = "u32"
len = 128

[expect.out]
values = {arr(out)}
""")

write("bulk_bad_size.toml", """# st.bulk with a size that is not a multiple of 8 (PTX ISA 9.7.9.13: undefined): ptxjit traps,
# a fault at its line.
ptx = "memops.ptx"
kernel = "bulk_size"
grid = [1]
block = [1]
args = [{ u64 = 12 }]

[expect_error]
kind = "fault"
contains = "memops.ptx:64"
""")

write("bulk_size_zero.toml", """# st.bulk of 0 bytes (a multiple of 8): nothing to do, no fault.
ptx = "memops.ptx"
kernel = "bulk_size"
grid = [1]
block = [1]
args = [{ u64 = 0 }]
""")

# ---- multimem on one device.
x = [rng.getrandbits(32) for _ in range(128)]
acc0 = [rng.getrandbits(32) for _ in range(6)] + [struct.unpack("<I", struct.pack("<f", 3.5))[0]] + [0] * 13
out = [0] * (64 * 12)
acc = list(acc0)
for g in range(64):
    o = 12 * g
    out[o + 0] = x[g]                      # ld_reduce.add.u32 over one copy: the value
    out[o + 1] = u32(3 * g + 1)            # multimem.st.weak.b32
    out[o + 2], out[o + 3] = x[2 * g], x[2 * g + 1]   # ld_reduce.max.s64, st.b64
    out[o + 4], out[o + 5] = x[2 * g], x[2 * g + 1]   # ld_reduce.add.acc::f32.v2.f16x2
    out[o + 6], out[o + 7] = x[2 * g], x[2 * g + 1]   # st.v2.f32 (bits)
    t = g % 32
    out[o + 8:o + 12] = x[4 * t:4 * t + 4]             # ld_reduce.add.v4.f32
    # Reductions: atomic, so their order does not matter for these exact results.
    acc[0] = u32(acc[0] + x[g])
    acc[1] = u32(min(s32(acc[1]), s32(x[g])))
    acc[2] ^= x[2 * g]
    acc[3] ^= x[2 * g + 1]
    a = acc[4] | acc[5] << 32
    v = x[2 * g] | x[2 * g + 1] << 32
    m = max(a, v)
    acc[4], acc[5] = m & 0xFFFFFFFF, m >> 32
# f32: 3.5 + sum(0..63) = 2019.5, exact in f32.
acc[6] = struct.unpack("<I", struct.pack("<f", 3.5 + sum(range(64))))[0]


def f16(v):
    return struct.unpack("<H", struct.pack("<e", v))[0]


def bf16(v):
    return struct.unpack("<I", struct.pack("<f", v))[0] >> 16


# .v2.f16x2 {0x3c003800, 0x40004400}: word 8 lanes (0.5, 1.0), word 9 lanes (4.0, 2.0), 64 times.
acc[8] = f16(0.5 * 64) | f16(1.0 * 64) << 16
acc[9] = f16(4.0 * 64) | f16(2.0 * 64) << 16
# f64 0.25, 64 times.
lo, hi = struct.unpack("<II", struct.pack("<d", 0.25 * 64))
acc[12], acc[13] = lo, hi
# .v8.bf16 1.0 in each lane, 64 times: 64.0 per lane.
for w in range(16, 20):
    acc[w] = bf16(64.0) | bf16(64.0) << 16
write("multimem_ops.toml", f"""# multimem.ld_reduce / multimem.st / multimem.red (PTX ISA 9.7.9.14) on one device: a
# reduction over the one copy is its value; st stores; red reduces atomically (gen_expected.py;
# the kernel's comment lists each word).
ptx = "memops.ptx"
kernel = "multimem_ops"
grid = [2]
block = [32]
args = [{{ buffer = "x" }}, {{ buffer = "out" }}, {{ buffer = "acc" }}]

[buffers.x]
type = "u32"
init = {{ values = {arr(x)} }}

[buffers.out]
type = "u32"
len = {len(out)}

[buffers.acc]
type = "u32"
init = {{ values = {arr(acc0)} }}

[expect.out]
values = {arr(out)}

[expect.acc]
values = {arr(acc)}
""")

xb = [rng.getrandbits(32) for _ in range(32)]
write("multimem_fp8.toml", f"""# multimem .v4.e4m3 (one-byte elements in .b8 registers) and .v2.e5m2x2 (PTX ISA 9.7.9.14):
# ld_reduce over the one copy and st copy each word's bits (gen_expected.py).
ptx = "memops.ptx"
kernel = "multimem_fp8"
grid = [1]
block = [32]
args = [{{ buffer = "x" }}, {{ buffer = "out" }}]

[buffers.x]
type = "u32"
init = {{ values = {arr(xb)} }}

[buffers.out]
type = "u32"
len = 64

[expect.out]
values = {arr(xb + xb)}
""")

write("multimem_shared.toml", """# multimem on a generic address of shared memory (PTX ISA 9.7.9.14: a multimem address must be
# global, else undefined): ptxjit traps, a fault at its line.
ptx = "memops.ptx"
kernel = "multimem_shared"
grid = [1]
block = [1]
args = [{ u64 = 0 }]

[expect_error]
kind = "fault"
contains = "memops.ptx:176"
""")

xh = [rng.getrandbits(32) for _ in range(64)]
write("hints.toml", f"""# applypriority.L2::evict_normal and discard.L2 (PTX ISA 9.7.9.16-17) on the 128-byte line at
# byte 128 of x, global and generic: hints that leave memory as it is (discard's indeterminate
# value is the bytes already there, docs/isa-notes.md); out = x[0..32).
ptx = "memops.ptx"
kernel = "hints"
grid = [1]
block = [32]
args = [{{ buffer = "x" }}, {{ buffer = "out" }}, {{ u64 = 128 }}]

[buffers.x]
type = "u32"
init = {{ values = {arr(xh)} }}

[buffers.out]
type = "u32"
len = 32

[expect.out]
values = {arr(xh[:32])}

[expect.x]
values = {arr(xh)}
""")

write("hints_misaligned.toml", """# applypriority on an address that is not 128-byte aligned (PTX ISA 9.7.9.16: it must be):
# ptxjit traps, a fault at its line.
ptx = "memops.ptx"
kernel = "hints"
grid = [1]
block = [32]
args = [{ buffer = "x" }, { buffer = "out" }, { u64 = 64 }]

[buffers.x]
type = "u32"
len = 64

[buffers.out]
type = "u32"
len = 32

[expect_error]
kind = "fault"
contains = "memops.ptx:197"
""")
