#!/usr/bin/env python3
"""Writes the inputs and expected outputs of mma_f64_rounding.toml: wmma.mma and mma.sync
m8n8k4 .f64 with each rounding modifier (.rn, .rz, .rm, .rp; PTX ISA §9.7.14.4.4, §9.7.14.5.14).

Inputs have random 52-bit mantissas, so the products and sums round. Expected values: exact
rational arithmetic, D[i][j] = fma(A[i][3], B[3][j], … fma(A[i][0], B[0][j], C[i][j])), each
step's exact a·b + acc rounded once to f64 in the instruction's direction — ptxjit's reading of
the ISA (docs/isa-notes.md, "Matrix instructions": k in increasing order, one rounding per
step). Run: python3 gen.py (writes the .npy files next to it; no numpy needed).
"""
from fractions import Fraction as Q
import math
import random
import struct

rng = random.Random(2026)
M, N, K = 8, 8, 4


def save_u64(path, floats):
    """A little-endian .npy file of the f64 values' bit patterns as uint64 (NPY format 1.0)."""
    header = "{'descr': '<u8', 'fortran_order': False, 'shape': (%d,), }" % len(floats)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(b"".join(struct.pack("<d", x) for x in floats))


def round_f64(x, mode):
    """x (a non-zero Fraction) rounded to f64: 'rn' (nearest even), 'rz', 'rm', 'rp'."""
    if x == 0:
        return 0.0
    neg = x < 0
    a = -x if neg else x
    e = math.floor(math.log2(a.numerator) - math.log2(a.denominator))
    while Q(2) ** e > a:
        e -= 1
    while Q(2) ** (e + 1) <= a:
        e += 1
    ulp = Q(2) ** (max(e, -1022) - 52)
    q = a / ulp
    fl = q.numerator // q.denominator
    if q == fl:
        n = fl
    elif mode == "rn":
        n = round(q)
    elif mode == "rz":
        n = fl
    elif mode == "rm":
        n = fl + 1 if neg else fl
    else:  # rp
        n = fl if neg else fl + 1
    r = float(n * ulp)
    return -r if neg else r


def fma(a, b, c, mode):
    exact = Q(a) * Q(b) + Q(c)
    if exact == 0:
        # IEEE 754: an exact zero sum of opposite signs is +0, or -0 rounding down.
        return -0.0 if mode == "rm" else 0.0
    return round_f64(exact, mode)


def rand(rows, cols):
    """Random f64 values: 52 random mantissa bits, exponents -3..3, random signs."""
    return [[rng.choice((-1.0, 1.0)) * math.ldexp(1 + rng.random(), rng.randint(-3, 3))
             for _ in range(cols)] for _ in range(rows)]


A, B, C = rand(M, K), rand(K, N), rand(M, N)
save_u64("a.npy", [A[i][k] for i in range(M) for k in range(K)])  # row-major 8x4
save_u64("b.npy", [B[k][j] for j in range(N) for k in range(K)])  # column-major 4x8
save_u64("c.npy", [C[i][j] for i in range(M) for j in range(N)])  # row-major 8x8
ds = []
for mode in ("rn", "rz", "rm", "rp"):
    D = []
    for i in range(M):
        for j in range(N):
            acc = C[i][j]
            for k in range(K):
                acc = fma(A[i][k], B[k][j], acc, mode)
            D.append(acc)
    ds.append(D)
# d: the four results, row-major, in the order rn, rz, rm, rp.
save_u64("d.npy", [x for d in ds for x in d])
# The modes must differ, or the case could not tell them apart.
assert ds[1] != ds[3] and ds[0] != ds[2] and ds[0] != ds[1]
