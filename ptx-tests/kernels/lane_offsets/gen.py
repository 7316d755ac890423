#!/usr/bin/env python3
"""Writes signed_bins.toml and u16_bins.toml: the inputs of lane_offsets.ptx and their
expected outputs, computed on the host from the kernels' per-thread semantics. Every index
below n is visited by exactly one thread (the grid stride is the grid's thread count), so
the bins are histograms of the data: of 128 + the bytes read as signed (signed_bins), and of
the 16-bit words (u16_bins, words below 4096 so that 4096 bins hold them, with high bytes
that differ from the low ones). Run from this directory."""

import random

CTAS, BLOCK = 3, 80
THREADS = CTAS * BLOCK
N = THREADS * 7 + 23
rng = random.Random(20261207)


def vals(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def case(kernel, doc, dtype, data, nbins, bins):
    with open(f"{kernel}.toml", "w") as f:
        f.write(
            f"""# {doc}
# Grid-stride loop over n = {N} elements, blocks of 80 threads (a last warp of 16 lanes);
# full warps run their first trips as a decided loop. Expected values from gen.py (host
# reference).
ptx = "lane_offsets.ptx"
grid = [{CTAS}]
block = [{BLOCK}]
kernel = "{kernel}"
args = [{{ buffer = "data" }}, {{ u32 = {N} }}, {{ buffer = "bins" }}]

[buffers.data]
type = "{dtype}"
init = {{ values = {vals(data)} }}

[buffers.bins]
type = "u32"
len = {nbins}
init = {{ fill = 0 }}

[expect.bins]
values = {vals(bins)}
"""
        )


sdata = [rng.randrange(-128, 128) for _ in range(N)]
sbins = [0] * 256
for x in sdata:
    sbins[128 + x] += 1
case(
    "signed_bins",
    "Shared bins[128 + (s8) data[i]] += 1 (ld.global.s8, add.s32, mul.wide.s32), added to global memory.",
    "s8",
    sdata,
    256,
    sbins,
)

udata = [rng.randrange(4096) for _ in range(N)]
ubins = [0] * 4096
for x in udata:
    ubins[x] += 1
case(
    "u16_bins",
    "Shared bins[(u16) data[i]] += 1 (ld.global.u16, shl.b32, cvt.u64.u32), added to global memory.",
    "u16",
    udata,
    4096,
    ubins,
)
