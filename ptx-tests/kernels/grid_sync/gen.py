#!/usr/bin/env python3
"""Inputs and expected outputs of grid_sync.toml (grid_sync.cu), computed on the host with
numpy: `rounds` steps of the ping-pong stencil dst[i] = 3 src[i+1] + src[i-1] + r over all
n = grid x block threads (indices modulo n, values modulo 2^32), then the per-CTA sums of
the last buffer and their total. Run from this directory."""
import numpy as np

GRID, BLOCK, ROUNDS = 12, 64, 7
N = GRID * BLOCK
M = 0xFFFFFFFF

rng = np.random.default_rng(20261201)
x = rng.integers(0, 1 << 32, size=N, dtype=np.uint64)
a, b = x.copy(), np.zeros(N, dtype=np.uint64)
for r in range(ROUNDS):
    src, dst = (b, a) if r & 1 else (a, b)
    dst[:] = (np.roll(src, -1) * 3 + np.roll(src, 1) + r) & M
last = b if ROUNDS & 1 else a
sums = np.array([last[c * BLOCK:(c + 1) * BLOCK].sum() & M for c in range(GRID)] + [0],
                dtype=np.uint64)
sums[GRID] = sums[:GRID].sum() & M

np.save("in.npy", x.astype("<u4"))
np.save("a_expected.npy", a.astype("<u4"))
np.save("b_expected.npy", b.astype("<u4"))
np.save("sums_expected.npy", sums.astype("<u4"))
print(f"n = {N}, total = {sums[GRID]}")
