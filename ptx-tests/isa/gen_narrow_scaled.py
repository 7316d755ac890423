#!/usr/bin/env python3
"""Writes narrow_scaled.isa: expected values of the PTX ISA 9.1/9.2 `cvt` forms between the
narrow formats and packed halves, and of the `.s2f6x2` fixed-point type, computed here with
exact rational arithmetic from the format definitions of the PTX ISA (§5.2.4 s2f6, §5.2.5
e4m3/e5m2/e2m3/e3m2/e2m1, ue8m0) and the rules of §9.7.9.21 `cvt`:

* to e4m3/e5m2/e2m3/e3m2/e2m1 (`.rn.satfinite`, mandatory): round to nearest even; beyond the
  largest finite value (±inf included) the sign-preserved largest; NaN → 0x7f (e4m3, e5m2) or
  the positive largest value (formats without NaN); `.relu`: negative → +0.
* from them to bf16x2 (`.rn`): the value times the element's `.ue8m0` scale 2^(e−127) (0x7f7f
  without `.scaled::n2::ue8m0`), rounded to bf16 to nearest even; NaN (also the NaN scale 0xff)
  → bf16's canonical NaN 0x7FFF; `.satfinite`: ±inf → ±largest finite (0x7F7F); `.relu`:
  negative → +0.
* to s2f6 (`.rn.satfinite`): x / scale rounded to nearest even in steps of 2^-6, clamped to
  -2 (0x80) … 127/64 (0x7f); NaN → 0x7f ("positive MAX_NORM"); `.relu`: negative → 0.
* bf16x2 sources: the upper 16 bits are the upper element (the ISA's text for s2f6x2 says
  "upper 8 bits", evidently the upper element: its scale-factor sentence says "upper 16 bits").

Run: python3 gen_narrow_scaled.py > narrow_scaled.isa
"""
from fractions import Fraction as Q
import random
import struct

# (exponent bits, bias, mantissa bits, NaN rule) of the small formats (PTX ISA §5.2.5).
FMTS = {
    "e4m3": (4, 7, 3, "e4m3"),
    "e5m2": (5, 15, 2, "ieee"),
    "e2m3": (2, 1, 3, None),
    "e3m2": (3, 3, 2, None),
    "e2m1": (2, 1, 1, None),
}


def width(f):
    e, _, m, _ = FMTS[f]
    return 1 + e + m


def mini_value(f, code):
    """Exact value of an encoding: a Fraction, 'nan', '+inf' or '-inf'."""
    e, bias, m, nan = FMTS[f]
    w = width(f)
    neg = code >> (w - 1) & 1
    ex = code >> m & ((1 << e) - 1)
    man = code & ((1 << m) - 1)
    if nan == "e4m3" and ex == (1 << e) - 1 and man == (1 << m) - 1:
        return "nan"
    if nan == "ieee" and ex == (1 << e) - 1:
        return "nan" if man else ("-inf" if neg else "+inf")
    if ex == 0:
        v = Q(man, 1 << m) * Q(2) ** (1 - bias)
    else:
        v = (1 + Q(man, 1 << m)) * Q(2) ** (ex - bias)
    return -v if neg else v


def finite_codes(f):
    """(value, code) of every finite non-negative encoding."""
    out = []
    for c in range(1 << (width(f) - 1)):
        v = mini_value(f, c)
        if isinstance(v, Q):
            out.append((v, c))
    return out


def to_mini(f, x, relu):
    """cvt.rn.satfinite{.relu} of an exact value (Fraction, 'nan', '+inf', '-inf')."""
    w = width(f)
    codes = finite_codes(f)
    vmax, cmax = max(codes)
    if x == "nan":
        return 0x7F if f in ("e4m3", "e5m2") else cmax
    neg = x == "-inf" or (isinstance(x, Q) and x < 0) or x == "-0"
    if relu and neg:
        return 0
    sign = 1 << (w - 1) if neg else 0
    a = vmax if x in ("+inf", "-inf") else abs(Q(0) if x == "-0" else x)
    if a >= vmax:
        return sign | cmax
    best = min(codes, key=lambda vc: (abs(vc[0] - a), vc[1] & 1))
    return sign | best[1]


