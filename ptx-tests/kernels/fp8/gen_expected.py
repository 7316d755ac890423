#!/usr/bin/env python3
"""Independent host reference for fp8.cu: writes fp8.toml (inputs and expected outputs).

Encoding is by brute force over every encoding's value (nearest value, ties to the even
encoding), saturating to the largest finite value; not the arithmetic ptxjit uses.
Formats (PTX ISA 5.2.5): e4m3 bias 7, 3 mantissa bits, no infinities, NaN 0x7f/0xff;
e5m2 bias 15, 2 mantissa bits, IEEE infinities and NaNs.
"""
import math, random, struct

def value(bits, ebits, mbits, bias):
    e = (bits >> mbits) & ((1 << ebits) - 1)
    m = bits & ((1 << mbits) - 1)
    if e == 0:
        return m * 2.0 ** (1 - bias - mbits)
    return ((1 << mbits) + m) * 2.0 ** (e - bias - mbits)

FORMATS = {  # name: (ebits, mbits, bias, largest finite encoding)
    "e4m3": (4, 3, 7, 0x7E),
    "e5m2": (5, 2, 15, 0x7B),
}

def encode(x, fmt):
    ebits, mbits, bias, top = FORMATS[fmt]
    if math.isnan(x):
        return 0x7F
    s = 0x80 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    best = None
    for b in range(top + 1):
        v = value(b, ebits, mbits, bias)
        key = (abs(v - a), b & 1)
        if best is None or key < best[0]:
            best = (key, b)
    if a >= value(top, ebits, mbits, bias):
        return s | top
    return s | best[1]

def f16_bits(v):
    return struct.unpack("<H", struct.pack("<e", v))[0]

def decode_to_f16(bits, fmt):
    ebits, mbits, bias, top = FORMATS[fmt]
    mag = bits & 0x7F
    if (fmt == "e4m3" and mag == 0x7F) or (fmt == "e5m2" and mag > 0x7C):
        return 0x7FFF
    if fmt == "e5m2" and mag == 0x7C:
        return 0xFC00 if bits & 0x80 else 0x7C00
    v = value(mag, ebits, mbits, bias)
    return f16_bits(-v if bits & 0x80 else v)

def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]

random.seed(8)
xs = [0.0, -0.0, math.inf, -math.inf, math.nan, 448.0, 464.0, 480.0, 57344.0, 61440.0,
      2.0 ** -9, 2.0 ** -10, 3 * 2.0 ** -10, 2.0 ** -16, 2.0 ** -17, 1.0625, 1.1875, -240.0]
while len(xs) < 128:
    xs.append(f32(random.choice([-1, 1]) * 2.0 ** random.uniform(-18, 17)))
n = len(xs) // 2
e4 = [encode(xs[2 * i + 1], "e4m3") << 8 | encode(xs[2 * i], "e4m3") for i in range(n)]
e5 = [encode(xs[2 * i + 1], "e5m2") << 8 | encode(xs[2 * i], "e5m2") for i in range(n)]
b4 = [decode_to_f16(v >> 8, "e4m3") << 16 | decode_to_f16(v & 0xFF, "e4m3") for v in e4]
b5 = [decode_to_f16(v >> 8, "e5m2") << 16 | decode_to_f16(v & 0xFF, "e5m2") for v in e5]

def flt(x):
    return "nan" if math.isnan(x) else ("inf" if x == math.inf else ("-inf" if x == -math.inf else repr(x)))

def lst(v, f=str):
    return "[" + ", ".join(f(x) for x in v) + "]"

with open("fp8.toml", "w") as out:
    out.write(f'''# FP8 conversions from NVRTC (cuda_fp8.h: __nv_cvt_float2_to_fp8x2 with __NV_SATFINITE,
# __nv_cvt_fp8x2_to_halfraw2) for e4m3 and e5m2. Inputs and expected values written by
# gen_expected.py, an independent brute-force reference (python3 gen_expected.py).
ptx = "fp8.ptx"
kernel = "fp8"
grid = [1, 1, 1]
block = [64, 1, 1]
args = [{{ buffer = "x" }}, {{ buffer = "e4" }}, {{ buffer = "e5" }}, {{ buffer = "back4" }},
        {{ buffer = "back5" }}, {{ s32 = {n} }}]

[buffers.x]
type = "f32"
init = {{ values = {lst(xs, flt)} }}

[buffers.e4]
type = "u16"
len = {n}

[buffers.e5]
type = "u16"
len = {n}

[buffers.back4]
type = "u32"
len = {n}

[buffers.back5]
type = "u32"
len = {n}

[expect.e4]
values = {lst(e4)}

[expect.e5]
values = {lst(e5)}

[expect.back4]
values = {lst(b4)}

[expect.back5]
values = {lst(b5)}
''')
