"""Host reference for big_shared.toml: kernel gather_sums over n = 25600 words of dynamic
shared memory (100 KiB) with 256 threads; in[i] = 3 + 7 i (the case's iota, u32).

out[t] = sum over i = t, t + 256, ... < n of in[n-1-i], modulo 2^32.
Writes sums_expected.npy (256 x <u4). Run: python3 big_shared_ref.py
"""
import numpy as np

N, THREADS = 25600, 256
inp = (3 + 7 * np.arange(N, dtype=np.uint64)) % 2**32
out = np.zeros(THREADS, dtype=np.uint64)
for t in range(THREADS):
    out[t] = inp[N - 1 - np.arange(t, N, THREADS)].sum() % 2**32
np.save("sums_expected.npy", out.astype("<u4"))
