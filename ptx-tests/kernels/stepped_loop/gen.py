#!/usr/bin/env python3
"""Writes count_up.toml and count_down.toml: the inputs of stepped_loop.ptx and their
expected outputs, computed on the host from the kernels' per-thread semantics (32-bit
wrap-around). Every index below n is visited by exactly one thread (the grid stride is the
grid's thread count), so the bins are the histogram of the data and every word of out is
written. Run from this directory."""

import random

CTAS, BLOCK = 3, 80
THREADS = CTAS * BLOCK
N = THREADS * 6 + 17
M32 = 0xFFFFFFFF
rng = random.Random(20261207)
data = [rng.randrange(256) for _ in range(N)]


def run(kernel):
    bins = [0] * 256
    out = [7] * N
    for t in range(THREADS):
        if kernel == "count_up":
            i = t
            while i < N:
                bins[data[i]] += 1
                out[i] = (3 * i + 1) & M32
                i += THREADS
        else:
            j = N - 1 - t
            while j >= 0:
                bins[data[j]] += 1
                out[j] = j ^ 0x55
                j -= THREADS
    return bins, out


def vals(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


DOC = {
    "count_up": "i += ntid * nctaid while i < n, the counter read per lane (out[i] = 3i + 1)",
    "count_down": "j -= ntid * nctaid while j >= 0 (signed), out[j] = j ^ 0x55",
}

for kernel in ["count_up", "count_down"]:
    bins, out = run(kernel)
    with open(f"{kernel}.toml", "w") as f:
        f.write(
            f"""# A grid-stride loop whose counter steps by a uniform amount: {DOC[kernel]},
# a shared atomic on each byte's bin, the bins added to global memory. Blocks of 80 threads
# (a last warp of 16 lanes); full warps run their first trips as a decided loop. Expected
# values from gen.py (host reference).
ptx = "stepped_loop.ptx"
grid = [{CTAS}]
block = [{BLOCK}]
kernel = "{kernel}"
args = [{{ buffer = "data" }}, {{ u32 = {N} }}, {{ buffer = "out" }}, {{ buffer = "bins" }}]

[buffers.data]
type = "u8"
init = {{ values = {vals(data)} }}

[buffers.out]
type = "u32"
len = {N}
init = {{ fill = 7 }}

[buffers.bins]
type = "u32"
len = 256
init = {{ fill = 0 }}

[expect.out]
values = {vals(out)}

[expect.bins]
values = {vals(bins)}
"""
        )
