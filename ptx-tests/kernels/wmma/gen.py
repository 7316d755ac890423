#!/usr/bin/env python3
"""Writes the inputs and expected outputs of the WMMA cases (wmma_*.toml) for wmma.cu, whose
PTX (wmma.ptx) NVRTC 12.9 generated:
    ptxjit compile wmma.cu -o wmma.ptx --arch compute_80 -I <cuda_nvcc>/include   (for crt/mma.h)

D = A·B + C with A row-major M×K, B column-major (b[n*K + k] = B[k][n]), C and D row-major
(wmma_s8: C = 0, D column-major). Expected values from numpy: products exact, the sum over
k in ascending order from C, rounded to f32 at each step (the order docs/isa-notes.md gives
for ptxjit; the CUDA code accumulates the K tiles in ascending order too); tf32 inputs
rounded as cvt.rna.tf32.f32 does (to nearest, ties away from zero, on the upper 19 bits);
f64 values are multiples of 1/8, so every order gives the same exact result.

Run: python3 gen.py (numpy)
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(11)


def seq_f32(a, b, c):
    acc = c.astype(np.float32).copy()
    for k in range(a.shape[1]):
        acc = (acc + (a[:, k][:, None] * b[k, :][None, :]).astype(np.float32)).astype(np.float32)
    return acc


def rna_tf32(x):
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return (((bits + 0x1000) & 0xFFFFE000).astype(np.uint32)).view(np.float32)


def save(name, **arrays):
    for k, v in arrays.items():
        np.save(os.path.join(HERE, f"{name}_{k}.npy"), v)


def case(name, kernel, types, M, N, K, block, with_c=True):
    args = ['{ buffer = "a" }', '{ buffer = "b" }']
    if with_c:
        args.append('{ buffer = "c" }')
    args += ['{ buffer = "d" }', f"{{ s32 = {M} }}", f"{{ s32 = {N} }}", f"{{ s32 = {K} }}"]
    bufs = ""
    for t in ("a", "b") + (("c",) if with_c else ()):
        bufs += f'\n[buffers.{t}]\ntype = "{types[t]}"\ninit = {{ file = "{name}_{t}.npy" }}\n'
    text = f"""# nvcuda::wmma through NVRTC ({kernel} in wmma.cu): D = A·B + C, M, N, K = {M}, {N}, {K}.
# Inputs and expected values written by gen.py (numpy).
ptx = "wmma.ptx"
kernel = "{kernel}"
grid = [1]
block = [{block}]
args = [{", ".join(args)}]
{bufs}
[buffers.d]
type = "{types['d']}"
len = {M * N}

