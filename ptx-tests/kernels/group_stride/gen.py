#!/usr/bin/env python3
"""Writes the group_stride case files with expected values computed here, on the host (the
kernels' semantics written out in Python; never from ptxjit's engines)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


def vals(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def write(name, text):
    with open(os.path.join(HERE, name + ".toml"), "w") as f:
        f.write(text)


def tile_in(k):
    return (37 * k + 11) % 1009


def tile(name, grid, block, note):
    w, ny, nz = block
    R = ny * nz
    n = grid * R * w
    inp = [tile_in(k) for k in range(n)]
    out = [0] * n
    for c in range(grid):
        sm = [[inp[(c * R + r) * w + x] for x in range(w)] for r in range(R)]
        for r in range(R):
            for x in range(w):
                acc = sum((k + 1) * sm[r][k] for k in range(w)) & M32
                u = (sm[r][1] + 3 * sm[r][2]) & M32
                cc = sm[(r + 1) % R][x]
                out[(c * R + r) * w + x] = (acc * 1000 + u * 10 + cc) & M32
    write(name, f"""# {note}
# Shared tile: out[G w + x] = 1000 sum_k (k + 1) sm[r][k] + 10 (sm[r][1] + 3 sm[r][2])
# + sm[(r + 1) % R][x] with sm[r][x] = in[G w + x] (group_stride.ptx, `tile`);
# in[k] = (37 k + 11) mod 1009. Expected values by gen.py (Python, on the host).
ptx = "group_stride.ptx"
kernel = "tile"
grid = [{grid}, 1, 1]
block = [{w}, {ny}, {nz}]
args = [{{ buffer = "in" }}, {{ buffer = "out" }}]

[buffers.in]
type = "u32"
len = {n}
init = {{ values = {vals(inp)} }}

[buffers.out]
type = "u32"
len = {n}

[expect.out]
values = {vals(out)}
""")


def partial(name, grid, block, note):
    w, ny = block
    n = grid * ny * w
    inp = [(1000003 * k * k + 17 * k + 5) & M64 for k in range(n)]
    sentinel = 0xDEAD
    out = [sentinel] * n
    for c in range(grid):
        for y in range(ny):
            for x in range(w):
                if (x + 2 * y) % 3 == 0:
                    continue
                i = (c * ny + y) * w + x
                out[i] = (3 * inp[i] + inp[i - x]) & M64
    write(name, f"""# {note}
# Partially active groups: out[i] = 3 in[i] + in[i - tid.x] (u64) where (tid.x + 2 tid.y) % 3
# != 0, i = (ctaid.x ntid.y + tid.y) ntid.x + tid.x; other elements keep 0xdead
# (group_stride.ptx, `partial`). in[k] = 1000003 k^2 + 17 k + 5. Expected values by gen.py.
ptx = "group_stride.ptx"
kernel = "partial"
grid = [{grid}, 1, 1]
block = [{w}, {ny}, 1]
args = [{{ buffer = "in" }}, {{ buffer = "out" }}]

[buffers.in]
type = "u64"
len = {n}
init = {{ values = {vals(inp)} }}

[buffers.out]
type = "u64"
len = {n}
init = {{ fill = {sentinel} }}

[expect.out]
values = {vals(out)}
""")


def xwrap(name, block):
    w, ny = block
    n = w * ny
    inp = [(91 * k + 3) % 997 for k in range(n)]
    out = [0] * n
    for y in range(ny):
        for x in range(w):
            i = y * w + x
            out[i] = (inp[i] + 5 * inp[y * w]) & M32
    write(name, f"""# A 32-bit index that wraps inside a group of four lanes and back (tid.x - 2 + 2):
# out[i] = in[i] + 5 in[tid.y ntid.x], i = tid.y ntid.x + tid.x (group_stride.ptx, `xwrap`).
# in[k] = (91 k + 3) mod 997. Expected values by gen.py.
ptx = "group_stride.ptx"
kernel = "xwrap"
grid = [1, 1, 1]
block = [{w}, {ny}, 1]
args = [{{ buffer = "in" }}, {{ buffer = "out" }}]

[buffers.in]
type = "u32"
len = {n}
init = {{ values = {vals(inp)} }}

[buffers.out]
type = "u32"
len = {n}

[expect.out]
values = {vals(out)}
""")


def twrap(name, block):
    w, ny = block
    n = w * ny
    out = []
    for i in range(n):
        x = i % w
        # The address as the kernel computes it, with its wrap-arounds.
        idx = (x + 0x7FFFFFFE) & M32
        sidx = idx - (1 << 32) if idx >= 1 << 31 else idx
        a = ((sidx * 4) & M64) & M32
        a = (a + 8 + 4 * (i // w) * w) & M32
        assert a == 4 * i
        out.append(3 * (a // 4) + 1)
    write(name, f"""# A widened index that wraps inside a group (tid.x = 1 -> 2) and is truncated back to a
