#!/usr/bin/env python3
"""Host reference for warp_guard.ptx: computes every expected output from the kernels'
C-like semantics (32- and 64-bit two's complement arithmetic) and writes the case files.
Re-run after changing the kernels:
    python3 warp_guard_ref.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)

def lcg(seed, n, lo, hi):
    out = []
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) % (1 << 31)
        out.append(lo + x % (hi - lo))
    return out

def s32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x

def u32(x):
    return x & 0xFFFFFFFF

def s64(x):
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >> 63 else x

fmt = gc.ints

def write(name, comment, kernel, grid, block, args, buffers, expect):
    with open(name + ".toml", "w") as f:
        f.write(gc.s32_case("warp_guard.ptx", comment, kernel, grid, block, args, buffers,
                            expect))

def guard_mad(name, comment, grid, block, n, off):
    threads = grid * block
    x = lcg(3, threads + off, -1000, 1000)
    y = lcg(5, threads, -1000, 1000)
    out = [s32(3 * x[g + off] + y[g]) if g < n else y[g] for g in range(threads)]
    write(name, comment, "guard_mad", [grid], [block],
          [f"{{ u32 = {n} }}", f"{{ u32 = {off} }}", '{ buffer = "x" }', '{ buffer = "y" }'],
          {"x": (f"{{ values = {fmt(x)} }}", None), "y": (f"{{ values = {fmt(y)} }}", None)},
          {"y": out})

def grid_1d(name, comment, kernel, grid, block, n, base, value):
    """out[g] = value(g) where the kernel's body runs (value returns None where it does not)."""
    threads = grid * block
    out = []
    for g in range(threads):
        v = value(g, n, base)
        out.append(-1 if v is None else v)
    write(name, comment, kernel, [grid], [block],
          [f"{{ u32 = {n} }}", f"{{ u32 = {base} }}", '{ buffer = "out" }'],
          {"out": ("{ fill = -1 }", threads)}, {"out": out})

def lt_s32(g, n, base):
    i = s32(base + g)
    return i if i < s32(n) else None

def gt_u32_left(g, n, base):
    i = u32(base + g)
    return s32(i) if n > i else None

def down_s32(g, n, base):
    i = s32(base - g)
    return i if i >= s32(n) else None

def skip_lt_s32(g, n, base):
    i = s32(base + g)
    return i if i >= s32(n) else None

