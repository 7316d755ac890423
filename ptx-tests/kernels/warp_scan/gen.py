#!/usr/bin/env python3
"""Inputs and expected outputs of the warp_scan case (warp_scan.cu), computed on the host with
numpy: the inclusive prefix sum of each CTA's segment of 256 u32 (wrapping modulo 2^32), and
each CTA's total (for the partial last CTA, the sum of its elements: the lanes past n add 0).
n = 1000, so the last CTA has 232 elements and its last warp 8. Run from this directory."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402

N, BLOCK = 1000, 256
GRID = (N + BLOCK - 1) // BLOCK

rng = np.random.default_rng(20261207)
x = rng.integers(0, 1 << 32, size=N, dtype=np.uint64)  # large values: the sums wrap
out = np.zeros(N, dtype=np.uint64)
sums = np.zeros(GRID, dtype=np.uint64)
for b in range(GRID):
    seg = x[b * BLOCK:(b + 1) * BLOCK]
    acc = np.cumsum(seg) % (1 << 32)
    out[b * BLOCK:b * BLOCK + len(seg)] = acc
    sums[b] = acc[-1]

gc.save_npy(HERE, "in", x.astype("<u4"))
gc.save_npy(HERE, "out_expected", out.astype("<u4"))
gc.save_npy(HERE, "sums_expected", sums.astype("<u4"))
gc.write_text(HERE, "warp_scan.toml", f"""\
# Block-wide inclusive scan with __shfl_up_sync (warp_scan.cu, NVRTC compute_80): warp scans,
# warp totals scanned by warp 0 through __shared__, a partial last CTA (n = {N}) whose lanes
# past n still shuffle; u32 sums wrap. Expected from gen.py (numpy).
ptx = "warp_scan.ptx"
kernel = "warp_scan"
grid = [{GRID}]
block = [{BLOCK}]
# warp_scan(const unsigned* in, unsigned* out, unsigned* block_sums, int n)
args = [{{ buffer = "in" }}, {{ buffer = "out" }}, {{ buffer = "sums" }}, {{ s32 = {N} }}]

{gc.buffer_from_file("in", "in.npy")}
[buffers.out]
type = "u32"
len = {N}
init = {{ fill = 0xdeadbeef }}

[buffers.sums]
type = "u32"
len = {GRID}

{gc.expect_exact("out", "out_expected.npy")}
{gc.expect_exact("sums", "sums_expected.npy")}""")
