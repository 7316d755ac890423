#!/usr/bin/env python3
"""Writes the group_align case files with expected values computed here, on the host (the
kernels' semantics written out in Python; never from ptxjit's engines)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
M32 = (1 << 32) - 1


def vals(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def write(name, text):
    with open(os.path.join(HERE, name + ".toml"), "w") as f:
        f.write(text)


def salign_ok(name, block):
    w, ny = block
    n = w * ny
    out = [(y * w + x) + y + 1 for y in range(ny) for x in range(w)]
    write(name, f"""# {w}x{ny} block: out[i] = sm[i + tid.y + 1] with sm[k] = k, read at the shared byte offset
# 4 i + 4 tid.y + 4 (group_align.ptx, `salign4`). Expected values by gen.py.
ptx = "group_align.ptx"
kernel = "salign4"
grid = [1, 1, 1]
block = [{w}, {ny}, 1]
args = [{{ buffer = "out" }}, {{ u32 = 4 }}]

[buffers.out]
type = "u32"
len = {n}

[expect.out]
values = {vals(out)}
""")


def salign_fault(name, kernel, off, thread, note):
    write(name, f"""# {note}
ptx = "group_align.ptx"
kernel = "{kernel}"
grid = [1, 1, 1]
block = [8, 8, 1]
args = [{{ buffer = "out" }}, {{ u32 = {off} }}]

[buffers.out]
type = "u32"
len = 64

[expect_error]
kind = "fault"
contains = "thread {thread} in 'ld.shared.u32'"
""")


def pjoin(name, grid, block, note):
    w, ny = block
    n = w * ny
    out = []
    for y in range(ny):
        for x in range(w):
            i = y * w + x
            trips = 1 + (x + y) % 3
            v = 5 * i + sum(3 * (y * w + k) + 1 + 3 * i + 1 for k in range(trips))
            out.append(v & M32)
    write(name, f"""# {note}
# out[i] = 5 i + the sum over k < 1 + (tid.x + tid.y) % 3 of sm[tid.y ntid.x + k] + sm[i],
# with sm[k] = 3 k + 1, i = tid.y ntid.x + tid.x (group_align.ptx, `pjoin`): lanes leave
# the loop after different trips. Expected values by gen.py.
ptx = "group_align.ptx"
kernel = "pjoin"
grid = [{grid}, 1, 1]
block = [{w}, {ny}, 1]
args = [{{ buffer = "out" }}]

[buffers.out]
type = "u32"
len = {n}

[expect.out]
values = {vals(out)}
""")


salign_ok("salign4_8x8", (8, 8))
salign_ok("salign4_16x4", (16, 4))
salign_fault("salign4_off2", "salign4", 2, "(0,0,0)",
             "8x8 block: the shared address 4 i + 4 tid.y + 2 is misaligned in every thread; thread (0,0,0)\n# faults (group_align.ptx, `salign4`; the group path's once-per-block alignment test must fail).")
salign_fault("salign2_odd", "salign2", 0, "(0,1,0)",
             "8x8 block: the shared address 4 i + 2 tid.y is misaligned where tid.y is odd; thread (0,1,0)\n# faults (group_align.ptx, `salign2`; each group's alignment is its own).")
pjoin("pjoin_8x4", 1, (8, 4), "8x4 block.")
pjoin("pjoin_16x16", 1, (16, 16), "16x16 block (as sgemm_tiled).")
