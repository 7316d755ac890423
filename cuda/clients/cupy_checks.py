"""CuPy on ptxjit's drop-in libcuda.so.1, each result compared with numpy. Not run by CI (the
wheels are large); run by hand:

    python3 -m venv /tmp/cupy-venv && /tmp/cupy-venv/bin/pip install "cupy-cuda12x[ctk]==14.2.0"
    target/release/ptxjit exec -- /tmp/cupy-venv/bin/python cuda/clients/cupy_checks.py

`ptxjit exec` sets CUPY_COMPILE_WITH_PTX=1 (CuPy's kernels as PTX, not SASS); CuPy's prebuilt
CUB, Thrust and cuRAND kernels run from their compute_100 PTX in place of their SASS (README,
"Unmodified CUDA programs"). cuBLAS cannot run: its check expects CuPy's CUBLASError.
Ends with 'N passed, M failed'."""

import os
import sys

import numpy as np
import cupy as cp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run_checks  # noqa: E402

@check
def creation():
    a = cp.arange(1000, dtype=cp.float32)
    np.testing.assert_array_equal(cp.asnumpy(a), np.arange(1000, dtype=np.float32))
    z = cp.zeros((3,4)); o = cp.ones(5, dtype=cp.int64); f = cp.full(7, 3.5)
    assert cp.asnumpy(z).sum()==0 and cp.asnumpy(o).sum()==5 and cp.asnumpy(f).sum()==24.5
    x = np.random.rand(100).astype(np.float64)
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(x)), x)
    l = cp.linspace(0, 1, 11); np.testing.assert_allclose(cp.asnumpy(l), np.linspace(0,1,11))

@check
def elementwise():
    x = np.random.rand(10000).astype(np.float32); y = np.random.rand(10000).astype(np.float32)
    gx, gy = cp.asarray(x), cp.asarray(y)
    np.testing.assert_allclose(cp.asnumpy(gx*2+gy), x*2+y, rtol=1e-6)
    np.testing.assert_allclose(cp.asnumpy(cp.sin(gx)), np.sin(x), rtol=1e-5)
    np.testing.assert_allclose(cp.asnumpy(cp.exp(gx)), np.exp(x), rtol=1e-5)
    np.testing.assert_allclose(cp.asnumpy(cp.sqrt(gx)), np.sqrt(x), rtol=1e-6)
    np.testing.assert_allclose(cp.asnumpy(cp.maximum(gx, gy)), np.maximum(x, y))
    np.testing.assert_allclose(cp.asnumpy(gx / gy), x / y, rtol=1e-6)
    a = np.arange(-50, 50, dtype=np.int32)
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(a) // 7), a // 7)
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(a) % 7), a % 7)
    m = np.random.rand(30, 40); v = np.random.rand(40)
    np.testing.assert_allclose(cp.asnumpy(cp.asarray(m) + cp.asarray(v)), m + v)
    np.testing.assert_allclose(cp.asnumpy(cp.asarray(m).T.copy()), m.T)
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(x).astype(cp.int32)), x.astype(np.int32))

@check
def elementwise_kernel():
    k = cp.ElementwiseKernel('float32 x, float32 y', 'float32 z', 'z = (x - y) * (x - y)', 'squared_diff')
    x = np.random.rand(5000).astype(np.float32); y = np.random.rand(5000).astype(np.float32)
    np.testing.assert_allclose(cp.asnumpy(k(cp.asarray(x), cp.asarray(y))), (x-y)**2, rtol=1e-6)
    k2 = cp.ElementwiseKernel('T x, T y', 'T z', 'z = x > y ? x : y', 'mymax')
    a = np.arange(100, dtype=np.int64); b = a[::-1].copy()
    np.testing.assert_array_equal(cp.asnumpy(k2(cp.asarray(a), cp.asarray(b))), np.maximum(a, b))

@check
def reduction_kernel():
    l2 = cp.ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0', 'l2norm')
    x = np.random.rand(100000).astype(np.float64)
    np.testing.assert_allclose(float(l2(cp.asarray(x))), np.sqrt((x*x).sum()), rtol=1e-10)
    m = np.random.rand(50, 300)
    np.testing.assert_allclose(cp.asnumpy(l2(cp.asarray(m), axis=1)), np.sqrt((m*m).sum(axis=1)), rtol=1e-10)

