#!/usr/bin/env python3
"""Inputs and expected outputs of radix_count.toml (radix_count.cu): per CTA of 128 keys, how
many of its keys (index < n) have each 4-bit digit at bit `shift`, by numpy. Run from this
directory."""
import numpy as np

N, BLOCK, GRID, SHIFT, RADIX = 1000, 128, 8, 4, 16
rng = np.random.default_rng(20261210)
keys = rng.integers(0, 1 << 32, size=GRID * BLOCK, dtype=np.uint64).astype(np.uint32)
keys[:40] = 0x50  # a run of one digit (5): a warp whose lanes mostly agree
counts = np.zeros((GRID, RADIX), dtype=np.uint32)
for i in range(N):
    counts[i // BLOCK, (int(keys[i]) >> SHIFT) & (RADIX - 1)] += 1
np.save("keys.npy", keys)
np.save("counts_expected.npy", counts.reshape(-1))
