#!/usr/bin/env python3
"""Host reference for loop_carried.ptx: computes every expected output from the kernels'
C-like semantics (32-bit two's complement arithmetic, numpy int32) and writes the case
files. Re-run after changing the kernels:
    python3 loop_carried_ref.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)

fmt = gc.ints

def inputs(seed, n):
    return np.random.default_rng(seed).integers(-1000, 1000, n, dtype=np.int32)

def write(name, comment, kernel, grid, block, args, buffers, expect, error=None,
          lockstep=False):
    with open(name + ".toml", "w") as f:
        f.write(gc.s32_case("loop_carried.ptx", comment, kernel, grid, block, args, buffers,
                            expect, error, lockstep))

def accumulate(x, g, trips):
    """acc = 3 acc + x[k] (g + 1) for k < trips, wrapping at 32 bits."""
    with np.errstate(over="ignore"):
        acc = np.int32(0)
        for k in range(trips):
            acc = np.int32(acc * np.int32(3) + x[k] * np.int32(g + 1))
    return acc

def one_loop(name, comment, kernel, grid, block, lo, n, extra, lockstep=False):
    """part_entry, top_test (extra = False: every lane runs n trips), ragged and ragged_top
    (extra = True: lane g runs n + g % 5 trips)."""
    threads = grid * block
    x = inputs(7, n + (4 if extra else 0) + 1)
    out = np.full(threads, -1, dtype=np.int32)
    out2 = np.full(threads, -1, dtype=np.int32)
    for g in range(threads):
        if g % block < lo:
            continue
        trips = n + (g % 5 if extra else 0)
        out[g] = accumulate(x, g, trips)
        if kernel == "part_entry":
            out2[g] = 4 * trips
        else:
            out2[g] = 1000 * trips + trips
    write(name, comment, kernel, [grid], [block],
          [f"{{ u32 = {lo} }}", f"{{ u32 = {n} }}", '{ buffer = "x" }', '{ buffer = "out" }',
           '{ buffer = "out2" }'],
          {"x": (f"{{ values = {fmt(x)} }}", None), "out": ("{ fill = -1 }", threads),
           "out2": ("{ fill = -1 }", threads)},
          {"out": out, "out2": out2}, lockstep=lockstep)

def strided(name, comment, grid, block, lo, n, short):
    threads = grid * block
    total = threads * n - (1 if short else 0)
    src = inputs(11, total)
    out = np.full(threads, -1, dtype=np.int32)
    for g in range(threads):
        if g % block < lo or short:
            continue
        with np.errstate(over="ignore"):
            out[g] = np.int32(sum(int(src[g + k * threads]) for k in range(n)))
    last = threads - 1
    write(name, comment, "strided", [grid], [block],
          [f"{{ u32 = {lo} }}", f"{{ u32 = {n} }}", f"{{ u32 = {threads} }}",
           '{ buffer = "in" }', '{ buffer = "out" }'],
          {"in": (f"{{ values = {fmt(src)} }}", None), "out": ("{ fill = -1 }", threads)},
          {} if short else {"out": out},
          error=f"thread ({last},0,0) in 'ld.global.u32'" if short else None)

one_loop("part_entry", """
A down-counted loop with a uniform counter and pointer, entered by part of each CTA
(tid.x >= 37 of 96: warp 0 skips it, warp 1 enters from lane 5, warp 2 whole), 7 trips.
Expected values from loop_carried_ref.py (host reference).""",
         "part_entry", 2, 96, 37, 7, False)
one_loop("part_zero", """
part_entry with n = 0: the loop is skipped, the carried values keep their initial ones.
Expected values from loop_carried_ref.py (host reference).""",
         "part_entry", 1, 64, 3, 0, False)
one_loop("top_test", """
A loop testing its counter at its top, its header's parameters read after it, entered by
tid.x >= 5 of 96, 6 trips. Expected values from loop_carried_ref.py (host reference).""",
         "top_test", 2, 96, 5, 6, False)
one_loop("ragged", """
Trip counts 2 + g % 5 that differ between lanes, entered by tid.x >= 3 of 64; the counter
and pointer (uniform inside the loop) read after it by lanes that left in different trips.
Expected values from loop_carried_ref.py (host reference).""",
         "ragged", 2, 64, 3, 2, True)
one_loop("ragged_top", """
Trip counts 2 + g % 5 that differ between lanes in a loop testing at its top, entered by
tid.x >= 3 of 64; its header's counter and pointer (uniform inside the loop) read after it
by lanes that left in different trips. Expected values from loop_carried_ref.py (host
reference).""",
         "ragged_top", 2, 64, 3, 2, True)
one_loop("top_test_lockstep", """
top_test in lockstep order, where the loop's blocks run one at a time for the warp (no
region): the body's jump back to the header writes the uniform counter and pointer once for
the warp's lanes in the loop. Expected values from loop_carried_ref.py (host reference).""",
         "top_test", 2, 96, 5, 6, False, lockstep=True)
one_loop("ragged_top_lockstep", """
ragged_top in lockstep order: the body's jump back to the header writes the uniform counter
and pointer for the lanes still in the loop only, never over the values that the lanes
which left read after it. Expected values from loop_carried_ref.py (host reference).""",
         "ragged_top", 2, 64, 3, 2, True, lockstep=True)
strided("strided", """
A lane-strided address carried around a loop of 4 trips (stride: the grid's 64 threads),
entered by tid.x >= 3. Expected values from loop_carried_ref.py (host reference).""",
        1, 64, 3, 4, False)
strided("strided_oob", """
strided with `in` one element short: the last trip of thread 63 (and only it) reads past
its end, and the fault names that thread.""",
        1, 64, 3, 4, True)
