"""cuda-python programs, unmodified, on ptxjit's libcuda.so.1: cuda.bindings (NVRTC to PTX,
cuModuleLoadData, cuLaunchKernel) and cuda.core (Program -> PTX, launch). Every result is
compared with numpy. Run: ptxjit exec -- python3 cuda/clients/cuda_python.py
(also under CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1). Ends with 'N passed, M failed'.
"""

import os
import sys

import numpy as np
from cuda.bindings import driver, nvrtc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run_checks  # noqa: E402


def ok(result):
    err, *rest = result
    if isinstance(err, driver.CUresult) and err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"driver error {err}")
    if isinstance(err, nvrtc.nvrtcResult) and err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"nvrtc error {err}")
    return rest[0] if len(rest) == 1 else rest


SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"""


def nvrtc_ptx(source, name):
    prog = ok(nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []))
    opts = [b"--gpu-architecture=compute_80", b"--fmad=false", b"-default-device"]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        size = ok(nvrtc.nvrtcGetProgramLogSize(prog))
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(log.decode())
    size = ok(nvrtc.nvrtcGetPTXSize(prog))
    ptx = b" " * size
    ok(nvrtc.nvrtcGetPTX(prog, ptx))
    return ptx


@check
def bindings_saxpy():
    ok(driver.cuInit(0))
    dev = ok(driver.cuDeviceGet(0))
    name = ok(driver.cuDeviceGetName(64, dev))
    assert name.startswith(b"ptxjit"), name
    ctx = ok(driver.cuDevicePrimaryCtxRetain(dev))
    ok(driver.cuCtxSetCurrent(ctx))
    ptx = nvrtc_ptx(SAXPY, "saxpy.cu")
    module = ok(driver.cuModuleLoadData(ptx))
    kernel = ok(driver.cuModuleGetFunction(module, b"saxpy"))
    n = 4096
    rng = np.random.default_rng(5)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    nbytes = x.nbytes
    dx, dy, dout = (ok(driver.cuMemAlloc(nbytes)) for _ in range(3))
    stream = ok(driver.cuStreamCreate(0))
    ok(driver.cuMemcpyHtoDAsync(dx, x.ctypes.data, nbytes, stream))
    ok(driver.cuMemcpyHtoDAsync(dy, y.ctypes.data, nbytes, stream))
    a = np.array([2.0], dtype=np.float32)
    args = [a, np.array([int(dx)], dtype=np.uint64), np.array([int(dy)], dtype=np.uint64),
            np.array([int(dout)], dtype=np.uint64), np.array([n], dtype=np.uint64)]
    ptrs = np.array([arg.ctypes.data for arg in args], dtype=np.uint64)
    ok(driver.cuLaunchKernel(kernel, n // 256, 1, 1, 256, 1, 1, 0, stream, ptrs.ctypes.data, 0))
    ok(driver.cuMemcpyDtoHAsync(out.ctypes.data, dout, nbytes, stream))
    ok(driver.cuStreamSynchronize(stream))
    np.testing.assert_array_equal(out, np.float32(2.0) * x + y)  # --fmad=false: no fma
    for p in (dx, dy, dout):
        ok(driver.cuMemFree(p))
    ok(driver.cuStreamDestroy(stream))
    ok(driver.cuModuleUnload(module))


@check
def bindings_errors():
    ok(driver.cuInit(0))
    err, _ = driver.cuModuleLoadData(b"\x7fELF\x02\x01\x01" + b"\0" * 64)
    assert err == driver.CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU, err
    err, _ = driver.cuModuleLoadData(b"not ptx at all\0")
    assert err == driver.CUresult.CUDA_ERROR_INVALID_PTX, err
    err, name = driver.cuGetErrorName(driver.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS)
    assert name == b"CUDA_ERROR_ILLEGAL_ADDRESS", name


TEX = r"""
extern "C" __global__ void sample(cudaTextureObject_t tex, const float2* at, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(tex, at[i].x, at[i].y);
}
extern "C" __global__ void fill(cudaSurfaceObject_t surf, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) surf2Dwrite(float(100 * y + x), surf, x * 4, y);
}
"""


def bilinear(img, x, y):
    """CUDA's linear filtering with clamp-to-edge (Programming Guide, texture fetching):
    the weights here are multiples of 1/4, exact in the hardware's 8-bit fractions."""
    h, w = img.shape
    xb, yb = x - 0.5, y - 0.5
    i, j = int(np.floor(xb)), int(np.floor(yb))
    a, b = xb - i, yb - j
    t = lambda r, c: img[min(max(r, 0), h - 1), min(max(c, 0), w - 1)]
    return ((1 - a) * (1 - b) * t(j, i) + a * (1 - b) * t(j, i + 1)
            + (1 - a) * b * t(j + 1, i) + a * b * t(j + 1, i + 1))


