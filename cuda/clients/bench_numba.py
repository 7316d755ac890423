"""End-to-end time of a small numba-cuda program: runs unchanged on ptxjit's libcuda.so.1
(`ptxjit exec -- python3 cuda/clients/bench_numba.py`) and on numba's CUDA simulator
(`NUMBA_ENABLE_CUDASIM=1 python3 cuda/clients/bench_numba.py`). A benchmark, not a test: it
prints the wall time of the whole program (compilation included) and checks its results
against numpy so both runs do the same work."""

import time

T0 = time.perf_counter()

import numpy as np  # noqa: E402
from numba import cuda, float32  # noqa: E402

TPB = 16


@cuda.jit
def matmul(a, b, c):
    sa = cuda.shared.array((TPB, TPB), float32)
    sb = cuda.shared.array((TPB, TPB), float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0.0)
    for t in range(a.shape[1] // TPB):
        sa[ty, tx] = a[y, tx + t * TPB]
        sb[ty, tx] = b[ty + t * TPB, x]
        cuda.syncthreads()
        for k in range(TPB):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[y, x] = acc


@cuda.jit
def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i], 1)


n = 128
rng = np.random.default_rng(0)
a = rng.integers(0, 4, (n, n)).astype(np.float32)
b = rng.integers(0, 4, (n, n)).astype(np.float32)
c = np.zeros((n, n), dtype=np.float32)
matmul[(n // TPB, n // TPB), (TPB, TPB)](a, b, c)
np.testing.assert_array_equal(c, a @ b)  # small integers: exact in f32

data = rng.integers(0, 64, 1 << 16).astype(np.int32)
bins = np.zeros(64, dtype=np.int32)
histogram[(data.size + 255) // 256, 256](data, bins)
np.testing.assert_array_equal(bins, np.bincount(data, minlength=64))

print(f"end-to-end {time.perf_counter() - T0:.2f} s")
