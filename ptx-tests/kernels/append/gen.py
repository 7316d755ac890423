#!/usr/bin/env python3
"""Inputs and expected outputs of append.toml, computed on the host with numpy: the indices
i with in[i] % 3 == 1 (in increasing order; the case compares `out` as a multiset), then the
buffer's initial fill 0xFFFFFFFF in the slots no thread took, and their count. Run from this
directory."""
import numpy as np

N = 8192
rng = np.random.default_rng(7)
x = rng.integers(0, 1 << 32, size=N, dtype=np.uint64).astype("<u4")
hits = np.nonzero(x % 3 == 1)[0].astype("<u4")
out = np.full(N, 0xFFFFFFFF, dtype="<u4")
out[: len(hits)] = hits

np.save("in.npy", x)
np.save("out_expected.npy", out)
print(f"n = {N}, count = {len(hits)}")