def ieee_value(bits, e_bits, m_bits):
    """The exact value of a bit pattern of an IEEE 754 binary format with an e_bits exponent
    and an m_bits fraction: a rational, or "nan", "+inf", "-inf", "-0"."""
    s, e, m = bits >> (e_bits + m_bits), bits >> m_bits & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
    if e == (1 << e_bits) - 1:
        return "nan" if m else ("-inf" if s else "+inf")
    bias = (1 << (e_bits - 1)) - 1
    frac = Q(m, 1 << m_bits)
    v = frac * Q(2) ** (1 - bias) if e == 0 else (1 + frac) * Q(2) ** (e - bias)
    if v == 0 and s:
        return "-0"
    return -v if s else v


def f16_value(bits):
    return ieee_value(bits, 5, 10)


def bf16_value(bits):
    return ieee_value(bits, 8, 7)


def f32_value(bits):
    return ieee_value(bits, 8, 23)


def to_bf16(x, satfinite, relu):
    """Round an exact value to bf16 bits (nearest even), then .satfinite and .relu."""
    if x == "nan":
        return 0x7FFF
    if x in ("+inf", "-inf"):
        h = 0x7F80 | (0x8000 if x == "-inf" else 0)
    elif x == "-0" or x == 0:
        h = 0x8000 if x == "-0" else 0
    else:
        sign = 0x8000 if x < 0 else 0
        a = abs(x)
        e = 0
        while a >= Q(2) ** (e + 1):
            e += 1
        while a < Q(2) ** e:
            e -= 1
        e = max(e, -126)
        q = a / Q(2) ** (e - 7)  # in units of the spacing
        n = round(q)  # Fraction.__round__: ties to even
        r = n * Q(2) ** (e - 7)
        if r >= Q(2) ** 128:
            h = sign | 0x7F80
        elif r < Q(2) ** -126:
            h = sign | int(r / Q(2) ** -133)
        else:
            e2 = e + 1 if r >= Q(2) ** (e + 1) else e
            m = int(r / Q(2) ** (e2 - 7)) - 128
            h = sign | (e2 + 127) << 7 | m
    if satfinite and h & 0x7FFF == 0x7F80:
        h = (h & 0x8000) | 0x7F7F
    if relu and h & 0x8000:
        h = 0
    return h


def scale_value(e):
    return None if e == 0xFF else Q(2) ** (e - 127)


def mini_to_bf16(f, code, scale, satfinite, relu):
    v = mini_value(f, code)
    s = scale_value(scale)
    if v == "nan" or s is None:
        return to_bf16("nan", satfinite, relu)
    if v in ("+inf", "-inf"):
        return to_bf16(v, satfinite, relu)
    if v == 0 and code >> (width(f) - 1):
        return to_bf16("-0", satfinite, relu)
    return to_bf16(v * s, satfinite, relu)


def s2f6_value(code):
    return Q(code - 256 if code & 0x80 else code, 64)


def to_s2f6(x, scale, relu):
    s = scale_value(scale)
    if x == "nan" or s is None:
        return 0x7F
    if x in ("+inf", "-inf"):
        q = 127 if x == "+inf" else -128
    else:
        q = round((Q(0) if x == "-0" else x) / s * 64)
        q = max(-128, min(127, q))
    if relu and q < 0:
        q = 0
    return q & 0xFF


def s2f6_to_bf16(code, scale, satfinite, relu):
    s = scale_value(scale)
    if s is None:
        return to_bf16("nan", satfinite, relu)
    return to_bf16(s2f6_value(code) * s, satfinite, relu)


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


rng = random.Random(91)
SCALES = [0x7F7F, 0x8085, 0x00FE, 0xFF7F, 0x7A84, 0x01FD, 0x9070]


def header(inst, types):
    print(f">> {inst} :: {types}")


def half_inputs(value_of, nan, inf, maxes):
    """Bit patterns of f16 or bf16 inputs: specials, format boundaries, random."""
    v = [0x0000, 0x8000, inf, inf | 0x8000, nan, 0x0001, 0x8001] + maxes
    while len(v) < 48:
        v.append(rng.getrandbits(16))
    return v