[expect.d]
file = "{name}_d.npy"
tolerance = "exact"
"""
    with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
        f.write(text)


# f16 → f32, m16n16k16.
M, N, K = 32, 32, 64
A = rng.uniform(-2, 2, (M, K)).astype(np.float16)
B = rng.uniform(-2, 2, (K, N)).astype(np.float16)
C = rng.uniform(-4, 4, (M, N)).astype(np.float32)
D = seq_f32(A.astype(np.float32), B.astype(np.float32), C)
save("wmma_f16", a=A.reshape(-1), b=B.T.copy().reshape(-1), c=C.reshape(-1), d=D.reshape(-1))
case("wmma_f16", "wmma_f16", {"a": "f16", "b": "f16", "c": "f32", "d": "f32"}, M, N, K, 128)

# tf32 → f32, m16n16k8.
M, N, K = 32, 32, 32
A = rng.uniform(-2, 2, (M, K)).astype(np.float32)
B = rng.uniform(-2, 2, (K, N)).astype(np.float32)
C = rng.uniform(-4, 4, (M, N)).astype(np.float32)
D = seq_f32(rna_tf32(A), rna_tf32(B), C)
save("wmma_tf32", a=A.reshape(-1), b=B.T.copy().reshape(-1), c=C.reshape(-1), d=D.reshape(-1))
case("wmma_tf32", "wmma_tf32", {"a": "f32", "b": "f32", "c": "f32", "d": "f32"}, M, N, K, 128)

# s8 → s32, m16n16k16, D column-major.
M, N, K = 32, 32, 64
A = rng.integers(-128, 128, (M, K)).astype(np.int8)
B = rng.integers(-128, 128, (K, N)).astype(np.int8)
D = A.astype(np.int64) @ B.astype(np.int64)
save("wmma_s8", a=A.reshape(-1), b=B.T.copy().reshape(-1), d=D.T.copy().reshape(-1).astype(np.int32))
case("wmma_s8", "wmma_s8", {"a": "s8", "b": "s8", "d": "s32"}, M, N, K, 128, with_c=False)

# f64, m8n8k4.
M, N, K = 16, 16, 16
A = rng.integers(-63, 64, (M, K)) / 8.0
B = rng.integers(-63, 64, (K, N)) / 8.0
C = rng.integers(-63, 64, (M, N)) / 8.0
D = A @ B + C
save("wmma_f64", a=A.reshape(-1), b=B.T.copy().reshape(-1), c=C.reshape(-1), d=D.reshape(-1))
case("wmma_f64", "wmma_f64", {"a": "f64", "b": "f64", "c": "f64", "d": "f64"}, M, N, K, 128)

# f16 inputs, f16 accumulator, m32n8k16: each step fma.rn.f16.
M, N, K = 64, 16, 32
A = rng.uniform(-1, 1, (M, K)).astype(np.float16)
B = rng.uniform(-1, 1, (K, N)).astype(np.float16)
C = rng.uniform(-2, 2, (M, N)).astype(np.float16)
acc = C.copy()
for k in range(K):
    exact = A[:, k][:, None].astype(np.float64) * B[k, :][None, :].astype(np.float64) + acc.astype(np.float64)
    acc = exact.astype(np.float16)
save("wmma_f16_m32n8", a=A.reshape(-1), b=B.T.copy().reshape(-1), c=C.reshape(-1), d=acc.reshape(-1))
case("wmma_f16_m32n8", "wmma_f16_m32n8", {"a": "f16", "b": "f16", "c": "f16", "d": "f16"}, M, N, K, 128)

# bf16 inputs, f32 accumulator, m8n32k16; A column-major, B row-major.
M, N, K = 16, 64, 32
A = rng.uniform(-2, 2, (M, K)).astype(np.float32)
B = rng.uniform(-2, 2, (K, N)).astype(np.float32)
A = ((A.view(np.uint32) >> 16) << 16).view(np.float32)  # exact bf16 values
B = ((B.view(np.uint32) >> 16) << 16).view(np.float32)
C = rng.uniform(-4, 4, (M, N)).astype(np.float32)
D = seq_f32(A, B, C)
save("wmma_bf16_m8n32", a=(A.T.copy().reshape(-1).view(np.uint32) >> 16).astype(np.uint16),
     b=(B.reshape(-1).view(np.uint32) >> 16).astype(np.uint16), c=C.reshape(-1), d=D.reshape(-1))
case("wmma_bf16_m8n32", "wmma_bf16_m8n32", {"a": "u16", "b": "u16", "c": "f32", "d": "f32"}, M, N, K, 128)

# u8 inputs, s32 accumulator, m32n8k16.
M, N, K = 64, 16, 48
A = rng.integers(0, 256, (M, K)).astype(np.uint8)
B = rng.integers(0, 256, (K, N)).astype(np.uint8)
C = rng.integers(-100000, 100000, (M, N)).astype(np.int32)
D = (C.astype(np.int64) + A.astype(np.int64) @ B.astype(np.int64)).astype(np.int32)
save("wmma_u8_m32n8", a=A.reshape(-1), b=B.T.copy().reshape(-1), c=C.reshape(-1), d=D.reshape(-1))
case("wmma_u8_m32n8", "wmma_u8_m32n8", {"a": "u8", "b": "u8", "c": "s32", "d": "s32"}, M, N, K, 128)
