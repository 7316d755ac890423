#!/usr/bin/env python3
"""Writes the cases of the clang kernels: each kernel of this folder (`NAME.cu`, compiled by
clang's CUDA front end, see gen_ptx.sh) as a case on `NAME.ptx` (-O2) and on `NAME_O0.ptx`
(-O0), with inputs from a seeded generator and the expected outputs from host arithmetic
(integers, exact float sums, a float32 rounding of exact rationals for the FMA).

Run (needs numpy, not clang): python3 gen.py
"""
import os
import sys
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402

RNG = np.random.default_rng(20261205)

# The PTX files each kernel is compiled to (gen_ptx.sh) and what the case's comment says of them.
VARIANTS = [
    ("", "clang 14 -O2 for sm_80"),
    ("_O0", "clang 14 -O0 for sm_80 (locals in a .local depot through generic addresses)"),
]
# Further PTX files of some kernels: clang's 32-bit pointers for the const, shared and local
# spaces (-nvptx-short-ptr), where a const-space address is a 32-bit register.
SHORT_PTR = [
    ("_short", "clang 14 -O2 -nvptx-short-ptr for sm_80 (mov.u32 %r, coeffs; ld.const [%r];\n"
               "cvt.u64.u32 then cvta.const.u64 for the generic pointer)"),
    ("_short_O0", "clang 14 -O0 -nvptx-short-ptr for sm_80 (32-bit const, shared and local\n"
                  "addresses, made generic by cvt.u64.u32 then cvta)"),
]


def f32_round(r):
    """The float32 nearest to the rational `r` (ties to even); normal results only."""
    if r == 0:
        return np.float32(0.0)
    sign = -1 if r < 0 else 1
    m = abs(r)
    e = m.numerator.bit_length() - m.denominator.bit_length()
    if Fraction(2) ** e > m:
        e -= 1
    assert -126 <= e <= 127, r
    q = m * Fraction(2) ** (23 - e)  # in [2^23, 2^24)
    n = q.numerator // q.denominator
    rem = q - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    return np.float32(sign * float(Fraction(n) * Fraction(2) ** (e - 23)))


def fma_f32(a, b, c):
    """fma.rn.f32: a * b + c rounded once."""
    return f32_round(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))


def write_case(name, variant, comment, text):
    """Write NAME{variant}.toml: `comment` as # lines, then the PTX file, then `text`."""
    head = "".join(f"# {line}\n" for line in comment.strip().split("\n"))
    head += "# Written by gen.py (do not edit: change gen.py and run it).\n"
    head += f'ptx = "{name}{variant}.ptx"\n'
    gc.write_text(HERE, f"{name}{variant}.toml", head + text)


def vector_add():
    n, block = 1000, 128
    a = RNG.uniform(-100, 100, n).astype(np.float32)
    b = RNG.uniform(-100, 100, n).astype(np.float32)
    gc.save_npy(HERE, "vector_add_a", a)
    gc.save_npy(HERE, "vector_add_b", b)
    want = np.concatenate([a + b, np.zeros(24, np.float32)])  # float32 + float32: one rounding
    gc.save_npy(HERE, "vector_add_expected", want)
    text = f'kernel = "vector_add"\ngrid = [{(n + block - 1) // block}]\nblock = [{block}]\n'
    text += f'args = [{{ buffer = "a" }}, {{ buffer = "b" }}, {{ buffer = "c" }}, {{ s32 = {n} }}]\n\n'
    text += gc.buffer_from_file("a", "vector_add_a.npy", "f32") + "\n"
    text += gc.buffer_from_file("b", "vector_add_b.npy", "f32") + "\n"
    text += f'[buffers.c]\ntype = "f32"\nlen = {n + 24}\ninit = {{ fill = 0 }}\n\n'
    text += gc.expect_exact("c", "vector_add_expected.npy")
    return ("c[i] = a[i] + b[i], n = 1000 on 8 CTAs of 128 (a partial last CTA); the 24 words\n"
            "past n stay 0."), text


def saxpy():
    n, grid, block, alpha = 5000, 4, 128, np.float32(2.5)
    x = RNG.uniform(-10, 10, n).astype(np.float32)
    y = RNG.uniform(-10, 10, n).astype(np.float32)
    gc.save_npy(HERE, "saxpy_x", x)
    gc.save_npy(HERE, "saxpy_y", y)
    want = np.array([fma_f32(alpha, xi, yi) for xi, yi in zip(x, y)], dtype=np.float32)
    gc.save_npy(HERE, "saxpy_expected", want)
    text = f'kernel = "saxpy"\ngrid = [{grid}]\nblock = [{block}]\n'
    text += (f'args = [{{ s32 = {n} }}, {{ f32 = {float(alpha)} }}, {{ buffer = "x" }}, '
             f'{{ buffer = "y" }}]\n\n')
    text += gc.buffer_from_file("x", "saxpy_x.npy", "f32") + "\n"
    text += gc.buffer_from_file("y", "saxpy_y.npy", "f32") + "\n"
    text += gc.expect_exact("y", "saxpy_expected.npy")
    return ("y[i] = a * x[i] + y[i] by a grid-stride loop: n = 5000 on 4 CTAs of 128 (10 trips,\n"
            "the last partial). clang contracts it to fma.rn.f32 at every -O level: the\n"
            "expected values are a * x + y rounded once (exact rationals on the host)."), text