def main():
    print("# GENERATED by gen_narrow_scaled.py (exact rational arithmetic from the PTX ISA's format")
    print("# definitions and cvt rules, PTX ISA 9.1/9.2); do not edit. Packed halves are hex")
    print("# bit patterns, the upper element in the upper bits; c is the scale-factor operand")
    print("# (two .ue8m0 bytes, the upper one for the upper element).")
    # What the forms need (PTX ISA release notes, Table 63): .s2f6x2 an `a` target of
    # sm_100/103/110/120/121 and PTX ISA 9.1; the packed-half down-conversions PTX ISA 9.1 and
    # the up-conversions to .bf16x2 PTX ISA 9.2, on the sm_100f/110f/120f families.
    print(".version 9.2")
    print(".target sm_100a")
    print()
    # f16 values at and around the narrow formats' largest values and rounding midpoints.
    f16_special = [0x47A0, 0x4780, 0x47C0, 0x4F00, 0x4F80, 0x4600, 0x4500, 0x4700, 0x3800,
                   0x3400, 0x3A00, 0x3B00, 0x3C00, 0x3E00, 0x3F00, 0xC400, 0x5F00, 0x7BFF]
    bf16_special = [0x40F0, 0x40F8, 0x41E0, 0x41F0, 0x40C0, 0x40A0, 0x40E0, 0x3F00, 0x3E80,
                    0x3F40, 0x3F60, 0x3F80, 0x3FC0, 0x43E0, 0x43E8, 0x43F0, 0x4760, 0x4770,
                    0x7F7F, 0x0080, 0x3C00]
    f16s = half_inputs(f16_value, 0x7E00, 0x7C00, f16_special)
    bf16s = half_inputs(bf16_value, 0x7FC0, 0x7F80, bf16_special)

    # Down-conversions from packed halves (9.1): f16x2 → e2m3/e3m2/e2m1, bf16x2 → all five.
    for src, vals, value_of in (("f16x2", f16s, f16_value), ("bf16x2", bf16s, bf16_value)):
        fmts = ["e2m3", "e3m2", "e2m1"] + (["e4m3", "e5m2"] if src == "bf16x2" else [])
        for f in fmts:
            for relu in (False, True):
                d = "b8" if f == "e2m1" else "b16"
                shift = 4 if f == "e2m1" else 8
                header(f"cvt.rn.satfinite{'.relu' if relu else ''}.{f}x2.{src} d, a",
                       f"d:{d} <- a:b32")
                for k in range(0, len(vals) - 1, 1 if not relu else 3):
                    hi, lo = vals[k], vals[(k * 7 + 3) % len(vals)]
                    r = to_mini(f, value_of(hi), relu) << shift | to_mini(f, value_of(lo), relu)
                    print(f"0x{hi:04X}{lo:04X} -> 0x{r:0{2 if f == 'e2m1' else 4}X}")
    print()

    # Up-conversions to bf16x2 (9.2), every encoding, with and without scale factors.
    for f in ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1"):
        w = width(f)
        codes = list(range(1 << w))
        a_ty = "b8" if f == "e2m1" else "b16"
        shift = 4 if f == "e2m1" else 8
        for satfinite, relu, scaled in ((False, False, False), (False, False, True),
                                        (True, False, True), (False, True, True)):
            mods = ".rn" + (".satfinite" if satfinite else "") + (".relu" if relu else "")
            if scaled:
                header(f"cvt{mods}.scaled::n2::ue8m0.bf16x2.{f}x2 d, a, c",
                       f"d:b32 <- a:{a_ty} c:b16")
            else:
                header(f"cvt{mods}.bf16x2.{f}x2 d, a", f"d:b32 <- a:{a_ty}")
            step = 1 if not scaled else 2
            for k in range(0, len(codes), 2 * step):
                hi, lo = codes[k], codes[(k + 1 + 37 * (k // 2)) % len(codes)]
                sc = SCALES[(k // 2) % len(SCALES)] if scaled else 0x7F7F
                r = mini_to_bf16(f, hi, sc >> 8, satfinite, relu) << 16 | mini_to_bf16(
                    f, lo, sc & 0xFF, satfinite, relu)
                a = hi << shift | lo
                if scaled:
                    print(f"0x{a:0{2 if f == 'e2m1' else 4}X} 0x{sc:04X} -> 0x{r:08X}")
                else:
                    print(f"0x{a:0{2 if f == 'e2m1' else 4}X} -> 0x{r:08X}")
    print()

    # .s2f6x2 (9.1): from two f32, from bf16x2, and back to bf16x2.
    f32s = [0.0, -0.0, 1.0, -1.0, 1.984375, 1.9921875, 2.0, -2.0, -2.0078125, 0.0078125,
            0.0234375, -0.0234375, 0.5, 1e-30, -1e30, 3.0, 100.0, -100.0, 0.75, 1.5]
    f32_bits_list = [f32_bits(x) for x in f32s] + [0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001]
    while len(f32_bits_list) < 60:
        e = rng.randint(-10, 8)
        f32_bits_list.append(f32_bits(rng.uniform(-1, 1) * 2.0 ** e))
    for relu, scaled in ((False, False), (True, False), (False, True), (True, True)):
        mods = ".rn.satfinite" + (".relu" if relu else "")
        if scaled:
            header(f"cvt{mods}.scaled::n2::ue8m0.s2f6x2.f32 d, a, b, c",
                   "d:b16 <- a:f32 b:f32 c:b16")
        else:
            header(f"cvt{mods}.s2f6x2.f32 d, a, b", "d:b16 <- a:f32 b:f32")
        n = len(f32_bits_list)
        for k in range(n):
            a, b = f32_bits_list[k], f32_bits_list[(k * 5 + 1) % n]
            sc = SCALES[k % len(SCALES)] if scaled else 0x7F7F
            r = to_s2f6(f32_value(a), sc >> 8, relu) << 8 | to_s2f6(f32_value(b), sc & 0xFF, relu)
            if scaled:
                print(f"0x{a:08X} 0x{b:08X} 0x{sc:04X} -> 0x{r:04X}")
            else:
                print(f"0x{a:08X} 0x{b:08X} -> 0x{r:04X}")
    for relu, scaled in ((False, False), (True, True)):
        mods = ".rn.satfinite" + (".relu" if relu else "")
        if scaled:
            header(f"cvt{mods}.scaled::n2::ue8m0.s2f6x2.bf16x2 d, a, c", "d:b16 <- a:b32 c:b16")
        else:
            header(f"cvt{mods}.s2f6x2.bf16x2 d, a", "d:b16 <- a:b32")
        for k in range(len(bf16s)):
            hi, lo = bf16s[k], bf16s[(k * 11 + 5) % len(bf16s)]
            sc = SCALES[k % len(SCALES)] if scaled else 0x7F7F
            r = to_s2f6(bf16_value(hi), sc >> 8, relu) << 8 | to_s2f6(bf16_value(lo), sc & 0xFF,
                                                                       relu)
            if scaled:
                print(f"0x{hi:04X}{lo:04X} 0x{sc:04X} -> 0x{r:04X}")
            else:
                print(f"0x{hi:04X}{lo:04X} -> 0x{r:04X}")
    for satfinite, relu, scaled in ((False, False, False), (False, False, True),
                                    (True, False, True), (True, True, True)):
        mods = ".rn" + (".satfinite" if satfinite else "") + (".relu" if relu else "")
        if scaled:
            header(f"cvt{mods}.scaled::n2::ue8m0.bf16x2.s2f6x2 d, a, c", "d:b32 <- a:b16 c:b16")
        else:
            header(f"cvt{mods}.bf16x2.s2f6x2 d, a", "d:b32 <- a:b16")
        for k in range(0, 256, 2):
            hi, lo = k, (k * 37 + 129) % 256
            sc = SCALES[(k // 2) % len(SCALES)] if scaled else 0x7F7F
            if scaled and k in (0x80, 0x82):
                sc = 0xFE00  # -2 · 2^127 overflows bf16
            r = s2f6_to_bf16(hi, sc >> 8, satfinite, relu) << 16 | s2f6_to_bf16(
                lo, sc & 0xFF, satfinite, relu)
            if scaled:
                print(f"0x{hi:02X}{lo:02X} 0x{sc:04X} -> 0x{r:08X}")
            else:
                print(f"0x{hi:02X}{lo:02X} -> 0x{r:08X}")


main()