@check
def texture_object_over_array_and_surface_write():
    ok(driver.cuInit(0))
    ctx = ok(driver.cuDevicePrimaryCtxRetain(ok(driver.cuDeviceGet(0))))
    ok(driver.cuCtxSetCurrent(ctx))
    module = ok(driver.cuModuleLoadData(nvrtc_ptx(TEX, "tex.cu")))
    sample = ok(driver.cuModuleGetFunction(module, b"sample"))
    fill = ok(driver.cuModuleGetFunction(module, b"fill"))
    w, h = 8, 6
    img = (np.arange(w * h, dtype=np.float32) * 0.5).reshape(h, w)

    desc = driver.CUDA_ARRAY3D_DESCRIPTOR()
    desc.Width, desc.Height, desc.Depth = w, h, 0
    desc.Format = driver.CUarray_format.CU_AD_FORMAT_FLOAT
    desc.NumChannels = 1
    desc.Flags = 2  # CUDA_ARRAY3D_SURFACE_LDST
    arr = ok(driver.cuArray3DCreate(desc))
    cp = driver.CUDA_MEMCPY2D()
    cp.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    cp.srcHost = img.ctypes.data
    cp.srcPitch = w * 4
    cp.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_ARRAY
    cp.dstArray = arr
    cp.WidthInBytes, cp.Height = w * 4, h
    ok(driver.cuMemcpy2D(cp))

    res = driver.CUDA_RESOURCE_DESC()
    res.resType = driver.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    res.res.array.hArray = arr
    tdesc = driver.CUDA_TEXTURE_DESC()
    tdesc.addressMode = [driver.CUaddress_mode.CU_TR_ADDRESS_MODE_CLAMP] * 3
    tdesc.filterMode = driver.CUfilter_mode.CU_TR_FILTER_MODE_LINEAR
    tex = ok(driver.cuTexObjectCreate(res, tdesc, None))

    coords = np.array([(x + 0.25 * fx, y + 0.25 * fy) for x in range(-1, w + 1)
                       for y in range(-1, h + 1) for fx in range(4) for fy in range(4)],
                      dtype=np.float32)
    n = len(coords)
    want = np.array([bilinear(img, x, y) for x, y in coords], dtype=np.float32)
    dat = ok(driver.cuMemAlloc(coords.nbytes))
    dout = ok(driver.cuMemAlloc(4 * n))
    ok(driver.cuMemcpyHtoD(dat, coords.ctypes.data, coords.nbytes))
    args = [np.array([int(tex)], dtype=np.uint64), np.array([int(dat)], dtype=np.uint64),
            np.array([int(dout)], dtype=np.uint64), np.array([n], dtype=np.int32)]
    ptrs = np.array([a.ctypes.data for a in args], dtype=np.uint64)
    ok(driver.cuLaunchKernel(sample, (n + 127) // 128, 1, 1, 128, 1, 1, 0, 0, ptrs.ctypes.data, 0))
    got = np.zeros(n, dtype=np.float32)
    ok(driver.cuMemcpyDtoH(got.ctypes.data, dout, 4 * n))
    np.testing.assert_array_equal(got, want)

    # A surface write into the same array, read back through a 2D copy.
    sres = driver.CUDA_RESOURCE_DESC()
    sres.resType = driver.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    sres.res.array.hArray = arr
    surf = ok(driver.cuSurfObjectCreate(sres))
    args = [np.array([int(surf)], dtype=np.uint64), np.array([w], dtype=np.int32),
            np.array([h], dtype=np.int32)]
    ptrs = np.array([a.ctypes.data for a in args], dtype=np.uint64)
    ok(driver.cuLaunchKernel(fill, 1, h, 1, 32, 1, 1, 0, 0, ptrs.ctypes.data, 0))
    back = np.zeros((h, w), dtype=np.float32)
    cp = driver.CUDA_MEMCPY2D()
    cp.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_ARRAY
    cp.srcArray = arr
    cp.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    cp.dstHost = back.ctypes.data
    cp.dstPitch = w * 4
    cp.WidthInBytes, cp.Height = w * 4, h
    ok(driver.cuMemcpy2D(cp))
    ys, xs = np.mgrid[0:h, 0:w]
    np.testing.assert_array_equal(back, (100 * ys + xs).astype(np.float32))
    ok(driver.cuTexObjectDestroy(tex))
    ok(driver.cuSurfObjectDestroy(surf))
    ok(driver.cuArrayDestroy(arr))


@check
def core_program_and_launch():
    from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch

    dev = Device()
    dev.set_current()
    stream = dev.create_stream()
    src = r"""
    extern "C" __global__ void scale(int* data, int k, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) data[i] *= k;
    }
    """
    prog = Program(src, code_type="c++", options=ProgramOptions(arch="compute_80"))
    mod = prog.compile("ptx")
    kernel = mod.get_kernel("scale")
    n = 1000
    host = np.arange(n, dtype=np.int32)
    buf = dev.allocate(host.nbytes, stream=stream)
    ok(driver.cuMemcpyHtoD(buf.handle, host.ctypes.data, host.nbytes))
    launch(stream, LaunchConfig(grid=(n + 127) // 128, block=128), kernel, buf, np.int32(3), np.int32(n))
    stream.sync()
    out = np.zeros_like(host)
    ok(driver.cuMemcpyDtoH(out.ctypes.data, buf.handle, host.nbytes))
    np.testing.assert_array_equal(out, 3 * host)
    buf.close(stream)


@check
def stream_ordered_pool_allocation():
    # The device reports memory pools; allocate through the default pool and a new one and
    # read the pools' used-bytes attributes (CUDA: bytes of live allocations).
    A = driver.CUmemPool_attribute
    ok(driver.cuInit(0))
    dev = ok(driver.cuDeviceGet(0))
    attr = driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
    assert ok(driver.cuDeviceGetAttribute(attr, dev)) == 1
    ctx = ok(driver.cuDevicePrimaryCtxRetain(dev))
    ok(driver.cuCtxSetCurrent(ctx))
    stream = ok(driver.cuStreamCreate(0))
    props = driver.CUmemPoolProps()
    props.allocType = driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    props.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    props.location.id = 0
    pool = ok(driver.cuMemPoolCreate(props))
    host = np.arange(4096, dtype=np.uint32)
    p = ok(driver.cuMemAllocFromPoolAsync(host.nbytes, pool, stream))
    assert int(ok(driver.cuMemPoolGetAttribute(pool, A.CU_MEMPOOL_ATTR_USED_MEM_CURRENT))) == host.nbytes
    ok(driver.cuMemcpyHtoDAsync(p, host.ctypes.data, host.nbytes, stream))
    out = np.zeros_like(host)
    ok(driver.cuMemcpyDtoHAsync(out.ctypes.data, p, host.nbytes, stream))
    ok(driver.cuStreamSynchronize(stream))
    np.testing.assert_array_equal(out, host)
    ok(driver.cuMemFreeAsync(p, stream))
    assert int(ok(driver.cuMemPoolGetAttribute(pool, A.CU_MEMPOOL_ATTR_USED_MEM_CURRENT))) == 0
    assert int(ok(driver.cuMemPoolGetAttribute(pool, A.CU_MEMPOOL_ATTR_USED_MEM_HIGH))) == host.nbytes
    ok(driver.cuMemPoolDestroy(pool))
    default = ok(driver.cuDeviceGetDefaultMemPool(dev))
    q = ok(driver.cuMemAllocAsync(1 << 20, stream))
    assert int(ok(driver.cuMemPoolGetAttribute(default, A.CU_MEMPOOL_ATTR_USED_MEM_CURRENT))) >= 1 << 20
    ok(driver.cuMemFreeAsync(q, stream))
    ok(driver.cuStreamDestroy(stream))


def main():
    return run_checks()


if __name__ == "__main__":
    sys.exit(main())