def reduce_shared():
    n, block = 3000, 256
    grid = (n + block - 1) // block
    # Multiples of 1/16 in [-8, 8]: every partial sum is exact in float32, whatever the order.
    v = (RNG.integers(-128, 129, n) / 16).astype(np.float32)
    gc.save_npy(HERE, "reduce_shared_in", v)
    padded = np.concatenate([v, np.zeros(grid * block - n, np.float32)])
    gc.save_npy(HERE, "reduce_shared_expected",
                padded.reshape(grid, block).astype(np.float64).sum(axis=1).astype(np.float32))
    text = f'kernel = "reduce_shared"\ngrid = [{grid}]\nblock = [{block}]\n'
    text += f'args = [{{ buffer = "in" }}, {{ buffer = "sums" }}, {{ s32 = {n} }}]\n\n'
    text += gc.buffer_from_file("in", "reduce_shared_in.npy", "f32") + "\n"
    text += f'[buffers.sums]\ntype = "f32"\nlen = {grid}\n\n'
    text += gc.expect_exact("sums", "reduce_shared_expected.npy")
    return ("Per-CTA sums by a __shared__ tree with __syncthreads in the loop: n = 3000 on 12\n"
            "CTAs of 256 (the last one partly zeros). Inputs are multiples of 1/16 in [-8, 8],\n"
            "so every sum is exact in float32."), text


