#!/usr/bin/env python3
"""Writes numba-cuda kernels as cases: numba's own PTX for sm_80 (`cuda.compile_ptx`, NVVM
with libdevice linked in), the inputs, and the expected outputs from numpy.

- atomics: `cuda.atomic.add` (s32 bins, f32 and f64 sums), `max`/`min` on s32 and f32
  (numba's f32 max/min are CAS loops in a helper function), `exch` and `compare_and_swap`
  (`atom.cas`) on a slot of each thread's own, and `inc` (`atom.inc`, wrapping), from 8 CTAs
  of 128 threads. The f32/f64
  sums add multiples of 1/2 below 2^20: exact in any order.
- shared_red: a `cuda.shared.array` tree reduction with `cuda.syncthreads()` in a loop,
  multiples of 1/8 (exact).
- grid_sync: `cuda.cg.this_grid().sync()` (numba's calls to libcudadevrt's
  cudaCGGetIntrinsicHandle/cudaCGSynchronize, which ptxjit supplies) in a cooperative
  launch: three rounds of x[i] += x[i + 1] (mod n) across CTAs (integers).
- math_f32, math_f64: libdevice functions as numba calls them (sin, exp, log, sqrt,
  atan2, tanh, erf, pow in f32; sin, exp, log1p, expm1, atan2, tanh, erfc, asinh in f64),
  against numpy/`math` in float64 rounded to the type, within the CUDA C++ Programming
  Guide's maximum ulp errors for those functions (f32: pow 4 (the largest of the eight,
  the others 0-3); f64: erfc 5, the others 1-2), plus the reference's own rounding: 5 ulp
  for f32 and 6 for f64 bound every column.

Numba asks the CUDA driver for its version when it compiles a grid sync, so run it on
ptxjit's drop-in driver (no GPU needed; needs `pip install numba-cuda numpy`
and the CUDA 12 toolkit wheels numba-cuda uses):
    ptxjit exec python3 gen.py
"""
import math
import os

import numpy as np
from numba import cuda, float32, float64

HERE = os.path.dirname(os.path.abspath(__file__))
AT_N, AT_GRID, AT_BLOCK = 1000, 8, 128
SR_N, SR_GRID = 1000, 8
GS_GRID, GS_BLOCK, GS_ROUNDS = 4, 64, 3
MF_N, MF_GRID, MF_BLOCK = 257, 3, 128


def atomics(x, bins, imax, imin, fsum, dsum, fmax, fmin, swapped, cas, ticks):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        cuda.atomic.add(bins, v % 16, 1)
        cuda.atomic.max(imax, 0, v)
        cuda.atomic.min(imin, 0, v)
        cuda.atomic.add(fsum, 0, float32(v) * float32(0.5))
        cuda.atomic.add(dsum, 0, float64(v) * 0.5)
        cuda.atomic.max(fmax, 0, float32(v) * float32(0.25))
        cuda.atomic.min(fmin, 0, float32(v) * float32(0.25))
        # Each thread's own slot: exch 0 -> 2i, then a CAS that succeeds (2i -> i + 1) and
        # one that fails (expects 0), whose returned old values go to the second half.
        swapped[i + x.size] = cuda.atomic.exch(swapped, i, 2 * i)
        cas[i] = cuda.atomic.compare_and_swap(swapped[i:], 2 * i, i + 1)
        cas[i + x.size] = cuda.atomic.compare_and_swap(swapped[i:], 0, -1)
        cuda.atomic.inc(ticks, i % 3, 6)


