#!/usr/bin/env python3
"""Host reference for int128.cu: writes int128.toml (inputs and expected outputs).

Exact integer arithmetic in Python: C's unsigned __int128 wraps modulo 2^128; signed
division truncates toward zero; >> on a signed value is arithmetic. Buffers are u32 arrays
(little-endian halves of the kernel's 64-bit words), so every value fits a TOML integer.
"""
import random

N = 64
M64, M128 = 2**64, 2**128
rng = random.Random(20261129)
edge = [(0, 0), (0, 5), (M64 - 1, M64 - 1), (1, 1), (2**63, 2**63), (M64 - 1, 1),
        (1000003, 1000003), (123456789012345, 987654321), (2**63 - 1, 2**63 + 1), (7, M64 - 7)]
pairs = edge + [(rng.getrandbits(rng.choice([8, 32, 40, 63, 64])), rng.getrandbits(rng.choice([1, 20, 33, 64])))
                for _ in range(N - len(edge))]

def s64(v):
    return v - M64 if v >= 2**63 else v

def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q

a, out = [], []
for i, (p, q) in enumerate(pairs):
    a += [p, q]
    x = (p * q + p) % M128
    y = s64(p) * s64(q)
    d = (q >> (i % 61)) | 1
    out += [x % M64, x >> 64, (x // 1000003) % M64, x % 1000003, (x // d) % M64, x % d,
            trunc_div(y, -7) % M64, (y >> 70) % M64]

def halves(words):
    r = []
    for w in words:
        r += [w & 0xFFFFFFFF, w >> 32]
    return r

def fmt(vals):
    return "[" + ", ".join(str(v) for v in vals) + "]"

toml = f'''# 128-bit integer arithmetic from NVRTC (--device-int128): products, division and remainder
# by a constant and by a variable divisor (nvcc's inlined division routine, which reads
# CC.CF after subtractions), signed division, arithmetic shift. Inputs and expected values
# written by gen_expected.py, exact integer arithmetic (python3 gen_expected.py).
ptx = "int128.ptx"
kernel = "int128"
grid = [1, 1, 1]
block = [{N}, 1, 1]
args = [{{ buffer = "a" }}, {{ buffer = "out" }}, {{ s32 = {N} }}]

[buffers.a]
type = "u32"
init = {{ values = {fmt(halves(a))} }}

[buffers.out]
type = "u32"
len = {16 * N}

[expect.out]
values = {fmt(halves(out))}
'''
open("int128.toml", "w").write(toml)