def reduce_shfl():
    n, grid, block = 20000, 5, 192
    v = RNG.integers(-1000, 1001, n).astype(np.int32)
    gc.save_npy(HERE, "reduce_shfl_in", v)
    stride = grid * block
    sums = np.zeros(grid, np.int64)
    for i in range(n):
        sums[(i % stride) // block] += int(v[i])
    gc.save_npy(HERE, "reduce_shfl_expected", sums.astype(np.int32))
    text = f'kernel = "reduce_shfl"\ngrid = [{grid}]\nblock = [{block}]\n'
    text += f'args = [{{ buffer = "in" }}, {{ buffer = "sums" }}, {{ s32 = {n} }}]\n\n'
    text += gc.buffer_from_file("in", "reduce_shfl_in.npy", "s32") + "\n"
    text += f'[buffers.sums]\ntype = "s32"\nlen = {grid}\n\n'
    text += gc.expect_exact("sums", "reduce_shfl_expected.npy")
    return ("Per-CTA sums of s32 over a grid-stride loop (n = 20000, 5 CTAs of 192 = 6 warps):\n"
            "shfl.sync.down.b32 within each warp, warp sums through __shared__, warp 0 sums\n"
            "those with shuffles again (lanes past the 6 warps add 0)."), text


def histogram():
    n, grid, block = 50000, 8, 192
    # Skewed bytes: a quarter of them in bins 0..3, so the shared atomics contend.
    data = np.where(RNG.random(n) < 0.25, RNG.integers(0, 4, n), RNG.integers(0, 256, n))
    data = data.astype(np.uint8)
    gc.save_npy(HERE, "histogram_data", data)
    gc.save_npy(HERE, "histogram_expected", np.bincount(data, minlength=256).astype(np.uint32))
    text = f'kernel = "histogram"\ngrid = [{grid}]\nblock = [{block}]\n'
    text += f'args = [{{ buffer = "data" }}, {{ buffer = "bins" }}, {{ s32 = {n} }}]\n\n'
    text += gc.buffer_from_file("data", "histogram_data.npy", "u8") + "\n"
    text += '[buffers.bins]\ntype = "u32"\nlen = 256\ninit = { fill = 0 }\n\n'
    text += gc.expect_exact("bins", "histogram_expected.npy")
    return ("A 256-bin byte histogram: atomicAdd on __shared__ bins over a grid-stride loop, then\n"
            "on the global bins (n = 50000, a quarter of the bytes in bins 0..3; 8 CTAs of 192,\n"
            "which is not a divisor of 256: the bin loops take 2 trips for some threads)."), text


def struct_call():
    n, block, grid, offset, scale = 300, 128, 3, 17, np.float32(0.75)
    src = RNG.uniform(-2, 2, n).astype(np.float32)
    gc.save_npy(HERE, "struct_call_src", src)
    want = np.zeros(n + 84, np.float32)
    for i in range(n):
        r = src[(i + offset) % n] * scale  # float32 product: one rounding
        r = np.float32(-1.0) if r < -1 else (np.float32(1.0) if r > 1 else r)
        want[i] = r + np.float32(i)
    gc.save_npy(HERE, "struct_call_expected", want)
    text = f'kernel = "struct_call"\ngrid = [{grid}]\nblock = [{block}]\n'
    text += (f'args = [{{ struct = [{{ f32 = {float(scale)} }}, {{ s32 = {offset} }}, '
             f'{{ buffer = "src" }}, {{ buffer = "dst" }}, {{ s32 = {n} }}] }}]\n\n')
    text += gc.buffer_from_file("src", "struct_call_src.npy", "f32") + "\n"
    text += f'[buffers.dst]\ntype = "f32"\nlen = {n + 84}\ninit = {{ fill = 0 }}\n\n'
    text += gc.expect_exact("dst", "struct_call_expected.npy")
    return ("A struct by value, Params { float scale; int offset; const float* src; float* dst;\n"
            "int n; } (32 bytes: src at 8, dst at 16, n at 24), and a __noinline__ device\n"
            "function (a .func called with .param arguments): dst[i] = clamp(src[(i + offset) %\n"
            "n] * scale, -1, 1) + i for i < n = 300 on 3 CTAs of 128; the rest of dst stays 0."), text


def const_table():
    n, grid, block = 500, 4, 128
    coeffs = np.array([0.5, -1.25, 2.0, 3.5, -0.75, 8.0, 0.125, -6.0], np.float32)  # const_table.cu
    idx = RNG.integers(-1000, 1000, n).astype(np.int32)
    gc.save_npy(HERE, "const_table_idx", idx)
    want = np.zeros(n + 12, np.float32)
    for i in range(n):
        base, t = i - i % block, i % block
        s = block - 1 - t
        j = base + s
        # Products of eighths by t < 128 and their sums are exact in float32.
        staged = coeffs[idx[j] & 7] * np.float32(s) if j < n else np.float32(0)
        want[i] = staged + coeffs[t % 8]
    gc.save_npy(HERE, "const_table_expected", want)
    text = f'kernel = "const_table"\ngrid = [{grid}]\nblock = [{block}]\nshared_bytes = {4 * block}\n'
    text += f'args = [{{ buffer = "idx" }}, {{ buffer = "out" }}, {{ s32 = {n} }}]\n\n'
    text += gc.buffer_from_file("idx", "const_table_idx.npy", "s32") + "\n"
    text += f'[buffers.out]\ntype = "f32"\nlen = {n + 12}\ninit = {{ fill = 0 }}\n\n'
    text += gc.expect_exact("out", "const_table_expected.npy")
    return ("A __constant__ table of 8 floats read at idx[i] & 7 (negative indices too) and, through\n"
            "a generic pointer, by a __noinline__ device function; a dynamic __shared__ array read\n"
            "mirrored within the CTA: out[i] = coeffs[idx[j] & 7] * s + coeffs[t % 8] with\n"
            "s = 127 - t, j the CTA's s-th element (0 past n = 500: the last CTA is partial)."), text


def printf_case():
    """printf.toml and printf_expected.txt: the lines tests/simt.rs compares, each warp's in
    lane order, formatted by Python's %-operator, which follows C's printf here."""
    n, block, big = 37, 40, -(1 << 40)
    lines = []
    for t in range(n):
        if t % 3 == 0:
            lines.append("t=%d x=%.3f big=%d u=%d c=%c s=%s" % (
                t, t * 0.25, big + t, 4000000000 + t, chr(ord("a") + t % 26),
                "lo" if t < 16 else "hi"))
    gc.write_text(HERE, "printf_expected.txt", "\n".join(lines) + "\n")
    for variant, what in VARIANTS:
        text = (f"# {what}.\n# Device printf through clang's vprintf lowering: the expected\n"
                "# stdout is printf_expected.txt (tests/simt.rs compares it on both engines).\n"
                "# Written by gen.py (do not edit: change gen.py and run it).\n")
        text += f'ptx = "printf{variant}.ptx"\nkernel = "clang_printf"\n'
        text += f"grid = [1]\nblock = [{block}]\n"
        text += f'args = [{{ buffer = "x" }}, {{ s64 = {big} }}, {{ s32 = {n} }}]\n\n'
        text += (f'[buffers.x]\ntype = "f32"\nlen = {block}\n'
                 'init = { iota = { start = 0, step = 0.25 } }\n')
        gc.write_text(HERE, f"printf{variant}.toml", text)


def main():
    printf_case()
    for kernel in [vector_add, saxpy, reduce_shared, reduce_shfl, histogram, struct_call,
                   const_table]:
        comment, text = kernel()
        extra = SHORT_PTR if kernel is const_table else []
        for variant, what in VARIANTS + extra:
            write_case(kernel.__name__, variant, f"{what}.\n{comment}", text)


if __name__ == "__main__":
    main()
