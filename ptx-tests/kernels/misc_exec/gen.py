#!/usr/bin/env python3
"""Writes misc_exec's input and expected output from the PTX ISA's definitions (numpy only):

- ldu.global (9.7.9.10) loads in[0] in every thread;
- match.any.sync.b32 d, a, membermask (9.7.13.10): d is the mask of the lanes in membermask
  whose a equals this lane's a;
- match.all.sync.b32 d|p, a, membermask: d is membermask and p true when every lane of
  membermask has the same a, else d = 0 and p false;
- brx.idx i, targets (9.7.12.4) jumps to the i-th label of the list: 100, 200, 300.

Run: python3 gen.py
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
N = 64

inp = np.array([(t * 7) % 5 + 10 for t in range(N)], dtype=np.uint32)
out = np.zeros((N, 5), dtype=np.uint32)
for t in range(N):
    w = t // 32
    lanes = range(32 * w, 32 * w + 32)
    out[t, 0] = inp[0]
    out[t, 1] = sum(1 << (j - 32 * w) for j in lanes if inp[j] == inp[t])
    uniform_all = True  # t // 32 is the same in the whole warp
    out[t, 2] = 0xFFFFFFFF
    keys_all = all(inp[j] == inp[t] for j in lanes)
    out[t, 3] = 0xFFFFFFFF if keys_all else 0
    out[t, 4] = 100 * (t % 3 + 1) + (1000 if uniform_all else 0) + (10000 if keys_all else 0)

np.save(os.path.join(HERE, "in.npy"), inp)
np.save(os.path.join(HERE, "out_expected.npy"), out.reshape(-1))