@check
def reductions():
    x = np.random.rand(100003).astype(np.float32)
    g = cp.asarray(x)
    np.testing.assert_allclose(float(g.sum()), x.sum(dtype=np.float64), rtol=1e-4)
    assert float(g.max()) == x.max(), (float(g.max()), x.max())
    assert float(g.min()) == x.min()
    assert int(g.argmax()) == int(x.argmax()), (int(g.argmax()), int(x.argmax()))
    assert int(g.argmin()) == int(x.argmin())
    i = np.random.randint(0, 1000, 100000).astype(np.int64)
    assert int(cp.asarray(i).sum()) == int(i.sum())
    m = np.random.rand(64, 1000)
    np.testing.assert_allclose(cp.asnumpy(cp.asarray(m).sum(axis=0)), m.sum(axis=0), rtol=1e-10)
    np.testing.assert_allclose(cp.asnumpy(cp.asarray(m).mean(axis=1)), m.mean(axis=1), rtol=1e-10)
    np.testing.assert_allclose(float(cp.asarray(m).std()), m.std(), rtol=1e-8)
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(m).argmax(axis=1)), m.argmax(axis=1))
    np.testing.assert_allclose(cp.asnumpy(cp.cumsum(cp.asarray(i))), np.cumsum(i))

@check
def fancy_indexing():
    x = np.random.rand(1000); idx = np.random.randint(0, 1000, 300)
    g = cp.asarray(x)
    np.testing.assert_array_equal(cp.asnumpy(g[cp.asarray(idx)]), x[idx])
    mask = x > 0.5
    np.testing.assert_array_equal(cp.asnumpy(g[cp.asarray(mask)]), x[mask])
    g2 = g.copy(); g2[cp.asarray(idx)] = -1; x2 = x.copy(); x2[idx] = -1
    np.testing.assert_array_equal(cp.asnumpy(g2), x2)
    np.testing.assert_array_equal(cp.asnumpy(cp.where(g > 0.5, g, 0)), np.where(x > 0.5, x, 0))
    np.testing.assert_array_equal(cp.asnumpy(cp.nonzero(g > 0.9)[0]), np.nonzero(x > 0.9)[0])
    m = np.arange(60).reshape(6, 10)
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(m)[1:5:2, ::3]), m[1:5:2, ::3])
    np.testing.assert_array_equal(cp.asnumpy(cp.take(cp.asarray(m), cp.asarray([1, 3]), axis=1)), np.take(m, [1, 3], axis=1))

RAW = r'''
extern "C" __global__ void hist(const int* x, int n, unsigned int* bins) {
    __shared__ unsigned int local[64];
    for (int i = threadIdx.x; i < 64; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[x[i] & 63], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 64; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}
extern "C" __global__ void block_sum(const float* x, int n, float* out) {
    extern __shared__ float s[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
'''

@check
def raw_kernel():
    k = cp.RawKernel(r'''
extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }''', 'add')
    a = np.random.rand(1000).astype(np.float32); b = np.random.rand(1000).astype(np.float32)
    c = cp.empty(1000, dtype=cp.float32)
    k((4,), (256,), (cp.asarray(a), cp.asarray(b), c, np.int32(1000)))
    np.testing.assert_array_equal(cp.asnumpy(c), a + b)

