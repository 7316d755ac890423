#!/usr/bin/env python3
"""Writes opsize.toml: the input bytes of opsize.ptx and its expected outputs, from the rules
of PTX ISA section 9.4.1 ("Operand Size Exceeding Instruction-Type Size") written as host
code: a register wider than the instruction type is zero-extended on a load/cvt result
(sign-extended for .sN types), and only its low bits are used as a store/cvt source. Run from
this directory."""

import random

THREADS = 32
rng = random.Random(20251202)
inp = [rng.randrange(256) for _ in range(8 * THREADS)]
# Make sure both signs of each narrow field occur.
for i in range(THREADS):
    for k in range(8):
        if i % 2 == 0:
            inp[8 * i + k] |= 0x80
        else:
            inp[8 * i + k] &= 0x7F

M64 = (1 << 64) - 1


def le(b):
    return int.from_bytes(bytes(b), "little")


def sext(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


out, byts = [], []
for i in range(THREADS):
    b = inp[8 * i : 8 * i + 8]
    r3 = le(b[4:8])  # ld.global.u32 %r3, [in+4]
    f_bits = le(b[2:4])  # ld.global.b16 into an .f32 register: zero-extended
    o = [
        sext(b[0], 8) & M64,  # ld.s8 into .b64
        b[1],  # ld.u8 into .s64
        le(b[4:8]),  # ld.f32 into .b64
        f_bits,  # ld.b16 into .f32
        sext(le(b[6:8]), 16) & M64,  # ld.s16 into .b32, then cvt.s64.s32
        sext(r3 & 0xFF, 8) & M64,  # cvt.s64.s8 of a .b32 register
        r3 & 0xFF,  # cvt.u16.u8 into .u64
        sext(r3 & 0xFF, 8) & M64,  # cvt.s16.s8 into .s32, then cvt.s64.s32
    ]
    out += o
    lo64 = le(b)
    byts += [
        f_bits & 0xFF,  # st.b8 from .f32
        r3 & 0xFF,  # st.s8 from .b32
        lo64 & 0xFF, (lo64 >> 8) & 0xFF,  # st.u16 from .b64
        b[7], 0,  # ld.b8 into .f16, st.b16
        b[3], 0,  # ld.u8 into .b16, st.b16
    ]

toml = f"""# Operands wider than the instruction type (PTX ISA 9.4.1): hand-written opsize.ptx loads
# .s8/.u8/.f32/.b16/.s16 into wider registers, converts from and into wider registers, and
# stores .b8/.s8/.u16 from wider ones. Expected values from gen.py (the ISA's extension and
# truncation rules as host code).
ptx = "opsize.ptx"
kernel = "opsize"
grid = [1]
block = [{THREADS}]
args = [{{ buffer = "inp" }}, {{ buffer = "out" }}, {{ buffer = "bytes" }}]

[buffers.inp]
type = "u8"
init = {{ values = {inp} }}

[buffers.out]
type = "u64"
len = {len(out)}

[buffers.bytes]
type = "u8"
len = {len(byts)}

[expect.out]
values = [{", ".join(f'"0x{v:X}"' if v >= 1 << 63 else str(v) for v in out)}]

[expect.bytes]
values = {byts}
"""
open("opsize.toml", "w").write(toml)
