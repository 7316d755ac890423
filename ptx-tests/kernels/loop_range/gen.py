#!/usr/bin/env python3
"""Writes down_sum.toml and up_sum16.toml: the inputs of loop_range.ptx and their expected
outputs, computed on the host from the kernels' per-thread semantics (32-bit unsigned
arithmetic for p). Blocks of 80 threads (a last warp of 16 lanes), three CTAs; full warps run
their trips as a decided loop whose loads' range test is made once before the loop. Run from
this directory."""

import random

CTAS, BLOCK = 3, 80
G = CTAS * BLOCK
M = 2**32
rng = random.Random(20261207)


def vals(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


# skip_sum as a descending grid-stride loop: start = n - G, step = G, so the first trip reads
# the last G bytes and the loop ends where p wraps below 0.
N8 = G * 7 + 23
data8 = [rng.randrange(256) for _ in range(N8)]
out = []
for g in range(G):
    p, acc = (N8 - G + g) % M, 0
    while True:
        acc = (acc + data8[p]) % M
        p = (p - G) % M
        if not p < N8:
            break
    out.append(acc)
with open("down_sum.toml", "w") as f:
    f.write(
        f"""# skip_sum as a descending grid-stride loop (p from n - G + g down by G while p < n):
# every trip's bytes below n. Expected values from gen.py (host reference).
ptx = "loop_range.ptx"
grid = [{CTAS}]
block = [{BLOCK}]
kernel = "skip_sum"
args = [{{ buffer = "data" }}, {{ u32 = {N8} }}, {{ u32 = {N8 - G} }}, {{ u32 = {G} }}, {{ buffer = "out" }}]

[buffers.data]
type = "u8"
init = {{ values = {vals(data8)} }}

[buffers.out]
type = "u32"
len = {G}
init = {{ fill = 0 }}

[expect.out]
values = {vals(out)}
"""
    )

# up_sum16: an ascending grid-stride loop over n 16-bit words (mul.wide.u32 p, 2).
N16 = G * 5 + 41
data16 = [rng.randrange(65536) for _ in range(N16)]
out = []
for g in range(G):
    acc, p = 0, g
    while p < N16:
        acc = (acc + data16[p]) % M
        p += G
    out.append(acc)
with open("up_sum16.toml", "w") as f:
    f.write(
        f"""# up_sum16: out[g] = sum of data16[p] for p = g, g + G, ... below n = {N16} (u16 loads at
# data + p * 2). Expected values from gen.py (host reference).
ptx = "loop_range.ptx"
grid = [{CTAS}]
block = [{BLOCK}]
kernel = "up_sum16"
args = [{{ buffer = "data" }}, {{ u32 = {N16} }}, {{ buffer = "out" }}]

[buffers.data]
type = "u16"
init = {{ values = {vals(data16)} }}

[buffers.out]
type = "u32"
len = {G}
init = {{ fill = 0 }}

[expect.out]
values = {vals(out)}
"""
    )