def main():
    guard_mad("tail", """
y = 3 x + y under the guard g < n, n = 1001 (not a multiple of 4 or 8): the warp holding
g = 1000 is split, and whole warps past n skip the body (the direction the full-warp
version does not follow). Expected values from warp_guard_ref.py (host reference).""",
              8, 256, 1001, 0)
    guard_mad("offset", """
y = 3 x + y with x read one element further (x + 4 bytes: not 16-byte aligned), every warp
full and inside the guard. Expected values from warp_guard_ref.py (host reference).""",
              4, 256, 1024, 1)
    guard_mad("partial", """
y = 3 x + y in CTAs of 100 threads (the last warp of each has 4 lanes), n = 450, x read
three elements further. Expected values from warp_guard_ref.py (host reference).""",
              5, 100, 450, 3)
    # 2-D CTAs of 8 x 8: %tid.x is not the lane (the launch fact fails), so the guard stays
    # per lane.
    grid, bx, by, n = 4, 8, 8, 20
    out = [-1] * (grid * bx * by)
    for c in range(grid):
        for ty in range(by):
            for tx in range(bx):
                i = c * bx + tx
                if i < n:
                    out[c * bx * by + ty * bx + tx] = i
    write("rows8", """
A guard on ctaid.x * ntid.x + tid.x < n in 8 x 8 CTAs, where a warp's %tid.x repeat every 8
lanes (not consecutive). Expected values from warp_guard_ref.py (host reference).""",
          "lt_s32", [grid], [bx, by], [f"{{ u32 = {n} }}", "{ u32 = 0 }", '{ buffer = "out" }'],
          {"out": ("{ fill = -1 }", grid * bx * by)}, {"out": out})
    grid_1d("wrap_s32", """
i = base + g with base = 0x7fffff80 wraps past INT_MAX inside the fifth warp: the guard
i < n (signed, n = INT_MAX) holds for the first 127 threads, fails at INT_MAX and holds
again from the wrap on. Expected values from warp_guard_ref.py (host reference).""",
            "lt_s32", 4, 64, 0x7FFFFFFF, 0x7FFFFF80, lt_s32)
    grid_1d("wrap_s32_mid", """
i = base + g with base = 0x7ffffff0 wraps inside the first warp (lanes 16 on are
negative): i < n (signed, n = INT_MAX) differs between lanes 15 and 16 although lanes 0 and
31 agree. Expected values from warp_guard_ref.py (host reference).""",
            "lt_s32", 1, 64, 0x7FFFFFFF, 0x7FFFFFF0, lt_s32)
    grid_1d("left_u32", """
The bound on the left of an unsigned compare (n > i), n = 200 in CTAs of 256 threads.
Expected values from warp_guard_ref.py (host reference).""",
            "gt_u32_left", 2, 256, 200, 0, gt_u32_left)
    grid_1d("left_u32_wrap", """
n > i (unsigned) with i = 0xffffff90 + g: lanes 0-111 are above n, i wraps to 0 at thread
112 and the body runs for i < 40. Expected values from warp_guard_ref.py (host reference).""",
            "gt_u32_left", 2, 128, 40, 0xFFFFFF90, gt_u32_left)
    grid_1d("down", """
A negative lane stride: i = 300 - g, the body runs where i >= 100. Expected values from
warp_guard_ref.py (host reference).""",
            "down_s32", 2, 128, 100, 300, down_s32)
    grid_1d("down_wrap", """
i = base - g with base = INT_MIN + 16 wraps to INT_MAX at thread 17: the body (i >= 5)
runs from there on. Expected values from warp_guard_ref.py (host reference).""",
            "down_s32", 1, 64, 5, 0x80000010, down_s32)
    grid_1d("skip_lt", """
The body runs where i = base + g >= n (the guard skips it where i < n: lane 0 of a warp is
the first to skip), base = 10, n = 150: the warp of threads 128-159 is split at lane 12.
Expected values from warp_guard_ref.py (host reference).""",
            "skip_lt_s32", 2, 128, 150, 10, skip_lt_s32)
    grid_1d("body_lt", """
A branch into the body (the taken direction) where i = base + g < n, base = 10, n = 150:
the warp of threads 128-159 is split at lane 12. Expected values from warp_guard_ref.py
(host reference).""",
            "body_lt_s32", 2, 128, 150, 10, lt_s32)
    grid_1d("body_ge", """
A branch into the body (the taken direction) where i = base + g >= n, base = 10, n = 150:
the warp of threads 128-159 is split at lane 12 (lane 0 is the first not to take it).
Expected values from warp_guard_ref.py (host reference).""",
            "body_ge_s32", 2, 128, 150, 10, skip_lt_s32)
    grid, block, n, base = 2, 128, 150, 10
    out = [-1 if v is None else v for v in (skip_lt_s32(g, n, base) for g in range(grid * block))]
    flag = [1 if s32(base + g) < s32(n) else 0 for g in range(grid * block)]
    write("pred_kept", """
The guard of skip_lt (the body runs where i = base + g >= n, base = 10, n = 150), whose
predicate is also read after the join: flag[g] = (i < n), for the warps that skip the body,
the warps that all run it and the warp split at lane 12. Expected values from
warp_guard_ref.py (host reference).""",
          "pred_kept_s32", [grid], [block],
          [f"{{ u32 = {n} }}", f"{{ u32 = {base} }}", '{ buffer = "out" }', '{ buffer = "flag" }'],
          {"out": ("{ fill = -1 }", grid * block), "flag": ("{ fill = -1 }", grid * block)},
          {"out": out, "flag": flag})
    for name, base, n, comment in [
        ("s64", 5, 1000, """
64-bit: i = 5 + 3 g (mul.wide), the body runs where i < 1000 (signed).
Expected values from warp_guard_ref.py (host reference)."""),
        ("s64_wrap", (1 << 63) - 256, (1 << 63) - 1, """
64-bit: i = (2^63 - 256) + 3 g wraps past the largest s64 at thread 86 (then negative,
so i < n holds again). Expected values from warp_guard_ref.py (host reference)."""),
    ]:
        grid, block = 2, 256
        out = []
        for g in range(grid * block):
            i = s64(base + 3 * g)
            out.append(s32(i) if i < s64(n) else -1)
        write(name, comment, "lt_s64", [grid], [block],
              [f"{{ u64 = {n} }}", f"{{ u64 = {base} }}", '{ buffer = "out" }'],
              {"out": ("{ fill = -1 }", grid * block)}, {"out": out})

if __name__ == "__main__":
    main()