@check
def raw_module_shared_atomics():
    mod = cp.RawModule(code=RAW)
    hist = mod.get_function('hist'); bs = mod.get_function('block_sum')
    x = np.random.randint(0, 1 << 20, 50000).astype(np.int32)
    bins = cp.zeros(64, dtype=cp.uint32)
    hist((8,), (128,), (cp.asarray(x), np.int32(x.size), bins))
    np.testing.assert_array_equal(cp.asnumpy(bins), np.bincount(x & 63, minlength=64))
    f = np.random.rand(10000).astype(np.float32)
    out = cp.zeros(1, dtype=cp.float32)
    bs(((10000 + 255) // 256,), (256,), (cp.asarray(f), np.int32(10000), out), shared_mem=256 * 4)
    np.testing.assert_allclose(float(out[0]), f.sum(dtype=np.float64), rtol=1e-4)

@check
def raw_module_templates():
    code = r'''
template<typename T> __global__ void scale(T* x, T s, int n) { int i = blockIdx.x*blockDim.x+threadIdx.x; if (i<n) x[i] *= s; }
'''
    mod = cp.RawModule(code=code, options=('-std=c++11',), name_expressions=['scale<float>', 'scale<double>'])
    k = mod.get_function('scale<double>')
    x = np.random.rand(300); g = cp.asarray(x)
    k((2,), (256,), (g, np.float64(3.0), np.int32(300)))
    np.testing.assert_allclose(cp.asnumpy(g), x * 3.0)

@check
def streams_events():
    s = cp.cuda.Stream(non_blocking=True)
    x = np.random.rand(100000).astype(np.float32)
    with s:
        g = cp.asarray(x); y = g * 2
        e1 = cp.cuda.Event(); e1.record()
        z = cp.sqrt(y)
        e2 = cp.cuda.Event(); e2.record()
    e2.synchronize()
    t = cp.cuda.get_elapsed_time(e1, e2)
    assert t >= 0
    s.synchronize()
    np.testing.assert_allclose(cp.asnumpy(z), np.sqrt(x * 2), rtol=1e-6)
    assert s.done
    s2 = cp.cuda.Stream()
    with s2:
        h = cp.cuda.alloc_pinned_memory(x.nbytes)
        dst = np.frombuffer(h, np.float32, x.size)
        g.get(stream=s2, out=dst)
    s2.synchronize()
    np.testing.assert_array_equal(dst, x)
    ev = cp.cuda.Event(); ev.record(s); s2.wait_event(ev)
    cp.cuda.Device().synchronize()

@check
def memory_pools():
    mp = cp.get_default_memory_pool(); pp = cp.get_default_pinned_memory_pool()
    a = cp.zeros(1 << 20, dtype=cp.float32)
    assert mp.used_bytes() >= 4 << 20, mp.used_bytes()
    del a
    mp.free_all_blocks(); pp.free_all_blocks()
    free, total = cp.cuda.runtime.memGetInfo()
    assert 0 < free <= total
    # stream-ordered allocator
    cp.cuda.set_allocator(cp.cuda.MemoryAsyncPool().malloc)
    b = cp.arange(1000); assert int(b.sum()) == 499500
    cp.cuda.set_allocator(mp.malloc)

@check
def sort_and_unique():
    x = np.random.rand(5000).astype(np.float32)
    np.testing.assert_array_equal(cp.asnumpy(cp.sort(cp.asarray(x))), np.sort(x))
    i = np.random.randint(0, 50, 1000)
    np.testing.assert_array_equal(cp.asnumpy(cp.unique(cp.asarray(i))), np.unique(i))
    np.testing.assert_array_equal(cp.asnumpy(cp.argsort(cp.asarray(x))), np.argsort(x, kind='stable'))

@check
def device_props():
    d = cp.cuda.Device(0)
    assert d.compute_capability == "80", d.compute_capability
    assert cp.cuda.runtime.getDeviceProperties(0)["name"] == b"ptxjit (CPU)"
    # CuPy's linked-in CUDA 12.9 runtime, on the driver's CUDA 13.5
    assert cp.cuda.runtime.runtimeGetVersion() == 12090, cp.cuda.runtime.runtimeGetVersion()
    assert cp.cuda.runtime.driverGetVersion() == 13050

@check
def cublas_is_refused_with_a_reason():
    # cuBLAS's matrix kernels are SASS alone: CuPy's matmul raises, and ptxjit's stderr line
    # (checked by hand: `ptxjit: cuBLAS (libcublas.so.12) does not run on ptxjit: ...`) says why.
    a = cp.ones((4, 4), dtype=cp.float32)
    try:
        a @ a
    except Exception as e:  # noqa: BLE001 - cupy_backends' CUBLASError
        assert type(e).__name__ == "CUBLASError", repr(e)
        return
    raise AssertionError("cuBLAS ran")

@check
def random():
    r = cp.asnumpy(cp.random.rand(10000))
    assert r.shape == (10000,) and 0.0 <= r.min() and r.max() < 1.0
    assert abs(r.mean() - 0.5) < 0.02, r.mean()  # uniform on [0, 1)
    cp.random.seed(7); x = cp.asnumpy(cp.random.standard_normal(1000))
    cp.random.seed(7); y = cp.asnumpy(cp.random.standard_normal(1000))
    np.testing.assert_array_equal(x, y)


if __name__ == "__main__":
    sys.exit(run_checks())
