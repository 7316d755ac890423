#!/usr/bin/env python3
"""Writes bulk_reduce_relaxed.toml: inputs and the values each cp.reduce.async.bulk leaves,
computed here by the ISA's element operations (§9.7.9.25.4.2: each element of the destination
becomes `dst op src`; add wraps, max.s32 is signed, and.b64 works on 8-byte elements, inc.u32
is `dst >= src ? 0 : dst + 1`).

Run: python3 gen_expected.py (numpy)."""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(93)
x = rng.integers(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
acc = rng.integers(0, 2**32, 192, dtype=np.uint64).astype(np.uint32)
acc64 = rng.integers(0, 2**64, 32, dtype=np.uint64)
s, d = x[:64], x[64:128]

out = acc.copy()
out[0:64] = (acc[0:64].astype(np.uint64) + s) % 2**32
out[64:128] = np.maximum(acc[64:128].view(np.int32), s.view(np.int32)).view(np.uint32)
old = acc[128:192]
out[128:192] = np.where(old >= s, 0, (old.astype(np.uint64) + 1) % 2**32).astype(np.uint32)
out64 = acc64 & s.view(np.uint64)
sdst = ((d.astype(np.uint64) + s) % 2**32).astype(np.uint32)


def vals(a):
    return "[" + ", ".join(str(int(v)) for v in a) + "]"


text = f"""# cp.reduce.async.bulk with .relaxed.<scope> (PTX ISA 9.3): add.u32 (.gpu), max.s32 (.cta),
# inc.u32 (.cluster) and and.b64 (.sys) from shared::cta into global memory (bulk_group), and
# add.u32 (.cluster) into the CTA's own shared memory (mbarrier completion), copied out.
# Expected values: gen_expected.py (the element operations on the host).
# Written by gen_expected.py (do not edit: change it and run it).
ptx = "bulk_reduce_relaxed.ptx"
kernel = "bulk_reduce_relaxed"
grid = [1]
block = [32]
args = [{{ buffer = "x" }}, {{ buffer = "acc" }}, {{ buffer = "acc64" }}, {{ buffer = "sdst" }}]

[buffers.x]
type = "u32"
init = {{ values = {vals(x)} }}

[buffers.acc]
type = "u32"
init = {{ values = {vals(acc)} }}

[buffers.acc64]
type = "u64"
init = {{ file = "acc64.npy" }}

[buffers.sdst]
type = "u32"
len = 64

[expect.acc]
values = {vals(out)}

[expect.acc64]
file = "acc64_expected.npy"

[expect.sdst]
values = {vals(sdst)}
"""
# TOML integers stop at 2^63 - 1: the 64-bit words go through .npy files.
np.save(os.path.join(HERE, "acc64.npy"), acc64)
np.save(os.path.join(HERE, "acc64_expected.npy"), out64)
with open(os.path.join(HERE, "bulk_reduce_relaxed.toml"), "w") as f:
    f.write(text)
