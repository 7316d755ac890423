#!/usr/bin/env python3
"""Inputs and expected outputs of half2_ops.toml (half2_ops.cu), computed on the host with
numpy. Inputs are multiples of 2^-8 in [-4, 4), so the fused a*x+y of __hfma2 is exact in f64
before its one rounding to f16 (round to nearest even, as numpy's f64 -> f16 cast rounds);
__hmul2 rounds each product to f16, and the kernel adds the two halves in f32; the scaled
pair is (x.lo * 0.5, x.hi * 3) in f32, rounded to f16. Run from this directory."""
import numpy as np

N2 = 1000
A = (1.5, -0.75)  # the __half2 `a` argument: exact in f16 (0x3E00, 0xBA00)

rng = np.random.default_rng(20261208)
x = (rng.integers(-1024, 1024, size=2 * N2) / 256.0).astype(np.float16)
y = (rng.integers(-1024, 1024, size=2 * N2) / 256.0).astype(np.float16)
x[:4] = [0.0, -1.0, 3.99609375, -4.0]  # zero, a negative clamped by the ReLU, the ends

xf, yf = x.astype(np.float64), y.astype(np.float64)
a = np.tile(np.array(A), N2)
axpy = (a * xf + yf).astype(np.float16)
relu = np.where(xf > 0, xf, 0.0).astype(np.float16)
prod = (xf * yf).astype(np.float16).astype(np.float32)
dot = prod[0::2] + prod[1::2]
scale = np.tile(np.array([0.5, 3.0], dtype=np.float32), N2)
scaled = (x.astype(np.float32) * scale).astype(np.float16)

assert np.float16(A[0]).view(np.uint16) == 0x3E00 and np.float16(A[1]).view(np.uint16) == 0xBA00
np.save("x.npy", x)
np.save("y.npy", y)
np.save("axpy_expected.npy", axpy)
np.save("relu_expected.npy", relu)
np.save("dot_expected.npy", dot.astype(np.float32))
np.save("scaled_expected.npy", scaled)
