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
