#!/usr/bin/env python3
"""Host reference for carried_ptr.cu: computes every expected output from the kernels' C
semantics and writes the case files. Inputs are small integers, so every product and partial
sum is an integer well inside f32's exact range: `acc += a * b` (fma or not, in any order) is
exact, and the reference is plain integer arithmetic. Re-run after changing the kernel:
    python3 carried_ptr_ref.py
(carried_ptr.ptx is NVRTC's: /work/shared/tools/nvrtc.py carried_ptr.cu)
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)


def inputs(seed, n):
    return np.random.default_rng(seed).integers(-8, 9, n).astype(np.float32)


def reference(a, bbuf, grid, block, n, k, klast, boff, ldb):
    """C as the kernel computes it (rows × n); B' row kk starts boff + kk·ldb bytes into B."""
    rows = grid[1] * block[1]
    cols = grid[0] * block[0]
    c = np.zeros(rows * n, dtype=np.float32)
    for row in range(rows):
        trips = klast if row == rows - 1 else k
        for col in range(min(cols, n)):
            acc = 0
            for kk in range(trips):
                byte = boff + 4 * col + kk * ldb
                assert byte % 4 == 0
                acc += int(a[row * k + kk]) * int(bbuf[byte // 4])
            c[row * n + col] = acc
    return c


def write(name, comment, grid, block, n, k, klast, boff, ldb, error=None):
    rows = grid[1] * block[1]
    alen = rows * k + max(0, klast - k)
    # B covers every row any thread reads, except rows outside the device arena (initcheck
    # would report the aligned reads of a short B after a misaligned fault).
    last = max(k, klast) - 1 if ldb < 1 << 30 else k - 1
    blen = -(-(boff + 4 * n + last * ldb) // 4)
    a = inputs(1, alen)
    b = inputs(2, blen)
    gc.save_npy(HERE, f"{name}_A", a)
    gc.save_npy(HERE, f"{name}_B", b)
    text = f"# {comment}\n"
    if error is None:
        text += "# Expected values from carried_ptr_ref.py (host reference, exact integer sums).\n"
        c = reference(a, b, grid, block, n, k, klast, boff, ldb)
        gc.save_npy(HERE, f"{name}_C", c)
    text += (
        'ptx = "carried_ptr.ptx"\n'
        'kernel = "carried_ptr"\n'
        f"grid = [{grid[0]}, {grid[1]}, 1]\n"
        f"block = [{block[0]}, {block[1]}, 1]\n"
        "# carried_ptr(const float* A, const float* B, float* C, int N, int K, int klast,\n"
        "#             long long boff, long long ldb)\n"
        f'args = [{{ buffer = "A" }}, {{ buffer = "B" }}, {{ buffer = "C" }}, {{ s32 = {n} }}, '
        f"{{ s32 = {k} }}, {{ s32 = {klast} }}, {{ s64 = {boff} }}, {{ s64 = {ldb} }}]\n\n"
    )
    text += gc.buffer_from_file("A", f"{name}_A.npy", "f32") + "\n"
    text += gc.buffer_from_file("B", f"{name}_B.npy", "f32") + "\n"
    text += f'[buffers.C]\ntype = "f32"\nlen = {rows * n}\n'
    if error is None:
        text += f'\n[expect.C]\nfile = "{name}_C.npy"\ntolerance = "exact"\n'
    else:
        text += f'\n[expect_error]\nkind = "fault"\ncontains = "{error}"\n'
    gc.write_text(HERE, f"{name}.toml", text)


# Full warps (16 x 4 blocks), N a multiple of 16: every group of four lanes active; K = 13
# runs three unrolled trips and one of the remainder loop; B's rows padded and offset.
write("mixed", "Full 16x4 blocks, N = 48, K = 13: B rows of 50 floats starting 5 floats in.",
      [3, 2], [16, 4], 48, 13, 13, 20, 4 * 50)
# 16 x 3 blocks: the second warp is half full; N = 42 leaves groups with 2 of 4 lanes active
# in the last column of blocks.
write("ragged", "Partial warps (16x3 blocks) and partial groups (N = 42), K = 9.",
      [3, 2], [16, 3], 42, 9, 9, 8, 4 * 42)
# One CTA of 16 x 3; rows 0 and 1 run one trip, row 2 runs five (one unrolled pass of four
# and one more): its second element is 2^36 bytes past its first, outside the device arena,
# so thread (0,2,0) faults first (its lanes are the lowest of the only faulting row).
write("oob", "Row 2's second B element lies 2^36 bytes on, outside the arena: thread (0,2,0) "
      "faults.", [1, 1], [16, 3], 16, 1, 5, 0, 1 << 36,
      error="thread (0,2,0) in 'ld.global.f32'")
# The same with a B row stride of 66 bytes: row 2's second element is misaligned.
write("misaligned", "A B row stride of 66 bytes: row 2's second element is misaligned, so "
      "thread (0,2,0) faults.", [1, 1], [16, 3], 16, 1, 5, 0, 66,
      error="thread (0,2,0) in 'ld.global.f32'")


def write_store(name, comment, grid, block, n, k, boff, ldc):
    """carried_store: C starts filled with -1; plane kk of C' (boff + kk·ldc bytes into C)
    gets A[kk] · B[col] at [row][col] for every thread with col < n."""
    rows = grid[1] * block[1]
    cols = min(grid[0] * block[0], n)
    a = inputs(3, k)
    b = inputs(4, n)
    clen = (boff + (k - 1) * ldc) // 4 + rows * n
    c = np.full(clen, -1, dtype=np.float32)
    for kk in range(k):
        for row in range(rows):
            for col in range(cols):
                byte = boff + 4 * (row * n + col) + kk * ldc
                c[byte // 4] = a[kk] * b[col]  # f32: exact, and -0 where the signs say
    gc.save_npy(HERE, f"{name}_A", a)
    gc.save_npy(HERE, f"{name}_B", b)
    gc.save_npy(HERE, f"{name}_C", c)
    text = (
        f"# {comment}\n"
        "# Expected values from carried_ptr_ref.py (host reference, exact integer products).\n"
        'ptx = "carried_ptr.ptx"\n'
        'kernel = "carried_store"\n'
        f"grid = [{grid[0]}, {grid[1]}, 1]\n"
        f"block = [{block[0]}, {block[1]}, 1]\n"
        "# carried_store(const float* A, const float* B, float* C, int N, int K, long long boff,\n"
        "#               long long ldc)\n"
        f'args = [{{ buffer = "A" }}, {{ buffer = "B" }}, {{ buffer = "C" }}, {{ s32 = {n} }}, '
        f"{{ s32 = {k} }}, {{ s64 = {boff} }}, {{ s64 = {ldc} }}]\n\n"
    )
    text += gc.buffer_from_file("A", f"{name}_A.npy", "f32") + "\n"
    text += gc.buffer_from_file("B", f"{name}_B.npy", "f32") + "\n"
    text += f'[buffers.C]\ntype = "f32"\nlen = {clen}\ninit = {{ fill = -1 }}\n'
    text += f'\n[expect.C]\nfile = "{name}_C.npy"\ntolerance = "exact"\n'
    gc.write_text(HERE, f"{name}.toml", text)


# Stores: full groups (N = 32, 16 x 4 blocks), then partial warps and groups (N = 42, 16 x 3
# blocks: lanes past N must not write, so the -1 fill between planes stays). K = 7: one
# unrolled pass of four and three more; planes padded by 3 floats.
write_store("store_mixed", "Stores through a carried pointer: full 16x4 blocks, N = 32, K = 7.",
            [2, 2], [16, 4], 32, 7, 12, 4 * (8 * 32 + 3))
write_store("store_ragged", "Stores through a carried pointer: partial warps (16x3 blocks) "
            "and groups (N = 42), K = 7.", [3, 1], [16, 3], 42, 7, 4, 4 * (3 * 42 + 3))
