#!/usr/bin/env python3
"""Host reference for loop_region.ptx: computes every expected output from the kernels'
C-like semantics (32/64-bit wrapping integers, exact f32 powers of 1.5) and writes the case
files, each in group-major and in lockstep order. Re-run after changing the kernels:
    python3 loop_region_ref.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


def s32(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def write(name, comment, kernel, grid, block, args, buffers, expect):
    for lockstep in (False, True):
        suffix = "_lockstep" if lockstep else ""
        order = "lockstep order" if lockstep else "group-major order"
        with open(name + suffix + ".toml", "w") as f:
            f.write(gc.s32_case("loop_region.ptx", comment + f"\nRun in {order}.", kernel,
                                [grid], [block], args, buffers, expect, None, lockstep))


def mixed(grid, block):
    n = grid * block
    out, out2, out3 = (np.full(n, -1, dtype=np.int32) for _ in range(3))
    for g in range(n):
        t, c = g % block, g // block
        if t % 7 == 0:
            out[g] = out2[g] = out3[g] = -5
            continue
        trips = 1 + (7 * t) % 13
        i, acc, wide, f, flip = 0, t, t, 1.0, c != 0
        early = False
        while True:
            acc = (acc * 3 + (i ^ t)) & M32
            wide = (wide * 5 + acc) & M64
            f *= 1.5
            flip = not flip
            i += 1
            if acc & 15 == 3 and i > 1:
                early = True
                break
            if not i < trips:
                break
        if early:
            r20, r21 = (i * 1000000 + acc) & M32, 1
        else:
            r20, r21 = (acc - i * 10) & M32, 2
        r24 = (int(f) + (100000 if flip else 0) + r21 * 10000000) & M32
        out[g] = s32(r20)
        out2[g] = s32(r24)
        out3[g] = s32((wide & M32) ^ (wide >> 32))
    return out, out2, out3


def nested(grid, block):
    n = grid * block
    out = np.full(n, -1, dtype=np.int32)
    for g in range(n):
        t = g % block
        s = 0
        for j in range(3):
            last = (t + j) % 5
            k = 0
            while True:
                s = (s * 7 + k * j + t) & M32
                k += 1
                if not k <= last:
                    break
            s = (s + j * 100) & M32
        out[g] = s32(s)
    return out


def written(grid, block):
    n = grid * block
    x = np.zeros(n, dtype=np.int64)
    for g in range(n):
        t = g % block
        v = g
        for k in range((t & 3) + 1):
            v = (v * 3 + k) & M32
        x[g] = v
    out = np.array([s32(int(x[g ^ 4])) for g in range(n)], dtype=np.int32)
    return np.array([s32(int(v)) for v in x], dtype=np.int32), out


o1, o2, o3 = mixed(3, 40)
write("mixed", """
Trip counts 1 + (7 tid) % 13 that differ per lane and per group, an early exit once
acc % 16 == 3 and the loop's end as two ways out to different blocks, lanes tid % 7 == 0
skipping the loop (part of a warp enters it), values of four kinds carried (u32, u64, f32,
pred) and read after the loop. 40-thread CTAs: the second warp is partial.
Expected values from loop_region_ref.py (host reference).""",
      "mixed", 3, 40, ['{ buffer = "out" }', '{ buffer = "out2" }', '{ buffer = "out3" }'],
      {b: ("{ fill = -1 }", 120) for b in ("out", "out2", "out3")},
      {"out": o1, "out2": o2, "out3": o3})
write("nested", """
An outer loop of 3 trips around an inner loop of 1 + (tid + j) % 5 trips (the inner one a
loop region), its value carried through both.
Expected values from loop_region_ref.py (host reference).""",
      "nested", 2, 64, ['{ buffer = "out" }'], {"out": ("{ fill = -1 }", 128)},
      {"out": nested(2, 64)})
wx, wout = written(2, 64)
write("written", """
A loop that stores to memory in each of its 1 + tid % 4 trips; after it (and bar.warp.sync)
each lane reads what a lane of another group of its warp stored last.
Expected values from loop_region_ref.py (host reference).""",
      "written", 2, 64, ['{ buffer = "x" }', '{ buffer = "out" }'],
      {"x": ("{ fill = 0 }", 128), "out": ("{ fill = -1 }", 128)},
      {"x": wx, "out": wout})
