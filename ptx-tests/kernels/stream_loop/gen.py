"""Inputs and expected outputs of the stream_loop cases, computed on the host with numpy
from the kernels' definitions in stream_loop.ptx. Run from this directory: python3 gen.py"""
import numpy as np

rng = np.random.default_rng(20261204)


def save(name, a):
    np.save(name, a)


# scale_copy: out[i] = a * in[i] + out[i] (float32 multiply, then float32 add, each rounded
# to nearest) for i < n; the rest keeps its initial value.
A = np.float32(2.5)
for case, n, size in [("ntid80", 800, 800), ("mid_warp", 1000, 1280)]:
    x = rng.uniform(-1000, 1000, size=size).astype(np.float32)
    y = rng.uniform(-1000, 1000, size=size).astype(np.float32)
    out = y.copy()
    out[:n] = (x[:n] * A).astype(np.float32) + y[:n]
    save(f"{case}_in.npy", x)
    save(f"{case}_out_in.npy", y)
    save(f"{case}_expected.npy", out)

# sparse_exit: out[i] = in[i] + 1 for i < n unless tid.x % 5 == 3 (ntid.x = 96); the rest
# keeps its fill (-1).
n, ntid, size = 900, 96, 960
x = rng.uniform(-1000, 1000, size=size).astype(np.float32)
out = np.full(size, -1, dtype=np.float32)
for i in range(n):
    if (i % ntid) % 5 != 3:
        out[i] = x[i] + np.float32(1)
save("sparse_in.npy", x)
save("sparse_expected.npy", out)

# bad_index: inputs only (the cases expect a fault).
save("bad_in.npy", rng.uniform(-1000, 1000, size=1024).astype(np.float32))

# warp_ids: out[i] = i's warp in its CTA, (i % 256) // 32, for i < 2000 (8 CTAs of 256
# threads: the last CTA holds the end, so its warps take the per-warp path); the rest keeps
# its fill (0xdeadbeef). warp_ids_call: the same plus the sum of i's four bytes (dp4a with
# 0x01010101, each byte unsigned).
n, ntid, size = 2000, 256, 2048
i = np.arange(size, dtype=np.uint32)
warp = (i % ntid) // 32
fill = np.uint32(0xDEADBEEF)
out = np.where(i < n, warp, fill).astype(np.uint32)
save("warp_ids_expected.npy", out)
byte_sum = (i & 0xFF) + ((i >> 8) & 0xFF) + ((i >> 16) & 0xFF) + (i >> 24)
out = np.where(i < n, byte_sum + warp, fill).astype(np.uint32)
save("warp_ids_call_expected.npy", out)

# chain: scale_copy over 37 752 floats in 600 CTAs of 64 threads (two full warps): large
# enough that a worker's batches hold several CTAs, whose warps the stream loop runs one CTA
# after another in one call; n ends in lane 24 of CTA 589's warp 1. The inputs are the case's
# `iota` initialisers (element i is S + i·D computed in float64, then rounded to float32).
n, size = 37752, 38400
i = np.arange(size, dtype=np.float64)
x = (-1000.0 + i * 0.05).astype(np.float32)
y = (7.0 + i * -0.03).astype(np.float32)
out = y.copy()
out[:n] = (x[:n] * A).astype(np.float32) + y[:n]
save("chain_expected.npy", out)
