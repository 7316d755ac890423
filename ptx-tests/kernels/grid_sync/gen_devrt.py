#!/usr/bin/env python3
"""Expected outputs of devrt_sync.toml (devrt_sync.ptx), from the host formulas with numpy:
n = 5 x 96 threads, b[i] = 5 ((i + 1) % n) + 1, a[i] = 2 b[(i + 1) % n]. Run from this
directory."""
import numpy as np

N = 5 * 96
i = np.arange(N, dtype=np.uint64)
b = 5 * ((i + 1) % N) + 1
a = 2 * b[(i + 1) % N]
np.save("devrt_a_expected.npy", a.astype("<u4"))
np.save("devrt_b_expected.npy", b.astype("<u4"))
