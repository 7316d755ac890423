#!/usr/bin/env python3
"""Writes edge_bins.toml, low_bins.toml, wide_bins.toml, evict_bins.toml and uniform_ops.toml: the
inputs of dense_span.ptx and their expected outputs, computed on the host from the kernels'
per-thread semantics. Every index below n is visited by exactly one thread (the grid stride is
the grid's thread count), so the bins are histograms (edge_bins) or sums (low_bins, wide_bins)
of the bytes. The first trip (indices below the grid's thread count) holds, in each 32
consecutive threads of a block, the bytes 0, 127, 1, 2, ..., 30: a warp's first 16 lanes miss 16
distinct bins spanning 0..127, so its first dense window is bins 0..127 (512 bytes); the later
trips are random bytes 0..255 with 128 and 255 among the first. Run from this directory."""

import random

CTAS, BLOCK = 3, 80
THREADS = CTAS * BLOCK
N = THREADS * 7 + 23
rng = random.Random(20261207)

first = [0, 127] + list(range(1, 31))
data = [first[(i % BLOCK) % 32] for i in range(THREADS)]
rest = [rng.randrange(256) for _ in range(N - THREADS)]
rest[0], rest[1], rest[33] = 128, 255, 255
data += rest


def vals(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def case(kernel, doc, btype, nbins, bins):
    with open(f"{kernel}.toml", "w") as f:
        f.write(
            f"""# {doc}
# Grid-stride loop over n = {N} bytes, blocks of 80 threads (a last warp of 16 lanes);
# full warps run their first trips as a decided loop. Expected values from gen.py (host
# reference).
ptx = "dense_span.ptx"
grid = [{CTAS}]
block = [{BLOCK}]
kernel = "{kernel}"
args = [{{ buffer = "data" }}, {{ u32 = {N} }}, {{ buffer = "bins" }}]

[buffers.data]
type = "u8"
init = {{ values = {vals(data)} }}

[buffers.bins]
type = "{btype}"
len = {nbins}
init = {{ fill = 0 }}

[expect.bins]
values = {vals(bins)}
"""
        )


ebins = [0] * 256
for x in data:
    ebins[x] += 1
case(
    "edge_bins",
    "bins[data[i]] += 1 (atom.global.add.u32, result unused): a first window of bins 0..127, later bytes past its edge.",
    "u32",
    256,
    ebins,
)

lbins = [0] * 16
for x in data:
    lbins[x & 15] += x
case(
    "low_bins",
    "bins[data[i] & 15] += data[i] (red.global.add.u32, offset first in the add): the span ends at the buffer's end.",
    "u32",
    16,
    lbins,
)

wbins = [0] * 32
for x in data:
    wbins[x & 31] += x
case(
    "wide_bins",
    "bins[data[i] & 31] += data[i] (red.global.add.u64): 32 bins of 64 bits.",
    "u64",
    32,
    wbins,
)

# evict_bins: 2 CTAs of 128 threads (8 full warps), 12 trips. Random bytes, bin 5 one in
# four, lanes 0 and 1 of a warp's first trip 0 and 255 (so its first dense window, made at
# the 16th miss, covers all 256 bins: the first reduction's span); the second reduction's
# byte offsets are 4 * (0..255) (inside the window), except, in trips 6 and 9, lane 3 of
# every warp adds at 4096 + 20: the slot of bin 5 (1024 slots of 4 bytes), whose miss
# evicts it and ends the window with bin 5's adds still to come in later groups and trips.
E_CTAS, E_BLOCK = 2, 128
E_THREADS = E_CTAS * E_BLOCK
E_N = E_THREADS * 12
erng = random.Random(20261208)
edata = [5 if erng.randrange(4) == 0 else erng.randrange(256) for _ in range(E_N)]
for i in range(E_THREADS):
    if i % 32 < 2:
        edata[i] = 255 * (i % 32)
eoffs = []
for i in range(E_N):
    trip = i // E_THREADS
    if trip in (6, 9) and i % 32 == 3:
        eoffs.append(4096 + 20)
    else:
        eoffs.append(4 * erng.randrange(256))
evbins = [0] * 2048
for i in range(E_N):
    evbins[edata[i]] += 1
    evbins[eoffs[i] // 4] += 1
with open("evict_bins.toml", "w") as f:
    f.write(
        f"""# bins[data[i]] += 1 beside bins[offs[i] / 4] += 1 (red.global.add.u32 both, the second
# offset loaded: no known range), where the second one's misses at bins + 4116 evict the
# dense window's slot of bin 5 in the middle of a warp's trips.
# Grid-stride loop over n = {E_N} bytes, blocks of {E_BLOCK} threads (full warps), 12 trips.
# Expected values from gen.py (host reference).
ptx = "dense_span.ptx"
grid = [{E_CTAS}]
block = [{E_BLOCK}]
kernel = "evict_bins"
args = [{{ buffer = "data" }}, {{ buffer = "offs" }}, {{ u32 = {E_N} }}, {{ buffer = "bins" }}]

[buffers.data]
type = "u8"
init = {{ values = {vals(edata)} }}

[buffers.offs]
type = "u64"
init = {{ values = {vals(eoffs)} }}

[buffers.bins]
type = "u32"
len = 2048
init = {{ fill = 0 }}

[expect.bins]
values = {vals(evbins)}
"""
    )

# uniform_ops: edge_bins's data and grid, with three warp-uniform accesses to the same bins in
# each trip beside the combined reduction: a load of bin 6 and an atom.global.add with its
# result used on bin 5 (both bins the reduction also adds to), and a red.global.add at
# bins + 4116 (bin 1029, the slot of bin 5 in a 1024-slot table). Every thread adds 1 to bins 5
# and 1029 once per trip it runs; the loaded values only decide a store that never happens
# (no count reaches 2^32 - 1), so out stays 0.
ubins = [0] * 2048
for x in data:
    ubins[x] += 1
ubins[5] += N
ubins[1029] += N
with open("uniform_ops.toml", "w") as f:
    f.write(
        f"""# bins[data[i]] += 1 (atom.global.add.u32, result unused) beside warp-uniform accesses in
# each trip: ld.global.u32 of bin 6, atom.global.add.u32 of bin 5 with its result used,
# red.global.add.u32 of bin 1029 (bins + 4116). Grid-stride loop over n = {N} bytes,
# blocks of {BLOCK} threads (a last warp of 16 lanes). Expected values from gen.py (host
# reference).
ptx = "dense_span.ptx"
grid = [{CTAS}]
block = [{BLOCK}]
kernel = "uniform_ops"
args = [{{ buffer = "data" }}, {{ u32 = {N} }}, {{ buffer = "bins" }}, {{ buffer = "out" }}]

[buffers.data]
type = "u8"
init = {{ values = {vals(data)} }}

[buffers.bins]
type = "u32"
len = 2048
init = {{ fill = 0 }}

[buffers.out]
type = "u32"
len = 1
init = {{ fill = 0 }}

[expect.bins]
values = {vals(ubins)}

[expect.out]
values = [0]
"""
    )
