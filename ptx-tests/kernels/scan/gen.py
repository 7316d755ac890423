#!/usr/bin/env python3
"""Inputs and expected outputs of scan.toml (the scan.cu + uniform_add.cu pipeline), computed
on the host with numpy: the inclusive prefix sum of `in` modulo 2^32, and the exclusive prefix
sum of the 256-element chunk totals the pipeline leaves in `sums`. Run from this directory."""
import numpy as np

N, CHUNK = 50000, 256
CHUNKS = (N + CHUNK - 1) // CHUNK  # 196

rng = np.random.default_rng(20261201)
x = rng.integers(0, 1 << 24, size=N, dtype=np.uint64)
# Unsigned 32-bit arithmetic: sums wrap modulo 2^32 (exact in uint64 first, then reduced).
out = (np.cumsum(x) & 0xFFFFFFFF).astype("<u4")
totals = np.array([x[c * CHUNK:(c + 1) * CHUNK].sum() for c in range(CHUNKS)], dtype=np.uint64)
sums = ((np.cumsum(totals) - totals) & 0xFFFFFFFF).astype("<u4")

np.save("in.npy", x.astype("<u4"))
np.save("out_expected.npy", out)
np.save("sums_expected.npy", sums)
print(f"n = {N}, chunks = {CHUNKS}, out[-1] = {out[-1]}")
