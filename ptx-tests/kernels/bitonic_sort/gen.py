#!/usr/bin/env python3
"""Inputs and expected outputs of the bitonic_sort case (bitonic_sort.cu), computed on the host
with numpy: 4 CTAs of 256 threads each sort a segment of 512 (key, value) pairs by key; keys
are distinct u32 (so the order is unique), each value is its key's original index.
Run from this directory."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402

GRID, BLOCK = 4, 256
SEG = 2 * BLOCK
N = GRID * SEG
rng = np.random.default_rng(512_4)
keys = rng.choice(1 << 32, size=N, replace=False).astype(np.uint64)
vals = np.arange(N, dtype=np.uint64)
k_out, v_out = keys.copy(), vals.copy()
for b in range(GRID):
    s = slice(b * SEG, (b + 1) * SEG)
    order = np.argsort(keys[s], kind="stable")
    k_out[s] = keys[s][order]
    v_out[s] = vals[s][order]

gc.save_npy(HERE, "keys", keys.astype("<u4"))
gc.save_npy(HERE, "keys_expected", k_out.astype("<u4"))
gc.save_npy(HERE, "vals_expected", v_out.astype("<u4"))
gc.write_text(HERE, "bitonic_sort.toml", f"""\
# Bitonic sort of key/value pairs in dynamic __shared__ memory (bitonic_sort.cu, NVRTC
# compute_80): {SEG} pairs per CTA, __syncthreads between the compare-exchange steps.
# Expected from gen.py (numpy argsort per segment).
ptx = "bitonic_sort.ptx"
kernel = "bitonic_sort"
grid = [{GRID}]
block = [{BLOCK}]
shared_bytes = {2 * SEG * 4}
# bitonic_sort(unsigned* keys, unsigned* vals)
args = [{{ buffer = "keys" }}, {{ buffer = "vals" }}]

{gc.buffer_from_file("keys", "keys.npy")}
[buffers.vals]
type = "u32"
init = {{ iota = {{ start = 0, step = 1 }} }}
len = {N}

{gc.expect_exact("keys", "keys_expected.npy")}
{gc.expect_exact("vals", "vals_expected.npy")}""")
