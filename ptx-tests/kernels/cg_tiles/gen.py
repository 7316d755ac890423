#!/usr/bin/env python3
"""Inputs and expected outputs of the cg_tiles cases (cg_tiles.cu), computed on the host with
numpy: per tile of 64 or 128 consecutive threads, the wrapping s32 sum, the maximum, the
element of rank 37, whether any element is a multiple of 97 (C's `%`: sign of the dividend),
and the wrapping sum of the elements XOR 0x5a5a. Run from this directory."""
import numpy as np

GRID, BLOCK = 3, 256
N = GRID * BLOCK

rng = np.random.default_rng(20261203)
x = rng.integers(-(1 << 24), 1 << 24, size=N, dtype=np.int64)
x[100] = 97 * 5  # tile 1 of tile64, tile 0 of tile128
x[700] = -97 * 3  # a negative multiple: tile 10 of tile64, tile 5 of tile128


def wrap(v):
    return ((int(v) + (1 << 31)) % (1 << 32)) - (1 << 31)


def stats(size):
    rows = []
    for t in range(N // size):
        e = x[t * size:(t + 1) * size]
        rows += [wrap(e.sum()), int(e.max()), int(e[37]),
                 int(any(int(v) % 97 == 0 for v in e)),  # Python's % is 0 exactly when C's is
                 wrap(sum(int(v) ^ 0x5A5A for v in e))]
    return np.array(rows, dtype="<i4")


np.save("x.npy", x.astype("<i4"))
np.save("tile64_expected.npy", stats(64))
np.save("tile128_expected.npy", stats(128))
print("tiles with a multiple of 97:", [t for t in range(N // 64) if stats(64)[5 * t + 3]])
