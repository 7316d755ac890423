#!/usr/bin/env python3
"""Writes ragged_hist.toml and ragged_branch.toml: the inputs of loop_exits.ptx and their
expected outputs, computed on the host from the kernels' per-thread semantics (32-bit
wrap-around) and, for `activemask` at a loop's exit, from the documented warp schedule
(src/analysis/schedule.rs: lanes that leave a loop early wait at its exit until the last lane
leaves, so every existing lane of the warp is active there). Run from this directory."""

import random

CTAS, BLOCK = 3, 100
N = CTAS * BLOCK
M32 = 0xFFFFFFFF
rng = random.Random(20261205)
# Trip counts per thread: mostly small and different within a warp, some zero, some long.
cnt = [rng.choice([0, 0, 1, 2, 3, 5, 8, 9, rng.randrange(40)]) for _ in range(N)]
data = [rng.randrange(256) for _ in range(1024)]


def warp_mask(tid):
    """The lanes of tid's warp that exist in a block of BLOCK threads."""
    w = tid // 32
    lanes = min(32, BLOCK - 32 * w)
    return (1 << lanes) - 1


def ragged_hist():
    bins = [0] * 64
    masks = []
    for c in range(CTAS):
        sbins = [0] * 64
        for tid in range(BLOCK):
            t = c * BLOCK + tid
            for j in range(cnt[t]):
                sbins[data[(j * 13 + t * 7) & 1023] & 63] += 1
            masks.append(warp_mask(tid))
        for b in range(64):
            bins[b] = (bins[b] + sbins[b]) & M32
    return bins, masks


def ragged_branch():
    bins = [0] * 16
    gsum = [0] * 8
    out = []
    for c in range(CTAS):
        sb = [0] * 16
        for tid in range(BLOCK):
            t = c * BLOCK + tid
            acc = 0
            for j in range(cnt[t]):
                v = data[(t + j) & 1023]
                if v & 1:
                    sb[v & 15] += j + 1
                    acc = (acc + v) & M32
                else:
                    acc ^= v * 3
                    gsum[(v >> 1) & 7] += 1
                acc = (acc << 1) & M32
            out += [acc, warp_mask(tid)]
        for b in range(16):
            bins[b] = (bins[b] + sb[b]) & M32
    return bins, gsum, out


def vals(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


HEAD = f"""ptx = "loop_exits.ptx"
grid = [{CTAS}]
block = [{BLOCK}]
"""

INPUTS = f"""
[buffers.cnt]
type = "u32"
init = {{ values = {vals(cnt)} }}

[buffers.data]
type = "u8"
init = {{ values = {vals(data)} }}
"""

bins, masks = ragged_hist()
with open("ragged_hist.toml", "w") as f:
    f.write(
        f"""# A one-block loop whose lanes leave at different iterations (per-thread trip counts,
# some zero), a shared atomic per iteration, `activemask` at the exit (every existing lane of
# the warp: they meet there), a barrier, the bins added to global memory; blocks of 100
# threads (a last warp of 4 lanes). Expected values from gen.py (host reference).
{HEAD}kernel = "ragged_hist"
args = [{{ buffer = "cnt" }}, {{ buffer = "data" }}, {{ buffer = "bins" }}, {{ buffer = "masks" }}]
{INPUTS}
[buffers.bins]
type = "u32"
len = 64
init = {{ fill = 0 }}

[buffers.masks]
type = "u32"
len = {N}
init = {{ fill = 7 }}

[expect.bins]
values = {vals(bins)}

[expect.masks]
values = {vals(masks)}
"""
    )

bins, gsum, out = ragged_branch()
with open("ragged_branch.toml", "w") as f:
    f.write(
        f"""# A loop with an if/else inside (one region: header, both sides, latch) whose lanes
# leave at different iterations, a shared atomic on one side and a global one on the other,
# a value carried across iterations, `activemask` at the exit, a barrier and the bins added
# to global memory; blocks of 100 threads. Expected values from gen.py (host reference).
{HEAD}kernel = "ragged_branch"
args = [{{ buffer = "cnt" }}, {{ buffer = "data" }}, {{ buffer = "bins" }}, {{ buffer = "gsum" }}, {{ buffer = "out" }}]
{INPUTS}
[buffers.bins]
type = "u32"
len = 16
init = {{ fill = 0 }}

[buffers.gsum]
type = "u32"
len = 8
init = {{ fill = 0 }}

[buffers.out]
type = "u32"
len = {2 * N}
init = {{ fill = 7 }}

[expect.bins]
values = {vals(bins)}

[expect.gsum]
values = {vals(gsum)}

[expect.out]
values = {vals(out)}
"""
    )
