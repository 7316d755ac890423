"""numba-cuda programs, unmodified, on ptxjit's libcuda.so.1.

Run: ptxjit exec -- python3 cuda/clients/numba_kernels.py   (numba-cuda installed as in
cuda/clients/requirements.txt). Every check compares with numpy on the host. Prints one line
per check and ends with 'N passed, M failed'; exits 1 if any failed.
"""

import math
import os
import sys

import numpy as np
from numba import cuda, float32, int32, vectorize

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run_checks  # noqa: E402


@check
def device_arrays_and_transfers():
    @cuda.jit
    def axpy(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    n = 10_000
    rng = np.random.default_rng(1)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    axpy[(n + 255) // 256, 256](np.float32(2.5), x, y, out)  # automatic transfers
    # NVVM contracts a * x + y into one fma.rn.f32 (as on a GPU): one rounding instead of
    # numpy's two, so the results may differ from numpy's by one unit in the last place.
    np.testing.assert_array_max_ulp(out, np.float32(2.5) * x + y, maxulp=1)
    exact = (np.float64(2.5) * x.astype(np.float64) + y).astype(np.float32)
    assert np.count_nonzero(out != exact) < n // 100, "mostly the exactly rounded result"
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    dout = cuda.device_array_like(out)
    axpy[(n + 255) // 256, 256](np.float32(-1.0), dx, dy, dout)
    np.testing.assert_array_equal(dout.copy_to_host(), y - x)


@check
def shared_memory_and_syncthreads():
    tpb = 128

    @cuda.jit
    def block_sum(x, out):
        s = cuda.shared.array(tpb, float32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        s[t] = x[i] if i < x.size else 0
        cuda.syncthreads()
        stride = tpb // 2
        while stride > 0:
            if t < stride:
                s[t] += s[t + stride]
            cuda.syncthreads()
            stride //= 2
        if t == 0:
            out[cuda.blockIdx.x] = s[0]

    x = np.arange(1000, dtype=np.float32)
    blocks = (x.size + tpb - 1) // tpb
    out = np.zeros(blocks, dtype=np.float32)
    block_sum[blocks, tpb](x, out)
    want = np.array([x[b * tpb:(b + 1) * tpb].sum() for b in range(blocks)], dtype=np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-6)


@check
def atomics_histogram():
    @cuda.jit
    def hist(data, bins):
        i = cuda.grid(1)
        if i < data.size:
            cuda.atomic.add(bins, data[i] % bins.size, 1)

    data = np.random.default_rng(2).integers(0, 1000, 50_000).astype(np.int32)
    bins = np.zeros(16, dtype=np.int32)
    hist[(data.size + 255) // 256, 256](data, bins)
    np.testing.assert_array_equal(bins, np.bincount(data % 16, minlength=16))


@check
def warp_shuffle_reduction():
    @cuda.jit
    def warp_sum(x, out):
        i = cuda.grid(1)
        v = x[i]
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
            off //= 2
        if cuda.laneid == 0:
            out[i // 32] = v

    x = np.arange(256, dtype=np.int32)
    out = np.zeros(8, dtype=np.int32)
    warp_sum[2, 128](x, out)
    np.testing.assert_array_equal(out, x.reshape(8, 32).sum(axis=1))


@check
def libdevice_math():
    @cuda.jit
    def f(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = math.sin(x[i]) * math.exp(-x[i]) + math.sqrt(x[i])

    x = np.linspace(0, 4, 1000)
    out = np.zeros_like(x)
    f[4, 256](x, out)
    np.testing.assert_allclose(out, np.sin(x) * np.exp(-x) + np.sqrt(x), rtol=1e-13)


@check
def reduce_decorator():
    total = cuda.reduce(lambda a, b: a + b)
    x = np.arange(12345, dtype=np.int64)
    assert total(x) == x.sum(), total(x)


@check
def vectorize_cuda():
    @vectorize(["float32(float32, float32)"], target="cuda")
    def hypot(a, b):
        return math.sqrt(a * a + b * b)

    a = np.random.default_rng(3).random(1000, dtype=np.float32)
    b = np.random.default_rng(4).random(1000, dtype=np.float32)
    np.testing.assert_allclose(hypot(a, b), np.sqrt(a * a + b * b), rtol=1e-6)


@check
def streams_events_pinned():
    @cuda.jit
    def double(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= 2

    s = cuda.stream()
    host = cuda.pinned_array(4096, dtype=np.float64)
    host[:] = np.arange(4096)
    start, end = cuda.event(), cuda.event()
    start.record(s)
    d = cuda.to_device(host, stream=s)
    double[16, 256, s](d)
    d.copy_to_host(host, stream=s)
    end.record(s)
    s.synchronize()
    end.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0
    np.testing.assert_array_equal(host, 2 * np.arange(4096))


@check
def mapped_and_managed_arrays():
    @cuda.jit
    def inc(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1

    m = cuda.mapped_array(1000, dtype=np.int32)
    m[:] = np.arange(1000)
    inc[4, 256](m)
    cuda.synchronize()
    np.testing.assert_array_equal(m, np.arange(1000) + 1)
    u = cuda.managed_array(1000, dtype=np.int32)
    u[:] = 7
    inc[4, 256](u)
    cuda.synchronize()
    np.testing.assert_array_equal(u, np.full(1000, 8))


@check
def two_dimensional_grid():
    @cuda.jit
    def transpose(a, out):
        x, y = cuda.grid(2)
        if x < a.shape[1] and y < a.shape[0]:
            out[x, y] = a[y, x]

    a = np.arange(37 * 53, dtype=np.int32).reshape(37, 53)
    out = np.zeros((53, 37), dtype=np.int32)
    transpose[(4, 3), (16, 16)](a, out)
    np.testing.assert_array_equal(out, a.T)


@check
def cooperative_grid_sync():
    # cg.this_grid().sync() makes numba launch cooperatively (cuLaunchCooperativeKernel) and
    # call cudaCGGetIntrinsicHandle / cudaCGSynchronize, which ptxjit supplies. Each round
    # reads what other blocks wrote in the round before.
    @cuda.jit
    def rounds(a, b, n_rounds):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        n = a.size
        for r in range(n_rounds):
            g.sync()
            if r % 2 == 0:
                b[i] = a[(i + 1) % n] * 3 + a[(i + n - 1) % n] + r
            else:
                a[i] = b[(i + 1) % n] * 3 + b[(i + n - 1) % n] + r

    blocks, threads, n_rounds = 6, 64, 5
    a0 = np.arange(blocks * threads, dtype=np.int64) * 7 - 100
    d_a, d_b = cuda.to_device(a0), cuda.to_device(np.zeros_like(a0))
    rounds[blocks, threads](d_a, d_b, n_rounds)
    a, b = a0.copy(), np.zeros_like(a0)
    for r in range(n_rounds):
        src, dst = (a, b) if r % 2 == 0 else (b, a)
        dst[:] = np.roll(src, -1) * 3 + np.roll(src, 1) + r
    np.testing.assert_array_equal(d_a.copy_to_host(), a)
    np.testing.assert_array_equal(d_b.copy_to_host(), b)
    # The largest cooperative grid numba computes for this kernel.
    assert rounds.overloads[rounds.signatures[0]].max_cooperative_grid_blocks(threads) >= blocks


@check
def close_frees_dropped_arrays_and_a_new_context_runs():
    # Keep this check last: cuda.close() destroys the context, and numba's per-device caches
    # of kernels (a dispatcher's, cuda.reduce's) still hold the unloaded modules' handles
    # afterwards, on a GPU as here (numba-cuda issue 644), so later checks would fail.
    # close() pops every context and then frees the arrays and destroys the streams and
    # events the program dropped, with no context current: the driver finds their owner.
    @cuda.jit
    def add_one(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    stream, event = cuda.stream(), cuda.event()
    dropped = cuda.to_device(np.arange(1000, dtype=np.int32), stream=stream)
    add_one[4, 256, stream](dropped)
    event.record(stream)
    event.synchronize()
    del dropped, stream, event  # numba defers the frees to the next flush (here: close)
    cuda.close()

    @cuda.jit
    def add_two(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 2

    d = cuda.to_device(np.arange(1000, dtype=np.int32))
    add_two[4, 256](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(1000, dtype=np.int32) + 2)


def main():
    print("device:", getattr(cuda.get_current_device(), "name", "numba CUDA simulator"))
    return run_checks()


if __name__ == "__main__":
    sys.exit(main())
