#!/usr/bin/env python3
"""Writes the inputs and expected outputs of the sub-byte WMMA cases (wmma_*.toml) for
wmma_subbyte.cu, whose PTX (wmma_subbyte.ptx) NVRTC 12.9 generated:
    ptxjit compile wmma_subbyte.cu -o wmma_subbyte.ptx --arch compute_80 -I <cuda_nvcc>/include

D = A·B + C with A row-major M×K, B column-major (column n's K elements contiguous), C
row-major M×N; D row-major (s4/u4) or column-major (b1). Elements are packed into bytes with
the first element in the least significant bits (two 4-bit elements or eight bits per byte).
Expected values from numpy integer arithmetic (exact): s4/u4 products summed in int64 (no
overflow at these sizes); b1 `.xor.popc` counts the k where A and B differ, `.and.popc` the k
where both are 1 (PTX ISA §9.7.14.4.4).

Run: python3 gen.py (numpy)
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(23)


def pack4(x):
    x = (x.reshape(-1) & 0xF).astype(np.uint8)
    return (x[0::2] | (x[1::2] << 4)).astype(np.uint8)


def pack1(x):
    x = x.reshape(-1).astype(np.uint8)
    out = np.zeros(len(x) // 8, np.uint8)
    for j in range(8):
        out |= (x[j::8] << j).astype(np.uint8)
    return out


def save(name, **arrays):
    for k, v in arrays.items():
        np.save(os.path.join(HERE, f"{name}_{k}.npy"), v)


def case(name, kernel, M, N, K, what):
    text = f"""# nvcuda::wmma sub-byte API through NVRTC ({kernel} in wmma_subbyte.cu): {what},
# M, N, K = {M}, {N}, {K}. Inputs and expected values written by gen.py (numpy).
ptx = "wmma_subbyte.ptx"
kernel = "{kernel}"
grid = [1]
block = [{M // 8 * N // 8 * 32}]
args = [{{ buffer = "a" }}, {{ buffer = "b" }}, {{ buffer = "c" }}, {{ buffer = "d" }}, {{ s32 = {M} }}, {{ s32 = {N} }}, {{ s32 = {K} }}]

[buffers.a]
type = "u8"
init = {{ file = "{name}_a.npy" }}

[buffers.b]
type = "u8"
init = {{ file = "{name}_b.npy" }}

[buffers.c]
type = "s32"
init = {{ file = "{name}_c.npy" }}

[buffers.d]
type = "s32"
len = {M * N}

[expect.d]
file = "{name}_d.npy"
tolerance = "exact"
"""
    with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
        f.write(text)


M, N = 16, 16
for ty, lo, hi in (("s4", -8, 8), ("u4", 0, 16)):
    K = 128
    A = rng.integers(lo, hi, (M, K), dtype=np.int64)
    B = rng.integers(lo, hi, (K, N), dtype=np.int64)
    C = rng.integers(-1000, 1000, (M, N), dtype=np.int64)
    D = A @ B + C
    name = f"wmma_{ty}"
    save(name, a=pack4(A), b=pack4(B.T.copy()), c=C.reshape(-1).astype(np.int32),
         d=D.reshape(-1).astype(np.int32))
    case(name, name, M, N, K, f".{ty} × .{ty} → .s32, .m8n8k32, D row-major")

K = 512
A = rng.integers(0, 2, (M, K), dtype=np.int64)
B = rng.integers(0, 2, (K, N), dtype=np.int64)
C = rng.integers(-1000, 1000, (M, N), dtype=np.int64)
for op in ("xor", "and"):
    if op == "xor":
        D = (A[:, :, None] != B[None, :, :]).sum(axis=1) + C
    else:
        D = (A[:, :, None] & B[None, :, :]).sum(axis=1) + C
    name = f"wmma_b1_{op}"
    save(name, a=pack1(A), b=pack1(B.T.copy()), c=C.reshape(-1).astype(np.int32),
         d=D.T.copy().reshape(-1).astype(np.int32))
    case(name, name, M, N, K, f".b1 .{op}.popc → .s32, .m8n8k128, D column-major")
