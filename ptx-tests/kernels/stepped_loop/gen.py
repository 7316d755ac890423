#!/usr/bin/env python3
"""Writes count_up.toml and count_down.toml: the inputs of stepped_loop.ptx and their
expected outputs, computed on the host from the kernels' per-thread semantics (32-bit
wrap-around). Every index below n is visited by exactly one thread (the grid stride is the
grid's thread count), so the bins are the histogram of the data and every word of out is
written."""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402

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


DOC = {
    "count_up": "i += ntid * nctaid while i < n, the counter read per lane (out[i] = 3i + 1)",
    "count_down": "j -= ntid * nctaid while j >= 0 (signed), out[j] = j ^ 0x55",
}

for kernel in ["count_up", "count_down"]:
    bins, out = run(kernel)
    gc.write_text(
        HERE,
        f"{kernel}.toml",
        f"""# A grid-stride loop whose counter steps by a uniform amount: {DOC[kernel]},
# a shared atomic on each byte's bin, the bins added to global memory. Blocks of 80 threads
# (a last warp of 16 lanes); full warps run their first trips as a decided loop. Expected
# values from gen.py (host reference).
ptx = "stepped_loop.ptx"
grid = [{CTAS}]
block = [{BLOCK}]
kernel = "{kernel}"
args = [{{ buffer = "data" }}, {{ u32 = {N} }}, {{ buffer = "out" }}, {{ buffer = "bins" }}]

{gc.buffer_values("data", data, "u8")}
{gc.buffer_fill("out", N, 7)}
{gc.buffer_fill("bins", 256)}
{gc.expect_values("out", out)}
{gc.expect_values("bins", bins)}""",
    )