def shared_red(x, out):
    s = cuda.shared.array(128, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    k = 64
    while k > 0:
        if t < k:
            s[t] += s[t + k]
        cuda.syncthreads()
        k //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


def grid_sync(x, out):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = x.size
    for r in range(3):
        v = x[(i + 1) % n]
        g.sync()
        x[i] = x[i] + v
        g.sync()
    out[i] = x[i]


def math_f32(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.sin(v)
        out[i, 1] = math.exp(v)
        out[i, 2] = math.log(abs(v) + float32(1))
        out[i, 3] = math.sqrt(abs(v))
        out[i, 4] = math.atan2(v, float32(1.5))
        out[i, 5] = math.tanh(v)
        out[i, 6] = math.erf(v)
        out[i, 7] = math.pow(abs(v), float32(1.5))


def math_f64(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.sin(v)
        out[i, 1] = math.exp(v)
        out[i, 2] = math.log1p(abs(v))
        out[i, 3] = math.expm1(v)
        out[i, 4] = math.atan2(v, 1.5)
        out[i, 5] = math.tanh(v)
        out[i, 6] = math.erfc(v)
        out[i, 7] = math.asinh(v)


def compile_to(name, fn, sig):
    ptx, _ = cuda.compile_ptx(fn, sig, cc=(8, 0))
    with open(os.path.join(HERE, f"{name}.ptx"), "w") as f:
        f.write(ptx)
    entry = [l for l in ptx.splitlines() if l.startswith(".visible .entry")][0]
    kernel = entry.split()[-1].rstrip("(")
    print(name, kernel[:40])
    return kernel


def array(buf, n, itemsize, shape=None):
    """The arguments numba passes for a C-contiguous array: meminfo, parent, nitems,
    itemsize, data, then the shape and the strides in bytes."""
    shape = shape or [n]
    strides = [itemsize * int(np.prod(shape[k + 1:])) for k in range(len(shape))]
    return (["{ u64 = 0 }", "{ u64 = 0 }", f"{{ s64 = {n} }}", f"{{ s64 = {itemsize} }}",
             f'{{ buffer = "{buf}" }}'] + [f"{{ s64 = {s} }}" for s in shape]
            + [f"{{ s64 = {s} }}" for s in strides])


def case(name, kernel, comment, grid, block, args, buffers, expect, extra=""):
    lines = [f"# {l}".rstrip() for l in comment.strip().splitlines()]
    lines.append("# Written by gen.py (do not edit: change gen.py and run it).")
    lines += [f'ptx = "{name}.ptx"', f'kernel = "{kernel}"', f"grid = [{grid}]",
              f"block = [{block}]"]
    if extra:
        lines.append(extra)
    lines.append("args = [" + ",\n        ".join(args) + "]")
    for buf, (ty, init) in buffers.items():
        lines += ["", f"[buffers.{buf}]", f'type = "{ty}"', init]
    for buf, (what, tol) in expect.items():
        lines += ["", f"[expect.{buf}]", what, f"tolerance = {tol}"]
    with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
        f.write("\n".join(lines) + "\n")


def save(name, a, dtype):
    np.save(os.path.join(HERE, f"{name}.npy"), np.asarray(a, dtype=dtype).reshape(-1))


def file(name):
    return 'init = { file = "%s.npy" }' % name


def values(vs):
    return "values = [" + ", ".join(str(v) for v in vs) + "]"


def main():
    rng = np.random.default_rng(80)

    k = compile_to("atomics", atomics, "void(int32[::1], int32[::1], int32[::1], int32[::1], "
                   "float32[::1], float64[::1], float32[::1], float32[::1], int32[::1], "
                   "int32[::1], uint32[::1])")
    x = rng.integers(-500, 500, AT_N)
    save("atomics_x", x, np.int32)
    # inc with limit 6 counts 0..6 then wraps to 0; the fourth counter is never touched.
    ticks = [len(range(r, AT_N, 3)) % 7 for r in range(3)] + [0]
    # Buffers the atomics accumulate into start zeroed, as a CUDA program memsets them.
    zero = "init = { fill = 0 }"
    bufs = {"x": ("s32", file("atomics_x")), "bins": ("s32", "len = 16\n" + zero),
            "imax": ("s32", "init = { fill = -2147483648 }"),
            "imin": ("s32", "init = { fill = 2147483647 }"),
            "fsum": ("f32", "len = 1\n" + zero), "dsum": ("f64", "len = 1\n" + zero),
            "fmax": ("f32", "init = { fill = -1e30 }"), "fmin": ("f32", "init = { fill = 1e30 }"),
            "swapped": ("s32", f"len = {2 * AT_N}\n" + zero),
            "cas": ("s32", f"len = {2 * AT_N}\n" + zero), "ticks": ("u32", "len = 4\n" + zero)}
    args = []
    for b, (ty, _) in bufs.items():
        n = 1 if b in ("imax", "imin", "fsum", "dsum", "fmax", "fmin") else (
            {"bins": 16, "ticks": 4, "swapped": 2 * AT_N, "cas": 2 * AT_N}.get(b, AT_N))
        args += array(b, n, 8 if ty == "f64" else 4)
    for b in ("imax", "imin", "fmax", "fmin"):
        ty, init = bufs[b]
        bufs[b] = (ty, "len = 1\n" + init)
    case("atomics", k, f"""
numba's atomics ({AT_N} threads, {AT_GRID} CTAs of {AT_BLOCK}; numba.cuda.compile_ptx for
sm_80): add into 16 s32 bins, s32 max/min (atom.global.max/min.s32), f32 and f64 sums
(atom.global.add.f32/.f64) of x/2, f32 max/min of x/4 (numba's CAS-loop helpers), on a
slot of each thread's own exch (0 -> 2i) and compare_and_swap (2i -> i + 1, then a failing
one expecting 0), their old values stored, inc with limit 6 on 3 of 4 counters (wrapping).
Expected by numpy (gen.py).""", AT_GRID, AT_BLOCK, args, bufs, {
        "bins": (values(np.bincount(x % 16, minlength=16)), '"exact"'),
        "imax": (values([x.max()]), '"exact"'), "imin": (values([x.min()]), '"exact"'),
        "fsum": (values([x.sum() * 0.5]), '"exact"'),
        "dsum": (values([x.sum() * 0.5]), '"exact"'),
        "fmax": (values([x.max() * 0.25]), '"exact"'),
        "fmin": (values([x.min() * 0.25]), '"exact"'),
        "swapped": (values(list(range(1, AT_N + 1)) + [0] * AT_N), '"exact"'),
        "cas": (values([2 * i for i in range(AT_N)] + list(range(1, AT_N + 1))), '"exact"'),
        "ticks": (values(ticks), '"exact"')})

    k = compile_to("shared_red", shared_red, "void(float32[::1], float32[::1])")
    x = rng.integers(-64, 64, SR_N) / 8
    save("shared_red_x", x, np.float32)
    sums = [x[c * 128:(c + 1) * 128].sum() for c in range(SR_GRID)]
    case("shared_red", k, f"""
numba's shared-memory tree reduction (cuda.shared.array, cuda.syncthreads() in a loop),
{SR_N} f32 in {SR_GRID} CTAs of 128 (the last one partial), sm_80. Multiples of 1/8: exact.""",
         SR_GRID, 128, array("x", SR_N, 4) + array("out", SR_GRID, 4),
         {"x": ("f32", file("shared_red_x")), "out": ("f32", f"len = {SR_GRID}")},
         {"out": (values(sums), '"exact"')})

    k = compile_to("grid_sync", grid_sync, "void(int32[::1], int32[::1])")
    n = GS_GRID * GS_BLOCK
    x = rng.integers(0, 100, n)
    want = x.copy()
    for _ in range(GS_ROUNDS):
        want = want + np.roll(want, -1)
    save("grid_sync_x", x, np.int32)
    save("grid_sync_expected", want, np.int32)
    case("grid_sync", k, f"""
numba's grid-wide barrier (cuda.cg.this_grid().sync(): calls to cudaCGGetIntrinsicHandle
and cudaCGSynchronize) in a cooperative launch of {GS_GRID} CTAs of {GS_BLOCK}: {GS_ROUNDS}
rounds of x[i] += x[(i + 1) % n], each read before a grid sync and written after one.
Expected by numpy (np.roll).""", GS_GRID, GS_BLOCK,
         array("x", n, 4) + array("out", n, 4),
         {"x": ("s32", file("grid_sync_x")), "out": ("s32", f"len = {n}")},
         {"out": ('file = "grid_sync_expected.npy"', '"exact"'),
          "x": ('file = "grid_sync_expected.npy"', '"exact"')}, extra="cooperative = true")

    xv = np.linspace(-3, 3, MF_N)
    v = xv.astype(np.float32).astype(np.float64)
    cols = [np.sin(v), np.exp(v), np.log(np.abs(v) + 1), np.sqrt(np.abs(v)),
            np.arctan2(v, 1.5), np.tanh(v), [math.erf(t) for t in v], np.abs(v) ** 1.5]
    k = compile_to("math_f32", math_f32, "void(float32[::1], float32[:, ::1])")
    save("math_f32_x", v, np.float32)
    save("math_f32_expected", np.stack(cols, 1), np.float32)
    case("math_f32", k, f"""
numba's math functions in f32 (libdevice's __nv_sinf, __nv_expf, __nv_logf, sqrt,
__nv_atan2f, __nv_tanhf, __nv_erff, __nv_powf, inlined by NVVM) on {MF_N} points of
[-3, 3], sm_80; expected from numpy in float64 rounded to f32, within 5 ulp (gen.py).""",
         MF_GRID, MF_BLOCK, array("x", MF_N, 4) + array("out", MF_N * 8, 4, [MF_N, 8]),
         {"x": ("f32", file("math_f32_x")), "out": ("f32", f"len = {MF_N * 8}")},
         {"out": ('file = "math_f32_expected.npy"', "{ ulp = 5 }")})

    v = xv
    cols = [np.sin(v), np.exp(v), np.log1p(np.abs(v)), np.expm1(v), np.arctan2(v, 1.5),
            np.tanh(v), [math.erfc(t) for t in v], np.arcsinh(v)]
    k = compile_to("math_f64", math_f64, "void(float64[::1], float64[:, ::1])")
    save("math_f64_x", v, np.float64)
    save("math_f64_expected", np.stack(cols, 1), np.float64)
    case("math_f64", k, f"""
numba's math functions in f64 (libdevice's __nv_sin, __nv_exp, __nv_log1p, __nv_expm1,
__nv_atan2, __nv_tanh, __nv_erfc, __nv_asinh, inlined by NVVM) on {MF_N} points of
[-3, 3], sm_80; expected from numpy/math in float64, within 6 ulp (gen.py).""",
         MF_GRID, MF_BLOCK, array("x", MF_N, 8) + array("out", MF_N * 8, 8, [MF_N, 8]),
         {"x": ("f64", file("math_f64_x")), "out": ("f64", f"len = {MF_N * 8}")},
         {"out": ('file = "math_f64_expected.npy"', "{ ulp = 6 }")})


if __name__ == "__main__":
    main()