# right 32-bit shared address: out[i] = sm[i] = 3 i + 1 (group_stride.ptx, `twrap`).
# Expected values by gen.py.
ptx = "group_stride.ptx"
kernel = "twrap"
grid = [1, 1, 1]
block = [{w}, {ny}, 1]
args = [{{ buffer = "out" }}]

[buffers.out]
type = "u32"
len = {n}

[expect.out]
values = {vals(out)}
""")


tile("tile_16x16", 2, (16, 16, 1), "16x16 blocks (as sgemm_tiled): rows of 16 lanes, two per warp.")
tile("tile_8x4", 3, (8, 4, 1), "8x4 blocks: four rows per warp.")
tile("tile_4x8", 2, (4, 8, 1), "4x8 blocks: ntid.x = 4, every group of four lanes is one row.")
tile("tile_12x3x2", 2, (12, 3, 2),
     "12x3x2 blocks: ntid.x % 4 == 0 but 12 does not divide 32 (rows straddle warps, groups never straddle rows); %tid.z in the row index; a partial last warp (72 threads).")
tile("tile_20x3", 2, (20, 3, 1), "20x3 blocks: 60 threads, a partial last warp of 28 lanes.")
tile("tile_6x5", 2, (6, 5, 1), "6x5 blocks: ntid.x % 4 != 0, groups straddle rows: the group path must stay off.")
partial("partial_8x4", 2, (8, 4), "8x4 blocks, 64-bit elements.")
partial("partial_12x3", 2, (12, 3), "12x3 blocks, 64-bit elements, a partial last warp.")
partial("partial_6x4", 2, (6, 4), "6x4 blocks: ntid.x % 4 != 0 (no group path).")
xwrap("xwrap_8x3", (8, 3))
twrap("twrap_16x4", (16, 4))
twrap("twrap_12x5", (12, 5))

xin = [(53 * k + 7) % 1013 for k in range(64)]
xout = [xin[t ^ 4] + xin[t ^ 8] for t in range(64)]
write("xspace", f"""# Warp-synchronous exchange through shared memory between global accesses (1D block of
# 64): out[t] = in[t ^ 4] + in[t ^ 8] (group_stride.ptx, `xspace`). in[k] = (53 k + 7) mod
# 1013. Expected values by gen.py.
# group_stride.ptx targets sm_80: `lockstep = true` keeps the lockstep order the exchange
# relies on.
ptx = "group_stride.ptx"
kernel = "xspace"
grid = [1, 1, 1]
block = [64, 1, 1]
args = [{{ buffer = "in" }}, {{ buffer = "out" }}]
lockstep = true

[buffers.in]
type = "u32"
len = 64
init = {{ values = {vals(xin)} }}

[buffers.out]
type = "u32"
len = 64

[expect.out]
values = {vals(xout)}
""")

write("soob", """# 8x8 block: out[i] = sm[i + 4] over 64 words of shared memory; threads i >= 60 read past
# its end and the launch faults at the lowest of them, i = 60 = thread (4,7,0), whose group
# (threads 60..63) must leave the group path for the per-lane checks (group_stride.ptx, `soob`).
ptx = "group_stride.ptx"
kernel = "soob"
grid = [1, 1, 1]
block = [8, 8, 1]
args = [{ buffer = "out" }]

[buffers.out]
type = "u32"
len = 64

[expect_error]
kind = "fault"
contains = "thread (4,7,0)"
""")

write("gwrap", """# 8x2 block: the index tid.x + 0x7ffffffe wraps to negative at tid.x = 2, inside the first
# group of four lanes; mul.wide.s32 sign-extends it, so thread (2,0,0) reads 2^34 bytes below
# the buffer and the launch faults there: a group path must notice the wrap and leave the
# access to the per-lane checks (%tid.y in the address keeps the warp-wide path out;
# group_stride.ptx, `gwrap`).
ptx = "group_stride.ptx"
kernel = "gwrap"
grid = [1, 1, 1]
block = [8, 2, 1]
args = [{ buffer = "in" }, { buffer = "out" }]

[buffers.in]
type = "u32"
len = 16
init = { iota = { start = 0, step = 1 } }

[buffers.out]
type = "u32"
len = 16

[expect_error]
kind = "fault"
contains = "thread (2,0,0)"
""")
